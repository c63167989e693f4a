/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute.conf: what an admin may pin. Everything is optional; the defaults
 * let recognition and planning decide from the graph alone. The file format
 * is documented in docs/knsroute.conf.5. */
#ifndef KR_CONF_H
#define KR_CONF_H

#include <stdint.h>

#include "kr_base.h"
#include "kr_io.h"
#include "kr_shape.h"

#define KR_MAX_SEED_PORTS 16

struct kr_seed_port {
	uint8_t dim;
	int8_t dir;		/* +1 or -1; KNS: +1 */
	uint8_t port;
};

#define KR_CONF_PATH 4096	/* PATH_MAX on Linux */

struct kr_conf {
	enum kr_family family;		/* KR_FAMILY_NONE: recognise */
	unsigned ndim;			/* 0: recognise */
	unsigned k[KR_MAX_DIM];
	int wrap[KR_MAX_DIM];		/* -1: recognise, 0 mesh, 1 ring */
	unsigned p;			/* 0: recognise (routers = switches with CAs) */
	unsigned order[KR_MAX_DIM];	/* routing order of dimensions */
	unsigned norder;		/* 0: natural order 0, 1, ... */
	uint64_t seed_guid;		/* origin switch, 0: lowest GUID rule */
	struct kr_seed_port seed_port[KR_MAX_SEED_PORTS];
	unsigned nseed_port;
	char coords_file[KR_CONF_PATH];	/* explicit GUID -> coordinates */
	char coords_cache[KR_CONF_PATH];	/* persisted labelling, read
						 * and written */
	char tables_cache[KR_CONF_PATH];	/* plugin: the tables in force,
						 * for the next start */

	enum kr_classify classify;
	unsigned classes;		/* 0: as many as the VL budget allows */
	unsigned vls;			/* data VLs at most (ports may run
				 * fewer: their OperVLs); 0 = 8 */
	unsigned lmc;			/* LID mask control for assigned LIDs */
	int check;			/* run the credit-loop check (default 1) */
	int dump_tables;		/* plugin: write the dry-run files after
					 * each sweep (default 0) */
	unsigned detour_vls;		/* VLs and SLs (0-2) kept for the detour
					 * layers of fault repair (default 2) */
	unsigned max_intermediates;	/* thesis-style intermediates per path
					 * before the general repair (0..2,
					 * default 2) */
	uint16_t mcast_sls;		/* SLs multicast groups use (bit s:
					 * SL s; default SL 0) */
	/* Not from the file: where the ports send SA queries (the SM's base
	 * LID, 0: unknown) and on which SL, for the check (kr_tables.h). */
	uint16_t sm_lid;
	uint8_t sm_sl;
	/* Not from the file: told the name of each phase of kr_plan_build as
	 * it starts (NULL: nobody asks), for the CLI's progress lines. */
	void (*on_phase)(void *ctx, const char *phase);
	void *on_phase_ctx;
};

void kr_conf_init(struct kr_conf *c);

/* The data VLs when ports do not say, and the VLs kept for the detour
 * layers; NULL: the defaults. */
static inline unsigned kr_conf_vls(const struct kr_conf *c)
{
	return c && c->vls ? c->vls : 8;
}

static inline unsigned kr_conf_detour_vls(const struct kr_conf *c)
{
	return c ? c->detour_vls : 2;
}

/* The SLs multicast must be safe on (bit s: SL s): the groups' and, when
 * there are groups, the SA's sm_sl, which shares their VL (slvl.c); NULL:
 * SL 0, the default. */
static inline uint16_t kr_conf_mcast_sls(const struct kr_conf *c)
{
	return !c ? 1 : c->mcast_sls ? (uint16_t)(c->mcast_sls | 1u << c->sm_sl)
				     : 0;
}
/* Reads path into c (on top of what c holds); errors name the line. kind
 * (kr_io.h): KR_IN_FILE in the plugin, which reads it under OpenSM's
 * lock; KR_IN_STREAM for a file the user names on the command line. */
int kr_conf_load(struct kr_conf *c, const char *path, enum kr_input kind,
		 struct kr_diag *d);

#endif
