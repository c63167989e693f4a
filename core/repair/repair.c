/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault repair, destination by destination (kr_repair.h has the idea).
 *
 * The intermediates are found without enumerating paths: hops[S][I] holds
 * the length of the dimension-order path from S to router I (the LFT
 * column of I's own LID) or HOPS_CUT, computed once per repair. A cut
 * switch S then takes, among the routers I already routed with fewer
 * intermediates, the one with the fewest hops(S, I) + hops of I's route,
 * and its entry is S's entry towards I. Every switch on that path towards
 * I has the same I to offer with fewer hops, so the planned cost falls
 * along each repaired route until it meets a surviving one: no loops. */
#include "kr_repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr_route.h"
#include "repair_int.h"

static int dest_of(const struct repair *r, unsigned lid, struct rdest *x)
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
static int transpose_lfts(struct repair *r)
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

static void get_column(const struct repair *r, unsigned lid, uint8_t *col)
{
	memcpy(col, r->bylid + (size_t)lid * r->nsw, r->nsw);
}

/* Writes the column of a repaired destination back (both copies), once:
 * what it changes are kr_route's entries, which t->fixes records. Adds
 * how many to *changed. */
static int put_column(struct repair *r, unsigned lid, const uint8_t *col,
		      uint64_t *changed)
{
	struct kr_tables *t = r->t;
	uint8_t *c = r->bylid + (size_t)lid * r->nsw;

	if (t->nfixes + r->nsw > r->fixes_cap) {
		size_t cap = 2 * r->fixes_cap + r->nsw;
		struct kr_lft_fix *p = realloc(t->fixes, cap * sizeof(*p));

		if (!p)
			return KR_ENOMEM;
		t->fixes = p;
		r->fixes_cap = cap;
	}
	for (uint32_t s = 0; s < r->nsw; s++)
		if (c[s] != col[s]) {
			c[s] = col[s];
			t->lft[(size_t)s * r->stride + lid] = col[s];
			t->fixes[t->nfixes++] = (struct kr_lft_fix){
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

static int setup(struct repair *r)
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
	r->off_anchor = calloc(nsw + 1, 1);
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
	    !r->seed || !r->held_sl ||
	    !r->off_anchor ||
	    !r->pair_sl || !r->isw || !r->isw_of || !r->memo_buf ||
	    !r->memo_dist)
		return KR_ENOMEM;
	for (uint32_t s = 0; s < nsw; s++) {
		r->isw_of[s] = KR_NONE;
		if (r->topo->sw_pos[s] != KR_NONE && r->f->lid[r->f->port0[s]]) {
			r->isw_of[s] = r->ni;
			r->isw[r->ni++] = s;
		}
	}
	return list_sources(r);
}

static void teardown(struct repair *r)
{
	free(r->src_start);
	free(r->src_port);
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
	free(r->off_anchor);
	free(r->bylid);
	free(r->pair_sl);
	free(r->pairs);
	free(r->rank);
	free(r->comp);
	free(r->seen);
	free(r->camask);
	kr_cdg_free(&r->g);
}

/* The direction of the port by which a packet from u over port p (linked
 * to a switch) enters it. */
static unsigned arrival_dir(const struct repair *r, uint32_t u, unsigned p)
{
	return r->topo->port_dir[r->f->peer[r->f->port0[u] + p]];
}

/* The direction of the port by which s's packets along r->col enter
 * x's target (KR_DIR_NONE: s is the target, or cut off). */
static unsigned arrival_at(const struct repair *r, uint32_t s,
			   const struct rdest *x)
{
	uint32_t u = s, v;

	if (r->dist[s] == UNREACHED || s == x->target)
		return KR_DIR_NONE;
	while ((v = repair_next(r, u, r->col[u])) != x->target)
		u = v;
	return arrival_dir(r, u, r->col[u]);
}

/* hops[S][I] for every switch S and intermediate I, and where S's
 * dimension-order path enters I. */
static int build_hops(struct repair *r)
{
	uint32_t ni = r->ni;

	r->hops = malloc((size_t)r->nsw * ni + 1);
	r->first = malloc((size_t)r->nsw * ni + 1);
	r->arrive = malloc((size_t)r->nsw * ni + 1);
	if (!r->hops || !r->first || !r->arrive)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < ni; i++) {
		struct rdest x = { .target = r->isw[i], .local = 0 };

		get_column(r, r->f->lid[r->f->port0[x.target]], r->col);
		repair_walk(r, r->col, &x, r->dist);
		for (uint32_t s = 0; s < r->nsw; s++) {
			r->hops[(size_t)s * ni + i] = r->dist[s] < HOPS_CUT ?
				(uint8_t)r->dist[s] : HOPS_CUT;
			r->first[(size_t)s * ni + i] = r->col[s];
			r->arrive[(size_t)s * ni + i] = arrival_at(r, s, &x);
		}
	}
	return KR_OK;
}

/* Dimensions above d in which grid positions a and b differ. */
static unsigned differ_above(const struct kr_topo *t, uint32_t a, uint32_t b,
			     unsigned d)
{
	unsigned n = 0;

	for (unsigned e = d + 1; e < t->ndim; e++)
		n += kr_topo_coord(t, a, e) != kr_topo_coord(t, b, e);
	return n;
}

static int add_fault(struct kr_missing_link **fault, uint32_t *n,
		     uint32_t *cap, uint32_t pos, unsigned dim)
{
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 16;
		void *p = realloc(*fault, c * sizeof(**fault));

		if (!p)
			return KR_ENOMEM;
		*fault = p;
		*cap = c;
	}
	(*fault)[(*n)++] = (struct kr_missing_link){ .pos = pos,
						     .dim = (uint8_t)dim };
	return KR_OK;
}

/* The faults as (position, dimension): recognition's missing links and
 * switches (a dead router in every dimension), and grid ports that lost
 * their link since (the plugin's topology may be a sweep old). */
static int list_faults(const struct repair *r, struct kr_missing_link **fault,
		       uint32_t *n)
{
	const struct kr_topo *t = r->topo;
	const struct kr_fabric *f = r->f;
	uint32_t cap = 0;
	int rc = KR_OK;

	for (uint32_t i = 0; i < t->nmissing_link && !rc; i++)
		rc = add_fault(fault, n, &cap, t->missing_link[i].pos,
			       t->missing_link[i].dim);
	for (uint32_t i = 0; i < t->nmissing_sw && !rc; i++)
		for (unsigned d = 0; d < t->ndim && !rc; d++)
			if (t->missing_sw[i].xdim == KR_NO_DIM ||
			    t->missing_sw[i].xdim == d)
				rc = add_fault(fault, n, &cap,
					       t->missing_sw[i].pos, d);
	for (uint32_t s = 0; s < r->nsw && !rc; s++)
		for (uint32_t slot = f->port0[s] + 1; !rc &&
		     t->sw_pos[s] != KR_NONE && slot < f->port0[s + 1]; slot++)
			if (t->port_dir[slot] < 2 * KR_MAX_DIM && f->peer[slot] < 0)
				rc = add_fault(fault, n, &cap, t->sw_pos[s],
					       t->port_dir[slot] >> 1);
	return rc;
}

/* The anchor: a fault in dimension d is detoured by a turn into d at a
 * router sharing the anchor's coordinates above d, so the anchor should
 * differ from the fault there (else that plane holds the fault), and in
 * one dimension only (each more is a hop up to the plane and one back). */
static int choose_anchor(struct repair *r)
{
	const struct kr_topo *t = r->topo;
	struct kr_missing_link *fault = NULL;
	uint32_t nfault = 0;
	uint64_t best = UINT64_MAX;
	int rc = list_faults(r, &fault, &nfault);

	r->anchor = 0;
	for (uint32_t c = 0; c < t->npos && nfault && !rc; c++) {
		uint64_t in_plane = 0, climb = 0;

		for (uint32_t i = 0; i < nfault; i++) {
			unsigned n = differ_above(t, c, fault[i].pos, fault[i].dim);

			in_plane += fault[i].dim + 1u < t->ndim && !n;
			climb += n > 1 ? n - 1 : 0;
		}
		if ((in_plane << 32 | climb) < best) {
			best = in_plane << 32 | climb;
			r->anchor = c;
		}
	}
	free(fault);
	/* each switch's highest dimension off the anchor, for turn_ok */
	for (uint32_t u = 0; u < r->nsw; u++) {
		r->off_anchor[u] = 0;
		for (unsigned d = 0; t->sw_pos[u] != KR_NONE && d < t->ndim; d++)
			if (kr_topo_coord(t, t->sw_pos[u], d) !=
			    kr_topo_coord(t, r->anchor, d))
				r->off_anchor[u] = (uint8_t)(d + 1);
	}
	return rc;
}

/* Shortest hops from every switch to the target over live links; kept
 * for the next destination on the same switch. */
static void live_distances(struct repair *r, uint32_t target)
{
	uint32_t head = 0, tail = 0;

	if (r->live_target == target)
		return;
	r->live_target = target;
	for (uint32_t s = 0; s < r->nsw; s++)
		r->live[s] = UNREACHED;
	r->live[target] = 0;
	r->queue[tail++] = target;
	while (head < tail) {
		uint32_t u = r->queue[head++];

		for (unsigned p = 1; p <= r->f->nports[u]; p++) {
			uint32_t v = repair_next(r, u, p);

			if (v != KR_NONE && r->live[v] == UNREACHED) {
				r->live[v] = r->live[u] + 1;
				r->queue[tail++] = v;
			}
		}
	}
}

/* A grid switch's dimension and sign of a port, or KR_DIR_NONE. */
static unsigned port_dir(const struct repair *r, uint32_t sw, unsigned port)
{
	return port && port <= r->f->nports[sw] ?
	       r->topo->port_dir[r->f->port0[sw] + port] : KR_DIR_NONE;
}

