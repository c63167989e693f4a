/* The SL/VL plan: what the 4 SL bits carry and what every port's SL2VL maps
 * them to. Deadlock freedom first (torus ring halves, one virtual network per
 * dimension order in use), destination classes with what is left. */
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
	int detour_dropped;		/* asked for, but did not fit */
	uint16_t *vl_mask;		/* [nport] VLs each port sends on */
	char text[512];			/* one-line plan for logs and summaries */
};

/* Fills t->dlid_sl and t->sl2vl (t from kr_route) and plan. Fails with
 * KR_ENOVL when even deadlock freedom does not fit the SL bits or VLs,
 * KR_EINVAL when the classifier cannot work here (dbbq without LMC, iodet
 * without SL bits to spare). */
int kr_slvl_plan(const struct kr_fabric *f, const struct kr_topo *topo,
		 const struct kr_conf *c, struct kr_tables *t,
		 struct kr_slvl *plan, struct kr_diag *d);
void kr_slvl_free(struct kr_slvl *plan);

/* Topological index of the destination behind a LID: router / grid switch
 * position * p + CA slot (switches: slot 0). KR_NONE for unused LIDs. */
uint32_t kr_dest_index(const struct kr_fabric *f, const struct kr_topo *topo,
		       unsigned lid);

#endif
