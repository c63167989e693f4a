/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Switches: input buffers, output arbitration, links.
 *
 * A packet's head reaches an input buffer (one FIFO per input port and VL,
 * or with --voq one queue per output inside it), is routed on the LFT and
 * requests its output once the routing delay has passed. An output serves
 * a request when the link is free, the input's read port is free (an
 * input feeds one output at a time) and the next buffer holds a whole
 * packet more (credits, virtual cut-through). Only a queue's head can
 * request: a head waiting for a busy output blocks the packets behind it,
 * which is all head-of-line blocking is. Among the requests an output
 * picks the VL by VL arbitration and the input round-robin. With output
 * queues the crossbar moves packets into a queue per (output, VL), at the
 * speed-up, and the link serves those queues instead. */
#include "sim_int.h"

static unsigned pkt_credits(const struct sim *s)
{
	return s->o->pkt;
}

/* The queue a packet takes on a hop: its VL from the hop's SL2VL map, or
 * in VOQnet its destination's own. */
unsigned sim_queue(const struct sim *s, uint32_t node, unsigned in,
		   unsigned out, unsigned sl, unsigned dlid)
{
	if (s->voqnet)
		return s->host_of[kr_port_by_lid(s->f, dlid)];
	if (s->bubble)		/* the adaptive VL; outputs choose later */
		return 0;
	return kr_map_vl(kr_tables_sl2vl(s->f, s->t, node, in, out), sl);
}

static void req_set(struct sim *s, uint32_t o, unsigned bit)
{
	s->req[(size_t)o * s->words + bit / 64] |= 1ull << (bit % 64);
}

static void req_clear(struct sim *s, uint32_t o, unsigned bit)
{
	s->req[(size_t)o * s->words + bit / 64] &= ~(1ull << (bit % 64));
}

static struct sim_q *in_queue(struct sim *s, uint32_t slot, unsigned vl,
			      unsigned out)
{
	size_t c = (size_t)slot * s->nvl + vl;

	return s->voq ? &s->voq[c * s->maxp + out] : &s->inq[c];
}

/* Credits go back upstream when the tail leaves a buffer. */
static void credit_back(struct sim *s, uint32_t slot, unsigned vl,
			uint64_t tail_out)
{
	uint32_t up = (uint32_t)s->f->peer[slot];

	s->inq_used[(size_t)slot * s->nvl + vl] -= pkt_credits(s);
	sim_push(s, tail_out + s->o->latency, EV_CREDIT, up, vl);
}

/* Whether a packet may leave its switch by port out on vl: a link there,
 * a data VL the buffers have. Anything else is what `check` reports as
 * undelivered; here the switch drops it, as it drops a packet that has
 * passed more switches than there are (a forwarding loop). */
static bool route_ok(const struct sim *s, uint32_t node, unsigned out,
		     unsigned vl)
{
	return out != KR_NO_PORT && out >= 1 && out <= s->f->nports[node] &&
	       s->f->peer[kr_port(s->f, node, out)] >= 0 && vl < s->nvl;
}

/* Sets or clears the request of the head of FIFO (islot, v) at every
 * output it may take: its LFT port, or the bubble router's candidates;
 * with wake, those outputs arbitrate once it is ready. */
static void head_requests(struct sim *s, uint32_t islot, unsigned v,
			  bool set, bool wake)
{
	const struct kr_fabric *f = s->f;
	uint32_t node = f->owner[islot], h = s->inq[(size_t)islot * s->nvl + v].head;
	unsigned in = kr_port_num(f, islot), n = 1;
	struct sim_cand c[SIM_MAX_CANDS];

	if (h == SIM_NIL)
		return;
	if (s->bubble)
		n = sim_bubble_cands(s, node, in, &s->pkt[h], c);
	else
		c[0].out = s->pkt[h].out;
	for (unsigned i = 0; i < n; i++) {
		uint32_t o = kr_port(f, node, c[i].out);

		if (set)
			req_set(s, o, in * s->nvl + v);
		else
			req_clear(s, o, in * s->nvl + v);
		if (wake)
			sim_arb_at(s, o, s->pkt[h].ready);
	}
}

