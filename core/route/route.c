/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Dimension-order routing for KNS (Hybrid-DOR, thesis 4.4.1) and for tori
 * and meshes, one LFT row at a time.
 *
 * Every destination LID is reduced to a target switch and the port that
 * delivers at that switch (port 0 for the switch itself). A KNS crossbar is
 * a target "on a line": routers reach it through the line's routers, so its
 * own dimension is ignored on the way ("masked"). At a switch the first
 * dimension in the LID's order where the switch and the target differ picks
 * a port group: a direction of a torus ring, a router's crossbar, or a
 * crossbar's router. The destinations of a group of parallel links are
 * shared out so that each link carries about the same CA-to-CA traffic
 * (row_parallel). */
#include "kr_route.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_thread.h"

/* What a switch row needs to know about one LID. */
struct dest {
	uint32_t target;	/* switch, KR_NONE: LID unused */
	uint32_t tpos;		/* grid position, or a crossbar's line */
	uint8_t local;		/* port delivering at the target */
	uint8_t mask;		/* dimension to ignore (crossbar), KR_NO_DIM */
	uint8_t order;		/* dimension order index (LMC offset) */
	uint8_t parity;		/* tie-break bit, see tie_goes_minus() */
};

/* LIDs that share target, order and tie parity share a class: a row is
 * computed once per class and then gathered per LID, since most fabrics have
 * several LIDs per switch (CAs, LMC ranges). Parallel-link groups and local
 * delivery, which differ per LID, are patched in afterwards. */
struct router {
	const struct kr_fabric *f;
	const struct kr_topo *t;
	struct dest *cls;		/* [ncls] */
	uint32_t ncls;
	uint32_t *dcl;			/* [stride] class of each LID, KR_NONE */
	uint32_t *lstart;		/* [nsw + 1] LIDs delivered at each switch */
	uint32_t *llid;
	uint8_t *lport;			/* [stride] port delivering llid[i] */
	uint8_t *portof;		/* [ncls] the row's port per class */
	uint8_t *multi;			/* [ncls] class's group has parallel links */
	uint8_t *gof;			/* [ncls] ... that group, in this row */
	uint64_t *wof;			/* [ncls] ... what a CA LID of it draws:
					 * on a torus or mesh the sources that
					 * reach it through this switch on the
					 * pristine grid (draw), so that a link
					 * down elsewhere changes nothing here;
					 * on a KNS 1, every CA alike */
	uint8_t *is_ca;			/* [stride] LID of a CA port */
	bool slot_ties;			/* CA slots split ties (tie_parity) */
	uint8_t dirtab[KR_MAX_DIM][256];	/* the row's ring directions */
	uint8_t *coord;			/* [npos * ndim] */
	unsigned norder;
	unsigned order[128][KR_MAX_DIM];
	unsigned ngroup;		/* groups per switch */
	uint32_t *gstart;		/* [nsw * ngroup + 1] into gport */
	uint8_t *gport;
	struct par_lid *plid;		/* [2 * stride] row_parallel's LIDs */
	uint32_t *pcount;		/* [npcount] its counting sort */
	size_t npcount;			/* max draw + 2 */
	uint64_t *pload;		/* [512] its traffic and LIDs per port */
	uint32_t *through[KR_MAX_DIM];	/* torus, mesh: [(t * k + c) * 2 +
					 * parity] the places of a line whose
					 * way to t leaves c (row_parallel) */
	uint32_t before[128][KR_MAX_DIM];	/* places of the dimensions an
						 * order corrects before e */
	uint64_t (*dok)[4];		/* [nsw] subnet switch: coordinates of
					 * its line it reaches going down */
	uint64_t (*uok)[4];		/* [nsw] ... going up, then down */
};

static unsigned factorial(unsigned n)
{
	unsigned r = 1;

	while (n > 1)
		r *= n--;
	return r;
}

static int next_perm(unsigned *a, unsigned n)
{
	int i = (int)n - 2, j = (int)n - 1;

	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (a[j] <= a[i])
		j--;
	unsigned tmp = a[i];

	a[i] = a[j];
	a[j] = tmp;
	for (unsigned l = (unsigned)i + 1, r = n - 1; l < r; l++, r--) {
		tmp = a[l];
		a[l] = a[r];
		a[r] = tmp;
	}
	return 1;
}

/* Position permutation number j in the documented sequence: identity,
 * first two swapped, then the rest lexicographically. */
static void nth_perm(unsigned n, unsigned j, unsigned *perm)
{
	unsigned skipped = 0;

	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	j %= factorial(n);
	if (j == 1 && n >= 2) {
		perm[0] = 1;
		perm[1] = 0;
		return;
	}
	while (j > 1 && next_perm(perm, n)) {
		if (n >= 2 && perm[0] == 1 && perm[1] == 0 && !skipped) {
			int rest_sorted = 1;

			for (unsigned i = 2; i + 1 < n; i++)
				rest_sorted &= perm[i] < perm[i + 1];
			if (rest_sorted) {
				skipped = 1;
				continue;
			}
		}
		j--;
	}
}

