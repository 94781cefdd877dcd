// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * qostrace kernel side, for kernels with BTF (their own, or a file given
 * with record --btf): scheduling, wakeups, IRQs and process lifecycle
 * system-wide; system calls of the targets. Two attach paths share this
 * object, and the loader loads the programs of one (src/record/
 * backend_btf.c): tp_btf (tp_btf.bpf.h) or raw_tp with CO-RE reads
 * (raw_tp.bpf.h). One buffer carries every record (include/qt_events.h);
 * the consumer is never woken per event. Kernels without any BTF have
 * their own object, qostrace_tracefs.bpf.c: CO-RE relocations anywhere in
 * an object make libbpf require the kernel's BTF to load it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

/* irq_handler_exit, both paths: the handler's name is read through its irqaction. */
static __always_inline void btf_irq_exit(struct out o, int irq, struct irqaction *action, int ret)
{
	struct qt_cpu_stats *st = irq_exit_ctx(false);
	struct qt_irq_name *n;

	if (!st)
		return;
	n = irq_name_begin(o, irq, st->hardirq_ts);
	if (n) {
		bpf_probe_read_kernel_str(n->name, sizeof(n->name), BPF_CORE_READ(action, name));
		submit(o, n, sizeof(*n));
	}
	emit_irq(o, QT_REC_IRQ, &st->hardirq_ts, irq, ret);
}

/*
 * The interrupt programs of both paths: the same arguments, read the same
 * way; out: OUT(ctx), or RING_ONLY (common.bpf.h).
 */
#define BTF_IRQ_PROGRAMS(pfx, sec, out)							\
	SEC(sec "irq_handler_entry")							\
	int BPF_PROG(pfx##irq_entry, int irq)						\
	{										\
		irq_enter(false, irq);							\
		return 0;								\
	}										\
	SEC(sec "irq_handler_exit")							\
	int BPF_PROG(pfx##irq_exit, int irq, struct irqaction *action, int ret)		\
	{										\
		btf_irq_exit(out, irq, action, ret);					\
		return 0;								\
	}										\
	SEC(sec "softirq_entry")							\
	int BPF_PROG(pfx##softirq_entry, unsigned int vec)				\
	{										\
		irq_enter(true, vec);							\
		return 0;								\
	}										\
	SEC(sec "softirq_exit")								\
	int BPF_PROG(pfx##softirq_exit, unsigned int vec)				\
	{										\
		softirq_exit(out, vec);							\
		return 0;								\
	}

#include "data.bpf.h"
#include "tp_btf.bpf.h"
#include "raw_tp.bpf.h"
