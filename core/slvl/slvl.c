/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SL and VL plan.
 *
 * The SL of a path depends on its destination LID alone, so path_sl is a
 * table lookup and the path-sl file needs only "dlid sl" lines. Its bits
 * carry, from bit 0 up:
 *  - a ring-half bit for every wrapping dimension of size >= 4: set when the
 *    destination's coordinate lies in the upper half of the ring (>=
 *    ceil(k/2)). A port pointing along that ring sends the two halves on two
 *    VLs. Minimal DOR towards one half never goes all the way round, so the
 *    dependencies inside each VL form a path (DESIGN.md has the argument).
 *    Smaller rings never chain two hops in one dimension and need none; KNS
 *    and meshes route dimension order over trees and lines and need none.
 *  - the virtual network: one per dimension order in use (LMC offsets), on
 *    disjoint VL blocks, because different orders depend on each other's
 *    dimensions in both directions.
 *  - the destination class (XORDET, DBBM, BBQ, DBBQ, IODET), which spreads
 *    destinations over VLs to cut head-of-line blocking; it gets what is
 *    left of the 4 SL bits and of the VLs.
 * VL of a hop = vn * block + ring half * Q + class, block = (ring ? 2 : 1) * Q.
 *
 * One more case: a KNS crossbar's own LID. Routers reach it through its
 * line, so its last hop (router -> crossbar of dimension d) can follow a hop
 * in a dimension that comes after d in the order: a turn against the order,
 * which no other traffic of the first virtual network makes. Packets to
 * crossbars get SL 15, and on such turns (SL2VL is per in and out port) a VL
 * that no other traffic uses on that port: a channel where every packet is
 * one hop from its destination, so nothing waits on it. Elsewhere SL 15 rides
 * VL 0 with the first virtual network, whose turns it then follows. KNS
 * normal traffic only ever moves to a later stage (up and down a dimension,
 * then the next), so which VL it uses inside its virtual network does not
 * matter for deadlock freedom: if no VL is spare, the last VL is folded into
 * the one below on router-to-crossbar ports to make room.
 *
 * MiKANT: every path climbs, crosses the top at most twice, then descends
 * (route/mikant.c). Ranked so (up links by stage, then a first hop
 * across, then a second, then down links by stage from the top) every
 * dependency but one goes to a higher rank: the first hop across of one
 * group's packet can be followed by a second hop across back, and the
 * other group's packets do the same the other way, so the hops across
 * depend on each other both ways and do close loops. The second hop
 * across (in by a link across, out by another) therefore takes a VL of
 * its own for every SL (turn_vl, kept before the classes): nothing on
 * that VL waits for it again, and on the other VLs the ranks only grow.
 *
 * Multicast: the SA hands a group the SL of its MCMemberRecord (partitions.conf
 * sl=, default 0), not one of ours, and every tree knsroute builds is a
 * subtree of the up*-down* layer's spanning forest (mcast.c). So the
 * multicast SLs (conf mcast_sls) map to the detour layer's VL on every port;
 * a unicast code equal to a multicast SL is sent on a spare SL with the
 * code's maps instead (sl_of_code). */
#include "kr_slvl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_budget.h"
#include "kr_route.h"
#include "slvl_int.h"


static unsigned floor_pow2(unsigned v)
{
	unsigned p = 1;

	while (p * 2 <= v)
		p *= 2;
	return v ? p : 0;
}

/* A MiKANT switch's place among the leaves, group first, so that a CA's
 * index (place * k + slot) is its address (G, C_{n-1} .. C_0) read as a
 * number, as a node's index is on the other families. */
static uint32_t mk_leaf_index(const struct kr_topo *topo, uint32_t pos)
{
	uint32_t nleaf = topo->stride[topo->ndim - 2];

	return kr_mk_group(topo, pos) * nleaf + pos % nleaf;
}

/* Positions the classes number destinations over: a MiKANT's leaves. */
static uint64_t class_positions(const struct kr_topo *topo)
{
	return topo->family == KR_FAMILY_MIKANT ?
	       2ull * topo->stride[topo->ndim - 2] : topo->npos;
}