void kr_route_order(const struct kr_topo *topo, const struct kr_conf *c,
		    unsigned j, unsigned *order)
{
	unsigned base[KR_MAX_DIM], perm[KR_MAX_DIM], n = topo->ndim;

	for (unsigned i = 0; i < n; i++)
		base[i] = c && c->norder == n ? c->order[i] : i;
	nth_perm(n, j, perm);
	for (unsigned i = 0; i < n; i++)
		order[i] = base[perm[i]];
}

const char *kr_route_host_hint(const struct kr_fabric *f,
			       const struct kr_topo *topo,
			       const struct kr_conf *c, char *buf, size_t len)
{
	unsigned order[KR_MAX_DIM], dims = 0, late = KR_NO_DIM;
	uint32_t host = KR_NONE, xbar = KR_NONE;

	buf[0] = '\0';
	if (topo->family != KR_FAMILY_KNS || !topo->sw_xdim)
		return buf;
	kr_route_order(topo, c, 0, order);
	for (uint32_t s = 0; s < f->port0[f->nsw]; s++) {
		unsigned d;

		if (!kr_topo_xbar_host(f, topo, s))
			continue;
		d = topo->sw_xdim[f->owner[s]];
		dims |= 1u << d;
		if (d != order[0] && late == KR_NO_DIM) {
			late = d;
			host = f->owner[f->peer[s]];
			xbar = f->owner[s];
		}
	}
	if (late == KR_NO_DIM)
		return buf;
	snprintf(buf, len, "; hosts hang off crossbars%s (\"%s\" off \"%s\", "
		 "dimension %u): their packets to switches turn against the "
		 "dimension order after their first hop, unless knsroute.conf's "
		 "order puts their crossbars' dimension first%s",
		 dims & (dims - 1) ? " of several dimensions" : "",
		 kr_node_name(f, host), kr_node_name(f, xbar), late,
		 dims & (dims - 1) ? " (possible only when they share one)" : "");
	return buf;
}

/* Whether n orders leave the SLs and VLs that fit() in slvl.c gives, after
 * the ring halves, to KNS crossbar traffic, the detour layers and the
 * multicast SLs (each unicast code equal to one moves to a spare SL). */
static bool orders_fit(const struct kr_fabric *f, const struct kr_topo *topo,
		       const struct kr_conf *c, unsigned n)
{
	unsigned rings = 0, bits = kr_ceil_log2(n), codes, sls, vls;
	unsigned xbar = kr_topo_xbar_sl(topo);
	unsigned detour = kr_conf_detour_vls(c);
	unsigned mcast = kr_conf_mcast_sls(c);

	for (unsigned d = 0; d < topo->ndim; d++)
		rings += kr_topo_ring_halves(topo, d);
	if (rings + bits > 4)
		return false;
	codes = 1u << (rings + bits);
	sls = codes + xbar + detour + (detour > 1) +
	      (unsigned)__builtin_popcount(mcast & ((1u << codes) - 1));
	vls = n * (rings ? 2 : 1) + xbar + detour + (!detour && mcast);
	return sls <= KR_NSL &&
	       vls <= kr_topo_vls(f, topo, kr_conf_vls(c));
}

unsigned kr_route_norders(const struct kr_fabric *f, const struct kr_topo *topo,
			  const struct kr_conf *c, unsigned *wanted)
{
	unsigned lmc = 0, n, least;

	for (uint32_t s = 0; s < f->nport; s++)
		if (f->lid[s] && f->lmc[s] > lmc)
			lmc = f->lmc[s];
	n = factorial(topo->ndim);
	n = (1u << lmc) < n ? 1u << lmc : n;
	if (wanted)
		*wanted = n;
	least = c && c->classify == KR_CLASSIFY_DBBQ && n > 1 ? 2 : 1;
	while (n > least && !orders_fit(f, topo, c, n))
		n--;
	return n;
}

/* row_scratch's: a router's own, also in a second thread's. */
static void row_scratch_free(struct router *b)
{
	free(b->portof);
	free(b->multi);
	free(b->gof);
	free(b->wof);
	free(b->plid);
	free(b->pcount);
	free(b->pload);
}

static void router_free(struct router *r)
{
	row_scratch_free(r);
	free(r->cls);
	free(r->dcl);
	free(r->lstart);
	free(r->llid);
	free(r->lport);
	free(r->is_ca);
	free(r->coord);
	free(r->gstart);
	for (unsigned d = 0; d < KR_MAX_DIM; d++)
		free(r->through[d]);
	free(r->gport);
	free(r->dok);
	free(r->uok);
}

/* Digit j of a subnet order or router coordinate in base a. */
static unsigned digit(uint32_t v, unsigned a, unsigned j)
{
	while (j--)
		v /= a;
	return v % a;
}

/* Subnet switch sw at stage e: a link down to the router with coordinate
 * c is group c's digit 0, a link down to stage e-1 the child's digit e-1
 * (the one the link changes), a link up the parent's digit e plus a. */
static int subnet_port_group(const struct kr_topo *t, uint32_t sw, uint32_t nb)
{
	unsigned e = t->sw_stage[sw], a = t->arity;

	if (t->sw_pos[nb] != KR_NONE)
		return (int)(kr_topo_coord(t, t->sw_pos[nb], t->sw_xdim[sw]) % a);
	if (t->sw_stage[nb] + 1u == e)
		return (int)digit(t->sw_order[nb], a, e - 1);
	return (int)(a + digit(t->sw_order[nb], a, e));
}

