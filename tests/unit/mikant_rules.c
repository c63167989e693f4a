/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "mikant_rules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

struct mk_addr mk_addr(unsigned k, unsigned n, uint32_t pos)
{
	struct mk_addr a;

	for (unsigned d = 0; d + 1 < n; d++, pos /= k)
		a.dig[d] = pos % k;
	a.stage = pos % (n - 1);
	a.group = pos / (n - 1);
	return a;
}

bool mk_same_but(const struct mk_addr *a, const struct mk_addr *b,
		 unsigned n, unsigned d)
{
	for (unsigned j = 0; j + 1 < n; j++)
		if (j != d && a->dig[j] != b->dig[j])
			return false;
	return true;
}

/* One switch's links: up (or across the top) to distinct values of its
 * digit L, down from stage L-1 in the same group, CAs on leaves only. */
static void one_switch(const struct kr_fabric *f, const uint32_t *sw_pos,
		       unsigned k, unsigned n, uint32_t sw, bool pristine)
{
	struct mk_addr a = mk_addr(k, n, sw_pos[sw]);
	unsigned nca = 0, nup = 0, ndown = 0;
	uint64_t seen = 0;

	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
		struct mk_addr b;
		uint32_t nb;

		assert_true(!pristine || f->peer[s] >= 0);
		if (f->peer[s] < 0)
			continue;
		nb = f->owner[f->peer[s]];
		if (!kr_is_switch(f, nb)) {
			assert_int_equal(a.stage, 0);
			nca++;
			continue;
		}
		b = mk_addr(k, n, sw_pos[nb]);
		if (b.stage == a.stage + 1 || (a.stage == n - 2 &&
					       b.group != a.group)) {
			assert_true(mk_same_but(&a, &b, n, a.stage));
			assert_int_equal(b.group != a.group, a.stage == n - 2);
			assert_int_equal(b.stage, a.stage == n - 2 ?
					 a.stage : a.stage + 1);
			assert_false(seen >> b.dig[a.stage] & 1);
			seen |= 1ull << b.dig[a.stage];
			nup++;
		} else {
			assert_int_equal(b.stage + 1, a.stage);
			assert_int_equal(b.group, a.group);
			assert_true(mk_same_but(&a, &b, n, b.stage));
			ndown++;
		}
	}
	assert_true(nup <= k && ndown <= k && nca <= k);
	if (pristine) {
		assert_int_equal(f->nports[sw], 2 * k);
		assert_int_equal(nup, k);
		assert_int_equal(a.stage ? ndown : nca, k);
	}
}

void mk_assert_rules(const struct kr_fabric *f, const uint32_t *sw_pos,
		     unsigned k, unsigned n, bool pristine)
{
	uint32_t npos = 2 * (n - 1);
	uint8_t *taken;

	for (unsigned j = 0; j + 1 < n; j++)
		npos *= k;
	taken = calloc(npos, 1);
	assert_non_null(taken);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		assert_true(sw_pos[sw] < npos);
		assert_false(taken[sw_pos[sw]]);
		taken[sw_pos[sw]] = 1;
		one_switch(f, sw_pos, k, n, sw, pristine);
	}
	free(taken);
}
