/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Hosts: who sends what to whom, and when.
 *
 * Hosts are the fabric's linked CA ports, indexed in LID order; patterns
 * that need positions use that index (a permutation of index bits or of
 * index digits). Each host generates packets by a Bernoulli process at the
 * offered load (a geometric gap between packets, so an idle host costs one
 * event per packet, not one per cycle) and queues them by their first-hop
 * VL. The papers give a host one admittance queue per destination so that
 * a blocked destination does not hold up the others; in a host the only
 * thing a packet waits for is the first link's credits on its VL, which
 * every destination on that VL shares, so one queue per VL in generation
 * order serves the same packets at the same times without per-pair state.
 * A queue holding host_queue packets refuses new ones (counted), which
 * keeps an overloaded run's memory bounded; the other queues go on, as a
 * host's queues for other destinations would. */
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>

static bool pow2(uint32_t n)
{
	return n && !(n & (n - 1));
}

static uint32_t bitrev(uint32_t i, unsigned bits)
{
	uint32_t r = 0;

	for (unsigned b = 0; b < bits; b++)
		r |= (i >> b & 1) << (bits - 1 - b);
	return r;
}

static uint32_t isqrt(uint32_t n)
{
	uint32_t r = (uint32_t)sqrt((double)n);

	while (r * r > n)
		r--;
	while ((r + 1) * (r + 1) <= n)
		r++;
	return r;
}

/* Fixed destinations of the permutation patterns into s->perm (which
 * must be NULL); a host mapped to itself sends nothing. */
int sim_make_perm(struct sim *s, struct kr_diag *d)
{
	uint32_t n = s->nhost, m = isqrt(n);
	unsigned pat = s->o->pattern;

	if ((pat == KR_SIM_BITREV) && !pow2(n))
		return kr_fail(d, KR_EINVAL, 0, "bitrev needs a power-of-two "
			       "CA count, not %u", n);
	if (pat == KR_SIM_TRANSPOSE && m * m != n)
		return kr_fail(d, KR_EINVAL, 0, "transpose needs a square CA "
			       "count, not %u", n);
	if (!(s->perm = malloc(n * sizeof(*s->perm))))
		return KR_ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		switch (pat) {
		case KR_SIM_BITREV:
			s->perm[i] = bitrev(i, kr_ceil_log2(n));
			break;
		case KR_SIM_TRANSPOSE:
			s->perm[i] = i % m * m + i / m;
			break;
		case KR_SIM_COMPLEMENT:
			s->perm[i] = n - 1 - i;
			break;
		case KR_SIM_TORNADO:
			s->perm[i] = (i + (n + 1) / 2 - 1) % n;
			break;
		case KR_SIM_SHIFT:
			s->perm[i] = (i + (s->o->shift ? s->o->shift : n / 2)) % n;
			break;
		default:
			s->perm[i] = i;
		}
	}
	for (uint32_t i = n - 1; pat == KR_SIM_RANDPERM && i > 0; i--) {
		uint32_t j = (uint32_t)(sim_rand(s) % (i + 1)), x = s->perm[i];

		s->perm[i] = s->perm[j];
		s->perm[j] = x;
	}
	return 0;
}

/* The hot host and hot_share of the others as its senders, drawn. */
static int make_hot(struct sim *s)
{
	uint32_t n = s->nhost, *order = malloc(n * sizeof(*order));
	uint32_t nhot = (uint32_t)lround(s->o->hot_share * n);

	s->is_hot = calloc(n, 1);
	if (!order || !s->is_hot) {
		free(order);
		return KR_ENOMEM;
	}
	s->hot = (uint32_t)(sim_rand(s) % n);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	order[s->hot] = n - 1;
	order[n - 1] = s->hot;
	if (nhot > n - 1)
		nhot = n - 1;
	for (uint32_t i = 0; i < nhot; i++) {	/* partial Fisher-Yates */
		uint32_t j = i + (uint32_t)(sim_rand(s) % (n - 1 - i)), x = order[i];

		order[i] = order[j];
		order[j] = x;
		s->is_hot[order[i]] = 1;
	}
	s->r->nhot = nhot;
	free(order);
	return 0;
}

