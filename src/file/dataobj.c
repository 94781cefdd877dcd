// SPDX-License-Identifier: MIT
/* Data objects in words; see src/file/dataobj.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dataobj.h"

#define DEV_MAJOR(d) ((d) >> 20)	/* the kernel's dev_t, not glibc's */
#define DEV_MINOR(d) ((d) & 0xfffff)
#define QT_AF_UNIX 1

const char *dataobj_name(const struct qt_data_obj *o, char *buf, size_t len)
{
	unsigned int fmt = DATAOBJ_FMT(o);

	if (!o->ino)
		snprintf(buf, len, "?");
	else if (fmt == S_IFIFO && DEV_MAJOR(o->dev) == 0)
		snprintf(buf, len, "pipe:[%" PRIu64 "]", (uint64_t)o->ino);
	else if (fmt == S_IFSOCK && QT_DATA_MODE_FAMILY(o->mode) == QT_AF_UNIX)
		snprintf(buf, len, "unix %s:[%" PRIu64 "]",
			 QT_DATA_MODE_SOCK_TYPE(o->mode) == 1 ? "stream" : "dgram", (uint64_t)o->ino);
	else if (fmt == S_IFSOCK)
		snprintf(buf, len, "socket:[%" PRIu64 "]", (uint64_t)o->ino);
	else
		snprintf(buf, len, "%u:%u:%" PRIu64, DEV_MAJOR(o->dev), DEV_MINOR(o->dev),
			 (uint64_t)o->ino);
	return buf;
}

/* s is the whole of FORM, a literal with one %llu then %n; *i its number. */
#define WHOLE(s, form, i) (n = 0, sscanf(s, form "%n", i, &n) == 1 && n && !(s)[n])

int dataobj_parse(const char *s, uint32_t *dev, uint64_t *ino)
{
	unsigned int maj, min;
	unsigned long long i = 0;
	int n = 0;

	*dev = UINT32_MAX;
	if (sscanf(s, "%u:%u:%llu%n", &maj, &min, &i, &n) == 3 && !s[n]) {
		if (maj >= 1u << 12 || min >= 1u << 20)
			return -EINVAL;
		*dev = maj << 20 | min;
	} else if (!WHOLE(s, "pipe:[%llu]", &i) && !WHOLE(s, "socket:[%llu]", &i) &&
		   !WHOLE(s, "unix stream:[%llu]", &i) && !WHOLE(s, "unix dgram:[%llu]", &i) &&
		   !WHOLE(s, "%llu", &i)) {
		return -EINVAL;
	}
	if (!i)
		return -EINVAL;
	*ino = i;
	return 0;
}