/* The group a port belongs to at its switch, or -1. Torus and KNS routers
 * use the direction code; crossbars the coordinate of the router behind. */
static int port_group(const struct router *r, uint32_t sw, uint32_t slot)
{
	const struct kr_topo *t = r->t;
	const struct kr_fabric *f = r->f;
	uint8_t dir = t->port_dir[slot];

	if (dir == KR_DIR_XBAR && t->s > 1)
		return subnet_port_group(t, sw, f->owner[f->peer[slot]]);
	if (dir == KR_DIR_XBAR) {
		uint32_t nb = f->owner[f->peer[slot]];

		return (int)kr_topo_coord(t, t->sw_pos[nb], t->sw_xdim[sw]);
	}
	return dir < 2 * KR_MAX_DIM ? dir : -1;
}

/* CSR lists of the ports in each (switch, group): gstart[sw * ngroup + g]
 * .. gstart[sw * ngroup + g + 1] - 1 index gport. */
static int build_groups(struct router *r)
{
	const struct kr_fabric *f = r->f;
	size_t ng, *fill;

	r->ngroup = 2 * r->t->ndim;
	for (unsigned d = 0; d < r->t->ndim; d++)
		if (r->t->family == KR_FAMILY_KNS && r->t->k[d] > r->ngroup)
			r->ngroup = r->t->k[d];
	ng = (size_t)f->nsw * r->ngroup;
	r->gstart = calloc(ng + 1, sizeof(*r->gstart));
	r->gport = malloc(f->port0[f->nsw] + 1);
	fill = malloc((ng + 1) * sizeof(*fill));
	if (!r->gstart || !r->gport || !fill) {
		free(fill);
		return KR_ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
				int g = f->peer[s] >= 0 ? port_group(r, sw, s) : -1;
				size_t gi = (size_t)sw * r->ngroup + (unsigned)g;

				if (g < 0 || (unsigned)g >= r->ngroup)
					continue;
				if (pass == 0)
					r->gstart[gi + 1]++;
				else
					r->gport[fill[gi]++] =
						(uint8_t)(s - f->port0[sw]);
			}
		if (pass == 0) {
			for (size_t gi = 0; gi < ng; gi++)
				r->gstart[gi + 1] += r->gstart[gi];
			for (size_t gi = 0; gi <= ng; gi++)
				fill[gi] = r->gstart[gi];
		}
	}
	free(fill);
	return KR_OK;
}

static int build_coords(struct router *r)
{
	const struct kr_topo *t = r->t;

	r->coord = malloc((size_t)t->npos * t->ndim + 1);
	if (!r->coord)
		return KR_ENOMEM;
	for (uint32_t pos = 0; pos < t->npos; pos++)
		for (unsigned d = 0; d < t->ndim; d++)
			r->coord[(size_t)pos * t->ndim + d] =
				(uint8_t)kr_topo_coord(t, pos, d);
	return KR_OK;
}

/* Port number of one of from's links to switch to (parallel ones taken
 * in turn by LID), 0 when there is none. */
static unsigned port_towards(const struct kr_fabric *f, uint32_t from,
			     uint32_t to, unsigned lid)
{
	unsigned n = 0, pick;

	for (uint32_t s = f->port0[from] + 1; s < f->port0[from + 1]; s++)
		n += f->peer[s] >= 0 && f->owner[f->peer[s]] == to;
	if (!n)
		return 0;
	pick = lid % n;
	for (uint32_t s = f->port0[from] + 1; s < f->port0[from + 1]; s++)
		if (f->peer[s] >= 0 && f->owner[f->peer[s]] == to && !pick--)
			return kr_port_num(f, s);
	return 0;
}

/* The switch of a pendant tree that hangs off its host directly (the
 * root) and holds switch sw. */
static uint32_t pendant_root(const struct kr_topo *t, uint32_t sw)
{
	while (t->sw_parent[sw] != t->sw_host[sw])
		sw = t->sw_parent[sw];
	return sw;
}

/* The switch a LID's port hangs off and the port that reaches it there;
 * for a pendant's, its host and the port down its tree. */
static int lid_target(const struct router *r, uint32_t slot, unsigned lid,
		      struct dest *x)
{
	const struct kr_fabric *f = r->f;
	const struct kr_topo *t = r->t;
	uint32_t node = f->owner[slot], sw;

	if (kr_is_switch(f, node)) {
		sw = node;
		x->local = 0;
	} else {
		if (f->peer[slot] < 0)
			return 0;	/* a CA port without a link: unreachable */
		sw = f->owner[f->peer[slot]];
		x->local = (uint8_t)kr_port_num(f, (uint32_t)f->peer[slot]);
		if (!kr_is_switch(f, sw))
			return 0;	/* CA to CA: not part of the fabric */
	}
	if (kr_topo_grid_switch(t, sw) != sw) {	/* delivered down its tree */
		x->local = (uint8_t)port_towards(f, t->sw_host[sw],
						 pendant_root(t, sw), lid);
		sw = t->sw_host[sw];
	}
	x->target = sw;
	x->mask = KR_NO_DIM;
	if (t->sw_pos[sw] != KR_NONE) {
		x->tpos = t->sw_pos[sw];
	} else if (t->sw_xdim && t->sw_xdim[sw] != KR_NO_DIM) {
		x->tpos = t->sw_xline[sw];
		x->mask = t->sw_xdim[sw];
	} else {
		return KR_ETOPO;
	}
	return 0;
}

