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
 * slot, VL); consecutive channels of one path are a dependency.
 *
 * The walk goes destination by destination (LFT routing depends on the
 * DLID only) and memoises: each switch is resolved once per DLID, each
 * channel once per (DLID, SL). Runs inside OpenSM: never prints. */
#ifndef KR_CHECK_H
#define KR_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "kr_fabric.h"
#include "kr_tables.h"

struct kr_check_opts {
	unsigned max_examples;	/* failing pairs to keep (0: none) */
	int switch_sources;	/* also route from every switch's port 0 */
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

struct kr_check_chan {
	uint32_t slot;		/* sending port */
	uint8_t vl;
	uint16_t slid, dlid;	/* a path making this channel wait for the
				 * next one of the cycle */
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

	uint64_t channels, deps;	/* CDG size */
	struct kr_check_chan *cycle;	/* a credit loop, NULL if none */
	unsigned ncycle;
};

/* KR_OK: every pair delivered and the CDG acyclic. KR_EROUTE: some pair
 * undelivered (a loop included). KR_ECYCLE: all delivered but a credit
 * loop. KR_ENOMEM. The report is filled in every case but KR_ENOMEM (then
 * it is freeable); d->msg sums up what was found. */
int kr_check_run(const struct kr_fabric *f, const struct kr_tables *t,
		 const struct kr_check_opts *o, struct kr_check_report *r,
		 struct kr_diag *d);
void kr_check_report_free(struct kr_check_report *r);

/* Human summary (json = 0) or one JSON object; KR_EIO on write error. */
int kr_check_report_write(FILE *out, const struct kr_fabric *f,
			  const struct kr_check_report *r, int json);

#endif
