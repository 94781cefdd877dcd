// SPDX-License-Identifier: MIT
/*
 * What watch has to say: messages queued from the detector's thread
 * (watch_say) and printed by the caller's (watch__say_to), between its
 * status lines; see src/watch/internal.h.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void watch_say(struct watch *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	pthread_mutex_lock(&w->mlock);
	if (w->nmsgs == w->mcap) {
		size_t cap = w->mcap ? w->mcap * 2 : 16;
		char **m = realloc(w->msgs, cap * sizeof(*m));

		if (!m) {
			pthread_mutex_unlock(&w->mlock);
			free(s);
			return;
		}
		w->msgs = m;
		w->mcap = cap;
	}
	w->msgs[w->nmsgs++] = s;
	pthread_mutex_unlock(&w->mlock);
}

void watch__say_to(struct watch *w, FILE *f)
{
	pthread_mutex_lock(&w->mlock);
	for (size_t i = 0; i < w->nmsgs; i++) {
		fprintf(f, "%s\n", w->msgs[i]);
		free(w->msgs[i]);
	}
	w->nmsgs = 0;
	pthread_mutex_unlock(&w->mlock);
	fflush(f);
}