/* Ties (distance k/2 both ways) are split by the parity of the entry
 * coordinate plus the target's coordinates, so that the tie traffic of a
 * ring of size k leaves each place half each way: that holds when the
 * targets sharing a ring position vary in a dimension corrected later
 * (one of even size alternates the parity), or else when k/2 is even
 * (targets alternate along the ring and each tie covers an even number of
 * links). Where neither holds for some order in use, the CA slot joins the
 * sum and splits each target's own traffic. Otherwise the CAs of a switch
 * share their routes and their LFT columns repeat, which routing and the
 * check each do once (check_twin.c). */
static bool slots_split_ties(const struct router *r)
{
	const struct kr_topo *t = r->t;

	if (t->family == KR_FAMILY_KNS)
		return false;
	for (unsigned j = 0; j < r->norder; j++)
		for (unsigned i = 0; i < t->ndim; i++) {
			unsigned e = r->order[j][i];
			bool later_even = false;

			if (!t->wrap[e] || t->k[e] % 2 || t->k[e] % 4 == 0)
				continue;
			for (unsigned l = i + 1; l < t->ndim; l++)
				later_even |= t->k[r->order[j][l]] % 2 == 0;
			if (!later_even)
				return true;
		}
	return false;
}

static uint8_t tie_parity(const struct router *r, const struct dest *x,
			  uint32_t slot)
{
	const struct kr_topo *t = r->t;
	unsigned sum = r->slot_ties && t->ca_slot &&
		       t->ca_slot[slot] != KR_NONE ? t->ca_slot[slot] : 0;

	for (unsigned d = 0; d < t->ndim; d++)
		sum += r->coord[(size_t)x->tpos * t->ndim + d];
	return (uint8_t)(sum & 1);
}

static int lid_fail(const struct router *r, unsigned lid, uint32_t slot,
		    uint32_t sw, int rc, struct kr_diag *d)
{
	const struct kr_fabric *f = r->f;

	return kr_fail(d, rc, 0, "LID %u (\"%s\" port %u) hangs off switch "
		       "\"%s\", which is not part of the recognised grid", lid,
		       kr_node_name(f, f->owner[slot]), kr_port_num(f, slot),
		       kr_node_name(f, sw));
}

/* A class per distinct (target, order, parity); key_of maps that triple. */
static int classify_lids(struct router *r, uint32_t stride, uint32_t *key_of,
			 struct kr_diag *d)
{
	const struct kr_fabric *f = r->f;

	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t slot = kr_port_by_lid(f, lid), key;
		struct dest x = { .target = KR_NONE };
		int rc;

		r->dcl[lid] = KR_NONE;
		if (slot == KR_NONE)
			continue;
		rc = lid_target(r, slot, lid, &x);
		if (rc)
			return lid_fail(r, lid, slot, x.target, rc, d);
		if (x.target == KR_NONE)
			continue;
		x.order = (uint8_t)((lid - f->lid[slot]) % r->norder);
		x.parity = tie_parity(r, &x, slot);
		key = (x.target * r->norder + x.order) * 2 + x.parity;
		if (key_of[key] == KR_NONE) {
			key_of[key] = r->ncls;
			r->cls[r->ncls++] = x;
		}
		r->dcl[lid] = key_of[key];
		r->lstart[x.target + 1]++;
	}
	return KR_OK;
}

/* CSR lists of the LIDs each switch delivers itself (port 0 or a CA) and
 * the port each leaves by. */
static void list_local(struct router *r, uint32_t stride)
{
	const struct kr_fabric *f = r->f;
	uint32_t nsw = f->nsw, *fill = r->lstart + nsw + 1;

	for (uint32_t sw = 0; sw < nsw; sw++)
		r->lstart[sw + 1] += r->lstart[sw];
	memcpy(fill, r->lstart, nsw * sizeof(*fill));
	for (uint32_t lid = 0; lid < stride; lid++) {
		struct dest x;
		uint32_t i;

		if (r->dcl[lid] == KR_NONE)
			continue;
		lid_target(r, kr_port_by_lid(f, lid), lid, &x);
		i = fill[x.target]++;
		r->llid[i] = lid;
		r->lport[i] = x.local;
	}
}

static int build_classes(struct router *r, uint32_t stride, struct kr_diag *d)
{
	const struct kr_fabric *f = r->f;
	size_t nkey = (size_t)f->nsw * r->norder * 2;
	uint32_t *key_of = malloc(nkey * sizeof(*key_of));
	int rc = KR_ENOMEM;

	r->cls = malloc((size_t)stride * sizeof(*r->cls));
	r->dcl = malloc((size_t)stride * sizeof(*r->dcl));
	r->lstart = calloc(2 * (size_t)f->nsw + 2, sizeof(*r->lstart));
	r->llid = malloc((size_t)stride * sizeof(*r->llid));
	r->lport = malloc(stride);
	if (key_of && r->cls && r->dcl && r->lstart &&
	    r->llid && r->lport) {
		memset(key_of, 0xff, nkey * sizeof(*key_of));
		rc = classify_lids(r, stride, key_of, d);
	}
	if (!rc)
		list_local(r, stride);
	free(key_of);
	return rc;
}

