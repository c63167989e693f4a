/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Test support for recognition: fabrics with switches or links taken out,
 * an independent validity check of a struct kr_topo against the links, and
 * the comparison of recognised coordinates with the generator's truth up
 * to a grid isomorphism. */
#ifndef KR_TEST_TOPO_CHECK_H
#define KR_TEST_TOPO_CHECK_H

#include "kr.h"

/* Where the generator put each switch of a (possibly reduced) fabric. */
struct tc_truth {
	struct kr_topo grid;	/* the generator's truth (its own ids) */
	uint32_t *pos;		/* [nsw of the fabric] truth position */
	uint8_t *xdim;		/* [nsw] truth crossbar dimension */
	uint32_t *xline;	/* [nsw] */
	int32_t *at;		/* [truth npos] fabric switch, -1 */
};

/* kr_gen with the truth mapped onto the fabric's switch ids. */
void tc_gen(const struct kr_gen_opts *o, struct kr_fabric *f,
	    struct tc_truth *tr);
/* A copy of f without the nodes marked in drop ([nnode] or NULL; a switch
 * takes its CAs along) and without the link at slot cut (KR_NONE: none);
 * tr follows along. */
void tc_without(const struct kr_fabric *f, const struct tc_truth *tr,
		const uint8_t *drop, uint32_t cut, struct kr_fabric *out,
		struct tc_truth *out_tr);
void tc_truth_free(struct tc_truth *tr);

/* Every field of t agrees with the links of f (asserts). */
void tc_assert_valid(const struct kr_fabric *f, const struct kr_topo *t);
/* NULL when t's coordinates are tr's up to a grid isomorphism (MiKANT:
 * the same stages and groups, up to swapping the groups), else what
 * differs. */
const char *tc_iso(const struct kr_fabric *f, const struct tc_truth *tr,
		   const struct kr_topo *t);
/* Same family, sizes and coordinates for every switch GUID both have. */
void tc_assert_same(const struct kr_fabric *fa, const struct kr_topo *a,
		    const struct kr_fabric *fb, const struct kr_topo *b);

#endif
