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

bool kr_tables_pair_given(const struct kr_tables *t, unsigned slid,
			  unsigned dlid)
{
	return find_pair(t, slid, dlid) != NULL;
}

int kr_tables_init(struct kr_tables *t, const struct kr_fabric *f,
		   uint32_t stride, int with_sl2vl, int with_sl)
{
	*t = (struct kr_tables){ .nsw = f->nsw, .stride = stride };
	t->lft = malloc((size_t)f->nsw * stride + 1);
	if (!t->lft)
		return KR_ENOMEM;
	memset(t->lft, KR_NO_PORT, (size_t)f->nsw * stride);
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
	free(t->sl2vl_given);
	free(t->sl_given);
	*t = (struct kr_tables){ 0 };
}
