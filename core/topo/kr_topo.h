/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Recognised structure: the family, its sizes and every switch's place.
 *
 * Grid positions are linear: pos = sum over d of coord[d] * stride[d], with
 * dimension 0 varying fastest. For a torus or mesh every switch of the grid
 * has a position; for KNS the routers do and each crossbar belongs to the
 * line of routers that differ only in its own dimension. */
#ifndef KR_TOPO_H
#define KR_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kr_fabric.h"
#include "kr_shape.h"

/* port_dir values: 2d (+ direction of d; KNS router: towards the crossbar
 * of d), 2d+1 (- direction of d), or one of these. */
#define KR_DIR_TREE 0xfc	/* a link of a pendant tree (pendant.c) */
#define KR_DIR_CA 0xfd		/* to a CA */
#define KR_DIR_XBAR 0xfe	/* KNS crossbar or subnet switch port, to a
				 * router or to a switch of its subnet */
#define KR_DIR_NONE 0xff	/* unused, management, or not part of the grid */

/* An expected link that is absent: from grid position pos towards the +
 * direction of dim (torus, mesh) or to the crossbar of dim (KNS). */
struct kr_missing_link {
	uint32_t pos;
	uint8_t dim;
};

/* An expected switch that is absent: the grid switch at pos
 * (xdim == KR_NO_DIM) or the crossbar of dimension xdim on the line through
 * pos (pos has coordinate 0 in xdim). */
struct kr_missing_sw {
	uint32_t pos;
	uint8_t xdim;
};

struct kr_topo {
	enum kr_family family;
	unsigned ndim;
	unsigned k[KR_MAX_DIM];		/* size per dimension, engine order */
	uint8_t wrap[KR_MAX_DIM];	/* torus/mesh: 1 if ring */
	uint32_t stride[KR_MAX_DIM];
	unsigned p;			/* max CAs per router / grid switch */
	unsigned parallel;		/* links between neighbours, as most
					 * pairs have them (tg_usual_mult) */
	uint8_t strays_bridge;		/* some switch is reached only over a
					 * cable the grid has no place for
					 * (KR_DIR_NONE), which the up*-down*
					 * walks then take (kr_updn.h) */
	uint32_t npos;			/* product of k */

	int32_t *pos_sw;	/* [npos] switch at each position, -1 if missing */
	uint32_t *sw_pos;	/* [nsw] position, KR_NONE if not a grid switch */
	uint8_t *sw_xdim;	/* [nsw] KNS crossbar dimension, else KR_NO_DIM */
	uint32_t *sw_xline;	/* [nsw] KNS crossbar line (pos with own dim 0) */
	int32_t *xbar;		/* [npos*ndim] KNS: crossbar serving (pos, d), -1 */
	uint8_t *port_dir;	/* [nport] see KR_DIR_* */
	uint32_t *ca_slot;	/* [nport] CA port: the slot its switch port
				 * held before (held: from the plan in force
				 * or the coordinates cache), else the rank
				 * of that port's number among those CAs hang
				 * off anywhere, when every switch uses the
				 * same p numbers (a CA gone leaves its
				 * siblings' slots), else among its switch's
				 * live CA ports; KR_NONE for other ports */
	uint32_t *held;		/* [port0[nsw]] switch port: the slot of
				 * the CA on it, or of the one last on it
				 * while that CA is away and no other took
				 * the slot (kr_topo_keep_slots, the
				 * coordinates cache); KR_NONE otherwise */

	/* KNS with s > 1: each line's crossbar is a radix/2-ary s-tree of
	 * radix-port switches (thesis 4.3); every switch of that subnet has
	 * the line's sw_xdim and sw_xline, xbar[] names the stage-0 switch a
	 * router links to. NULL arrays and s = 1 for crossbars. */
	unsigned s;			/* stages per subnet */
	unsigned arity;			/* s > 1: down (= up) ports per switch */
	uint8_t *sw_stage;	/* [nsw] stage e, 0 next to the routers;
				 * KR_NO_DIM for routers */
	uint32_t *sw_order;	/* [nsw] order o in the stage: base-arity
				 * digits w_0 .. w_{s-2}, w_0 lowest */
	uint32_t nmissing_sublink;	/* links absent inside subnets */
	uint32_t nmissing_subsw;	/* subnet switches absent */

	/* Pendant switches (pendant.c): trees hanging off one switch of
	 * the grid by their root's links, with no place in it. NULL arrays
	 * when there are none. */
	uint32_t npendant;
	uint32_t *sw_parent;	/* [nsw] the switch a pendant hangs off,
				 * KR_NONE for the grid's own */
	uint32_t *sw_host;	/* [nsw] the grid switch its tree hangs off,
				 * KR_NONE for the grid's own */