/* Whether a turn at switch u, arriving by a port of direction din and
 * leaving by port out, is one an anchored column may use. Dimension-order
 * turns climb dimensions; a turn into a lower dimension d is kept to
 * routers agreeing with r->anchor in every dimension above d. Between two
 * such turns a cycle would have to climb, leaving the anchor's coordinates
 * above d, and then meet a router holding them again: it cannot, so these
 * turns close no loop on one VL, whatever the classes (docs/design.md,
 * "SL stability"). Going straight on where two dimension-order paths
 * join runs further along a ring than either path would, past what the
 * ring's VL bits planned for: it counts as a turn into that dimension.
 * A turn into a KNS crossbar's own LID is exempt: its VL carries only
 * such last hops, so no channel waits on it. */
static int turn_ok(const struct repair *r, uint32_t u, unsigned din,
		   unsigned out, uint32_t target, int junction)
{
	const struct kr_topo *t = r->topo;
	unsigned dout = port_dir(r, u, out);

	if (t->sw_pos[u] == KR_NONE || din >= 2 * KR_MAX_DIM ||
	    dout >= 2 * KR_MAX_DIM ||
	    (repair_next(r, u, out) == target && t->sw_pos[target] == KR_NONE) ||
	    (din >> 1) < (dout >> 1))
		return 1;
	if (din == dout)
		return 0;	/* back the way it came */
	if ((din >> 1) == (dout >> 1) && !junction)
		return 1;	/* straight on along a dimension-order path */
	return r->off_anchor[u] <= (dout >> 1) + 1u;
}


/* r->carrier: CARRIES for switches whose entries in r->col carry traffic,
 * from a CA on them or behind them, and the target; DEMOTED for unused
 * entries an anchored column re-pointed. */
#define CARRIES 1
#define DEMOTED 2

static void mark_carriers(struct repair *r, uint32_t target)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		r->carrier[s] &= (uint8_t)~CARRIES;
	r->carrier[target] |= CARRIES;
	for (uint32_t s = 0; s < r->nsw; s++)
		for (uint32_t u = s; r->src_start[s + 1] > r->src_start[s] &&
		     u != KR_NONE && !(r->carrier[u] & CARRIES) &&
		     r->dist[u] != UNREACHED; u = repair_next(r, u, r->col[u]))
			r->carrier[u] |= CARRIES;
}

/* An anchored route planned through a switch that then found no anchored
 * intermediate is incomplete: general repair, which points each switch at
 * one with a whole route, takes over from there. */
static void unroute_incomplete(struct repair *r, const struct rdest *x)
{
	int any = 0;

	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->lvl[s] == LVL_NONE && r->live[s] != UNREACHED) {
			r->col[s] = KR_NO_PORT;
			any = 1;
		}
	if (!any)
		return;
	repair_walk(r, r->col, x, r->dist);
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->lvl[s] != LVL_GOOD && r->dist[s] == UNREACHED)
			r->lvl[s] = LVL_NONE;
}

/* A good switch no packet passes: an anchored plan may run through it as
 * if it were not there (a crossbar's own dimension-order route climbs back
 * down, so a detour following it would inherit that turn). */
static int transparent(const struct repair *r, uint32_t u)
{
	return r->lvl[u] == LVL_GOOD && !(r->carrier[u] & CARRIES);
}

/* Whether s may take intermediate I (the vi-th) in an anchored column: the
 * turns at s of the traffic routed switches send it, and every turn of the
 * route s's packets then really take (the plan to I until a routed switch,
 * that switch's entries after it) must be turn_ok. */
static int anchored_ok(const struct repair *r, uint32_t s, uint32_t vi,
		       uint32_t target)
{
	const uint8_t *first = r->first + vi;
	uint32_t in = r->isw[vi], u = s;
	unsigned din = KR_DIR_NONE, out = first[(size_t)s * r->ni];
	int planned = 1;

	for (unsigned p = 1; p <= r->f->nports[s]; p++) {
		uint32_t w = repair_next(r, s, p);

		if (w != KR_NONE && r->lvl[w] != LVL_NONE &&
		    repair_next(r, w, r->col[w]) == s &&
		    !turn_ok(r, s, r->topo->port_dir[r->f->port0[s] + p], out,
			     target, 1))
			return 0;
	}
	for (unsigned step = 0; u != target; step++) {
		int junction = planned && u != s && (u == in ||
			       (r->lvl[u] != LVL_NONE && !transparent(r, u)));

		planned &= !junction;
		out = planned ? first[(size_t)u * r->ni] : r->col[u];
		if ((step && u == s) || step > r->nsw ||
		    repair_next(r, u, out) == KR_NONE ||
		    !turn_ok(r, u, din, out, target, junction))
			return 0;	/* back at s: a loop; or cut */
		din = arrival_dir(r, u, out);
		u = repair_next(r, u, out);
	}
	return 1;
}

/* s took I (the vi-th) at level lvl: the unused good switches its plan
 * runs through now follow the plan too, with the plan's falling cost. */
static void repoint_plan(struct repair *r, uint32_t s, uint32_t vi,
			 unsigned lvl)
{
	uint32_t in = r->isw[vi];

	for (uint32_t u = repair_next(r, s, r->first[(size_t)s * r->ni + vi]);
	     u != KR_NONE && u != in && transparent(r, u);
	     u = repair_next(r, u, r->col[u])) {
		r->col[u] = r->first[(size_t)u * r->ni + vi];
		r->lvl[u] = (uint8_t)lvl;
		r->cost[u] = r->hops[(size_t)u * r->ni + vi] + r->cost[in];
		r->carrier[u] |= DEMOTED;
		r->repointed = 1;
	}
}

/* Level lvl: every unrouted switch with a fault-free dimension-order path
 * to an intermediate routed at a lower level (R1, R2; R3 at level 2). */
static void route_via_intermediates(struct repair *r, unsigned lvl,
				    uint32_t target)
{
	uint32_t ni = r->ni;

	for (uint32_t s = 0; s < r->nsw; s++) {
		const uint8_t *h = r->hops + (size_t)s * ni;
		uint32_t best = UNREACHED, via = KR_NONE, vi = 0;

		if (r->lvl[s] != LVL_NONE || r->live[s] == UNREACHED)
			continue;
		for (uint32_t i = 0; i < ni && best > r->live[s]; i++) {
			uint32_t in = r->isw[i], c;

			if (h[i] == HOPS_CUT || r->lvl[in] >= lvl)
				continue;
			c = h[i] + r->cost[in];
			if (c >= best)
				continue;
			/* the turn at I rules most out before a walk */
			if (r->anchored &&
			    (!turn_ok(r, in, r->arrive[(size_t)s * ni + i],
				      r->col[in], target, 1) ||
			     !anchored_ok(r, s, i, target)))
				continue;
			best = c;
			via = in;
			vi = i;
		}
		if (via == KR_NONE)
			continue;
		r->lvl[s] = (uint8_t)lvl;
		r->cost[s] = best;
		r->col[s] = r->first[(size_t)s * ni + vi];
		if (r->anchored)
			repoint_plan(r, s, vi, lvl);
	}
}

/* Whether packets entering u from direction din and following the column
 * from there turn only where an anchored column may. */
static int onward_ok(const struct repair *r, uint32_t u, unsigned din,
		     uint32_t target)
{
	for (uint32_t step = 0; u != target; step++) {
		unsigned out = r->col[u];

		if (step > r->nsw || repair_next(r, u, out) == KR_NONE ||
		    !turn_ok(r, u, din, out, target, step == 0))
			return 0;
		din = arrival_dir(r, u, out);
		u = repair_next(r, u, out);
	}
	return 1;
}

/* Last resort: shortest live paths to any routed switch, layer by layer,
 * so each new entry points at a switch routed before it; in an anchored
 * column first only where the packets' onward turns are anchored too.
 * Routed switches with no unrouted neighbour can route nothing, so the
 * search starts from the others alone (in the same order). */
static void route_general(struct repair *r, uint32_t target, int anchored)
{
	const struct kr_fabric *f = r->f;
	uint32_t head = 0, tail = 0, left = 0;
	uint8_t *seed = r->seed;

	memset(seed, 0, r->nsw);
	for (uint32_t s = 0; s < r->nsw; s++) {
		if (r->lvl[s] != LVL_NONE || r->live[s] == UNREACHED)
			continue;
		left++;
		for (unsigned p = 1; p <= f->nports[s]; p++) {
			uint32_t u = repair_next(r, s, p);

			if (u != KR_NONE && r->lvl[u] != LVL_NONE)
				seed[u] = 1;
		}
	}
	for (uint32_t s = 0; s < r->nsw && left; s++)
		if (seed[s])
			r->queue[tail++] = s;
	while (left && head < tail) {
		uint32_t u = r->queue[head++];

		for (unsigned p = 1; p <= f->nports[u]; p++) {
			uint32_t v = repair_next(r, u, p);

			if (v == KR_NONE || r->lvl[v] != LVL_NONE ||
			    (anchored && !onward_ok(r, u, port_dir(r, u, p),
						    target)))
				continue;
			r->lvl[v] = LVL_GENERAL;
			left--;
			r->cost[v] = r->cost[u] + 1;
			r->col[v] = (uint8_t)kr_port_num(f,
				(uint32_t)f->peer[f->port0[u] + p]);
			r->queue[tail++] = v;
		}
	}
}

/* Entries an anchored column re-pointed but no packet uses after all
 * return to dimension order: fewer LFT blocks change, no route does. */
static void restore_unused(struct repair *r, const struct rdest *x)
{
	if (!r->repointed)
		return;
	mark_carriers(r, x->target);
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->carrier[s] == DEMOTED) {
			r->col[s] = r->bylid[(size_t)x->lid * r->nsw + s];
			r->lvl[s] = LVL_GOOD;
		}
	repair_walk(r, r->col, x, r->dist);
}

