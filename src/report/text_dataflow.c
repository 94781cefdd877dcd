// SPDX-License-Identifier: MIT
/*
 * The text report's data-flow path (src/dataflow/stage.h): which chain of
 * processes and objects decided when the output was complete, where the
 * data waited and where it was worked on. Times are seconds since the
 * recording started.
 */
#include <stdio.h>

#include "analysis/analysis.h"
#include "dataflow/stage.h"
#include "lib/parse.h"
#include "style.h"
#include "text_dataflow.h"

#define SHARES_SHOWN 5
/*
 * Hops printed of a long path (threads of one process passing data
 * through pipes make one hop per message): the root and the last ones,
 * nearest the target, where its lateness was decided; -v prints all.
 */
#define HOPS_SHOWN 15

static double at_s(const struct analysis *a, int64_t t)
{
	return (t - (int64_t)a->trace->start_ns) / 1e9;
}

/* "pipe:[123] v2-v4", "8:1:5678 v1" */
static const char *made(const struct dataflow_result *r, uint32_t obj, uint32_t v0, uint32_t v1, char *buf,
			size_t len)
{
	char o[80];

	df_recording_obj_label(&r->rec, obj, o, sizeof(o));
	if (v0 == v1)
		snprintf(buf, len, "%s v%u", o, v0);
	else
		snprintf(buf, len, "%s v%u-v%u", o, v0, v1);
	return buf;
}

static const char *proc_of(const struct df_hop *h, char *buf, size_t len)
{
	if (!h->tgid)
		snprintf(buf, len, "(before the recording)");
	else
		snprintf(buf, len, "%s/%u", h->comm[0] ? h->comm : "?", h->tgid);
	return buf;
}

static void print_others(const struct analysis *a, const struct dataflow_result *r, const struct df_hop *h,
			 FILE *f, const struct report_style *st)
{
	char m[112], p[48], b[32];

	for (size_t k = 0; k < h->nother; k++) {
		const struct df_other *o = &r->others[h->other0 + k];

		fprintf(f, "%s%12s  %s input %s (by %s, at %.6f s) was ready %s before the critical one%s\n",
			rs_dim(st), "", k ? "  and" : "other", made(r, o->obj, o->version, o->version, m, sizeof(m)),
			dataflow_proc_name(r, o->proc, p, sizeof(p)), at_s(a, o->t),
			fmt_duration(b, sizeof(b), o->slack), rs_reset(st));
	}
}

static void print_hops(const struct analysis *a, const struct dataflow_result *r, FILE *f,
		       const struct report_style *st)
{
	char m[112], p[48], b1[32], b2[32];

	fprintf(f, "%s%12s  %-24s %-44s %10s %10s%s\n", rs_dim(st), "AT (s)", "PROCESS", "MADE", "WAITED",
		"IN PROCESS", rs_reset(st));
	for (size_t i = 0; i < r->nhops; i++) {
		const struct df_hop *h = &r->hops[i];

		if (!st->verbose && i == 1 && r->nhops > HOPS_SHOWN + 2) {
			fprintf(f, "%s%12s  ... %zu hops (-v lists them all)%s\n", rs_dim(st), "",
				r->nhops - 1 - HOPS_SHOWN, rs_reset(st));
			i = r->nhops - HOPS_SHOWN - 1;
			continue;
		}
		fprintf(f, "%12.6f  %-24s %-44s", at_s(a, h->t_last), proc_of(h, p, sizeof(p)),
			made(r, h->obj, h->v_first, h->v_last, m, sizeof(m)));
		if (i == 0)
			fprintf(f, " %s%s%s\n", rs_dim(st),
				h->kind == DF_S_PRETRACE ? "root: there before the recording" :
				h->kind == DF_S_EXTERNAL ? "root: read from outside the traced processes" :
				"root: made with no traced input", rs_reset(st));
		else
			fprintf(f, " %10s %10s\n", fmt_duration(b1, sizeof(b1), h->waited),
				fmt_duration(b2, sizeof(b2), h->in_process));
		print_others(a, r, h, f, st);
	}
}

static void print_shares(const struct dataflow_result *r, FILE *f)
{
	double el = r->elapsed > 0 ? (double)r->elapsed : 1;
	size_t shown = 0;

	fprintf(f, "time:");
	for (size_t i = 0; i < r->nshares && shown < SHARES_SHOWN; i++) {
		const struct df_share *s = &r->shares[i];

		if (!s->in_process)
			continue;
		fprintf(f, "%s %s/%u %.1f %%", shown ? "," : "", s->comm[0] ? s->comm : "?", s->tgid,
			100.0 * s->in_process / el);
		shown++;
	}
	fprintf(f, "%s %.1f %% waiting to be read\n", shown ? ";" : "", 100.0 * r->waited / el);
}

void text_dataflow_print(const struct analysis *a, FILE *f, const struct report_style *st)
{
	const struct dataflow_result *r = a->dataflow;
	const struct df_hop *last;
	char m[112], b[32];

	if (!r)
		return;
	rs_section(f, st, "Data path");
	if (r->target < 0) {
		fprintf(f, "no data call of the targets moved anything (%zu calls recorded)\n", r->nops);
		return;
	}
	last = &r->hops[r->nhops - 1];
	fprintf(f, "into %s at %.6f s, %s%s%s: %s after its root, through %zu hop%s\n",
		made(r, last->obj, last->v_last, last->v_last, m, sizeof(m)), at_s(a, last->t_last),
		rs_dim(st), r->named ? "as --data-path named it" :
		"the last file written that nothing read (--data-path=OBJECT for another)", rs_reset(st),
		fmt_duration(b, sizeof(b), r->elapsed), r->nhops - 1, r->nhops == 2 ? "" : "s");
	print_hops(a, r, f, st);
	print_shares(r, f);
	if (r->lost)
		fprintf(f, "%sthe recording lost events: the matching of reads to writes in pipes and sockets "
			"is approximate%s\n", rs_yellow(st), rs_reset(st));
	if (r->renames)
		fprintf(f, "%s%zu rename%s of the targets %s not in the path: the recorder does not give the "
			"renamed file's inode%s\n", rs_dim(st), r->renames, r->renames == 1 ? "" : "s",
			r->renames == 1 ? "is" : "are", rs_reset(st));
	if (r->rec.unresolved || r->d.b0_total)
		fprintf(f, "%s%zu data calls left out (descriptor not resolved); %lld bytes were in pipes "
			"before the recording%s\n", rs_dim(st), r->rec.unresolved, (long long)r->d.b0_total,
			rs_reset(st));
}
