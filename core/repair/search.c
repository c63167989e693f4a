/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The intermediate search: the faults, the anchor, live distances,
 * dimension-order turns, and routes via intermediate routers (kr_repair.h
 * has the idea).
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

#include "kr_route.h"
#include "repair_int.h"

/* The direction of the port by which a packet from u over port p (linked
 * to a switch) enters it. */
unsigned repair_arrival_dir(const struct repair *r, uint32_t u, unsigned p)
{
	return r->topo->port_dir[r->f->peer[r->f->port0[u] + p]];
}

/* The direction of the port by which each switch's packets along r->col
 * (r->dist from its walk) enter x's target, into arrive[s * r->ni]; the
 * target's own and cut switches' are left alone. Nearest switches first:
 * a switch's packets enter where its next switch's do, or by its own hop
 * when that leads to the target. */
static void arrivals(struct repair *r, const struct rdest *x, uint8_t *arrive)
{
	uint32_t n = repair_by_distance(r, r->dist);

	while (n--) {
		uint32_t s = r->order[n], v;

		if (s == x->target)
			continue;
		v = repair_next(r, s, r->col[s]);
		arrive[(size_t)s * r->ni] = (uint8_t)(v == x->target ?
			repair_arrival_dir(r, s, r->col[s]) :
			arrive[(size_t)v * r->ni]);
	}
}

/* hops[S][I] for every switch S and intermediate I, and where S's
 * dimension-order path enters I. */
