/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What one destination's tree asks of the channel dependency graph.
 *
 * Only channels between switches can lie on a credit loop: a CA's sending
 * channel waits for nothing before it, a channel into a CA always drains.
 * So a destination contributes, at every switch X its traffic crosses, one
 * dependency from each VL it arrives on over each in-link to the VL the
 * SL2VL map of (in port, out port) gives it on the out-link. Switches are
 * visited farthest first, so a switch knows the VLs its traffic leaves by
 * before its parent needs them. */
#include "repair_int.h"

#include <string.h>

void repair_walk(struct repair *r, const uint8_t *col, const struct rdest *x,
		 uint32_t *dist)
{
	uint32_t nsw = r->nsw, *stack = r->queue;
	const uint32_t busy = UNREACHED - 1, unknown = UNREACHED - 2;

	for (uint32_t s = 0; s < nsw; s++)
		dist[s] = unknown;
	dist[x->target] = col[x->target] == x->local ? 0 : UNREACHED;
	for (uint32_t s0 = 0; s0 < nsw; s0++) {
		uint32_t n = 0, s = s0, res;

		while (dist[s] == unknown) {
			dist[s] = busy;
			stack[n++] = s;
			s = repair_next(r, s, col[s]);
			if (s == KR_NONE)
				break;
		}
		/* s: where the chain ended (KR_NONE: cut; busy: a loop) */
		res = s == KR_NONE || dist[s] == busy ? UNREACHED : dist[s];
		while (n--) {
			res = res == UNREACHED ? UNREACHED : res + 1;
			dist[stack[n]] = res;
		}
	}
}

/* Most destinations repeat dependencies that others made already: a few
 * ways per channel remember the latest, sparing the graph's hash. */
static uint32_t *seen_way(struct repair *r, uint32_t from, uint32_t to)
{
	return &r->seen[(size_t)from * SEEN_WAYS +
			((to * 0x9e3779b1u) >> (32 - SEEN_WAYS_LOG))];
}

int repair_emit(struct repair *r, uint32_t from, uint32_t to)
{
	uint32_t *way = seen_way(r, from, to);
	int rc;

	if (*way == to + 1)
		return KR_OK;
	rc = r->admitting ? kr_cdg_insert(&r->g, from, to, 0)
			  : kr_cdg_add(&r->g, from, to, 0);
	if (rc >= 0)
		*way = to + 1;
	return rc < 0 ? rc : KR_OK;
}

void repair_undo(struct repair *r, uint32_t mark)
{
	for (uint32_t e = mark; e < r->g.nedge; e++) {
		uint32_t *way = seen_way(r, r->g.from[e], r->g.to[e]);

		if (*way == r->g.to[e] + 1)
			*way = 0;
	}
	kr_cdg_truncate(&r->g, mark);
}

void repair_walk_rerouted(struct repair *r, const struct rdest *x)
{
	repair_walk(r, r->col, x, r->dist);
	for (uint32_t u = 0; u < r->nsw; u++)
		if (r->lvl[u] == LVL_NONE && r->dist[u] != UNREACHED) {
			r->lvl[u] = LVL_GENERAL;
			r->cost[u] = r->dist[u];
		}
}

uint32_t repair_by_distance(struct repair *r, const uint32_t *dist)
{
	uint32_t nsw = r->nsw, *cnt = r->cnt, n = 0, maxd = 0;

	memset(cnt, 0, nsw * sizeof(*cnt));	/* a route has < nsw hops */
	for (uint32_t s = 0; s < nsw; s++)
		if (dist[s] != UNREACHED) {
			cnt[dist[s]]++;
			maxd = dist[s] > maxd ? dist[s] : maxd;
			n++;
		}
	for (uint32_t d = maxd, pos = 0; d != UINT32_MAX; d--) {
		uint32_t c = cnt[d];

		cnt[d] = pos;
		pos += c;
	}
	for (uint32_t s = 0; s < nsw; s++)
		if (dist[s] != UNREACHED)
			r->order[cnt[dist[s]]++] = s;
	return n;
}

/* The VLs y's own CAs send on towards out with SL sl: the same for every
 * destination but the CAs' own (delivered at y, never asked), so kept. */
