/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker's preparations (sources, their classes, pair SLs by
 * destination, scratch arrays) and its summaries (link load, VLs, the
 * witness cycle). */
#include "check_int.h"

#include <stdlib.h>
#include <string.h>

/* Slots that own LIDs and send: a switch's port 0, a linked CA port. */
static bool lid_slot(const struct kr_fabric *f, uint32_t slot)
{
	uint32_t n = f->owner[slot];

	return kr_is_switch(f, n) ? slot == f->port0[n]
				  : slot != f->port0[n] && f->peer[slot] >= 0;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int pick_sources(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	uint64_t *key = malloc(((size_t)f->nport + 1) * sizeof(*key));
	uint32_t n = 0;

	w->src = malloc(((size_t)f->nport + 1) * sizeof(*w->src));
	if (!w->src || !key) {
		free(key);
		return KR_ENOMEM;
	}
	for (uint32_t s = 0; s < f->nport; s++) {
		bool sw = kr_is_switch(f, f->owner[s]);

		if (f->lid[s] && lid_slot(f, s) &&
		    (!sw || w->o->switch_sources))
			key[n++] = (uint64_t)f->lid[s] << 32 | s;
	}
	qsort(key, n, sizeof(*key), cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		w->src[i] = (uint32_t)key[i];
	w->r->nsrc = n;
	free(key);
	return KR_OK;
}

/* Where source s enters the switches: switch *sw through port *in (a
 * switch source: itself, port 0); *sw is KR_NONE when s is linked to a
 * CA. */
static void entry(const struct kr_fabric *f, uint32_t s, uint32_t *sw,
		  uint32_t *in)
{
	uint32_t peer;

	if (kr_is_switch(f, f->owner[s])) {
		*sw = f->owner[s];
		*in = 0;
		return;
	}
	peer = (uint32_t)f->peer[s];
	*sw = kr_is_switch(f, f->owner[peer]) ? f->owner[peer] : KR_NONE;
	*in = kr_port_num(f, peer);
}

static bool same_class(const struct walk *w, uint32_t a, uint32_t b,
		       uint32_t sw)
{
	const struct kr_fabric *f = w->f;
	uint32_t na = f->owner[a], nb = f->owner[b];
	unsigned pa = kr_port_num(f, a), pb = kr_port_num(f, b);
	unsigned ia = kr_port_num(f, (uint32_t)f->peer[a]);
	unsigned ib = kr_port_num(f, (uint32_t)f->peer[b]);

	if (f->oper_vls[a] != f->oper_vls[b] ||
	    check_map(w, na, pa, pa) != check_map(w, nb, pb, pb) ||
	    check_map_why(w, na, pa, pa) != check_map_why(w, nb, pb, pb))
		return false;
	for (unsigned out = 0; out <= f->nports[sw]; out++)
		if (check_map(w, sw, ia, out) != check_map(w, sw, ib, out) ||
		    check_map_why(w, sw, ia, out) != check_map_why(w, sw, ib, out))
			return false;
	return true;
}

/* A class of source s alone: where it enters, its kind and own map. */
struct src_class check_source_class(const struct walk *w, uint32_t s)
{
	const struct kr_fabric *f = w->f;
	struct src_class c = { .rep = s, .rep_lid = w->f->lid[s],
			       .kind = SRC_SW };

	entry(f, s, &c.sw, &c.in);
	if (!kr_is_switch(f, f->owner[s])) {
		unsigned port = kr_port_num(f, s);

		c.kind = SRC_CA;
		c.map0 = check_map(w, f->owner[s], port, port);
	}
	return c;
}

/* The class of source s among those already made for its switch
 * (chained through minus, free until the walk starts), or a new one. */
static uint32_t class_for(struct walk *w, uint32_t s, uint32_t *head)
{
	const struct kr_fabric *f = w->f;
	uint32_t sw, in, k;

	entry(f, s, &sw, &in);
	if (sw != KR_NONE && !kr_is_switch(f, f->owner[s]))
		for (k = head[sw]; k != KR_NONE; k = w->cls[k].minus)
			if (same_class(w, s, w->cls[k].rep, sw))
				return k;
	k = w->ncls++;
	w->cls[k] = check_source_class(w, s);
	w->cls[k].minus = KR_NONE;
	if (sw != KR_NONE && !kr_is_switch(f, f->owner[s])) {
		w->cls[k].minus = head[sw];
		head[sw] = k;
	}
	return k;
}

static int make_classes(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	uint32_t nsrc = w->r->nsrc, *head, *of_src;

	w->cls = malloc(((size_t)nsrc + 1) * sizeof(*w->cls));
	w->member = malloc(((size_t)nsrc + 1) * sizeof(*w->member));
	head = malloc(((size_t)f->nsw + 1) * sizeof(*head));
	of_src = malloc(((size_t)nsrc + 1) * sizeof(*of_src));
	if (!w->cls || !w->member || !head || !of_src) {
		free(head);
		free(of_src);
		return KR_ENOMEM;
	}
	memset(head, 0xff, ((size_t)f->nsw + 1) * sizeof(*head));
	for (uint32_t i = 0; i < nsrc; i++) {
		of_src[i] = class_for(w, w->src[i], head);
		w->cls[of_src[i]].n++;
		w->class_of[w->src[i]] = of_src[i];
	}
	for (uint32_t k = 0, at = 0; k < w->ncls; k++) {
		struct src_class *c = &w->cls[k];

		c->first = at;
		at += c->n;
		c->n = 0;
		c->minus = 0;
	}
	for (uint32_t i = 0; i < nsrc; i++) {
		struct src_class *c = &w->cls[of_src[i]];

		w->member[c->first + c->n++] = w->src[i];
	}
	free(head);
	free(of_src);
	return KR_OK;
}

static int ex_cmp(const void *a, const void *b)
{
	const struct kr_sl_pair *x = a, *y = b;

	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	return (x->slid > y->slid) - (x->slid < y->slid);
}

/* Pair SLs regrouped by destination, the order the walk wants them. */
static int index_pairs(struct walk *w)
{
	const struct kr_tables *t = w->t;
	size_t n = t->npair_sl;

	w->ex = malloc((n + 1) * sizeof(*w->ex));
	w->ex_first = calloc((size_t)t->stride + 2, sizeof(*w->ex_first));
	if (!w->ex || !w->ex_first)
		return KR_ENOMEM;
	if (n)
		memcpy(w->ex, t->pair_sl, n * sizeof(*w->ex));
	qsort(w->ex, n, sizeof(*w->ex), ex_cmp);
	for (size_t i = 0; i < n; i++)
		if (w->ex[i].dlid < t->stride)
			w->ex_first[w->ex[i].dlid + 1]++;
	for (uint32_t l = 0; l <= t->stride; l++)
		w->ex_first[l + 1] += w->ex_first[l];
	return KR_OK;
}

/* VLs any map can give, from above: the nibbles of all maps ORed. Channel
 * ids stop there, so a fabric on few VLs needs few channel slots. */
static unsigned vl_bound(const struct walk *w)
{
	const struct kr_tables *t = w->t;
	uint64_t all = 0;
	unsigned max = 0;

	if (!t->sl2vl)
		return 1;
	for (uint32_t i = 0; i < t->sl2vl_base[w->f->nnode]; i++)
		all |= t->sl2vl[i];
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		if (kr_map_vl(all, sl) > max)
			max = kr_map_vl(all, sl);
	return max + 1;
}

/* w->map_id: each map and whether it was given, numbered in the order
 * first met. Tables with more distinct ones keep being read directly. */
static int index_maps(struct walk *w)
{
	const struct kr_tables *t = w->t;
	size_t n = t->sl2vl ? t->sl2vl_base[w->f->nnode] : 0;
	unsigned nid = 0, id = 0;

	if (!n)
		return KR_OK;
	w->map_at = malloc(((size_t)w->f->nsw + 1) * sizeof(*w->map_at));
	if (!w->map_at)
		return KR_ENOMEM;
	for (uint32_t sw = 0; sw < w->f->nsw; sw++)
		w->map_at[sw] = (uint64_t)t->sl2vl_base[sw] << 16 |
				(w->f->nports[sw] + 1u);
	w->map_id = malloc(n);
	if (!w->map_id)
		return KR_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint8_t why = t->sl2vl_given && !t->sl2vl_given[i]
				      ? KR_CHECK_ASSUMED_MAP : 0;

		/* neighbouring maps are mostly alike: try the last one first */
		if (id == nid || w->map[id] != t->sl2vl[i] ||
		    w->map_why[id] != why)
			for (id = 0; id < nid && (w->map[id] != t->sl2vl[i] ||
						  w->map_why[id] != why); id++)
				;
		if (id == nid) {
			if (nid == MAP_IDS) {
				free(w->map_id);
				w->map_id = NULL;
				return KR_OK;
			}
			w->map[nid] = t->sl2vl[i];
			w->map_why[nid++] = why;
		}
		w->map_id[i] = (uint8_t)id;
	}
	return KR_OK;
}

static void fill_hops(struct walk *w)
{
	const struct kr_fabric *f = w->f;

	memset(w->link_idx, NOT_A_LINK, f->nport);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned nlink = 0;

		for (uint32_t s = f->port0[sw]; s < f->port0[sw + 1]; s++) {
			int32_t peer = f->peer[s];
			uint32_t node;

			if (peer < 0) {
				w->hop[s] = (uint64_t)HOP_DOWN << HOP_KIND_SHIFT;
				continue;
			}
			node = f->owner[peer];
			if (!kr_is_switch(f, node)) {
				w->hop[s] = (uint64_t)HOP_CA << HOP_KIND_SHIFT |
					    (uint32_t)peer;
				continue;
			}
			w->hop[s] = (uint64_t)HOP_SW << HOP_KIND_SHIFT |
				    (uint64_t)(peer - f->port0[node]) << 32 |
				    node;
			w->link_idx[s] = (uint8_t)nlink++;
		}
	}
}

