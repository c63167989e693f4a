/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between `knsroute faults` (cmd_faults.c) and its yardstick from the
 * thesis (faults_measure.c). */
#ifndef KR_FAULTS_H
#define KR_FAULTS_H

#include <stdint.h>

#include "kr.h"

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

#endif
