/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the checker's walk (check.c) and its setup and summaries
 * (check_setup.c). Not for tools/. */
#ifndef KR_CHECK_INT_H
#define KR_CHECK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kr_cdg.h"
#include "kr_check.h"

#define RES_OK 0
#define RES_BUSY 0xff		/* on the walk's stack: meeting it is a loop */
#define XRES_UNSET 0xfe		/* sw_state.xres before walk_chain */
#define NOT_A_LINK 0xff		/* walk.link_idx of a port to no switch */
/* Channel ids go VL by VL, each VL's slots rounded up to a power of two
 * (vl << ch_shift | slot): taking one apart is a mask and a shift. */
#define NCH(w, slot, vl) ((uint32_t)(vl) << (w)->ch_shift | (slot))
#define CH_SLOT(w, c) ((c) & ((1u << (w)->ch_shift) - 1))
#define CH_VL(w, c) ((c) >> (w)->ch_shift)
/* The graph's node of a channel out of a switch port (only those between
 * switches lie on a cycle, check_dep), VL by VL: the graph's arrays leave
 * out the CAs' ports, mostly, and keep their numbers when links fail, so
 * a graph kept for kr_check_incremental still fits. Switches' slots come
 * first (kr_fabric.h). */
#define CH_NODE(w, slot, vl) ((vl) * (w)->f->port0[(w)->f->nsw] + (slot))
#define BLOCK 64		/* DLIDs per transposed LFT block */
#define EDGE_PROVEN 0x80	/* eflag: some path made it from given inputs */
#define MAX_NPORT (1u << 24)	/* channel ids fit in 28 bits */
#define MAP_IDS 256		/* distinct maps w->map_id can name */
#define HOP_KIND_SHIFT 40	/* w->hop: where the kind sits */
enum { HOP_DOWN, HOP_CA, HOP_SW };

/* Sources that no DLID can tell apart: CA ports on the same switch whose
 * own SL2VL map, OperVLs and every map of their switch in-port are equal
 * (switch sources and CAs linked to CAs stand alone). One member walks for
 * all; counts are multiplied. Their first-hop dependencies, the only ones
 * that differ between members, are not in the graph (check_dep). */
/* Which sources a pass over one DLID takes. */
enum { SRC_CA = 1, SRC_SW = 2, SRC_ANY = 3 };

struct src_class {
	uint32_t rep;		/* first member: the lowest LID */
	uint32_t first, n;	/* members: w->member[first .. first + n) */
	uint32_t sw, in;	/* entry switch and the rep's port there
				 * (KR_NONE: a CA); the members' ports
				 * have the same maps */
	uint32_t minus, minus_gen;	/* members sitting this DLID out */
	uint64_t map0;		/* a CA's own SL2VL map */
	uint16_t vl0_mask;	/* VLs the members' own ports send on */
	uint16_t rep_lid;	/* its LID, the SLID of tags */
	uint8_t kind;		/* SRC_CA or SRC_SW */
};

/* A channel's outcome for one (DLID, SL) (for classes_chain in check.c:
 * only that it was met). A DLID leaves each switch by one port, so its
 * channels are (switch, VL): the memo is indexed so, a few bytes per
 * switch instead of a line per port. */
struct ch_memo {
	uint32_t gen;		/* == the (DLID, SL) generation: valid */
	uint8_t res;		/* 0 or 1 + reason */
	uint8_t hop;		/* what made the dependency out of it proven
				 * or not: packets enter the switch through
				 * other ports, with other maps, to reach
				 * the same channel */
};

/* A destination whose data pass delivered every pair, kept so that later
 * ones can reuse it (check_twin.c): a destination on the same switch,
 * reached by the same LFT column apart from that switch's own entry, on
 * the same SL, makes the same pairs, hops, link loads and dependencies
 * (none into the last channel, check_dep); only its last channels, out of
 * the destination switch's other port, are its own. */
struct twin {
	uint32_t dsw;		/* the destination switch, KR_NONE: unused */
	uint32_t cls;		/* the class of the destination port */
	unsigned sl;
	uint32_t used;		/* w->gen when last kept or met: oldest goes */
	uint32_t copies;	/* destinations met since, not yet counted */
	uint64_t pairs;		/* delivered pairs per destination */
	uint64_t in[4];		/* ports packets enter dsw by (bit set) */
	uint8_t *col;		/* [nsw] the LFT column */
	uint64_t *hops;		/* [nhop] delivered pairs by hop count */
	uint32_t nhop;
	uint32_t *load_slot;	/* [nload] switch ports carrying pairs */
	uint64_t *load;		/* [nload] how many */
	uint32_t nload;
};
#define TWINS 8			/* kept at once: destinations of a switch
				 * with different columns (torus tie
				 * parities, KNS orders) interleave */