/* The switch and grid position a LID's port belongs to (crossbars: their
 * line; pendants: their host's), and the CA slot; false for unused LIDs. */
static int lid_place(const struct kr_fabric *f, const struct kr_topo *topo,
		     unsigned lid, uint32_t *pos, unsigned *slot, int *xbar)
{
	uint32_t port = kr_port_by_lid(f, lid), sw;

	if (port == KR_NONE)
		return 0;
	*slot = 0;
	*xbar = 0;
	sw = f->owner[port];
	if (!kr_is_switch(f, sw)) {
		if (f->peer[port] < 0)
			return 0;
		if (topo->ca_slot && topo->ca_slot[port] != KR_NONE)
			*slot = topo->ca_slot[port];
		sw = f->owner[f->peer[port]];
		if (!kr_is_switch(f, sw))
			return 0;
	}
	if (kr_topo_grid_switch(topo, sw) != sw) {	/* as CAs of its host */
		sw = topo->sw_host[sw];
		*slot = 0;
	}
	if (topo->sw_pos[sw] != KR_NONE && topo->family == KR_FAMILY_MIKANT)
		*pos = mk_leaf_index(topo, topo->sw_pos[sw]);
	else if (topo->sw_pos[sw] != KR_NONE)
		*pos = topo->sw_pos[sw];
	else if (topo->sw_xdim && topo->sw_xdim[sw] != KR_NO_DIM)
		*pos = topo->sw_xline[sw], *xbar = 1;
	else
		return 0;
	return 1;
}

static unsigned slots_per_switch(const struct kr_topo *topo)
{
	return topo->p ? topo->p : 1;
}

/* XOR-fold of the index bits in interleaved fashion (thesis 11.3.1): class
 * bit j is the XOR of index bits j, j + l, j + 2l, ... for l = log2(Q). */
static unsigned xor_fold(uint32_t index, unsigned l)
{
	unsigned v = 0;

	if (!l)
		return 0;
	while (index) {
		v ^= index & ((1u << l) - 1);
		index >>= l;
	}
	return v;
}

/* Class of a destination in virtual network vn; iodet is per dimension and
 * handled by its caller. */
static unsigned dest_class(const struct kr_slvl *p, const struct kr_topo *topo,
			   uint32_t index, uint32_t pos, unsigned vn)
{
	uint64_t n = class_positions(topo) * slots_per_switch(topo);
	unsigned q = p->nclass;

	switch (p->classify) {
	case KR_CLASSIFY_XORDET:
		return xor_fold(index, kr_ceil_log2(q));
	case KR_CLASSIFY_DBBM:
		return index % q;
	case KR_CLASSIFY_BBQ:
		return (unsigned)((uint64_t)index * q / n);
	case KR_CLASSIFY_DBBQ:	/* OSHA/SASHA eq. 2 and 3 */
		if (vn % 2 == 0)
			return (unsigned)((uint64_t)index * q / n);
		return kr_topo_coord(topo, pos, 0) * q / topo->k[0];
	case KR_CLASSIFY_IODET:
	case KR_CLASSIFY_NONE:
		break;
	}
	return 0;
}

static unsigned lid_sl(const struct kr_slvl *p, const struct kr_fabric *f,
		       const struct kr_topo *topo, unsigned lid, unsigned vn)
{
	uint32_t pos;
	unsigned slot, sl = 0;
	int xbar;

	if (!lid_place(f, topo, lid, &pos, &slot, &xbar))
		return 0;
	if (xbar && p->xbar_vl != KR_NONE)
		return KR_XBAR_SL;
	for (unsigned d = 0; d < topo->ndim; d++)
		if (p->ring_bit[d] != KR_NO_DIM &&
		    kr_topo_coord(topo, pos, d) >= (topo->k[d] + 1) / 2)
			sl |= 1u << p->ring_bit[d];
	sl |= vn << p->vn_shift;
	if (p->classify == KR_CLASSIFY_IODET) {
		for (unsigned d = 0; d < topo->ndim; d++)
			sl |= (kr_topo_coord(topo, pos, d) % p->nclass)
			      << (p->class_shift + d * p->class_bits);
	} else {
		sl |= dest_class(p, topo, pos * slots_per_switch(topo) + slot,
				 pos, vn) << p->class_shift;
	}
	return p->sl_of_code[sl];
}