/* Whether the path nodes p[a..b] follow the dimension-order route to
 * p[b], the vi-th intermediate, from p[a] (R1, R2 of the thesis). */
static int follows_dor(const struct repair *r, const uint32_t *p, uint32_t a,
		       uint32_t b, uint32_t vi)
{
	for (uint32_t k = a; k < b; k++)
		if (r->first[(size_t)p[k] * r->ni + vi] != r->col[p[k]])
			return 0;
	return 1;
}

/* How many intermediates the path s's packets now take amounts to, by its
 * shape: the thesis' dimension-order path to one intermediate (two) and
 * on from there, whatever built it. The last intermediate must route on
 * unchanged (LVL_GOOD); the target itself does not count as one. */
static unsigned path_shape(struct repair *r, uint32_t s, uint32_t target)
{
	uint32_t *p = r->queue, n = 0, g = KR_NONE;

	for (uint32_t u = s; u != KR_NONE && n < r->nsw;
	     u = repair_next(r, u, r->col[u])) {
		if (g == KR_NONE && r->lvl[u] == LVL_GOOD)
			g = n;
		p[n++] = u;
		if (u == target)
			break;
	}
	if (g == KR_NONE || p[n - 1] != target)
		return LVL_GENERAL;
	for (uint32_t j = g; j + 1 < n; j++)
		if (r->isw_of[p[j]] != KR_NONE &&
		    follows_dor(r, p, 0, j, r->isw_of[p[j]]))
			return 1;
	for (uint32_t j = g; j + 1 < n; j++)
		for (uint32_t i = 1; i < j && r->isw_of[p[j]] != KR_NONE; i++)
			if (r->isw_of[p[i]] != KR_NONE &&
			    follows_dor(r, p, 0, i, r->isw_of[p[i]]) &&
			    follows_dor(r, p, i, j, r->isw_of[p[j]]))
				return 2;
	return LVL_GENERAL;
}

/* Each repaired switch counts the intermediates its path's shape shows
 * (see path_shape), up to the configured number: what a switch was routed
 * by need not be what its packets take, as the switches after it may be
 * routed through other intermediates. */
static void classify_paths(struct repair *r, uint32_t target)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->lvl[s] != LVL_GOOD && r->lvl[s] != LVL_NONE &&
		    r->dist[s] != UNREACHED) {
			unsigned k = path_shape(r, s, target);

			r->lvl[s] = (uint8_t)(k <= r->max_int ? k : LVL_GENERAL);
		}
}

/* Points s, and the rerouted switches after it on its dimension-order
 * path to the vi-th intermediate, along that path: their own paths then
 * end on it too. The entries it changed are listed in r->order (old ones
 * in r->seed) for unpoint. */
static uint32_t point_chain(struct repair *r, uint32_t s, uint32_t vi)
{
	uint32_t n = 0, in = r->isw[vi];

	for (uint32_t u = s; u != KR_NONE && u != in &&
	     (u == s || r->lvl[u] != LVL_GOOD) && n < r->nsw;
	     u = repair_next(r, u, r->col[u])) {
		r->order[n++] = u;
		r->seed[u] = r->col[u];
		r->col[u] = r->first[(size_t)u * r->ni + vi];
	}
	return n;
}

static void unpoint(struct repair *r, uint32_t n)
{
	while (n--)
		r->col[r->order[n]] = r->seed[r->order[n]];
}

/* A free column's switches whose packets take more intermediates than
 * allowed (each switch picked its intermediate alone, and the switches
 * after it picked others) are pointed anew, one at a time, along the
 * dimension-order path to the cheapest intermediate whose whole path then
 * keeps within the bound, with the rerouted switches on the way. Those
 * paths end at an unchanged switch, so no loop forms; a switch whose path
 * ran through them is looked at again in the next round. Anchored
 * columns keep their turns. */
static void reshape(struct repair *r, const struct rdest *x)
{
	for (int round = 0; round < 3; round++) {
		int changed = 0;

		for (uint32_t s = 0; s < r->nsw; s++) {
			uint32_t best = UNREACHED, pick = KR_NONE;

			if (r->lvl[s] != LVL_GENERAL || r->dist[s] == UNREACHED ||
			    s == x->target)
				continue;
			for (uint32_t i = 0; i < r->ni; i++) {
				uint32_t in = r->isw[i], n,
					 h = r->hops[(size_t)s * r->ni + i];

				if (h == HOPS_CUT || r->lvl[in] != LVL_GOOD ||
				    r->dist[in] == UNREACHED ||
				    h + r->dist[in] >= best)
					continue;
				n = point_chain(r, s, i);
				if (path_shape(r, s, x->target) <= r->max_int) {
					best = h + r->dist[in];
					pick = i;
				}
				unpoint(r, n);
			}
			if (pick == KR_NONE)
				continue;
			point_chain(r, s, pick);
			repair_walk(r, r->col, x, r->dist);
			classify_paths(r, x->target);
			changed = 1;
		}
		if (!changed)
			return;
	}
}

/* Repairs r->col for x in place; r->lvl says how each switch is routed. */
static void repair_column(struct repair *r, const struct rdest *x,
			  enum col_mode mode)
{
	repair_walk(r, r->col, x, r->dist);
	live_distances(r, x->target);
	r->anchored = mode == COL_ANCHORED;
	if (r->anchored) {
		memset(r->carrier, 0, r->nsw);
		mark_carriers(r, x->target);
		r->repointed = 0;
	}
	for (uint32_t s = 0; s < r->nsw; s++) {
		r->lvl[s] = r->dist[s] != UNREACHED ? LVL_GOOD : LVL_NONE;
		r->cost[s] = r->dist[s];
	}
	/* two levels even when one is allowed: a switch routed through two
	 * intermediates often ends on a path of one's shape */
	for (unsigned lvl = 1; lvl <= 2 && r->max_int && mode != COL_GENERAL;
	     lvl++)
		route_via_intermediates(r, lvl, x->target);
	if (r->anchored) {
		unroute_incomplete(r, x);
		route_general(r, x->target, 1);
	}
	route_general(r, x->target, 0);
	repair_walk(r, r->col, x, r->dist);
	if (r->anchored)
		restore_unused(r, x);
	classify_paths(r, x->target);
	if (mode == COL_FREE)
		reshape(r, x);
}

/* The LIDs of one switch's CAs (and LMC ranges) mostly share one of a few
 * columns but for the last hop (LMC orders, and ring ties where the CA
 * slots split them, route.c): the
 * last few distinct columns of the switch at hand are kept with their
 * repairs, and the SLs their dependencies went in on. r->live still holds
 * the switch's distances then. */
static uint8_t *memo_col(struct repair *r, unsigned way, unsigned which)
{
	return r->memo_buf + ((size_t)way * 3 + which) * r->nsw;
}

enum { MEMO_PRISTINE, MEMO_REPAIRED, MEMO_LVL };

/* Finds x's pristine column (in r->col) among those kept; makes it the
 * current one. */
static int recall(struct repair *r, const struct rdest *x)
{
	uint32_t t = x->target;
	uint8_t keep = r->col[t];

	if (r->memo_target != t) {
		r->memo_target = t;
		r->nmemo = 0;
		return 0;
	}
	for (unsigned w = 0; w < r->nmemo; w++) {
		const uint8_t *p = memo_col(r, w, MEMO_PRISTINE);
		int same;

		r->col[t] = p[t];
		same = !memcmp(r->col, p, r->nsw);
		r->col[t] = keep;
		if (same) {
			r->memo_cur = w;
			return 1;
		}
	}
	return 0;
}

/* Keeps r->col as a new pristine column of x's switch, in the oldest
 * way once all are taken. */
static void remember(struct repair *r, const struct rdest *x)
{
	unsigned w = r->nmemo < MEMO_WAYS ? r->nmemo++ : r->memo_next++ % MEMO_WAYS;

	r->memo_target = x->target;
	r->memo_cur = w;
	memcpy(memo_col(r, w, MEMO_PRISTINE), r->col, r->nsw);
	r->memo_cut[w] = 0;
	memset(r->memo_sls[w], 0, sizeof(r->memo_sls[w]));
	memset(r->memo_bad[w], 0, sizeof(r->memo_bad[w]));
}

/* The current column's repair as x's column, x's own last hop. */
static void reuse_repair(struct repair *r, const struct rdest *x)
{
	memcpy(r->col, memo_col(r, r->memo_cur, MEMO_REPAIRED), r->nsw);
	memcpy(r->lvl, memo_col(r, r->memo_cur, MEMO_LVL), r->nsw);
	memcpy(r->dist, r->memo_dist + (size_t)r->memo_cur * r->nsw,
	       r->nsw * sizeof(*r->dist));
	r->col[x->target] = (uint8_t)x->local;
}

/* x's repair as keep_routes made it, when it kept it: the same column
 * and levels repair_column would make again. */
static bool kept_column(struct repair *r, const struct rdest *x)
{
	const uint8_t *at;

	if (!r->kept_at || r->kept_at[x->lid] == KR_NONE)
		return false;
	at = r->kept_buf + (size_t)r->kept_at[x->lid] * 2 * r->nsw;
	memcpy(r->col, at, r->nsw);
	memcpy(r->lvl, at + r->nsw, r->nsw);
	live_distances(r, x->target);
	repair_walk(r, r->col, x, r->dist);
	return true;
}

static void cached_column(struct repair *r, const struct rdest *x)
{
	if (recall(r, x)) {
		reuse_repair(r, x);
		return;
	}
	remember(r, x);
	if (!kept_column(r, x))
		repair_column(r, x, r->first_mode);
	memcpy(memo_col(r, r->memo_cur, MEMO_REPAIRED), r->col, r->nsw);
	memcpy(memo_col(r, r->memo_cur, MEMO_LVL), r->lvl, r->nsw);
	memcpy(r->memo_dist + (size_t)r->memo_cur * r->nsw, r->dist,
	       r->nsw * sizeof(*r->dist));
}

