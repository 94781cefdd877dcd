// SPDX-License-Identifier: MIT
/* A growing array (src/lib/grow.h): room for what is asked, the contents kept, overflow refused. */
#include <stdint.h>

#include "lib/grow.h"
#include "testutil.h"

Test(grow, room_contents_and_overflow)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	cr_assert_eq(grow_array((void **)&v, &cap, 0, sizeof(*v)), 0);
	cr_assert_eq(cap, 0, "nothing asked, nothing taken");
	for (uint32_t i = 0; i < 1000; i++) {
		cr_assert_eq(grow_array((void **)&v, &cap, i + 1, sizeof(*v)), 0);
		cr_assert_geq(cap, i + 1);
		v[i] = i * 7;
	}
	for (uint32_t i = 0; i < 1000; i++)
		cr_assert_eq(v[i], i * 7, "kept across the moves");
	cr_assert_eq(cap, 1024, "doubling from 16");
	cr_assert_eq(grow_array((void **)&v, &cap, (size_t)-1 / 2, sizeof(*v)), -ENOMEM);
	cr_assert_eq(grow_array((void **)&v, &cap, (size_t)-1, 1), -ENOMEM);
	cr_assert_eq(cap, 1024, "unchanged when refused");
	free(v);
}