static int alloc_walk(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	size_t nsw = (size_t)f->nsw + 2;
	size_t nnode;

	w->sw = calloc(nsw, sizeof(*w->sw));
	w->stack = malloc(nsw * sizeof(uint32_t));
	w->done = malloc(nsw * sizeof(uint32_t));
	w->col = malloc(nsw * BLOCK);
	w->nvl = vl_bound(w);
	while (1u << w->ch_shift <= f->nport)
		w->ch_shift++;
	w->nchan = w->nvl << w->ch_shift;
	w->ch = calloc(nsw * w->nvl, sizeof(*w->ch));
	w->ch_at = malloc(nsw * w->nvl * sizeof(*w->ch_at));
	w->cstack = malloc(nsw * sizeof(uint32_t));
	w->class_of = malloc(((size_t)f->nport + 1) * sizeof(uint32_t));
	w->excl_gen = calloc((size_t)f->nport + 1, sizeof(uint32_t));
	w->hop = malloc(((size_t)f->port0[f->nsw] + 1) * sizeof(*w->hop));
	w->link_idx = malloc((size_t)f->nport + 1);
	if (!w->hop || !w->link_idx ||
	    !w->sw || !w->stack || !w->done || !w->col || !w->ch ||
	    !w->ch_at || !w->cstack || !w->class_of || !w->excl_gen)
		return KR_ENOMEM;
	fill_hops(w);
	nnode = (size_t)f->port0[f->nsw] * w->nvl;
	w->dep_row = malloc((nnode + 1) * sizeof(uint32_t));
	if (!w->dep_row)
		return KR_ENOMEM;
	memset(w->dep_row, 0xff, nnode * sizeof(uint32_t));
	memset(w->class_of, 0xff, ((size_t)f->nport + 1) * sizeof(uint32_t));
	return kr_cdg_init(&w->g, (uint32_t)nnode);
}