	struct kr_missing_link *missing_link;
	uint32_t nmissing_link;
	struct kr_missing_sw *missing_sw;
	uint32_t nmissing_sw;

	char *report;		/* NULL or lines for the admin: conflicts of
				 * knsroute.conf with the fabric, a cache set
				 * aside; kept even when recognition fails */
};

static inline unsigned kr_topo_coord(const struct kr_topo *t, uint32_t pos,
				     unsigned d)
{
	return (pos / t->stride[d]) % t->k[d];
}

/* MiKANT(k, n), the mirrored k-ary n-tree (docs/design.md): switch
 * (G, L, D_{n-2} .. D_0) sits at the position with coordinates
 * (D_0, .., D_{n-2}, L, G), so ndim = n + 1: n - 1 digits of size k, the
 * stage (n - 1 of them) and the group (2). port_dir: up (stage L to L+1)
 * is + of the stage dimension, down its -, across the top + of the group
 * dimension from group 0 and - from group 1. A missing link is named by
 * its lower end (group 0's for a link across) and, in dim, the value the
 * link gives the digit it replaces. */
static inline unsigned kr_mk_ndigit(const struct kr_topo *t)
{
	return t->ndim - 2;
}

static inline unsigned kr_mk_stage(const struct kr_topo *t, uint32_t pos)
{
	return kr_topo_coord(t, pos, t->ndim - 2);
}

static inline unsigned kr_mk_group(const struct kr_topo *t, uint32_t pos)
{
	return kr_topo_coord(t, pos, t->ndim - 1);
}

/* The position of the switch a MiKANT link leads to from the one at pos
 * going up (across, from the top) and giving the replaced digit value v. */
uint32_t kr_mk_up_pos(const struct kr_topo *t, uint32_t pos, unsigned v);

/* port_dir values of a MiKANT switch port: up, down, across. */
static inline unsigned kr_mk_dir_up(const struct kr_topo *t)
{
	return 2 * (t->ndim - 2);
}

static inline unsigned kr_mk_dir_down(const struct kr_topo *t)
{
	return 2 * (t->ndim - 2) + 1;
}

static inline bool kr_mk_dir_cross(const struct kr_topo *t, unsigned dir)
{
	return dir / 2 == t->ndim - 1;
}

/* Whether dimension d is a ring whose destinations' two halves must ride
 * two VLs on it (a torus ring of 4 or more: shorter ones never take two
 * hops in a row along it). */
static inline bool kr_topo_ring_halves(const struct kr_topo *t, unsigned d)
{
	return t->family == KR_FAMILY_TORUS && d < t->ndim && t->wrap[d] &&
	       t->k[d] >= 4;
}

/* Whether the fabric is a KNS whose crossbar LIDs need SL 15 of their own
 * (their last hop can turn against the dimension order: slvl.c). */
static inline bool kr_topo_xbar_sl(const struct kr_topo *t)
{
	return t->family == KR_FAMILY_KNS && t->ndim > 1;
}

/* Whether port slot is a KNS crossbar's (or subnet switch's) port to a
 * host on it: a CA on a spare port or a pendant tree, a target on the
 * crossbar's line (route.c) whose packets the crossbar maps apart (slvl.c,
 * host_vl). */
static inline bool kr_topo_xbar_host(const struct kr_fabric *f,
				     const struct kr_topo *t, uint32_t slot)
{
	uint32_t sw = f->owner[slot];

	return slot < f->port0[f->nsw] && t->sw_pos[sw] == KR_NONE &&
	       (t->port_dir[slot] == KR_DIR_CA ||
		t->port_dir[slot] == KR_DIR_TREE) &&
	       (!t->sw_host || t->sw_host[sw] == KR_NONE);
}

/* A key that orders switches by where they sit rather than by how the
 * fabric numbers them: grid position, then KNS crossbars by dimension and
 * line (a subnet's switches by stage and order within it), then the rest
 * (pendant switches) by id. Below 2^48. */
static inline uint64_t kr_topo_place(const struct kr_topo *t, uint32_t sw)
{
	uint64_t line;

	if (t->sw_pos[sw] != KR_NONE)
		return (uint64_t)t->sw_pos[sw] << 24;
	if (!t->sw_xdim || t->sw_xdim[sw] == KR_NO_DIM)
		return ((uint64_t)t->npos * (t->ndim + 1) << 24) + sw;
	line = t->npos + (uint64_t)t->sw_xdim[sw] * t->npos + t->sw_xline[sw];
	if (t->s > 1 && t->sw_stage && t->sw_stage[sw] != KR_NO_DIM)
		return line << 24 | (uint64_t)t->sw_stage[sw] << 16 |
		       (t->sw_order[sw] & 0xffff);
	return line << 24;
}

