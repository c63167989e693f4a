/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Destinations that repeat one checked before (struct twin, check_int.h).
 *
 * Destination-based routing mostly takes the CA ports of one switch the
 * same way: knsroute routes per (switch, dimension order, tie parity),
 * torus-2QoS and dor per switch. As no dependency into a channel to a CA
 * is in the graph (check_dep), such a destination's walk would redo its
 * twin's step by step and add nothing; only its last channels, out of the
 * destination switch's port to its own CA, are new. So a clean walk is
 * kept (its column, the ports its packets enter the last switch by, its
 * hop counts and link loads), and a later destination whose column and
 * SL match costs a comparison of the column and a VL check per in-port.
 *
 * A switch's own LID is mostly routed like one of its CAs (knsroute gives
 * it a CA slot's routes, other engines route per switch): then its
 * management pairs are that CA's pairs, each one hop shorter, plus the
 * CA's own, delivered at its first switch. So the first destination kept
 * on each switch on the SL of the switch's LID is kept for the whole check
 * (struct sw_twin). */
#include "check_int.h"

#include <stdlib.h>
#include <string.h>

/* The CA classes of each switch (w->cls_at, w->cls_by_sw). */
static int index_classes(struct walk *w)
{
	uint32_t nsw = w->f->nsw, *at;

	at = w->cls_at = calloc((size_t)nsw + 2, sizeof(*at));
	w->cls_by_sw = malloc(((size_t)w->ncls + 1) * sizeof(*w->cls_by_sw));
	if (!at || !w->cls_by_sw)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < w->ncls; i++)
		if (w->cls[i].kind == SRC_CA && w->cls[i].sw != KR_NONE)
			at[w->cls[i].sw + 2]++;
	for (uint32_t s = 0; s < nsw; s++)
		at[s + 2] += at[s + 1];
	for (uint32_t i = 0; i < w->ncls; i++)
		if (w->cls[i].kind == SRC_CA && w->cls[i].sw != KR_NONE)
			w->cls_by_sw[at[w->cls[i].sw + 1]++] = i;
	return KR_OK;
}

int check_twin_alloc(struct walk *w)
{
	size_t nsw = (size_t)w->f->nsw + 1;

	if (index_classes(w))
		return KR_ENOMEM;
	w->swt = malloc(nsw * sizeof(*w->swt));
	w->swt_col = malloc((size_t)w->f->nsw * w->f->nsw + 1);
	if (!w->swt || !w->swt_col)
		return KR_ENOMEM;
	for (size_t i = 0; i < nsw; i++)
		w->swt[i].cls = KR_NONE;

	for (unsigned i = 0; i < TWINS; i++) {
		struct twin *k = &w->twin[i];

		k->dsw = KR_NONE;
		k->col = malloc(nsw);
		k->hops = calloc(w->r->nhops, sizeof(*k->hops));
		k->load_slot = malloc(nsw * sizeof(*k->load_slot));
		k->load = malloc(nsw * sizeof(*k->load));
		if (!k->col || !k->hops || !k->load_slot || !k->load)
			return KR_ENOMEM;
	}
	return KR_OK;
}

void check_twin_free(struct walk *w)
{
	free(w->cls_at);
	free(w->cls_by_sw);
	free(w->swt);
	free(w->swt_col);
	free(w->swt_hops);
	for (unsigned i = 0; i < TWINS; i++) {
		free(w->twin[i].col);
		free(w->twin[i].hops);
		free(w->twin[i].load_slot);
		free(w->twin[i].load);
	}
}

/* The switch delivering dlid to a CA port, own that port; KR_NONE when
 * dlid is not such a destination or its port is no source (its pairs
 * would not mirror a twin's). */
static uint32_t dest_switch(const struct walk *w, unsigned dlid,
			    uint32_t *own)
{
	const struct kr_fabric *f = w->f;
	uint32_t s = f->lid_port[dlid];
	int32_t peer = f->peer[s];

	*own = s;
	if (kr_is_switch(f, f->owner[s]) || w->class_of[s] == KR_NONE ||
	    peer < 0 || !kr_is_switch(f, f->owner[peer]))
		return KR_NONE;
	return f->owner[peer];
}

/* Equal columns but for switch d's entry. */
static bool same_column(const uint8_t *a, const uint8_t *b, uint32_t nsw,
			uint32_t d)
{
	return !memcmp(a, b, d) && !memcmp(a + d + 1, b + d + 1, nsw - d - 1);
}

bool check_twin_met(struct walk *w, unsigned dlid, unsigned sl)
{
	const struct kr_fabric *f = w->f;
	uint32_t own, d = dest_switch(w, dlid, &own), slot;
	struct twin *k = NULL;
	uint16_t vls = 0;
	unsigned out;
	uint64_t h;

	if (d == KR_NONE || !w->twin[0].col)
		return false;
	for (unsigned i = 0; i < TWINS && !k; i++)
		if (w->twin[i].dsw == d && w->twin[i].sl == sl &&
		    w->twin[i].cls == w->class_of[own] &&
		    same_column(w->twin[i].col, w->row, f->nsw, d))
			k = &w->twin[i];
	if (!k)
		return false;
	out = w->row[d];
	if (out == 0 || out > f->nports[d])
		return false;
	slot = f->port0[d] + out;
	h = w->hop[slot];
	if (h >> HOP_KIND_SHIFT != HOP_CA || (uint32_t)h != own)
		return false;
	/* the walk reports a failing VL, with its example */
	for (unsigned q = 0; q < 4; q++)
		for (uint64_t b = k->in[q]; b; b &= b - 1) {
			unsigned in = q * 64 + (unsigned)__builtin_ctzll(b);
			unsigned vl = kr_map_vl(check_map(w, d, in, out), sl);

			if (vl_check(w, slot, vl))
				return false;
			vls |= (uint16_t)(1u << vl);
		}
	w->r->vl_mask[slot] |= vls;
	k->copies++;
	k->used = w->gen;
	return true;
}