/* Where a head goes: out and vl from the LFT and the maps, or (bubble)
 * decided per output later; false when it cannot go on. */
static bool route(struct sim *s, uint32_t node, unsigned in,
		  struct sim_pkt *k)
{
	struct sim_cand c[SIM_MAX_CANDS];
	unsigned out, vl;

	if (++k->nsw_seen > s->f->nsw)
		return false;
	if (s->bubble) {
		k->out = 0;
		return sim_bubble_cands(s, node, in, k, c) > 0;
	}
	out = kr_lft_port(s->t, node, k->dlid);
	vl = out <= s->f->nports[node] ? sim_queue(s, node, in, out, k->sl,
						    k->dlid) : SIM_NIL;
	k->out = (uint8_t)out;
	k->ovl = (uint16_t)vl;
	return route_ok(s, node, out, vl);
}

void sim_head(struct sim *s, uint32_t slot, uint32_t p)
{
	const struct kr_fabric *f = s->f;
	uint32_t node = f->owner[slot];
	struct sim_pkt *k = &s->pkt[p];
	unsigned in = kr_port_num(f, slot);
	struct sim_q *q;
	bool first;

	s->r->hops++;
	if (!kr_is_switch(f, node)) {	/* a CA takes it at line rate */
		s->inq_used[(size_t)slot * s->nvl + k->vl] += pkt_credits(s);
		credit_back(s, slot, k->vl, s->now + pkt_credits(s));
		if (kr_port_by_lid(f, k->dlid) == slot) {
			sim_push(s, s->now + pkt_credits(s), EV_DELIVER, p, slot);
			return;
		}
		s->r->dropped++;	/* check's wrong_dest */
		s->in_switches--;
		sim_pkt_free(s, p);
		return;
	}
	s->inq_used[(size_t)slot * s->nvl + k->vl] += pkt_credits(s);
	if (!route(s, node, in, k)) {
		s->r->dropped++;
		s->in_switches--;
		credit_back(s, slot, k->vl, s->now + pkt_credits(s));
		sim_pkt_free(s, p);
		return;
	}
	k->ready = s->now + s->o->route_delay;
	q = in_queue(s, slot, k->vl, k->out);
	first = q->head == SIM_NIL;
	sim_q_push(s, q, p);
	if (!first)
		return;
	if (!s->voq) {
		head_requests(s, slot, k->vl, true, s->in_busy[slot] <= k->ready);
		return;
	}
	req_set(s, kr_port(f, node, k->out), in * s->nvl + k->vl);
	if (s->in_busy[slot] <= k->ready)
		sim_arb_at(s, kr_port(f, node, k->out), k->ready);
}

/* Room for a whole packet on (o, vl): the next buffer's credits, or with
 * output queues the queue's own space. */
static bool room(const struct sim *s, uint32_t o, unsigned vl, bool xbar)
{
	size_t c = (size_t)o * s->nvl + vl;

	if (xbar && s->oq)
		return s->oq_used[c] + pkt_credits(s) <= s->o->oq;
	return s->credits[c] >= (int32_t)pkt_credits(s);
}

/* The packet p goes out on link o, VL vl, now. */
void sim_send(struct sim *s, uint32_t o, uint32_t p, unsigned vl)
{
	unsigned n = pkt_credits(s);

	s->credits[(size_t)o * s->nvl + vl] -= (int32_t)n;
	s->vl_left[o] -= (int32_t)n;
	s->link_busy[o] = s->now + n;
	if (s->now >= s->o->warmup)
		s->busy_cycles[o] += n;
	s->pkt[p].vl = (uint16_t)vl;
	sim_push(s, s->now + s->o->latency, EV_HEAD, (uint32_t)s->f->peer[o], p);
	sim_arb_at(s, o, s->now + n);
}

