// SPDX-License-Identifier: MIT
/* The trace file's key=value lists (its META block, a window's notes); declared in src/file/tracefile.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefile.h"

int tf_kv_set(struct tf_kv *kv, const char *key, const char *fmt, ...)
{
	char *val;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&val, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (char *c = val; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	for (size_t i = 0; i < kv->n; i++) {
		if (!strcmp(kv->keys[i], key)) {
			free(kv->vals[i]);
			kv->vals[i] = val;
			return 0;
		}
	}
	if (kv->n == kv->cap) {
		size_t cap = kv->cap ? kv->cap * 2 : 16;
		char **k = realloc(kv->keys, cap * sizeof(*k));

		if (!k)
			goto nomem;
		kv->keys = k;
		k = realloc(kv->vals, cap * sizeof(*k));
		if (!k)
			goto nomem;
		kv->vals = k;
		kv->cap = cap;
	}
	kv->keys[kv->n] = strdup(key);
	if (!kv->keys[kv->n])
		goto nomem;
	kv->vals[kv->n++] = val;
	return 0;
nomem:
	free(val);
	return -ENOMEM;
}

const char *tf_kv_get(const struct tf_kv *kv, const char *key)
{
	for (size_t i = 0; i < kv->n; i++)
		if (!strcmp(kv->keys[i], key))
			return kv->vals[i];
	return NULL;
}

int tf_kv_get_u64(const struct tf_kv *kv, const char *key, uint64_t *out)
{
	const char *v = tf_kv_get(kv, key);
	char *end;

	if (!v || !*v)
		return -ENOENT;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

void tf_kv_free(struct tf_kv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->keys[i]);
		free(kv->vals[i]);
	}
	free(kv->keys);
	free(kv->vals);
	memset(kv, 0, sizeof(*kv));
}

char *tf_kv_encode(const struct tf_kv *kv, size_t *len)
{
	size_t total = 1;
	char *buf, *p;

	for (size_t i = 0; i < kv->n; i++)
		total += strlen(kv->keys[i]) + strlen(kv->vals[i]) + 2;
	buf = malloc(total);
	if (!buf)
		return NULL;
	p = buf;
	for (size_t i = 0; i < kv->n; i++)
		p += sprintf(p, "%s=%s\n", kv->keys[i], kv->vals[i]);
	*len = p - buf;
	return buf;
}

int tf_kv_decode(struct tf_kv *kv, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int err;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *eq;
		char key[64];

		if (!nl)
			return -EBADMSG;
		eq = memchr(p, '=', nl - p);
		if (!eq || eq == p || (size_t)(eq - p) >= sizeof(key))
			return -EBADMSG;
		memcpy(key, p, eq - p);
		key[eq - p] = 0;
		err = tf_kv_set(kv, key, "%.*s", (int)(nl - eq - 1), eq + 1);
		if (err)
			return err;
		p = nl + 1;
	}
	return 0;
}