/* The first destination kept on each switch on the SL of the switch's own
 * LID, for that LID in the management pass (check_twin_switch): its class
 * and hop counts; its column is in walk.swt_col. */
struct sw_twin {
	uint32_t cls;		/* of the destination port, KR_NONE: none */
	uint32_t hop0;		/* its hop counts: walk.swt_hops[hop0 ..) */
	uint32_t nhop;
};

struct walk {
	const struct kr_fabric *f;
	const struct kr_tables *t;
	const struct kr_check_opts *o;
	struct kr_check_report *r;
	struct kr_cdg g;
	bool exact;		/* nothing assumed: no edge flags kept */
	uint8_t *eflag;		/* [g.nedge] EDGE_PROVEN | KR_CHECK_ASSUMED_* */
	size_t eflag_cap;
	bool mgmt;		/* the current DLID's pairs are management */
	bool incr;		/* kr_check_incremental: insert into an
				 * ordered graph */
	bool incr_cycle;	/* an insertion would have closed a cycle */
	bool mcast_only;	/* kr_check_mcast_incremental: the trees
				 * alone, into a unicast check's graph */
	const uint8_t *only;	/* [stride] DLIDs to walk; NULL: all */

	uint32_t *src;		/* [nsrc] source slots by base LID */
	struct src_class *cls;	/* [ncls] by their first member's LID */
	uint32_t ncls;
	uint32_t *member;	/* [nsrc] slots, class by class */
	uint32_t *class_of;	/* [nport] class of a source slot, KR_NONE */
	uint32_t *excl_gen;	/* [nport] == gen: not in its class's count */

	uint32_t sm_slot;	/* the SM's port (t->sm_lid), KR_NONE */
	struct src_class sm_cls;	/* it as a source of its own */

	struct kr_sl_pair *ex;	/* pair SLs sorted by (dlid, slid) */
	uint32_t *ex_first;	/* [stride+2] first exception of each DLID */

	uint8_t *col;		/* [BLOCK * nsw] LFT columns of a DLID block:
				 * rows are a stride apart, so reading a
				 * column per DLID would miss the cache at
				 * every switch */
	/* A full check's destinations grouped by the switch delivering them
	 * (check_group.c), their columns transposed in that order; NULL in
	 * a check of marked DLIDs, which walks blocks in LID order. */
	unsigned *glid;		/* [ngroup] the DLIDs */
	uint8_t *gcol;		/* [ngroup * nsw] their columns */
	uint32_t ngroup;
	const uint8_t *row;	/* the current DLID's column, by switch */
	uint32_t gen;		/* per DLID */
	/* Where a packet sent out of a switch port goes, one load instead of
	 * four: kind << HOP_KIND_SHIFT | in port << 32 | next switch (HOP_SW),
	 * or | the CA's slot (HOP_CA); HOP_DOWN without a link. */
	uint64_t *hop;		/* [port0[nsw]] by slot */
	struct sw_state {	/* a switch for the current DLID: 32 bytes,
				 * two to a cache line */
		uint32_t gen;	/* == w->gen: the rest is valid */
		uint32_t dist;	/* links to delivery */
		uint32_t at;	/* where it fails, as kr_check_example.at */
		uint32_t next;	/* next switch, KR_NONE: none */
		uint32_t w;	/* delivered pairs entering here (fewer
				 * than the port slots) */
		uint8_t res;	/* 0, 1 + reason, RES_BUSY on the stack */
		uint8_t in;	/* the port of next it enters */
		/* the chain (check.c, walk_chain): packets leaving this
		 * switch all take channel x at next, then next's x ... */
		uint8_t xres;	/* their outcome from x on, 0 or 1 + reason;
				 * XRES_UNSET: x, xres, xat not known yet */
		uint32_t x;	/* KR_NONE: delivered before a channel there */
		uint32_t xat;	/* the channel where they fail */
	} *sw;			/* [nsw] */
	uint32_t *stack;	/* [nsw] */
	uint32_t *done, ndone;	/* [nsw] switches resolved for the DLID */

