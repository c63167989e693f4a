/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The checker: does every source reach every destination LID, and is the
 * channel dependency graph free of cycles (credit loops)?
 *
 * Pairs: every linked CA port with a LID (its base LID is the SLID for the
 * SL lookup; optionally every switch's port 0 too) times every destination
 * LID (each LID of a CA port's LMC range, each switch's LID), except a
 * port's own LIDs. A path leaves the CA on the VL of its port's SL2VL map,
 * follows the LFTs switch by switch (VL from SL2VL[switch][in][out][SL]) and
 * is delivered at the port owning the DLID; a switch's LID is delivered
 * where its LFT says port 0 at that switch. A channel is (sending port
 * slot, VL); consecutive channels of one path are a dependency. The graph
 * holds those between switch-to-switch channels: nothing waits for a CA's
 * channel (CAs do not forward) and a channel into a CA waits for nothing,
 * so neither lies on a cycle.
 *
 * The walk goes destination by destination (LFT routing depends on the
 * DLID only) and memoises: each switch is resolved once per DLID, each
 * channel once per (DLID, SL). Runs inside OpenSM: never prints.
 *
 * Two traffic classes, two verdicts: data (CA port to CA port) first, then
 * the same graph grown by management traffic (towards switch LIDs, from
 * switches with switch_sources, and the SM node's: the SA's between
 * t->sm_lid and every CA port on t->sm_sl, its PerfMgr's between it and
 * every port on KR_PERFMGR_SL). With multicast groups in the tables a
 * third: the counted unicast class's graph grown by every group's tree
 * (check_mcast.c), so a loop that needs multicast is told apart. Inputs a reader did not have
 * (t->sl2vl_given, t->sl_given) are assumptions: they are counted, and a
 * credit loop the given inputs alone do not close is told apart from one
 * they prove (docs/design.md, "Honest inputs"). */
#ifndef KR_CHECK_H
#define KR_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "kr_fabric.h"
#include "kr_tables.h"

#define KR_MLID_FIRST 0xc000	/* a witness hop's dlid from here: an MLID */

enum kr_check_class_id {
	KR_CHECK_DATA,		/* CA port to CA port */
	KR_CHECK_ALL,		/* data and management: every pair */
	KR_CHECK_MCAST,		/* the counted class and multicast */
	KR_CHECK_NCLASS
};

enum kr_check_dests {		/* which class the result code stands for */
	KR_CHECK_DESTS_ALL,	/* every pair (the plugin) */
	KR_CHECK_DESTS_CAS,	/* data only */
	KR_CHECK_DESTS_AUTO,	/* all when no management pair's SL was
				 * assumed, else data */
};

struct kr_cdg;		/* a channel dependency graph (kr_cdg.h) */
struct kr_check_opts {
	unsigned max_examples;	/* failing pairs to keep (0: none) */
	int switch_sources;	/* also route from every switch's port 0 */
	int dests;		/* enum kr_check_dests */
	struct kr_cdg **keep;	/* when not NULL and the check passes on
				 * tables without multicast and nothing
				 * assumed: *keep gets its graph, ordered,
				 * for kr_check_incremental (else NULL);
				 * free it with kr_check_graph_free */
};

enum kr_check_fail {
	KR_CHECK_NO_ENTRY,	/* LFT has no port (or one beyond the switch) */
	KR_CHECK_DOWN_PORT,	/* LFT points at a port without a link */
	KR_CHECK_LOOP,		/* the LFTs send it round in a circle */
	KR_CHECK_WRONG_DEST,	/* it reaches a port not owning the DLID */
	KR_CHECK_VL15,		/* an SL2VL map sends data to VL 15 */
	KR_CHECK_OPER_VL,	/* a VL at or above the port's OperVLs */
	KR_CHECK_NFAIL
};

struct kr_check_example {
	uint32_t src;		/* source port slot */
	uint16_t slid, dlid;
	uint8_t reason;		/* enum kr_check_fail */
	uint8_t vl;		/* VL15, OPER_VL: the VL */
	uint32_t at;		/* slot where it failed: the switch's port 0
				 * (no entry, loop), the port (down port,
				 * VL15, OperVL: the sending port) or the port
				 * reached (wrong destination) */
};

struct kr_check_link {
	uint32_t slot;		/* sending switch port */
	uint64_t load;		/* delivered paths crossing it */
};

/* Why a dependency is not proven: every path making it had one of these. */
#define KR_CHECK_ASSUMED_SL 1	/* its SL was assumed */
#define KR_CHECK_ASSUMED_MAP 2	/* an SL2VL map on its two hops was */

struct kr_check_chan {
	uint32_t slot;		/* sending port */
	uint8_t vl;
	uint8_t assumed;	/* KR_CHECK_ASSUMED_* of the dependency on
				 * the next channel; 0: proven */
	uint16_t slid, dlid;	/* a path making this channel wait for the
				 * next one of the cycle (a proven one when
				 * there is one); dlid >= 0xC000: an MLID,
				 * slid the member whose packet it is */
};

enum kr_check_loop {
	KR_LOOP_NONE,
	KR_LOOP_PROVEN,		/* the given inputs alone close it */
	KR_LOOP_ASSUMED,	/* only with assumed SLs or maps */
};

struct kr_check_class {
	uint64_t pairs, delivered;	/* KR_CHECK_ALL: every pair */
	uint8_t loop;		/* enum kr_check_loop */
	struct kr_check_chan *cycle;	/* the loop's witness, NULL if none */
	unsigned ncycle;
	unsigned loop_sl_pairs;	/* an assumed loop: pairs (and multicast
				 * groups) with an assumed SL making its
				 * dependencies */
	unsigned loop_map_deps;	/* and dependencies on assumed maps */
};

/* What the inputs did not give and the check took instead. */
struct kr_check_assumed {
	uint32_t map_ports, ports;	/* sending ports with a map the walk
					 * may use missing (VL 0 taken), of */
	uint64_t sl_pairs[KR_CHECK_NCLASS];	/* pairs without a path SL:
						 * data, management */
	int sl_nonzero;		/* some assumed SL is not 0 (a DLID's most
				 * common SL in the PathRecords) */
	uint32_t lids_no_port;	/* LIDs the LFTs route that no port owns
				 * (not checked) */
	uint32_t ports_no_lid;	/* linked CA ports and switches without a
				 * LID (neither source nor destination) */
	uint32_t groups_sl;	/* multicast groups without an SL (SL 0
				 * taken) */
};

#define KR_CHECK_TOP_LINKS 5

struct kr_check_report {
	uint64_t pairs, delivered;
	uint64_t fail[KR_CHECK_NFAIL];
	uint32_t nsrc, ndst;

	struct kr_check_example *ex;
	unsigned nex;

	uint64_t *hops;		/* [nhops] delivered pairs per link count */
	unsigned nhops;

	uint64_t *link_load;	/* [nport] CA-to-CA paths, for switch ports
				 * linked to a switch; 0 elsewhere */
	uint32_t nlinks;	/* directed inter-switch links */
	uint64_t load_max;
	double load_mean;
	struct kr_check_link top[KR_CHECK_TOP_LINKS];	/* most loaded first */
	unsigned ntop;		/* links with a load, at most 5 */

	uint16_t *vl_mask;	/* [nport] VLs each port sends data on */
	unsigned max_vl;	/* highest VL used, 0 if none */
	uint32_t oper_vl_ports;	/* ports sending on a VL >= their OperVLs */

	uint64_t channels;	/* (port, VL) pairs sending data */
	uint16_t sm_lid;	/* t->sm_lid when its port was found, else 0 */
	uint8_t sm_sl;
	uint8_t sm_sl_taken;	/* t->sm_sl_taken */
	uint64_t sm_pairs;	/* SA pairs on sm_sl (in pairs, management) */
	uint64_t deps;		/* unicast dependencies out of switch
				 * channels (the CDG) */
	uint32_t ngroups;	/* multicast groups checked; 0: no
				 * KR_CHECK_MCAST class */
	uint64_t mcast_deps;	/* dependencies the trees add to the
				 * counted class's graph */

	struct kr_check_class cls[KR_CHECK_NCLASS];
	struct kr_check_assumed assumed;
	int exact;		/* nothing was assumed (all counters 0) */
	int dests;		/* the class counted: KR_CHECK_DESTS_ALL or
				 * _CAS (auto resolved) */
};

/* For the class o->dests picks (and, with groups, for it with multicast):
 * KR_OK: every pair delivered and the CDG acyclic. KR_EROUTE: some pair undelivered (a loop included). KR_ECYCLE:
 * all delivered, a credit loop the given inputs prove. KR_EASSUMED: a
 * credit loop only through assumed inputs. KR_ENOMEM. The report is filled
 * in every case but KR_ENOMEM (then it is freeable); d->msg sums up what
 * was found. */
int kr_check_run(const struct kr_fabric *f, const struct kr_tables *t,
		 const struct kr_check_opts *o, struct kr_check_report *r,
		 struct kr_diag *d);
void kr_check_report_free(struct kr_check_report *r);
/* The check of tables that differ from tables proven before (on a fabric
 * with the same ports, LIDs, CA links and SL2VL maps) only in the
 * destinations marked in only[stride]: their pairs alone are walked and
 * their dependencies inserted into g, that earlier check's graph (kept
 * with kr_check_opts.keep, grown by earlier incremental checks). g then
 * holds every dependency of the new tables (and perhaps some they no
 * longer make), so an acyclic g proves them. KR_OK: the marked pairs are
 * delivered and g stays acyclic; KR_EROUTE: some marked pair is not
 * delivered; KR_ECYCLE: a new dependency would close a cycle in g, which
 * its stale dependencies may cause, so only the full check can tell;
 * KR_EINVAL: g is not a graph of these ports and maps, or t has multicast
 * or assumed inputs; KR_ENOMEM. The report counts the marked pairs. */
int kr_check_incremental(const struct kr_fabric *f, const struct kr_tables *t,
			 const uint8_t *only, struct kr_cdg *g,
			 struct kr_check_report *r, struct kr_diag *d);
/* The multicast trees of t against g, the graph of a unicast check of the
 * same tables that passed (kept with kr_check_opts.keep, perhaps grown by
 * kr_check_incremental): every tree's dependencies are inserted into g and
 * then taken out again, leaving g's edges as they were. A group added or
 * left costs its trees, not every unicast pair. KR_OK: no tree closes a
 * cycle with unicast or another tree; KR_ECYCLE: a tree's dependency
 * would close one in g, whose stale dependencies may cause it, so only
 * the full check can tell; KR_EINVAL: g is not a graph of these ports and
 * maps, or t has no groups or assumed inputs; KR_ENOMEM. The report counts
 * the groups and their dependencies, no pairs. */
int kr_check_mcast_incremental(const struct kr_fabric *f,
			       const struct kr_tables *t, struct kr_cdg *g,
			       struct kr_check_report *r, struct kr_diag *d);
void kr_check_graph_free(struct kr_cdg *g);	/* fine on NULL */

/* One pair followed hop by hop (knsroute path). */
struct kr_hop {
	uint32_t node;
	uint8_t in, out;	/* in 0 at a source switch and for a CA;
				 * out 0: delivered to the switch itself,
				 * KR_NO_PORT: no LFT entry */
	uint8_t vl;		/* on the link leaving through out */
	uint8_t why;		/* KR_CHECK_ASSUMED_MAP: that map was */
};

struct kr_path {
	uint16_t slid, dlid;
	uint8_t sl;
	uint8_t sl_assumed;	/* no input gave this pair's SL */
	struct kr_hop *hop;
	unsigned nhop;
	int fail;		/* -1: delivered, else enum kr_check_fail */
	uint32_t at;		/* slot reached (delivered, wrong dest) or
				 * where it failed, as kr_check_example.at */
};

/* Follows the LFTs from source slot src (its base LID as SLID) to dlid.
 * KR_OK whether or not it arrives (p->fail says), KR_ENOMEM. */
int kr_check_path(const struct kr_fabric *f, const struct kr_tables *t,
		  uint32_t src, unsigned dlid, struct kr_path *p);
void kr_path_free(struct kr_path *p);

/* The class whose verdict and witness the report leads with: the
 * counted one, or multicast when only the trees close a loop. */
unsigned kr_check_deciding(const struct kr_check_report *r);
/* A class's verdict as the JSON spells it: ok, undelivered, credit_loop,
 * assumed_credit_loop. */
const char *kr_check_verdict(const struct kr_check_class *c);

/* Human summary (json = 0) or one JSON object; KR_EIO on write error. */
int kr_check_report_write(FILE *out, const struct kr_fabric *f,
			  const struct kr_check_report *r, int json);

#endif