static int make_zipf(struct sim *s)
{
	uint32_t n = s->nhost;
	double sum = 0;

	if (!(s->zipf_cdf = malloc(n * sizeof(*s->zipf_cdf))))
		return KR_ENOMEM;
	for (uint32_t r = 1; r < n; r++)
		s->zipf_cdf[r - 1] = sum += pow(r, -s->o->zipf_s);
	for (uint32_t r = 1; r < n; r++)
		s->zipf_cdf[r - 1] /= sum;
	s->zipf_key = sim_rand(s);
	return 0;
}

int sim_traffic_init(struct sim *s, struct kr_diag *d)
{
	unsigned pat = s->o->pattern;

	if (s->nhost < 2)
		return kr_fail(d, KR_EINVAL, 0, "%u CA ports with a LID and a "
			       "link: nothing to send", s->nhost);
	s->gen_p = s->o->load / s->o->pkt;
	if (pat >= KR_SIM_BITREV && pat <= KR_SIM_RANDPERM)
		return sim_make_perm(s, d);
	if (pat == KR_SIM_HOTSPOT)
		return make_hot(s);
	if (pat == KR_SIM_ZIPF)
		return make_zipf(s);
	if (pat == KR_SIM_ALLTOALL &&
	    !(s->a2a_next = calloc(s->nhost, sizeof(*s->a2a_next))))
		return KR_ENOMEM;
	return 0;
}

void sim_traffic_free(struct sim *s)
{
	free(s->perm);
	free(s->is_hot);
	free(s->zipf_cdf);
	free(s->a2a_next);
}

