# qostrace build.
#   make            build/qostrace (with the BPF programs it embeds, where clang,
#                   bpftool and a kernel BTF are at hand; otherwise an analyser
#                   that reads and reports trace files, and a word on why)
#   make demo       install what is missing (Debian 12), build, record the built-in pipeline, report
#   make test       install what is missing, build, unit tests, then end-to-end tests with BPF
#   make check      the tests only (nothing installed)
#   make V=1        show the full commands
#   make SAN=1      AddressSanitizer + UBSan build in build-san/
#   make VMLINUX_BTF=/path/to/vmlinux   generate vmlinux.h from another kernel's BTF
#   make static     build/static/qostrace: one static file for this machine's architecture
#   make ARCH=arm64 build/arm64/qostrace, static, for a set-top box (ARCH=arm: armhf;
#                   ARCH=x86: x86_64), with Debian's cross compiler and the target's
#                   libraries (scripts/install-deps.sh --cross installs both)
#   make vm-test    boot QEMU guests, record in them, check the traces here (scripts/vm-test.sh)
#
# The tree: src/<stage>/ holds one stage of the pipeline (docs/DESIGN.md);
# every object but src/record/recorder.c builds without the BPF skeleton.
.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDARY:

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')
ARCH := $(HOST_ARCH)

# Static builds, for a box with no package manager: one file to copy. A
# build for another architecture is always one; each has its own directory
# and uses the checked-in bpf/$(ARCH)/vmlinux.h, never this machine's kernel.
STATIC ?=
ifneq ($(ARCH),$(HOST_ARCH))
STATIC := 1
OUTPUT ?= build/$(ARCH)
endif
SAN ?=
ifeq ($(SAN),1)
OUTPUT ?= build-san
else ifeq ($(STATIC),1)
OUTPUT ?= build/static
else
OUTPUT ?= build
endif

CC       ?= gcc
CLANG    ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
VMLINUX_H  := $(OUTPUT)/bpf/vmlinux.h

ifeq ($(STATIC),1)
TRIPLET_x86   := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET_arm   := arm-linux-gnueabihf
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): the static builds are for x86, arm64 and arm (armhf))
endif
VMLINUX_H := bpf/$(ARCH)/vmlinux.h
ifneq ($(ARCH),$(HOST_ARCH))
CC := $(TRIPLET)-gcc
# The target's static libraries: Debian's multiarch -dev packages, installed or
# unpacked into this sysroot by scripts/install-deps.sh --cross (QOSTRACE_CACHE:
# scripts/cross-sysroot.sh).
CROSS_SYSROOT ?= $(or $(QOSTRACE_CACHE),/var/cache/qostrace)/sysroot-$(ARCH)
CROSS_CFLAGS := -isystem $(CROSS_SYSROOT)/usr/include
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(and $(shell command -v $(CC)),$(wildcard $(CROSS_SYSROOT)/usr/lib/$(TRIPLET)/libbpf.a /usr/lib/$(TRIPLET)/libbpf.a)),)
$(error ARCH=$(ARCH) needs $(CC) and the target's libraries: scripts/install-deps.sh --cross installs them)
endif
endif
# 32-bit: trace files past 2 GB, and times past 2038.
ifeq ($(ARCH),arm)
CROSS_CFLAGS += -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
endif
LDFLAGS += -L$(CROSS_SYSROOT)/usr/lib/$(TRIPLET)
endif
LDFLAGS += -static -s
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Can this machine make the BPF programs? If not, the recorder is left out
# and the program says why when asked to record.
NO_RECORDER := $(strip \
	$(if $(shell command -v $(CLANG) 2>/dev/null),,no $(CLANG)) \
	$(if $(wildcard $(BPFTOOL)),,no bpftool) \
	$(if $(filter $(OUTPUT)/%,$(VMLINUX_H)),$(if $(wildcard $(VMLINUX_BTF)),,no kernel BTF at $(VMLINUX_BTF)),$(if $(wildcard $(VMLINUX_H)),,no $(VMLINUX_H))))

WARN     := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wstrict-prototypes
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Iinclude -Isrc -I$(OUTPUT)/gen $(CROSS_CFLAGS) $(WARN) -MMD -MP
LDLIBS   := -lbpf -lelf -lz -ldeflate -lpthread -lm
# The program allocates with jemalloc on transparent huge pages: the analysis
# walks arrays of hundreds of MB, and on 4 KiB pages a third of its time went
# to page faults (README.md, Performance). Sanitizer builds keep their own;
# a cross build, for a box that only records, keeps glibc's, which holds less
# memory (README.md, On a set-top box).
ifeq ($(SAN)$(filter-out $(HOST_ARCH),$(ARCH)),)
PROG_LIBS := -ljemalloc
$(OUTPUT)/obj/cli/main.o: CFLAGS += -DQOSTRACE_JEMALLOC
endif
ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
endif
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -I$(dir $(VMLINUX_H)) -MMD -MP

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/skel/%.skel.h,$(BPF_SRCS))

# Generated sources, made in $(OUTPUT)/gen, never checked in.
GEN_HDRS  := $(OUTPUT)/gen/syscall_tables.h
GEN_SRCS  := $(OUTPUT)/gen/report/html_assets.c

