/*
 * The checks of a report page in headless Chromium (tests/views/
 * html_check.mjs) that several end-to-end tests share: what they need is
 * SKIPPED with the reason when missing (scripts/install-deps.sh --views).
 * Paths are relative to the repository's top, where the tests run.
 */
#ifndef QT_E2E_CHROMIUM_H
#define QT_E2E_CHROMIUM_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "e2eutil.h"

static inline void require_node(void)
{
	if (e2e_sh("node --version", NULL) != 0) {
		fprintf(stderr, "SKIPPED: node is missing (scripts/install-deps.sh --views)\n");
		cr_skip_test("node is missing");
	}
	if (access("tests/views/node_modules/playwright-core", F_OK) ||
	    access("tests/views/node_modules/@paulirish/trace_engine", F_OK)) {
		fprintf(stderr, "SKIPPED: tests/views/node_modules is not installed (scripts/install-deps.sh --views)\n");
		cr_skip_test("tests/views/node_modules is missing");
	}
}

static inline void require_chromium(void)
{
	require_node();
	if (access("/usr/bin/chromium", X_OK)) {
		fprintf(stderr, "SKIPPED: /usr/bin/chromium is missing (scripts/install-deps.sh --views)\n");
		cr_skip_test("chromium is missing");
	}
}

/*
 * Runs html_check.mjs on a page; screenshots into shots/ (page.png,
 * timeline.png, break.png). Fails with its output. The screenshot shot is
 * copied to scripts/results/e2e-views-<save_as>.png for a person to look at.
 */
static inline void chromium_check(const char *page, const char *shots, const char *flags, const char *shot,
				  const char *save_as)
{
	char cmd[2048], *out;
	int rc;

	require_chromium();
	snprintf(cmd, sizeof(cmd), "node tests/views/html_check.mjs '%s' '%s' %s", page, shots, flags);
	rc = e2e_sh(cmd, &out);
	fprintf(stderr, "%s", out);
	if (rc == 77) {
		free(out);
		cr_skip_test("chromium cannot run here");
	}
	cr_assert_eq(rc, 0, "html_check.mjs failed:\n%s", out);
	free(out);
	if (save_as) {
		/* not tracked by git: a fresh one at every run */
		snprintf(cmd, sizeof(cmd), "mkdir -p scripts/results && cp '%s/%s' 'scripts/results/e2e-views-%s.png'",
			 shots, shot, save_as);
		cr_assert_eq(e2e_sh(cmd, NULL), 0);
	}
}

#endif
