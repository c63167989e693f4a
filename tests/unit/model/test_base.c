/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kr_sort_by_key against a comparison sort of the same items. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "kr.h"

/* Worked by hand: keys 2 0 - 2 1 0 (- : KR_NONE) give 1 5 | 4 | 0 3. */
static void test_sort_small(void **state)
{
	const uint32_t key[] = { 2, 0, KR_NONE, 2, 1, 0 };
	const uint32_t want[] = { 1, 5, 4, 0, 3 };
	const uint32_t rank[] = { 2, 0, 1 };
	const uint32_t want_ranked[] = { 0, 3, 1, 5, 4 };
	uint32_t out[6];

	(void)state;
	assert_int_equal(kr_sort_by_key(key, 6, 3, NULL, out), 5);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(kr_sort_by_key(key, 6, 3, rank, out), 5);
	assert_memory_equal(out, want_ranked, sizeof(want_ranked));
	assert_int_equal(kr_sort_by_key(key, 0, 3, NULL, out), 0);
}

static const uint32_t *cmp_pos;	/* a key's place in the order wanted */
static const uint32_t *cmp_key;

static int by_pos_then_item(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t px = cmp_pos[cmp_key[x]], py = cmp_pos[cmp_key[y]];

	return px != py ? (px > py) - (px < py) : (x > y) - (x < y);
}

/* Random keys, some left out, under a random ranking: the same as qsort
 * by (rank of the key, item). */
static void test_sort_random(void **state)
{
	enum { N = 5000, NKEY = 97 };
	uint32_t *key = malloc(N * sizeof(*key)), *out = malloc(N * sizeof(*out));
	uint32_t *want = malloc(N * sizeof(*want)), rank[NKEY], pos[NKEY];
	uint32_t n = 0;

	(void)state;
	srand(7);
	for (uint32_t j = 0; j < NKEY; j++)
		rank[j] = j;
	for (uint32_t j = NKEY - 1; j > 0; j--) {
		uint32_t k = (uint32_t)rand() % (j + 1), t = rank[j];

		rank[j] = rank[k];
		rank[k] = t;
	}
	for (uint32_t j = 0; j < NKEY; j++)
		pos[rank[j]] = j;
	for (uint32_t i = 0; i < N; i++) {
		key[i] = rand() % 10 ? (uint32_t)rand() % NKEY : KR_NONE;
		if (key[i] != KR_NONE)
			want[n++] = i;
	}
	cmp_pos = pos;
	cmp_key = key;
	qsort(want, n, sizeof(*want), by_pos_then_item);
	assert_int_equal(kr_sort_by_key(key, N, NKEY, rank, out), n);
	assert_memory_equal(out, want, n * sizeof(*want));
	free(key);
	free(out);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_small),
		cmocka_unit_test(test_sort_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
