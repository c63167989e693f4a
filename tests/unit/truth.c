/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "truth.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint32_t peer_node(const struct kr_fabric *f, uint32_t slot)
{
	return f->owner[f->peer[slot]];
}

/* Direction of a grid link from a to b: 2d (+) or 2d+1 (-). Rings of two
 * have both directions on the same pair: the links, sorted by the port
 * number at the lower position, alternate + / - as seen from that end. */
static uint8_t grid_dir(const struct kr_fabric *f, const struct kr_topo *t,
			uint32_t slot)
{
	uint32_t a = f->owner[slot], b = peer_node(f, slot);
	uint32_t pa = t->sw_pos[a], pb = t->sw_pos[b];
	unsigned d = 0;

	while (kr_topo_coord(t, pa, d) == kr_topo_coord(t, pb, d))
		d++;
	if (t->k[d] == 2 && t->wrap[d]) {
		uint32_t low = pa < pb ? a : b, lslot = pa < pb ? slot : (uint32_t)f->peer[slot];
		unsigned rank = 0;

		for (uint32_t s = f->port0[low] + 1; s < lslot; s++)
			rank += f->peer[s] >= 0 && peer_node(f, s) == (low == a ? b : a);
		return (uint8_t)(2 * d + ((rank & 1) ^ (low != a)));
	}
	unsigned ca = kr_topo_coord(t, pa, d), cb = kr_topo_coord(t, pb, d);

	return (uint8_t)(2 * d + (cb != (ca + 1) % t->k[d]));
}

/* A MiKANT link from a to b: up (stage L to L+1), down, or across the top
 * from group 0 (+) or 1 (-), by the positions (kr_topo.h's layout). */
static uint8_t mk_dir(const struct kr_fabric *f, const struct kr_topo *t,
		      uint32_t slot)
{
	unsigned sd = t->ndim - 2, gd = t->ndim - 1;
	uint32_t pa = t->sw_pos[f->owner[slot]], pb = t->sw_pos[peer_node(f, slot)];
	unsigned la = kr_topo_coord(t, pa, sd), lb = kr_topo_coord(t, pb, sd);

	if (lb == la + 1)
		return (uint8_t)(2 * sd);
	if (la == lb + 1)
		return (uint8_t)(2 * sd + 1);
	return (uint8_t)(2 * gd + kr_topo_coord(t, pa, gd));
}

int truth_complete(const struct kr_fabric *f, struct kr_topo *t)
{
	t->port_dir = malloc(f->nport);
	t->ca_slot = malloc(f->nport * sizeof(*t->ca_slot));
	t->xbar = malloc((size_t)t->npos * t->ndim * sizeof(*t->xbar));
	if (!t->port_dir || !t->ca_slot || !t->xbar)
		return KR_ENOMEM;
	memset(t->port_dir, KR_DIR_NONE, f->nport);
	memset(t->ca_slot, 0xff, f->nport * sizeof(*t->ca_slot));
	memset(t->xbar, 0xff, (size_t)t->npos * t->ndim * sizeof(*t->xbar));
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned slot = 0;

		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			uint32_t nb;

			if (f->peer[s] < 0)
				continue;
			nb = peer_node(f, s);
			if (!kr_is_switch(f, nb)) {
				t->port_dir[s] = KR_DIR_CA;
				t->ca_slot[f->peer[s]] = slot++;
			} else if (t->sw_xdim[sw] != KR_NO_DIM) {
				t->port_dir[s] = KR_DIR_XBAR;
			} else if (t->sw_xdim[nb] != KR_NO_DIM) {
				t->port_dir[s] = (uint8_t)(2 * t->sw_xdim[nb]);
				t->xbar[(size_t)t->sw_pos[sw] * t->ndim +
					t->sw_xdim[nb]] = (int32_t)nb;
			} else if (t->family == KR_FAMILY_MIKANT) {
				t->port_dir[s] = mk_dir(f, t, s);
			} else {
				t->port_dir[s] = grid_dir(f, t, s);
			}
		}
	}
	return KR_OK;
}

