/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Routing: Hybrid-DOR for KNS, DOR for tori and meshes, one LFT row per
 * switch, every LID of the fabric in every row.
 *
 * LID offset j of an LMC range is routed in dimension order j (see
 * kr_route_order), so offsets 0 and 1 are the XY and YX virtual networks of
 * OSHA/SASHA. */
#ifndef KR_ROUTE_H
#define KR_ROUTE_H

#include "kr_conf.h"
#include "kr_fabric.h"
#include "kr_tables.h"
#include "kr_topo.h"

/* Fills t (allocated here: LFT, zeroed SL2VL maps and dlid_sl) for LIDs
 * 0 .. f->max_lid. Where a missing link or switch cuts the dimension-order
 * way, the entry is KR_NO_PORT: kr_repair's to fill. Fails with KR_ETOPO
 * when a LID's port hangs off no recognised switch. */
int kr_route(const struct kr_fabric *f, const struct kr_topo *topo,
	     const struct kr_conf *c, struct kr_tables *t, struct kr_diag *d);
/* kr_route with the rows computed by threads threads (1 or 2; 0: 2 from
 * KR_ROUTE_THREAD_MIN LFT entries on, as kr_route does): the same tables. */
int kr_route_threads(const struct kr_fabric *f, const struct kr_topo *topo,
		     const struct kr_conf *c, struct kr_tables *t,
		     struct kr_diag *d, unsigned threads);
#define KR_ROUTE_THREAD_MIN (1u << 19)	/* below, a thread costs more
					 * than half the rows */
/* route_updn.c, part of kr_route on a KNS with s > 1: the LFT columns of
 * the subnet switches' LIDs, up*-down* over the live links. */
int kr_route_subnet_switches(const struct kr_fabric *f,
			     const struct kr_topo *topo, struct kr_tables *t);

/* Dimension order used by LID offset j: j = 0 is the configured order
 * (default 0, 1, ..., n-1), j = 1 swaps its first two dimensions, and
 * further offsets take the remaining permutations in lexicographic order of
 * positions, wrapping around after n! of them. */
void kr_route_order(const struct kr_topo *topo, const struct kr_conf *c,
		    unsigned j, unsigned *order);
/* How many distinct dimension orders the LIDs of f use (offset j takes
 * order j mod that): as many as the widest LMC range asks for, at most n!,
 * and no more than the SL and VL budget holds next to the ring halves,
 * multicast and the detour layers of c (NULL: defaults). Each order is a
 * virtual network with VLs of its own, and a second path is not worth
 * IPoIB's multicast or fault repair. DBBQ keeps two. *wanted (unless
 * NULL): the count before the budget. */
unsigned kr_route_norders(const struct kr_fabric *f, const struct kr_topo *topo,
			  const struct kr_conf *c, unsigned *wanted);

/* For a credit loop's message on a KNS with hosts on crossbars (slvl.c,
 * host_vl): when some host hangs off a crossbar whose dimension is not
 * the first of order 0, its packets to switch LIDs turn against the order
 * after their first hop, which the crossbar VL does not cover; the hint
 * (into buf, "" otherwise) names one and the remedy, knsroute.conf's
 * order with that dimension first (hosts on crossbars of one dimension
 * only). */
const char *kr_route_host_hint(const struct kr_fabric *f,
			       const struct kr_topo *topo,
			       const struct kr_conf *c, char *buf, size_t len);

#endif
