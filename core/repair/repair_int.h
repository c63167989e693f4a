/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the tree repair (repair.c), its dependency bookkeeping
 * (repair_deps.c) and the detour layer (repair_updn.c). Not for tools/. */
#ifndef KR_REPAIR_INT_H
#define KR_REPAIR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kr_cdg.h"
#include "kr_repair.h"
#include "kr_updn.h"

#define UNREACHED UINT32_MAX
#define LVL_GOOD 0
#define LVL_GENERAL 3
#define LVL_NONE 0xff		/* no live path to the target */
#define HOPS_CUT 0xff		/* H: the dimension-order path is cut */
#define KR_NO_SL 0xff
#define CAMASK_KNOWN (1u << 16)
#define SEEN_WAYS_LOG 3
#define SEEN_WAYS (1u << SEEN_WAYS_LOG)
#define MEMO_WAYS 4

/* The destination being worked on: the LID, the switch delivering it, the
 * port it leaves by there (0: the switch itself) and the CA port it
 * belongs to (KR_NONE: a switch LID). */
struct rdest {
	unsigned lid;
	uint32_t target;
	unsigned local;
	uint32_t ca_port;
};

/* How a column is repaired. */
enum col_mode {
	COL_FREE,	/* the intermediates that add the fewest hops */
	COL_ANCHORED,	/* those whose turns keep to their class's anchor */
	COL_ONE_ANCHOR,	/* those whose turns keep to the first anchor */
	COL_GENERAL,	/* general repair alone */
	COL_RING,	/* the long way round broken rings, then free */
};

struct repair {
	const struct kr_fabric *f;
	const struct kr_topo *topo;
	const struct kr_conf *c;	/* NULL: defaults */
	const struct kr_slvl *plan;
	const struct kr_tables *t;	/* kr_route's and the plan's */
	struct kr_tables_patch *out;	/* what the pass changes in them */
	uint32_t nsw, stride;
	uint8_t *bylid;		/* [stride * nsw] t->lft by LID, kept equal */
	size_t fixes_cap;	/* room in out->fixes */
	unsigned max_int;
	unsigned *lids;		/* [nlids] destinations, by target switch */
	uint32_t nlids;

	uint32_t *next_sw;	/* [port0[nsw]] kr_updn_next of each switch
				 * port slot (see repair_next) */
	uint32_t *src_start;	/* [nsw+1] CA source ports per switch, CSR */
	uint32_t *src_port;	/* the CA port slots */
	/* the links repair_next takes, per switch (CSR): searches walk
	 * these rather than every port, CA ports among them in whatever
	 * order the fabric numbers them */
	uint32_t *link_start;	/* [nsw+1] */
	uint32_t *link_to;	/* the switch at the other end */
	uint8_t *link_port;	/* the port it leaves by */
	uint32_t *by_place;	/* [nsw] the switches by kr_topo_place: the
				 * order destinations are repaired in, which
				 * should not follow the fabric's numbering */

	uint32_t ni;		/* intermediates: grid switches with a LID */
	uint32_t *isw;		/* [ni] their switch ids */
	uint32_t *isw_of;	/* [nsw] a switch's index in isw, or KR_NONE */
	uint8_t *hops;		/* [nsw * ni] dimension-order hops S -> I,
				 * HOPS_CUT when cut; NULL until needed */
	uint8_t *first;		/* [nsw * ni] S's port on that path (the
				 * LFT column of I may be repaired later) */
	uint8_t *arrive;	/* [nsw * ni] the direction it enters I by */
	/* grid positions against-order turns keep to in anchored columns:
	 * [0] the one anchor, [1..] the classes' (repair_choose_anchor) */
	uint32_t anchor[KR_NSL];
	bool distinct;		/* some class's anchor is not anchor[0] */
	uint8_t *off_all;	/* [KR_NSL * nsw] 1 + the highest dimension
				 * in which a grid switch differs from an
				 * anchor, 0: none */
	uint8_t anchor_of_sl[KR_NSL];	/* a planned SL's anchor */
	unsigned cur_anchor;	/* the column being built keeps to this one */
	uint8_t *off_anchor;	/* its row of off_all */
	int anchored;		/* the column being built keeps to it */
	int one_leaf;		/* and its turns to one_leaf_on (search.c) */
	enum col_mode first_mode;	/* tried first for each destination */

