/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Flow level: max-min fair rates along the LFT paths, for fabrics too big
 * to run packet by packet (up to the 48K-LID bound).
 *
 * Each flow follows the LFTs from its CA to its destination's base LID;
 * every link (a sending port slot) carries one unit. Progressive filling:
 * all unfrozen flows grow at one rate until a link runs full; that link's
 * flows freeze at the rate reached, and the rest grow on. The next link to
 * fill is the one with the least (1 - frozen rate) / (unfrozen flows), kept
 * in a heap whose stale entries a version number tells apart. Credits, VLs
 * and buffers play no part: this is the bound a perfect scheduler would
 * reach, which is what the effective bisection bandwidth measures. */
#include "kr_sim.h"

#include <stdlib.h>
#include <string.h>

#include "kr_io.h"
#include "sim_int.h"

struct flows {
	uint32_t n;		/* flows of the sample */
	uint32_t *path0;	/* [n+1] into link */
	uint32_t *link;		/* sending slots of each path */
	size_t nlink, cap_link;
	double *rate;		/* [n] */
	uint32_t *cnt;		/* [nport] unfrozen flows over each link */
	double *used;		/* [nport] rate of frozen flows */
	uint32_t *ver;		/* [nport] */
	uint32_t *lf0, *lflow;	/* flows over each link: CSR, [nport+1] */
	struct hent {
		double key;
		uint32_t link, ver;
	} *heap;
	size_t nheap, cap_heap;
};

static int add_link(struct flows *fl, uint32_t slot)
{
	if (fl->nlink == fl->cap_link) {
		size_t cap = fl->cap_link ? 2 * fl->cap_link : 4096;
		uint32_t *n = realloc(fl->link, cap * sizeof(*n));

		if (!n)
			return KR_ENOMEM;
		fl->link = n;
		fl->cap_link = cap;
	}
	fl->link[fl->nlink++] = slot;
	return 0;
}

/* The path of h -> dst along the LFTs; false when it does not arrive. */
static int add_path(const struct sim *s, struct flows *fl, uint32_t h,
		    uint32_t dst, bool *ok)
{
	const struct kr_fabric *f = s->f;
	uint32_t slot = s->host_slot[h], goal = s->host_slot[dst];
	unsigned dlid = f->lid[goal];
	size_t start = fl->nlink;

	*ok = false;
	/* a path that delivers visits a switch at most once */
	for (uint32_t hop = 0; hop <= f->nsw; hop++) {
		uint32_t in, node;
		unsigned out;

		if (add_link(fl, slot))
			return KR_ENOMEM;
		in = (uint32_t)f->peer[slot];
		node = f->owner[in];
		if (!kr_is_switch(f, node)) {
			*ok = in == goal;
			break;
		}
		out = kr_lft_port(s->t, node, dlid);
		if (out == 0 || out > f->nports[node] ||
		    f->peer[kr_port(f, node, out)] < 0)
			break;
		slot = kr_port(f, node, out);
	}
	if (!*ok)
		fl->nlink = start;	/* an undelivered flow takes nothing */
	return 0;
}

static int heap_push(struct flows *fl, uint32_t l)
{
	struct hent e = { (1 - fl->used[l]) / fl->cnt[l], l, fl->ver[l] };
	size_t i;

	if (fl->nheap == fl->cap_heap) {
		size_t cap = fl->cap_heap ? 2 * fl->cap_heap : 4096;
		struct hent *n = realloc(fl->heap, cap * sizeof(*n));

		if (!n)
			return KR_ENOMEM;
		fl->heap = n;
		fl->cap_heap = cap;
	}
	for (i = fl->nheap++; i && fl->heap[(i - 1) / 2].key > e.key;
	     i = (i - 1) / 2)
		fl->heap[i] = fl->heap[(i - 1) / 2];
	fl->heap[i] = e;
	return 0;
}

static struct hent heap_pop(struct flows *fl)
{
	struct hent top = fl->heap[0], last = fl->heap[--fl->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < fl->nheap) {
		if (c + 1 < fl->nheap && fl->heap[c + 1].key < fl->heap[c].key)
			c++;
		if (!(fl->heap[c].key < last.key))
			break;
		fl->heap[i] = fl->heap[c];
		i = c;
	}
	fl->heap[i] = last;
	return top;
}

