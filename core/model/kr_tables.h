/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a fabric is programmed with: LFTs, SL2VL maps and path SLs.
 *
 * The router writes the LFTs, the SL/VL planner the SLs and maps, fault
 * repair a patch of them (struct kr_tables_patch) that the plan applies;
 * the dump readers fill it from any engine's files, the checker and the
 * dump writers read it, the plugin copies it into OpenSM. One struct for
 * all of them keeps the data flow one way. */
#ifndef KR_TABLES_H
#define KR_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kr_fabric.h"

#define KR_NO_PORT 255		/* LFT entry without a route (OSM_NO_PATH) */
#define KR_NSL 16
#define KR_PERFMGR_SL 0		/* OpenSM 3.3's PerfMgr: "FIXME SL != 0" */
#define KR_VL15 15

/* One SL per (source LID, destination LID) where it differs from dlid_sl. */
struct kr_sl_pair {
	uint16_t slid;
	uint16_t dlid;
	uint8_t sl;		/* KR_SL_UNKNOWN: no input gave it */
};
#define KR_SL_UNKNOWN 0xff

/* An LFT entry fault repair wrote over the route kr_route gave. */
struct kr_lft_fix {
	uint32_t sw;
	uint16_t lid;
	uint8_t port;		/* KR_NO_PORT: the repair left it unrouted */
};

/* One multicast group's forwarding: each switch's MFT entry for the MLID
 * as a port mask (bit p: port p; port 0 is the switch itself). */
#define KR_MCAST_WORDS 4	/* ports 0 .. 255 */
struct kr_mgroup {
	uint16_t mlid;		/* 0xc000 and up */
	uint8_t sl;		/* the group's SL (its MCMemberRecords') */
	uint8_t sl_given;	/* 1: an input or the planner gave sl */
	uint64_t *ports;	/* [nsw * KR_MCAST_WORDS] */
};

static inline int kr_mgroup_has(const struct kr_mgroup *g, uint32_t sw,
				unsigned port)
{
	return (int)(g->ports[(size_t)sw * KR_MCAST_WORDS + port / 64] >>
		     (port % 64) & 1);
}

/* What fault repair changes in the tables kr_route and kr_slvl_plan made:
 * repair/ writes it, kr_tables_patch applies it, so each of the plugin's
 * fields has one writer per stage (docs/design.md, "Pipeline"). */
struct kr_tables_patch {
	uint8_t *dlid_sl;	/* [stride] every LID's SL after repair */
	struct kr_sl_pair *pair_sl;	/* pairs moved off their LID's SL */
	size_t npair_sl;
	uint16_t *repaired;	/* as kr_tables' repaired, nrepaired */
	uint32_t nrepaired;
	struct kr_lft_fix *fixes;	/* as kr_tables' fixes, nfixes */
	size_t nfixes;
	uint8_t repair_pass;	/* as kr_tables' repair_pass */
};

struct kr_tables {
	uint32_t nsw;
	uint32_t stride;	/* LIDs 0 .. stride-1 in each LFT row */
	uint8_t *lft;		/* [nsw * stride] egress port, KR_NO_PORT */

	/* SL2VL maps, 4 bits per SL (SL i in bits 4i..4i+3). A switch owns
	 * (nports+1)^2 maps indexed out * (nports+1) + in; a CA one per port
	 * number. NULL: every SL maps to VL 0 everywhere. */
	uint32_t *sl2vl_base;	/* [nnode+1] */
	uint64_t *sl2vl;

	uint8_t *dlid_sl;	/* [stride] SL towards each LID; NULL: SL 0 */
	struct kr_sl_pair *pair_sl;	/* sorted by (slid, dlid) */
	size_t npair_sl;
	/* The LIDs whose routes fault repair made, in the order their
	 * dependencies went into its graph (NULL: none, or tables not made
	 * by kr_repair). The next sweep's repair takes them first, in this
	 * order, so their SLs fit where they fitted before. */
	uint16_t *repaired;
	uint32_t nrepaired;
	/* What that repair wrote over kr_route's entries, LID by LID in the
	 * order of repaired (NULL: nothing). kr_route's tables of the same
	 * fabric with these are these tables' LFTs: what the tables cache
	 * keeps of them. */
	struct kr_lft_fix *fixes;
	size_t nfixes;
	/* Which of the repair's passes made them (1 up, in kr_repair's
	 * order; 0: none or not known): the next sweep's repair runs that
	 * pass first, whose columns of the first kind are then these. */
	uint8_t repair_pass;

	/* What the inputs vouch for; the rest was assumed (VL 0 for a map no
	 * file gave, dlid_sl for a pair no file gave). NULL: everything, as
	 * in the planner's own tables. The readers fill them, the checker
	 * tells proven findings from assumed ones with them. */
	uint8_t *lft_given;	/* [nsw] 1: the dump had the switch's block */
	uint8_t *sl2vl_given;	/* [like sl2vl] 1: the map was read */
	uint8_t *sl_given;	/* [stride] enum kr_sl_given; pairs in
				 * pair_sl are always given */

	struct kr_mgroup *mgroup;	/* sorted by MLID; NULL: no multicast */
	size_t nmgroup;
	/* [nsw] 1: the MFT dump had the switch's block. NULL when the
	 * format leaves out switches without entries (opensm.mcfdbs): there
	 * no block is missing, only empty. */
	uint8_t *mft_given;

