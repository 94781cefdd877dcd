// SPDX-License-Identifier: MIT
/*
 * --actor SPEC: its grammar is in src/actors/actors.h. Parsed once to
 * check the command line (actors__check_spec) and again, against the
 * recording's threads, when the actors are chosen (choose.c).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool spec_all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int parse_id(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!spec_all_digits(s, strlen(s)))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

static int spec_error(char *msg, size_t len, const char *text, const char *why)
{
	if (msg && len)
		snprintf(msg, len, "--actor '%s': %s", text, why);
	return -EINVAL;
}

int spec_parse(const char *text, struct spec *sp, char *msg, size_t len)
{
	const char *thr = text, *at;

	memset(sp, 0, sizeof(*sp));
	sp->text = text;
	if (!text || !*text)
		return spec_error(msg, len, text ? text : "", "empty");
	if (!strcmp(text, "auto")) {
		sp->sel = SEL_AUTO;
		return 0;
	}
	at = strchr(text, '@');
	if (at) {
		const char *paren = memchr(text, '(', at - text);
		size_t n = (paren ? paren : at) - text;

		if (!n || n >= sizeof(sp->call))
			return spec_error(msg, len, text, "a system call name before '@', e.g. write@sink");
		for (size_t i = 0; i < n; i++) {
			char ch = text[i];

			if (!(ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9')))
				return spec_error(msg, len, text, "a system call name is letters, digits and _");
		}
		memcpy(sp->call, text, n);
		sp->call[n] = 0;
		if (paren) {
			char buf[32], *end;
			size_t an = at - paren - 1;

			if (an < 2 || paren[an] != ')' || an - 1 >= sizeof(buf))
				return spec_error(msg, len, text, "the first argument in parentheses, e.g. write(1)@sink");
			memcpy(buf, paren + 1, an - 1);
			buf[an - 1] = 0;
			errno = 0;
			sp->arg0 = strtoull(buf, &end, 0);
			if (errno || *end || buf[0] == '-' || buf[0] == '+' || buf[0] == ' ')
				return spec_error(msg, len, text, "the first argument must be a number, e.g. write(1)@sink");
			sp->has_arg0 = true;
		}
		sp->syscall = true;
		thr = at + 1;
	}
	if (!*thr)
		return spec_error(msg, len, text, "which thread? a name, a tid, tid:N, pid:N or comm:NAME");
	if (!strncmp(thr, "tid:", 4) || !strncmp(thr, "pid:", 4)) {
		sp->sel = thr[0] == 't' ? SEL_TID : SEL_PID;
		if (parse_id(thr + 4, &sp->id))
			return spec_error(msg, len, text, "tid:/pid: take a positive number");
		return 0;
	}
	if (spec_all_digits(thr, strlen(thr))) {
		sp->sel = SEL_TID;
		if (parse_id(thr, &sp->id))
			return spec_error(msg, len, text, "a thread id must be a positive 32-bit number");
		return 0;
	}
	if (!strncmp(thr, "comm:", 5))
		thr += 5;
	if (!*thr || strlen(thr) >= sizeof(sp->pattern))
		return spec_error(msg, len, text, "a thread name (or glob) of 1 to 63 characters");
	sp->sel = SEL_COMM;
	strcpy(sp->pattern, thr);
	return 0;
}

int actors__check_spec(const char *spec, char *msg, size_t len)
{
	struct spec sp;

	return spec_parse(spec, &sp, msg, len);
}

bool spec_matches(const struct spec *sp, const struct tl_thread *th)
{
	switch (sp->sel) {
	case SEL_TID:
		return th->tid == sp->id;
	case SEL_PID:
		return th->pid == sp->id;
	case SEL_COMM:
		return fnmatch(sp->pattern, th->comm, 0) == 0;
	default:
		return false;
	}
}

bool actors__spec_names(const char *spec, const struct timeline *tl)
{
	struct spec sp;

	if (spec_parse(spec, &sp, NULL, 0))
		return false;
	if (sp.sel == SEL_AUTO)
		return true;
	for (uint32_t i = 0; i < tl->nthreads; i++)
		if ((tl->threads[i].nrun || tl->threads[i].nsc) && spec_matches(&sp, &tl->threads[i]))
			return true;
	return false;
}
