/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The SL and VL budget: how a plan spends InfiniBand's 16 SLs and the
 * data VLs the ports run. Routing asks it how many dimension orders
 * (virtual networks) fit beside what the plan keeps; the SL/VL plan lays
 * its SLs out by it. One place, so that reserving one more SL changes
 * both.
 *
 * A unicast SL is a code: ring-half bits (tori), then virtual-network
 * bits, then class bits, from SL 0 up. Kept at the top: SL 15 for traffic
 * to KNS crossbars (xbar), below it the detour layer's SL and, with two
 * detour layers, SLs for repaired trees. Multicast SLs that are also
 * unicast codes move those codes to spare SLs between the codes and the
 * kept ones. VLs: a code block per virtual network (two per class on
 * tori, for the ring halves), one for crossbar traffic, one for the
 * second hop across a MiKANT's top, one per detour layer, and
 * multicast's (the detour layer's, else one of its own). */
#ifndef KR_BUDGET_H
#define KR_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "kr_conf.h"
#include "kr_topo.h"

#define KR_SL_BITS 4
#define KR_XBAR_SL 15

/* What a plan on this fabric must keep, before any code is laid out. */
struct kr_budget {
	unsigned nring;		/* ring-half SL bits */
	unsigned xbar;		/* 1: SL KR_XBAR_SL and a VL for crossbars */
	unsigned xturn;		/* 1: a VL for the second hop across a
				 * MiKANT's top (slvl.c) */
	unsigned ndetour;	/* detour layers (VLs) asked for */
	uint16_t mcast_sls;	/* SLs multicast must be safe on */
	unsigned vls;		/* data VLs the plan may use */
};

void kr_budget_init(struct kr_budget *b, const struct kr_fabric *f,
		    const struct kr_topo *topo, const struct kr_conf *c);
/* The first SL kept at the top (crossbar traffic, detour layers). */
static inline unsigned kr_budget_top_sl(const struct kr_budget *b)
{
	return KR_NSL - b->xbar - b->ndetour;
}
/* The SLs above the highest unicast code max_code that nothing claims:
 * below the detour SL and the crossbar SL, and not multicast SLs. */
uint16_t kr_budget_spare_sls(const struct kr_budget *b, unsigned max_code);
/* Whether the unicast codes up to max_code that are multicast SLs find
 * spare SLs, with one left for the first layer of repaired trees when
 * there are two detour layers. */
bool kr_budget_mcast_fits(const struct kr_budget *b, unsigned max_code);
/* Whether nvn virtual networks fit with one class each, beside the
 * crossbar SL and VL, the detour layers and multicast: what routing asks
 * before it gives an LMC offset a dimension order of its own. */
bool kr_budget_orders_fit(const struct kr_budget *b, unsigned nvn);

#endif