/* The dimension a port sends along (torus/KNS router: port_dir; crossbar:
 * its own dimension), or KR_NO_DIM for CA-facing and management ports. */
static unsigned port_dim(const struct kr_fabric *f, const struct kr_topo *topo,
			 uint32_t slot)
{
	uint32_t node = f->owner[slot];
	uint8_t dir;

	if (!kr_is_switch(f, node) || slot == f->port0[node])
		return KR_NO_DIM;
	dir = topo->port_dir[slot];
	if (dir < 2 * KR_MAX_DIM)
		return dir / 2u;
	if (dir == KR_DIR_XBAR)
		return topo->sw_xdim[node];
	return KR_NO_DIM;
}

static uint64_t port_map(const struct kr_slvl *p, unsigned dim, int xbar_port,
			 int against_order, int turn)
{
	uint64_t map = 0, code_map;
	unsigned q = p->nclass;

	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		unsigned vn = (sl >> p->vn_shift) & ((1u << p->vn_bits) - 1);
		unsigned half = 0, cls;

		if (dim != KR_NO_DIM && p->ring_bit[dim] != KR_NO_DIM)
			half = (sl >> p->ring_bit[dim]) & 1;
		if (p->classify == KR_CLASSIFY_IODET)
			cls = sl >> (p->class_shift +
				     (dim == KR_NO_DIM ? 0 : dim) * p->class_bits);
		else
			cls = sl >> p->class_shift;
		cls &= (1u << p->class_bits) - 1;
		map = kr_map_set(map, sl, (vn % p->nvn) * p->block +
				 half * q + cls % q);
	}
	for (unsigned sl = 0; turn && p->turn_vl != KR_NONE && sl < KR_NSL; sl++)
		map = kr_map_set(map, sl, p->turn_vl);
	if (p->xbar_vl != KR_NONE) {
		for (unsigned sl = 0; xbar_port && p->fold != KR_NONE &&
				      sl < KR_NSL; sl++)
			if (kr_map_vl(map, sl) == p->fold)
				map = kr_map_set(map, sl, p->fold - 1);
		map = kr_map_set(map, KR_XBAR_SL, against_order ? p->xbar_vl : 0);
		/* Without the layer's or multicast's VL, the SA's and
		 * PerfMgr's packets to crossbars take these turns on their
		 * own SL and close loops on the class VLs: one hop from
		 * their crossbar, like SL 15's, they are safe on its VL. */
		for (unsigned sl = 0; against_order && p->mcast_vl == KR_NONE &&
				      sl < KR_NSL; sl++)
			if (p->mgmt_sls >> sl & 1)
				map = kr_map_set(map, sl, p->xbar_vl);
	}
	code_map = map;
	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		if (p->sl_of_code[sl] != sl)
			map = kr_map_set(map, p->sl_of_code[sl],
					 kr_map_vl(code_map, sl));
		if (p->mcast_safe >> sl & 1)
			map = kr_map_set(map, sl, p->mcast_vl);
	}
	if (p->detour_vl != KR_NONE)
		map = kr_map_set(map, p->detour_sl, p->detour_vl);
	for (unsigned i = 0; i < p->ntree; i++)
		map = kr_map_set(map, p->tree_sl[i], p->tree_vl[i]);
	return map;
}

/* Where dimension d comes in routing order 0 (the order of crossbar LIDs). */
static void order_rank(const struct kr_topo *topo, const struct kr_conf *c,
		       unsigned *rank)
{
	unsigned order[KR_MAX_DIM];

	kr_route_order(topo, c, 0, order);
	for (unsigned i = 0; i < topo->ndim; i++)
		rank[order[i]] = i;
}

static int router_xbar_port(const struct kr_fabric *f, const struct kr_topo *topo,
			    uint32_t slot)
{
	uint32_t n = f->owner[slot];

	return topo->family == KR_FAMILY_KNS && topo->sw_pos[n] != KR_NONE &&
	       topo->port_dir[slot] < 2 * KR_MAX_DIM;
}

