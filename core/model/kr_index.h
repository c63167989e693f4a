/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An open-addressing index of ids whose keys live in the caller's own
 * arrays (node GUIDs, node names, a graph's edges): it keeps ids only, so
 * the caller hashes a key and compares the candidates itself. Linear
 * probing in a power-of-two table kept at most half full; KR_NONE marks
 * an empty slot. A lookup is the caller's loop:
 *
 *	for (uint32_t h = kr_hash64(key);; h++) {
 *		uint32_t id = kr_index_at(x, h);
 *
 *		if (id == KR_NONE || key_of(id) == key)
 *			return id;
 *	}
 */
#ifndef KR_INDEX_H
#define KR_INDEX_H

#include <stdint.h>

#include "kr_base.h"

struct kr_index {
	uint32_t *slot;
	uint32_t mask;
	uint32_t n;		/* ids in it */
};

/* The hash of id's key, for growing and deleting. */
typedef uint32_t kr_index_hash_fn(const void *ctx, uint32_t id);

/* An empty index with room for n ids. */
int kr_index_init(struct kr_index *x, uint32_t n);
void kr_index_free(struct kr_index *x);	/* fine on a zeroed one */

/* The id in probe slot h of the index (h: the key's hash, then + 1 per
 * slot passed). */
static inline uint32_t kr_index_at(const struct kr_index *x, uint32_t h)
{
	return x->slot[h & x->mask];
}

/* Adds id, whose key hashes to h; the table doubles first when half
 * full, hash giving the keys of the ids already in it. */
int kr_index_add(struct kr_index *x, uint32_t h, uint32_t id,
		 kr_index_hash_fn *hash, const void *ctx);
/* Removes id (its key hashing to h): the ids after it in its run move
 * back, so that no lookup stops early. */
void kr_index_del(struct kr_index *x, uint32_t h, uint32_t id,
		  kr_index_hash_fn *hash, const void *ctx);

/* A 64-bit key's hash (MurmurHash3's finaliser): every key bit moves
 * the low bits the table uses. */
static inline uint32_t kr_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k;
}

#endif