int repair_build_hops(struct repair *r)
{
	uint32_t ni = r->ni;

	r->hops = malloc((size_t)r->nsw * ni + 1);
	r->first = malloc((size_t)r->nsw * ni + 1);
	r->arrive = malloc((size_t)r->nsw * ni + 1);
	if (!r->hops || !r->first || !r->arrive)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < ni; i++) {
		struct rdest x = { .target = r->isw[i], .local = 0 };

		repair_get_column(r, r->f->lid[r->f->port0[x.target]], r->col);
		repair_walk(r, r->col, &x, r->dist);
		for (uint32_t s = 0; s < r->nsw; s++) {
			r->hops[(size_t)s * ni + i] = r->dist[s] < HOPS_CUT ?
				(uint8_t)r->dist[s] : HOPS_CUT;
			r->first[(size_t)s * ni + i] = r->col[s];
			r->arrive[(size_t)s * ni + i] = KR_DIR_NONE;
		}
		arrivals(r, &x, r->arrive + i);
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
		     size_t *cap, uint32_t pos, unsigned dim)
{
	if (kr_grow(fault, cap, (size_t)*n + 1, sizeof(**fault)))
		return KR_ENOMEM;
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
	size_t cap = 0;
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

/* Makes the turns of the columns built next keep to anchor a. */
static void use_anchor(struct repair *r, unsigned a)
{
	r->cur_anchor = a;
	r->off_anchor = r->off_all + (size_t)a * r->nsw;
}

/* How good position c is as an anchor for the faults: faults in its
 * plane first, then (with forced) the faults in the top dimension at its
 * top coordinate, then the climbs to reach it. Every route to the switch
 * of such a fault from elsewhere turns into a lower dimension at that
 * coordinate, whatever the anchor: another class's anchored turns there
 * would share their channels. */
static uint64_t anchor_cost(const struct kr_topo *t, uint32_t c,
			    const struct kr_missing_link *fault, uint32_t nfault,
			    bool forced)
{
	uint64_t in_plane = 0, top = 0, climb = 0;
	unsigned d = t->ndim - 1;

	for (uint32_t i = 0; i < nfault; i++) {
		unsigned n = differ_above(t, c, fault[i].pos, fault[i].dim);

		in_plane += fault[i].dim < d && !n;
		top += forced && fault[i].dim == d &&
		       kr_topo_coord(t, c, d) == kr_topo_coord(t, fault[i].pos, d);
		climb += n > 1 ? n - 1 : 0;
	}
	return in_plane << 48 | top << 32 | climb;
}

/* The least-cost position for anchor a whose top coordinate differs from
 * anchors lo..a-1's, into r->anchor[a]; its cost. Of equals, the first
 * from position start on, around: class anchors start at top coordinates
 * spread over the dimension, so that a new fault in one's plane moves
 * that one alone, to the next plane clear of faults, from one sweep to
 * the next. */
static uint64_t pick_anchor(struct repair *r, unsigned a, unsigned lo,
			    uint32_t start, const struct kr_missing_link *fault,
			    uint32_t nfault)
{
	const struct kr_topo *t = r->topo;
	unsigned top = t->ndim - 1;
	uint64_t best = UINT64_MAX;

	r->anchor[a] = 0;
	for (uint32_t i = 0; i < t->npos; i++) {
		uint32_t c = (start + i) % t->npos;
		uint64_t cost = anchor_cost(t, c, fault, nfault, lo > 0);
		unsigned b = lo;

		while (b < a && kr_topo_coord(t, r->anchor[b], top) !=
				kr_topo_coord(t, c, top))
			b++;
		if (b == a && cost < best) {
			best = cost;
			r->anchor[a] = c;
		}
	}
	return best;
}

/* Each switch's highest dimension off anchor a, for turn_ok. */
static void mark_off_anchor(struct repair *r, unsigned a)
{
	const struct kr_topo *t = r->topo;

	for (uint32_t u = 0; u < r->nsw; u++) {
		uint8_t *off = &r->off_all[(size_t)a * r->nsw + u];

		*off = 0;
		for (unsigned d = 0; t->sw_pos[u] != KR_NONE && d < t->ndim; d++)
			if (kr_topo_coord(t, t->sw_pos[u], d) !=
			    kr_topo_coord(t, r->anchor[a], d))
				*off = (uint8_t)(d + 1);
	}
}

/* The anchors: a fault in dimension d is detoured by a turn into d at a
 * router sharing an anchor's coordinates above d, so an anchor should
 * differ from the fault there (else that plane holds the fault), and in
 * one dimension only (each more is a hop up to the plane and one back).
 * Anchor 0 is the one anchor of COL_ONE_ANCHOR columns; anchors 1..n are
 * the classes', with pairwise different top coordinates, as many as
 * there are classes and planes no worse than the first's. */
int repair_choose_anchor(struct repair *r)
{
	struct kr_missing_link *fault = NULL;
	uint32_t nfault = 0;
	const struct kr_slvl *p = r->plan;
	unsigned n = 1, q = p->classify == KR_CLASSIFY_IODET ? 1 : p->nclass;
	uint64_t first = 0;
	int rc = list_faults(r, &fault, &nfault);

	pick_anchor(r, 0, 0, 0, fault, nfault);
	mark_off_anchor(r, 0);
	r->distinct = false;
	for (unsigned a = 1; a <= q && a < KR_NSL && nfault && !rc; a++) {
		uint32_t top = r->topo->ndim - 1, start = (a - 1) *
			r->topo->k[top] / q * r->topo->stride[top];
		uint64_t cost = pick_anchor(r, a, 1, start, fault, nfault);

		/* a plane holding a fault the first avoids is none */
		if (a > 1 && cost >> 48 > first >> 48)
			break;
		first = a == 1 ? cost : first;
		n = a;
		mark_off_anchor(r, a);
		r->distinct |= r->anchor[a] != r->anchor[0];
	}
	free(fault);
	/* classes ride disjoint VLs: each may turn at an anchor of its own */
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		r->anchor_of_sl[sl] = (uint8_t)(r->distinct ?
			1 + kr_slvl_class_of(p, sl) % n : 0);
	use_anchor(r, 0);
	return rc;
}

/* The anchor of x's class (x's planned SL). */
static unsigned class_anchor(const struct repair *r, const struct rdest *x)
{
	return r->anchor_of_sl[r->t->dlid_sl[x->lid]];
}

void repair_anchor_for(struct repair *r, const struct rdest *x,
		       enum col_mode mode)
{
	use_anchor(r, mode == COL_ONE_ANCHOR ? 0 : class_anchor(r, x));
}

enum col_mode repair_other_anchoring(const struct repair *r,
				     const struct rdest *x)
{
	if (r->anchor[class_anchor(r, x)] == r->anchor[0])
		return r->first_mode;	/* both anchorings agree */
	if (r->first_mode == COL_ANCHORED)
		return COL_ONE_ANCHOR;
	return r->first_mode == COL_ONE_ANCHOR ? COL_ANCHORED : r->first_mode;
}

/* Shortest hops from every switch to the target over live links; kept
 * for the next destination on the same switch. */
void repair_live_distances(struct repair *r, uint32_t target)
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

		for (uint32_t l = r->link_start[u]; l < r->link_start[u + 1]; l++) {
			uint32_t v = r->link_to[l];

			if (r->live[v] == UNREACHED) {
				r->live[v] = r->live[u] + 1;
				r->queue[tail++] = v;
			}
		}
	}
}

/* A grid switch's dimension and sign of a port, or KR_DIR_NONE. */
unsigned repair_port_dir(const struct repair *r, uint32_t sw, unsigned port)
{
	return port && port <= r->f->nports[sw] ?
	       r->topo->port_dir[r->f->port0[sw] + port] : KR_DIR_NONE;
}

/* Whether the packets leaving router u by out cross their subnet by one
 * stage-0 switch to the next router, as they cross a crossbar: the turn
 * VL carries only that first hop, and deeper in a subnet its switches
 * map them back onto the VL of dimension-order packets bound for every
 * other router of the line, which can join the detours of two lines in a
 * loop (docs/design.md, "Anchored intermediates"): such turns come first. */
