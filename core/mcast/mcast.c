/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast trees (kr_mcast.h): the master forest is the BFS forest behind
 * the up*-down* ranks, each switch hanging off the parent kr_updn_up_port
 * names (the repair admits routes against the same forest). Any such
 * forest link joins two levels, so it is an up hop one way and a down hop
 * the other. A group's
 * tree keeps the forest links whose two sides both hold members of the
 * group: counting member switches per subtree in reverse BFS order finds
 * them in one pass, so a group costs O(switches + members). */
#include "kr_mcast.h"

#include <stdlib.h>

#include "kr_updn.h"

void kr_mtree_free(struct kr_mtree *t)
{
	free(t->rank);
	free(t->comp);
	free(t->order);
	free(t->parent);
	free(t->up);
	free(t->down);
	*t = (struct kr_mtree){ 0 };
}

static void hang(const struct kr_fabric *f, const struct kr_topo *topo,
		 struct kr_mtree *t, const uint32_t *lvl, uint32_t v)
{
	unsigned p = kr_updn_up_port(f, topo, lvl, v);

	t->parent[v] = p ? kr_updn_next(f, topo, v, p) : KR_NONE;
	if (!p)
		return;
	t->up[v] = (uint8_t)p;
	t->down[v] = (uint8_t)kr_port_num(f, (uint32_t)f->peer[f->port0[v] + p]);
}

int kr_mtree_build(const struct kr_fabric *f, const struct kr_topo *topo,
		   unsigned sm_lid, struct kr_mtree *t, struct kr_diag *d)
{
	uint32_t n = f->nsw ? f->nsw : 1, *lvl = malloc(n * sizeof(*lvl));

	*t = (struct kr_mtree){ .nsw = f->nsw };
	t->rank = malloc(n * sizeof(*t->rank));
	t->comp = malloc(n * sizeof(*t->comp));
	t->order = malloc(n * sizeof(*t->order));
	t->parent = malloc(n * sizeof(*t->parent));
	t->up = calloc(n, 1);
	t->down = calloc(n, 1);
	if (!lvl || !t->rank || !t->comp || !t->order || !t->parent || !t->up ||
	    !t->down) {
		free(lvl);
		kr_mtree_free(t);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	kr_updn_ranks(f, topo, kr_updn_sm_switch(f, sm_lid), t->rank, t->comp,
		      lvl, t->order);
	for (uint32_t v = 0; v < f->nsw; v++)
		hang(f, topo, t, lvl, v);
	free(lvl);
	return KR_OK;
}

void kr_mgroup_free(struct kr_mgroup *g)
{
	free(g->ports);
	g->ports = NULL;
}

static void set_port(struct kr_mgroup *g, uint32_t sw, unsigned port)
{
	g->ports[(size_t)sw * KR_MCAST_WORDS + port / 64] |= 1ull << (port % 64);
}

/* The switch a member port is delivered by and its port there, or KR_NONE. */
static uint32_t member_switch(const struct kr_fabric *f, uint32_t slot,
			      unsigned *port)
{
	uint32_t node = f->owner[slot];

	if (kr_is_switch(f, node)) {
		*port = 0;
		return kr_port_num(f, slot) == 0 ? node : KR_NONE;
	}
	if (f->peer[slot] < 0 || !kr_is_switch(f, f->owner[f->peer[slot]]))
		return KR_NONE;
	*port = kr_port_num(f, (uint32_t)f->peer[slot]);
	return f->owner[f->peer[slot]];
}

int kr_mcast_group(const struct kr_fabric *f, const struct kr_mtree *t,
		   const uint32_t *member, size_t nmember, struct kr_mgroup *g,
		   struct kr_mcast_info *info, struct kr_diag *d)
{
	uint32_t *cnt = calloc(t->nsw ? t->nsw : 1, sizeof(*cnt));

	*info = (struct kr_mcast_info){ 0 };
	g->ports = calloc((size_t)(t->nsw ? t->nsw : 1) * KR_MCAST_WORDS,
			  sizeof(*g->ports));
	if (!cnt || !g->ports) {
		free(cnt);
		kr_mgroup_free(g);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < nmember; i++) {
		unsigned port;
		uint32_t sw = member[i] < f->nport ?
			      member_switch(f, member[i], &port) : KR_NONE;

		if (sw == KR_NONE) {
			info->skipped++;
			continue;
		}
		info->members++;
		set_port(g, sw, port);
		cnt[sw] = 1;
	}
	/* member switches per subtree: children come after parents in order */
	for (uint32_t i = t->nsw; i-- > 0;) {
		uint32_t v = t->order[i];

		if (t->parent[v] != KR_NONE)
			cnt[t->parent[v]] += cnt[v];
		else
			info->parts += cnt[v] > 0;
	}
	for (uint32_t v = 0; v < t->nsw; v++) {
		uint32_t u = t->parent[v];

		if (u == KR_NONE || !cnt[v] || cnt[v] == cnt[t->comp[v]])
			continue;
		set_port(g, v, t->up[v]);
		set_port(g, u, t->down[v]);
		info->links++;
	}
	for (uint32_t v = 0; v < t->nsw; v++)
		for (unsigned w = 0; w < KR_MCAST_WORDS; w++)
			if (g->ports[(size_t)v * KR_MCAST_WORDS + w]) {
				info->switches++;
				break;
			}
	free(cnt);
	return KR_OK;
}
