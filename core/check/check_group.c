/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A full check visits the destinations grouped by the switch delivering
 * them, whatever order the LIDs were handed out in. The twins
 * (check_twin.c) remember the last few destinations walked, and a
 * destination that repeats one costs a comparison instead of a walk; in
 * OpenSM's discovery order a switch's CA LIDs lie far apart and the
 * twins would have forgotten them. So the LFT is transposed once into
 * that order, one byte per entry more; a check of a few marked DLIDs
 * (kr_check_incremental) walks blocks in LID order instead. */
#include "check_int.h"

#include <stdlib.h>
#include <string.h>

/* The switch delivering lid, or nsw when no switch does (a CA linked to
 * a CA). */
static uint32_t delivered_by(const struct kr_fabric *f, unsigned lid)
{
	uint32_t slot = f->lid_port[lid], n = f->owner[slot];
	int32_t peer;

	if (kr_is_switch(f, n))
		return n;
	peer = f->peer[slot];
	return kr_is_switch(f, f->owner[peer]) ? f->owner[peer] : f->nsw;
}

/* w->glid: the destinations by delivering switch, in LID order within
 * each; pos[lid] their place, KR_NONE for a LID that is none. */
static int order_dests(struct walk *w, uint32_t *pos)
{
	const struct kr_fabric *f = w->f;
	uint32_t nlid = f->max_lid + 1;

	for (unsigned lid = 0; lid < nlid; lid++)	/* pos as the keys */
		pos[lid] = lid && check_is_dest(f, lid) ? delivered_by(f, lid)
							: KR_NONE;
	w->glid = malloc((size_t)nlid * sizeof(*w->glid));
	w->ngroup = w->glid ? kr_sort_by_key(pos, nlid, f->nsw + 1, NULL,
					     w->glid) : KR_NONE;
	if (w->ngroup == KR_NONE) {
		w->ngroup = 0;
		return KR_ENOMEM;
	}
	for (unsigned lid = 0; lid < nlid; lid++)
		pos[lid] = KR_NONE;
	for (uint32_t i = 0; i < w->ngroup; i++)
		pos[w->glid[i]] = i;
	return KR_OK;
}

int check_group_dests(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	size_t nsw = f->nsw;
	uint32_t *pos = malloc(((size_t)f->max_lid + 1) * sizeof(*pos));
	int rc = pos ? order_dests(w, pos) : KR_ENOMEM;

	if (!rc && !(w->gcol = malloc((size_t)w->ngroup * nsw + 1)))
		rc = KR_ENOMEM;
	for (unsigned base = 0; !rc && base <= f->max_lid; base += BLOCK) {
		check_load_block(w, base);
		for (unsigned d = 0; d < BLOCK && base + d <= f->max_lid; d++)
			if (base + d && pos[base + d] != KR_NONE)
				memcpy(w->gcol + (size_t)pos[base + d] * nsw,
				       w->col + (size_t)d * nsw, nsw);
	}
	free(pos);
	if (rc)
		check_group_free(w);
	return rc;
}

void check_group_free(struct walk *w)
{
	free(w->glid);
	free(w->gcol);
	w->glid = NULL;
	w->gcol = NULL;
	w->ngroup = 0;
}
