/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The adaptive bubble router (Puente et al.), an ideal baseline for tori
 * and meshes that InfiniBand cannot be programmed to be: it routes on
 * coordinates, not on the LFTs, and chooses among outputs per packet.
 *
 * Two queues per channel: VL 0 adaptive, VL 1 escape. A head may take any
 * minimal direction on VL 0 whose next buffer has room for it, or the
 * dimension-order direction on VL 1 under bubble flow control: continuing
 * along the ring it travels on needs room for one packet, entering a ring
 * (from a host, from VL 0 or from another dimension) room for two, so a
 * ring is never filled and the escape network cannot deadlock. The last
 * hop, to the CA, takes the LFT's port on VL 0. Only FIFO inputs without
 * output queues. */
#include "sim_int.h"

#include <stdlib.h>

/* The port of node towards direction dir (2d: +, 2d+1: -), 0 if none. */
static unsigned dir_port(const struct sim *s, uint32_t node, unsigned dir)
{
	return s->dir_port[(size_t)node * 2 * s->topo.ndim + dir];
}

int sim_bubble_init(struct sim *s, struct kr_diag *d)
{
	const struct kr_fabric *f = s->f;
	unsigned nd;
	int rc;

	s->bubble = true;	/* from here sim_bubble_free frees topo */
	rc = kr_topo_recognize(f, NULL, &s->topo, d);
	if (rc)
		return rc;
	if (s->topo.family != KR_FAMILY_TORUS &&
	    s->topo.family != KR_FAMILY_MESH)
		return kr_fail(d, KR_EINVAL, 0, "the adaptive bubble router "
			       "needs a torus or a mesh, not a %s",
			       kr_family_name(s->topo.family));
	if (s->o->voq || s->o->oq)
		return kr_fail(d, KR_EINVAL, 0, "the adaptive bubble router "
			       "has FIFO inputs and no output queues");
	nd = 2 * s->topo.ndim;
	if (!(s->dir_port = calloc((size_t)f->nsw * nd, 1)))
		return KR_ENOMEM;
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned p = f->nports[sw]; p >= 1; p--) {
			unsigned dir = s->topo.port_dir[kr_port(f, sw, p)];

			if (dir < nd && f->peer[kr_port(f, sw, p)] >= 0)
				s->dir_port[(size_t)sw * nd + dir] = (uint8_t)p;
		}
	return 0;
}

/* The switch a DLID's CA hangs off, KR_NONE if none. */
static uint32_t dest_switch(const struct sim *s, unsigned dlid)
{
	uint32_t slot = kr_port_by_lid(s->f, dlid);

	if (slot == KR_NONE || s->f->peer[slot] < 0)
		return KR_NONE;
	return s->f->owner[s->f->peer[slot]];
}

/* The minimal directions of dimension d from a to b: bit 0 +, bit 1 -. */
static unsigned minimal_dirs(const struct kr_topo *t, unsigned d,
			     unsigned a, unsigned b)
{
	unsigned fwd = (b + t->k[d] - a) % t->k[d], back = t->k[d] - fwd;

	if (a == b)
		return 0;
	if (!t->wrap[d])
		return b > a ? 1 : 2;
	return (fwd <= back ? 1 : 0) | (back <= fwd ? 2 : 0);
}

/* The outputs of head p at node, entered by port in: up to 2 per
 * dimension on VL 0 and the escape one on VL 1 (need: the credits the
 * bubble asks for there). Returns how many; 0: nowhere to go. */
unsigned sim_bubble_cands(const struct sim *s, uint32_t node, unsigned in,
			  const struct sim_pkt *p, struct sim_cand *c)
{
	const struct kr_topo *t = &s->topo;
	uint32_t dst = dest_switch(s, p->dlid), a = t->sw_pos[node], b;
	unsigned n = 0, esc = 0, pk = s->o->pkt, in_dir;

	if (dst == KR_NONE || a == KR_NONE)
		return 0;
	if (dst == node) {
		c[0] = (struct sim_cand){ kr_lft_port(s->t, node, p->dlid), 0, pk };
		return c[0].out != KR_NO_PORT;
	}
	b = t->sw_pos[dst];
	for (unsigned d = 0; d < t->ndim && b != KR_NONE; d++) {
		unsigned m = minimal_dirs(t, d, kr_topo_coord(t, a, d),
					  kr_topo_coord(t, b, d));

		for (unsigned dir = 2 * d; dir < 2 * d + 2; dir++)
			if (m >> (dir & 1) & 1 && dir_port(s, node, dir)) {
				c[n++] = (struct sim_cand){ dir_port(s, node, dir),
							    0, pk };
				if (!esc)
					esc = dir + 1;
			}
	}
	if (!esc)
		return 0;
	/* travelling on: it came in on VL 1 from the opposite port of the
	 * same dimension, so it continues along its ring */
	in_dir = t->port_dir[kr_port(s->f, node, in)];
	c[n] = (struct sim_cand){ dir_port(s, node, esc - 1), 1,
				  p->vl == 1 && in_dir == ((esc - 1) ^ 1) ? pk
									 : 2 * pk };
	return n + 1;
}

void sim_bubble_free(struct sim *s)
{
	if (s->bubble)
		kr_topo_free(&s->topo);
	free(s->dir_port);
}