static int alloc_report(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_report *r = w->r;

	r->nhops = f->nsw + 3;
	r->hops = calloc(r->nhops, sizeof(*r->hops));
	r->link_load = calloc((size_t)f->nport + 1, sizeof(*r->link_load));
	r->vl_mask = calloc((size_t)f->nport + 1, sizeof(*r->vl_mask));
	r->ex = calloc((size_t)w->o->max_examples + 1, sizeof(*r->ex));
	return r->hops && r->link_load && r->vl_mask && r->ex ? KR_OK
							      : KR_ENOMEM;
}

/* The SM's port, source of the SA's answers (kr_tables.h: sm_lid). */
static void sm_source(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	unsigned lid = w->t->sm_lid;
	uint32_t s;

	w->sm_slot = KR_NONE;
	if (!lid || lid > f->max_lid || (s = f->lid_port[lid]) == KR_NONE ||
	    !lid_slot(f, s))
		return;
	w->sm_slot = s;
	w->sm_cls = check_source_class(w, s);
	w->r->sm_lid = (uint16_t)lid;
	w->r->sm_sl = w->t->sm_sl;
	w->r->sm_sl_taken = w->t->sm_sl_taken;
}

int check_setup(struct walk *w)
{
	int rc;

	if (w->f->nport >= MAX_NPORT)
		return KR_EINVAL;
	rc = alloc_report(w);
	if (!rc)
		rc = alloc_walk(w);
	if (!rc)
		rc = pick_sources(w);
	if (!rc)
		rc = make_classes(w);
	if (!rc)
		rc = index_pairs(w);
	if (!rc)
		rc = index_maps(w);
	if (!rc)
		sm_source(w);
	if (!rc && w->exact)	/* only exact walks repeat (check_twin.c) */
		rc = check_twin_alloc(w);
	return rc;
}

