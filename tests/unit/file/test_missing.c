// SPDX-License-Identifier: MIT
/*
 * The words of a recording's "missing" list: whole items only, and whose
 * CPU time is missing, as info and the report say it.
 */
#include "testutil.h"
#include "file/missing.h"

Test(missing, whole_items_only)
{
	cr_expect(missing_has("runtime", MISSING_RUNTIME));
	cr_expect(missing_has("fds,runtime", MISSING_RUNTIME));
	cr_expect(missing_has("runtime-rt,runtime-stop", MISSING_RUNTIME_STOP));
	cr_expect(!missing_has("runtime-rt,runtime-stop", MISSING_RUNTIME), "runtime-rt is not runtime");
	cr_expect(!missing_has("runtime-stop", MISSING_RUNTIME_RT));
	cr_expect(!missing_has("", MISSING_RUNTIME));
	cr_expect(!missing_has(NULL, MISSING_RUNTIME));
	cr_expect(!missing_has("runtimes", MISSING_RUNTIME));
	cr_expect(!missing_has(",", MISSING_RUNTIME));
}

Test(missing, whose_cpu_time_in_words)
{
	char buf[128];

	cr_expect_str_eq(missing_runtime_who("runtime", buf, sizeof(buf)) ?: "(null)", "every thread");
	cr_expect_str_eq(missing_runtime_who("runtime-stop", buf, sizeof(buf)) ?: "(null)",
			 "stop-class (migration/N) threads");
	cr_expect_str_eq(missing_runtime_who("runtime-rt,runtime-dl,runtime-stop", buf, sizeof(buf)) ?: "(null)",
			 "real-time, deadline and stop-class (migration/N) threads");
	cr_expect_str_eq(missing_runtime_who("runtime-dl,runtime-rt", buf, sizeof(buf)) ?: "(null)",
			 "real-time and deadline threads");
	cr_expect_null(missing_runtime_who("", buf, sizeof(buf)));
	cr_expect_null(missing_runtime_who(NULL, buf, sizeof(buf)));
	cr_expect_null(missing_runtime_who("fds", buf, sizeof(buf)), "not about CPU time");
	/* a short buffer is cut, never overrun */
	cr_expect_str_eq(missing_runtime_who("runtime-rt,runtime-dl", buf, 8) ?: "(null)", "real-ti");
}
