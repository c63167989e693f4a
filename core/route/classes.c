/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a router prepares before its rows: port groups (a ring direction, a
 * crossbar, a subnet's up or down ports), coordinates, and the destination
 * classes every LID falls into (target switch, delivering port, ties). */
#include "kr_route.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route_int.h"

/* Digit j of a subnet order or router coordinate in base a. */
unsigned route_digit(uint32_t v, unsigned a, unsigned j)
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
		return (int)route_digit(t->sw_order[nb], a, e - 1);
	return (int)(a + route_digit(t->sw_order[nb], a, e));
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
int route_build_groups(struct router *r)
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

int route_build_coords(struct router *r)
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
unsigned route_port_towards(const struct kr_fabric *f, uint32_t from,
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
		x->local = (uint8_t)route_port_towards(f, t->sw_host[sw],
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
bool route_slots_split_ties(const struct router *r)
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

int route_build_classes(struct router *r, uint32_t stride, struct kr_diag *d)
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