/* Marks the switches x's repair routed anew: only their CAs' traffic is
 * not already in the graph, which holds x's surviving routes (see
 * add_surviving). */
static void mark_repaired(struct repair *r)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		r->moved[s] = r->lvl[s] != LVL_GOOD && r->dist[s] != UNREACHED;
}

/* Whether the SM node's traffic (the SA's, its PerfMgr's) could not ride
 * r->col. It shares the multicast and up*-down* VL (sm_sl joins the
 * multicast SLs, and the PerfMgr's SL 0 is one unless knsroute.conf says
 * otherwise) but follows the unicast LFTs: the queries and replies
 * to the SM's LID must only climb towards the SM's switch, the root of the
 * ranks, and what it sends to a CA or switch LID only descend from there,
 * or the VL's up*-down* order breaks. Routes
 * that survive faults are shortest, so they do; a repaired column that
 * does not is refused like one closing a loop, and up*-down* (which does,
 * from or to the root) takes x in the end. */
static int sa_refuses(const struct repair *r, const struct rdest *x)
{
	uint32_t u = r->sm_sw, v, n = 0;

	if (u == KR_NONE)
		return 0;
	if (x->lid == r->t->sm_lid) {
		for (u = 0; u < r->nsw; u++)
			if ((v = repair_next(r, u, r->col[u])) != KR_NONE &&
			    r->rank[v] >= r->rank[u])
				return 1;
		return 0;
	}
	if (r->comp[x->target] != r->comp[u])
		return 0;
	for (; u != x->target && n++ < r->nsw; u = v) {
		v = repair_next(r, u, r->col[u]);
		if (v == KR_NONE || r->rank[v] <= r->rank[u])
			return 1;
	}
	return 0;
}

/* The dependencies of x on sl along r->col, from all sources (SRC_ALL) or
 * from the switches the repair routed anew (SRC_MOVED), unless the memo's
 * current column (the same but for the last hop, which adds none) made
 * them already, or they closed a loop then. */
static int deps_once(struct repair *r, const struct rdest *x, unsigned sl,
		     int sources)
{
	int all = sources == SRC_ALL, rc;
	uint16_t *sls = &r->memo_sls[r->memo_cur][all];
	uint16_t *bad = &r->memo_bad[r->memo_cur][all];

	if (r->admitting && sa_refuses(r, x))
		return KR_ECYCLE;
	if (*sls >> sl & 1)
		return KR_OK;
	if (*bad >> sl & 1)
		return KR_ECYCLE;
	if (!all)
		mark_repaired(r);
	rc = repair_deps(r, x, r->col, r->dist, sl, sources);
	if (!rc)
		*sls |= (uint16_t)(1u << sl);
	else if (rc == KR_ECYCLE && r->admitting)
		*bad |= (uint16_t)(1u << sl);
	return rc;
}

/* Pair statistics of a CA destination, from r->dist and r->lvl. */
static void count_pairs(struct repair *r, const struct rdest *x, int repaired,
			int updn, int sl_changed, struct kr_repair_stats *st)
{
	if (x->ca_port == KR_NONE)
		return;		/* management traffic: not a CA-to-CA pair */
	for (uint32_t s = 0; s < r->nsw; s++) {
		uint64_t k = r->src_start[s + 1] - r->src_start[s];
		unsigned kind;

		if (s == x->target)
			k--;	/* the destination's own port */
		if (!k)
			continue;
		st->pairs += k;
		if (sl_changed || (r->pairs_moved && r->moved[s]))
			st->pairs_sl_changed += k;
		if (r->dist[s] == UNREACHED) {
			st->pairs_disconnected += k;
			continue;
		}
		kind = updn ? KR_REPAIR_DETOUR : repaired ? r->lvl[s] :
		       KR_REPAIR_NONE;
		st->paths[kind] += k;
		if (kind != KR_REPAIR_NONE && r->live[s] && r->live[s] != UNREACHED) {
			uint32_t extra = r->dist[s] - r->live[s];
			double ratio = (double)r->dist[s] / r->live[s];

			st->extra_hops_sum += extra * k;
			st->extra_hops_max = extra > st->extra_hops_max ?
					     extra : st->extra_hops_max;
			st->stretch_sum += ratio * (double)k;
			st->stretch_max = ratio > st->stretch_max ?
					  ratio : st->stretch_max;
			st->pairs_repaired += k;
		}
	}
}

static int keep_pair(struct repair *r, unsigned slid, unsigned dlid,
		     unsigned sl)
{
	if (r->npairs == r->cap_pairs) {
		size_t cap = r->cap_pairs ? 2 * r->cap_pairs : 256;
		struct kr_sl_pair *p = realloc(r->pairs, cap * sizeof(*p));

		if (!p)
			return KR_ENOMEM;
		r->pairs = p;
		r->cap_pairs = cap;
	}
	r->pairs[r->npairs++] = (struct kr_sl_pair){ .slid = (uint16_t)slid,
		.dlid = (uint16_t)dlid, .sl = (uint8_t)sl };
	return KR_OK;
}

/* Whether some CA's packets to x take more intermediates than
 * max_intermediates allows (classify_paths counts them as general). */
static int over_bound(const struct repair *r, const struct rdest *x)
{
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->src_start[s + 1] > r->src_start[s] && s != x->target &&
		    r->dist[s] != UNREACHED && r->lvl[s] == LVL_GENERAL)
			return 1;
	return 0;
}

/* The kind of intermediates a pass tries second. */
static enum col_mode second_mode(const struct repair *r)
{
	return r->first_mode == COL_FREE ? COL_ANCHORED : COL_FREE;
}

/* x's column repaired anew by mode, not taken from the memo. */
static void fresh_column(struct repair *r, const struct rdest *x,
			 enum col_mode mode)
{
	get_column(r, x->lid, r->col);
	repair_column(r, x, mode);
}

/* The traffic of the switches r->col routes anew, on sl, if it closes no
 * loop there. */
static int admit_moved(struct repair *r, const struct rdest *x, unsigned sl)
{
	if (sa_refuses(r, x))
		return KR_ECYCLE;
	mark_repaired(r);
	return repair_deps(r, x, r->col, r->dist, sl, SRC_MOVED);
}

static bool is_tree_sl(const struct kr_slvl *p, unsigned sl)
{
	for (unsigned i = 0; i < p->ntree; i++)
		if (p->tree_sl[i] == sl)
			return true;
	return false;
}

#define PLACED 0x80		/* r->held_sl: the switch's traffic is in */
#define NOWHERE 0x7f		/* r->held_sl: it fitted on no SL tried */

/* Admits the new traffic of x from the switches whose r->held_sl asks for
 * SL v: all at once, else switch by switch (a pair's dependencies are
 * its route's alone, so any split of the sources is sound), those that
 * close a loop asking for next instead. */
static int admit_asking(struct repair *r, const struct rdest *x, unsigned v,
			unsigned next)
{
	bool any = false;
	int rc;

	for (uint32_t s = 0; s < r->nsw; s++)
		any |= (r->moved[s] = r->held_sl[s] == v);
	if (!any)
		return KR_OK;
	rc = repair_deps(r, x, r->col, r->dist, v, SRC_MOVED);
	if (rc == KR_OK)
		for (uint32_t s = 0; s < r->nsw; s++)
			r->held_sl[s] |= r->moved[s] ? PLACED : 0;
	if (rc != KR_ECYCLE)
		return rc;
	for (uint32_t s = 0; s < r->nsw; s++) {
		if (r->held_sl[s] != v)
			continue;
		rc = repair_deps_from(r, x, r->col, v, s);
		if (rc && rc != KR_ECYCLE)
			return rc;
		r->held_sl[s] = rc ? (uint8_t)next : (uint8_t)(v | PLACED);
	}
	return KR_OK;
}

/* Only the pairs whose route the repair changed need another SL: those of
 * the CAs on the switches it routed anew (their packets never meet a
 * switch whose route survived before it). The rest stay on x's SL sl,
 * where their surviving routes are in the graph already. The new ones go
 * where r->held_sl asks (a layer of repaired trees they were on before,
 * else sl), else on sl, else on the layers of repaired trees in order,
 * switch by switch where not all fit. The pairs off sl are kept.
 * KR_ECYCLE, the graph as it was, when some fit nowhere. */
static int split_pairs(struct repair *r, const struct rdest *x, unsigned sl)
{
	const struct kr_slvl *p = r->plan;
	uint32_t mark = r->g.nedge;
	int rc = KR_OK;

	for (unsigned i = 0; !rc && i < p->ntree; i++)
		if (p->tree_sl[i] != sl)
			rc = admit_asking(r, x, p->tree_sl[i], sl);
	if (!rc)
		rc = admit_asking(r, x, sl, p->ntree ? p->tree_sl[0] : NOWHERE);
	for (unsigned i = 0; !rc && i < p->ntree; i++)
		rc = admit_asking(r, x, p->tree_sl[i],
				  i + 1 < p->ntree ? p->tree_sl[i + 1] : NOWHERE);
	/* count_pairs counts the pairs of the switches left marked */
	for (uint32_t s = 0; s < r->nsw; s++) {
		r->moved[s] = r->held_sl[s] != KR_NO_SL &&
			      r->held_sl[s] != (sl | PLACED);
		if (r->moved[s] && !(r->held_sl[s] & PLACED) && !rc)
			rc = KR_ECYCLE;
	}
	for (uint32_t s = 0; !rc && s < r->nsw; s++)
		for (uint32_t j = r->src_start[s];
		     !rc && r->moved[s] && j < r->src_start[s + 1]; j++)
			if (r->src_port[j] != x->ca_port)
				rc = keep_pair(r, r->f->lid[r->src_port[j]],
					       x->lid, r->held_sl[s] & ~PLACED);
	if (rc == KR_ECYCLE)
		repair_undo(r, mark);
	r->pairs_moved = !rc;
	return rc;
}

