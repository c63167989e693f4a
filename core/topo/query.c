/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_topo.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

const char *kr_family_name(enum kr_family fam)
{
	switch (fam) {
	case KR_FAMILY_KNS:
		return "kns";
	case KR_FAMILY_TORUS:
		return "torus";
	case KR_FAMILY_MESH:
		return "mesh";
	case KR_FAMILY_MIKANT:
		return "mikant";
	case KR_FAMILY_NONE:
		break;
	}
	return "none";
}

uint32_t kr_mk_up_pos(const struct kr_topo *t, uint32_t pos, unsigned v)
{
	unsigned sd = t->ndim - 2, L = kr_mk_stage(t, pos);
	unsigned top = kr_mk_ndigit(t) - 1, j = L < top ? L : top;
	uint32_t moved = pos - kr_topo_coord(t, pos, j) * t->stride[j] +
			 v * t->stride[j];

	if (L < top)
		return moved + t->stride[sd];
	return kr_mk_group(t, pos) ? moved - t->stride[sd + 1]
				   : moved + t->stride[sd + 1];
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
	free(t->held);
	free(t->sw_stage);
	free(t->sw_order);
	free(t->sw_parent);
	free(t->sw_host);
	free(t->missing_link);
	free(t->missing_sw);
	free(t->report);
	*t = (struct kr_topo){ 0 };
}

/* The lowest slot below p that no CA of the switch took (used) and, when
 * there is one, that none of its CAs away holds (away); p when none. */
static unsigned free_slot(const bool *used, const bool *away, unsigned p)
{
	unsigned k, any = p;

	for (k = 0; k < p; k++) {
		if (used[k])
			continue;
		if (!away[k])
			return k;
		if (any == p)
			any = k;
	}
	return any;
}

int topo_take_slots(const struct kr_fabric *f, struct kr_topo *t,
		    const uint32_t *old, unsigned p)
{
	uint32_t nsp = f->port0[f->nsw], *slot, *held;

	if (!t->ca_slot || !t->held || p < t->p || p > 256)
		return KR_OK;
	slot = malloc(((size_t)f->nport + 1) * sizeof(*slot));
	held = malloc(((size_t)nsp + 1) * sizeof(*held));
	if (!slot || !held) {
		free(slot);
		free(held);
		return KR_ENOMEM;
	}
	memcpy(slot, t->ca_slot, (size_t)f->nport * sizeof(*slot));
	memset(held, 0xff, (size_t)nsp * sizeof(*held));
	for (uint32_t u = 0; u < f->nsw; u++) {
		bool used[256] = { false }, away[256] = { false };
		uint32_t s0 = f->port0[u], s1 = f->port0[u + 1];

		for (uint32_t s = s0 + 1; s < s1; s++)
			if (f->peer[s] < 0 && old[s] < p)
				away[old[s]] = true;
		/* first the CAs on ports that held a slot, then the others
		 * on the lowest free ones */
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t s = s0 + 1; s < s1; s++) {
				int32_t ca = f->peer[s];
				unsigned k;

				if (ca < 0 || t->ca_slot[ca] == KR_NONE ||
				    held[s] != KR_NONE)
					continue;
				if (!pass) {
					k = old[s];
					if (k >= p || used[k])
						continue;
				} else if ((k = free_slot(used, away, p)) == p) {
					free(slot);	/* does not fit */
					free(held);
					return KR_OK;
				}
				used[k] = true;
				slot[ca] = held[s] = k;
			}
		/* a port whose CA is away keeps its slot while no CA took it */
		for (uint32_t s = s0 + 1; s < s1; s++)
			if (f->peer[s] < 0 && old[s] < p && !used[old[s]]) {
				used[old[s]] = true;
				held[s] = old[s];
			}
	}
	free(t->ca_slot);
	free(t->held);
	t->ca_slot = slot;
	t->held = held;
	t->p = p;
	return KR_OK;
}

