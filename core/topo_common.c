/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_topo.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The slot CA port ca of t had under pt when the port it hangs off, on a
 * switch of the same GUID, held a CA then; KR_NONE otherwise. */
static uint32_t slot_before(const struct kr_fabric *f, uint32_t ca,
			    const struct kr_fabric *pf, const struct kr_topo *pt)
{
	uint32_t at = (uint32_t)f->peer[ca], o = kr_node_by_guid(pf,
						f->guid[f->owner[at]]);
	unsigned port = kr_port_num(f, at);
	int32_t was;

	if (o == KR_NONE || !kr_is_switch(pf, o) || port > pf->nports[o])
		return KR_NONE;
	was = pf->peer[pf->port0[o] + port];
	return was < 0 ? KR_NONE : pt->ca_slot[was];
}

void kr_topo_keep_slots(const struct kr_fabric *f, struct kr_topo *t,
			const struct kr_fabric *pf, const struct kr_topo *pt)
{
	uint32_t *slot;

	if (!t->ca_slot || !pt->ca_slot || t->family != pt->family ||
	    pt->p < t->p || pt->p > 256 ||
	    !(slot = malloc(((size_t)f->nport + 1) * sizeof(*slot))))
		return;
	/* KR_NONE for every CA port: the passes below give each its slot */
	for (uint32_t s = 0; s < f->nport; s++)
		slot[s] = KR_NONE;
	for (uint32_t u = 0; u < f->nsw; u++) {
		bool used[256] = { false };

		/* first the CAs on ports that held one, then the others on
		 * the lowest slots left */
		for (int pass = 0; pass < 2; pass++)
			for (unsigned port = 1; port <= f->nports[u]; port++) {
				int32_t ca = f->peer[f->port0[u] + port];
				uint32_t s = 0;

				if (ca < 0 || t->ca_slot[ca] == KR_NONE ||
				    slot[ca] != KR_NONE)
					continue;
				if (!pass) {
					s = slot_before(f, (uint32_t)ca, pf, pt);
					if (s >= pt->p || used[s])
						continue;
				} else {
					while (s < pt->p && used[s])
						s++;
					if (s == pt->p)
						goto out;	/* does not fit */
				}
				used[s] = true;
				slot[ca] = s;
			}
	}
	memcpy(t->ca_slot, slot, (size_t)f->nport * sizeof(*slot));
	t->p = pt->p;
out:
	free(slot);
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