# The analyser: every stage from the trace file to the reports.
LIB_DIRS  := lib stats file timeline actors critical patterns progress dataflow analysis report
LIB_SRCS  := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
LIB_OBJS  := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(LIB_SRCS)) $(OUTPUT)/obj/gen/report/html_assets.o
LIB       := $(OUTPUT)/libqostrace.a
# The commands and the recorder (the demo's pipeline and watch's flight recorder with them).
# What drives the BPF objects (the backend*.c files include their skeletons).
RECORDER_SRCS := $(wildcard src/record/recorder.c src/record/backend*.c src/record/evbuf.c)
ifeq ($(NO_RECORDER),)
RECORDER_OBJ := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(RECORDER_SRCS))
else
RECORDER_OBJ := $(OUTPUT)/obj/record/recorder_none.o
$(RECORDER_OBJ): CFLAGS += -DQOSTRACE_NO_RECORDER_WHY='"$(NO_RECORDER)"'
endif
CLI_SRCS  := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c src/demo/*.c src/watch/*.c)) \
	$(filter-out $(RECORDER_SRCS) src/record/recorder_none.c,$(wildcard src/record/*.c))
CLI_OBJS  := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(CLI_SRCS)) $(RECORDER_OBJ)
PROG      := $(OUTPUT)/qostrace

TEST_SRCS := $(wildcard tests/unit/*/test_*.c tests/e2e/test_*.c)
TESTS     := $(foreach t,$(TEST_SRCS),$(OUTPUT)/tests/$(basename $(notdir $(t))))
TEST_CFLAGS := -Itests/lib -Itests
# Reference implementations the tests compare production code with, in every test
# binary; before the test's own source, whose header dependencies -MMD then keeps.
TEST_REF_SRCS := $(wildcard tests/ref/*.c)
WORK_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORK_SRCS))
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_OUT  := build-fuzz
FUZZERS   := $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRCS))
BENCH_SRCS := $(wildcard tests/bench/*.c)
BENCHES   := $(patsubst tests/bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))

.PHONY: all test check unit e2e clean workloads bench-progs deps demo fuzz static vm-test
all: $(PROG) $(WORKLOADS)

$(OUTPUT)/bpf/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)if [ ! -r "$(VMLINUX_BTF)" ]; then \
		echo "error: $(VMLINUX_BTF) is missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y is needed)." >&2; \
		echo "       Build with VMLINUX_BTF=/path/to/vmlinux of a kernel that has it." >&2; exit 1; fi
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MT $@ -c $< -o $@.tmp
	$(Q)$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(OUTPUT)/skel/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/gen/syscall_tables.h: scripts/gen-syscall-names.sh scripts/syscalls-arm-eabi.txt
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/gen-syscall-names.sh > $@

$(OUTPUT)/gen/report/html_assets.c: scripts/gen-html-assets.sh src/report/html.css src/report/html_body.html src/report/html_diagnosis.js src/report/html_progress.js src/report/html_dataflow.js src/report/html_tables.js src/report/html.js
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/gen-html-assets.sh > $@

# Only the recorder waits for the skeletons; generated headers come first for all.
$(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(RECORDER_SRCS)): CFLAGS += -I$(OUTPUT)/skel
$(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(RECORDER_SRCS)): | $(SKELS)

$(OUTPUT)/obj/%.o: src/%.c | $(GEN_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/obj/gen/%.o: $(OUTPUT)/gen/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(PROG): $(OUTPUT)/obj/cli/main.o $(CLI_OBJS) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(PROG_LIBS) -o $@
ifneq ($(NO_RECORDER),)
	@echo "qostrace: built without the recorder ($(NO_RECORDER)): it reads and reports trace files but cannot record" >&2
endif

# One binary per test file, named after it: tests/unit/<stage>/test_x.c -> $(OUTPUT)/tests/test_x.
define test_rule
$(OUTPUT)/tests/$(basename $(notdir $(1))): $(1) $(TEST_REF_SRCS) $(CLI_OBJS) $(LIB)
	$$(call msg,TEST-CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS) $$(TEST_CFLAGS) $(TEST_REF_SRCS) $$< $(CLI_OBJS) $(LIB) $$(LDFLAGS) $$(LDLIBS) -lcriterion -o $$@
endef
$(foreach t,$(TEST_SRCS),$(eval $(call test_rule,$(t))))

# Benchmark drivers (run by scripts/bench-*.sh, never by `make test`).
$(OUTPUT)/bench/%: tests/bench/%.c $(TEST_REF_SRCS) $(LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(TEST_CFLAGS) $< $(TEST_REF_SRCS) $(LIB) $(LDFLAGS) $(LDLIBS) -o $@

bench-progs: $(BENCHES)

$(OUTPUT)/workloads/%: tests/workloads/%.c tests/workloads/wl_clock.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -lpthread -lm -o $@

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

static:
	$(Q)$(MAKE) --no-print-directory STATIC=1 all

# The proof in virtual machines: static builds for each guest, QEMU, the
# traces checked here (scripts/vm-test.sh; its options through VMTEST_ARGS).
vm-test: $(PROG)
	$(Q)scripts/vm-test.sh $(VMTEST_ARGS)

# libFuzzer targets, built by clang with ASan + UBSan over a library of
# their own (make fuzz; scripts/fuzz.sh runs them on the seed corpus).
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -Iinclude -Isrc \
	-I$(OUTPUT)/gen -Itests/lib -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/obj/%.o,$(LIB_SRCS)) $(FUZZ_OUT)/obj/gen/report/html_assets.o

$(FUZZ_OUT)/obj/gen/%.o: $(OUTPUT)/gen/%.c
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_OUT)/obj/%.o: src/%.c | $(GEN_HDRS)
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

-include $(shell find $(OUTPUT)/obj $(OUTPUT)/bpf $(OUTPUT)/tests $(FUZZ_OUT)/obj -name '*.d' 2>/dev/null)
