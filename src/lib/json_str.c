// SPDX-License-Identifier: MIT
/* JSON string literals from arbitrary bytes; see src/lib/json_str.h. */
#include <stdint.h>

#include "json_str.h"

/* Length of the valid UTF-8 sequence at p (RFC 3629) within left bytes, or 0. */
static int utf8_len(const unsigned char *p, size_t left)
{
	uint32_t c;
	int n;

	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	n = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
	if ((size_t)n > left)
		return 0;
	c = p[0] & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at a NUL */
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* A byte a literal holds as it is (NUL is not: it ends the string). */
static inline bool plain(unsigned char c, bool html)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && !(html && c == '<');
}

void json_str(FILE *f, const char *s, bool html)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	putc_unlocked('"', f);
	while (*p) {
		unsigned char c = *p;
		int n;

		/* a run of bytes that stand for themselves, in one write: names and most strings are one */
		if (plain(c, html)) {
			const unsigned char *q = p + 1;

			while (plain(*q, html))
				q++;
			fwrite_unlocked(p, 1, q - p, f);
			p = q;
			continue;
		}

		if (c >= 0x80) {
			n = utf8_len(p, 4);
			if (n) {
				fwrite_unlocked(p, 1, n, f);
				p += n;
			} else {
				fputs_unlocked("\xef\xbf\xbd", f);
				p++;
			}
			continue;
		}
		switch (c) {
		case '"': fputs_unlocked("\\\"", f); break;
		case '\\': fputs_unlocked("\\\\", f); break;
		case '\n': fputs_unlocked("\\n", f); break;
		case '\r': fputs_unlocked("\\r", f); break;
		case '\t': fputs_unlocked("\\t", f); break;
		case '<':
			if (html)
				fputs_unlocked("\\u003c", f);
			else
				putc_unlocked(c, f);
			break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				putc_unlocked(c, f);
		}
		p++;
	}
	putc_unlocked('"', f);
}

void json_utf8_copy(FILE *f, const char *buf, size_t len, bool html)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;

	while (p < end) {
		int n;

		if (*p < 0x80) {
			if (*p == '<' && html)
				fputs_unlocked("\\u003c", f);
			else
				putc_unlocked(*p, f);
			p++;
		} else if ((n = utf8_len(p, end - p))) {
			fwrite_unlocked(p, 1, n, f);
			p += n;
		} else {
			fputs_unlocked("\xef\xbf\xbd", f);
			p++;
		}
	}
}