/* A switch-to-switch link of a KNS with fat-tree subnets (s > 1). */
static int subnet_link(const struct kr_fabric *f, const struct kr_topo *topo,
		       uint32_t slot)
{
	uint32_t n = f->owner[slot];

	return topo->s > 1 && kr_is_switch(f, n) && f->peer[slot] >= 0 &&
	       kr_is_switch(f, f->owner[f->peer[slot]]);
}

/* port_map's few distinct results (by dimension, crossbar port, turn into
 * a crossbar against the order, grid turn), each with the VLs its used SLs
 * take: a fabric has a map per (in, out) port pair, and they repeat. */
struct map_memo {
	uint64_t map[(KR_MAX_DIM + 1) * 8];
	uint16_t vls[(KR_MAX_DIM + 1) * 8];
	uint8_t have[(KR_MAX_DIM + 1) * 8];
	uint16_t used_sl;
};

static uint64_t memo_map(const struct kr_slvl *p, struct map_memo *m,
			 unsigned dim, int xbar_port, int against, int turn,
			 uint16_t *vls)
{
	unsigned k = (dim == KR_NO_DIM ? KR_MAX_DIM : dim) * 8u +
		     (unsigned)(xbar_port << 2 | against << 1 | turn);

	if (!m->have[k]) {
		m->map[k] = port_map(p, dim, xbar_port, against, turn);
		for (unsigned sl = 0; sl < KR_NSL; sl++)
			if (m->used_sl >> sl & 1)
				m->vls[k] |= (uint16_t)(1u << kr_map_vl(m->map[k], sl));
		m->have[k] = 1;
	}
	*vls = m->vls[k];
	return m->map[k];
}

/* Whether a packet entering a grid switch by si and leaving by so turns
 * where no dimension-order route does (into an earlier dimension, or
 * back): only repaired routes do, so the hop may take a VL of its own at
 * no cost to the plan (torus-2QoS's turn VL). Fewer detours close loops;
 * the repair's admission still decides. */
static int grid_turn(const struct kr_fabric *f, const struct kr_topo *topo,
		     const unsigned *rank, uint32_t si, uint32_t so)
{
	unsigned di = topo->port_dir[si], dout = topo->port_dir[so];

	if (si == f->port0[f->owner[si]] || di >= 2 * KR_MAX_DIM ||
	    dout >= 2 * KR_MAX_DIM)
		return 0;
	return rank[di / 2] > rank[dout / 2] || di == dout;
}

/* A MiKANT hop in across the top and out across again (slvl.c's
 * opening comment). */
static int mk_second_cross(const struct kr_fabric *f, const struct kr_topo *topo,
			   uint32_t si, uint32_t so)
{
	return si != f->port0[f->owner[si]] &&
	       kr_mk_dir_cross(topo, topo->port_dir[si]) &&
	       kr_mk_dir_cross(topo, topo->port_dir[so]);
}

/* With subnets, packets to a subnet switch (SL 15) turn against the
 * order at a router and then still take several hops inside the subnet,
 * on links that other SL-15 packets cross in order: SL 15 rides the
 * crossbar VL on every switch-to-switch link there, a VL of its own. */
static uint64_t turn_map(const struct kr_slvl *p, struct map_memo *m,
			 const struct kr_fabric *f, const struct kr_topo *topo,
			 const unsigned *rank, uint32_t n, unsigned in,
			 unsigned out, uint16_t *vls)
{
	uint32_t so = kr_port(f, n, out), si = kr_port(f, n, in);
	unsigned dim = port_dim(f, topo, so);

	int mk = topo->family == KR_FAMILY_MIKANT;
	int turn = kr_is_switch(f, n) && in &&
		   (mk ? mk_second_cross(f, topo, si, so)
		       : grid_turn(f, topo, rank, si, so));

	if (subnet_link(f, topo, so))
		return memo_map(p, m, dim, 1, 1, turn, vls);
	int xo = kr_is_switch(f, n) && router_xbar_port(f, topo, so);
	int against = xo && in && router_xbar_port(f, topo, si) &&
		      rank[port_dim(f, topo, si)] > rank[dim];

	return memo_map(p, m, dim, xo, against, turn, vls);
}