/* Flows over each link, counted then placed (CSR). */
static void index_links(struct flows *fl, uint32_t nport)
{
	memset(fl->lf0, 0, (nport + 1) * sizeof(*fl->lf0));
	for (size_t i = 0; i < fl->nlink; i++)
		fl->lf0[fl->link[i] + 1]++;
	for (uint32_t l = 0; l < nport; l++)
		fl->lf0[l + 1] += fl->lf0[l];
	for (uint32_t l = 0; l < nport; l++)
		fl->cnt[l] = 0;
	for (uint32_t f = 0; f < fl->n; f++)
		for (uint32_t i = fl->path0[f]; i < fl->path0[f + 1]; i++)
			fl->lflow[fl->lf0[fl->link[i]] + fl->cnt[fl->link[i]]++] = f;
}

/* Progressive filling over the flows in fl; rate[] out. */
static int fill(struct flows *fl, uint32_t nport)
{
	index_links(fl, nport);
	fl->nheap = 0;
	for (uint32_t l = 0; l < nport; l++) {
		fl->used[l] = 0;
		fl->ver[l] = 0;
		if (fl->cnt[l] && heap_push(fl, l))
			return KR_ENOMEM;
	}
	for (uint32_t f = 0; f < fl->n; f++)
		fl->rate[f] = -1;	/* unfrozen */
	while (fl->nheap) {
		struct hent e = heap_pop(fl);

		if (e.ver != fl->ver[e.link] || !fl->cnt[e.link])
			continue;
		for (uint32_t i = fl->lf0[e.link]; i < fl->lf0[e.link + 1]; i++) {
			uint32_t f = fl->lflow[i];

			if (fl->rate[f] >= 0)
				continue;
			fl->rate[f] = e.key;
			for (uint32_t k = fl->path0[f]; k < fl->path0[f + 1]; k++) {
				uint32_t l = fl->link[k];

				fl->used[l] += e.key;
				fl->ver[l]++;
				if (--fl->cnt[l] && heap_push(fl, l))
					return KR_ENOMEM;
			}
		}
	}
	return 0;
}

/* The flows of one sample: host h to dst[h] (SIM_NIL: none). */
static int build(struct sim *s, struct flows *fl, const uint32_t *dst,
		 uint64_t *unrouted)
{
	fl->n = 0;
	fl->nlink = 0;
	for (uint32_t h = 0; h < s->nhost; h++) {
		bool ok;

		if (dst[h] == SIM_NIL || dst[h] == h)
			continue;
		fl->path0[fl->n] = (uint32_t)fl->nlink;
		if (add_path(s, fl, h, dst[h], &ok))
			return KR_ENOMEM;
		*unrouted += !ok;
		fl->n++;
	}
	fl->path0[fl->n] = (uint32_t)fl->nlink;
	return 0;
}

/* Sample i's destinations into s->perm: a shift phase of all-to-all, a
 * fresh random permutation, or the pattern's own permutation. */
static int sample_dests(struct sim *s, unsigned i, unsigned samples,
			struct kr_diag *d)
{
	const struct kr_sim_opts *o = s->o;
	struct kr_sim_opts po = *o;
	uint32_t n = s->nhost;
	int rc;

	free(s->perm);
	s->perm = NULL;
	if (o->pattern == KR_SIM_ALLTOALL) {
		uint32_t k = 1 + (uint32_t)((uint64_t)i * (n - 1) / samples);

		if (!(s->perm = malloc(n * sizeof(*s->perm))))
			return KR_ENOMEM;
		for (uint32_t h = 0; h < n; h++)
			s->perm[h] = (h + k) % n;
		return 0;
	}
	if (o->pattern == KR_SIM_UNIFORM)
		po.pattern = KR_SIM_RANDPERM;
	s->o = &po;
	rc = sim_make_perm(s, d);
	s->o = o;
	return rc;
}

static int alloc_flows(struct flows *fl, uint32_t nhost, uint32_t nport)
{
	fl->path0 = malloc((nhost + 1) * sizeof(*fl->path0));
	fl->rate = malloc(nhost * sizeof(*fl->rate));
	fl->cnt = malloc(nport * sizeof(*fl->cnt));
	fl->used = malloc(nport * sizeof(*fl->used));
	fl->ver = malloc(nport * sizeof(*fl->ver));
	fl->lf0 = malloc((nport + 1) * sizeof(*fl->lf0));
	return fl->path0 && fl->rate && fl->cnt && fl->used && fl->ver &&
	       fl->lf0 ? 0 : KR_ENOMEM;
}

static void free_flows(struct flows *fl)
{
	free(fl->path0);
	free(fl->link);
	free(fl->rate);
	free(fl->cnt);
	free(fl->used);
	free(fl->ver);
	free(fl->lf0);
	free(fl->lflow);
	free(fl->heap);
}

/* One sample: fill, then fold its rates into r. *slowest: its least
 * rate (0 when a flow is not delivered). */