#define TIE 0xff

/* The way from place c towards v != c along a line of k places: 0 up
 * (c + 1), 1 down, TIE where both ways round a ring are equally short
 * (grid_group splits those by parity). */
static unsigned line_way(unsigned c, unsigned v, unsigned k, bool ring)
{
	unsigned fwd = (v + k - c) % k, bwd = k - fwd;

	if (!ring)
		return v < c;
	return fwd == bwd ? TIE : bwd < fwd;
}

/* This row's direction group (2d or 2d+1) from coordinate c towards each
 * v in every dimension d, or TIE where both ways are equally short. */
static void row_directions(struct router *r, const uint8_t *sc)
{
	const struct kr_topo *t = r->t;

	for (unsigned d = 0; d < t->ndim; d++)
		for (unsigned v = 0; v < t->k[d]; v++) {
			unsigned w = line_way(sc[d], v, t->k[d], t->wrap[d]);

			r->dirtab[d][v] = (uint8_t)(w == TIE ? TIE : 2 * d + w);
		}
}

/* The group to use at grid switch sw (coordinates sc) for destination x, or
 * -1 when sw is on the target crossbar's line (go up to it). */
static int grid_group(const struct router *r, const uint8_t *sc,
		      const struct dest *x)
{
	const struct kr_topo *t = r->t;
	const uint8_t *tc = r->coord + (size_t)x->tpos * t->ndim;
	const unsigned *ord = r->order[x->order];

	for (unsigned i = 0; i < t->ndim; i++) {
		unsigned e = ord[i], g;

		if (e == x->mask || tc[e] == sc[e])
			continue;
		if (t->family == KR_FAMILY_KNS)
			return (int)(2 * e);
		g = r->dirtab[e][tc[e]];
		return (int)(g != TIE ? g : 2 * e + ((sc[e] + tc[e] + x->parity) & 1));
	}
	return -1;
}

static uint32_t group_size(const struct router *r, uint32_t sw, unsigned g)
{
	size_t gi = (size_t)sw * r->ngroup + g;

	return r->gstart[gi + 1] - r->gstart[gi];
}

/* Fat-tree routing (thesis 4.4.2) at stage e, order w, towards the router
 * with coordinate c on the line: down by c's digit e when c is below w
 * (c's digits above e are w's digits from e on), else up by the same
 * digit. */
static unsigned to_router(unsigned a, unsigned e, uint32_t w, unsigned c)
{
	uint32_t blk = 1;

	for (unsigned j = 0; j < e; j++)
		blk *= a;
	return c / (blk * a) == w / blk ? digit(c, a, e) : a + digit(c, a, e);
}

static uint32_t group_size(const struct router *r, uint32_t sw, unsigned g);

static int has(const uint64_t *set, unsigned c)
{
	return set[c >> 6] >> (c & 63) & 1;
}

/* The switch behind group g of sw (its first port), or KR_NONE. */
static uint32_t group_nb(const struct router *r, uint32_t sw, unsigned g)
{
	const struct kr_fabric *f = r->f;

	if (!group_size(r, sw, g))
		return KR_NONE;
	return f->owner[f->peer[f->port0[sw] +
			r->gport[r->gstart[(size_t)sw * r->ngroup + g]]]];
}

/* Faults inside subnets are repaired there: dok, uok say which routers of
 * its line each subnet switch still reaches down the digits' path, or up
 * any parent and then down; on a pristine subnet both are everything
 * below it and every router of the line. */
static int subnet_reach(struct router *r)
{
	const struct kr_topo *t = r->t;
	const struct kr_fabric *f = r->f;
	unsigned a = t->arity;

	r->dok = calloc((size_t)f->nsw + 1, sizeof(*r->dok));
	r->uok = calloc((size_t)f->nsw + 1, sizeof(*r->uok));
	if (!r->dok || !r->uok)
		return KR_ENOMEM;
	for (unsigned e = 0; e < t->s; e++)
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (unsigned g = 0; t->sw_pos[sw] == KR_NONE &&
					     t->sw_stage[sw] == e && g < a; g++) {
				uint32_t nb = group_nb(r, sw, g);

				if (nb == KR_NONE)
					continue;
				if (!e) {
					unsigned c = kr_topo_coord(t, t->sw_pos[nb],
								   t->sw_xdim[sw]);

					r->dok[sw][c >> 6] |= 1ull << (c & 63);
				} else {
					for (unsigned i = 0; i < 4; i++)
						r->dok[sw][i] |= r->dok[nb][i];
				}
			}
	for (unsigned e = t->s; e-- > 0;)
		for (uint32_t sw = 0; sw < f->nsw; sw++) {
			if (t->sw_pos[sw] != KR_NONE || t->sw_stage[sw] != e)
				continue;
			memcpy(r->uok[sw], r->dok[sw], sizeof(r->uok[sw]));
			for (unsigned g = a; g < 2 * a; g++) {
				uint32_t nb = group_nb(r, sw, g);

				for (unsigned i = 0; i < 4 && nb != KR_NONE; i++)
					r->uok[sw][i] |= r->uok[nb][i];
			}
		}
	return KR_OK;
}