/* A link to a CA may run fewer VLs than the plan's (one older HCA among
 * many), and so may a pendant tree's (an older leaf switch): their
 * channels lie on no credit loop (kr_topo_loop_free_link), so any VL the
 * link has will do. The plan's VLs wrap round below its OperVLs there
 * (VL 15, the drop, stays), and the rest of the fabric keeps every VL
 * (kr_topo_vls leaves such links out). 0: not such a link. */
static unsigned loop_free_link_vls(const struct kr_fabric *f,
				   const struct kr_topo *topo, uint32_t slot)
{
	return kr_topo_loop_free_link(f, topo, slot) ? f->oper_vls[slot] : 0;
}

static uint64_t fold_map(uint64_t map, unsigned vls, uint16_t *mask)
{
	uint16_t folded = 0;

	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		unsigned vl = kr_map_vl(map, sl);

		if (vl != KR_VL15)
			map = kr_map_set(map, sl, vl % vls);
	}
	for (unsigned vl = 0; vl < 16; vl++)
		if (*mask >> vl & 1)
			folded |= (uint16_t)(1u << (vl == KR_VL15 ? vl : vl % vls));
	*mask = folded;
	return map;
}

/* The VL for the first hop of a host on a KNS crossbar's spare port. Its
 * switch sends packets on along its line first, after which they may
 * correct an earlier dimension: a turn against the order, which on the
 * class VLs would close credit loops with the packets passing through.
 * On a VL that nothing else takes out of a crossbar (SL 15's, when not
 * shared) no packet waits behind that hop; failing that, the detour
 * layer's, multicast's or a tree layer's VL, which every port gives the
 * same SLs, so no packet moves onto it from another VL and a hop leaving
 * it cannot close a loop. */
static uint32_t host_vl(const struct kr_slvl *p, const struct kr_topo *topo)
{
	if (topo->family != KR_FAMILY_KNS)
		return KR_NONE;
	if (topo->s == 1 && p->xbar_vl != KR_NONE && p->fold == KR_NONE)
		return p->xbar_vl;
	if (p->detour_vl != KR_NONE)
		return p->detour_vl;
	if (p->mcast_vl != KR_NONE)
		return p->mcast_vl;
	return p->ntree ? p->tree_vl[0] : KR_NONE;
}

static void fill_maps(struct kr_slvl *p, const struct kr_fabric *f,
		      const struct kr_topo *topo, const struct kr_conf *c,
		      struct kr_tables *t, uint16_t used_sl)
{
	unsigned rank[KR_MAX_DIM];
	struct map_memo m = { .used_sl = used_sl };

	order_rank(topo, c, rank);
	p->host_vl = host_vl(p, topo);
	p->nhost = 0;
	for (uint32_t n = 0; n < f->nnode; n++) {
		unsigned np = f->nports[n];

		for (unsigned out = 0; out <= np; out++) {
			uint32_t slot = kr_port(f, n, out);
			unsigned nin = kr_is_switch(f, n) ? np : 0;
			unsigned link_vls = loop_free_link_vls(f, topo, slot);

			for (unsigned in = 0; in <= nin; in++) {
				uint16_t vls;
				uint64_t map = turn_map(p, &m, f, topo, rank, n,
							kr_is_switch(f, n) ? in : out,
							out, &vls);

				if (p->host_vl != KR_NONE &&
				    kr_topo_xbar_host(f, topo,
						      kr_port(f, n, in))) {
					map = p->host_vl * 0x1111111111111111ull;
					vls = (uint16_t)(1u << p->host_vl);
					p->nhost += out == 0;
				}

				if (link_vls && link_vls < p->vls)
					map = fold_map(map, link_vls, &vls);

				*kr_tables_sl2vl_ref(f, t, n, in, out) = map;
				p->vl_mask[slot] |= vls;
			}
		}
	}
}