/* The SL the CAs of switch s sent on to x under prev (that of the first
 * but x's own port), KR_NO_SL when s has no other CA or prev none known. */
static unsigned sl_before(const struct repair *r, const struct rdest *x,
			  uint32_t s)
{
	uint32_t j = r->src_start[s];
	unsigned sl;

	if (j < r->src_start[s + 1] && r->src_port[j] == x->ca_port)
		j++;
	if (j == r->src_start[s + 1])
		return KR_NO_SL;
	sl = kr_tables_path_sl(r->prev, r->f->lid[r->src_port[j]], x->lid);
	return sl < KR_NSL ? sl : KR_NO_SL;
}

/* What x's switches routed anew by r->col ask for in r->held_sl: the SL
 * their CAs sent on to x under prev when it was a layer of repaired trees,
 * else x's SL sl; KR_NO_SL for the other switches. Whether any asks for a
 * layer. */
static bool ask_sls(struct repair *r, const struct rdest *x, unsigned sl)
{
	bool any = false;

	mark_repaired(r);
	for (uint32_t s = 0; s < r->nsw; s++) {
		unsigned was;

		r->held_sl[s] = r->moved[s] ? (uint8_t)sl : KR_NO_SL;
		if (!r->moved[s] || !r->held || !r->held[x->lid])
			continue;
		was = sl_before(r, x, s);
		if (was != sl && is_tree_sl(r->plan, was)) {
			r->held_sl[s] = (uint8_t)was;
			any = true;
		}
	}
	return any;
}

/* The pairs of x's switches routed anew off x's SL where they must be
 * (split_pairs). */
static int move_pairs(struct repair *r, const struct rdest *x)
{
	unsigned sl = r->t->dlid_sl[x->lid];

	ask_sls(r, x, sl);
	return split_pairs(r, x, sl);
}

/* Moves x, or the pairs of x that need it, off x's SL: the repaired routes
 * of the moved pairs on the first layer of repaired trees where they fit,
 * else all of x there, else up*-down* routes on the detour SL. The up*-down*
 * layer carries nothing else, so it cannot refuse. */
static int to_detour(struct repair *r, const struct rdest *x,
		     struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_slvl *p = r->plan;
	int rc = KR_ECYCLE;

	if (p->detour_vl == KR_NONE)
		return kr_fail(d, KR_ECYCLE, 0, "the repaired routes to LID %u "
			       "would close a credit loop and the plan has no "
			       "detour layer (detour_vls 0, or no SL or VL left)",
			       x->lid);
	for (int b = 0; rc == KR_ECYCLE && b < 2 && p->ntree; b++) {
		if (b)
			fresh_column(r, x, second_mode(r));
		else
			reuse_repair(r, x);	/* cached_column left it there */
		if (sa_refuses(r, x))
			continue;
		rc = move_pairs(r, x);
		r->pairs_moved = !rc;
		for (unsigned i = 0; rc == KR_ECYCLE && i < p->ntree; i++) {
			rc = b ? repair_deps(r, x, r->col, r->dist,
					     p->tree_sl[i], SRC_ALL)
			       : deps_once(r, x, p->tree_sl[i], SRC_ALL);
			if (!rc)
				r->t->dlid_sl[x->lid] = (uint8_t)p->tree_sl[i];
		}
	}
	if (rc != KR_ECYCLE)
		return rc;
	st->dests_updn++;
	repair_updn_column(r, x, r->col);
	rc = repair_deps(r, x, r->col, r->dist, p->detour_sl, SRC_ALL);
	if (rc == KR_ECYCLE)
		return kr_fail(d, KR_ECYCLE, 0, "detour layer closes a credit "
			       "loop for LID %u", x->lid);
	if (!rc)
		r->t->dlid_sl[x->lid] = (uint8_t)p->detour_sl;
	return rc;
}

/* The destination LIDs with those of one switch together, in LID order
 * otherwise: they share the switch's live distances and, mostly, its
 * columns (see recall). */
static int by_target(struct repair *r)
{
	uint32_t *start = calloc(r->nsw + 1, sizeof(uint32_t));
	struct rdest x;

	r->lids = malloc(((size_t)r->stride + 1) * sizeof(unsigned));
	if (!start || !r->lids) {
		free(start);
		return KR_ENOMEM;
	}
	for (unsigned lid = 1; lid < r->stride; lid++)
		if (dest_of(r, lid, &x))
			start[x.target]++;
	for (uint32_t s = 0; s <= r->nsw; s++) {
		uint32_t c = start[s];

		start[s] = r->nlids;
		r->nlids += c;
	}
	for (unsigned lid = 1; lid < r->stride; lid++)
		if (dest_of(r, lid, &x))
			r->lids[start[x.target]++] = lid;
	free(start);
	return KR_OK;
}

/* Pair statistics of a destination no fault cut: every CA in its
 * component reaches it unrepaired, no other does. */
static void count_untouched(const struct repair *r, const struct rdest *x,
			    const uint64_t *comp_cas, struct kr_repair_stats *st)
{
	uint64_t in, out;

	if (x->ca_port == KR_NONE)
		return;
	in = comp_cas[r->comp[x->target]] - 1;	/* but itself */
	out = r->src_start[r->nsw] - comp_cas[r->comp[x->target]];
	st->pairs += in + out;
	st->paths[KR_REPAIR_NONE] += in;
	st->pairs_disconnected += out;
}

/* Marks the destinations a fault cut off somewhere (where a
 * switch of the target's component does not reach it: those of other
 * components are not the repair's); counts the others' pairs. A column
 * the memo holds is not walked again; none is walked on a whole fabric,
 * where the routes follow every link they were made for. */
static int find_cut(struct repair *r, bool whole, uint8_t *cut,
		    uint32_t *ncut, struct kr_repair_stats *st)
{
	uint64_t *comp_cas = calloc(r->nsw + 1, sizeof(uint64_t));
	struct rdest x;

	if (!comp_cas)
		return KR_ENOMEM;
	for (uint32_t s = 0; s < r->nsw; s++)
		comp_cas[r->comp[s]] += r->src_start[s + 1] - r->src_start[s];
	r->memo_target = KR_NONE;
	for (uint32_t i = 0; i < r->nlids; i++) {
		unsigned lid = r->lids[i];

		dest_of(r, lid, &x);
		st->dests++;
		if (whole) {
			count_untouched(r, &x, comp_cas, st);
			continue;
		}
		get_column(r, lid, r->col);
		if (!recall(r, &x)) {
			remember(r, &x);
			repair_walk(r, r->col, &x, r->dist);
			for (uint32_t s = 0; s < r->nsw; s++)
				if (r->dist[s] == UNREACHED &&
				    r->comp[s] == r->comp[x.target]) {
					r->memo_cut[r->memo_cur] = 1;
					break;
				}
		}
		cut[lid] = r->memo_cut[r->memo_cur];
		if (cut[lid])
			(*ncut)++;
		else
			count_untouched(r, &x, comp_cas, st);
	}
	free(comp_cas);
	return KR_OK;
}

/* Every destination's surviving routes go into the graph in bulk on its
 * planned SL: all of an untouched one, the switches still reaching it of
 * a cut one. A repair changes no entry they use, and packets of
 * applications that still hold the SL follow them even if the destination
 * moves to another. So each repair adds only its new switches' traffic. */
static int add_surviving(struct repair *r)
{
	struct rdest x;
	int rc = KR_OK;

	r->memo_target = KR_NONE;
	for (uint32_t i = 0; i < r->nlids && !rc; i++) {
		unsigned lid = r->lids[i];

		dest_of(r, lid, &x);
		get_column(r, lid, r->col);
		if (!recall(r, &x))
			remember(r, &x);
		if (r->memo_sls[r->memo_cur][1] >> r->t->dlid_sl[lid] & 1)
			continue;	/* deps_once would find them in */
		repair_walk(r, r->col, &x, r->dist);
		rc = deps_once(r, &x, r->t->dlid_sl[lid], SRC_ALL);
	}
	return rc;
}

/* The moved pairs of r->col's repair of x on a layer of repaired trees,
 * x counted as moved off its SL when they fit. */
static int pairs_to_trees(struct repair *r, const struct rdest *x,
			  struct kr_repair_stats *st)
{
	int rc = r->plan->ntree && !sa_refuses(r, x) ? move_pairs(r, x)
						      : KR_ECYCLE;

	r->pairs_moved = !rc;
	st->dests_detour += !rc;
	return rc;
}

/* Whether r->col is x's column in the tables in force, at every switch
 * (keep_routes found the switches' rows). */
static bool is_prev_column(const struct repair *r, const struct rdest *x)
{
	if (!r->prev_row)
		return false;
	for (uint32_t s = 0; s < r->nsw; s++)
		if (r->prev_row[s] == KR_NONE ||
		    kr_lft_port(r->prev, r->prev_row[s], x->lid) != r->col[s])
			return false;
	return true;
}

/* Whether x's column in the tables in force leaves no switch by a port
 * whose link is gone: a column the repair makes never does. */
static bool prev_column_live(const struct repair *r, const struct rdest *x)
{
	for (uint32_t s = 0; s < r->nsw; s++) {
		unsigned port;

		if (s == x->target || r->prev_row[s] == KR_NONE)
			continue;
		port = kr_lft_port(r->prev, r->prev_row[s], x->lid);
		if (port != KR_NO_PORT && repair_next(r, s, port) == KR_NONE)
			return false;
	}
	return true;
}

