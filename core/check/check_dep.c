/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's dependencies between channels, as the walks of unicast
 * (check.c) and multicast (check_mcast.c) find them: deduplicated per
 * channel and next link, flagged proven or assumed, inserted in order
 * when the check is incremental. */
#include "check_int.h"

#include <stdlib.h>
#include <string.h>


static int grow_eflag(struct walk *w)
{
	return kr_grow(&w->eflag, &w->eflag_cap, w->g.nedge, 1);
}

/* Marks edge e, known already, as also made for why (0: proven). */
static void flag_known(struct walk *w, uint32_t e, uint32_t tag, uint8_t why)
{
	if (!why && !(w->eflag[e] & EDGE_PROVEN))
		w->g.tag[e] = tag;
	w->eflag[e] |= why ? why : EDGE_PROVEN;
}

/* Flags the edge just appended. */
static int flag_new(struct walk *w, uint8_t why)
{
	if (grow_eflag(w))
		return KR_ENOMEM;
	w->eflag[w->g.nedge - 1] = why ? why : EDGE_PROVEN;
	return KR_OK;
}

/* Adds from -> to, known or not, with its id in *e (KR_NONE: an
 * incremental check's insertion would close a cycle, which stops it at
 * the DLID: see kr_check_incremental; such checks assume nothing). */
static int add_edge(struct walk *w, uint32_t from, uint32_t to, uint32_t tag,
		    uint8_t why, uint32_t *e)
{
	int rc;

	if (w->incr) {
		rc = kr_cdg_insert(&w->g, from, to, tag);
		*e = rc == 1 ? w->g.nedge - 1 : kr_cdg_find(&w->g, from, to);
		if (rc == KR_ECYCLE)
			w->incr_cycle = true;
		return rc < 0 && rc != KR_ECYCLE ? rc : KR_OK;
	}
	*e = kr_cdg_find(&w->g, from, to);
	if (*e != KR_NONE) {
		if (!w->exact)
			flag_known(w, *e, tag, why);
		return KR_OK;
	}
	if (kr_cdg_add(&w->g, from, to, tag) < 0)
		return KR_ENOMEM;
	*e = w->g.nedge - 1;
	return w->exact ? KR_OK : flag_new(w, why);
}

/* A row for node fn, channel from: one entry per link of the switch it
 * leads to to another switch (w->link_idx), the only ports a dependency
 * can go on by (check_dep). */
static int new_row(struct walk *w, uint32_t fn, uint32_t from)
{
	const struct kr_fabric *f = w->f;
	uint32_t sw = f->owner[f->peer[CH_SLOT(w, from)]];
	size_t n = 0;

	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		n += w->link_idx[s] != NOT_A_LINK;
	/* rows are found by uint32_t offsets (dep_row) */
	if (w->ndep + n > UINT32_MAX ||
	    kr_grow(&w->dep, &w->dep_cap, w->ndep + n, sizeof(*w->dep)) ||
	    (!w->exact && kr_grow(&w->dep_edge, &w->dep_edge_cap, w->ndep + n,
				  sizeof(*w->dep_edge))))
		return KR_ENOMEM;
	w->dep_row[fn] = (uint32_t)w->ndep;
	memset(w->dep + w->ndep, 0xff, n * sizeof(*w->dep));
	w->ndep += n;
	return KR_OK;
}

int check_dep(struct walk *w, uint32_t from, uint32_t to_slot, uint32_t to,
	      uint32_t tag, uint8_t why)
{
	uint32_t fn = CH_NODE(w, CH_SLOT(w, from), CH_VL(w, from));
	uint32_t tn = CH_NODE(w, to_slot, CH_VL(w, to)), at, e, *edge;
	struct dep_ref *d;

	if (w->dep_row[fn] == KR_NONE && new_row(w, fn, from))
		return KR_ENOMEM;
	at = w->dep_row[fn] + w->link_idx[to_slot];
	d = &w->dep[at];
	edge = w->exact ? NULL : w->dep_edge[at];
	if (d->to[0] == tn || d->to[1] == tn) {
		if (edge)
			flag_known(w, edge[d->to[1] == tn], tag, why);
		return KR_OK;
	}
	if (add_edge(w, fn, tn, tag, why, &e))
		return KR_ENOMEM;
	if (e == KR_NONE)
		return KR_OK;
	d->to[1] = d->to[0];
	d->to[0] = tn;
	if (edge) {
		edge[1] = edge[0];
		edge[0] = e;
	}
	return KR_OK;
}

void check_dep_reset(struct walk *w)
{
	memset(w->dep_row, 0xff, (size_t)w->g.nnode * sizeof(*w->dep_row));
	w->ndep = 0;
}