static int one_sample(struct sim *s, struct flows *fl,
		      struct kr_sim_flow_result *r, double *sum,
		      double *slowest)
{
	uint32_t *nl;

	if (build(s, fl, s->perm, &r->unrouted))
		return KR_ENOMEM;
	if (!(nl = realloc(fl->lflow, (fl->nlink + 1) * sizeof(*nl))))
		return KR_ENOMEM;
	fl->lflow = nl;
	if (fill(fl, s->f->nport))
		return KR_ENOMEM;
	*slowest = fl->n ? 1 : 0;
	for (uint32_t f = 0; f < fl->n; f++) {
		double rt = fl->rate[f] < 0 ? 0 : fl->rate[f];

		*sum += rt;
		if (rt < *slowest)
			*slowest = rt;
		if (rt < r->rate_min)
			r->rate_min = rt;
	}
	r->flows += fl->n;
	return 0;
}

int kr_sim_flow_run(const struct kr_fabric *f, const struct kr_tables *t,
		    const struct kr_sim_opts *o, unsigned samples,
		    struct kr_sim_flow_result *r, struct kr_diag *d)
{
	struct kr_sim_result dummy = { 0 };
	struct sim s = { .f = f, .t = t, .o = o, .r = &dummy };
	struct flows fl = { 0 };
	double sum = 0, time = 0, slowest = 0;
	unsigned p = o->pattern;
	int rc;

	*r = (struct kr_sim_flow_result){ .rate_min = 1 };
	if (p == KR_SIM_HOTSPOT || p == KR_SIM_ZIPF)
		return kr_fail(d, KR_EINVAL, 0, "flow level takes uniform, "
			       "alltoall and the permutations, not %s",
			       kr_sim_pattern_name(p));
	sim_seed(&s, o->seed);
	rc = sim_find_hosts(&s);
	if (!rc && s.nhost < 2)
		rc = kr_fail(d, KR_EINVAL, 0, "fewer than 2 CAs");
	if (!rc)
		rc = alloc_flows(&fl, s.nhost, f->nport);
	if (p != KR_SIM_UNIFORM && p != KR_SIM_RANDPERM &&
	    p != KR_SIM_ALLTOALL)
		samples = 1;
	if (p == KR_SIM_ALLTOALL && samples > s.nhost - 1)
		samples = s.nhost - 1;
	for (unsigned i = 0; !rc && i < samples; i++) {
		rc = sample_dests(&s, i, samples, d);
		if (!rc)
			rc = one_sample(&s, &fl, r, &sum, &slowest);
		time += slowest > 0 ? 1 / slowest : 0;
		r->samples++;
	}
	r->nhost = s.nhost;
	r->rate_mean = r->flows ? sum / r->flows : 0;
	if (p == KR_SIM_ALLTOALL && time > 0)
		r->alltoall_efficiency = r->samples / time;
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory");
	free(s.perm);
	free(s.host_slot);
	free(s.host_of);
	free_flows(&fl);
	return rc;
}

int kr_sim_flow_write(FILE *out, const struct kr_sim_opts *o,
		      const struct kr_sim_flow_result *r, bool json)
{
	if (json) {
		fputc('{', out);
		kr_json_version(out);
		fprintf(out, ",\"mode\":\"flow\",\"pattern\":\"%s\",\"seed\":%llu,"
			"\"cas\":%u,\"samples\":%u,\"flows\":%llu,"
			"\"unrouted\":%llu,\"accepted\":%.6g,\"rate_min\":%.6g,"
			"\"alltoall_efficiency\":%.6g}\n",
			kr_sim_pattern_name(o->pattern),
			(unsigned long long)o->seed, r->nhost, r->samples,
			(unsigned long long)r->flows,
			(unsigned long long)r->unrouted, r->rate_mean,
			r->rate_min, r->alltoall_efficiency);
	} else {
		fprintf(out, "flow level, pattern %s, seed %llu: %u CAs, %u "
			"samples, %llu flows (%llu not delivered)\n"
			"max-min fair rate: mean %.6g%s, least %.6g of link "
			"rate\n", kr_sim_pattern_name(o->pattern),
			(unsigned long long)o->seed, r->nhost, r->samples,
			(unsigned long long)r->flows,
			(unsigned long long)r->unrouted, r->rate_mean,
			o->pattern == KR_SIM_UNIFORM ? " (the effective bisection "
			"bandwidth)" : "", r->rate_min);
	}
	if (!json && o->pattern == KR_SIM_ALLTOALL)
		fprintf(out, "alltoall: %.6g of the time at full link rate\n",
			r->alltoall_efficiency);
	return ferror(out) ? -1 : 0;
}
