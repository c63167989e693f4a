/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* MiKANT routing: the slides' Algorithm 1 (minimal per-hop deterministic
 * routing) as LFT entries, with its free choices spread.
 *
 * A destination is a switch Z = (G_Z, L_Z, D) and the port that delivers
 * there (a CA's on a leaf, port 0 for Z's own LID). At switch W =
 * (G, L, W_{n-2} .. W_0):
 *  - down, by the child whose digit L-1 is D_{L-1}, when W lies above Z in
 *    Z's group: digits L .. n-2 are Z's (W's subtree holds Z) and so are
 *    digits 0 .. L_Z-1 (the ones the way down keeps);
 *  - else up, giving digit L the value D_L below Z's stage (the way down
 *    keeps it) and a free value above; at the top, across: to D_{n-2}
 *    when Z is in the other group, to a free value when Z is in W's group
 *    under another top digit (the packet comes back across next hop).
 * A packet from a CA climbs, crosses the top at most twice, then descends:
 * the shortest way there is (hops equal the graph's distances).
 *
 * Free values are the destination's own digits shifted by one, u_0 = its
 * CA slot (0 for a switch LID), u_j = D_{j-1}: the climb from stage j
 * takes u_j, the first crossing u_{n-2}. Each switch then sends every
 * destination that leaves its subtree up (or across) by a different
 * port for each value of u_j, the same number of destinations by each, so
 * all-to-all traffic loads every up, down and cross link of one stage
 * alike (docs/design.md works the counts). LID offset o of an LMC range
 * adds o to every free value: the offsets climb by different ports. A
 * free value whose link is down takes the next live one; a forced value
 * or a way down without its link is left KR_NO_PORT for kr_repair. */
#include "kr_route.h"

#include <stdlib.h>
#include <string.h>

#include "route_int.h"

struct mkr {
	const struct kr_fabric *f;
	const struct kr_topo *t;
	unsigned k, top;	/* top: the last stage, n - 2 */
	uint8_t *port;		/* [nsw * 2k]: [v] the port up (across) to digit
				 * value v, [k + v] down to value v; 0: none */
	uint8_t *dig;		/* [nsw * KR_MAX_DIM] digits of each switch */
};

/* One destination LID. */
struct mdest {
	uint32_t sw;		/* the switch that delivers it */
	unsigned group, stage;
	uint8_t dig[KR_MAX_DIM];	/* D_0 .. D_{n-2} */
	uint8_t u[KR_MAX_DIM];		/* free values u_0 .. u_{n-2} */
	uint8_t deliver;		/* port at sw */
};

static const uint8_t *digits(const struct mkr *m, uint32_t sw)
{
	return m->dig + (size_t)sw * KR_MAX_DIM;
}

/* The ports of every switch by where they lead (port_dir and the digit
 * the far end has in the digit the link replaces). */
static int mk_ports(struct mkr *m)
{
	const struct kr_fabric *f = m->f;
	const struct kr_topo *t = m->t;

	m->port = calloc((size_t)f->nsw * 2 * m->k + 1, 1);
	m->dig = malloc((size_t)f->nsw * KR_MAX_DIM + 1);
	if (!m->port || !m->dig)
		return KR_ENOMEM;
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned j = 0; j <= m->top; j++)
			m->dig[(size_t)sw * KR_MAX_DIM + j] =
				(uint8_t)kr_topo_coord(t, t->sw_pos[sw], j);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned L = kr_mk_stage(t, t->sw_pos[sw]);

		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			unsigned dir = t->port_dir[s];
			uint32_t nb;

			if (f->peer[s] < 0 || dir >= 2 * KR_MAX_DIM)
				continue;
			nb = f->owner[f->peer[s]];
			if (dir == kr_mk_dir_down(t))
				m->port[(size_t)sw * 2 * m->k + m->k +
					digits(m, nb)[L - 1]] = (uint8_t)kr_port_num(f, s);
			else
				m->port[(size_t)sw * 2 * m->k +
					digits(m, nb)[L]] = (uint8_t)kr_port_num(f, s);
		}
	}
	return KR_OK;
}

