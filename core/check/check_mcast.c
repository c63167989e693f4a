/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast trees in the channel dependency graph.
 *
 * A packet for a group enters its tree at any member: a CA port whose
 * switch port is in that switch's mask, or a switch whose mask holds its
 * own port 0. A switch sends a copy out of every port of its mask but the
 * one it came in on. The channel a copy held waits for each channel the
 * next switch sends copies on, on the VL that switch's SL2VL map gives the
 * group's SL for (in port, out port). So the walk floods each tree from all
 * its members at once; it meets a channel again only through a map with
 * other assumptions (given or not, SL-blind or not), and those are walked
 * too so that each dependency carries the flags of the hops making it.
 *
 * Memo: per channel, the assumption states met in this group's flood. */
#include "kr_check.h"

#include <stdlib.h>

#include "check_int.h"

struct mc_item {
	uint32_t c;		/* channel held */
	uint16_t slid;		/* the member whose copy it is */
	uint8_t why;		/* KR_CHECK_ASSUMED_MAP of the map giving c */
	bool fixed;		/* that map sends every SL to one VL */
};

struct mc_walk {
	struct walk *w;
	const struct kr_mgroup *g;
	uint8_t sl_why;		/* KR_CHECK_ASSUMED_SL: no input gave g->sl */
	uint32_t gen;		/* this group's flood */
	uint32_t *seen_gen;	/* [channels] == gen: seen_st is this flood's */
	uint8_t *seen_st;	/* [channels] bit (why ? 1 : 0) | (fixed ? 2 : 0)
				 * for each state met */
	struct mc_item *q;	/* flood queue */
	size_t nq, cap;
};

static int mc_push(struct mc_walk *m, struct mc_item it)
{
	uint8_t st = (uint8_t)(1u << ((it.why ? 1 : 0) | (it.fixed ? 2 : 0)));

	if (m->seen_gen[it.c] != m->gen) {
		m->seen_gen[it.c] = m->gen;
		m->seen_st[it.c] = 0;
	}
	if (m->seen_st[it.c] & st)
		return KR_OK;
	m->seen_st[it.c] |= st;
	if (kr_grow(&m->q, &m->cap, m->nq + 1, sizeof(*m->q)))
		return KR_ENOMEM;
	m->q[m->nq++] = it;
	return KR_OK;
}

/* Copies leaving sw for a packet that came in through port in (0: sent by
 * the switch itself), which held channel from (NULL: none). */
static int mc_fan(struct mc_walk *m, uint32_t sw, unsigned in,
		  const struct mc_item *from, uint16_t slid)
{
	struct walk *w = m->w;
	const struct kr_fabric *f = w->f;
	const uint64_t *mask = m->g->ports + (size_t)sw * KR_MCAST_WORDS;

	for (unsigned k = 0; k < KR_MCAST_WORDS; k++)
		for (uint64_t bits = mask[k]; bits; bits &= bits - 1) {
			unsigned out = k * 64 + (unsigned)__builtin_ctzll(bits);
			uint32_t slot = f->port0[sw] + out;
			uint64_t map;
			struct mc_item it;

			if (out == 0 || out == in || out > f->nports[sw] ||
			    f->peer[slot] < 0)
				continue;
			map = check_map(w, sw, in, out);
			it = (struct mc_item){
				.c = NCH(w, slot, kr_map_vl(map, m->g->sl)),
				.slid = slid, .fixed = map_fixed(map),
				.why = check_map_why(w, sw, in, out) };
			/* only switch-to-switch dependencies (check_dep):
			 * nothing waits for a member CA's own channel, and a
			 * channel into a CA drains */
			if (from && kr_is_switch(f, f->owner[CH_SLOT(w, from->c)]) &&
			    kr_is_switch(f, f->owner[f->peer[slot]]) &&
			    check_dep(w, from->c, slot, it.c,
				      (uint32_t)slid << 16 | m->g->mlid,
				      dep_why(m->sl_why, from->why, from->fixed,
					      it.why, it.fixed)))
				return KR_ENOMEM;
			if (mc_push(m, it))
				return KR_ENOMEM;
		}
	return KR_OK;
}

/* Members: CA ports behind mask ports send on their own port's map;
 * a switch with port 0 in its mask sends from itself. */
static int mc_sources(struct mc_walk *m)
{
	struct walk *w = m->w;
	const struct kr_fabric *f = w->f;

	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		const uint64_t *mask = m->g->ports + (size_t)sw * KR_MCAST_WORDS;

		if (mask[0] & 1 && mc_fan(m, sw, 0, NULL, f->lid[f->port0[sw]]))
			return KR_ENOMEM;
		for (unsigned p = 1; p <= f->nports[sw]; p++) {
			int32_t q = f->peer[f->port0[sw] + p];
			uint32_t ca;
			unsigned qp;
			uint64_t map;

			if (!kr_mgroup_has(m->g, sw, p) || q < 0)
				continue;
			ca = f->owner[q];
			if (kr_is_switch(f, ca))
				continue;
			qp = kr_port_num(f, (uint32_t)q);
			map = check_map(w, ca, qp, qp);
			if (mc_push(m, (struct mc_item){
				    .c = NCH(w, (uint32_t)q,
					     kr_map_vl(map, m->g->sl)),
				    .slid = f->lid[q], .fixed = map_fixed(map),
				    .why = check_map_why(w, ca, qp, qp) }))
				return KR_ENOMEM;
		}
	}
	return KR_OK;
}

static int mc_group(struct mc_walk *m)
{
	struct walk *w = m->w;
	const struct kr_fabric *f = w->f;
	int rc = mc_sources(m);

	for (size_t i = 0; !rc && i < m->nq; i++) {
		struct mc_item it = m->q[i];
		int32_t peer = f->peer[CH_SLOT(w, it.c)];
		uint32_t node = f->owner[peer];

		if (kr_is_switch(f, node))
			rc = mc_fan(m, node, kr_port_num(f, (uint32_t)peer),
				    &it, it.slid);
	}
	return rc;
}

int check_mcast(struct walk *w)
{
	const struct kr_tables *t = w->t;
	struct mc_walk m = { .w = w };
	uint32_t before = w->g.nedge;
	int rc = KR_OK;

	m.seen_gen = calloc(w->nchan, sizeof(*m.seen_gen));
	m.seen_st = malloc(w->nchan);
	if (!m.seen_gen || !m.seen_st)
		rc = KR_ENOMEM;
	for (size_t i = 0; !rc && i < t->nmgroup; i++) {
		m.g = &t->mgroup[i];
		m.sl_why = m.g->sl_given ? 0 : KR_CHECK_ASSUMED_SL;
		m.gen = (uint32_t)i + 1;
		m.nq = 0;
		rc = mc_group(&m);
	}
	free(m.q);
	free(m.seen_gen);
	free(m.seen_st);
	w->r->mcast_deps = w->g.nedge - before;
	return rc;
}
