/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault repair: the dimension-order tables of a fabric with missing links or
 * switches, made complete and credit-loop-free again.
 *
 * kr_route leaves KR_NO_PORT where a dimension-order path is cut. Per
 * destination LID, every switch whose path survives keeps its entry; a
 * switch whose path is cut is pointed along a fault-free dimension-order
 * path to an intermediate router whose own path to the destination
 * survives (thesis ch. 6, rules R1/R2), then with two intermediates (R3),
 * then by a shortest path in the live graph to a switch that already has a
 * route. Each destination's entries stay a loop-free in-tree. Intermediates
 * are first "anchored": every turn into a lower dimension happens in one
 * plane of the grid per destination class, which provably closes no
 * credit loop on any VL, so destinations keep their SLs, and the classes'
 * detours load different planes (docs/design.md, "Anchored
 * intermediates").
 *
 * On a torus a switch whose way along a ring crosses a dead link may go
 * the long way round instead, which keeps its SL and VLs on any ring
 * broken once (torus-2QoS's way with link faults).
 *
 * The new channel dependencies of a repaired destination are admitted one
 * destination at a time into the channel dependency graph of everything
 * else, on the destination's own SL. A destination whose detour would close
 * a credit loop moves to a detour layer the SL/VL plan reserved: first with
 * the same routes on an SL and VL of repaired trees (admitted the same
 * way), else routed up*-down* over a spanning tree on an SL and VL of its
 * own, which cannot close a loop. So SLs change only for destinations that
 * need it, never the plan. */
#ifndef KR_REPAIR_H
#define KR_REPAIR_H

#include <stdint.h>

#include "kr_conf.h"
#include "kr_fabric.h"
#include "kr_slvl.h"
#include "kr_tables.h"
#include "kr_topo.h"

enum kr_repair_kind {		/* how a path was repaired, by its source */
	KR_REPAIR_NONE,		/* the dimension-order path survives */
	KR_REPAIR_ONE,		/* through one intermediate router (on its own
				 * SL or a layer of repaired trees) */
	KR_REPAIR_TWO,		/* through two */
	KR_REPAIR_GENERAL,	/* shortest path to a routed switch */
	KR_REPAIR_DETOUR,	/* up*-down* on the detour layer */
	KR_REPAIR_NKIND
};

struct kr_repair_stats {
	uint32_t faults;		/* missing links and switches, those
					 * inside KNS subnets included */
	uint32_t dests;			/* LIDs routed */
	uint32_t dests_repaired;	/* LIDs whose tree had a cut path */
	uint32_t dests_detour;		/* of those, moved off their SL */
	uint32_t dests_updn;		/* of those, routed up*-down* */
	uint64_t entries_changed;	/* LFT entries off dimension order */
	uint64_t entries_moved;		/* repaired destinations' LFT entries
					 * that differ from the tables in force
					 * (0 when those repaired nothing) */
	uint64_t pairs;			/* CA-to-CA pairs (source port, DLID) */
	uint64_t paths[KR_REPAIR_NKIND];	/* pairs by how they are routed */
	uint64_t pairs_disconnected;	/* no physical path at all */
	uint64_t pairs_sl_changed;	/* SL differs from the plan's */
	uint64_t pairs_sl_moved;	/* from the one in force (prev's, else
					 * the plan's) */
	uint64_t pairs_stale_unsafe;	/* would close a loop on the old SL */
	/* repaired pairs, against the shortest path in the live graph
	 * (switch hops): extra hops and the ratio of hops */
	uint64_t pairs_repaired;
	uint64_t extra_hops_sum;
	uint32_t extra_hops_max;
	double stretch_sum, stretch_max;
	double ms;
};

/* Repairs t (from kr_route and kr_slvl_plan, which reserved the detour
 * layers) on the live fabric f into *out, which kr_tables_patch applies
 * to t: the LFT entries it changes, every LID's SL, the pairs moved off
 * their LID's SL and the LIDs repaired in order. t itself is only read.
 * prev (NULL: the plan's SLs) is the tables in force before: their path
 * SLs, per destination and per pair, for the stale-SL proof, and to keep
 * them: the destinations their repair made go first, in its order, their
 * routes that stay on the SLs they had, before any route that changed (a
 * switch's row in prev is the one sending its own LID to port 0). It is
 * ignored unless its LIDs are t's. Fails with KR_ECYCLE when a
 * destination cannot be admitted and no detour layer is left (d names
 * it), *out then empty; pairs that no physical path joins are counted,
 * not failed on. */
int kr_repair(const struct kr_fabric *f, const struct kr_topo *topo,
	      const struct kr_conf *c, const struct kr_slvl *plan,
	      const struct kr_tables *prev, const struct kr_tables *t,
	      struct kr_tables_patch *out, struct kr_repair_stats *st,
	      struct kr_diag *d);

/* What the repair did ("2 faults: 40 of 96 destinations repaired (...)"),
 * the LFT entries it changed, the CA pairs by kind of route, and the SLs
 * changed with the time on their part, with sep between the parts ("; "
 * for one line, "\n" for a log's short lines). */
void kr_repair_describe(char *buf, size_t len, const struct kr_repair_stats *st,
			const char *sep);

#endif
