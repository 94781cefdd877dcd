// SPDX-License-Identifier: MIT
/*
 * Data objects in words and back (src/file/dataobj.c): the names dump and
 * the report print are the ones report --data-path=OBJECT takes, and the
 * forms /proc/PID/fd and stat(1) print.
 */
#include <errno.h>
#include <sys/stat.h>

#include "file/dataobj.h"
#include "testutil.h"

Test(dataobj, names)
{
	struct qt_data_obj f = { .ino = 1234, .dev = 254u << 20 | 3, .mode = S_IFREG };
	struct qt_data_obj p = { .ino = 77, .dev = 14, .mode = S_IFIFO };
	struct qt_data_obj fifo = { .ino = 78, .dev = 8u << 20 | 1, .mode = S_IFIFO };
	struct qt_data_obj u = { .ino = 9, .peer = 10, .mode = S_IFSOCK | 1 << 16 | 1 << 24 };
	struct qt_data_obj d = { .ino = 11, .mode = S_IFSOCK | 2 << 16 | 1 << 24 };
	struct qt_data_obj tcp = { .ino = 12, .mode = S_IFSOCK | 1 << 16 | 2 << 24 };
	struct qt_data_obj none = { 0 };
	char b[64];

	cr_expect_str_eq(dataobj_name(&f, b, sizeof(b)), "254:3:1234");
	cr_expect_str_eq(dataobj_name(&p, b, sizeof(b)), "pipe:[77]");
	cr_expect_str_eq(dataobj_name(&fifo, b, sizeof(b)), "8:1:78");	/* a named FIFO: its file */
	cr_expect_str_eq(dataobj_name(&u, b, sizeof(b)), "unix stream:[9]");
	cr_expect_str_eq(dataobj_name(&d, b, sizeof(b)), "unix dgram:[11]");
	cr_expect_str_eq(dataobj_name(&tcp, b, sizeof(b)), "socket:[12]");
	cr_expect_str_eq(dataobj_name(&none, b, sizeof(b)), "?");
}

Test(dataobj, parse)
{
	static const struct {
		const char *s;
		int err;
		uint32_t dev;
		uint64_t ino;
	} v[] = {
		{ "254:3:1234", 0, 254u << 20 | 3, 1234 },
		{ "pipe:[77]", 0, UINT32_MAX, 77 },
		{ "socket:[12]", 0, UINT32_MAX, 12 },
		{ "unix stream:[9]", 0, UINT32_MAX, 9 },
		{ "unix dgram:[11]", 0, UINT32_MAX, 11 },
		{ "4242", 0, UINT32_MAX, 4242 },
		{ "pipe:[77", -EINVAL, 0, 0 },
		{ "pipe:[77]x", -EINVAL, 0, 0 },
		{ "254:3", -EINVAL, 0, 0 },
		{ "254:3:0", -EINVAL, 0, 0 },
		{ "4096:3:5", -EINVAL, 0, 0 },	/* a major beyond 12 bits */
		{ "1:1048576:5", -EINVAL, 0, 0 },	/* a minor beyond 20 bits */
		{ "out.txt", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint32_t dev = 0;
		uint64_t ino = 0;

		cr_expect_eq(dataobj_parse(v[i].s, &dev, &ino), v[i].err, "'%s'", v[i].s);
		if (v[i].err)
			continue;
		cr_expect_eq(dev, v[i].dev, "'%s': dev %#x", v[i].s, dev);
		cr_expect_eq(ino, v[i].ino, "'%s'", v[i].s);
	}
}

/* Every name parses back to its object's inode (and device, for a file). */
Test(dataobj, names_parse_back)
{
	struct qt_data_obj o[] = {
		{ .ino = 1, .dev = 1u << 20, .mode = S_IFREG },
		{ .ino = UINT64_MAX, .dev = 4095u << 20 | 0xfffff, .mode = S_IFBLK },
		{ .ino = 5, .mode = S_IFIFO },
		{ .ino = 6, .mode = S_IFSOCK | 1 << 24 },
	};

	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		char b[64];
		uint32_t dev;
		uint64_t ino;

		cr_assert_eq(dataobj_parse(dataobj_name(&o[i], b, sizeof(b)), &dev, &ino), 0, "%s", b);
		cr_expect_eq(ino, o[i].ino);
		if (dev != UINT32_MAX)
			cr_expect_eq(dev, o[i].dev);
	}
}