	/* Where every port sends its SA queries (PortInfo MasterSMLID and
	 * MasterSMSL): each CA port's queries go to sm_lid on sm_sl, and the
	 * SA answers each on sm_sl, over the unicast LFTs whatever the
	 * destinations' own SLs. The SM node's PerfMgr queries every port,
	 * switches' included, on KR_PERFMGR_SL, and they reply on it.
	 * sm_lid 0: not known, not checked. sm_sl_taken: no input gave
	 * sm_sl (the SA's pairs count as assumed). */
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint8_t sm_sl_taken;
};

enum kr_sl_given {
	KR_SL_ASSUMED,		/* only the pairs listed in pair_sl */
	KR_SL_ALL,		/* every source ("DLID SL" line) */
	KR_SL_CAS,		/* every CA source (a record from each) */
};

static inline uint8_t kr_lft_port(const struct kr_tables *t, uint32_t sw,
				  unsigned lid)
{
	return lid < t->stride ? t->lft[(size_t)sw * t->stride + lid] : KR_NO_PORT;
}

static inline unsigned kr_map_vl(uint64_t map, unsigned sl)
{
	return (unsigned)(map >> (4 * sl)) & 0xf;
}

static inline uint64_t kr_map_set(uint64_t map, unsigned sl, unsigned vl)
{
	return (map & ~(0xfull << (4 * sl))) | ((uint64_t)(vl & 0xf) << (4 * sl));
}

/* The map a packet on SL uses when it enters node through port in and leaves
 * through out (CA: in = out = its port). */
uint64_t kr_tables_sl2vl(const struct kr_fabric *f, const struct kr_tables *t,
			 uint32_t node, unsigned in, unsigned out);
uint64_t *kr_tables_sl2vl_ref(const struct kr_fabric *f, struct kr_tables *t,
			      uint32_t node, unsigned in, unsigned out);
unsigned kr_tables_path_sl(const struct kr_tables *t, unsigned slid,
			   unsigned dlid);
/* The same for packets from any LID of a port (an LMC range): pairs are
 * kept under the port's base LID, and every LID of a port sends over the
 * same routes, so all of them must get its SL. */
unsigned kr_tables_port_path_sl(const struct kr_fabric *f,
				const struct kr_tables *t, unsigned slid,
				unsigned dlid);
/* Whether an input gave the map of (node, in, out) (tables without a
 * record of it: yes). */
bool kr_tables_sl2vl_given(const struct kr_fabric *f, const struct kr_tables *t,
			   uint32_t node, unsigned in, unsigned out);
/* Whether pair_sl lists (slid, dlid). */
bool kr_tables_pair_given(const struct kr_tables *t, unsigned slid,
			  unsigned dlid);

/* Allocates an all-KR_NO_PORT LFT for LIDs 0 .. stride-1 and, on request,
 * SL2VL maps (all VL 0) and a dlid_sl row (all SL 0). */
int kr_tables_init(struct kr_tables *t, const struct kr_fabric *f,
		   uint32_t stride, int with_sl2vl, int with_sl);
/* kr_tables_init for a caller that writes every LFT entry itself: the
 * LFT is left as malloc gives it, its pages untouched until then. */
int kr_tables_init_unset(struct kr_tables *t, const struct kr_fabric *f,
			 uint32_t stride, int with_sl2vl, int with_sl);
/* Tables read from a cache (kr_tables_cache_read: no LFTs, only fixes)
 * made whole: the LFTs of routed, kr_route's tables of the same fabric,
 * with t's fixes applied. */
int kr_tables_refill(struct kr_tables *t, const struct kr_tables *routed);
/* Applies p to t, the tables it was made for: the LFT entries of its
 * fixes written, its SLs, pairs, repaired LIDs and fixes handed over (p
 * is left empty). */
int kr_tables_patch(struct kr_tables *t, struct kr_tables_patch *p);
void kr_tables_patch_free(struct kr_tables_patch *p);
/* Sorts pair_sl and drops exact duplicates; a pair given twice with
 * different SLs is reported. */
int kr_tables_sort_pairs(struct kr_tables *t, struct kr_diag *d);

/* The pair exceptions (both lists sorted) in one of a and b and not, with
 * the same SL, in the other: pairs whose own SL came, went or moved. Their
 * DLIDs are marked in dlids[stride] unless it is NULL. */
size_t kr_tables_pairs_differ(const struct kr_tables *a,
			      const struct kr_tables *b, uint8_t *dlids);
/* After reading dumps: what no reader filled becomes an assumption on
 * record. Without SL2VL maps t gets all-VL-0 maps, none given; without
 * path SLs, SL 0 towards every LID, none given. */
int kr_tables_assume(struct kr_tables *t, const struct kr_fabric *f);
/* Links from each switch to each LID along the LFTs, into hops[nsw *
 * stride] (a switch's own LID 0, a CA's one link past its switch);
 * KR_NO_PORT where the packet is not delivered or the count passes 254.
 * OpenSM's dumps read these as the switches' hop matrices. */
int kr_tables_hops(const struct kr_fabric *f, const struct kr_tables *t,
		   uint8_t *hops);
void kr_tables_free(struct kr_tables *t);

#endif