	/* per destination scratch, [nsw] each */
	uint8_t *col;		/* the LFT column */
	uint8_t *lvl;		/* LVL_* or the number of intermediates */
	uint32_t *dist;		/* hops along the column, UNREACHED */
	uint32_t *cost;		/* planned hops of a repaired switch */
	uint32_t *live;		/* shortest live-graph hops to the target */
	uint32_t *queue, *order, *cnt;
	uint16_t *outvl;	/* VLs the destination's traffic leaves by */
	uint8_t *moved;		/* [nsw] switches whose CAs' pairs moved */
	uint8_t *carrier;	/* [nsw] see mark_carriers */
	uint8_t *seed;		/* [nsw] route_general's first routed ones */
	int repointed;		/* the anchored column re-pointed an unused
				 * entry (restore_unused has work) */
	uint8_t *pair_sl;	/* [stride] by SLID: the SL of a pair of the
				 * destination at hand, else KR_NO_SL */
	struct kr_sl_pair *pairs;	/* pairs moved off their destination's
					 * SL, in DLID order */
	size_t npairs, cap_pairs;
	int pairs_moved;	/* the destination at hand moved pairs */
	/* the tables in force before (kr_repair's prev; NULL: the plan's
	 * SLs were) */
	const struct kr_tables *prev;
	uint8_t *held;		/* [stride] 1: prev had the destination or
				 * some of its pairs off its planned SL */
	uint8_t *held_sl;	/* [nsw] the SL a switch's CAs sent on to the
				 * destination at hand under prev */
	uint32_t *prev_row;	/* [nsw] the switch's row in prev->lft, or
				 * KR_NONE (see map_rows) */
	/* keep_routes' repairs, for repair_dest to take again: per LID the
	 * offset of its column and levels in kept_buf, or KR_NONE */
	uint32_t *kept_at;
	uint8_t *kept_buf;
	size_t nkept;
	/* recent distinct columns of one target (see recall): [MEMO_WAYS]
	 * triples of [nsw] (pristine, repaired, levels) in memo_buf */
	uint8_t *memo_buf;
	uint32_t *memo_dist;	/* [MEMO_WAYS][nsw] the repairs' hops */
	uint32_t memo_target;
	unsigned memo_anchor[MEMO_WAYS];	/* the anchor of each way's
						 * repair, or memo.c's KEPT_WAY */
	uint32_t live_target;	/* whose distances r->live holds */
	unsigned nmemo, memo_cur, memo_next;
	uint8_t memo_cut[MEMO_WAYS];	/* the pristine column is cut */
	uint8_t memo_walked[MEMO_WAYS];	/* memo_dist holds its walk
					 * (repair_walk_once) */
	/* by deps_once's sources (SRC_ALL: [1]) */
	uint16_t memo_sls[MEMO_WAYS][2];	/* SLs whose dependencies
						 * along it are in */
	uint16_t memo_bad[MEMO_WAYS][2];	/* SLs on which they closed
						 * a loop */

	/* the detour layer: up*-down* ranks over a spanning forest */
	uint32_t *rank;		/* [nsw] BFS level * nsw + id, UNREACHED */
	uint32_t *comp;		/* [nsw] connected component: its root */
	uint32_t sm_sw;		/* the SM's switch, root of its component
				 * (t->sm_lid), KR_NONE: unknown */
	uint8_t *up_port;	/* [nsw] port to the multicast forest's
				 * parent (kr_updn_up_port), 0: a root */
	int sa_strict;		/* the SM node's routes must keep to the
				 * ranks (repair_sa_breaks_ranks) rather
				 * than only close no loop */

	struct kr_cdg g;	/* channels: switch port slot * 16 + VL */
	uint32_t *camask;	/* [channels] VLs of a switch's CAs towards
				 * (out port, SL), CAMASK_KNOWN once filled */
	uint32_t *seen;		/* [channels * SEEN_WAYS] to + 1 of recent
				 * dependencies from each channel, 0: none */
	int admitting;		/* insert (checked) instead of add */
};