/* Output queues to the link: VL arbitration over the queues whose head
 * the next buffer has room for. */
static void link_from_oq(struct sim *s, uint32_t o)
{
	uint32_t *best = s->best;
	int vl;

	if (s->link_busy[o] > s->now) {
		sim_arb_at(s, o, s->link_busy[o]);
		return;
	}
	for (unsigned v = 0; v < s->nvl; v++) {
		uint32_t h = s->oq[(size_t)o * s->nvl + v].head;

		best[v] = h != SIM_NIL && room(s, o, v, false) ? h : SIM_NIL;
	}
	vl = sim_vlarb_pick(s, o, best);
	if (vl < 0)
		return;
	sim_q_pop(s, &s->oq[(size_t)o * s->nvl + vl]);
	sim_send(s, o, best[vl], (unsigned)vl);
	sim_push(s, s->now + pkt_credits(s), EV_OQFREE, o, (uint32_t)vl);
}

/* The request bit b of output o won: its head crosses now, on vl (< 0:
 * the one its route gave). */
static void grant(struct sim *s, uint32_t o, unsigned b, int vl)
{
	const struct kr_fabric *f = s->f;
	uint32_t node = f->owner[o], islot = f->port0[node] + b / s->nvl;
	unsigned v = b % s->nvl, out = kr_port_num(f, o), n = pkt_credits(s);
	struct sim_q *q = in_queue(s, islot, v, out);
	uint32_t p;
	uint64_t arrived, tail_out;

	if (!s->voq)
		head_requests(s, islot, v, false, false);
	p = sim_q_pop(s, q);
	arrived = s->pkt[p].ready - s->o->route_delay;
	if (!s->voq)	/* the next head asks for its own outputs */
		head_requests(s, islot, v, true, false);
	else if (q->head == SIM_NIL)
		req_clear(s, o, b);
	s->rr[o] = b + 1;
	s->pkt[p].out = (uint8_t)out;
	if (vl >= 0)
		s->pkt[p].ovl = (uint16_t)vl;
	if (s->oq) {
		unsigned dur = (n + s->o->speedup - 1) / s->o->speedup;
		size_t c = (size_t)o * s->nvl + s->pkt[p].ovl;

		s->oq_used[c] += n;
		sim_q_push(s, &s->oq[c], p);
		s->xb_busy[o] = s->now + dur;
		tail_out = s->now + dur;
		sim_arb_at(s, o, s->now);
		sim_arb_at(s, o, s->now + dur);
	} else {
		sim_send(s, o, p, s->pkt[p].ovl);
		tail_out = s->now + n;
	}
	if (tail_out < arrived + n)	/* the tail cannot leave before it came */
		tail_out = arrived + n;
	s->in_busy[islot] = tail_out;
	sim_push(s, tail_out, EV_INFREE, islot, 0);
	credit_back(s, islot, v, tail_out);
}

/* The bubble router's VL for head h at output o: the first of its
 * candidates there (adaptive before escape) whose next buffer has the
 * room it needs; SIM_NIL when none has. */
static unsigned bubble_vl(const struct sim *s, uint32_t o, uint32_t node,
			  uint32_t islot, const struct sim_pkt *h, unsigned out)
{
	struct sim_cand c[SIM_MAX_CANDS];
	unsigned n = sim_bubble_cands(s, node, kr_port_num(s->f, islot), h, c);

	for (unsigned i = 0; i < n; i++)
		if (c[i].out == out &&
		    s->credits[(size_t)o * s->nvl + c[i].vl] >= (int32_t)c[i].need)
			return c[i].vl;
	return SIM_NIL;
}

/* Request bit b of output o: a candidate for its VL in best[] if it is
 * the first ready one; returns next lowered to when it will be ready. */
