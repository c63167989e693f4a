/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Destinations per (output port, VL): how well a plan spreads destinations
 * over VLs (thesis tables 11.1-11.3), per switch and fabric-wide. */
#ifndef KR_STATS_H
#define KR_STATS_H

#include <stdint.h>

#include "kr_fabric.h"
#include "kr_tables.h"

/* counts[port * 16 + vl]: destination LIDs that switch sw sends out of port
 * on vl ((nports + 1) * 16 entries). A destination's VL is the one its SL
 * (dlid_sl, the per-destination SL) maps to for traffic entering the switch
 * at port 0; knsroute's maps do not depend on the in port. Only CA LIDs
 * count unless all_lids. */
void kr_stats_switch(const struct kr_fabric *f, const struct kr_tables *t,
		     uint32_t sw, int all_lids, uint32_t *counts);

struct kr_balance {
	uint32_t max;		/* destinations on the busiest (port, VL) */
	double mean;		/* over every inter-switch port and used VL */
	uint32_t nportvl;	/* (port, VL) pairs averaged over */
	unsigned vls;		/* VLs used anywhere */
};

/* Over the ports that lead to other switches: the VLs used anywhere (by
 * any destination) times those ports. */
int kr_stats_balance(const struct kr_fabric *f, const struct kr_tables *t,
		     int all_lids, struct kr_balance *b);

#endif