int kr_topo_keep_slots(const struct kr_fabric *f, struct kr_topo *t,
		       const struct kr_fabric *pf, const struct kr_topo *pt)
{
	uint32_t nsp = f->port0[f->nsw], *old;
	int rc;

	if (!t->held || !pt->held || t->family != pt->family)
		return KR_OK;
	if (!(old = malloc(((size_t)nsp + 1) * sizeof(*old))))
		return KR_ENOMEM;
	/* a switch pf lacks keeps what recognition gave it */
	memcpy(old, t->held, (size_t)nsp * sizeof(*old));
	for (uint32_t u = 0; u < f->nsw; u++) {
		uint32_t o = kr_node_by_guid(pf, f->guid[u]);

		if (o == KR_NONE || !kr_is_switch(pf, o))
			continue;
		for (unsigned port = 1; port <= f->nports[u]; port++)
			old[f->port0[u] + port] = port <= pf->nports[o] ?
				pt->held[pf->port0[o] + port] : KR_NONE;
	}
	rc = topo_take_slots(f, t, old, pt->p);
	free(old);
	return rc;
}

const char *kr_dim_name(unsigned d, char *buf, size_t len)
{
	if (d < 3)
		snprintf(buf, len, "%c", "xyz"[d]);
	else
		snprintf(buf, len, "d%u", d);
	return buf;
}

unsigned kr_topo_vls(const struct kr_fabric *f, const struct kr_topo *t,
		     unsigned def)
{
	unsigned v = def;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)	/* switches' */
		if (f->peer[s] >= 0 && !kr_topo_loop_free_link(f, t, s) &&
		    f->oper_vls[s] && f->oper_vls[s] < v)
			v = f->oper_vls[s];
	return v > 15 ? 15 : v;
}

void kr_topo_describe(char *buf, size_t len, const struct kr_fabric *f,
		      const struct kr_topo *t)
{
	uint32_t nxbar = 0, ngrid = 0;
	size_t n = 0;
	char nm[16], pend[40] = "";

	for (uint32_t s = 0; s < f->nsw; s++) {
		nxbar += t->sw_xdim && t->sw_xdim[s] != KR_NO_DIM;
		ngrid += t->sw_pos && t->sw_pos[s] != KR_NONE;
	}
	if (t->npendant)
		snprintf(pend, sizeof(pend), "%u pendant switch%s, ",
			 t->npendant, t->npendant == 1 ? "" : "es");
	if (t->family == KR_FAMILY_KNS && t->s > 1) {
		snprintf(buf, len, "KNS %u-ary %u-direct %u-indirect (fat-tree "
			 "subnets of radix %u), p=%u: %u routers, %u subnet "
			 "switches, %s%u CAs", t->k[0], t->ndim, t->s,
			 2 * t->arity, t->p, ngrid, nxbar, pend,
			 f->nnode - f->nsw);
		return;
	}
	if (t->family == KR_FAMILY_KNS) {
		snprintf(buf, len, "KNS %u-ary %u-direct 1-indirect, p=%u: %u "
			 "routers, %u crossbars, %s%u CAs", t->k[0], t->ndim,
			 t->p, ngrid, nxbar, pend, f->nnode - f->nsw);
		return;
	}
	if (t->family == KR_FAMILY_MIKANT) {
		snprintf(buf, len, "MiKANT(k=%u, n=%u), 2 groups x %u stage%s x "
			 "%u switches of radix %u, p=%u: %u switches, %s%u CAs",
			 t->k[0], t->ndim - 1, t->ndim - 2,
			 t->ndim == 3 ? "" : "s",
			 t->npos / (2 * (t->ndim - 2)), 2 * t->k[0], t->p, ngrid,
			 pend, f->nnode - f->nsw);
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
			 "%s%u CAs", t->p, t->parallel, ngrid, pend,
			 f->nnode - f->nsw);
}
