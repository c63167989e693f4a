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
 * adds o to every free value: the offsets climb by different ports.
 *
 * Faults: a free value whose next switch cannot deliver any more (good[],
 * the same rules over the live links, from the destination outwards)
 * hands its destinations to the values that can, dealt out by the
 * destination's next digit and the choosing switch's digits (one
 * destination's packets from different switches take different ones),
 * so most single faults need no repair and
 * keep the shape, and the proof, of Algorithm 1. A forced value or a
 * way down without its link is left KR_NO_PORT for kr_repair. */
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
	uint32_t *nb;		/* [nsw * 2k] the switch behind it, KR_NONE */
	uint8_t *dig;		/* [nsw * KR_MAX_DIM] digits of each switch */
	uint32_t *order;	/* [nsw] switches by stage, lowest first */
	uint8_t *good;		/* [nsw] delivers to the current target */
	bool faulty;		/* links or switches missing: good[] varies */
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
	m->nb = malloc(((size_t)f->nsw * 2 * m->k + 1) * sizeof(*m->nb));
	m->dig = malloc((size_t)f->nsw * KR_MAX_DIM + 1);
	if (!m->port || !m->nb || !m->dig)
		return KR_ENOMEM;
	memset(m->nb, 0xff, (size_t)f->nsw * 2 * m->k * sizeof(*m->nb));
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned j = 0; j <= m->top; j++)
			m->dig[(size_t)sw * KR_MAX_DIM + j] =
				(uint8_t)kr_topo_coord(t, t->sw_pos[sw], j);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned L = kr_mk_stage(t, t->sw_pos[sw]);

		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			unsigned dir = t->port_dir[s];
			uint32_t nb;
			size_t i;

			/* a link the labels have, gone since (knsroute faults
			 * keeps the intact fabric's labels) */
			m->faulty |= f->peer[s] < 0 && dir < 2 * KR_MAX_DIM;
			if (f->peer[s] < 0 || dir >= 2 * KR_MAX_DIM)
				continue;
			nb = f->owner[f->peer[s]];
			i = (size_t)sw * 2 * m->k + (dir == kr_mk_dir_down(t) ?
				m->k + digits(m, nb)[L - 1] : digits(m, nb)[L]);
			m->port[i] = (uint8_t)kr_port_num(f, s);
			m->nb[i] = nb;
		}
	}
	return KR_OK;
}

/* order: the switches by stage (counting sort); good: all 1 until a
 * fault makes it per target. */