static uint16_t ca_vls(struct repair *r, uint32_t y, unsigned out, unsigned sl)
{
	const struct kr_fabric *f = r->f;
	uint32_t *m = &r->camask[(f->port0[y] + out) * 16 + sl];

	if (!(*m & CAMASK_KNOWN)) {
		*m = CAMASK_KNOWN;
		for (uint32_t j = r->src_start[y]; j < r->src_start[y + 1]; j++) {
			unsigned in = kr_port_num(f, (uint32_t)f->peer[r->src_port[j]]);

			*m |= 1u << kr_map_vl(kr_tables_sl2vl(f, r->t, y, in, out), sl);
		}
	}
	return (uint16_t)*m;
}

/* The VL switch y's own packets (port 0) leave it on towards out. */
static uint16_t own_vl(const struct repair *r, uint32_t y, unsigned out,
		       unsigned sl)
{
	return (uint16_t)(1u << kr_map_vl(kr_tables_sl2vl(r->f, r->t, y, 0, out),
					  sl));
}

/* Packets for x leaving switch y through col[y] on the VLs vls: the
 * switch they enter next (*xs) and the VL they leave it on (*vl), and,
 * unless xs delivers them, their dependencies into that channel. */
static int hop(struct repair *r, const struct rdest *x, const uint8_t *col,
	       unsigned sl, uint32_t y, uint16_t vls, uint32_t *xs,
	       unsigned *vl)
{
	const struct kr_fabric *f = r->f;
	int32_t peer = f->peer[f->port0[y] + col[y]];
	uint32_t from = (f->port0[y] + col[y]) * 16;
	int rc = KR_OK;

	*xs = f->owner[peer];
	*vl = kr_map_vl(kr_tables_sl2vl(f, r->t, *xs,
					kr_port_num(f, (uint32_t)peer),
					col[*xs]), sl);
	if (*xs == x->target)
		return KR_OK;	/* delivered: nothing waits beyond */
	for (unsigned m = vls; m && !rc; m &= m - 1)	/* each VL in vls */
		rc = repair_emit(r, from + (unsigned)__builtin_ctz(m),
				 (f->port0[*xs] + col[*xs]) * 16 + *vl);
	return rc;
}

int repair_deps(struct repair *r, const struct rdest *x, const uint8_t *col,
		const uint32_t *dist, unsigned sl, int sources)
{
	uint32_t n = repair_by_distance(r, dist), mark = r->g.nedge;
	uint16_t *outvl = r->outvl;
	int rc = KR_OK;

	for (uint32_t i = 0; i < n; i++)
		outvl[r->order[i]] = 0;
	for (uint32_t i = 0; i < n && !rc; i++) {
		uint32_t y = r->order[i], xs;
		unsigned vl;

		if (y == x->target)
			continue;	/* delivered: nothing waits beyond */
		if (sources != SRC_MOVED || r->moved[y])
			outvl[y] |= ca_vls(r, y, col[y], sl);
		if (sources == SRC_MGMT)
			outvl[y] |= own_vl(r, y, col[y], sl);
		if (!outvl[y])
			continue;	/* no traffic to this destination here */
		rc = hop(r, x, col, sl, y, outvl[y], &xs, &vl);
		outvl[xs] |= (uint16_t)(1u << vl);
	}
	if (rc && r->admitting)
		repair_undo(r, mark);
	return rc;
}

int repair_deps_from(struct repair *r, const struct rdest *x, const uint8_t *col,
		     unsigned sl, uint32_t s, bool own)
{
	uint32_t mark = r->g.nedge, n = 0, xs;
	uint16_t vls = ca_vls(r, s, col[s], sl) |
		       (own ? own_vl(r, s, col[s], sl) : 0);
	unsigned vl;
	int rc = KR_OK;

	/* the route is loop-free (dist[s] hops): nsw bounds it all the same */
	for (uint32_t y = s; y != x->target && vls && !rc && n++ < r->nsw;
	     y = xs, vls = (uint16_t)(1u << vl))
		rc = hop(r, x, col, sl, y, vls, &xs, &vl);
	if (rc && r->admitting)
		repair_undo(r, mark);
	return rc;
}