/* Down by the digit where the router is still reached below, else up to
 * the parent the digit names or, if that one cannot reach it any more,
 * the next one that can (a switch whose own way down broke only gets
 * packets that climb: its parents see that it cannot deliver); no group
 * left: the digit's, maybe without a link (kr_repair's turn). */
static unsigned subnet_group(const struct router *r, uint32_t sw,
			     const struct dest *x)
{
	const struct kr_topo *t = r->t;
	unsigned d = t->sw_xdim[sw], a = t->arity, e = t->sw_stage[sw];
	/* subnet switches get their columns from route_updn.c */
	unsigned c = x->mask == d ? 0 : r->coord[(size_t)x->tpos * t->ndim + d];
	unsigned g = to_router(a, e, t->sw_order[sw], c);

	if (has(r->dok[sw], c))
		return g;
	for (unsigned i = 0; i < a; i++) {
		unsigned up = a + (digit(c, a, e) + i) % a;
		uint32_t nb = group_nb(r, sw, up);

		if (nb != KR_NONE && has(r->uok[nb], c))
			return up;
	}
	return g;
}

/* The group class x leaves switch sw by. */
static unsigned class_group(const struct router *r, uint32_t sw,
			    const uint8_t *sc, unsigned xdim,
			    const struct dest *x)
{
	const struct kr_topo *t = r->t;
	int g;

	if (sc) {
		g = grid_group(r, sc, x);
		return g >= 0 ? (unsigned)g : 2u * x->mask;
	}
	if (t->s > 1)
		return subnet_group(r, sw, x);
	/* a crossbar: to the router on its line that matches the target in
	 * its dimension; a crossbar target of this dimension on another line
	 * is never reached this way (DOR climbs to a crossbar only on its own
	 * line), it gets coordinate 0 of the line to keep every entry defined */
	return xdim == x->mask ? 0 : r->coord[(size_t)x->tpos * t->ndim + xdim];
}

/* One step from c towards t along a line of k places, as grid_group
 * goes: a tie by the parity of c + t + parity (odd: down). */
static unsigned line_step(unsigned c, unsigned t, unsigned k, bool ring,
			  unsigned parity)
{
	unsigned w = line_way(c, t, k, ring);

	if (w == TIE)
		w = (c + t + parity) & 1;
	return w ? (c + k - 1) % k : (c + 1) % k;
}

/* r->through: for each target t, place c and tie parity of a dimension,
 * the places whose way to t passes c and leaves it (c itself included). */
static int build_through(struct router *r)
{
	const struct kr_topo *t = r->t;

	for (unsigned j = 0; j < r->norder; j++)
		for (unsigned i = 0, prod = 1; i < t->ndim; i++) {
			r->before[j][r->order[j][i]] = prod;
			prod *= t->k[r->order[j][i]];
		}
	for (unsigned d = 0; d < t->ndim; d++) {
		unsigned k = t->k[d];
		uint32_t *n = calloc((size_t)k * k * 2, sizeof(*n));

		if (!n)
			return KR_ENOMEM;
		r->through[d] = n;
		for (unsigned to = 0; to < k; to++)
			for (unsigned par = 0; par < 2; par++)
				for (unsigned x = 0; x < k; x++)
					for (unsigned c = x; c != to;
					     c = line_step(c, to, k, t->wrap[d], par))
						n[((size_t)to * k + c) * 2 + par]++;
	}
	return KR_OK;
}

/* The CA-to-CA traffic towards x that leaves grid switch sc by dimension
 * e, per CA of a switch, on the pristine grid: sources anywhere in the
 * dimensions x's order corrects before e, on sc's line of e behind sc,
 * and at sc in the later ones. */
static uint64_t draw(const struct router *r, const uint8_t *sc,
		     const struct dest *x, unsigned e)
{
	const struct kr_topo *t = r->t;
	const uint8_t *tc = r->coord + (size_t)x->tpos * t->ndim;
	uint64_t n = r->through[e][((size_t)tc[e] * t->k[e] + sc[e]) * 2 +
				   x->parity];

	return n * r->before[x->order][e];
}

/* portof[] for this row; returns whether any class needs parallel links. */
static int row_classes(struct router *r, uint32_t sw, const uint8_t *sc,
		       unsigned xdim)
{
	int any_multi = 0;

	for (uint32_t u = 0; u < r->ncls; u++) {
		const struct dest *x = &r->cls[u];
		unsigned g;
		uint32_t n;

		r->multi[u] = 0;
		r->portof[u] = KR_NO_PORT;
		if (x->target == sw)
			continue;	/* delivered here: patched per LID */
		g = class_group(r, sw, sc, xdim, x);
		n = group_size(r, sw, g);
		if (n == 1) {
			r->portof[u] = r->gport[r->gstart[(size_t)sw * r->ngroup + g]];
		} else if (n > 1) {
			r->multi[u] = 1;
			r->gof[u] = (uint8_t)g;
			r->wof[u] = r->through[0] && sc ? draw(r, sc, x, g / 2) : 1;
			any_multi = 1;
		}
	}
	return any_multi;
}

/* The row's LIDs on parallel links, heaviest draw first (then by LID):
 * a counting sort on the draw, whose values are few and small. */
struct par_lid {
	uint32_t lid;
	unsigned g;
	uint64_t w;
};