/* The switch a port slot leads to, or KR_NONE (no link, a CA):
 * kr_updn_next's answer, kept per slot (the walks ask it every hop). */
static inline uint32_t repair_next(const struct repair *r, uint32_t sw,
				   unsigned port)
{
	return port && port <= r->f->nports[sw] ?
	       r->next_sw[r->f->port0[sw] + port] : KR_NONE;
}

/* Hops from every switch to x->target along col, UNREACHED where the
 * entries are cut or loop. */
void repair_walk(struct repair *r, const uint8_t *col, const struct rdest *x,
		 uint32_t *dist);

/* Switches with a route in dist, farthest from the target first, into
 * r->order; returns how many. */
uint32_t repair_by_distance(struct repair *r, const uint32_t *dist);
/* repair_walk of r->col, and the switches it newly reaches (r->lvl
 * LVL_NONE) counted as routed anew: their traffic is admitted, their
 * kind read from their path's shape (classify_paths). */
void repair_walk_rerouted(struct repair *r, const struct rdest *x);

/* Which sources' traffic a dependency walk follows: all CAs, only those
 * on switches with r->moved[sw] set, or the SM node's management
 * traffic: every CA and every switch itself (to the SM's LID). */
enum { SRC_ALL, SRC_MOVED, SRC_MGMT };

/* Channel dependencies of destination x's traffic on SL sl along col
 * (dist from repair_walk), from the sources picked, into r->g: added in
 * bulk, or inserted with the cycle test when r->admitting (then KR_ECYCLE
 * leaves the graph as it was before the call). */
int repair_deps(struct repair *r, const struct rdest *x, const uint8_t *col,
		const uint32_t *dist, unsigned sl, int sources);
/* The same for the CAs of switch s alone, along their route, and with
 * own set for s's own packets (port 0) too. */
int repair_deps_from(struct repair *r, const struct rdest *x, const uint8_t *col,
		     unsigned sl, uint32_t s, bool own);
/* One dependency between two channels (port slot * 16 + VL), as
 * repair_deps adds them. */
int repair_emit(struct repair *r, uint32_t from, uint32_t to);
/* Takes the edges added since the graph had mark of them out again. */
void repair_undo(struct repair *r, uint32_t mark);

/* Ranks for up*-down* and components (once per repair), and the detour
 * layer's column for x into col. */
int repair_updn_ranks(struct repair *r);
void repair_updn_column(struct repair *r, const struct rdest *x, uint8_t *col);

/* r->carrier: CARRIES for switches whose entries in r->col carry traffic,
 * from a CA on them or behind them, and the target; DEMOTED for unused
 * entries an anchored column re-pointed. */
#define CARRIES 1
#define DEMOTED 2

/* columns.c: the state: columns, sources, switches routed anew */
int repair_dest_of(const struct repair *r, unsigned lid, struct rdest *x);
int repair_transpose_lfts(struct repair *r);
void repair_get_column(const struct repair *r, unsigned lid, uint8_t *col);
int repair_put_column(struct repair *r, unsigned lid, const uint8_t *col,
		      uint64_t *changed);
int repair_setup(struct repair *r);
void repair_teardown(struct repair *r);
void repair_mark_repaired(struct repair *r);

/* search.c: the intermediate search */
unsigned repair_arrival_dir(const struct repair *r, uint32_t u, unsigned p);
int repair_build_hops(struct repair *r);
int repair_choose_anchor(struct repair *r);
/* The anchor a column of x built by mode keeps its turns to: its class's,
 * or with COL_ONE_ANCHOR the first. */
void repair_anchor_for(struct repair *r, const struct rdest *x,
		       enum col_mode mode);
/* The anchored mode other than the pass's first that would give x a
 * column of another anchor, else the first mode. */
enum col_mode repair_other_anchoring(const struct repair *r,
				     const struct rdest *x);
void repair_live_distances(struct repair *r, uint32_t target);
unsigned repair_port_dir(const struct repair *r, uint32_t sw, unsigned port);
int repair_turn_ok(const struct repair *r, uint32_t u, unsigned din,
		   unsigned out, uint32_t target, int junction);
