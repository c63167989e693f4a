/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The simulator's machinery: the event heap, the random numbers, the
 * packet pool and its queues, latency histograms. */
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>

/* Events in (time, insertion) order: a 4-ary heap, shallower than a binary
 * one for the few thousand events a fabric keeps pending. */
static bool ev_less(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_push(struct sim *s, uint64_t t, unsigned type, uint32_t a, uint32_t b)
{
	struct sim_ev e = { t, s->seq++, a, b, type };
	size_t i;

	if (s->nev == s->cap_ev) {
		size_t cap = s->cap_ev ? 2 * s->cap_ev : 1024;
		struct sim_ev *n = realloc(s->ev, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return KR_ENOMEM;
		}
		s->ev = n;
		s->cap_ev = cap;
	}
	i = s->nev++;
	while (i && ev_less(&e, &s->ev[(i - 1) / 4])) {
		s->ev[i] = s->ev[(i - 1) / 4];
		i = (i - 1) / 4;
	}
	s->ev[i] = e;
	return 0;
}

struct sim_ev sim_pop(struct sim *s)
{
	struct sim_ev top = s->ev[0], last = s->ev[--s->nev];
	size_t i = 0;

	for (;;) {
		size_t c = 4 * i + 1, best = c;

		if (c >= s->nev)
			break;
		for (size_t k = c + 1; k < c + 4 && k < s->nev; k++)
			if (ev_less(&s->ev[k], &s->ev[best]))
				best = k;
		if (!ev_less(&s->ev[best], &last))
			break;
		s->ev[i] = s->ev[best];
		i = best;
	}
	s->ev[i] = last;
	return top;
}

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64: the same
 * seed gives the same run on every platform. */
static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rand(struct sim *s)
{
	uint64_t *q = s->rng, res = rotl(q[1] * 5, 7) * 9, t = q[1] << 17;

	q[2] ^= q[0];
	q[3] ^= q[1];
	q[1] ^= q[2];
	q[0] ^= q[3];
	q[2] ^= t;
	q[3] = rotl(q[3], 45);
	return res;
}

double sim_rand01(struct sim *s)
{
	return (double)(sim_rand(s) >> 11) * 0x1.0p-53;
}

void sim_seed(struct sim *s, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		s->rng[i] = z ^ (z >> 31);
	}
}

/* Packets come from a free list threaded through `next`; the pool grows by
 * doubling and its indices stay valid. SIM_NIL when out of memory. */
uint32_t sim_pkt_new(struct sim *s)
{
	uint32_t p;

	if (s->free_pkt == SIM_NIL) {
		uint32_t cap = s->cap_pkt ? 2 * s->cap_pkt : 4096;
		struct sim_pkt *n;

		if (cap <= s->cap_pkt || !(n = realloc(s->pkt, (size_t)cap *
						       sizeof(*n))))
			return SIM_NIL;
		s->pkt = n;
		for (uint32_t i = s->cap_pkt; i < cap; i++)
			n[i].next = i + 1 < cap ? i + 1 : SIM_NIL;
		s->free_pkt = s->cap_pkt;
		s->cap_pkt = cap;
	}
	p = s->free_pkt;
	s->free_pkt = s->pkt[p].next;
	s->pkt[p].next = SIM_NIL;
	s->npkt++;
	return p;
}

void sim_pkt_free(struct sim *s, uint32_t p)
{
	s->pkt[p].next = s->free_pkt;
	s->free_pkt = p;
	s->npkt--;
}

void sim_q_push(struct sim *s, struct sim_q *q, uint32_t p)
{
	s->pkt[p].next = SIM_NIL;
	if (q->head == SIM_NIL)
		q->head = p;
	else
		s->pkt[q->tail].next = p;
	q->tail = p;
}

uint32_t sim_q_pop(struct sim *s, struct sim_q *q)
{
	uint32_t p = q->head;

	q->head = s->pkt[p].next;
	if (q->head == SIM_NIL)
		q->tail = SIM_NIL;
	return p;
}

/* An arbitration of slot at t, unless one is already due no later: the
 * earlier one re-arms itself for whatever it cannot serve yet (a busy link
 * or crossbar, a head not yet routed), and every other change (credits, a
 * free input, a new head) asks again. A failed
 * push leaves the run short of one wake-up, never inconsistent; the heap
 * only fails when memory is gone, which the main loop then reports. */
void sim_arb_at(struct sim *s, uint32_t slot, uint64_t t)
{
	if (t < s->now)
		t = s->now;
	/* without output queues nothing moves before the link is free */
	if (!s->oq && t < s->link_busy[slot])
		t = s->link_busy[slot];
	if (s->arb_at[slot] <= t && s->arb_at[slot] >= s->now)
		return;
	s->arb_at[slot] = t;
	sim_push(s, t, EV_ARB, slot, 0);
}

/* Log-linear buckets: exact below 4096 cycles, then 64 per power of two
 * (1.6% resolution), enough for a 99th percentile. */
unsigned sim_hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < 4096)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);	/* >= 12 */
	if (e >= 12 + 40)
		return SIM_HIST - 1;
	return 4096 + (e - 12) * 64 + (unsigned)((v >> (e - 6)) & 63);
}

static double bucket_value(unsigned b)
{
	unsigned e;

	if (b < 4096)
		return b;
	e = (b - 4096) / 64 + 12;
	return ldexp(64 + (b - 4096) % 64 + 0.5, (int)e - 6);
}

double sim_hist_quantile(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)n), seen = 0;

	if (!n)
		return 0;
	for (unsigned b = 0; b < SIM_HIST; b++) {
		seen += h[b];
		if (seen >= want)
			return bucket_value(b);
	}
	return bucket_value(SIM_HIST - 1);
}