static bool one_leaf_on(const struct repair *r, uint32_t u, unsigned out)
{
	const struct kr_topo *t = r->topo;
	uint32_t leaf = repair_next(r, u, out), next;

	if (!r->one_leaf || leaf == KR_NONE || t->sw_pos[leaf] != KR_NONE)
		return true;
	next = repair_next(r, leaf, r->col[leaf]);
	return next != KR_NONE && t->sw_pos[next] != KR_NONE;
}

/* Whether a turn at switch u, arriving by a port of direction din and
 * leaving by port out, is one an anchored column may use. Dimension-order
 * turns climb dimensions; a turn into a lower dimension d is kept to
 * routers agreeing with the column's anchor in every dimension above d.
 * Between two such turns a cycle would have to climb, leaving the anchor's
 * coordinates above d, and then meet a router holding them again: it
 * cannot, so these turns close no loop on one VL, whatever the classes,
 * and the classes' anchors differ in the top dimension, so their turns
 * share no channel (docs/design.md, "Anchored intermediates"). Going
 * straight on where two dimension-order paths join runs further along a
 * ring than either path would, past what the ring's VL bits planned for:
 * it counts as a turn into that dimension.
 * A turn into a KNS crossbar's own LID is exempt: its VL carries only
 * such last hops, so no channel waits on it. */
int repair_turn_ok(const struct repair *r, uint32_t u, unsigned din,
		   unsigned out, uint32_t target, int junction)
{
	const struct kr_topo *t = r->topo;
	unsigned dout = repair_port_dir(r, u, out);

	if (t->sw_pos[u] == KR_NONE || din >= 2 * KR_MAX_DIM ||
	    dout >= 2 * KR_MAX_DIM ||
	    (repair_next(r, u, out) == target && t->sw_pos[target] == KR_NONE) ||
	    (din >> 1) < (dout >> 1))
		return 1;
	if (din == dout)
		return 0;	/* back the way it came */
	if ((din >> 1) == (dout >> 1) && !junction)
		return 1;	/* straight on along a dimension-order path */
	return r->off_anchor[u] <= (dout >> 1) + 1u && one_leaf_on(r, u, out);
}


void repair_mark_carriers(struct repair *r, uint32_t target)
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
void repair_unroute_incomplete(struct repair *r, const struct rdest *x)
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
		    !repair_turn_ok(r, s, r->topo->port_dir[r->f->port0[s] + p], out,
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
		    !repair_turn_ok(r, u, din, out, target, junction))
			return 0;	/* back at s: a loop; or cut */
		din = repair_arrival_dir(r, u, out);
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

/* The least-cost intermediate for s at level lvl that an anchored
 * column's turn rules admit (the first in grid order of equals; KR_NONE:
 * none), its index in *vi and cost in *best. */
static uint32_t best_via(struct repair *r, uint32_t s, unsigned lvl,
			 uint32_t target, uint32_t *vi, uint32_t *best)
{
	const uint8_t *h = r->hops + (size_t)s * r->ni;
	uint32_t via = KR_NONE;

	*best = UNREACHED;
	for (uint32_t i = 0; i < r->ni && *best > r->live[s]; i++) {
		uint32_t in = r->isw[i], c;

		if (h[i] == HOPS_CUT || r->lvl[in] >= lvl)
			continue;
		c = h[i] + r->cost[in];
		if (c >= *best)
			continue;
		/* the turn at I rules most out before a walk */
		if (r->anchored &&
		    (!repair_turn_ok(r, in, r->arrive[(size_t)s * r->ni + i],
				     r->col[in], target, 1) ||
		     !anchored_ok(r, s, i, target)))
			continue;
		*best = c;
		via = in;
		*vi = i;
	}
	return via;
}

/* Level lvl: every unrouted switch with a fault-free dimension-order path
 * to an intermediate routed at a lower level (R1, R2; R3 at level 2). */
void repair_route_via_intermediates(struct repair *r, unsigned lvl,
				    uint32_t target)
{
	for (uint32_t s = 0; s < r->nsw; s++) {
		uint32_t best, via, vi = 0;

		if (r->lvl[s] != LVL_NONE || r->live[s] == UNREACHED)
			continue;
		/* in subnets, turns whose packets leave the turn VL at the
		 * next router first (one_leaf_on), else any anchored one */
		r->one_leaf = r->anchored && r->topo->s > 1;
		via = best_via(r, s, lvl, target, &vi, &best);
		if (via == KR_NONE && r->one_leaf) {
			r->one_leaf = 0;
			via = best_via(r, s, lvl, target, &vi, &best);
		}
		r->one_leaf = 0;
		if (via == KR_NONE)
			continue;
		r->lvl[s] = (uint8_t)lvl;
		r->cost[s] = best;
		r->col[s] = r->first[(size_t)s * r->ni + vi];
		if (r->anchored)
			repoint_plan(r, s, vi, lvl);
	}
}
