/* SPDX-License-Identifier: MIT */
/* The "critical" section of the JSON report (docs/report.schema.json). */
#ifndef QT_REPORT_JSON_CRITICAL_H
#define QT_REPORT_JSON_CRITICAL_H

#include "analysis/analysis.h"
#include "lib/json_writer.h"

struct critical_result;

/*
 * "critical": {...} of docs/DESIGN.md §10 (the caller writes the name). Times
 * are absolute ns (CLOCK_MONOTONIC; a chart's own time), durations ns.
 *   input "trace" | "gantt", epsilon_ns, epsilon_source "given" | "auto" |
 *   "default", epsilon_evidence_ns (Theorem 2's value from the wakeups, or
 *   null), epsilon_capped, wakeups_used, tasks,
 *   edges { total, candidates, exact, same_thread, cpu_handover, epsilon
 *     (cross-thread proposals), confirmed, rejected, unchecked,
 *     missing_data, redundant, wakeups_beyond_epsilon,
 *     preemptions_beyond_epsilon, wakeups_unmatched, releases { category: n } },
 *   epsilon_check { kind "recomputed_starts" (gantt: mismatches, tasks[
 *     {task, line, start_ns, recomputed_ns}] up to 100) | "unexplained_starts"
 *     (trace), reproduced, mismatches },
 *   whole { length_ns, start_ns, end_ns, critical_task_count, last_task,
 *     share[], critical_tasks [names] | null, critical_lines, path_count
 *     (null: more than 2^64), paths [{tasks, lines}], common {tasks, lines,
 *     joined}, segments[] (trace), segments_total },
 *   actors [ { tid, comm, actor, invocations, total_ns, share[] } ],
 *   breaks [ { tid, comm, actor, late_invocation, kind ("start" |
 *     "completion"), target_invocation (the one the path goes into),
 *     late_start_ns, lateness_ns, start_ns, end_ns (the window), data_missing,
 *     release_excess_ns, release, delayed_by { row, excess_ns } | null,
 *     share[], segments[], segments_total } ] (worst first; the first
 *     --break-paths of them, default 1000),
 *   breaks_total (every break analysed), breaks_left_out (not listed),
 *   tasks [ { task, actor, line, start_ns, end_ns, est_ns, lst_ns, float_ns,
 *     critical } ] (gantt),
 *   timing { build_ns, cpa_ns, account_ns }
 * A share row: { tid, comm, kind "thread" | "actor", ns, run_ns, held_ns }
 * or { tid 0, comm (a name: "wakeup latency", "timer", "irq 24 xhci_hcd"),
 * kind "overhead" | "release", category (an id: wakeup_latency, cpu_wait,
 * blocked, control_overhead, initial_control, irq, softirq, kernel,
 * waker_not_recorded, no_recorded_cause, before_recording), irq, ns }.
 * A segment: { start_ns, end_ns, kind "run" | "wait" | "release", tid,
 * comm, category, category_name, cpu, cpu_held_ns, cpu_held_by {tid, comm,
 * ns} }.
 */
void json_critical_write(const struct critical_result *r, const struct analysis *a, json_writer_t *w);

#endif
