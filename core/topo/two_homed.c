/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Two-homed leaf switches: leaves with a cable to each of two grid switches
 * (redundant uplinks), which no peeling finds; tried group by group as
 * pendants of one neighbour. */
#include "kr_topo.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kr_conf.h"
#include "topo_int.h"

/* Leaf switches with a cable to each of two switches (redundant uplinks)
 * reach the rest through two: no peeling finds them. Nor does their
 * degree alone: a KNS router of two dimensions, a ring's switch and a
 * mesh corner have two neighbours as well. What sets such a leaf apart is
 * its neighbours: grid switches with a cable more than their kind has.
 * So the switches of two neighbours are grouped by their neighbours'
 * degrees, and the rarest groups are tried, whole, while they hold at
 * most two_homed_tries() switches: each in turn hangs off its neighbour
 * of lower GUID, its cable to the other left unused, and stays when the
 * core reads better than before. */

/* Each try reads the core anew: at least 8 of them, more while they come
 * to 1024 switches read (a small fabric with faults has many small groups
 * of switches alike; an 8-ary 2-D KNS with three links down, 80 switches,
 * is recognised in 1.5 ms, and 12 tries of no avail add 2.7). */
static uint32_t two_homed_tries(const struct kr_fabric *f)
{
	uint32_t by_work = 1024 / (f->nsw ? f->nsw : 1);

	return by_work > 8 ? by_work : 8;
}

struct two_cand {
	uint64_t guid;
	uint32_t v;
	uint32_t sig;		/* its neighbours' degrees, lower first */
	uint32_t nsig;		/* switches of two neighbours with that sig */
};

static int by_sig(const void *a, const void *b)
{
	const struct two_cand *x = a, *y = b;

	return x->sig != y->sig ? (x->sig > y->sig) - (x->sig < y->sig)
				: (x->guid > y->guid) - (x->guid < y->guid);
}

/* Groups kept together: rarest first, then by_sig. */
static int by_rarity(const void *a, const void *b)
{
	const struct two_cand *x = a, *y = b;

	return x->nsig != y->nsig ? (x->nsig > y->nsig) - (x->nsig < y->nsig)
				  : by_sig(a, b);
}

/* Cables between switches. */
static uint64_t switch_links(const struct kr_fabric *f)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)
		n += f->peer[s] >= 0 && kr_is_switch(f, f->owner[f->peer[s]]);
	return n / 2;
}

/* The switches of two neighbours worth trying as two-homed leaves, into
 * cand (room for two_homed_tries()); how many. -1 when out of memory. */
static int two_homed_candidates(const struct kr_fabric *f,
				const uint32_t *parent, const uint32_t *deg,
				uint32_t *cand)
{
	struct two_cand *c = malloc(((size_t)f->nsw + 1) * sizeof(*c));
	uint32_t n = 0, picked = 0, tries = two_homed_tries(f);

	if (!c)
		return -1;
	for (uint32_t v = 0; v < f->nsw; v++) {
		uint32_t nb[2] = { KR_NONE, KR_NONE }, k = 0, lo, hi;

		/* a leaf is there for its hosts: a switch without CAs (a fat
		 * tree's spine) is none */
		if (parent[v] != KR_NONE || deg[v] != 2 || !pendant_ca_links(f, v))
			continue;
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
			uint32_t u = f->peer[s] < 0 ? v : f->owner[f->peer[s]];

			if (u != v && kr_is_switch(f, u) &&
			    parent[u] == KR_NONE && u != nb[0] && k < 2)
				nb[k++] = u;
		}
		lo = deg[nb[0]] < deg[nb[1]] ? deg[nb[0]] : deg[nb[1]];
		hi = deg[nb[0]] < deg[nb[1]] ? deg[nb[1]] : deg[nb[0]];
		c[n++] = (struct two_cand){ f->guid[v], v,
					    (lo > 0xffff ? 0xffff : lo) << 16 |
					    (hi > 0xffff ? 0xffff : hi), 0 };
	}
	qsort(c, n, sizeof(*c), by_sig);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && c[j].sig == c[i].sig; j++)
			;
		for (uint32_t m = i; m < j; m++)
			c[m].nsig = j - i;
	}
	/* whole groups, rarest first: which of a group would be arbitrary */
	qsort(c, n, sizeof(*c), by_rarity);
	while (picked < n && picked + c[picked].nsig <= tries)
		for (uint32_t end = picked + c[picked].nsig; picked < end;
		     picked++)
			cand[picked] = c[picked].v;
	free(c);
	return (int)picked;
}

int pendant_two_homed(const struct kr_fabric *f, const struct kr_conf *c,
		      uint32_t *parent, uint32_t *npeeled, uint64_t *score,
		      struct kr_fabric *core, struct kr_topo *ct)
{
	size_t size = ((size_t)f->nsw + 1) * sizeof(uint32_t);
	uint32_t *deg = malloc(size), *stamp = malloc(size);
	uint32_t *before = malloc(size), strays = 0;
	uint32_t *cand = malloc(two_homed_tries(f) * sizeof(*cand));
	/* each leaf leaves a cable unused: as with stray cables, more than
	 * one link in eight means the reading is wrong (three leaves on two
	 * spines are a fat tree, not a 4-ring with a leaf) */
	uint64_t max_strays = switch_links(f) / 8;
	uint64_t was;
	int rc = KR_ETOPO, taken = KR_ETOPO, ncand;

	if (!deg || !stamp || !before || !cand) {
		rc = KR_ENOMEM;
		goto out;
	}
	pendant_switch_degrees(f, parent, deg, stamp);
	ncand = two_homed_candidates(f, parent, deg, cand);
	if (ncand < 0) {
		rc = KR_ENOMEM;
		goto out;
	}
	for (int i = 0; i < ncand; i++) {
		uint32_t v = cand[i], up = KR_NONE, n = *npeeled + 1;
		struct kr_fabric core2;
		struct kr_topo ct2;

		if (strays >= max_strays)
			break;

		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
			uint32_t u = f->peer[s] < 0 ? v : f->owner[f->peer[s]];

			if (u != v && kr_is_switch(f, u) && parent[u] == KR_NONE &&
			    (up == KR_NONE || f->guid[u] < f->guid[up]))
				up = u;
		}
		memcpy(before, parent, size);	/* judge may un-peel some */
		parent[v] = up;
		was = *score;
		rc = pendant_judge(f, c, parent, &n, strays + 1, score, &core2, &ct2);
		if (rc == KR_ENOMEM)
			goto out;
		/* with switches missing too, small graphs fit a grid in many
		 * ways: five leaves on three spines, one leaf hanging off, read
		 * as a 3x3 mesh with two switches missing */
		if (!rc && (ct2.nmissing_sw || ct2.nmissing_subsw)) {
			kr_topo_free(&ct2);
			kr_fabric_free(&core2);
			*score = was;
			rc = KR_ETOPO;
		}
		if (rc) {
			memcpy(parent, before, size);
			continue;
		}
		kr_topo_free(ct);	/* the reading this one beats */
		kr_fabric_free(core);
		*core = core2;
		*ct = ct2;
		*npeeled = n;
		strays++;
		taken = KR_OK;
	}
	rc = taken;
out:
	free(deg);
	free(stamp);
	free(before);
	free(cand);
	return rc;
}
