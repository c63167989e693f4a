/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The SL/VL plan: what the 4 SL bits carry and what every port's SL2VL maps
 * them to. Deadlock freedom first (torus ring halves, one virtual network per
 * dimension order in use, the MiKANT's second hop across), destination
 * classes with what is left. */
#ifndef KR_SLVL_H
#define KR_SLVL_H

#include <stdint.h>

#include "kr_conf.h"
#include "kr_fabric.h"
#include "kr_tables.h"
#include "kr_topo.h"

struct kr_slvl {
	enum kr_classify classify;
	uint8_t ring_bit[KR_MAX_DIM];	/* SL bit of dimension d's ring half,
					 * KR_NO_DIM when d needs none */
	unsigned nring;
	unsigned vn_shift, vn_bits, nvn;	/* virtual networks (orders) */
	unsigned nvn_wanted;		/* orders the LMC asks for */
	uint16_t mgmt_sls;		/* the SA's (sm_sl) and PerfMgr's SLs */
	unsigned class_shift, class_bits;	/* iodet: class_bits per dimension */
	unsigned nclass;		/* Q: classes per virtual network */
	unsigned requested;		/* classes asked for (0: as many as fit) */
	unsigned block;			/* VLs per virtual network */
	unsigned vls;			/* data VLs available on the worst port */
	unsigned vls_used;		/* highest VL used + 1 */
	uint32_t xbar_vl;		/* VL of SL 15 (traffic to KNS crossbars)
					 * on turns against the order; KR_NONE
					 * when not needed */
	uint32_t fold;			/* VL folded into the one below on
					 * router-to-crossbar ports to make room
					 * for xbar_vl; KR_NONE when one was spare */
	unsigned ndetour;		/* VLs kept for detour layers (0, 1, 2) */
	unsigned detour_sl;		/* SL of destinations routed up*-down*
					 * on the detour layer, when ndetour */
	uint32_t detour_vl;		/* its VL on every port; KR_NONE: none */
	unsigned ntree;			/* layers of repaired trees moved off
					 * their own SL (ndetour 2: one, and one
					 * more per VL and SL the classes left) */
	unsigned tree_sl[KR_NSL];	/* their SLs, tried in this order */
	uint32_t tree_vl[KR_NSL];	/* their VLs on every port */
	uint32_t turn_vl;		/* every SL's VL on the hop after a turn
					 * against the order (tori, meshes,
					 * KNS: the first tree layer's; MiKANT: the
					 * second hop across the top, a VL kept
					 * for it); KR_NONE: none */
	unsigned xturn;			/* 1: MiKANT, turn_vl kept first */
	int detour_dropped;		/* asked for, but did not fit */
	uint32_t mcast_vl;		/* multicast trees' VL: the detour layer's
					 * (up*-down* over the same ranks), else
					 * a spare one; KR_NONE: none */
	uint16_t mcast_sls;		/* SLs asked for multicast (conf) */
	uint16_t mcast_safe;		/* those mapped to mcast_vl on every
					 * port, so groups on them are safe */
	uint8_t sl_of_code[KR_NSL];	/* SL a unicast SL code (the fields
					 * above) is sent on: itself, or a
					 * spare SL with the same maps when
					 * the code is a multicast SL */
	uint32_t host_vl;		/* every SL's VL on the first hop of a
					 * host on a KNS crossbar (slvl.c,
					 * host_vl); KR_NONE: not a KNS */
	uint32_t nhost;			/* such hosts' ports */
	uint16_t *vl_mask;		/* [nport] VLs each port sends on */
	char text[640];			/* one-line plan for logs and summaries */
};

/* Fills t->dlid_sl and t->sl2vl (t from kr_route) and plan. Fails with
 * KR_ENOVL when even deadlock freedom does not fit the SL bits or VLs,
 * KR_EINVAL when the classifier cannot work here (dbbq without LMC, iodet
 * without SL bits to spare). */
int kr_slvl_plan(const struct kr_fabric *f, const struct kr_topo *topo,
		 const struct kr_conf *c, struct kr_tables *t,
		 struct kr_slvl *plan, struct kr_diag *d);
void kr_slvl_free(struct kr_slvl *plan);

/* The destination class whose VLs packets on unicast SL sl ride under
 * plan, off the hops after turns against the order (which all take
 * turn_vl): 0 .. nclass - 1, where packets to KNS crossbars ride the
 * first class's VL and a VL folded into the one below counts as that
 * one's. 0 when classes share VLs or have none (IODET's are per
 * dimension). */
unsigned kr_slvl_class_of(const struct kr_slvl *plan, unsigned sl);

/* Whether a multicast group on sl is safe under plan; if not, *fix gets
 * the SL to configure instead (KR_NSL when no SL is safe). */
int kr_slvl_mcast_ok(const struct kr_slvl *plan, unsigned sl, unsigned *fix);

#endif