static void sort_by_draw(struct par_lid *pl, struct par_lid *tmp, size_t n,
			 uint32_t *count, uint64_t maxw)
{
	memset(count, 0, (maxw + 2) * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		count[maxw - pl[i].w + 1]++;
	for (uint64_t w = 1; w <= maxw + 1; w++)
		count[w] += count[w - 1];
	for (size_t i = 0; i < n; i++)
		tmp[count[maxw - pl[i].w]++] = pl[i];
	memcpy(pl, tmp, n * sizeof(*pl));
}

/* Parallel links: the row's LIDs on each group, heaviest draw first, each
 * to the link with the least traffic so far (then the fewest LIDs):
 * longest processing time first, so that the busiest link of a group
 * carries little more than its share, whatever the LIDs' order. A LID
 * draws CA-to-CA traffic (r->wof) when it is a CA's; a switch's LID draws
 * management traffic alone. */
static void row_parallel(struct router *r, uint32_t sw, uint8_t *row,
			 uint32_t stride)
{
	uint64_t *load = r->pload, *nlid = r->pload + 256, maxw = 0;
	size_t n = 0;

	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t u = r->dcl[lid];
		uint64_t w;

		if (u == KR_NONE || !r->multi[u])
			continue;
		w = r->is_ca[lid] ? r->wof[u] : 0;
		r->plid[n++] = (struct par_lid){ lid, r->gof[u], w };
		maxw = w > maxw ? w : maxw;
	}
	sort_by_draw(r->plid, r->plid + stride, n, r->pcount, maxw);
	memset(load, 0, 512 * sizeof(*load));
	for (size_t i = 0; i < n; i++) {
		const struct par_lid *pl = &r->plid[i];
		const uint8_t *port = r->gport +
				      r->gstart[(size_t)sw * r->ngroup + pl->g];
		size_t size = group_size(r, sw, pl->g);
		unsigned best;

		best = port[0];
		for (size_t j = 1; j < size; j++)
			if (load[port[j]] < load[best] ||
			    (load[port[j]] == load[best] &&
			     nlid[port[j]] < nlid[best]))
				best = port[j];
		load[best] += pl->w;
		nlid[best]++;
		row[pl->lid] = (uint8_t)best;
	}
}

/* A pendant switch's row: its own LIDs and its CAs' delivered, those of
 * the trees below it down to them, every other one up to its parent. */
static void pendant_row(const struct router *r, uint32_t sw, uint8_t *row,
			uint32_t stride)
{
	const struct kr_fabric *f = r->f;
	const struct kr_topo *t = r->t;

	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t slot = kr_port_by_lid(f, lid), below, at;

		row[lid] = KR_NO_PORT;
		if (r->dcl[lid] == KR_NONE)
			continue;	/* no target in the fabric */
		at = f->owner[slot];
		if (!kr_is_switch(f, at)) {
			at = f->owner[f->peer[slot]];
			if (at == sw) {
				row[lid] = (uint8_t)kr_port_num(f, (uint32_t)
							       f->peer[slot]);
				continue;
			}
		} else if (at == sw) {
			row[lid] = 0;
			continue;
		}
		for (below = at; below != KR_NONE && t->sw_parent[below] != sw;)
			below = t->sw_parent[below];
		row[lid] = (uint8_t)port_towards(f, sw, below != KR_NONE ? below
						 : t->sw_parent[sw], lid);
	}
}

static void route_row(struct router *r, uint32_t sw, uint8_t *row,
		      uint32_t stride)
{
	const struct kr_topo *t = r->t;
	uint32_t pos = t->sw_pos[sw];
	unsigned xdim = t->sw_xdim ? t->sw_xdim[sw] : KR_NO_DIM;
	const uint8_t *sc = pos != KR_NONE ? r->coord + (size_t)pos * t->ndim : NULL;
	const uint32_t *dcl = r->dcl;
	const uint8_t *portof = r->portof;
	int multi;

	if (kr_topo_grid_switch(t, sw) != sw) {
		pendant_row(r, sw, row, stride);
		return;
	}
	if (sc && t->family != KR_FAMILY_KNS)
		row_directions(r, sc);
	multi = row_classes(r, sw, sc, xdim);
	for (uint32_t lid = 0; lid < stride; lid++)
		row[lid] = dcl[lid] == KR_NONE ? KR_NO_PORT : portof[dcl[lid]];
	for (uint32_t i = r->lstart[sw]; i < r->lstart[sw + 1]; i++)
		row[r->llid[i]] = r->lport[i];
	if (multi)
		row_parallel(r, sw, row, stride);
}

/* row_parallel's tables, when some group has parallel links (then
 * r->npcount is set, for row_scratch). The counting sort's range: no LID
 * draws more than every source of the grid (per CA of a switch), or one
 * per LID on a KNS. */
static int parallel_scratch(struct router *r, uint32_t stride)
{
	int torus = r->t->family != KR_FAMILY_KNS;
	uint64_t maxw = torus ? r->t->npos : 1;
	bool any = false;

	for (uint32_t sw = 0; sw < r->f->nsw && !any; sw++)
		for (unsigned g = 0; g < r->ngroup && !any; g++)
			any = group_size(r, sw, g) > 1;
	if (!any)
		return KR_OK;
	if (torus && build_through(r))
		return KR_ENOMEM;
	r->npcount = maxw + 2;
	if (!(r->is_ca = malloc(stride)))
		return KR_ENOMEM;
	for (uint32_t lid = 0; lid < stride; lid++) {
		uint32_t slot = kr_port_by_lid(r->f, lid);

		r->is_ca[lid] = slot != KR_NONE &&
				!kr_is_switch(r->f, r->f->owner[slot]);
	}
	return KR_OK;
}

