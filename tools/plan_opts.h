/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Options shared by the commands that compute a plan (route, stats): the
 * config file, classifier and VL budget, and where LIDs come from. */
#ifndef KR_PLAN_OPTS_H
#define KR_PLAN_OPTS_H

#include <getopt.h>

#include "kr.h"

struct plan_opts {
	const char *conf, *guid2lid, *classify;
	int lmc, classes, vls, detour_vls, no_check;	/* -1: not given */
	int sm_lid, sm_sl;				/* -1: not given */
};

enum { PLAN_OPT_G2L = 300, PLAN_OPT_LMC, PLAN_OPT_CL, PLAN_OPT_CLS,
       PLAN_OPT_VLS, PLAN_OPT_DETOUR, PLAN_OPT_NOCHK, PLAN_OPT_SMLID,
       PLAN_OPT_SMSL };

#define PLAN_OPTIONS \
	{ "conf", required_argument, NULL, 'c' }, \
	{ "guid2lid", required_argument, NULL, PLAN_OPT_G2L }, \
	{ "lmc", required_argument, NULL, PLAN_OPT_LMC }, \
	{ "classify", required_argument, NULL, PLAN_OPT_CL }, \
	{ "classes", required_argument, NULL, PLAN_OPT_CLS }, \
	{ "vls", required_argument, NULL, PLAN_OPT_VLS }, \
	{ "detour-vls", required_argument, NULL, PLAN_OPT_DETOUR }, \
	{ "no-check", no_argument, NULL, PLAN_OPT_NOCHK }, \
	{ "sm-lid", required_argument, NULL, PLAN_OPT_SMLID }, \
	{ "sm-sl", required_argument, NULL, PLAN_OPT_SMSL }

#define PLAN_OPTIONS_HELP \
"  -c, --conf FILE      knsroute.conf (see knsroute.conf(5))\n" \
"  --guid2lid FILE      OpenSM's guid2lid cache for the LIDs\n" \
"  --lmc L              LMC of assigned CA LIDs (0-7; offsets take other\n" \
"                       dimension orders, as many as the SLs and VLs\n" \
"                       beside multicast and detours hold)\n" \
"  --classify NAME      xordet (default), dbbm, bbq, dbbq, iodet, none\n" \
"  --classes Q          destination classes (default: as many as fit)\n" \
"  --vls N              at most N data VLs (default 8); ports running\n" \
"                       fewer lower it\n" \
"  --detour-vls N       VLs kept for fault-repair detour layers (0-2,\n" \
"                       default 2; fewer leave more for classes)\n" \
"  --no-check           skip the credit-loop check (experiments only)\n" \
"  --sm-lid LID         the SM's LID, as the plugin learns it from OpenSM:\n" \
"                       its switch roots the up*/down* layer and the\n" \
"                       multicast trees, and the SA's traffic joins the\n" \
"                       check (as knsroute check --sm-lid)\n" \
"  --sm-sl SL           the SL of that traffic (OpenSM's sm_sl; default 0)\n"

void plan_opts_init(struct plan_opts *o);
/* 1 if c was one of PLAN_OPTIONS (and is now recorded), else 0. */
int plan_opts_take(struct plan_opts *o, const char *cmd, int c, const char *arg);
/* The config file plus the command-line overrides; prints errors. */
int plan_opts_conf(const struct plan_opts *o, const char *cmd, struct kr_conf *c);
/* LIDs: the topology's, then guid2lid's, then assigned (c->lmc). */
int plan_opts_lids(const struct plan_opts *o, const struct kr_conf *c,
		   const char *topo, struct kr_fabric *f);

#endif
