/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast trees: one master spanning forest per fabric, every group's tree
 * the smallest subtree of it that joins the group's switches.
 *
 * The forest is the up*-down* layer's own (updn.c): a packet entering a
 * group's tree anywhere only moves away from where it entered, so it climbs
 * towards the root and then descends, an up*-down* route of those ranks.
 * On the VL the SL plan gives multicast (the detour layer's, kr_slvl
 * mcast_vl) all trees together with the layer's unicast routes close no
 * credit loop (docs/design.md, "Multicast"). Rebuilt on the live fabric
 * each sweep, so failed links and switches are simply not in it. */
#ifndef KR_MCAST_H
#define KR_MCAST_H

#include <stddef.h>
#include <stdint.h>

#include "kr_fabric.h"
#include "kr_tables.h"
#include "kr_topo.h"

struct kr_mtree {
	uint32_t nsw;
	uint32_t *rank;		/* [nsw] up*-down* rank: level * nsw + id */
	uint32_t *comp;		/* [nsw] root of the switch's component */
	uint32_t *order;	/* [nsw] BFS order, each component from its root */
	uint32_t *parent;	/* [nsw] switch one level up, KR_NONE at roots */
	uint8_t *up;		/* [nsw] port towards the parent */
	uint8_t *down;		/* [nsw] the parent's port towards the switch */
};

/* What one group's tree joined. */
struct kr_mcast_info {
	unsigned members;	/* member ports placed on a switch */
	unsigned skipped;	/* members without a link to a switch */
	unsigned switches;	/* switches with an MFT entry */
	unsigned links;		/* tree links between switches */
	unsigned parts;		/* components the members sit in (1 normally) */
};

/* The forest on f's live links but those topo's grid has no place for
 * (topo NULL: every link); sm_lid (kr_tables.sm_lid, 0: unknown) picks the
 * root of its switch's component, as for the repair's detour layer, whose
 * ranks the forest shares. */
int kr_mtree_build(const struct kr_fabric *f, const struct kr_topo *topo,
		   unsigned sm_lid, struct kr_mtree *t, struct kr_diag *d);
void kr_mtree_free(struct kr_mtree *t);

/* The MFT port masks of a group whose members are the port slots member[]
 * (CA ports, or a switch's port 0) into g->ports (allocated here; g->mlid
 * and g->sl are the caller's). Members in several components get a tree in
 * each. */
int kr_mcast_group(const struct kr_fabric *f, const struct kr_mtree *t,
		   const uint32_t *member, size_t nmember, struct kr_mgroup *g,
		   struct kr_mcast_info *info, struct kr_diag *d);
void kr_mgroup_free(struct kr_mgroup *g);

#endif
