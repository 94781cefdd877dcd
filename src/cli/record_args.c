// SPDX-License-Identifier: MIT
/* The options record and watch share; see src/cli/record_args.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/parse.h"
#include "record/probe.h"
#include "record_args.h"

bool record_args_parse(struct record_args *a, int key, char *arg, struct argp_state *state)
{
	uint64_t v;
	size_t n;

	switch (key) {
	case 'p':
		if (parse_u32_list(arg, a->pids + a->o.npids, RECORD_ARGS_MAX_PIDS - a->o.npids, &n))
			argp_error(state, "-p '%s': expected process ids separated by commas, e.g. -p 1234,5678", arg);
		a->o.npids += n;
		return true;
	case 'a':
		a->all = true;
		return true;
	case RECORD_ARGS_NO_SYSCALLS:
		a->o.no_syscalls = true;
		return true;
	case RECORD_ARGS_NO_IRQS:
		a->o.no_irqs = true;
		return true;
	case RECORD_ARGS_DATA:
		a->o.data = 1;
		return true;
	case RECORD_ARGS_NO_DATA:
		a->o.data = -1;
		return true;
	case RECORD_ARGS_BUFFER:
		if (parse_size(arg, &v) || v < 4096 || v > (1ull << 31))
			argp_error(state, "--buffer-size '%s': expected a size from 4K to 2G, e.g. 64M", arg);
		if (v & (v - 1)) {
			uint64_t p = 4096;

			while (p < v)
				p <<= 1;
			log_warn("--buffer-size %s is not a power of two: using %lluK", arg,
				 (unsigned long long)(p >> 10));
			v = p;
		}
		a->o.ring_bytes = v;
		return true;
	case RECORD_ARGS_BACKEND:
		if (probe_parse_backend(arg, &a->o.backend, &a->o.buffer))
			argp_error(state, "--backend '%s': expected btf, core or tracefs, and/or ringbuf or perfbuf, "
				   "e.g. --backend tracefs,perfbuf", arg);
		return true;
	case RECORD_ARGS_BTF:
		a->o.btf_path = arg;
		return true;
	case ARGP_KEY_ARG:
		/* The command and all its arguments: they are not ours to parse. */
		a->o.argv = &state->argv[state->next - 1];
		state->next = state->argc;
		return true;
	default:
		return false;
	}
}

void record_args_check(const struct record_args *a, struct argp_state *state, const char *verb)
{
	if (!a->o.argv && !a->o.npids && !a->all)
		argp_error(state, "nothing to %s: give a command after --, -p PID, or -a", verb);
	if (a->o.npids && (a->o.argv || a->all))
		argp_error(state, "-p does not go with -a or a command");
}

void record_args_finish(struct record_args *a)
{
	a->o.pids = a->pids;
	a->o.mode = a->all ? REC_MODE_ALL : a->o.argv ? REC_MODE_COMMAND : REC_MODE_PIDS;
}

char *record_args_cmdline(char *const *argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (int i = 0; argv[i]; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	*p = 0;
	return s;
}
