/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "kr_tables.h"

#include <stdlib.h>
#include <string.h>

static uint32_t node_maps(const struct kr_fabric *f, uint32_t n)
{
	uint32_t np = f->nports[n] + 1u;

	return kr_is_switch(f, n) ? np * np : np;
}

static uint32_t map_index(const struct kr_fabric *f, const struct kr_tables *t,
			  uint32_t node, unsigned in, unsigned out)
{
	uint32_t np = f->nports[node] + 1u;

	if (kr_is_switch(f, node))
		return t->sl2vl_base[node] + out * np + in;
	return t->sl2vl_base[node] + out;
}

uint64_t kr_tables_sl2vl(const struct kr_fabric *f, const struct kr_tables *t,
			 uint32_t node, unsigned in, unsigned out)
{
	if (!t->sl2vl || in > f->nports[node] || out > f->nports[node])
		return 0;
	return t->sl2vl[map_index(f, t, node, in, out)];
}

bool kr_tables_sl2vl_given(const struct kr_fabric *f, const struct kr_tables *t,
			   uint32_t node, unsigned in, unsigned out)
{
	if (!t->sl2vl_given || in > f->nports[node] || out > f->nports[node])
		return !t->sl2vl_given;
	return t->sl2vl_given[map_index(f, t, node, in, out)];
}

uint64_t *kr_tables_sl2vl_ref(const struct kr_fabric *f, struct kr_tables *t,
			      uint32_t node, unsigned in, unsigned out)
{
	if (!t->sl2vl || in > f->nports[node] || out > f->nports[node])
		return NULL;
	return &t->sl2vl[map_index(f, t, node, in, out)];
}

static int pair_cmp(const void *a, const void *b)
{
	const struct kr_sl_pair *x = a, *y = b;

	if (x->slid != y->slid)
		return x->slid < y->slid ? -1 : 1;
	return (x->dlid > y->dlid) - (x->dlid < y->dlid);
}

static const struct kr_sl_pair *find_pair(const struct kr_tables *t,
					  unsigned slid, unsigned dlid)
{
	struct kr_sl_pair key = { .slid = (uint16_t)slid,
				  .dlid = (uint16_t)dlid };

	if (!t->npair_sl)
		return NULL;
	return bsearch(&key, t->pair_sl, t->npair_sl, sizeof(key), pair_cmp);
}

unsigned kr_tables_path_sl(const struct kr_tables *t, unsigned slid,
			   unsigned dlid)
{
	const struct kr_sl_pair *hit = find_pair(t, slid, dlid);

	if (hit)
		return hit->sl;
	if (t->dlid_sl && dlid < t->stride)
		return t->dlid_sl[dlid];
	return 0;
}

unsigned kr_tables_port_path_sl(const struct kr_fabric *f,
				const struct kr_tables *t, unsigned slid,
				unsigned dlid)
{
	uint32_t slot = kr_port_by_lid(f, slid);

	return kr_tables_path_sl(t, slot != KR_NONE ? f->lid[slot] : slid,
				 dlid);
}

bool kr_tables_pair_given(const struct kr_tables *t, unsigned slid,
			  unsigned dlid)
{
	return find_pair(t, slid, dlid) != NULL;
}

int kr_tables_init_unset(struct kr_tables *t, const struct kr_fabric *f,
			 uint32_t stride, int with_sl2vl, int with_sl)
{
	*t = (struct kr_tables){ .nsw = f->nsw, .stride = stride };
	t->lft = malloc((size_t)f->nsw * stride + 1);
	if (!t->lft)
		return KR_ENOMEM;
	if (with_sl2vl) {
		t->sl2vl_base = malloc((f->nnode + 1) * sizeof(*t->sl2vl_base));
		if (!t->sl2vl_base)
			goto oom;
		t->sl2vl_base[0] = 0;
		for (uint32_t n = 0; n < f->nnode; n++)
			t->sl2vl_base[n + 1] = t->sl2vl_base[n] + node_maps(f, n);
		t->sl2vl = calloc(t->sl2vl_base[f->nnode] + 1, sizeof(*t->sl2vl));
		if (!t->sl2vl)
			goto oom;
	}
	if (with_sl) {
		t->dlid_sl = calloc(stride + 1, 1);
		if (!t->dlid_sl)
			goto oom;
	}
	return KR_OK;
oom:
	kr_tables_free(t);
	return KR_ENOMEM;
}

