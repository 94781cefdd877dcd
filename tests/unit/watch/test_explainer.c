// SPDX-License-Identifier: MIT
/*
 * The windows' analyses in children (src/watch/explainer.h): a child runs
 * at the lowest priority there is (SCHED_IDLE, nice 19: read back from
 * its /proc stat), in a process group of its own, one at a time, in the
 * order queued; its line comes back with its tag; a child that fails is
 * said so; the queue is bounded.
 */
#include <errno.h>
#include <sys/stat.h>

#include "testutil.h"
#include "watch/explainer.h"

/* A stand-in for qostrace: prints its nice, policy, whether it leads its group, and the window. */
static char *fake_self(const char *dir, const char *body)
{
	char *p = malloc(512);
	FILE *f;

	snprintf(p, 512, "%s/fake-qostrace", dir);
	f = fopen(p, "w");
	cr_assert(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(p, 0700);
	return p;
}

static int poll_one(struct explainer *e, unsigned long *tag, char *line, size_t len)
{
	for (int i = 0; i < 100; i++)
		if (explainer__poll(e, 100, tag, line, len) == 1)
			return 1;
	return 0;
}

Test(explainer, children_at_the_lowest_priority_in_order, .timeout = 60)
{
	char *dir = tu_tmpdir(), line[512];
	char *self = fake_self(dir, "read a b c d pgrp rest < /proc/$$/stat; "
				    "echo \"$(awk '{print $19, $41}' /proc/$$/stat) $([ $pgrp = $$ ] && echo leader) $3 $5\"");
	struct explainer *e = explainer__new(self);
	unsigned long tag;

	cr_assert_eq(explainer__queue(e, "first.qtrace", 12, 345, 7), 0);
	cr_assert_eq(explainer__queue(e, "second.qtrace", 0, 0, 8), 0);
	cr_assert_eq(explainer__pending(e), 2);
	cr_assert(poll_one(e, &tag, line, sizeof(line)));
	cr_assert_eq(tag, 7);
	/* nice 19, SCHED_IDLE (5), its own group, then --explain FILE --explain-break TID:NS */
	cr_assert_str_eq(line, "19 5 leader first.qtrace 12:345");
	cr_assert(poll_one(e, &tag, line, sizeof(line)));
	cr_assert_eq(tag, 8);
	cr_assert_str_eq(line, "19 5 leader second.qtrace 0:0");
	cr_assert_eq(explainer__pending(e), 0);
	explainer__free(e);
	free(self);
	tu_rmdir(dir);
	free(dir);
}

Test(explainer, a_failure_is_said_and_the_queue_bounded)
{
	char *dir = tu_tmpdir(), line[512];
	char *self = fake_self(dir, "exit 3");
	struct explainer *e = explainer__new(self);
	unsigned long tag;
	int queued = 0;

	cr_assert_eq(explainer__queue(e, "w.qtrace", 1, 2, 1), 0);
	cr_assert(poll_one(e, &tag, line, sizeof(line)));
	cr_assert(strstr(line, "(its analysis failed"), "%s", line);
	while (explainer__queue(e, "w.qtrace", 1, 2, 1) == 0)
		queued++;
	cr_assert_eq(queued, EXPLAINER_QUEUE + 1, "one running, the others waiting");
	cr_assert_eq(explainer__queue(e, "w.qtrace", 1, 2, 1), -EBUSY);
	explainer__free(e);
	free(self);
	tu_rmdir(dir);
	free(dir);
}
