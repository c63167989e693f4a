/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_stats.h"

#include <stdlib.h>
#include <string.h>

static int counts_lid(const struct kr_fabric *f, unsigned lid, int all_lids)
{
	uint32_t port = kr_port_by_lid(f, lid);

	return port != KR_NONE && (all_lids || !kr_is_switch(f, f->owner[port]));
}

void kr_stats_switch(const struct kr_fabric *f, const struct kr_tables *t,
		     uint32_t sw, int all_lids, uint32_t *counts)
{
	unsigned np = f->nports[sw];

	memset(counts, 0, (np + 1u) * KR_NSL * sizeof(*counts));
	for (unsigned lid = 1; lid < t->stride && lid <= f->max_lid; lid++) {
		unsigned port = kr_lft_port(t, sw, lid), sl;

		if (port > np || !counts_lid(f, lid, all_lids))
			continue;
		sl = t->dlid_sl ? t->dlid_sl[lid] : 0;
		counts[port * KR_NSL + kr_map_vl(kr_tables_sl2vl(f, t, sw, 0, port),
						 sl)]++;
	}
}

static int to_switch(const struct kr_fabric *f, uint32_t slot)
{
	return f->peer[slot] >= 0 && kr_is_switch(f, f->owner[f->peer[slot]]);
}

int kr_stats_balance(const struct kr_fabric *f, const struct kr_tables *t,
		     int all_lids, struct kr_balance *b)
{
	uint32_t *counts = malloc(256 * KR_NSL * sizeof(*counts));
	uint64_t total = 0, nports = 0;
	uint16_t used = 0;

	*b = (struct kr_balance){ 0 };
	if (!counts)
		return KR_ENOMEM;
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		kr_stats_switch(f, t, sw, all_lids, counts);
		for (unsigned p = 1; p <= f->nports[sw]; p++) {
			if (!to_switch(f, kr_port(f, sw, p)))
				continue;
			nports++;
			for (unsigned vl = 0; vl < KR_NSL; vl++) {
				uint32_t c = counts[p * KR_NSL + vl];

				total += c;
				used |= (uint16_t)((c != 0) << vl);
				if (c > b->max)
					b->max = c;
			}
		}
	}
	free(counts);
	for (unsigned vl = 0; vl < KR_NSL; vl++)
		b->vls += used >> vl & 1;
	b->nportvl = (uint32_t)(nports * b->vls);
	b->mean = b->nportvl ? (double)total / b->nportvl : 0;
	return KR_OK;
}