/* The destination of lid, false when no placed switch delivers it. */
static bool mk_dest(const struct mkr *m, unsigned lid, struct mdest *z)
{
	const struct kr_fabric *f = m->f;
	const struct kr_topo *t = m->t;
	uint32_t port = kr_port_by_lid(f, lid), pos;

	if (port == KR_NONE)
		return false;
	z->sw = f->owner[port];
	z->deliver = 0;
	z->u[0] = 0;
	if (!kr_is_switch(f, z->sw)) {
		if (f->peer[port] < 0)
			return false;
		z->sw = f->owner[f->peer[port]];
		z->deliver = (uint8_t)kr_port_num(f, (uint32_t)f->peer[port]);
		if (t->ca_slot[port] != KR_NONE)
			z->u[0] = (uint8_t)(t->ca_slot[port] % m->k);
	}
	if (!kr_is_switch(f, z->sw) || (pos = t->sw_pos[z->sw]) == KR_NONE)
		return false;
	z->group = kr_mk_group(t, pos);
	z->stage = kr_mk_stage(t, pos);
	memcpy(z->dig, digits(m, z->sw), KR_MAX_DIM);
	for (unsigned j = 1; j <= m->top; j++)
		z->u[j] = z->dig[j - 1];
	return true;
}

/* The port up (across) to value v; a free one takes the next live value. */
static uint8_t up(const struct mkr *m, uint32_t sw, unsigned v, bool free)
{
	const uint8_t *p = m->port + (size_t)sw * 2 * m->k;

	for (unsigned i = 0; free && !p[v] && i < m->k; i++)
		v = (v + 1) % m->k;
	return p[v] ? p[v] : KR_NO_PORT;
}

static uint8_t down(const struct mkr *m, uint32_t sw, unsigned v)
{
	uint8_t p = m->port[(size_t)sw * 2 * m->k + m->k + v];

	return p ? p : KR_NO_PORT;
}

/* Algorithm 1 at switch sw for destination z, LID offset off. */
static uint8_t mk_entry(const struct mkr *m, uint32_t sw, const struct mdest *z,
			unsigned off)
{
	const struct kr_topo *t = m->t;
	const uint8_t *w = digits(m, sw);
	uint32_t pos = t->sw_pos[sw];
	unsigned L = kr_mk_stage(t, pos), G = kr_mk_group(t, pos);
	unsigned low = L < z->stage ? L : z->stage;
	bool above = G == z->group && L >= z->stage;

	if (sw == z->sw)
		return z->deliver;
	/* digits the way down keeps are wrong: only a switch's own packets
	 * meet this (a CA's climb sets them); down to where they change */
	for (unsigned j = 0; j < low; j++)
		if (w[j] != z->dig[j])
			return down(m, sw, z->dig[L - 1]);
	for (unsigned j = L; above && j <= m->top; j++)
		above = w[j] == z->dig[j];
	if (above)
		return down(m, sw, z->dig[L - 1]);
	if (L < m->top)
		return L < z->stage ? up(m, sw, z->dig[L], false)
				    : up(m, sw, (z->u[L] + off) % m->k, true);
	if (G != z->group)
		return up(m, sw, z->dig[m->top], false);
	return up(m, sw, (z->u[m->top] + off) % m->k, true);
}

int route_mikant(const struct kr_fabric *f, const struct kr_topo *topo,
		 struct kr_tables *t)
{
	struct mkr m = { .f = f, .t = topo, .k = topo->k[0],
			 .top = kr_mk_ndigit(topo) - 1 };
	int rc = mk_ports(&m);

	for (unsigned lid = 1; !rc && lid < t->stride; lid++) {
		struct mdest z;
		uint32_t port = kr_port_by_lid(f, lid);

		if (!mk_dest(&m, lid, &z))
			continue;
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			t->lft[(size_t)sw * t->stride + lid] =
				mk_entry(&m, sw, &z, lid - f->lid[port]);
	}
	free(m.port);
	free(m.dig);
	return rc;
}