void check_teardown(struct walk *w)
{
	void *p[] = { w->src, w->cls, w->member, w->class_of, w->excl_gen,
		      w->ex, w->ex_first, w->col, w->sw,
		      w->stack, w->done, w->ch, w->ch_at, w->dep_row, w->dep,
		      w->cstack, w->eflag, w->map_id, w->hop, w->link_idx,
		      w->dep_edge, w->map_at };

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		free(p[i]);
	check_twin_free(w);
	kr_cdg_free(&w->g);
}

/* ------------------------------------------------------------------ */
/* Summaries                                                          */

static int cmp_link(const void *a, const void *b)
{
	const struct kr_check_link *x = a, *y = b;

	if (x->load != y->load)
		return x->load < y->load ? 1 : -1;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

static void keep_top(struct kr_check_report *r, struct kr_check_link l)
{
	if (r->ntop < KR_CHECK_TOP_LINKS)
		r->top[r->ntop++] = l;
	else if (cmp_link(&l, &r->top[r->ntop - 1]) < 0)
		r->top[r->ntop - 1] = l;
	else
		return;
	qsort(r->top, r->ntop, sizeof(r->top[0]), cmp_link);
}

void check_sum_links(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_report *r = w->r;
	uint64_t total = 0;

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			struct kr_check_link l = { s, r->link_load[s] };

			if (f->peer[s] < 0 || !kr_is_switch(f, f->owner[f->peer[s]]))
				continue;
			r->nlinks++;
			total += l.load;
			if (l.load > r->load_max)
				r->load_max = l.load;
			if (l.load)
				keep_top(r, l);
		}
	r->load_mean = r->nlinks ? (double)total / r->nlinks : 0;
}

void check_sum_vls(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_report *r = w->r;

	for (uint32_t k = 0; k < w->ncls; k++)
		for (uint32_t i = 0; i < w->cls[k].n; i++)
			r->vl_mask[w->member[w->cls[k].first + i]] |=
				w->cls[k].vl0_mask;
	for (uint32_t s = 0; s < f->nport; s++) {
		uint16_t m = r->vl_mask[s];

		if (f->oper_vls[s] && f->oper_vls[s] < 16 && m >> f->oper_vls[s])
			r->oper_vl_ports++;
		for (unsigned vl = 0; vl < 16; vl++)
			if (m >> vl & 1) {
				r->channels++;
				if (vl > r->max_vl)
					r->max_vl = vl;
			}
	}
}

/* Assumptions no walk needs to find: maps, LIDs. */
static bool map_missing(const struct walk *w, uint32_t sw, unsigned out)
{
	const struct kr_fabric *f = w->f;

	for (unsigned in = 0; in <= f->nports[sw]; in++) {
		bool used = in ? in != out && f->peer[f->port0[sw] + in] >= 0
			       : w->o->switch_sources;

		if (used && check_map_why(w, sw, in, out))
			return true;
	}
	return false;
}

static void count_maps(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	struct kr_check_assumed *a = &w->r->assumed;

	for (uint32_t n = 0; n < f->nnode; n++)
		for (unsigned p = 1; p <= f->nports[n]; p++) {
			if (f->peer[f->port0[n] + p] < 0)
				continue;
			a->ports++;
			if (kr_is_switch(f, n) ? map_missing(w, n, p)
					       : check_map_why(w, n, p, p) != 0)
				a->map_ports++;
		}
}

static void count_lids(struct walk *w)
{
	const struct kr_fabric *f = w->f;
	const struct kr_tables *t = w->t;
	struct kr_check_assumed *a = &w->r->assumed;

	for (uint32_t s = 0; s < f->nport; s++)
		if (!f->lid[s] && (kr_is_switch(f, f->owner[s])
				   ? s == f->port0[f->owner[s]]
				   : s != f->port0[f->owner[s]] && f->peer[s] >= 0))
			a->ports_no_lid++;
	for (unsigned lid = 1; lid < t->stride; lid++) {
		if (kr_port_by_lid(f, lid) != KR_NONE)
			continue;
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			if (kr_lft_port(t, sw, lid) != KR_NO_PORT) {
				a->lids_no_port++;
				break;
			}
	}
}