static uint32_t uniform_except(struct sim *s, uint32_t h, uint32_t x)
{
	uint32_t lo = h < x ? h : x, hi = h < x ? x : h;
	uint32_t d = (uint32_t)(sim_rand(s) % (s->nhost - (h == x ? 1 : 2)));

	if (d >= lo)
		d++;
	if (h != x && d >= hi)
		d++;
	return d;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Zipf: rank r with probability ~ r^-s; each source ranks the others by
 * its own affine bijection (a r + b mod n-1), drawn from a hash of the
 * seed and the source, so no ranking is stored. */
static uint32_t zipf_dest(struct sim *s, uint32_t h)
{
	uint32_t m = s->nhost - 1, lo = 0, hi = m - 1;
	double u = sim_rand01(s);
	uint64_t z = mix(s->zipf_key ^ (h * 0x9e3779b97f4a7c15ull));
	uint32_t a = (uint32_t)(z % m) + 1, b = (uint32_t)((z >> 32) % m);

	while (kr_gcd(a, m) != 1)
		a = a % m + 1;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (s->zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (h + 1 + (uint32_t)(((uint64_t)a * lo + b) % m)) % s->nhost;
}

/* The destination of h's next packet, SIM_NIL for none. */
static uint32_t pick_dest(struct sim *s, uint32_t h, bool *hot)
{
	*hot = false;
	switch (s->o->pattern) {
	case KR_SIM_UNIFORM:
		return uniform_except(s, h, h);
	case KR_SIM_HOTSPOT:
		if (h == s->hot)
			return uniform_except(s, h, h);
		if (s->is_hot[h] && s->now >= s->o->hot_start &&
		    (!s->o->hot_packets || s->hot_done < s->o->hot_packets)) {
			*hot = true;
			return s->hot;
		}
		return uniform_except(s, h, s->hot);
	case KR_SIM_ZIPF:
		return zipf_dest(s, h);
	case KR_SIM_ALLTOALL:
		if (s->a2a_next[h] + 1 >= s->nhost)
			return SIM_NIL;
		return (h + ++s->a2a_next[h]) % s->nhost;
	default:
		return s->perm[h] == h ? SIM_NIL : s->perm[h];
	}
}

static uint64_t next_gap(struct sim *s)
{
	double u = sim_rand01(s);

	if (s->gen_p >= 1)
		return 1;
	return 1 + (uint64_t)floor(log1p(-u) / log1p(-s->gen_p));
}

static void count_offer(struct sim *s, bool hot)
{
	if (s->now < s->o->warmup || s->now >= s->end)
		return;
	s->gen_flits += s->o->pkt;
	if (!hot)
		s->gen_cold_flits += s->o->pkt;
}

/* The first-hop VL of a packet from h to dlid on its path SL. */
static unsigned first_vl(const struct sim *s, uint32_t h, unsigned dlid,
			 unsigned *sl)
{
	const struct kr_fabric *f = s->f;
	uint32_t slot = s->host_slot[h];

	*sl = kr_tables_port_path_sl(f, s->t, f->lid[slot], dlid);
	return sim_queue(s, f->owner[slot], kr_port_num(f, slot),
			 kr_port_num(f, slot), *sl, dlid);
}

/* The DLID in dst's LMC range h sends to: each LID is a path (with
 * knsroute, a dimension order), so this is the host's choice of virtual
 * network. Least occupied compares h's queues of the paths' first VLs. */
static unsigned pick_dlid(struct sim *s, uint32_t h, uint32_t dst)
{
	uint32_t slot = s->host_slot[dst];
	unsigned base = s->f->lid[slot], n = 1u << s->f->lmc[slot], best = 0;
	uint32_t fewest = UINT32_MAX;

	if (n == 1 || s->o->lmc_path == KR_SIM_LMC_FIXED)
		return base;
	if (s->o->lmc_path == KR_SIM_LMC_RR)
		return base + s->lmc_rr[h]++ % n;
	for (unsigned off = 0; off < n; off++) {
		unsigned sl, vl = first_vl(s, h, base + off, &sl);
		uint32_t q = vl < s->nvl ? s->hq_vl[(size_t)h * s->nvl + vl]
					 : UINT32_MAX;

		if (q < fewest) {
			fewest = q;
			best = off;
		}
	}
	return base + best;
}

/* A new packet from h to host dst, into h's admittance queue. */
static void admit(struct sim *s, uint32_t h, uint32_t dst, bool hot)
{
	uint32_t slot = s->host_slot[h], p;
	unsigned dlid = pick_dlid(s, h, dst), sl, vl = first_vl(s, h, dlid, &sl);

	s->r->generated++;
	count_offer(s, hot);
	if (vl >= s->nvl) {	/* the CA's map sends it nowhere */
		s->r->injected++;
		s->r->dropped++;
		return;
	}
	/* a full queue refuses what would join it, not the other VLs' */
	if (s->hq_vl[(size_t)h * s->nvl + vl] >= s->o->host_queue) {
		s->r->refused++;
		return;
	}
	if ((p = sim_pkt_new(s)) == SIM_NIL) {
		s->oom = true;
		return;
	}
	s->pkt[p] = (struct sim_pkt){ .t_gen = s->now, .src = h,
				      .dlid = (uint16_t)dlid, .sl = (uint8_t)sl,
				      .vl = (uint16_t)vl, .hot = hot,
				      .next = SIM_NIL };
	s->r->injected++;
	sim_q_push(s, &s->hq[(size_t)h * s->nvl + vl], p);
	s->hq_vl[(size_t)h * s->nvl + vl]++;
	sim_arb_at(s, slot, s->now);
}

void sim_gen(struct sim *s, uint32_t h)
{
	bool hot;
	uint32_t dst = pick_dest(s, h, &hot);

	if (dst != SIM_NIL)
		admit(s, h, dst, hot);
	if (s->o->pattern != KR_SIM_ALLTOALL || dst != SIM_NIL)
		sim_push(s, s->now + next_gap(s), EV_GEN, h, 0);
}

/* h's port to the link: VL arbitration over its queues' heads that the
 * switch has room for. */
void sim_host_arb(struct sim *s, uint32_t h)
{
	uint32_t slot = s->host_slot[h], *best = s->best, p;
	int vl;

	if (s->link_busy[slot] > s->now) {
		sim_arb_at(s, slot, s->link_busy[slot]);
		return;
	}
	for (unsigned v = 0; v < s->nvl; v++) {
		uint32_t head = s->hq[(size_t)h * s->nvl + v].head;

		best[v] = head != SIM_NIL && s->credits[(size_t)slot * s->nvl + v]
			  >= (int32_t)s->o->pkt ? head : SIM_NIL;
	}
	vl = sim_vlarb_pick(s, slot, best);
	if (vl < 0)
		return;
	p = sim_q_pop(s, &s->hq[(size_t)h * s->nvl + vl]);
	s->hq_vl[(size_t)h * s->nvl + vl]--;
	s->pkt[p].t_inj = s->now;
	s->in_switches++;
	sim_send(s, slot, p, (unsigned)vl);
}
