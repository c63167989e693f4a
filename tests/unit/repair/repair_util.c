/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the repair's unit tests share (repair_util.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "repair_util.h"

const struct kr_gen_opts kns43 = {
	.family = KR_FAMILY_KNS, .ndim = 3, .k = { 4, 4, 4 }, .p = 1 };
const struct kr_gen_opts torus444 = {
	.family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 4, 4 },
	.wrap = { 1, 1, 1 }, .p = 1 };
const struct kr_gen_opts kns42p2 = {
	.family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 2 };
const struct kr_gen_opts torus66 = {
	.family = KR_FAMILY_TORUS, .ndim = 2, .k = { 6, 6 },
	.wrap = { 1, 1 }, .p = 2 };
/* a mesh has no way round: four faults where some detours still leave
 * their SL (`knsroute gen mesh --dims 4x4x4 --fail 4 --seed 12`) */
const struct kr_gen_opts mesh444 = {
	.family = KR_FAMILY_MESH, .ndim = 3, .k = { 4, 4, 4 }, .p = 1,
	.fail = 4, .fail_seed = 12 };

/* kr_repair into t itself, as the plan assembles it. */
int repair_into(const struct kr_fabric *f, const struct kr_topo *topo,
		const struct kr_conf *c, const struct kr_slvl *plan,
		const struct kr_tables *prev, struct kr_tables *t,
		struct kr_repair_stats *st, struct kr_diag *d)
{
	struct kr_tables_patch o;
	int rc = kr_repair(f, topo, c, plan, prev, t, &o, st, d);

	return rc ? rc : kr_tables_patch(t, &o);
}

unsigned stride(void)
{
	const char *s = getenv("KR_TEST_STRIDE");

	return s && atoi(s) > 0 ? (unsigned)atoi(s) : 1;
}

void cut_port(struct kr_fabric *f, uint32_t slot)
{
	int32_t peer = f->peer[slot];

	if (peer >= 0)
		f->peer[peer] = -1;
	f->peer[slot] = -1;
}

unsigned port_dir(const struct kr_fabric *f, const struct kr_topo *t,
			 uint32_t sw, unsigned dir)
{
	for (unsigned p = 1; p <= f->nports[sw]; p++)
		if (t->port_dir[kr_port(f, sw, p)] == dir)
			return p;
	fail_msg("switch %u has no port in direction %u", sw, dir);
	return 0;
}
