/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fabric generator: KNS (crossbar or fat-tree subnets), torus / mesh,
 * MiKANT (mirrored k-ary n-tree) and the folded Clos, optionally
 * shuffled (GUIDs, port numbers, names, record order) and with links left
 * out, plus the ground truth (coordinates) for tests. */
#ifndef KR_GEN_H
#define KR_GEN_H

#include <stdint.h>

#include "kr_fabric.h"
#include "kr_topo.h"

struct kr_gen_opts {
	enum kr_family family;		/* KNS, TORUS, MESH or MIKANT */
	int clos;			/* with MIKANT: the folded Clos of as
					 * many CAs (k^(n-1) middle switches
					 * join the groups' top stages, which
					 * have no links across); never
					 * recognised, so no truth */
	unsigned ndim;			/* MiKANT: n (levels) */
	unsigned k[KR_MAX_DIM];		/* MiKANT: k[0] only */
	uint8_t wrap[KR_MAX_DIM];	/* torus: per dimension; mesh: all 0 */
	unsigned p;			/* CAs per router / grid switch;
					 * MiKANT: k per leaf, p unused */
	unsigned radix;			/* KNS: subnet switch ports; 0 or >= k:
					 * one k-port crossbar per line */
	unsigned parallel;		/* torus/mesh links per neighbour pair */
	int shuffle;
	uint64_t shuffle_seed;
	unsigned fail;			/* inter-switch links to leave out */
	uint64_t fail_seed;
	int assign_lids;		/* embed LIDs (kr_fabric_assign_lids) */
	unsigned lmc;
};

/* A link the generator left out, by final node ids and port numbers. */
struct kr_gen_fault {
	uint32_t node_a, port_a;
	uint32_t node_b, port_b;
};

/* truth (may be NULL) receives the generator's coordinates: family, k,
 * wrap, p, pos_sw/sw_pos, KNS crossbar dims and lines, s, arity and every
 * subnet switch's stage and order; port_dir, ca_slot and
 * the missing lists stay empty. faults (may be NULL) receives an array the
 * caller frees. */
int kr_gen(const struct kr_gen_opts *o, struct kr_fabric *f,
	   struct kr_topo *truth, struct kr_gen_fault **faults,
	   unsigned *nfaults, struct kr_diag *d);

#endif