/* Whether the tables in force routed x by a column of a kind the repair
 * tries after its first (cached_column's): the second kind of
 * intermediates or general repair, into *mode, and that column into
 * r->col. The first kind had closed a loop at x's turn then; now the
 * graph at x's turn holds other routes, and the first kind may fit, but
 * a sweep that finds the fabric as it was should not move x's routes for
 * nothing: the repair tries the column in force first. */
static bool prev_later_kind(struct repair *r, const struct rdest *x,
			    enum col_mode *mode)
{
	const enum col_mode later[] = { second_mode(r), COL_GENERAL };

	if (!r->prev_row)
		return false;
	reuse_repair(r, x);
	if (is_prev_column(r, x) || !prev_column_live(r, x))
		return false;
	for (unsigned i = 0; i < 2; i++) {
		fresh_column(r, x, later[i]);
		if (is_prev_column(r, x)) {
			*mode = later[i];
			return true;
		}
	}
	return false;
}

/* x as the tables in force had it, when they had it or some of its pairs
 * off its planned SL sl and that still closes no loop: applications keep
 * the SLs of their PathRecords, and a route that did not change should
 * not make them ask again. All of x on the layer of repaired trees or the
 * up*-down* SL it was on, or the pairs the repair moves on the layers
 * they were on and the others on sl; a column of either kind of
 * intermediates within max_intermediates, the second kind first when
 * second_first (prev_later_kind). KR_ECYCLE: not so, the graph as it
 * was. */
static int as_before(struct repair *r, const struct rdest *x, unsigned sl,
		     bool second_first, struct kr_repair_stats *st)
{
	const struct kr_slvl *p = r->plan;
	unsigned was = r->prev->dlid_sl[x->lid];
	int rc = KR_ECYCLE;

	if (was != sl && p->detour_vl != KR_NONE && was == p->detour_sl) {
		repair_updn_column(r, x, r->col);
		if (repair_deps(r, x, r->col, r->dist, was, SRC_ALL))
			return KR_ECYCLE;
		st->dests_updn++;
		st->dests_detour++;
		r->t->dlid_sl[x->lid] = (uint8_t)was;
		return KR_OK;
	}
	if (was != sl && !is_tree_sl(p, was))
		return KR_ECYCLE;
	for (int b = 0; rc == KR_ECYCLE && b < 2; b++) {
		if ((b == 0) == second_first)
			fresh_column(r, x, second_mode(r));
		else
			reuse_repair(r, x);	/* cached_column's */
		if (over_bound(r, x) || sa_refuses(r, x))
			continue;
		if (was != sl) {
			rc = repair_deps(r, x, r->col, r->dist, was, SRC_ALL);
			if (!rc) {
				r->t->dlid_sl[x->lid] = (uint8_t)was;
				st->dests_detour++;
			}
		} else if (ask_sls(r, x, sl)) {
			rc = split_pairs(r, x, sl);
			st->dests_detour += !rc;
		}
	}
	return rc;
}

static int repair_dest(struct repair *r, unsigned lid, const uint8_t *plan_sl,
		       struct kr_repair_stats *st, struct kr_diag *d)
{
	struct rdest x;
	uint32_t updn = st->dests_updn;
	unsigned sl = r->t->dlid_sl[lid];
	bool held = r->held && r->held[lid], later;
	enum col_mode mode = r->first_mode;	/* prev_later_kind's, if later */
	int rc, a_over, b_over;

	r->pairs_moved = 0;
	dest_of(r, lid, &x);
	get_column(r, lid, r->col);
	cached_column(r, &x);
	later = prev_later_kind(r, &x, &mode);
	rc = held ? as_before(r, &x, sl, later && mode == second_mode(r), st)
		  : KR_ECYCLE;
	if (rc != KR_ECYCLE)
		goto done;
	if (later && held)	/* as_before left another column */
		fresh_column(r, &x, mode);
	if (later && (mode == COL_GENERAL || !over_bound(r, &x)) &&
	    (rc = admit_moved(r, &x, sl)) != KR_ECYCLE)
		goto done;
	reuse_repair(r, &x);
	/* Best first, as the thesis orders it: a column whose paths keep
	 * within max_intermediates, on x's SL (the first kind of
	 * intermediates, then the second); such a column's moved pairs on a
	 * layer of repaired trees rather than more intermediates on the SL;
	 * then either kind on the SL; general repair; the detour layers. */
	a_over = over_bound(r, &x);
	rc = a_over ? KR_ECYCLE : deps_once(r, &x, sl, SRC_MOVED);
	if (rc == KR_ECYCLE) {
		fresh_column(r, &x, second_mode(r));
		b_over = over_bound(r, &x);
		if (!b_over)
			rc = admit_moved(r, &x, sl);
		if (rc == KR_ECYCLE && !b_over && a_over)
			rc = pairs_to_trees(r, &x, st);
		/* below the thesis' two, the admin puts paths before SLs:
		 * bounded routes on a layer of repaired trees before any on
		 * the SL that exceeds the bound (general repair included) */
		if (rc == KR_ECYCLE && !a_over && r->max_int < 2) {
			reuse_repair(r, &x);
			rc = pairs_to_trees(r, &x, st);
		}
		if (rc == KR_ECYCLE && a_over) {
			reuse_repair(r, &x);
			rc = deps_once(r, &x, sl, SRC_MOVED);
		}
		if (rc == KR_ECYCLE && b_over) {
			fresh_column(r, &x, second_mode(r));
			rc = admit_moved(r, &x, sl);
		}
	}
	if (rc == KR_ECYCLE) {
		fresh_column(r, &x, COL_GENERAL);
		rc = admit_moved(r, &x, sl);
	}
	if (rc == KR_ECYCLE) {
		rc = to_detour(r, &x, st, d);
		st->dests_detour++;
	}
done:
	if (rc)
		return rc;
	r->t->repaired[r->t->nrepaired++] = (uint16_t)lid;
	st->dests_repaired++;
	if ((rc = put_column(r, lid, r->col, &st->entries_changed)))
		return rc;
	/* a layer of repaired trees keeps the repair's kind of route (it is
	 * the thesis' extra virtual channel); up*-down* is a kind of its own */
	count_pairs(r, &x, 1, st->dests_updn != updn,
		    r->t->dlid_sl[lid] != plan_sl[lid], st);
	return KR_OK;
}

/* The SL a pair had before: old's, or the plan's when there was none. */
static unsigned old_sl_of(const struct kr_tables *old, const uint8_t *plan_sl,
			  unsigned slid, unsigned dlid)
{
	return old ? kr_tables_path_sl(old, slid, dlid) : plan_sl[dlid];
}

/* The SL a pair has now: its own (r->pair_sl, set from x's moved pairs by
 * stale_dest) or the destination's. */
static unsigned new_sl_of(const struct repair *r, unsigned slid, unsigned dlid)
{
	return r->pair_sl[slid] != KR_NO_SL ? r->pair_sl[slid] :
	       r->t->dlid_sl[dlid];
}

/* Packets still sent on a pair's old SL (applications keep PathRecords)
 * follow the pair's new route: for each old SL, the dependencies of the
 * pairs that left it must close no loop on it either; the CA-to-CA pairs
 * whose would are counted. */
static int stale_dest(struct repair *r, const struct rdest *x,
		      const struct kr_tables *old, const uint8_t *plan_sl,
		      size_t k, size_t end, struct kr_repair_stats *st)
{
	const struct kr_fabric *f = r->f;
	uint16_t left = 0;
	int rc = KR_OK;

	for (size_t i = k; i < end; i++)
		r->pair_sl[r->pairs[i].slid] = r->pairs[i].sl;
	for (uint32_t j = 0; j < r->src_start[r->nsw]; j++) {
		unsigned slid = f->lid[r->src_port[j]];
		unsigned was = old_sl_of(old, plan_sl, slid, x->lid);

		if (r->src_port[j] == x->ca_port || was == new_sl_of(r, slid, x->lid))
			continue;
		left |= (uint16_t)(1u << was);
		st->pairs_sl_moved += x->ca_port != KR_NONE;
	}
	if (!left)
		return KR_OK;
	get_column(r, x->lid, r->col);
	repair_walk(r, r->col, x, r->dist);
	for (unsigned sl = 0; sl < KR_NSL && !rc; sl++) {
		uint64_t n = 0;

		if (!(left >> sl & 1))
			continue;
		memset(r->moved, 0, r->nsw);
		for (uint32_t s = 0; s < r->nsw; s++)
			for (uint32_t j = r->src_start[s]; j < r->src_start[s + 1]; j++) {
				unsigned slid = f->lid[r->src_port[j]];

				if (r->src_port[j] == x->ca_port ||
				    old_sl_of(old, plan_sl, slid, x->lid) != sl ||
				    new_sl_of(r, slid, x->lid) == sl)
					continue;
				r->moved[s] = 1;
				n++;
			}
		rc = repair_deps(r, x, r->col, r->dist, sl, SRC_MOVED);
		if (rc == KR_ECYCLE) {
			if (x->ca_port != KR_NONE)
				st->pairs_stale_unsafe += n;
			rc = KR_OK;
		}
	}
	return rc;
}

static int stale_pass(struct repair *r, const struct kr_tables *old,
		      const uint8_t *plan_sl, struct kr_repair_stats *st)
{
	uint8_t *old_pairs = calloc(r->stride + 1, 1);
	struct rdest x;
	size_t k = 0, end;
	int rc = old_pairs ? KR_OK : KR_ENOMEM;

	for (size_t i = 0; old && !rc && i < old->npair_sl; i++)
		if (old->pair_sl[i].dlid < r->stride)
			old_pairs[old->pair_sl[i].dlid] = 1;
	for (unsigned lid = 1; lid < r->stride && !rc; lid++) {
		for (end = k; end < r->npairs && r->pairs[end].dlid == lid; end++)
			;
		if ((end > k || old_pairs[lid] ||
		     old_sl_of(old, plan_sl, 0, lid) != r->t->dlid_sl[lid]) &&
		    dest_of(r, lid, &x))
			rc = stale_dest(r, &x, old, plan_sl, k, end, st);
		for (; k < end; k++)
			r->pair_sl[r->pairs[k].slid] = KR_NO_SL;
	}
	free(old_pairs);
	return rc;
}

