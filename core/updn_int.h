/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Up*-down* ranks over the live switch graph, shared by the repair's
 * detour layer (repair_updn.c) and the multicast trees (mcast.c): both must
 * order the switches the same way for their union on one VL to stay
 * acyclic. Not for tools/. */
#ifndef KR_UPDN_INT_H
#define KR_UPDN_INT_H

#include <stdint.h>

#include "kr_fabric.h"

/* The switch behind port of sw over a live link, or KR_NONE (no link, a
 * CA, port 0, a loopback cable). Inline: the repair's walks call it per
 * hop. */
static inline uint32_t kr_updn_next(const struct kr_fabric *f, uint32_t sw,
				    unsigned port)
{
	int32_t peer;

	if (port == 0 || port > f->nports[sw])
		return KR_NONE;
	peer = f->peer[f->port0[sw] + port];
	/* a loopback cable leads nowhere */
	if (peer < 0 || !kr_is_switch(f, f->owner[peer]) ||
	    f->owner[peer] == sw)
		return KR_NONE;
	return f->owner[peer];
}

/* Per switch: rank = BFS level * nsw + id, the level from the root of its
 * component (switch prefer in its own, else the best-connected switch)
 * into lvl, the root into comp; queue gets every switch in BFS order,
 * component after component, each from its root. All four [nsw]. */
void kr_updn_ranks(const struct kr_fabric *f, uint32_t prefer, uint32_t *rank,
		   uint32_t *comp, uint32_t *lvl, uint32_t *queue);
/* The switch of the port owning sm_lid (kr_tables.sm_lid): the switch
 * itself or the one a CA port is linked to; KR_NONE when unknown. */
uint32_t kr_updn_sm_switch(const struct kr_fabric *f, unsigned sm_lid);

#endif