/* The largest SL the plan's fields can encode, with every field at its top. */
static unsigned max_sl(const struct kr_slvl *p, unsigned ndim)
{
	unsigned sl = ((1u << p->nring) - 1) | ((p->nvn - 1) << p->vn_shift);
	unsigned fields = p->classify == KR_CLASSIFY_IODET ? ndim : 1;

	for (unsigned i = 0; i < fields; i++)
		sl |= (p->nclass - 1) << (p->class_shift + i * p->class_bits);
	return sl;
}

/* The budget of plan p as laid out so far (kr_budget.h). */
static struct kr_budget budget_of(const struct kr_slvl *p)
{
	return (struct kr_budget){ .nring = p->nring,
				   .xbar = p->xbar_vl != KR_NONE,
				   .xturn = p->xturn,
				   .ndetour = p->ndetour,
				   .mcast_sls = p->mcast_sls, .vls = p->vls };
}

static uint16_t spare_sls(const struct kr_slvl *p, unsigned ndim)
{
	struct kr_budget b = budget_of(p);

	return kr_budget_spare_sls(&b, max_sl(p, ndim));
}

static bool mcast_fits(const struct kr_slvl *p, unsigned ndim)
{
	struct kr_budget b = budget_of(p);

	return kr_budget_mcast_fits(&b, max_sl(p, ndim));
}

/* The multicast VL (the up*-down* layer's, else a spare one) and the
 * spare SLs that unicast codes equal to multicast SLs move to. Nothing
 * when either is missing: groups are then refused, unicast keeps its SLs. */
static void plan_mcast(struct kr_slvl *p, unsigned ndim, unsigned xbar)
{
	uint16_t spare = spare_sls(p, ndim);
	unsigned top = max_sl(p, ndim);

	if (!p->mcast_sls || !mcast_fits(p, ndim))
		return;
	if (p->detour_vl != KR_NONE)
		p->mcast_vl = p->detour_vl;
	else if (p->vls_used < p->vls)
		p->mcast_vl = p->vls_used++;
	else
		return;
	for (unsigned sl = 0; sl <= top; sl++) {
		unsigned a = 0;

		if (!(p->mcast_sls >> sl & 1))
			continue;
		while (!(spare >> a & 1))
			a++;
		spare &= (uint16_t)~(1u << a);
		p->sl_of_code[sl] = (uint8_t)a;
	}
	p->mcast_safe = p->mcast_sls & (uint16_t)~(xbar ? 1u << KR_XBAR_SL : 0);
}

static int fit(struct kr_slvl *p, const struct kr_topo *topo,
	       struct kr_diag *d)
{
	unsigned r = p->nring ? 2 : 1, bits, qbits, qvl, vls;
	unsigned xbar = p->xbar_vl != KR_NONE;
	struct kr_budget b = budget_of(p);
	uint16_t taken;
	/* SLs from here up are reserved: crossbar traffic, then detours */
	unsigned top_sl = kr_budget_top_sl(&b);

