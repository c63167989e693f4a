/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the repair's unit tests share: the fabrics they cut, and how. */
#ifndef REPAIR_UTIL_H
#define REPAIR_UTIL_H

#include "kr.h"

/* Small fabrics, most of them cut link by link or switch by switch. */
extern const struct kr_gen_opts kns43, torus444, kns42p2, torus66, mesh444;

/* kr_repair into t itself, as the plan assembles it. */
int repair_into(const struct kr_fabric *f, const struct kr_topo *topo,
		const struct kr_conf *c, const struct kr_slvl *plan,
		const struct kr_tables *prev, struct kr_tables *t,
		struct kr_repair_stats *st, struct kr_diag *d);

/* Under valgrind every case costs 30x: take every Nth fault then
 * (KR_TEST_STRIDE, default 1). */
unsigned stride(void);

/* The link at port slot cut at both ends. */
void cut_port(struct kr_fabric *f, uint32_t slot);

/* The port of sw whose direction code is dir (2d: +d, 2d+1: -d). */
unsigned port_dir(const struct kr_fabric *f, const struct kr_topo *t,
		  uint32_t sw, unsigned dir);

#endif