void check_count_assumed(struct walk *w)
{
	const struct kr_tables *t = w->t;

	const struct kr_check_assumed *a = &w->r->assumed;

	count_maps(w);
	count_lids(w);
	if (t->sl_given && t->dlid_sl)
		for (unsigned lid = 1; lid < t->stride; lid++)
			if (t->sl_given[lid] != KR_SL_ALL && t->dlid_sl[lid] &&
			    kr_port_by_lid(w->f, lid) != KR_NONE)
				w->r->assumed.sl_nonzero = 1;
	for (size_t i = 0; i < t->nmgroup; i++)
		w->r->assumed.groups_sl += !t->mgroup[i].sl_given;
	/* records of what was given, all of it given: nothing assumed */
	if (!a->map_ports && !a->sl_pairs[0] && !a->sl_pairs[1] &&
	    !a->lids_no_port && !a->ports_no_lid && !a->groups_sl)
		w->r->exact = 1;
}

/* The witness: channels of g->cycle and, per dependency, the tag and
 * assumptions the full graph has for it. */
static int take_cycle(struct walk *w, struct kr_check_class *cl,
		      const struct kr_cdg *g)
{
	cl->cycle = calloc((size_t)g->ncycle + 1, sizeof(*cl->cycle));
	if (!cl->cycle)
		return KR_ENOMEM;
	cl->ncycle = g->ncycle;
	for (uint32_t i = 0; i < g->ncycle; i++) {
		uint32_t n = g->cycle[i], next = g->cycle[(i + 1) % g->ncycle];
		uint32_t e = kr_cdg_find(&w->g, n, next), tag = w->g.tag[e];
		uint8_t why = w->exact || (w->eflag[e] & EDGE_PROVEN)
				      ? 0 : w->eflag[e];
		bool seen = false;

		cl->cycle[i] = (struct kr_check_chan){
			.slot = n % w->f->port0[w->f->nsw],
			.vl = (uint8_t)(n / w->f->port0[w->f->nsw]),
			.assumed = why, .slid = (uint16_t)(tag >> 16),
			.dlid = (uint16_t)tag };
		/* a group's SL is one, whichever member's copy it is */
		for (uint32_t j = 0; j < i; j++)
			seen |= (cl->cycle[j].assumed & KR_CHECK_ASSUMED_SL) &&
				cl->cycle[j].dlid == cl->cycle[i].dlid &&
				(cl->cycle[i].dlid >= KR_MLID_FIRST ||
				 cl->cycle[j].slid == cl->cycle[i].slid);
		if ((why & KR_CHECK_ASSUMED_SL) && !seen)
			cl->loop_sl_pairs++;
		if (why & KR_CHECK_ASSUMED_MAP)
			cl->loop_map_deps++;
	}
	return KR_OK;
}

/* The graph of proven dependencies alone: a subgraph of the real one
 * whatever the assumed values are, so a cycle in it is a real credit
 * loop. */
static int proven_cycle(struct walk *w, struct kr_cdg *p)
{
	const struct kr_cdg *g = &w->g;
	int rc = kr_cdg_init(p, g->nnode);

	for (uint32_t e = 0; !rc && e < g->nedge; e++)
		if (w->eflag[e] & EDGE_PROVEN &&
		    kr_cdg_add(p, g->from[e], g->to[e], g->tag[e]) < 0)
			rc = KR_ENOMEM;
	return rc ? rc : kr_cdg_order(p);
}

int check_class_loop(struct walk *w, unsigned k)
{
	struct kr_check_class *cl = &w->r->cls[k];
	struct kr_cdg p = { 0 };
	int rc = kr_cdg_order(&w->g);

	if (rc != KR_ECYCLE)
		return rc;
	if (w->exact) {
		cl->loop = KR_LOOP_PROVEN;
		return take_cycle(w, cl, &w->g);
	}
	rc = proven_cycle(w, &p);
	if (rc == KR_ECYCLE) {
		cl->loop = KR_LOOP_PROVEN;
		rc = take_cycle(w, cl, &p);
	} else if (rc == KR_OK) {
		cl->loop = KR_LOOP_ASSUMED;
		rc = take_cycle(w, cl, &w->g);
	}
	kr_cdg_free(&p);
	return rc;
}