int kr_tables_init(struct kr_tables *t, const struct kr_fabric *f,
		   uint32_t stride, int with_sl2vl, int with_sl)
{
	int rc = kr_tables_init_unset(t, f, stride, with_sl2vl, with_sl);

	if (!rc)
		memset(t->lft, KR_NO_PORT, (size_t)f->nsw * stride);
	return rc;
}

int kr_tables_sort_pairs(struct kr_tables *t, struct kr_diag *d)
{
	size_t out = 0;

	if (!t->npair_sl)
		return KR_OK;
	qsort(t->pair_sl, t->npair_sl, sizeof(*t->pair_sl), pair_cmp);
	for (size_t i = 0; i < t->npair_sl; i++) {
		if (out && !pair_cmp(&t->pair_sl[out - 1], &t->pair_sl[i])) {
			if (t->pair_sl[out - 1].sl != t->pair_sl[i].sl)
				return kr_fail(d, KR_EPARSE, 0,
					       "SL of LID %u -> LID %u given as "
					       "%u and %u", t->pair_sl[i].slid,
					       t->pair_sl[i].dlid,
					       t->pair_sl[out - 1].sl,
					       t->pair_sl[i].sl);
			continue;
		}
		t->pair_sl[out++] = t->pair_sl[i];
	}
	t->npair_sl = out;
	return KR_OK;
}

size_t kr_tables_pairs_differ(const struct kr_tables *a,
			      const struct kr_tables *b, uint8_t *dlids)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->npair_sl || j < b->npair_sl) {
		const struct kr_sl_pair *x = i < a->npair_sl ? &a->pair_sl[i] : NULL;
		const struct kr_sl_pair *y = j < b->npair_sl ? &b->pair_sl[j] : NULL;
		uint32_t kx = x ? (uint32_t)x->slid << 16 | x->dlid : UINT32_MAX;
		uint32_t ky = y ? (uint32_t)y->slid << 16 | y->dlid : UINT32_MAX;

		if (kx != ky || x->sl != y->sl) {
			n++;
			if (dlids)
				dlids[kx < ky ? x->dlid : y->dlid] = 1;
		}
		i += kx <= ky;
		j += ky <= kx;
	}
	return n;
}

int kr_tables_assume(struct kr_tables *t, const struct kr_fabric *f)
{
	if (!t->sl2vl) {
		struct kr_tables tmp;

		if (kr_tables_init(&tmp, f, 0, 1, 0))
			return KR_ENOMEM;
		t->sl2vl_base = tmp.sl2vl_base;
		t->sl2vl = tmp.sl2vl;
		free(tmp.lft);
		t->sl2vl_given = calloc((size_t)t->sl2vl_base[f->nnode] + 1, 1);
		if (!t->sl2vl_given)
			return KR_ENOMEM;
	}
	if (!t->dlid_sl) {
		t->dlid_sl = calloc((size_t)t->stride + 1, 1);
		t->sl_given = calloc((size_t)t->stride + 1, 1);
		if (!t->dlid_sl || !t->sl_given)
			return KR_ENOMEM;
	}
	return KR_OK;
}

#define HOPS_BUSY 0xfe	/* sw_hop: on the way, its switch follows */

/* One step from sw towards lid: the count when the step ends the walk
 * (KR_NO_PORT if it ends undelivered), else HOPS_BUSY and *next. */
static uint8_t sw_hop(const struct kr_fabric *f, const struct kr_tables *t,
		      uint32_t sw, unsigned lid, uint32_t dst, uint32_t *next)
{
	unsigned port = kr_lft_port(t, sw, lid);
	int32_t peer;

	if (port > f->nports[sw])
		return KR_NO_PORT;
	if (port == 0)
		return dst == f->port0[sw] ? 0 : KR_NO_PORT;
	peer = f->peer[f->port0[sw] + port];
	if (peer < 0)
		return KR_NO_PORT;
	if (!kr_is_switch(f, f->owner[peer]))
		return (uint32_t)peer == dst ? 1 : KR_NO_PORT;
	*next = f->owner[peer];
	return HOPS_BUSY;
}