static int by_dlid(const void *a, const void *b)
{
	const struct kr_sl_pair *x = a, *y = b;

	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	return (x->slid > y->slid) - (x->slid < y->slid);
}

/* Whether switch sw's row has an entry for every destination (dest[lid]
 * 0xff, else 0) and sends only to linked ports. The first, 8 LIDs at a
 * time: an entry and its mask AND to 0xff only where a destination has
 * none (KR_NO_PORT); a byte of ~that is zero then. */
static bool row_live(const struct kr_fabric *f, const uint8_t *row,
		     const uint8_t *dest, size_t stride, uint32_t sw)
{
	const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
	uint64_t holes = 0, e, m;
	bool sends[256] = { false };
	size_t lid = 0;

	for (; lid + 8 <= stride; lid += 8) {
		memcpy(&e, row + lid, 8);
		memcpy(&m, dest + lid, 8);
		e = ~(e & m);
		holes |= (e - ones) & ~e & highs;
	}
	for (; lid < stride; lid++)
		holes |= (row[lid] & dest[lid]) == KR_NO_PORT;
	if (holes)
		return false;
	for (lid = 1; lid < stride; lid++)
		sends[row[lid]] = true;
	/* port 0: the switch's own LID */
	for (unsigned p = 1; p < KR_NO_PORT; p++)
		if (sends[p] && (p > f->nports[sw] ||
				 f->peer[f->port0[sw] + p] < 0))
			return false;
	return true;
}

/* Whether every destination has an entry at every switch and every port
 * an entry sends to is linked: then no fault cut a route (kr_route made
 * them for this fabric's links, leaving out those it lacks, or for a
 * fabric that had more), and finding the cut ones needs no walk. A byte
 * scan of the LFTs instead of a walk of every destination's tree. */
static int lfts_live(const struct repair *r, bool *live)
{
	uint8_t *dest = malloc(r->stride + 1);
	struct rdest x;

	if (!dest)
		return KR_ENOMEM;
	for (unsigned lid = 0; lid < r->stride; lid++)
		dest[lid] = lid && dest_of(r, lid, &x) ? 0xff : 0;
	*live = true;
	for (uint32_t sw = 0; sw < r->nsw && *live; sw++)
		*live = row_live(r->f, r->t->lft + (size_t)sw * r->stride,
				 dest, r->stride, sw);
	free(dest);
	return KR_OK;
}

/* The SLs the previous tables put in force are the plan's: packets that
 * applications address with them need no second proof. */
static bool sls_in_force(const struct kr_tables *prev, const uint8_t *plan_sl,
			 unsigned stride)
{
	return !prev || (!prev->npair_sl &&
			 !memcmp(prev->dlid_sl, plan_sl, stride));
}

/* The destinations prev had, or some of whose pairs it had, off their
 * planned SL, into r->held (stays NULL when there are none). */
static int find_held(struct repair *r, const uint8_t *plan_sl)
{
	const struct kr_tables *prev = r->prev;

	if (sls_in_force(prev, plan_sl, r->stride))
		return KR_OK;
	if (!(r->held = calloc(r->stride + 1, 1)))
		return KR_ENOMEM;
	for (unsigned lid = 1; lid < r->stride; lid++)
		r->held[lid] = prev->dlid_sl[lid] != plan_sl[lid];
	for (size_t i = 0; i < prev->npair_sl; i++)
		if (prev->pair_sl[i].dlid < r->stride)
			r->held[prev->pair_sl[i].dlid] = 1;
	return KR_OK;
}

/* Each switch's row in prev's LFTs, into r->prev_row (KR_NONE: none): the
 * row that sends the switch's own LID to port 0. Switches keep their LIDs
 * from sweep to sweep and rows follow GUID order, so a switch come or
 * gone since shifts the rows after it by one: the row is looked for that
 * far around the switch's own index. Whether any switch has one. */
static bool map_rows(struct repair *r)
{
	const struct kr_tables *prev = r->prev;
	const struct kr_fabric *f = r->f;
	uint32_t span = (prev->nsw > r->nsw ? prev->nsw - r->nsw
					     : r->nsw - prev->nsw) + 1;
	bool any = false;

	for (uint32_t u = 0; u < r->nsw; u++) {
		unsigned lid = f->lid[f->port0[u]];

		r->prev_row[u] = KR_NONE;
		for (uint32_t d = 0; lid && d <= span &&
		     r->prev_row[u] == KR_NONE; d++) {
			if (u + d < prev->nsw && kr_lft_port(prev, u + d, lid) == 0)
				r->prev_row[u] = u + d;
			else if (d <= u && u - d < prev->nsw &&
				 kr_lft_port(prev, u - d, lid) == 0)
				r->prev_row[u] = u - d;
		}
		any |= r->prev_row[u] != KR_NONE;
	}
	return any;
}

/* Whether the route of x's packets from switch s along r->col is the one
 * prev had. */
static bool same_route(const struct repair *r, const struct rdest *x,
		       uint32_t s)
{
	for (uint32_t n = 0; s != KR_NONE && n < r->nsw; n++) {
		if (r->prev_row[s] == KR_NONE ||
		    kr_lft_port(r->prev, r->prev_row[s], x->lid) != r->col[s])
			return false;
		if (s == x->target)
			return true;
		s = repair_next(r, s, r->col[s]);
	}
	return false;
}

/* Keeps r->col and r->lvl, lid's repair, for kept_column, so that
 * repair_dest does not make it a second time: up to KEPT_BYTES, the rest
 * are made again. */
#define KEPT_BYTES (64u << 20)
static void keep_column(struct repair *r, unsigned lid)
{
	size_t each = 2 * (size_t)r->nsw, cap = KEPT_BYTES / each;
	uint8_t *at;

	if (cap > r->prev->nrepaired)
		cap = r->prev->nrepaired;
	if (!r->kept_at) {
		if (!(r->kept_at = malloc(r->stride * sizeof(*r->kept_at))))
			return;
		memset(r->kept_at, 0xff, r->stride * sizeof(*r->kept_at));
		r->kept_buf = malloc(cap * each);
	}
	if (!r->kept_buf || r->nkept == cap)
		return;
	at = r->kept_buf + r->nkept * each;
	memcpy(at, r->col, r->nsw);
	memcpy(at + r->nsw, r->lvl, r->nsw);
	r->kept_at[lid] = (uint32_t)r->nkept++;
}

/* The traffic of prev's repaired destinations whose routes stay as they
 * were, on the SLs it had, before any route that changed: a destination
 * repaired again at its turn then finds its kept routes in, and one taken
 * later cannot crowd them off their SLs. (Admission can still refuse one,
 * which is left to repair_dest.) The columns are those repair_dest will
 * try first; a route through a switch prev has no row for has changed. */
static int keep_routes(struct repair *r, const uint8_t *cut)
{
	const struct kr_tables *prev = r->prev;
	struct rdest x;
	int rc = KR_OK;

	if (!prev || !prev->repaired || !prev->lft)
		return KR_OK;
	if (!(r->prev_row = malloc((r->nsw + 1) * sizeof(*r->prev_row))))
		return KR_ENOMEM;
	if (!map_rows(r))
		return KR_OK;
	for (uint32_t i = 0; i < prev->nrepaired && !rc; i++) {
		unsigned lid = prev->repaired[i];

		if (lid >= r->stride || !cut[lid] || !dest_of(r, lid, &x))
			continue;
		get_column(r, lid, r->col);
		cached_column(r, &x);
		keep_column(r, lid);
		mark_repaired(r);
		for (uint32_t s = 0; s < r->nsw && !rc; s++) {
			unsigned was;

			if (!r->moved[s] || !same_route(r, &x, s) ||
			    (was = sl_before(r, &x, s)) == KR_NO_SL)
				continue;
			rc = repair_deps_from(r, &x, r->col, was, s);
			if (rc == KR_ECYCLE)
				rc = KR_OK;
		}
	}
	return rc;
}

/* The cut destinations: first those prev's repair made, in its order,
 * then the others. A fault that joins others cuts the same routes and
 * more, and the graph a destination meets at its turn holds a part of
 * what it met then (fewer routes survive): where its repair still takes
 * the same routes, they fit on the same SLs again. */
static int repair_cut(struct repair *r, uint8_t *cut, const uint8_t *plan_sl,
		      struct kr_repair_stats *st, struct kr_diag *d)
{
	const struct kr_tables *prev = r->prev;
	struct kr_tables *t = r->t;
	int rc = find_held(r, plan_sl);

	free(t->repaired);
	t->nrepaired = 0;
	free(t->fixes);
	t->fixes = NULL;
	t->nfixes = 0;
	r->fixes_cap = 0;
	if (!(t->repaired = malloc((r->nlids + 1) * sizeof(*t->repaired))))
		return KR_ENOMEM;
	if (!rc)
		rc = keep_routes(r, cut);
	for (uint32_t i = 0; prev && i < prev->nrepaired && !rc; i++) {
		unsigned lid = prev->repaired[i];

		if (lid < r->stride && cut[lid]) {
			cut[lid] = 0;	/* not again below */
			rc = repair_dest(r, lid, plan_sl, st, d);
		}
	}
	for (uint32_t i = 0; i < r->nlids && !rc; i++)
		if (cut[r->lids[i]])
			rc = repair_dest(r, r->lids[i], plan_sl, st, d);
	return rc;
}

