/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Dimension orders: how many the SLs and VLs allow (one per LMC offset, at
 * most ndim!), and which order each offset takes. */
#include "kr_route.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_budget.h"
#include "route_int.h"

static unsigned factorial(unsigned n)
{
	unsigned r = 1;

	while (n > 1)
		r *= n--;
	return r;
}

static int next_perm(unsigned *a, unsigned n)
{
	int i = (int)n - 2, j = (int)n - 1;

	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (a[j] <= a[i])
		j--;
	unsigned tmp = a[i];

	a[i] = a[j];
	a[j] = tmp;
	for (unsigned l = (unsigned)i + 1, r = n - 1; l < r; l++, r--) {
		tmp = a[l];
		a[l] = a[r];
		a[r] = tmp;
	}
	return 1;
}

/* Position permutation number j in the documented sequence: identity,
 * first two swapped, then the rest lexicographically. */
static void nth_perm(unsigned n, unsigned j, unsigned *perm)
{
	unsigned skipped = 0;

	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	j %= factorial(n);
	if (j == 1 && n >= 2) {
		perm[0] = 1;
		perm[1] = 0;
		return;
	}
	while (j > 1 && next_perm(perm, n)) {
		if (n >= 2 && perm[0] == 1 && perm[1] == 0 && !skipped) {
			int rest_sorted = 1;

			for (unsigned i = 2; i + 1 < n; i++)
				rest_sorted &= perm[i] < perm[i + 1];
			if (rest_sorted) {
				skipped = 1;
				continue;
			}
		}
		j--;
	}
}

void kr_route_order(const struct kr_topo *topo, const struct kr_conf *c,
		    unsigned j, unsigned *order)
{
	unsigned base[KR_MAX_DIM], perm[KR_MAX_DIM], n = topo->ndim;

	for (unsigned i = 0; i < n; i++)
		base[i] = c && c->norder == n ? c->order[i] : i;
	nth_perm(n, j, perm);
	for (unsigned i = 0; i < n; i++)
		order[i] = base[perm[i]];
}

const char *kr_route_host_hint(const struct kr_fabric *f,
			       const struct kr_topo *topo,
			       const struct kr_conf *c, char *buf, size_t len)
{
	unsigned order[KR_MAX_DIM], dims = 0, late = KR_NO_DIM;
	uint32_t host = KR_NONE, xbar = KR_NONE;

	buf[0] = '\0';
	if (topo->family != KR_FAMILY_KNS || !topo->sw_xdim)
		return buf;
	kr_route_order(topo, c, 0, order);
	for (uint32_t s = 0; s < f->port0[f->nsw]; s++) {
		unsigned d;

		if (!kr_topo_xbar_host(f, topo, s))
			continue;
		d = topo->sw_xdim[f->owner[s]];
		dims |= 1u << d;
		if (d != order[0] && late == KR_NO_DIM) {
			late = d;
			host = f->owner[f->peer[s]];
			xbar = f->owner[s];
		}
	}
	if (late == KR_NO_DIM)
		return buf;
	snprintf(buf, len, "; hosts hang off crossbars%s (\"%s\" off \"%s\", "
		 "dimension %u): their packets to switches turn against the "
		 "dimension order after their first hop, unless knsroute.conf's "
		 "order puts their crossbars' dimension first%s",
		 dims & (dims - 1) ? " of several dimensions" : "",
		 kr_node_name(f, host), kr_node_name(f, xbar), late,
		 dims & (dims - 1) ? " (possible only when they share one)" : "");
	return buf;
}

unsigned kr_route_norders(const struct kr_fabric *f, const struct kr_topo *topo,
			  const struct kr_conf *c, unsigned *wanted)
{
	struct kr_budget b;
	unsigned lmc = 0, n, least;

	if (topo->family == KR_FAMILY_MIKANT) {
		/* every LID offset climbs, crosses and descends alike: one
		 * network, whose proof covers them all (mikant.c) */
		if (wanted)
			*wanted = 1;
		return 1;
	}
	for (uint32_t s = 0; s < f->nport; s++)
		if (f->lid[s] && f->lmc[s] > lmc)
			lmc = f->lmc[s];
	n = factorial(topo->ndim);
	n = (1u << lmc) < n ? 1u << lmc : n;
	if (wanted)
		*wanted = n;
	least = c && c->classify == KR_CLASSIFY_DBBQ && n > 1 ? 2 : 1;
	kr_budget_init(&b, f, topo, c);
	while (n > least && !kr_budget_orders_fit(&b, n))
		n--;
	return n;
}
