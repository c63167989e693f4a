/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_budget.h"

void kr_budget_init(struct kr_budget *b, const struct kr_fabric *f,
		    const struct kr_topo *topo, const struct kr_conf *c)
{
	*b = (struct kr_budget){ .xbar = kr_topo_xbar_sl(topo) != 0,
				 .ndetour = kr_conf_detour_vls(c),
				 .mcast_sls = kr_conf_mcast_sls(c),
				 .xturn = topo->family == KR_FAMILY_MIKANT,
				 .vls = kr_topo_vls(f, topo, kr_conf_vls(c)) };
	for (unsigned d = 0; d < topo->ndim; d++)
		b->nring += kr_topo_ring_halves(topo, d);
}

uint16_t kr_budget_spare_sls(const struct kr_budget *b, unsigned max_code)
{
	unsigned end = KR_NSL - b->xbar - (b->ndetour ? 1 : 0);
	uint16_t m = 0;

	for (unsigned sl = max_code + 1; sl < end; sl++)
		if (!(b->mcast_sls >> sl & 1))
			m |= (uint16_t)(1u << sl);
	return m;
}

static unsigned popcount16(uint16_t v)
{
	unsigned n = 0;

	for (; v; v &= (uint16_t)(v - 1))
		n++;
	return n;
}

bool kr_budget_mcast_fits(const struct kr_budget *b, unsigned max_code)
{
	uint16_t codes = (uint16_t)((2u << max_code) - 1);

	return popcount16(kr_budget_spare_sls(b, max_code)) >=
	       popcount16(b->mcast_sls & codes) + (b->ndetour > 1);
}

bool kr_budget_orders_fit(const struct kr_budget *b, unsigned nvn)
{
	unsigned bits = b->nring + kr_ceil_log2(nvn);
	unsigned vls = nvn * (b->nring ? 2 : 1) + b->xbar + b->xturn +
		       b->ndetour + (!b->ndetour && b->mcast_sls);

	if (bits > KR_SL_BITS || vls > b->vls)
		return false;
	/* one class: the codes are 0 .. 2^bits - 1 */
	return (1u << bits) <= kr_budget_top_sl(b) &&
	       kr_budget_mcast_fits(b, (1u << bits) - 1);
}