void repair_mark_carriers(struct repair *r, uint32_t target);
void repair_unroute_incomplete(struct repair *r, const struct rdest *x);
void repair_route_via_intermediates(struct repair *r, unsigned lvl,
				    uint32_t target);

/* general.c: general repair */
void repair_column(struct repair *r, const struct rdest *x,
		   enum col_mode mode);

/* ring.c: the long way round broken torus rings, into r->col and
 * r->dist (from repair_walk) */
void repair_ring_column(struct repair *r, const struct rdest *x);

/* sa_path.c: the SM node's routes in r->col fitted to the up*-down*
 * order of the VL they ride where their dependencies would close a loop
 * (true: r->col, r->dist, r->lvl changed) */
bool repair_fit_sa(struct repair *r, const struct rdest *x);

/* sa_deps.c: the multicast VL's other traffic in the graph: the
 * multicast forest and the SM node's packets along the surviving routes
 * (in bulk, before admission); whether the SM node's routes in r->col
 * leave the VL's up*-down* order, and whether its packets along them
 * (r->dist the column's walk) would close a loop, their dependencies
 * kept when not */
int repair_add_forest(struct repair *r);
int repair_sa_surviving(struct repair *r, const struct rdest *x);
int repair_sa_breaks_ranks(const struct repair *r, const struct rdest *x);
int repair_sa_refuses(struct repair *r, const struct rdest *x);

/* memo.c: the column memo */
int repair_recall(struct repair *r, const struct rdest *x);
void repair_remember(struct repair *r, const struct rdest *x);
void repair_reuse(struct repair *r, const struct rdest *x);
void repair_cached_column(struct repair *r, const struct rdest *x);
/* repair_walk of r->col, the current pristine column of x's switch,
 * into r->dist: walked once, then taken from the memo (add_surviving's
 * use of it: no repair's walk is kept there meanwhile). */
void repair_walk_once(struct repair *r, const struct rdest *x);

/* sls.c: SLs of a repaired destination, the detour layers */
int repair_deps_once(struct repair *r, const struct rdest *x, unsigned sl,
		     int sources);
void repair_count_pairs(struct repair *r, const struct rdest *x, int repaired,
			int updn, int sl_changed, struct kr_repair_stats *st);
int repair_over_bound(const struct repair *r, const struct rdest *x);
enum col_mode repair_second_mode(const struct repair *r);
/* Whether r->col is x's column in the tables in force, at every switch
 * (keep_routes found the switches' rows). */
bool repair_is_prev_column(const struct repair *r, const struct rdest *x);
void repair_fresh_column(struct repair *r, const struct rdest *x,
			 enum col_mode mode);
int repair_admit_moved(struct repair *r, const struct rdest *x, unsigned sl);
bool repair_is_tree_sl(const struct kr_slvl *p, unsigned sl);
int repair_split_pairs(struct repair *r, const struct rdest *x, unsigned sl);
unsigned repair_sl_before(const struct repair *r, const struct rdest *x,
			  uint32_t s);
bool repair_ask_sls(struct repair *r, const struct rdest *x, unsigned sl);
int repair_move_pairs(struct repair *r, const struct rdest *x);
int repair_to_detour(struct repair *r, const struct rdest *x,
		     struct kr_repair_stats *st, struct kr_diag *d);

/* dest.c: one destination */
int repair_by_target(struct repair *r);
int repair_find_cut(struct repair *r, bool whole, uint8_t *cut,
		    uint32_t *ncut, struct kr_repair_stats *st);
int repair_add_surviving(struct repair *r);
int repair_dest(struct repair *r, unsigned lid, const uint8_t *plan_sl,
		struct kr_repair_stats *st, struct kr_diag *d);

/* keep.c: what the tables in force keep */
int repair_lfts_live(const struct repair *r, bool *live);
bool repair_sls_in_force(const struct kr_tables *prev, const uint8_t *plan_sl,
			 unsigned stride);
int repair_run(struct repair *r, const struct kr_tables *prev, bool whole,
	       uint8_t *plan_sl, uint8_t *cut, struct kr_repair_stats *st,
	       struct kr_diag *d);

#endif
