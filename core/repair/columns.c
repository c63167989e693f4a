/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The repair's state: destination columns (one LFT column per LID,
 * transposed once), the sources, and which switches a repair routed anew. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_route.h"
#include "repair_int.h"

int repair_dest_of(const struct repair *r, unsigned lid, struct rdest *x)
{
	const struct kr_fabric *f = r->f;
	uint32_t port = kr_port_by_lid(f, lid), node;

	if (port == KR_NONE)
		return 0;
	node = f->owner[port];
	x->lid = lid;
	x->ca_port = KR_NONE;
	if (kr_is_switch(f, node)) {
		x->target = node;
		x->local = 0;
		return 1;
	}
	if (f->peer[port] < 0 || !kr_is_switch(f, f->owner[f->peer[port]]))
		return 0;
	x->target = f->owner[f->peer[port]];
	x->local = kr_port_num(f, (uint32_t)f->peer[port]);
	x->ca_port = port;
	return 1;
}

/* The LFTs by destination: every pass reads them a column at a time, and
 * a row-major column is one cache line per switch. */
int repair_transpose_lfts(struct repair *r)
{
	const uint8_t *lft = r->t->lft;
	enum { B = 64 };

	if (!(r->bylid = malloc((size_t)r->stride * r->nsw + 1)))
		return KR_ENOMEM;
	for (uint32_t s0 = 0; s0 < r->nsw; s0 += B)
		for (uint32_t l0 = 0; l0 < r->stride; l0 += B)
			for (uint32_t s = s0; s < s0 + B && s < r->nsw; s++)
				for (uint32_t l = l0; l < l0 + B && l < r->stride; l++)
					r->bylid[(size_t)l * r->nsw + s] =
						lft[(size_t)s * r->stride + l];
	return KR_OK;
}

void repair_get_column(const struct repair *r, unsigned lid, uint8_t *col)
{
	memcpy(col, r->bylid + (size_t)lid * r->nsw, r->nsw);
}

/* Writes the column of a repaired destination back, once: what it
 * changes are kr_route's entries, which out->fixes records. Adds how many
 * to *changed. */
int repair_put_column(struct repair *r, unsigned lid, const uint8_t *col,
		      uint64_t *changed)
{
	struct kr_tables_patch *o = r->out;
	uint8_t *c = r->bylid + (size_t)lid * r->nsw;

	if (kr_grow(&o->fixes, &r->fixes_cap, o->nfixes + r->nsw,
		    sizeof(*o->fixes)))
		return KR_ENOMEM;
	for (uint32_t s = 0; s < r->nsw; s++)
		if (c[s] != col[s]) {
			c[s] = col[s];
			o->fixes[o->nfixes++] = (struct kr_lft_fix){
				s, (uint16_t)lid, col[s] };
			++*changed;
		}
	return KR_OK;
}

/* CA ports with a LID, listed by the switch they hang off: the sources. */
static int list_sources(struct repair *r)
{
	const struct kr_fabric *f = r->f;
	uint32_t *fill;

	r->src_start = calloc(r->nsw + 2, sizeof(uint32_t));
	r->src_port = malloc((f->nport + 1) * sizeof(uint32_t));
	if (!r->src_start || !r->src_port)
		return KR_ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		fill = r->src_start + 1;
		for (uint32_t s = f->port0[f->nsw]; s < f->nport; s++) {
			uint32_t sw;

			if (!f->lid[s] || f->peer[s] < 0)
				continue;
			sw = f->owner[f->peer[s]];
			if (!kr_is_switch(f, sw))
				continue;
			if (pass == 0)
				fill[sw]++;
			else
				r->src_port[r->src_start[sw]++] = s;
		}
		if (pass == 0) {
			for (uint32_t sw = 0; sw < r->nsw; sw++)
				fill[sw + 1] += fill[sw];
		} else {	/* the fill pass moved every start one list on */
			memmove(r->src_start + 1, r->src_start,
				r->nsw * sizeof(uint32_t));
			r->src_start[0] = 0;
		}
	}
	return KR_OK;
}

