/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Up*-down* ranks over the live switch graph, shared by the repair's
 * detour layer (repair_updn.c) and the multicast trees (mcast.c): both must
 * order the switches the same way for their union on one VL to stay
 * acyclic. Not for tools/. */
#ifndef KR_UPDN_H
#define KR_UPDN_H

#include <stdint.h>

#include "kr_fabric.h"
#include "kr_topo.h"

/* The switch behind port of sw over a live link that routes may take, or
 * KR_NONE: no link, a CA, port 0, a loopback cable, or a cable topo's grid
 * has no place for (KR_DIR_NONE, plugged into the wrong switch): as good
 * as down, for the detour layer and the trees as for DOR, which keeps the
 * layer's routes what they are without it; unless some switch hangs on
 * such cables alone (topo->strays_bridge). topo NULL: every link between
 * two switches. Inline: the repair's walks call it per hop. */
static inline uint32_t kr_updn_next(const struct kr_fabric *f,
				    const struct kr_topo *topo, uint32_t sw,
				    unsigned port)
{
	uint32_t slot;
	int32_t peer;

	if (port == 0 || port > f->nports[sw])
		return KR_NONE;
	slot = f->port0[sw] + port;
	peer = f->peer[slot];
	if (peer < 0 || !kr_is_switch(f, f->owner[peer]) ||
	    f->owner[peer] == sw ||
	    (topo && !topo->strays_bridge &&
	     topo->port_dir[slot] == KR_DIR_NONE))
		return KR_NONE;
	return f->owner[peer];
}

/* Per switch, over the links kr_updn_next takes: rank = BFS level * nsw + id, the level from the root of its
 * component (switch prefer in its own, else the best-connected switch)
 * into lvl, the root into comp; queue gets every switch in BFS order,
 * component after component, each from its root. All four [nsw]. */
void kr_updn_ranks(const struct kr_fabric *f, const struct kr_topo *topo,
		   uint32_t prefer, uint32_t *rank, uint32_t *comp,
		   uint32_t *lvl, uint32_t *queue);
/* The port of switch v to its parent in the multicast master forest:
 * the neighbour one level up (lvl from kr_updn_ranks) with the lowest
 * GUID, by its lowest port when links are parallel; 0 for a root. GUIDs
 * and port numbers, not node order, so that the plugin and a dry run on
 * a capture hang every switch the same way. */
unsigned kr_updn_up_port(const struct kr_fabric *f, const struct kr_topo *topo,
			 const uint32_t *lvl, uint32_t v);
/* The switch of the port owning sm_lid (kr_tables.sm_lid): the switch
 * itself or the one a CA port is linked to; KR_NONE when unknown. */
uint32_t kr_updn_sm_switch(const struct kr_fabric *f, unsigned sm_lid);

#endif
