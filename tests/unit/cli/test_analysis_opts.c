// SPDX-License-Identifier: MIT
/*
 * The analysis options' argp child (analysis_opts.c), driven as report and
 * export drive it: under a parent, through argp_parse() with real argv.
 * ARGP_NO_EXIT keeps argp_error() from exiting, and the parent points
 * argp's error stream at memory, so a test reads the message a user sees.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>

#include "actors/actors.h"
#include "cli/analysis_opts.h"
#include "testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NAME "qostrace test"
#define MAX_ARGS (2 * ANALYSIS_MAX_ACTOR_SPECS + 8)

struct parent {
	struct analysis_args an;
	FILE *err_stream;
	char *err;		/* what argp printed there */
	size_t err_len;
	int parent_opts;	/* its own options seen: the child leaves them to it */
};

static error_t parent_opt(int key, char *arg, struct argp_state *state)
{
	struct parent *p = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &p->an;
		state->err_stream = p->err_stream;
		break;
	case 'o':
	case 'p':
		p->parent_opts++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Options of the parent's own in the child's help groups, as report has. */
static const struct argp_option parent_options[] = {
	{ "parent-output", 'o', NULL, 0, "An option of the parent's first group", 1 },
	{ "parent-periods", 'p', NULL, 0, "An option of the parent's among --actor's", ANALYSIS_GROUP_ACTORS },
	{ 0 },
};

static const struct argp_child children[] = {
	{ &analysis_argp, 0, NULL, 0 },
	{ 0 },
};

static const struct argp parent_argp = { parent_options, parent_opt, NULL, NULL, children, NULL, NULL };

/* args: what follows the command name, NULL-terminated. 0 or argp_parse()'s error. */
static int parse(struct parent *p, char *const *args)
{
	char *argv[MAX_ARGS] = { NAME };
	int argc = 1, err;

	while (*args) {
		cr_assert_lt(argc, MAX_ARGS - 1);
		argv[argc++] = *args++;
	}
	/* garbage first: the child must start from analysis_opts_default() */
	memset(&p->an, 0xa5, sizeof(p->an));
	p->parent_opts = 0;
	free(p->err);
	p->err = NULL;
	p->err_stream = open_memstream(&p->err, &p->err_len);
	cr_assert(p->err_stream);
	err = argp_parse(&parent_argp, argc, argv, ARGP_NO_EXIT, NULL, p);
	fclose(p->err_stream);
	return err;
}

#define PARSE(p, ...) parse(p, (char *[]){ __VA_ARGS__, NULL })

/* The message argp printed: NAME, then msg, then the "Try --help" line. */
static void expect_error(const struct parent *p, int err, const char *msg)
{
	char want[512];

	snprintf(want, sizeof(want), NAME ": %s\n", msg);
	cr_expect_eq(err, EINVAL, "argp_parse() returned %d for '%s'", err, msg);
	cr_expect(p->err && strstr(p->err, want) == p->err, "want '%s', argp said '%s'", want, p->err);
}

Test(analysis_opts, defaults_without_options)
{
	struct parent p = { 0 };
	struct analysis_opts want;

	cr_assert_eq(parse(&p, (char *[]){ NULL }), 0);
	analysis_opts_default(&want);
	want.actor_specs = p.an.specs;
	cr_expect_eq(memcmp(&p.an.o, &want, sizeof(want)), 0, "not analysis_opts_default()");
	cr_expect_eq(p.an.o.n_actor_specs, 0);
	cr_expect_eq(p.an.o.epsilon_ns, -1, "auto");
	cr_expect_eq(p.an.o.break_paths, ANALYSIS_DEFAULT_BREAK_PATHS);
	cr_expect_str_empty(p.err);
	free(p.err);
}

Test(analysis_opts, good_values_land_in_the_options)
{
	struct parent p = { 0 };

	cr_assert_eq(PARSE(&p, "--actor", "src", "--epsilon", "50us", "--actor=write(1)@sink",
			   "--break-paths", "0", "-p"), 0, "%s", p.err);
	cr_assert_eq(p.an.o.n_actor_specs, 2);
	cr_expect_eq(p.an.o.actor_specs, (const char *const *)p.an.specs);
	cr_expect_str_eq(p.an.o.actor_specs[0], "src");
	cr_expect_str_eq(p.an.o.actor_specs[1], "write(1)@sink", "in the order given");
	cr_expect_eq(p.an.o.epsilon_ns, 50000);
	cr_expect_eq(p.an.o.break_paths, 0, "0: all");
	cr_expect_eq(p.an.o.qcod_threshold, 0.10, "the others keep their defaults");
	cr_expect_eq(p.parent_opts, 1);

	cr_assert_eq(PARSE(&p, "--epsilon=1.5ms", "--break-paths=12", "--epsilon", "auto"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.epsilon_ns, -1, "the last --epsilon wins");
	cr_expect_eq(p.an.o.break_paths, 12);
	cr_expect_eq(p.an.o.n_actor_specs, 0, "nothing left from the parse before");

	cr_assert_eq(PARSE(&p, "--epsilon", "0ns", "--actor", "auto"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.epsilon_ns, 0);
	cr_expect_str_eq(p.an.o.actor_specs[0], "auto");
	cr_expect_not(p.an.o.timing_only);

	cr_assert_eq(PARSE(&p, "--qcod", "5%", "--timing-only"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.qcod_threshold, 0.05);
	cr_expect(p.an.o.timing_only);
	cr_assert_eq(PARSE(&p, "--qcod=0.2"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.qcod_threshold, 0.2);
	cr_assert_eq(PARSE(&p, "--qcod", "1"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.qcod_threshold, 1.0);
	free(p.err);
}

/* Each of bad after opt fails with "OPT 'VALUE': why". */
static void expect_rejected(const char *opt, const char *const *bad, size_t n, const char *why)
{
	struct parent p = { 0 };
	char msg[256];

	for (size_t i = 0; i < n; i++) {
		int err = PARSE(&p, (char *)opt, (char *)bad[i]);

		snprintf(msg, sizeof(msg), "%s '%s': %s", opt, bad[i], why);
		expect_error(&p, err, msg);
	}
	free(p.err);
}

Test(analysis_opts, bad_epsilon)
{
	static const char *const bad[] = { "50", "bogus", "-1ms", "Auto", "1000000h", "" };

	expect_rejected("--epsilon", bad, N(bad), "a duration with a unit (50us, 1ms) or auto");
}

Test(analysis_opts, bad_break_paths)
{
	static const char *const bad[] = { "-1", "12abc", "", "1e3", "99999999999999999999999" };

	expect_rejected("--break-paths", bad, N(bad), "a number of breaks, 0 for all");
}

Test(analysis_opts, bad_qcod)
{
	static const char *const bad[] = { "0", "0%", "1.5", "150%", "-0.1", "ten", "", "0.1x" };

	expect_rejected("--qcod", bad, N(bad), "a fraction in (0, 1], e.g. 0.1 or 10%");
}

/* --min-late: a share of the period or a duration; 0 in either form is no cut. */
Test(analysis_opts, min_late)
{
	static const struct {
		const char *arg;
		double frac;
		int64_t ns;
	} good[] = {
		{ "10%", 0.10, 0 }, { "0.25", 0.25, 0 }, { "100%", 1, 0 }, { "2ms", 0, 2000000 },
		{ "191us", 0, 191000 }, { "1.5ms", 0, 1500000 }, { "0", -1, 0 }, { "0%", -1, 0 }, { "0ns", -1, 0 },
	};
	static const char *const bad[] = { "2", "150%", "-1ms", "-5%", "nan", "ten", "", "2 ms", "1e400s" };
	struct parent p = { 0 };

	cr_assert_eq(PARSE(&p, "--qcod", "5%"), 0, "%s", p.err);
	cr_expect_eq(p.an.o.min_late.frac, 0.10, "the default: a tenth of the period");
	cr_expect_eq(p.an.o.min_late.ns, 0);
	for (size_t i = 0; i < N(good); i++) {
		cr_assert_eq(PARSE(&p, "--min-late", (char *)good[i].arg), 0, "%s: %s", good[i].arg, p.err);
		if (good[i].ns) {
			cr_expect_eq(p.an.o.min_late.ns, good[i].ns, "%s", good[i].arg);
		} else {
			cr_expect_eq(p.an.o.min_late.frac, good[i].frac, "%s", good[i].arg);
			cr_expect_eq(p.an.o.min_late.ns, 0, "%s", good[i].arg);
		}
	}
	free(p.err);
	expect_rejected("--min-late", bad, N(bad), "a duration with a unit (2ms) or a share of the period (10%, 0.1)");
}

/* What report always did, and export now does too: a bad spec fails before any loading. */
Test(analysis_opts, bad_actor)
{
	static const char *const bad[] = { "write(x@src", "", "pid:0", "@sink", "write()@x" };
	struct parent p = { 0 };
	char check[256], msg[300];

	for (size_t i = 0; i < N(bad); i++) {
		int err = PARSE(&p, "--actor", "src", "--actor", (char *)bad[i]);

		cr_assert_eq(actors__check_spec(bad[i], check, sizeof(check)), -EINVAL);
		snprintf(msg, sizeof(msg), "%s (see ACTORS in --help)", check);
		expect_error(&p, err, msg);
		cr_expect_eq(p.an.o.n_actor_specs, 1, "'%s' kept", bad[i]);
	}
	free(p.err);
}

Test(analysis_opts, at_most_64_actors)
{
	char *args[MAX_ARGS] = { NULL };
	struct parent p = { 0 };
	size_t n = 0;

	for (int i = 0; i < ANALYSIS_MAX_ACTOR_SPECS; i++) {
		args[n++] = "--actor";
		args[n++] = "src";
	}
	cr_assert_eq(parse(&p, args), 0, "%s", p.err);
	cr_expect_eq(p.an.o.n_actor_specs, ANALYSIS_MAX_ACTOR_SPECS);
	args[n++] = "--actor";
	args[n++] = "src";
	expect_error(&p, parse(&p, args), "at most 64 --actor options");
	free(p.err);
}

/*
 * The help the commands print: the child's options under its headers, the
 * parent's own options of the same group among them, and ACTORS, which the
 * error messages point to.
 */
Test(analysis_opts, help)
{
	static const char *const order[] = {
		"--parent-output", "Periods (SATM):", "--actor=SPEC", "--min-late=DURATION|PERCENT",
		"--parent-periods", "--qcod=FRACTION",
		"Critical path (Hendriks & Vaandrager):", "--break-paths=N", "--epsilon=DURATION", "--timing-only",
		"\nACTORS:\n", "CALL(ARG)@THREAD", "(--min-late) is major",
	};
	const char *at;
	char *txt = NULL;
	size_t len;
	FILE *f = open_memstream(&txt, &len);

	cr_assert(f);
	argp_help(&parent_argp, f, ARGP_HELP_LONG | ARGP_HELP_DOC, NAME);
	fclose(f);
	at = txt;
	for (size_t i = 0; i < N(order); i++) {
		const char *p = strstr(at, order[i]);

		cr_assert(p, "'%s' missing or out of order in:\n%s", order[i], txt);
		at = p + strlen(order[i]);
	}
	cr_expect_eq(tu_count(txt, "Periods (SATM):"), 1);
	free(txt);
}

/* --data-path alone asks for the section; =OBJECT names the target; an empty one or a directory is refused. */
Test(analysis_opts, data_path)
{
	struct parent p = { 0 };

	cr_assert_eq(PARSE(&p, "--data-path"), 0, "%s", p.err);
	cr_expect(p.an.o.data_path);
	cr_expect_null(p.an.o.data_target);
	cr_assert_eq(PARSE(&p, "--data-path=254:0:1234"), 0, "%s", p.err);
	cr_expect(p.an.o.data_path);
	cr_expect_str_eq(p.an.o.data_target, "254:0:1234");
	cr_assert_eq(PARSE(&p, "--data-path=/srv/out.ts"), 0, "%s", p.err);
	cr_expect_str_eq(p.an.o.data_target, "/srv/out.ts", "a file's name or path");
	cr_assert_eq(PARSE(&p, "-p"), 0, "%s", p.err);
	cr_expect(!p.an.o.data_path, "off unless asked");
	expect_error(&p, PARSE(&p, "--data-path="), "--data-path='': expected MAJ:MIN:INO (stat -c '%Hd:%Ld:%i' FILE), "
		     "pipe:[INO], socket:[INO] or a file's name");
	expect_error(&p, PARSE(&p, "--data-path=/srv/"), "--data-path='/srv/': expected MAJ:MIN:INO (stat -c "
		     "'%Hd:%Ld:%i' FILE), pipe:[INO], socket:[INO] or a file's name");
	free(p.err);
}
