/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_topo.h"

#include <stdio.h>
#include <stdlib.h>

const char *kr_family_name(enum kr_family fam)
{
	switch (fam) {
	case KR_FAMILY_KNS:
		return "kns";
	case KR_FAMILY_TORUS:
		return "torus";
	case KR_FAMILY_MESH:
		return "mesh";
	case KR_FAMILY_NONE:
		break;
	}
	return "none";
}

void kr_topo_free(struct kr_topo *t)
{
	free(t->pos_sw);
	free(t->sw_pos);
	free(t->sw_xdim);
	free(t->sw_xline);
	free(t->xbar);
	free(t->port_dir);
	free(t->ca_slot);
	free(t->sw_stage);
	free(t->sw_order);
	free(t->missing_link);
	free(t->missing_sw);
	free(t->report);
	*t = (struct kr_topo){ 0 };
}

const char *kr_dim_name(unsigned d, char *buf, size_t len)
{
	if (d < 3)
		snprintf(buf, len, "%c", "xyz"[d]);
	else
		snprintf(buf, len, "d%u", d);
	return buf;
}

void kr_topo_describe(char *buf, size_t len, const struct kr_fabric *f,
		      const struct kr_topo *t)
{
	uint32_t nxbar = 0, ngrid = 0;
	size_t n = 0;
	char nm[16];

	for (uint32_t s = 0; s < f->nsw; s++) {
		nxbar += t->sw_xdim && t->sw_xdim[s] != KR_NO_DIM;
		ngrid += t->sw_pos && t->sw_pos[s] != KR_NONE;
	}
	if (t->family == KR_FAMILY_KNS && t->s > 1) {
		snprintf(buf, len, "KNS %u-ary %u-direct %u-indirect (fat-tree "
			 "subnets of radix %u), p=%u: %u routers, %u subnet "
			 "switches, %u CAs", t->k[0], t->ndim, t->s,
			 2 * t->arity, t->p, ngrid, nxbar, f->nnode - f->nsw);
		return;
	}
	if (t->family == KR_FAMILY_KNS) {
		snprintf(buf, len, "KNS %u-ary %u-direct 1-indirect, p=%u: %u "
			 "routers, %u crossbars, %u CAs", t->k[0], t->ndim, t->p,
			 ngrid, nxbar, f->nnode - f->nsw);
		return;
	}
	n += (size_t)snprintf(buf + n, len - n, "%s ", kr_family_name(t->family));
	for (unsigned d = 0; d < t->ndim && n < len; d++)
		n += (size_t)snprintf(buf + n, len - n, "%s%u", d ? "x" : "", t->k[d]);
	if (t->family == KR_FAMILY_TORUS && n < len) {
		n += (size_t)snprintf(buf + n, len - n, " (wrap ");
		for (unsigned d = 0, first = 1; d < t->ndim && n < len; d++)
			if (t->wrap[d]) {
				n += (size_t)snprintf(buf + n, len - n, "%s%s",
						      first ? "" : ",",
						      kr_dim_name(d, nm, sizeof(nm)));
				first = 0;
			}
		n += (size_t)snprintf(buf + n, len - n, ")");
	}
	if (n < len)
		snprintf(buf + n, len - n, ", p=%u, parallel %u: %u switches, "
			 "%u CAs", t->p, t->parallel, ngrid, f->nnode - f->nsw);
}
