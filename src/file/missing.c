// SPDX-License-Identifier: MIT
/* The words of a recording's "missing" list; see src/file/missing.h. */
#include <stdio.h>
#include <string.h>

#include "missing.h"

bool missing_has(const char *list, const char *token)
{
	size_t n = strlen(token);

	for (const char *p = list; p && *p; p += strcspn(p, ","), p += *p == ',') {
		if (strcspn(p, ",") == n && !strncmp(p, token, n))
			return true;
	}
	return false;
}

const char *missing_runtime_who(const char *list, char *buf, size_t len)
{
	static const struct {
		const char *token, *words;
	} classes[] = {
		{ MISSING_RUNTIME_RT, "real-time" },
		{ MISSING_RUNTIME_DL, "deadline" },
		{ MISSING_RUNTIME_STOP, "stop-class (migration/N)" },
	};
	const char *which[3];
	size_t n = 0, off = 0;

	if (missing_has(list, MISSING_RUNTIME)) {
		snprintf(buf, len, "every thread");
		return buf;
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (missing_has(list, classes[i].token))
			which[n++] = classes[i].words;
	if (!n)
		return NULL;
	buf[0] = 0;
	for (size_t i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " and ",
				which[i]);
	if (off < len)
		snprintf(buf + off, len - off, " threads");
	return buf;
}
