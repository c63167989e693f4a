/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the parts of routing: the dimension orders (orders.c), the
 * destination classes a router prepares (classes.c) and the rows
 * (route.c). Not for tools/. */
#ifndef KR_ROUTE_INT_H
#define KR_ROUTE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "kr_route.h"

/* What a switch row needs to know about one LID. */
struct dest {
	uint32_t target;	/* switch, KR_NONE: LID unused */
	uint32_t tpos;		/* grid position, or a crossbar's line */
	uint8_t local;		/* port delivering at the target */
	uint8_t mask;		/* dimension to ignore (crossbar), KR_NO_DIM */
	uint8_t order;		/* dimension order index (LMC offset) */
	uint8_t parity;		/* tie-break bit, see tie_parity() */
};

/* LIDs that share target, order and tie parity share a class: a row is
 * computed once per class and then gathered per LID, since most fabrics have
 * several LIDs per switch (CAs, LMC ranges). Parallel-link groups and local
 * delivery, which differ per LID, are patched in afterwards. */
struct router {
	const struct kr_fabric *f;
	const struct kr_topo *t;
	struct dest *cls;		/* [ncls] */
	uint32_t ncls;
	uint32_t *dcl;			/* [stride] class of each LID, KR_NONE */
	uint32_t *lstart;		/* [nsw + 1] LIDs delivered at each switch */
	uint32_t *llid;
	uint8_t *lport;			/* [stride] port delivering llid[i] */
	uint8_t *portof;		/* [ncls] the row's port per class */
	uint8_t *multi;			/* [ncls] class's group has parallel links */
	uint8_t *gof;			/* [ncls] ... that group, in this row */
	uint64_t *wof;			/* [ncls] ... what a CA LID of it draws:
					 * on a torus or mesh the sources that
					 * reach it through this switch on the
					 * pristine grid (draw), so that a link
					 * down elsewhere changes nothing here;
					 * on a KNS 1, every CA alike */
	uint8_t *is_ca;			/* [stride] LID of a CA port */
	bool slot_ties;			/* CA slots split ties (tie_parity) */
	uint8_t dirtab[KR_MAX_DIM][256];	/* the row's ring directions */
	uint8_t *coord;			/* [npos * ndim] */
	unsigned norder;
	unsigned order[128][KR_MAX_DIM];
	unsigned ngroup;		/* groups per switch */
	uint32_t *gstart;		/* [nsw * ngroup + 1] into gport */
	uint8_t *gport;
	struct par_lid *plid;		/* [2 * stride] row_parallel's LIDs */
	uint32_t *pcount;		/* [npcount] its counting sort */
	size_t npcount;			/* max draw + 2 */
	uint64_t *pload;		/* [512] its traffic and LIDs per port */
	uint32_t *through[KR_MAX_DIM];	/* torus, mesh: [(t * k + c) * 2 +
					 * parity] the places of a line whose
					 * way to t leaves c (row_parallel) */
	uint32_t before[128][KR_MAX_DIM];	/* places of the dimensions an
						 * order corrects before e */
	uint64_t (*dok)[4];		/* [nsw] subnet switch: coordinates of
					 * its line it reaches going down */
	uint64_t (*uok)[4];		/* [nsw] ... going up, then down */
};

/* classes.c: what a router prepares before its rows */
unsigned route_digit(uint32_t v, unsigned a, unsigned j);
int route_build_groups(struct router *r);
int route_build_coords(struct router *r);
unsigned route_port_towards(const struct kr_fabric *f, uint32_t from,
			    uint32_t to, unsigned lid);
bool route_slots_split_ties(const struct router *r);
int route_build_classes(struct router *r, uint32_t stride, struct kr_diag *d);

/* mikant.c: every LFT entry of a MiKANT (Algorithm 1, choices spread);
 * KR_NO_PORT where a forced link is down. KR_OK or KR_ENOMEM. */
int route_mikant(const struct kr_fabric *f, const struct kr_topo *topo,
		 struct kr_tables *t);

#endif
