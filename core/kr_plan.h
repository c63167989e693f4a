/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The whole pipeline in one call, as the plugin and `knsroute route` run it:
 * recognise -> route -> SL/VL plan -> repair -> full check. Each step fills
 * one part of the plan; kr_plan_free copes with any failure point. The
 * SL/VL plan comes before repair because it depends on the recognised
 * structure alone (so faults never change it) and repair needs its maps to
 * prove each detour. */
#ifndef KR_PLAN_H
#define KR_PLAN_H

#include <stdio.h>

#include "kr_atomic.h"
#include "kr_check.h"
#include "kr_conf.h"
#include "kr_fabric.h"
#include "kr_mcast.h"
#include "kr_repair.h"
#include "kr_slvl.h"
#include "kr_tables.h"
#include "kr_topo.h"

enum kr_phase { KR_PHASE_TOPO, KR_PHASE_ROUTE, KR_PHASE_SLVL,
		KR_PHASE_REPAIR, KR_PHASE_CHECK, KR_NPHASE };

struct kr_plan {
	struct kr_topo topo;
	struct kr_tables tables;
	struct kr_slvl slvl;
	struct kr_repair_stats repair;
	struct kr_mtree mtree;		/* multicast master forest (live links) */
	struct kr_check_report check;
	int checked;			/* the check ran (conf check != 0) */
	int incremental;		/* the check walked only the changed
					 * destinations, check_dests of them */
	unsigned check_dests;
	struct kr_cdg *proof;		/* the passing check's dependency
					 * graph, for the next sweep's
					 * incremental check; NULL: none */
	int resumed;			/* repaired from the tables in force
					 * of a tables cache (kr_plan_resume) */
	uint32_t resumed_dests;		/* their repaired destinations */
	enum kr_phase failed;		/* phase that failed, when one did */
	double ms[KR_NPHASE];		/* wall time per phase */
};

/* KR_OK only when the tables passed the check (or the check is switched
 * off in c); the plan's parts stay valid for inspection either way. */
int kr_plan_build(const struct kr_fabric *f, const struct kr_conf *c,
		  struct kr_plan *p, struct kr_diag *d);
/* The same, for a fabric whose previous plan prev on prev_f (NULL: none)
 * is in force: the CA slots carry over (kr_topo_keep_slots), repair keeps
 * the SLs of routes that stay and proves that packets still sent on an
 * old SL close no credit loop, and when prev holds a proof and only some
 * destinations' routes or SLs changed on the same ports, LIDs, CA links
 * and SL2VL maps, only their dependencies are checked, against prev's
 * graph (kr_check_incremental), which p takes over; a full check runs
 * when that cannot prove the tables. */
int kr_plan_rebuild(const struct kr_fabric *f, const struct kr_conf *c,
		    const struct kr_fabric *prev_f, struct kr_plan *prev,
		    struct kr_plan *p, struct kr_diag *d);
/* The same for the first sweep after a restart: the tables in force are
 * was, read from the tables cache (kr_tables_cache_read), which gets the
 * LFTs this fabric's routes and its fixes give (kr_tables_refill). */
int kr_plan_resume(const struct kr_fabric *f, const struct kr_conf *c,
		   struct kr_tables *was, struct kr_plan *p, struct kr_diag *d);
void kr_plan_free(struct kr_plan *p);
/* kr_plan_build, or kr_plan_resume when was is not NULL, in two steps,
 * for a caller with work to do while the check runs (the dry run writes
 * its dumps meanwhile): kr_plan_tables fills everything up to the check
 * (and is the plan's result when it fails), kr_plan_prove then checks the
 * tables as kr_plan_build would. */
int kr_plan_tables(const struct kr_fabric *f, const struct kr_conf *c,
		   struct kr_tables *was, struct kr_plan *p,
		   struct kr_diag *d);
int kr_plan_prove(const struct kr_fabric *f, const struct kr_conf *c,
		  struct kr_plan *p, struct kr_diag *d);

/* A multicast group's tree into p->tables.mgroup (kept sorted by MLID; an
 * MLID given again is replaced), when the plan makes sl safe; else
 * KR_EINVAL with the SL to configure instead in d. */
int kr_plan_add_group(const struct kr_fabric *f, struct kr_plan *p,
		      unsigned mlid, unsigned sl, const uint32_t *member,
		      size_t nmember, struct kr_mcast_info *info,
		      struct kr_diag *d);
const char *kr_phase_name(enum kr_phase ph);

/* The dry run's files in dir (created if needed): opensm-lfts.dump,
 * opensm-sl2vl.dump, opensm.mcfdbs (the groups in p->tables.mgroup),
 * path-sl, vlarb, topology.net (the fabric with the LIDs the tables use),
 * knsroute-tables (the tables cache, for a later kr_plan_resume),
 * summary. All or nothing; how as for kr_write_dir. */
int kr_plan_write_dir(const char *dir, enum kr_write_to how,
		      const struct kr_fabric *f, const struct kr_plan *p,
		      struct kr_diag *d);
/* The same for a plan whose tables are done but whose check is not:
 * prove(arg) runs in the calling thread (kr_plan_prove, and whatever else
 * completes p: multicast groups) while another writes the files that do
 * not depend on it; opensm.mcfdbs and summary follow when it returned
 * KR_OK. When it fails nothing is written and its code is returned.
 * Until it returns, only prove may change p. dir is the user's. */
int kr_plan_write_dir_proving(const char *dir, const struct kr_fabric *f,
			      const struct kr_plan *p, int (*prove)(void *arg),
			      void *arg, struct kr_diag *d);
/* The coordinates cache (kr_topo_cache_write), written atomically; the
 * switches of the cache it replaces that f lacks stay in it on their
 * places, when both are of one grid and nothing else holds them. The
 * cache replaced is read only as KR_IN_CACHE allows. */
int kr_topo_cache_save(const char *path, enum kr_write_to how,
		       const struct kr_fabric *f, const struct kr_topo *t,
		       struct kr_diag *d);
/* The tables cache (kr_tables_cache_write) of p's tables, written
 * atomically as the plugin's own file (KR_TO_OWN). */
int kr_tables_cache_save(const char *path, const struct kr_fabric *f,
			 const struct kr_plan *p, struct kr_diag *d);
/* What p made of f: the fabric, the LIDs routed, each clause of the SL
 * plan, the check and the phases' times, with sep between them ("; " for
 * one line, "\n" for a log that keeps its lines short). */
void kr_plan_summary(char *buf, size_t len, const struct kr_fabric *f,
		     const struct kr_plan *p, const char *sep);

#endif