	/* channel generations per (DLID, SL, SL assumed): a path with an
	 * assumed SL must not stop where a proven one went before, or the
	 * rest of its dependencies would pass for proven */
	uint32_t cgen, sl_gen[2 * KR_NSL], sl_dlid[2 * KR_NSL];
	unsigned nvl;		/* VLs the maps can give */
	struct ch_memo *ch;	/* [nsw * nvl] by switch * nvl + VL */
	uint32_t *ch_at;	/* [nsw * nvl] channel where the path fails,
				 * read when res says it does */
	/* Nearly every dependency the walk meets is known: finding it by
	 * channel and out port in a row of the channel's own beats hashing
	 * (from, to). A row is made on the channel's first dependency, one
	 * entry per link of the switch it leads to to another switch; an
	 * entry holds the last two dependencies out of that port (packets
	 * turning there on two VLs, a torus's dateline classes), an older
	 * one goes to the hash. */
	uint32_t *dep_row;	/* [g.nnode] first entry in dep, KR_NONE */
	struct dep_ref {
		uint32_t to[2];	/* nodes, newest first, KR_NONE: empty */
	} *dep;
	uint32_t (*dep_edge)[2];	/* like dep: their edges (when not
					 * exact: edge flags) */
	uint8_t *link_idx;	/* [nport] a switch port's index among its
				 * switch's links to switches, NOT_A_LINK
				 * for other ports */
	unsigned ch_shift;	/* NCH */
	uint32_t nchan;		/* channel ids are below */
	size_t ndep, dep_cap, dep_edge_cap;
	uint32_t *cstack;	/* [nsw] memo entries of the walk in progress */
	struct twin twin[TWINS];	/* col NULL when not allocated */
	struct sw_twin *swt;	/* [nsw] */
	uint8_t *swt_col;	/* [nsw * nsw] their columns */
	uint64_t *swt_hops;
	size_t nswt_hops, swt_hops_cap;
	uint32_t *cls_at;	/* [nsw + 2] CA classes of a switch: */
	uint32_t *cls_by_sw;	/* cls_by_sw[cls_at[sw] .. cls_at[sw + 1]) */

	/* The maps as one byte each, an index into the few distinct (map,
	 * given) pairs: the walk reads a map per switch and DLID, and an
	 * eighth of the bytes mostly stays in the cache. NULL when the tables
	 * have no maps or more than MAP_IDS distinct ones. */
	uint8_t *map_id;	/* [like t->sl2vl] */
	uint64_t map[MAP_IDS];
	uint8_t map_why[MAP_IDS];	/* KR_CHECK_ASSUMED_MAP or 0 */
	/* A switch's maps in one load: sl2vl_base << 16 | ports + 1. NULL
	 * when the tables have no maps. */
	uint64_t *map_at;	/* [nsw] */
};

/* Where the map of (node, in, out) sits in t->sl2vl. */
static inline size_t check_map_at(const struct walk *w, uint32_t node,
				  unsigned in, unsigned out)
{
	uint32_t np = w->f->nports[node] + 1u;

	return w->t->sl2vl_base[node] +
	       (kr_is_switch(w->f, node) ? out * np + in : out);
}

/* The SL2VL map of (node, in, out), every SL on VL 0 without maps. */
static inline uint64_t check_map(const struct walk *w, uint32_t node,
				 unsigned in, unsigned out)
{
	if (!w->t->sl2vl)
		return 0;
	if (w->map_id)
		return w->map[w->map_id[check_map_at(w, node, in, out)]];
	return w->t->sl2vl[check_map_at(w, node, in, out)];
}

/* KR_CHECK_ASSUMED_MAP when no input gave that map, else 0. */
static inline uint8_t check_map_why(const struct walk *w, uint32_t node,
				    unsigned in, unsigned out)
{
	if (!w->t->sl2vl_given)
		return 0;
	if (w->map_id)
		return w->map_why[w->map_id[check_map_at(w, node, in, out)]];
	return w->t->sl2vl_given[check_map_at(w, node, in, out)]
		       ? 0 : KR_CHECK_ASSUMED_MAP;
}

/* The SL of every pair towards dlid but those in t->pair_sl. */
static inline unsigned check_dlid_sl(const struct kr_tables *t, unsigned dlid)
{
	return t->dlid_sl && dlid < t->stride ? t->dlid_sl[dlid] : 0;
}

/* Whether a map sends every SL to the same VL. */
static inline bool map_fixed(uint64_t m)
{
	return m == (m & 0xf) * 0x1111111111111111ull;
}

/* Why the dependency between two hops is not proven: an assumed map on
 * either, or an assumed SL unless both maps ignore the SL (then every SL
 * makes the same dependency). */
static inline uint8_t dep_why(uint8_t sl_why, uint8_t why_a, bool fixed_a,
			      uint8_t why_b, bool fixed_b)
{
	return (fixed_a && fixed_b ? 0 : sl_why) | why_a | why_b;
}

/* Adds from -> to, from a switch's channel into the next switch, which
 * sends on to another switch through its port at to_slot (both channels
 * between switches: their rows have entries). A CA's channel also
 * waits for the next one, but no channel waits for it (CAs do not
 * forward), and a channel into a CA waits for nothing (the CA takes the
 * packet): neither lies on a cycle, so their dependencies stay out of the
 * graph, which at 40 CAs a switch would otherwise hold mostly them, and
 * destinations on one switch make the same graph. Unless nothing was assumed,
 * also records whether some path of given inputs makes it (then its tag
 * names such a path) or why none does (why: KR_CHECK_ASSUMED_* of this
 * path, 0 if proven). */