	vls = p->vls > p->ndetour ? p->vls - p->ndetour : 0;
	vls = vls > b.xturn ? vls - b.xturn : 0;	/* the MiKANT turn first */
	/* without the detour layer multicast needs a VL of its own: classes
	 * leave it one (groups refused would take IPoIB down, and the SA's
	 * traffic, which rides it, has none), unless unicast would then lose
	 * its proof (KNS crossbar traffic needs a VL too) or the classes
	 * asked for fill every VL exactly (a count that does not fit is cut
	 * anyway) */
	if (!p->ndetour && p->mcast_sls && vls > p->nvn * r + xbar &&
	    p->requested * p->nvn * r != vls)
		vls--;
	p->vn_bits = kr_ceil_log2(p->nvn);
	if (p->nring + p->vn_bits > KR_SL_BITS || p->nvn * r > vls ||
	    (p->ndetour && (1u << (p->nring + p->vn_bits)) > top_sl))
		return kr_fail(d, KR_ENOVL, 0, "deadlock freedom needs %u SL bits "
			       "(%u ring halves, %u virtual networks) and %u VLs%s; "
			       "there are %d SL bits and %u VLs", p->nring +
			       p->vn_bits, p->nring, p->nvn, p->nvn * r + b.xturn,
			       b.xturn ? " (one for the second hop across the "
			       "top)" : "", KR_SL_BITS, vls + b.xturn);
	p->vn_shift = p->nring;
	p->class_shift = p->nring + p->vn_bits;
	bits = KR_SL_BITS - p->class_shift;
	qvl = vls / (p->nvn * r);
	if (p->classify == KR_CLASSIFY_DBBQ && p->nvn < 2)
		return kr_fail(d, KR_EINVAL, 0, "dbbq needs two virtual networks: "
			       "give the CAs LMC >= 1");
	if (p->classify == KR_CLASSIFY_IODET) {
		if (bits < topo->ndim)
			return kr_fail(d, KR_EINVAL, 0, "iodet needs a class bit "
				       "per dimension (%u) but only %u SL bits "
				       "are left", topo->ndim, bits);
		bits /= topo->ndim;
	}
	qbits = 1u << bits;
	p->nclass = qvl < qbits ? qvl : qbits;
	if (p->requested && p->requested < p->nclass)
		p->nclass = p->requested;
	if (p->classify == KR_CLASSIFY_NONE)
		p->nclass = 1;
	if (p->classify == KR_CLASSIFY_XORDET || p->classify == KR_CLASSIFY_IODET)
		p->nclass = floor_pow2(p->nclass);
	p->class_bits = kr_ceil_log2(p->nclass);
	while (p->nclass > 1 && (max_sl(p, topo->ndim) >= top_sl ||
				 (p->mcast_sls && (p->ndetour || !p->requested) &&
				  !mcast_fits(p, topo->ndim)))) {
		p->nclass = p->classify == KR_CLASSIFY_XORDET ||
			    p->classify == KR_CLASSIFY_IODET ? p->nclass / 2
							     : p->nclass - 1;
		p->class_bits = kr_ceil_log2(p->nclass);
	}
	p->block = r * p->nclass;
	p->vls_used = p->nvn * p->block;
	if (b.xturn)
		p->turn_vl = p->vls_used++;
	p->fold = KR_NONE;
	if (xbar && p->vls_used < vls) {
		p->xbar_vl = p->vls_used++;
	} else if (xbar && p->block >= 2) {
		p->xbar_vl = p->fold = vls - 1;
	} else if (xbar) {
		return kr_fail(d, KR_ENOVL, 0, "no VL left for traffic to KNS "
			       "crossbars (%u virtual networks on %u VLs)",
			       p->nvn, vls);
	}
	if (p->ndetour) {
		p->detour_sl = top_sl + p->ndetour - 1;
		p->detour_vl = p->vls_used++;
	}
	plan_mcast(p, topo->ndim, xbar);
	taken = p->mcast_sls;
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		if (p->sl_of_code[sl] != sl)
			taken |= (uint16_t)(1u << p->sl_of_code[sl]);
	/* repaired trees: the reserved layer, then every VL and SL that the
	 * classes left unused (XORDET takes a power of two) */
	for (unsigned sl = top_sl; p->ndetour > 1 && sl > max_sl(p, topo->ndim) &&
			       (p->ntree == 0 || p->vls_used < p->vls); sl--) {
		if (taken >> sl & 1)
			continue;
		p->tree_sl[p->ntree] = sl;
		p->tree_vl[p->ntree++] = p->vls_used++;
	}
	if (p->ntree && !b.xturn)
		p->turn_vl = p->tree_vl[0];
	return KR_OK;
}

static void reset_mcast(struct kr_slvl *p)
{
	p->mcast_vl = KR_NONE;
	p->mcast_safe = 0;
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		p->sl_of_code[sl] = (uint8_t)sl;
}

int kr_slvl_mcast_ok(const struct kr_slvl *p, unsigned sl, unsigned *fix)
{
	unsigned s = 0;

	while (s < KR_NSL && !(p->mcast_safe >> s & 1))
		s++;
	*fix = s;
	return sl < KR_NSL && (p->mcast_safe >> sl & 1);
}