/* whole: nothing to repair and no old SLs to prove (see kr_repair). */
static int run(struct repair *r, const struct kr_tables *prev, bool whole,
	       uint8_t *plan_sl, uint8_t *cut, struct kr_repair_stats *st,
	       struct kr_diag *d)
{
	uint32_t ncut = 0;
	bool sls_kept = sls_in_force(prev, plan_sl, r->stride);
	int rc = setup(r);

	r->prev = prev;

	if (!rc && !whole)
		rc = kr_cdg_init(&r->g, r->f->port0[r->nsw] * 16);
	if (!rc && !whole &&
	    !(r->seen = calloc((size_t)r->f->port0[r->nsw] * 16 * SEEN_WAYS,
			       sizeof(uint32_t))))
		rc = KR_ENOMEM;
	if (!rc && !whole &&
	    !(r->camask = calloc((size_t)r->f->port0[r->nsw] * 16,
				 sizeof(uint32_t))))
		rc = KR_ENOMEM;
	if (!rc)
		rc = repair_updn_ranks(r);
	if (!rc && !whole)
		rc = transpose_lfts(r);
	if (!rc)
		rc = by_target(r);
	if (!rc)
		rc = find_cut(r, whole, cut, &ncut, st);
	if (rc)
		return rc;
	if (!ncut && sls_kept)
		return KR_OK;	/* pristine, and so were the SLs in force */
	rc = add_surviving(r);
	if (rc)
		return rc;
	if (kr_cdg_order(&r->g) == KR_ECYCLE) {
		char hosts[KR_DIAG_MSG / 2];

		/* routes to switch LIDs share the unicast VLs without
		 * following their code when the plan has no up*-down* VL:
		 * the pristine tables' check then names management traffic,
		 * and here it may be the same loop */
		return kr_fail(d, KR_ECYCLE, 0, "the routes that survive the "
			       "faults already close a credit loop%s%s",
			       r->plan->mcast_vl == KR_NONE ?
			       ", maybe through the routes to switches, which "
			       "this plan left no VL of their own (more VLs "
			       "give them one, and so may fewer classes or LMC "
			       "orders)" : "",
			       kr_route_host_hint(r->f, r->topo, r->c, hosts,
						  sizeof(hosts)));
	}
	r->memo_target = KR_NONE;	/* add_surviving's columns are not repairs */
	rc = ncut ? build_hops(r) : KR_OK;
	if (!rc && ncut)
		rc = choose_anchor(r);
	r->admitting = 1;
	rc = rc ? rc : repair_cut(r, cut, plan_sl, st, d);
	if (!rc && r->npairs)
		qsort(r->pairs, r->npairs, sizeof(*r->pairs), by_dlid);
	if (!rc)
		rc = stale_pass(r, prev, plan_sl, st);
	if (!rc && r->npairs) {
		r->t->pair_sl = r->pairs;
		r->t->npair_sl = r->npairs;
		r->pairs = NULL;
		rc = kr_tables_sort_pairs(r->t, d);
	}
	return rc;
}

/* One repair of t in place, trying mode first for every destination. */
static int repair_pass(struct repair *proto, enum col_mode mode,
		       const struct kr_tables *prev, bool whole,
		       uint8_t *plan_sl, struct kr_repair_stats *st,
		       struct kr_diag *d)
{
	struct repair r = *proto;
	uint8_t *cut = calloc(r.stride + 1, 1);
	int rc = cut ? KR_OK : KR_ENOMEM;

	r.first_mode = mode;
	*st = (struct kr_repair_stats){ .faults = r.topo->nmissing_link +
						  r.topo->nmissing_sw +
						  r.topo->nmissing_sublink +
						  r.topo->nmissing_subsw };
	if (!rc)
		rc = run(&r, prev, whole, plan_sl, cut, st, d);
	teardown(&r);
	free(cut);
	return rc;
}

/* Fewer pairs moved from the SL in force first, then fewer off the
 * plan's (applications keep their PathRecords), then fewer destinations
 * off theirs, then fewer extra hops. */
static int better(const struct kr_repair_stats *a,
		  const struct kr_repair_stats *b)
{
	if (a->pairs_sl_moved != b->pairs_sl_moved)
		return a->pairs_sl_moved < b->pairs_sl_moved;
	if (a->pairs_sl_changed != b->pairs_sl_changed)
		return a->pairs_sl_changed < b->pairs_sl_changed;
	if (a->dests_detour != b->dests_detour)
		return a->dests_detour < b->dests_detour;
	return a->extra_hops_sum < b->extra_hops_sum;
}

static int perfect(const struct kr_repair_stats *st)
{
	return !st->pairs_sl_changed && !st->dests_detour;
}

/* The entries and SLs a pass writes, to run another from the same start. */
struct tables_state {
	uint8_t *lft, *dlid_sl;
	struct kr_sl_pair *pair_sl;
	size_t npair_sl;
	uint16_t *repaired;
	uint32_t nrepaired;
	struct kr_lft_fix *fixes;
	size_t nfixes;
};

static void swap_state(struct kr_tables *t, struct tables_state *s)
{
	struct tables_state tmp = { t->lft, t->dlid_sl, t->pair_sl, t->npair_sl,
				    t->repaired, t->nrepaired, t->fixes,
				    t->nfixes };

	t->lft = s->lft;
	t->dlid_sl = s->dlid_sl;
	t->pair_sl = s->pair_sl;
	t->npair_sl = s->npair_sl;
	t->repaired = s->repaired;
	t->nrepaired = s->nrepaired;
	t->fixes = s->fixes;
	t->nfixes = s->nfixes;
	*s = tmp;
}

static void free_state(struct tables_state *s)
{
	free(s->lft);
	free(s->dlid_sl);
	free(s->pair_sl);
	free(s->repaired);
	free(s->fixes);
}

/* Anchored intermediates come first: their turns cannot close a loop
 * among themselves, so destinations keep their SLs. When some still move
 * (a fault in the last dimension leaves no plane above it to anchor in),
 * a second pass prefers the intermediates adding the fewest hops, and the
 * better result is kept. */
int kr_repair(const struct kr_fabric *f, const struct kr_topo *topo,
	      const struct kr_conf *c, const struct kr_slvl *plan,
	      const struct kr_tables *prev, struct kr_tables *t,
	      struct kr_repair_stats *st, struct kr_diag *d)
{
	struct repair proto = { .f = f, .topo = topo, .c = c, .plan = plan,
				.t = t, .sm_sw = KR_NONE,
				.nsw = f->nsw, .stride = t->stride,
				.max_int = c ? c->max_intermediates : 2 };
	size_t nlft = (size_t)t->nsw * t->stride;
	struct tables_state start = { 0 };
	uint8_t *plan_sl = malloc(t->stride + 1);
	struct kr_repair_stats st2;
	double t0 = kr_now_ms();
	bool whole = false;
	int rc = plan_sl ? KR_OK : KR_ENOMEM;

	if (!rc && (!t->dlid_sl || t->npair_sl))
		rc = kr_fail(d, KR_EINVAL, 0, "repair needs one SL per "
			     "destination LID");
	if (!rc) {
		memcpy(plan_sl, t->dlid_sl, t->stride);
		if (!prev || !prev->dlid_sl || prev->stride != t->stride)
			prev = NULL;
		if (sls_in_force(prev, plan_sl, t->stride))
			rc = lfts_live(&proto, &whole);
	}
	/* A whole fabric's pass changes nothing and is perfect, so only a
	 * broken one needs the start kept for a second pass (on the large
	 * fabrics the copy would cost more than the pass). */
	if (!rc && !whole) {
		start.lft = malloc(nlft + 1);
		start.dlid_sl = malloc(t->stride + 1);
		if (start.lft && start.dlid_sl) {
			memcpy(start.lft, t->lft, nlft);
			memcpy(start.dlid_sl, t->dlid_sl, t->stride);
		} else {
			rc = KR_ENOMEM;
		}
	}
	if (!rc)
		rc = repair_pass(&proto, COL_ANCHORED, prev, whole, plan_sl,
				 st, d);
	if (!whole && (rc == KR_ECYCLE || (!rc && !perfect(st))) &&
	    topo->ndim > 1) {
		int rc2;

		swap_state(t, &start);	/* start: the first pass's result */
		rc2 = repair_pass(&proto, COL_FREE, prev, false, plan_sl,
				  &st2, d);
		if (rc2 == KR_OK && (rc || better(&st2, st))) {
			*st = st2;
			rc = KR_OK;
		} else if (rc2 != KR_ENOMEM) {
			swap_state(t, &start);
		} else {
			rc = rc2;
		}
	}
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	free_state(&start);
	free(plan_sl);
	st->ms = kr_now_ms() - t0;
	return rc;
}

void kr_repair_describe(char *buf, size_t len, const struct kr_repair_stats *st)
{
	snprintf(buf, len, "%u faults: %u of %u destinations repaired (%u "
		 "moved off their SL, %u of them up*/down*), %llu LFT entries "
		 "changed; CA pairs: %llu "
		 "direct, %llu via 1 intermediate, %llu via 2, %llu general, "
		 "%llu up*/down*, %llu disconnected; %llu changed SL, %llu "
		 "unsafe on their old SL; %.1f ms",
		 st->faults, st->dests_repaired, st->dests, st->dests_detour,
		 st->dests_updn,
		 (unsigned long long)st->entries_changed,
		 (unsigned long long)st->paths[KR_REPAIR_NONE],
		 (unsigned long long)st->paths[KR_REPAIR_ONE],
		 (unsigned long long)st->paths[KR_REPAIR_TWO],
		 (unsigned long long)st->paths[KR_REPAIR_GENERAL],
		 (unsigned long long)st->paths[KR_REPAIR_DETOUR],
		 (unsigned long long)st->pairs_disconnected,
		 (unsigned long long)st->pairs_sl_changed,
		 (unsigned long long)st->pairs_stale_unsafe, st->ms);
}