int check_dep(struct walk *w, uint32_t from, uint32_t to_slot, uint32_t to,
	      uint32_t tag, uint8_t why);
/* Forgets the rows of check_dep (the graph lost edges). */
void check_dep_reset(struct walk *w);
/* 0, or 1 + reason when a VL is unusable on the port sending on it. */
static inline uint8_t vl_check(const struct walk *w, uint32_t slot,
			       unsigned vl)
{
	uint8_t oper = w->f->oper_vls[slot];

	if (vl == KR_VL15)
		return 1 + KR_CHECK_VL15;
	if (oper && vl >= oper)
		return 1 + KR_CHECK_OPER_VL;
	return RES_OK;
}

/* check_twin.c: the reuse of struct twin, in the data pass of an exact
 * check. Whether dlid, on SL sl, repeats a kept destination: then its own
 * last channels are checked and marked, and its counts wait for
 * check_twin_flush. */
bool check_twin_met(struct walk *w, unsigned dlid, unsigned sl);
/* Keeps dlid, just walked on SL sl, if every pair towards it arrived
 * (pairs0, delivered0: the report's counts before), but for its link
 * loads: the twin returned, or NULL, goes to add_loads. */
struct twin *check_twin_keep(struct walk *w, unsigned dlid, unsigned sl,
			     uint64_t pairs0, uint64_t delivered0);
/* Whether switch LID dlid, on SL sl, in the management pass and without
 * switch sources, repeats the destination kept for it on its SL: then its
 * pairs are counted. */
bool check_twin_switch(struct walk *w, unsigned dlid);
/* Counts every repeat met and forgets the kept destinations. */
void check_twin_flush(struct walk *w);
int check_twin_alloc(struct walk *w);
void check_twin_free(struct walk *w);

/* Every multicast tree's dependencies (check_mcast.c). */
int check_mcast(struct walk *w);

int check_setup(struct walk *w);	/* KR_ENOMEM or KR_EINVAL */
/* Source s alone as a class: where it enters, its kind and own map. */
struct src_class check_source_class(const struct walk *w, uint32_t s);
void check_teardown(struct walk *w);
void check_sum_links(struct walk *w);
void check_sum_vls(struct walk *w);
void check_count_assumed(struct walk *w);
/* Sorts out the credit loops of the graph so far for class k. */
int check_class_loop(struct walk *w, unsigned k);

/* A walk on one SL: sl_why is KR_CHECK_ASSUMED_SL when that SL was
 * assumed; tag names the pair for the dependencies it makes. */
struct ch_in {
	unsigned sl;
	uint8_t sl_why;
	uint32_t tag;
};

/* Whether the channel out of switch sw, on a delivering path, is into a
 * CA: nothing waits for such a channel's credits once it is held (the CA
 * takes the packet), so it lies on no cycle and its dependencies stay out
 * of the graph, as those out of a CA's channel do. */
static inline bool drains(const struct walk *w, uint32_t sw)
{
	return w->sw[sw].next == KR_NONE;
}

/* The SL2VL map of switch sw from in to out (check_map, for a switch). */
static inline uint64_t sw_map(const struct walk *w, uint32_t sw, unsigned in,
			      unsigned out)
{
	uint64_t m;
	size_t at;

	if (!w->map_at)
		return 0;
	m = w->map_at[sw];
	at = (m >> 16) + out * (m & 0xffff) + in;
	return w->map_id ? w->map[w->map_id[at]] : w->t->sl2vl[at];
}

/* check_walk.c: one DLID, switch and channel level */
void check_sw_resolve(struct walk *w, uint32_t sw, unsigned dlid);
uint32_t check_sl_gen(struct walk *w, unsigned sl, uint8_t sl_why);
int check_ch_walk(struct walk *w, uint32_t sw, unsigned in,
		  const struct ch_in *p, uint8_t *res, uint32_t *at);
int check_walk_chain(struct walk *w, uint32_t u, unsigned sl, uint32_t tag);

/* check_dest.c: sources and destinations */
int check_one_dest(struct walk *w, unsigned dlid, unsigned srcs);
void check_load_block(struct walk *w, unsigned base);
bool check_is_dest(const struct kr_fabric *f, unsigned lid);
/* check_group.c: w->glid, w->gcol for a full check; freed by the second */
int check_group_dests(struct walk *w);
void check_group_free(struct walk *w);

#endif