unsigned kr_slvl_class_of(const struct kr_slvl *p, unsigned sl)
{
	unsigned code = 0, cls;

	if (p->nclass < 2 || p->classify == KR_CLASSIFY_IODET || !p->block ||
	    sl >= KR_NSL)
		return 0;
	if (sl == KR_XBAR_SL && p->xbar_vl != KR_NONE)
		return 0;	/* VL 0 off the turns into crossbars */
	while (code < KR_NSL && p->sl_of_code[code] != sl)
		code++;
	if (code == KR_NSL)
		return 0;
	cls = (code >> p->class_shift & ((1u << p->class_bits) - 1)) % p->nclass;
	/* the VL folded on router-to-crossbar ports joins the one below */
	return p->fold != KR_NONE && cls && cls == p->fold % p->block ? cls - 1
								     : cls;
}

int kr_slvl_plan(const struct kr_fabric *f, const struct kr_topo *topo,
		 const struct kr_conf *c, struct kr_tables *t,
		 struct kr_slvl *p, struct kr_diag *d)
{
	struct kr_budget b;
	uint16_t used_sl = 0;
	int rc;

	*p = (struct kr_slvl){ .classify = c ? c->classify : KR_CLASSIFY_XORDET,
			       .requested = c ? c->classes : 0 };
	if (!t->dlid_sl || !t->sl2vl)
		return kr_fail(d, KR_EINVAL, 0, "tables lack SL and SL2VL space");
	for (unsigned dim = 0; dim < KR_MAX_DIM; dim++) {
		p->ring_bit[dim] = KR_NO_DIM;
		if (kr_topo_ring_halves(topo, dim))
			p->ring_bit[dim] = (uint8_t)p->nring++;
	}
	p->nvn = kr_route_norders(f, topo, c, &p->nvn_wanted);
	kr_budget_init(&b, f, topo, c);
	p->vls = b.vls;
	p->xbar_vl = b.xbar ? 0 : KR_NONE;
	p->xturn = b.xturn;
	p->detour_vl = KR_NONE;
	p->turn_vl = KR_NONE;
	p->ndetour = b.ndetour;
	/* the SA's traffic follows the unicast routes to and from the SM's
	 * switch, the layer's root, on sm_sl: safe on the layer's VL, which
	 * it joins unless multicast has no VL by choice */
	p->mcast_sls = b.mcast_sls;
	p->mgmt_sls = (uint16_t)((c ? 1u << c->sm_sl : 1u) |
				 1u << KR_PERFMGR_SL);
	reset_mcast(p);
	rc = fit(p, topo, d);
	if (rc == KR_ENOVL && p->ndetour) {
		/* deadlock freedom comes first: plan without the detour layer */
		p->ndetour = 0;
		p->detour_dropped = 1;
		p->xbar_vl = p->xbar_vl == KR_NONE ? KR_NONE : 0;
		reset_mcast(p);
		rc = fit(p, topo, d);
	}
	if (rc)
		return rc;
	p->vl_mask = calloc(f->nport + 1, sizeof(*p->vl_mask));
	if (!p->vl_mask)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (unsigned lid = 1; lid < t->stride; lid++) {
		uint32_t port = kr_port_by_lid(f, lid);

		if (port == KR_NONE)
			continue;
		t->dlid_sl[lid] = (uint8_t)lid_sl(p, f, topo, lid,
						  (lid - f->lid[port]) % p->nvn);
		used_sl |= (uint16_t)(1u << t->dlid_sl[lid]);
	}
	if (p->detour_vl != KR_NONE)
		used_sl |= (uint16_t)(1u << p->detour_sl);
	for (unsigned i = 0; i < p->ntree; i++)
		used_sl |= (uint16_t)(1u << p->tree_sl[i]);
	if (p->mcast_vl != KR_NONE)
		used_sl |= p->mcast_safe;
	fill_maps(p, f, topo, c, t, used_sl);
	slvl_describe(p, topo);
	return KR_OK;
}

void kr_slvl_free(struct kr_slvl *p)
{
	free(p->vl_mask);
	*p = (struct kr_slvl){ 0 };
}