static int mk_order(struct mkr *m)
{
	const struct kr_topo *t = m->t;
	uint32_t nsw = m->f->nsw, at[KR_MAX_DIM + 1] = { 0 };

	m->order = malloc(((size_t)nsw + 1) * sizeof(*m->order));
	m->good = malloc((size_t)nsw + 1);
	if (!m->order || !m->good)
		return KR_ENOMEM;
	memset(m->good, 1, nsw);
	m->faulty |= t->nmissing_link || t->nmissing_sw;
	for (uint32_t sw = 0; sw < nsw; sw++)
		at[kr_mk_stage(t, t->sw_pos[sw]) + 1]++;
	for (unsigned L = 1; L <= m->top + 1; L++)
		at[L] += at[L - 1];
	for (uint32_t sw = 0; sw < nsw; sw++)
		m->order[at[kr_mk_stage(t, t->sw_pos[sw])]++] = sw;
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

/* The port up (across) to value v; a free v whose switch cannot deliver
 * (good) takes the spread-th of the values whose switches can, counted
 * from v, else the next live one. */
static uint8_t up(const struct mkr *m, uint32_t sw, unsigned v, bool free,
		  unsigned spread)
{
	const uint8_t *p = m->port + (size_t)sw * 2 * m->k;
	const uint32_t *nb = m->nb + (size_t)sw * 2 * m->k;
	unsigned ngood = 0;

	if (free && p[v] && m->good[nb[v]])
		return p[v];
	for (unsigned w = 0; free && w < m->k; w++)
		ngood += p[w] && m->good[nb[w]];
	/* the destinations v would have carried, dealt out over the rest,
	 * and each one's packets too: switches that differ in their digits
	 * take different ones of the rest */
	for (unsigned j = 0; j <= m->top; j++)
		spread += digits(m, sw)[j];
	for (unsigned i = 1, left = ngood ? spread % ngood : 0;
	     ngood && i < m->k; i++) {
		unsigned w = (v + i) % m->k;

		if (p[w] && m->good[nb[w]] && !left--)
			return p[w];
	}
	for (unsigned i = 0; free && !p[v] && i < m->k; i++)
		v = (v + 1) % m->k;
	return p[v] ? p[v] : KR_NO_PORT;
}

static uint8_t down(const struct mkr *m, uint32_t sw, unsigned v)
{
	uint8_t p = m->port[(size_t)sw * 2 * m->k + m->k + v];

	return p ? p : KR_NO_PORT;
}

/* Whether the digits of sw that the way down keeps are z's (a CA's climb
 * sets them; only a switch's own packets can start elsewhere). */
static bool low_ok(const struct mkr *m, uint32_t sw, const struct mdest *z,
		   unsigned L)
{
	const uint8_t *w = digits(m, sw);

	for (unsigned j = 0; j < L && j < z->stage; j++)
		if (w[j] != z->dig[j])
			return false;
	return true;
}

/* Whether sw lies above z in z's group: the way down reaches it. */
static bool above(const struct mkr *m, uint32_t sw, const struct mdest *z)
{
	const uint32_t pos = m->t->sw_pos[sw];
	const uint8_t *w = digits(m, sw);
	unsigned L = kr_mk_stage(m->t, pos);

	if (kr_mk_group(m->t, pos) != z->group || L < z->stage)
		return false;
	for (unsigned j = L; j <= m->top; j++)
		if (w[j] != z->dig[j])
			return false;
	return true;
}

/* good[sw] for a switch below the top or across from z: some value it
 * may take (the forced one, or any free one) leads to a good switch. */
static void climb_good(struct mkr *m, uint32_t sw, const struct mdest *z)
{
	uint32_t pos = m->t->sw_pos[sw];
	unsigned L = kr_mk_stage(m->t, pos);
	const uint32_t *nb = m->nb + (size_t)sw * 2 * m->k;
	bool forced = L < m->top ? L < z->stage : kr_mk_group(m->t, pos) != z->group;

	if (above(m, sw, z) || !low_ok(m, sw, z, L))
		return;
	for (unsigned v = 0; v < m->k && !m->good[sw]; v++)
		if ((!forced || v == z->dig[L]) && nb[v] != KR_NONE)
			m->good[sw] = m->good[nb[v]];
}

/* good[] for target z over the live links: up the one way down from z,
 * then across the top into z's group, across out of it, and down the
 * stages to the leaves. */
static void mk_good(struct mkr *m, const struct mdest *z)
{
	uint32_t nsw = m->f->nsw;

	memset(m->good, 0, nsw);
	m->good[z->sw] = 1;
	for (uint32_t i = 0; i < nsw; i++) {
		uint32_t sw = m->order[i];
		unsigned L = kr_mk_stage(m->t, m->t->sw_pos[sw]);
		uint32_t c;

		if (sw == z->sw || !above(m, sw, z) || !low_ok(m, sw, z, L))
			continue;
		c = m->nb[(size_t)sw * 2 * m->k + m->k + z->dig[L - 1]];
		m->good[sw] = c != KR_NONE && m->good[c];
	}
	for (unsigned pass = 0; pass < 2; pass++)
		for (uint32_t i = nsw; i-- > 0;) {
			uint32_t sw = m->order[i], pos = m->t->sw_pos[sw];

			if (kr_mk_stage(m->t, pos) != m->top)
				break;
			if ((kr_mk_group(m->t, pos) != z->group) == !pass)
				climb_good(m, sw, z);
		}
	for (uint32_t i = nsw; i-- > 0;)
		if (kr_mk_stage(m->t, m->t->sw_pos[m->order[i]]) < m->top)
			climb_good(m, m->order[i], z);
}

/* Algorithm 1 at switch sw for destination z, LID offset off. */
static uint8_t mk_entry(const struct mkr *m, uint32_t sw, const struct mdest *z,
			unsigned off)
{
	const struct kr_topo *t = m->t;
	uint32_t pos = t->sw_pos[sw];
	unsigned L = kr_mk_stage(t, pos), G = kr_mk_group(t, pos);

	if (sw == z->sw)
		return z->deliver;
	/* with low digits wrong, down to where they change */
	if (!low_ok(m, sw, z, L) || above(m, sw, z))
		return down(m, sw, z->dig[L - 1]);
	if (L < m->top)
		return L < z->stage ? up(m, sw, z->dig[L], false, 0)
				    : up(m, sw, (z->u[L] + off) % m->k, true,
					 z->u[L + 1]);
	if (G != z->group)
		return up(m, sw, z->dig[m->top], false, 0);
	return up(m, sw, (z->u[m->top] + off) % m->k, true, z->dig[m->top]);
}

static void mk_lid(struct mkr *m, struct kr_tables *t, unsigned lid,
		   uint32_t *good_for)
{
	const struct kr_fabric *f = m->f;
	uint32_t port = kr_port_by_lid(f, lid);
	struct mdest z;

	if (!mk_dest(m, lid, &z))
		return;
	if (m->faulty && *good_for != z.sw) {
		mk_good(m, &z);
		*good_for = z.sw;
	}
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		t->lft[(size_t)sw * t->stride + lid] =
			mk_entry(m, sw, &z, lid - f->lid[port]);
}

int route_mikant(const struct kr_fabric *f, const struct kr_topo *topo,
		 struct kr_tables *t)
{
	struct mkr m = { .f = f, .t = topo, .k = topo->k[0],
			 .top = kr_mk_ndigit(topo) - 1 };
	uint32_t *target = malloc(((size_t)t->stride + 1) * sizeof(*target));
	uint32_t *lids = NULL, good_for = KR_NONE, n = 0;
	int rc = target ? mk_ports(&m) : KR_ENOMEM;

	if (!rc)
		rc = mk_order(&m);
	/* LID 0 and LIDs no port holds: no route, as in every DOR row */
	if (!rc)
		memset(t->lft, KR_NO_PORT, (size_t)f->nsw * t->stride);
	for (unsigned lid = 0; !rc && lid < t->stride; lid++) {
		struct mdest z;

		target[lid] = lid && mk_dest(&m, lid, &z) ? z.sw : KR_NONE;
	}
	/* by the switch that delivers them, so that good[] is computed
	 * once per switch */
	if (!rc && (!(lids = malloc(((size_t)t->stride + 1) * sizeof(*lids))) ||
		    (n = kr_sort_by_key(target, t->stride, f->nsw, NULL,
					lids)) == KR_NONE))
		rc = KR_ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++)
		mk_lid(&m, t, lids[i], &good_for);
	free(lids);
	free(target);
	free(m.port);
	free(m.nb);
	free(m.dig);
	free(m.order);
	free(m.good);
	return rc;
}