/* Adds k's counts once per repeat met since. */
static void flush_one(struct walk *w, struct twin *k)
{
	struct kr_check_report *r = w->r;
	uint64_t n = k->copies;

	if (!n)
		return;
	r->pairs += n * k->pairs;
	r->delivered += n * k->pairs;
	for (uint32_t h = 0; h < k->nhop; h++)
		r->hops[h] += n * k->hops[h];
	for (uint32_t i = 0; i < k->nload; i++)
		r->link_load[k->load_slot[i]] += n * k->load[i];
	k->copies = 0;
}

void check_twin_flush(struct walk *w)
{
	for (unsigned i = 0; i < TWINS && w->twin[i].col; i++) {
		flush_one(w, &w->twin[i]);
		w->twin[i].dsw = KR_NONE;
		w->twin[i].used = 0;
	}
}

/* The ports the walk's packets entered switch d by, its hop counts: from
 * the pairs each switch sends (its w before add_loads passes it on). */
static void keep_entries(struct walk *w, struct twin *k, uint32_t d)
{
	const struct sw_state *ss = w->sw;
	uint32_t last = w->r->nhops - 1;

	for (uint32_t i = w->cls_at[d]; i < w->cls_at[d + 1]; i++) {
		const struct src_class *c = &w->cls[w->cls_by_sw[i]];

		if (c->n - (c->minus_gen == w->gen ? c->minus : 0))
			k->in[c->in / 64] |= 1ull << c->in % 64;
	}
	for (uint32_t i = 0; i < w->ndone; i++) {
		uint32_t u = w->done[i], hops = 1 + ss[u].dist;

		if (ss[u].next == d)
			k->in[ss[u].in / 64] |= 1ull << ss[u].in % 64;
		if (!ss[u].w)
			continue;
		hops = hops < last ? hops : last;
		k->hops[hops] += ss[u].w;
		if (hops >= k->nhop)
			k->nhop = hops + 1;
	}
}

/* The first destination kept on switch d on the SL of d's own LID stays
 * for that LID (without the memory for its hop counts, the LID is
 * walked). */
static void keep_switch(struct walk *w, const struct twin *k, uint32_t d)
{
	struct sw_twin *t = &w->swt[d];
	size_t nsw = w->f->nsw;
	unsigned lid = w->f->lid[w->f->port0[d]];

	if (t->cls != KR_NONE || !lid ||
	    k->sl != check_dlid_sl(w->t, lid))
		return;
	if (kr_grow(&w->swt_hops, &w->swt_hops_cap, w->nswt_hops + k->nhop,
		    sizeof(*w->swt_hops)))
		return;
	t->cls = k->cls;
	t->hop0 = (uint32_t)w->nswt_hops;
	t->nhop = k->nhop;
	memcpy(w->swt_hops + w->nswt_hops, k->hops, k->nhop * sizeof(*k->hops));
	w->nswt_hops += k->nhop;
	memcpy(w->swt_col + d * nsw, k->col, nsw);
}

bool check_twin_switch(struct walk *w, unsigned dlid)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_report *r = w->r;
	uint32_t d = f->owner[f->lid_port[dlid]], nsw = f->nsw;
	const struct sw_twin *t;
	struct src_class *c;
	uint64_t pairs = 1;	/* the kept destination's port's own */
	unsigned vl;

	if (!w->swt || (t = &w->swt[d])->cls == KR_NONE ||
	    w->row[d] != 0 ||
	    !same_column(w->swt_col + (size_t)d * nsw, w->row, nsw, d))
		return false;
	/* That port sat its destination's walk out: its channel is new. */
	c = &w->cls[t->cls];
	vl = kr_map_vl(c->map0, check_dlid_sl(w->t, dlid));
	if (vl_check(w, c->rep, vl))
		return false;
	c->vl0_mask |= (uint16_t)(1u << vl);
	r->hops[1]++;
	for (uint32_t h = 1; h < t->nhop; h++) {
		r->hops[h - 1] += w->swt_hops[t->hop0 + h];
		pairs += w->swt_hops[t->hop0 + h];
	}
	r->pairs += pairs;
	r->delivered += pairs;
	return true;
}

struct twin *check_twin_keep(struct walk *w, unsigned dlid, unsigned sl,
			     uint64_t pairs0, uint64_t delivered0)
{
	const struct kr_check_report *r = w->r;
	uint32_t own, d = dest_switch(w, dlid, &own);
	struct twin *k = &w->twin[0];
	uint64_t pairs = r->pairs - pairs0;	/* before a flush adds */

	if (d == KR_NONE || !k->col || w->incr_cycle ||
	    pairs != r->delivered - delivered0)
		return NULL;
	for (unsigned i = 1; i < TWINS; i++)
		if (w->twin[i].used < k->used)
			k = &w->twin[i];
	flush_one(w, k);
	memset(k->hops, 0, k->nhop * sizeof(*k->hops));
	memset(k->in, 0, sizeof(k->in));
	k->dsw = d;
	k->cls = w->class_of[own];
	k->sl = sl;
	k->used = w->gen;
	k->pairs = pairs;
	k->nhop = 0;
	k->nload = 0;
	memcpy(k->col, w->row, w->f->nsw);
	keep_entries(w, k, d);
	keep_switch(w, k, d);
	return k;
}