void truth_gen(const struct kr_gen_opts *o, struct kr_fabric *f,
	       struct kr_topo *t)
{
	struct kr_gen_opts g = *o;

	g.assign_lids = 1;
	assert_int_equal(kr_gen(&g, f, t, NULL, NULL, NULL), KR_OK);
	assert_int_equal(truth_complete(f, t), KR_OK);
}

uint32_t *truth_bfs(const struct kr_fabric *f, uint32_t src)
{
	uint32_t *dist = malloc(f->nsw * sizeof(*dist));
	uint32_t *queue = malloc(f->nsw * sizeof(*queue)), head = 0, tail = 0;

	assert_non_null(dist);
	assert_non_null(queue);
	memset(dist, 0xff, f->nsw * sizeof(*dist));
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t sw = queue[head++];

		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			uint32_t nb;

			if (f->peer[s] < 0)
				continue;
			nb = peer_node(f, s);
			if (kr_is_switch(f, nb) && dist[nb] == UINT32_MAX) {
				dist[nb] = dist[sw] + 1;
				queue[tail++] = nb;
			}
		}
	}
	free(queue);
	return dist;
}

int truth_walk(const struct kr_fabric *f, const struct kr_tables *t,
	       uint32_t src, unsigned dlid, uint32_t *load)
{
	uint32_t dst = kr_port_by_lid(f, dlid), sw;
	int hops = 0;

	if (f->peer[src] < 0 || dst == KR_NONE)
		return -1;
	if (dst == src)
		return 0;
	sw = peer_node(f, src);
	for (;;) {
		unsigned port = kr_lft_port(t, sw, dlid);
		uint32_t out;

		if (port == KR_NO_PORT || port > f->nports[sw])
			return -1;
		if (port == 0)
			return kr_port(f, sw, 0) == dst ? hops : -1;
		out = kr_port(f, sw, port);
		if (f->peer[out] < 0)
			return -1;
		if ((uint32_t)f->peer[out] == dst)
			return hops;
		if (!kr_is_switch(f, peer_node(f, out)))
			return -1;
		if (load)
			load[out]++;
		sw = peer_node(f, out);
		if (++hops > (int)f->nsw)
			return -1;
	}
}

/* Every CA reaches every LID over a shortest path; returns the per-port
 * load of all CA-to-CA paths. */
uint32_t *truth_assert_minimal(const struct kr_fabric *f,
			       const struct kr_tables *r)
{
	uint32_t *load = calloc(f->nport, sizeof(*load));

	for (uint32_t ca = f->nsw; ca < f->nnode; ca++) {
		uint32_t src = kr_port(f, ca, 1), ssw = f->owner[f->peer[src]];
		uint32_t *dist = truth_bfs(f, ssw);

		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t dst = kr_port_by_lid(f, lid), dsw;
			int hops;

			if (dst == KR_NONE)
				continue;
			dsw = kr_is_switch(f, f->owner[dst]) ? f->owner[dst]
							   : f->owner[f->peer[dst]];
			/* load counts CA-to-CA traffic only */
			hops = truth_walk(f, r, src, lid,
					  kr_is_switch(f, f->owner[dst]) ? NULL : load);
			if (hops != (int)dist[dsw])
				fail_msg("%s -> LID %u: %d hops, BFS says %u",
					 kr_node_name(f, ca), lid, hops, dist[dsw]);
		}
		free(dist);
	}
	return load;
}

uint32_t truth_node_named(const struct kr_fabric *f, const char *name)
{
	for (uint32_t n = 0; n < f->nnode; n++)
		if (!strcmp(kr_node_name(f, n), name))
			return n;
	fail_msg("no node \"%s\"", name);
	return KR_NONE;
}