static int by_key(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* r->by_place, the switches by where they sit (kr_topo_place, which
 * names every switch apart), and every switch's links in that order of
 * their far ends (insertion sort: a switch has a few dozen links), so
 * that searches taking the first of equals do not follow the numbering. */
static int order_by_place(struct repair *r)
{
	uint64_t *key = malloc((r->nsw + 1) * sizeof(*key));
	uint32_t *rank = r->cnt;	/* scratch until the ranks */

	if (!key || !(r->by_place = malloc((r->nsw + 1) * sizeof(uint32_t)))) {
		free(key);
		return KR_ENOMEM;
	}
	for (uint32_t s = 0; s < r->nsw; s++)	/* below 2^48 * 2^16 */
		key[s] = kr_topo_place(r->topo, s) * r->nsw + s;
	qsort(key, r->nsw, sizeof(*key), by_key);
	for (uint32_t i = 0; i < r->nsw; i++) {
		r->by_place[i] = (uint32_t)(key[i] % r->nsw);
		rank[r->by_place[i]] = i;
	}
	free(key);
	for (uint32_t u = 0; u < r->nsw; u++)
		for (uint32_t l = r->link_start[u] + 1; l < r->link_start[u + 1]; l++) {
			uint32_t to = r->link_to[l], j = l;
			uint8_t port = r->link_port[l];

			for (; j > r->link_start[u] &&
			       rank[r->link_to[j - 1]] > rank[to]; j--) {
				r->link_to[j] = r->link_to[j - 1];
				r->link_port[j] = r->link_port[j - 1];
			}
			r->link_to[j] = to;
			r->link_port[j] = port;
		}
	return KR_OK;
}

/* r->link_*: every switch's links to other switches, as repair_next
 * sees them (order_by_place orders them). */
static int list_links(struct repair *r)
{
	const struct kr_fabric *f = r->f;
	uint32_t n = 0;

	if (!(r->next_sw = malloc((f->port0[r->nsw] + 1) * sizeof(uint32_t))) ||
	    !(r->link_start = malloc((r->nsw + 1) * sizeof(uint32_t))))
		return KR_ENOMEM;
	for (uint32_t u = 0; u < r->nsw; u++)
		for (unsigned p = 0; p <= f->nports[u]; p++)
			r->next_sw[f->port0[u] + p] =
				kr_updn_next(f, r->topo, u, p);
	for (int fill = 0; fill < 2; fill++, n = 0) {
		for (uint32_t u = 0; u < r->nsw; u++) {
			r->link_start[u] = n;
			for (unsigned p = 1; p <= r->f->nports[u]; p++) {
				uint32_t v = repair_next(r, u, p);

				if (v == KR_NONE)
					continue;
				if (fill) {
					r->link_to[n] = v;
					r->link_port[n] = (uint8_t)p;
				}
				n++;
			}
		}
		r->link_start[r->nsw] = n;
		if (!fill && (!(r->link_to = malloc((n + 1) * sizeof(uint32_t))) ||
			      !(r->link_port = malloc(n + 1))))
			return KR_ENOMEM;
	}
	return KR_OK;
}

int repair_setup(struct repair *r)
{
	uint32_t nsw = r->nsw;

	r->col = malloc(nsw + 1);
	r->lvl = malloc(nsw + 1);
	r->memo_buf = malloc(3 * MEMO_WAYS * (size_t)nsw + 1);
	r->memo_dist = malloc((MEMO_WAYS * (size_t)nsw + 1) * sizeof(uint32_t));
	r->memo_target = KR_NONE;
	r->live_target = KR_NONE;
	r->outvl = malloc((nsw + 1) * sizeof(*r->outvl));
	r->moved = calloc(nsw + 1, 1);
	r->carrier = malloc(nsw + 1);
	r->seed = malloc(nsw + 1);
	r->held_sl = malloc(nsw + 1);
	r->off_all = calloc((size_t)KR_NSL * nsw + 1, 1);
	r->off_anchor = r->off_all;
	if ((r->pair_sl = malloc(r->stride + 1)))
		memset(r->pair_sl, KR_NO_SL, r->stride + 1);
	r->isw = malloc((nsw + 1) * sizeof(uint32_t));
	r->isw_of = malloc((nsw + 1) * sizeof(uint32_t));
	uint32_t **arr[] = { &r->dist, &r->cost, &r->live, &r->queue,
			     &r->order, &r->cnt, &r->rank, &r->comp };

	for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++)
		if (!(*arr[i] = malloc((nsw + 1) * sizeof(uint32_t))))
			return KR_ENOMEM;
	if (!r->col || !r->lvl || !r->outvl || !r->moved || !r->carrier ||
	    !r->seed || !r->held_sl || !r->off_all || !r->pair_sl ||
	    !r->isw || !r->isw_of || !r->memo_buf || !r->memo_dist)
		return KR_ENOMEM;
	for (uint32_t s = 0; s < nsw; s++)
		r->isw_of[s] = KR_NONE;
	/* in grid order: the search keeps the first of equal candidates */
	for (uint32_t pos = 0; pos < r->topo->npos; pos++) {
		int32_t s = r->topo->pos_sw[pos];

		if (s >= 0 && r->f->lid[r->f->port0[s]]) {
			r->isw_of[s] = r->ni;
			r->isw[r->ni++] = (uint32_t)s;
		}
	}
	if (list_links(r) || order_by_place(r))
		return KR_ENOMEM;
	return list_sources(r);
}

void repair_teardown(struct repair *r)
{
	free(r->next_sw);
	free(r->src_start);
	free(r->src_port);
	free(r->link_start);
	free(r->link_to);
	free(r->link_port);
	free(r->by_place);
	free(r->isw);
	free(r->isw_of);
	free(r->hops);
	free(r->first);
	free(r->arrive);
	free(r->col);
	free(r->lvl);
	free(r->memo_buf);
	free(r->lids);
	free(r->memo_dist);
	free(r->dist);
	free(r->cost);
	free(r->live);
	free(r->queue);
	free(r->order);
	free(r->cnt);
	free(r->outvl);
	free(r->moved);
	free(r->carrier);
	free(r->seed);
	free(r->held_sl);
	free(r->held);
	free(r->prev_row);
	free(r->kept_at);
	free(r->kept_buf);
	free(r->off_all);
	free(r->bylid);
	free(r->pair_sl);
	free(r->pairs);
	free(r->rank);
	free(r->comp);
	free(r->up_port);
	free(r->seen);
	free(r->camask);
	kr_cdg_free(&r->g);
}

/* Marks the switches x's repair routed anew: only their CAs' traffic is
 * not already in the graph, which holds x's surviving routes (see
 * add_surviving). */
void repair_mark_repaired(struct repair *r)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		r->moved[s] = r->lvl[s] != LVL_GOOD && r->dist[s] != UNREACHED;
}