static int check_topo(const struct kr_topo *t, const struct kr_fabric *f,
		      struct kr_diag *d)
{
	if (t->family == KR_FAMILY_NONE || !t->ndim || !t->sw_pos ||
	    !t->port_dir)
		return kr_fail(d, KR_ETOPO, 0, "no recognised topology to route");
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		if (t->sw_pos[sw] == KR_NONE &&
		    (!t->sw_xdim || t->sw_xdim[sw] == KR_NO_DIM) &&
		    kr_topo_grid_switch(t, sw) == sw)
			return kr_fail(d, KR_ETOPO, 0, "switch \"%s\" has no "
				       "place in the recognised %s",
				       kr_node_name(f, sw),
				       kr_family_name(t->family));
	return KR_OK;
}

/* What route_row writes, for one thread: the port per class and, with
 * parallel links (r->npcount), row_parallel's scratch. */
static int row_scratch(struct router *r, uint32_t stride)
{
	r->portof = malloc(stride);
	r->multi = malloc(stride);
	if (r->npcount) {
		r->plid = malloc(2 * (size_t)stride * sizeof(*r->plid));
		r->pcount = malloc(r->npcount * sizeof(*r->pcount));
		r->pload = malloc(512 * sizeof(*r->pload));
		r->gof = malloc(r->ncls + 1);
		r->wof = malloc((r->ncls + 1) * sizeof(*r->wof));
	}
	return r->portof && r->multi && (!r->npcount || (r->plid &&
	       r->pcount && r->pload && r->gof && r->wof)) ? KR_OK : KR_ENOMEM;
}

struct rows {
	struct router *r;
	uint8_t *lft;
	uint32_t stride, from, to;
};

static void *route_rows(void *arg)
{
	const struct rows *w = arg;

	for (uint32_t sw = w->from; sw < w->to; sw++)
		route_row(w->r, sw, w->lft + (size_t)sw * w->stride, w->stride);
	return NULL;
}

/* Rows are independent: with threads 2 (0: when the table is large
 * enough to gain), a second thread takes the upper half of the switches.
 * Without the memory or the thread for it, this one takes them all. */
static void route_all(struct router *r, uint8_t *lft, uint32_t stride,
		      unsigned threads)
{
	uint32_t nsw = r->f->nsw;
	struct router b;
	struct rows lo = { r, lft, stride, 0, nsw }, hi = lo;
	pthread_t th;

	if (!threads)
		threads = (uint64_t)nsw * stride >= KR_ROUTE_THREAD_MIN ? 2 : 1;
	if (threads < 2 || nsw < 2) {
		route_rows(&lo);
		return;
	}
	b = *r;	/* r's tables, its own scratch */
	if (row_scratch(&b, stride)) {
		row_scratch_free(&b);
		route_rows(&lo);
		return;
	}
	lo.to = hi.from = nsw / 2;
	hi.r = &b;
	if (kr_thread_start(&th, route_rows, &hi)) {
		lo.to = nsw;
		route_rows(&lo);
	} else {
		route_rows(&lo);
		pthread_join(th, NULL);
	}
	row_scratch_free(&b);
}

int kr_route(const struct kr_fabric *f, const struct kr_topo *topo,
	     const struct kr_conf *c, struct kr_tables *t, struct kr_diag *d)
{
	return kr_route_threads(f, topo, c, t, d, 0);
}

int kr_route_threads(const struct kr_fabric *f, const struct kr_topo *topo,
		     const struct kr_conf *c, struct kr_tables *t,
		     struct kr_diag *d, unsigned threads)
{
	struct router r = { .f = f, .t = topo };
	uint32_t stride = f->max_lid + 1;
	int rc = check_topo(topo, f, d);

	*t = (struct kr_tables){ 0 };
	if (rc)
		return rc;
	r.norder = kr_route_norders(f, topo, c, NULL);
	for (unsigned j = 0; j < r.norder; j++)
		kr_route_order(topo, c, j, r.order[j]);
	/* route_row writes every entry of its row: the LFT's pages are
	 * first touched there, by both threads */
	rc = kr_tables_init_unset(t, f, stride, 1, 1);
	if (!rc && c) {
		t->sm_lid = c->sm_lid;
		t->sm_sl = c->sm_sl;
	}
	r.slot_ties = slots_split_ties(&r);
	if (!rc)
		rc = build_coords(&r);
	if (!rc)
		rc = build_groups(&r);
	if (!rc && topo->s > 1)
		rc = subnet_reach(&r);
	if (!rc)
		rc = build_classes(&r, stride, d);
	if (!rc)
		rc = parallel_scratch(&r, stride);
	if (!rc)
		rc = row_scratch(&r, stride);
	if (!rc)
		route_all(&r, t->lft, stride, threads);
	if (!rc && topo->s > 1)
		rc = kr_route_subnet_switches(f, topo, t);
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	if (rc)
		kr_tables_free(t);
	router_free(&r);
	return rc;
}
