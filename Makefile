# qostrace build.
#   make            build/qostrace (and the BPF object and skeleton it embeds)
#   make demo       install what is missing (Debian 12), build, record the built-in pipeline, report
#   make test       install what is missing, build, unit tests, then end-to-end tests with BPF
#   make check      the tests only (nothing installed)
#   make V=1        show the full commands
#   make SAN=1      AddressSanitizer + UBSan build in build-san/
#   make VMLINUX_BTF=/path/to/vmlinux   generate vmlinux.h from another kernel's BTF
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

SAN ?=
ifeq ($(SAN),1)
OUTPUT ?= build-san
else
OUTPUT ?= build
endif

CC       ?= gcc
CLANG    ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wstrict-prototypes
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Iinclude -I$(OUTPUT)/skel $(WARN) -MMD -MP
LDLIBS   := -lbpf -lelf -lz -ldeflate -lpthread -lm
# The program allocates with jemalloc on transparent huge pages: the analysis
# walks arrays of hundreds of MB, and on 4 KiB pages a third of its time went
# to page faults (README.md, Performance). Sanitizer builds keep their own.
ifneq ($(SAN),1)
PROG_LIBS := -ljemalloc
$(OUTPUT)/obj/main.o: CFLAGS += -DQOSTRACE_JEMALLOC
endif
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -I$(OUTPUT)/bpf -MMD -MP

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/skel/%.skel.h,$(BPF_SRCS))

SRCS      := $(wildcard src/*.c)
LIB_OBJS  := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(filter-out src/main.c,$(SRCS)))
LIB       := $(OUTPUT)/libqostrace.a
PROG      := $(OUTPUT)/qostrace

TEST_SRCS := $(wildcard tests/test_*.c)
TESTS     := $(patsubst tests/%.c,$(OUTPUT)/tests/%,$(TEST_SRCS))
WORK_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORK_SRCS))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_OUT  := build-fuzz
FUZZERS   := $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRCS))
BENCH_SRCS := $(wildcard tests/bench/*.c)
BENCHES   := $(patsubst tests/bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))

.PHONY: all test check unit e2e clean workloads bench-progs deps demo fuzz
all: $(PROG) $(WORKLOADS)

$(OUTPUT)/bpf/vmlinux.h: | $(OUTPUT)/bpf
	$(call msg,GEN,$@)
	$(Q)if [ ! -r "$(VMLINUX_BTF)" ]; then \
		echo "error: $(VMLINUX_BTF) is missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y is needed)." >&2; \
		echo "       Build with VMLINUX_BTF=/path/to/vmlinux of a kernel that has it." >&2; exit 1; fi
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/bpf/vmlinux.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(OUTPUT)/skel/%.skel.h: $(OUTPUT)/bpf/%.bpf.o | $(OUTPUT)/skel
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/obj/%.o: src/%.c | $(SKELS) $(OUTPUT)/obj
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(PROG): $(OUTPUT)/obj/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(PROG_LIBS) -o $@

$(OUTPUT)/tests/%: tests/%.c $(LIB) tests/testutil.h | $(OUTPUT)/tests
	$(call msg,TEST-CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $< $(LIB) $(LDFLAGS) $(LDLIBS) -lcriterion -o $@

# Benchmark drivers (run by scripts/bench-*.sh, never by `make test`).
$(OUTPUT)/bench/%: tests/bench/%.c $(LIB) | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $< $(LIB) $(LDFLAGS) $(LDLIBS) -o $@

bench-progs: $(BENCHES)

$(OUTPUT)/workloads/%: tests/workloads/%.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -lpthread -lm -o $@

$(OUTPUT)/bpf $(OUTPUT)/skel $(OUTPUT)/obj $(OUTPUT)/tests $(OUTPUT)/workloads $(OUTPUT)/bench:
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/install-deps.sh

# The two commands of README.md: they install what is missing first.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(PROG) demo

test: deps
	$(Q)$(MAKE) --no-print-directory check

# Unit tests first (no privileges), then the end-to-end tests that record.
check: $(PROG) $(TESTS) $(WORKLOADS)
	$(Q)scripts/run-tests.sh $(OUTPUT)

unit: $(TESTS)
	$(Q)scripts/run-tests.sh --unit $(OUTPUT)

e2e: $(PROG) $(TESTS) $(WORKLOADS)
	$(Q)scripts/run-tests.sh --e2e $(OUTPUT)

workloads: $(WORKLOADS)

# libFuzzer targets, built by clang with ASan + UBSan over a library of
# their own (make fuzz; scripts/fuzz.sh runs them on the seed corpus).
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Iinclude -I$(OUTPUT)/skel \
	-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/obj/%.o,$(filter-out src/main.c,$(SRCS)))

$(FUZZ_OUT)/obj/%.o: src/%.c | $(SKELS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_OUT)/libqostrace.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_OUT)/%: tests/fuzz/%.c $(FUZZ_OUT)/libqostrace.a
	$(call msg,FUZZ-LD,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OUT)/libqostrace.a $(LDLIBS) -o $@

fuzz: $(FUZZERS)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf build build-san build-fuzz

-include $(wildcard $(OUTPUT)/obj/*.d $(OUTPUT)/bpf/*.d $(OUTPUT)/tests/*.d $(FUZZ_OUT)/obj/*.d)
