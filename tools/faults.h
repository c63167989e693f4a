/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between `knsroute faults` (cmd_faults.c) and its yardstick from the
 * thesis (faults_measure.c). */
#ifndef KR_FAULTS_H
#define KR_FAULTS_H

#include <stdint.h>

#include "kr.h"
#include "kr_plan.h"
#include "plan_opts.h"

/* The fabric under test and the scratch every trial reuses. */
struct bench {
	struct kr_fabric *f;		/* links cut and restored in place */
	const struct kr_topo *topo;	/* the intact fabric's recognition */
	const struct kr_conf *c;
	uint32_t nfault;
	int switches;
	int mcast;			/* a broadcast group in each check */
	uint64_t seed;
	int32_t *peer0;		/* [nport] the intact links */
	uint16_t *swlid;	/* [nsw] the intact switch LIDs */
	uint32_t *cand;		/* [ncand] links (lower slot) or switches */
	uint32_t ncand;
	uint32_t *pick;		/* [ncand] a shuffle; the first nfault are cut */
	uint32_t *comp, *queue;	/* [nsw] connected components, walks */
	uint64_t load0;		/* busiest link of the intact plan */

	/* the thesis' measure, on kr_route's tables */
	uint32_t *isw;		/* [ni] intermediates: grid switches with a LID */
	uint32_t ni, words;	/* words: 64-bit words of an [ni] bit set */
	uint64_t *okrow;	/* [nsw][words] bit i: S reaches isw[i] in DOR */
	uint64_t *bd, *xd;	/* [words] intermediates with a way to one
				 * destination: directly, via one more */
	uint8_t *reach;		/* [nsw] one LFT column's verdicts */
	uint32_t *nsrc;		/* [nsw] CA ports behind each switch */
};

/* Sets *le1 (*le2) when every CA pair that t's dimension-order tables
 * leave cut has a fault-free dimension-order route through at most one
 * (two) intermediate routers: the thesis' measure, decided before repair
 * and without regard to credit loops. */
void faults_thesis_measure(struct bench *b, const struct kr_tables *t,
			   int *le1, int *le2);

/* What `knsroute faults` was asked (cmd_faults.c parses it). */
struct faults_args {
	struct plan_opts po;
	const char *topo;
	uint32_t nfault, trials;
	uint64_t seed;
	int given;		/* --random or --switches seen */
	int switches;		/* remove switches, not links */
	int max_int;		/* -1: knsroute.conf's */
	int mcast;
	int json, quiet, verbose;
};

/* One trial's pipeline: route, SL/VL plan, repair, check. */
struct outcome {
	int connected;
	int routable1, routable2;	/* the thesis' measure (connected) */
	enum kr_phase failed;		/* KR_NPHASE: all passed */
	int repair_ran, repaired, checked, oom;
	struct kr_repair_stats st;	/* valid when repaired */
	unsigned vls;			/* highest VL used + 1 (checked) */
	uint64_t load_max;		/* busiest link (checked) */
	double ms;			/* the whole pipeline */
	char msg[300];			/* "phase: why" when failed */
};

/* faults_report.c: sums over the trials and the report made of them. */
struct tally {
	uint32_t trials, connected, le1, le2, handled, routable1, routable2;
	uint32_t failures, failures_disc, disc_handled;
	char first_failure[2048];
	uint64_t pairs, paths[KR_REPAIR_NKIND], pairs_disc, sl_changed, stale;
	uint64_t repaired, extra_sum, dests, dests_detour, dests_updn;
	uint32_t extra_max;
	double stretch_sum, stretch_max;
	unsigned vls_max;
	uint64_t load_max, load_sum;	/* busiest link: of any trial, and
					 * summed over the checked ones */
	uint32_t nchecked, nrepair;
	double repair_ms_sum, repair_ms_max, trial_ms_sum;
};

/* The faults of the trial under way, as text. */
void fmt_faults(const struct bench *b, char *buf, size_t len);
/* Adds trial's outcome to ta. */
void tally_add(struct tally *ta, const struct bench *b, uint32_t trial,
	       const struct outcome *o);
/* Prints the figures of ta (a->json: one JSON object). */
void faults_report(const struct faults_args *a, const struct tally *ta,
		   const char *fabric, const struct kr_conf *c, uint64_t load0);

#endif
