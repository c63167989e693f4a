/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_index.h"

#include <stdlib.h>
#include <string.h>

static int alloc_slots(struct kr_index *x, uint32_t size)
{
	x->slot = malloc((size_t)size * sizeof(*x->slot));
	if (!x->slot)
		return KR_ENOMEM;
	memset(x->slot, 0xff, (size_t)size * sizeof(*x->slot));
	x->mask = size - 1;
	return KR_OK;
}

int kr_index_init(struct kr_index *x, uint32_t n)
{
	uint32_t size = 64;

	*x = (struct kr_index){ 0 };
	while (size < 2 * (uint64_t)n)
		size *= 2;
	return alloc_slots(x, size);
}

void kr_index_free(struct kr_index *x)
{
	free(x->slot);
	*x = (struct kr_index){ 0 };
}

static void put(struct kr_index *x, uint32_t h, uint32_t id)
{
	while (kr_index_at(x, h) != KR_NONE)
		h++;
	x->slot[h & x->mask] = id;
}

static int grow(struct kr_index *x, kr_index_hash_fn *hash, const void *ctx)
{
	struct kr_index old = *x;

	if (alloc_slots(x, (old.mask + 1) * 2)) {
		*x = old;
		return KR_ENOMEM;
	}
	for (uint32_t i = 0; i <= old.mask; i++)
		if (old.slot[i] != KR_NONE)
			put(x, hash(ctx, old.slot[i]), old.slot[i]);
	free(old.slot);
	return KR_OK;
}

int kr_index_add(struct kr_index *x, uint32_t h, uint32_t id,
		 kr_index_hash_fn *hash, const void *ctx)
{
	if (2 * ((uint64_t)x->n + 1) > (uint64_t)x->mask + 1 &&
	    grow(x, hash, ctx))
		return KR_ENOMEM;
	put(x, h, id);
	x->n++;
	return KR_OK;
}

void kr_index_del(struct kr_index *x, uint32_t h, uint32_t id,
		  kr_index_hash_fn *hash, const void *ctx)
{
	uint32_t mask = x->mask, i = h & mask, j;

	while (x->slot[i] != id)
		i = (i + 1) & mask;
	for (j = i;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (x->slot[j] == KR_NONE)
			break;
		home = hash(ctx, x->slot[j]) & mask;
		/* stays when its home lies cyclically in (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		x->slot[i] = x->slot[j];
		i = j;
	}
	x->slot[i] = KR_NONE;
	x->n--;
}