static uint64_t scan_one(struct sim *s, uint32_t o, uint32_t node,
			 unsigned out, unsigned b, uint32_t *best, uint64_t next)
{
	uint32_t islot = s->f->port0[node] + b / s->nvl;
	const struct sim_pkt *h = &s->pkt[in_queue(s, islot, b % s->nvl,
						    out)->head];

	unsigned vl;

	if (s->in_busy[islot] > s->now)
		return next;	/* its INFREE wakes us */
	if (h->ready > s->now)
		return h->ready < next ? h->ready : next;
	vl = s->bubble ? bubble_vl(s, o, node, islot, h, out)
	     : room(s, o, h->ovl, true) ? h->ovl : SIM_NIL;
	if (vl != SIM_NIL && best[vl] == SIM_NIL)
		best[vl] = b;
	return next;
}

/* One pass over o's requests from the round-robin position: the first
 * ready one of each output VL, and when the next not yet routed one is. */
static uint64_t scan_requests(struct sim *s, uint32_t o, uint32_t *best)
{
	const struct kr_fabric *f = s->f;
	uint32_t node = f->owner[o];
	unsigned nbits = s->words * 64, out = kr_port_num(f, o);
	uint64_t next = SIM_NEVER;
	const uint64_t *req = s->req + (size_t)o * s->words;
	unsigned start = s->rr[o] % nbits;

	for (unsigned i = 0; i < s->nvl; i++)
		best[i] = SIM_NIL;
	/* the set bits from start round to start - 1: the first word from
	 * start's bit, the others whole, the first again below start */
	for (unsigned k = 0; k <= s->words; k++) {
		unsigned w = (start / 64 + k) % s->words;
		uint64_t bits = req[w];

		if (k == 0)
			bits &= ~0ull << (start % 64);
		else if (k == s->words)
			bits &= start % 64 ? ~(~0ull << (start % 64)) : 0;
		for (; bits; bits &= bits - 1)
			next = scan_one(s, o, node, out, w * 64 +
					(unsigned)__builtin_ctzll(bits), best,
					next);
	}
	return next;
}

/* The crossbar stage. With output queues VL arbitration belongs to the
 * link, so the crossbar takes the first ready input in round-robin
 * order. */
static void xbar(struct sim *s, uint32_t o)
{
	uint32_t *best = s->best, pick = SIM_NIL;
	uint64_t next, busy = s->oq ? s->xb_busy[o] : s->link_busy[o];
	int vl = -1;

	if (busy > s->now) {	/* an earlier wake-up may have taken its place */
		sim_arb_at(s, o, busy);
		return;
	}
	next = scan_requests(s, o, best);
	if (s->oq) {
		unsigned nbits = s->words * 64;

		for (unsigned v = 0; v < s->nvl; v++)
			if (best[v] != SIM_NIL &&
			    (pick == SIM_NIL || (best[v] + nbits - s->rr[o]) %
			     nbits < (pick + nbits - s->rr[o]) % nbits))
				pick = best[v];
	} else if ((vl = sim_vlarb_pick(s, o, best)) >= 0) {
		pick = best[vl];
	}
	if (pick != SIM_NIL)
		grant(s, o, pick, s->oq ? -1 : vl);
	else if (next != SIM_NEVER)
		sim_arb_at(s, o, next);
}

void sim_arb(struct sim *s, uint32_t o)
{
	if (s->oq)
		link_from_oq(s, o);
	xbar(s, o);
}

/* An input's read port is free again: its heads may compete. */
void sim_infree(struct sim *s, uint32_t islot)
{
	const struct kr_fabric *f = s->f;
	uint32_t node = f->owner[islot];

	for (unsigned v = 0; v < s->nvl; v++) {
		if (!s->voq) {
			head_requests(s, islot, v, true, true);
			continue;
		}
		for (unsigned out = 1; out <= f->nports[node]; out++) {
			uint32_t h = in_queue(s, islot, v, out)->head;

			if (h != SIM_NIL)
				sim_arb_at(s, kr_port(f, node, out),
					   s->pkt[h].ready);
		}
	}
}