/* Per LID, each switch's walk stops at the first switch already counted,
 * so a column costs one step per switch. state: 0 not seen, 1 on the
 * current walk (meeting it again is a loop), 2 counted. */
int kr_tables_hops(const struct kr_fabric *f, const struct kr_tables *t,
		   uint8_t *hops)
{
	uint8_t *state = malloc((size_t)f->nsw + 1);
	uint32_t *stack = malloc(((size_t)f->nsw + 1) * sizeof(*stack));

	if (!state || !stack) {
		free(state);
		free(stack);
		return KR_ENOMEM;
	}
	for (unsigned lid = 0; lid < t->stride; lid++) {
		uint32_t dst = lid ? kr_port_by_lid(f, lid) : KR_NONE;

		memset(state, 0, f->nsw);
		for (uint32_t s = 0; dst == KR_NONE && s < f->nsw; s++)
			hops[(size_t)s * t->stride + lid] = KR_NO_PORT;
		for (uint32_t s = 0; dst != KR_NONE && s < f->nsw; s++) {
			uint32_t sw = s, n = 0, next = KR_NONE;
			uint8_t h;

			while (!state[sw]) {
				state[sw] = 1;
				stack[n++] = sw;
				h = sw_hop(f, t, sw, lid, dst, &next);
				if (h != HOPS_BUSY) {
					hops[(size_t)stack[--n] * t->stride + lid] = h;
					state[sw] = 2;
					break;
				}
				sw = next;
			}
			h = state[sw] == 1 ? KR_NO_PORT	/* a loop */
					   : hops[(size_t)sw * t->stride + lid];
			while (n--) {
				h = h >= 254 ? KR_NO_PORT : h + 1;
				hops[(size_t)stack[n] * t->stride + lid] = h;
				state[stack[n]] = 2;
			}
		}
	}
	free(state);
	free(stack);
	return KR_OK;
}

static void apply_fixes(struct kr_tables *t, const struct kr_lft_fix *fix,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		t->lft[(size_t)fix[i].sw * t->stride + fix[i].lid] = fix[i].port;
}

int kr_tables_refill(struct kr_tables *t, const struct kr_tables *routed)
{
	size_t n = (size_t)routed->nsw * routed->stride;

	if (routed->nsw != t->nsw || routed->stride != t->stride)
		return KR_EINVAL;
	free(t->lft);
	if (!(t->lft = malloc(n + 1)))
		return KR_ENOMEM;
	memcpy(t->lft, routed->lft, n);
	apply_fixes(t, t->fixes, t->nfixes);
	return KR_OK;
}

int kr_tables_patch(struct kr_tables *t, struct kr_tables_patch *p)
{
	apply_fixes(t, p->fixes, p->nfixes);
	if (p->dlid_sl && t->dlid_sl)
		memcpy(t->dlid_sl, p->dlid_sl, t->stride);
	free(t->pair_sl);
	free(t->repaired);
	free(t->fixes);
	t->pair_sl = p->pair_sl;
	t->npair_sl = p->npair_sl;
	t->repaired = p->repaired;
	t->nrepaired = p->nrepaired;
	t->fixes = p->fixes;
	t->nfixes = p->nfixes;
	t->repair_pass = p->repair_pass;
	free(p->dlid_sl);
	*p = (struct kr_tables_patch){ 0 };
	return kr_tables_sort_pairs(t, NULL);
}

void kr_tables_patch_free(struct kr_tables_patch *p)
{
	free(p->dlid_sl);
	free(p->pair_sl);
	free(p->repaired);
	free(p->fixes);
	*p = (struct kr_tables_patch){ 0 };
}

void kr_tables_free(struct kr_tables *t)
{
	for (size_t i = 0; i < t->nmgroup; i++)
		free(t->mgroup[i].ports);
	free(t->mgroup);
	free(t->lft);
	free(t->sl2vl_base);
	free(t->sl2vl);
	free(t->dlid_sl);
	free(t->pair_sl);
	free(t->repaired);
	free(t->fixes);
	free(t->lft_given);
	free(t->mft_given);
	free(t->sl2vl_given);
	free(t->sl_given);
	*t = (struct kr_tables){ 0 };
}