/* The grid switch that delivers to a switch's LIDs: its host when it is a
 * pendant, else itself. */
static inline uint32_t kr_topo_grid_switch(const struct kr_topo *t,
					   uint32_t sw)
{
	return t->sw_host && t->sw_host[sw] != KR_NONE ? t->sw_host[sw] : sw;
}

/* Whether the link at port slot (a switch's or a CA's) has channels that
 * lie on no credit loop: a link to a CA (a CA forwards nothing, and
 * nothing waits for the channel into one) or of a pendant tree (packets
 * go up a tree only from its CAs and lower links, and down it only to
 * them). A plan folds its VLs below such a link's OperVLs (slvl.c). */
static inline bool kr_topo_loop_free_link(const struct kr_fabric *f,
					  const struct kr_topo *t,
					  uint32_t slot)
{
	int32_t peer = f->peer[slot];

	return peer >= 0 && (!kr_is_switch(f, f->owner[slot]) ||
			     !kr_is_switch(f, f->owner[peer]) ||
			     t->port_dir[slot] == KR_DIR_TREE);
}

/* The data VLs a plan can count on: def, lowered to the least OperVLs
 * reported by a port of a link that may lie on a credit loop
 * (kr_topo_loop_free_link: not); at most 15. */
unsigned kr_topo_vls(const struct kr_fabric *f, const struct kr_topo *t,
		     unsigned def);

const char *kr_family_name(enum kr_family fam);
/* "x", "y", "z", then "d3", "d4", ... */
const char *kr_dim_name(unsigned d, char *buf, size_t len);
/* "KNS 4-ary 2-direct 1-indirect, p=2: 16 routers, 8 crossbars, 32 CAs" or
 * "torus 4x4x4 (wrap x,y,z), p=2, parallel 1: 64 switches, 128 CAs" */
void kr_topo_describe(char *buf, size_t len, const struct kr_fabric *f,
		      const struct kr_topo *t);
void kr_topo_free(struct kr_topo *t);

struct kr_conf;

/* Recognises a KNS, torus or mesh from the graph alone (c may be NULL: all
 * defaults) and fills every field of t; see docs/knsroute.conf.5 for the
 * labelling rule and what c can pin. KR_ETOPO with a one-line reason when
 * the fabric is neither family or c contradicts it; t->report (free with
 * kr_topo_free either way) then lists every conflict. KR_EPARSE or KR_EIO
 * when c's coords_file cannot be read (d names that file and line). */
int kr_topo_recognize(const struct kr_fabric *f, const struct kr_conf *c,
		      struct kr_topo *t, struct kr_diag *d);
/* The CA slots of pt, the labelling in force on the fabric pf before,
 * carried over to t (just recognised on f): a CA on a switch port (GUID,
 * port number) that held a slot then (pt->held: its CA there or away)
 * takes that slot, the others the lowest free ones, slots of CAs away
 * last; t->p becomes pt->p. So the SLs and routes of the CAs left do not
 * follow one gone or come back. Switches pf lacks keep what recognition
 * gave them (the coordinates cache's slots, if any). Nothing changes when
 * the slots would not fit (more CAs on a switch than pt->p, another
 * family). KR_OK or KR_ENOMEM. */
int kr_topo_keep_slots(const struct kr_fabric *f, struct kr_topo *t,
		       const struct kr_fabric *pf, const struct kr_topo *pt);
/* The coordinates file (also the persisted cache), documented in
 * knsroute.conf(5): a header (family, dims, wrap), then one switch per line,
 * "0xGUID c0 c1 ...", a crossbar with '*' in its own dimension, a switch
 * with CAs followed by "cas PORT:SLOT ..." (t->held). A conf's coords_file
 * or coords_cache names such a file for recognition to honour. */
int kr_topo_cache_write(FILE *out, const struct kr_fabric *f,
			const struct kr_topo *t);
/* "(c0,c1,...)" of pos, '*' in place of dimension skip (KR_NO_DIM: none);
 * a MiKANT switch's address "(G,L,D_{n-2}..D_0)". */
void kr_topo_fmt_pos(const struct kr_topo *t, uint32_t pos, unsigned skip,
		     char *buf, size_t len);
/* The object `knsroute topo --json` prints (keys: knsroute topo --help). */
int kr_topo_write_json(FILE *out, const struct kr_fabric *f,
		       const struct kr_topo *t);

#endif
