/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The multicast VL in the repair's dependency graph. Multicast, the SA's
 * and PerfMgr's packets (the SM node's, on the management SLs) and the
 * up*-down* detour layer share one VL. The trees and the layer keep to
 * the ranks rooted at the SM's switch; the SM node's packets follow the
 * unicast LFTs, and a repaired column may take them sideways or up where
 * the ranks say down. Such a route is safe when its dependencies close no
 * loop with the rest of the VL's traffic, so they are admitted like any
 * other, against the multicast master forest (every group's tree is a
 * part of it) and everything else on the VL. Where they would close one,
 * sa_path.c fits the SM node's routes to the ranks. In sa_strict mode
 * they must keep to the ranks, which needs none of this in the graph:
 * that is the repair's fallback when a route off the ranks, admitted
 * early, leaves the detour layer no room later (kr_repair). */
#include "kr_repair.h"

#include "repair_int.h"

/* Whether the SM node's traffic (the SA's, its PerfMgr's) along r->col
 * leaves the order of the VL it rides. It shares the multicast and
 * up*-down* VL (sm_sl joins the multicast SLs, and the PerfMgr's SL 0 is
 * one unless knsroute.conf says otherwise) but follows the unicast LFTs:
 * in order, the queries and replies to the SM's LID only climb towards
 * the SM's switch, the root of the ranks, and what it sends to a CA or
 * switch LID only descends from there. Routes that survive faults are
 * shortest, so they do; a repaired column that does not may still close
 * no loop (sa_deps.c asks the graph), and up*-down* (which does keep to
 * the order, from or to the root) takes x in the end. */
int repair_sa_breaks_ranks(const struct repair *r, const struct rdest *x)
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

/* Channel (port slot * 16 + VL) of packets leaving sw by port on VL vl. */
static uint32_t channel(const struct kr_fabric *f, uint32_t sw, unsigned port,
			unsigned vl)
{
	return (f->port0[sw] + port) * 16 + vl;
}

/* Whether sw's link l (r->link_*) is a forest link: sw's own way up, or
 * the neighbour's way up into sw. */
static bool forest_link(const struct repair *r, uint32_t sw, uint32_t l)
{
	const struct kr_fabric *f = r->f;
	uint32_t c = r->link_to[l];

	if (r->link_port[l] == r->up_port[sw])
		return true;
	return r->up_port[c] &&
	       f->peer[f->port0[c] + r->up_port[c]] ==
	       (int32_t)(f->port0[sw] + r->link_port[l]);
}

/* A multicast packet entering sw over one forest link leaves it over
 * every other: each pair of sw's forest links is a dependency on the
 * multicast VL (to which the plan maps every multicast SL on every port). */
int repair_add_forest(struct repair *r)
{
	const struct kr_fabric *f = r->f;
	unsigned vl = r->plan->mcast_vl;
	int rc = KR_OK;

	if (vl == KR_NONE || r->sa_strict)
		return KR_OK;
	for (uint32_t b = 0; b < r->nsw && !rc; b++)
		for (uint32_t i = r->link_start[b]; i < r->link_start[b + 1] && !rc;
		     i++) {
			uint32_t a = r->link_to[i], in;

			if (!forest_link(r, b, i))
				continue;
			in = kr_port_num(f, (uint32_t)f->peer[f->port0[b] +
							      r->link_port[i]]);
			for (uint32_t o = r->link_start[b];
			     o < r->link_start[b + 1] && !rc; o++)
				if (o != i && forest_link(r, b, o))
					rc = repair_emit(r, channel(f, a, in, vl),
							 channel(f, b, r->link_port[o],
								 vl));
		}
	return rc;
}

/* Whether the route along r->col from switch s reaches x. */
static bool reaches(const struct repair *r, const struct rdest *x, uint32_t s)
{
	for (uint32_t n = 0; s != KR_NONE && n <= r->nsw; n++) {
		if (s == x->target)
			return r->col[s] == x->local;
		s = repair_next(r, s, r->col[s]);
	}
	return false;
}

/* The SM node's packets to x along r->col, on every management SL: every
 * CA's and switch's to the SM's own LID (r->dist the column's walk), else
 * the SM's switch's (its CAs' and its own) to x. */
static int sa_deps(struct repair *r, const struct rdest *x)
{
	bool to_sm = x->lid == r->t->sm_lid;
	int rc = KR_OK;

	if (!to_sm && !reaches(r, x, r->sm_sw))
		return KR_OK;
	for (unsigned sl = 0; sl < KR_NSL && !rc; sl++) {
		if (!(r->plan->mgmt_sls >> sl & 1))
			continue;
		rc = to_sm ? repair_deps(r, x, r->col, r->dist, sl, SRC_MGMT)
			   : repair_deps_from(r, x, r->col, sl, r->sm_sw, true);
	}
	return rc;
}

int repair_sa_surviving(struct repair *r, const struct rdest *x)
{
	if (r->sm_sw == KR_NONE || r->sa_strict)
		return KR_OK;
	if (x->lid == r->t->sm_lid)
		repair_walk(r, r->col, x, r->dist);
	return sa_deps(r, x);
}

/* Out of memory counts as a refusal: the graph's next insert fails and
 * says so. */
int repair_sa_refuses(struct repair *r, const struct rdest *x)
{
	uint32_t mark = r->g.nedge;
	int rc;

	if (r->sa_strict || !r->admitting)
		return repair_sa_breaks_ranks(r, x);
	if (r->sm_sw == KR_NONE)
		return 0;
	rc = sa_deps(r, x);
	if (rc == KR_ECYCLE)
		repair_undo(r, mark);
	return rc != KR_OK;
}
