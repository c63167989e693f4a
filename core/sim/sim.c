/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kr_sim_run: set the fabric up, run the events, sum up.
 *
 * Discrete events in integer cycles, taken in (time, insertion) order so
 * that one seed gives one run. The pieces: sim_host.c makes traffic,
 * sim_switch.c moves it, sim_watch.c explains a deadlock, sim_event.c
 * holds the heap, the pool and the random numbers. */
#include "kr_sim.h"

#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

void kr_sim_opts_default(struct kr_sim_opts *o)
{
	/* InfiniBand at 4 KB MTU: 64 credits a packet, 128 KB of input
	 * buffer per port as in the OSHA paper's switches, a 1-cycle (5 ns
	 * at 100 Gb/s) link, no routing delay beyond that. */
	*o = (struct kr_sim_opts){
		.pattern = KR_SIM_UNIFORM, .load = 1.0, .hot_share = 0.25,
		.zipf_s = 1.0, .seed = 1, .pkt = 64, .buf_port = 2048,
		.speedup = 1, .latency = 1, .host_queue = 64,
		.warmup = 20000, .cycles = 80000,
	};
}

/* VLs 0 .. n-1 appear in some map; *used counts the distinct ones. */
static unsigned vls_in_maps(const struct kr_fabric *f,
			    const struct kr_tables *t, unsigned *used)
{
	unsigned top = 0, mask = 1;

	if (t->sl2vl) {
		for (size_t m = 0; m < t->sl2vl_base[f->nnode]; m++)
			for (unsigned sl = 0; sl < KR_NSL; sl++) {
				unsigned vl = kr_map_vl(t->sl2vl[m], sl);

				if (vl < SIM_NVL)
					mask |= 1u << vl;
			}
	}
	for (unsigned v = 0; v < SIM_NVL; v++)
		if (mask >> v & 1)
			top = v + 1;
	*used = (unsigned)__builtin_popcount(mask);
	return top;
}

/* Hosts in LID order: a walk over the LID index. */
int sim_find_hosts(struct sim *s)
{
	const struct kr_fabric *f = s->f;
	uint32_t n = 0;

	if (!(s->host_of = malloc(f->nport * sizeof(*s->host_of))) ||
	    !(s->host_slot = malloc(f->nport * sizeof(*s->host_slot))))
		return KR_ENOMEM;
	for (uint32_t p = 0; p < f->nport; p++)
		s->host_of[p] = SIM_NIL;
	for (uint32_t lid = 1; lid <= f->max_lid; lid++) {
		uint32_t p = f->lid_port[lid];

		if (p == KR_NONE || f->lid[p] != lid || f->peer[p] < 0 ||
		    f->type[f->owner[p]] != KR_CA)
			continue;
		s->host_of[p] = n;
		s->host_slot[n++] = p;
	}
	s->nhost = n;
	return 0;
}

#define ALLOC(ptr, n) ((ptr) = calloc((n), sizeof(*(ptr))))

static int alloc_state(struct sim *s)
{
	size_t np = s->f->nport, nc = np * s->nvl;

	if (!ALLOC(s->inq, nc) || !ALLOC(s->inq_used, nc) ||
	    !ALLOC(s->in_busy, np) || !ALLOC(s->credits, nc) ||
	    !ALLOC(s->link_busy, np) || !ALLOC(s->arb_at, np) ||
	    !ALLOC(s->req, np * s->words) || !ALLOC(s->rr, np) ||
	    !ALLOC(s->cur_vl, np) || !ALLOC(s->vl_left, np) ||
	    !ALLOC(s->busy_cycles, np) ||
	    !ALLOC(s->hq, (size_t)s->nhost * s->nvl) ||
	    !ALLOC(s->lat_hist, SIM_HIST) ||
	    !ALLOC(s->hq_vl, (size_t)s->nhost * s->nvl) ||
	    !ALLOC(s->lmc_rr, s->nhost) || !ALLOC(s->best, s->nvl) ||
	    !ALLOC(s->net_hist, SIM_HIST))
		return KR_ENOMEM;
	if (s->o->voq && !ALLOC(s->voq, nc * s->maxp))
		return KR_ENOMEM;
	if (s->o->oq && (!ALLOC(s->oq, nc) || !ALLOC(s->oq_used, nc) ||
			 !ALLOC(s->xb_busy, np)))
		return KR_ENOMEM;
	memset(s->inq, 0xff, nc * sizeof(*s->inq));
	memset(s->hq, 0xff, (size_t)s->nhost * s->nvl * sizeof(*s->hq));
	if (s->voq)
		memset(s->voq, 0xff, nc * s->maxp * sizeof(*s->voq));
	if (s->oq)
		memset(s->oq, 0xff, nc * sizeof(*s->oq));
	for (size_t p = 0; p < np; p++) {
		s->arb_at[p] = SIM_NEVER;
		for (unsigned v = 0; v < s->nvl; v++)
			s->credits[p * s->nvl + v] = (int32_t)s->buf;
	}
	return 0;
}

static int setup(struct sim *s, struct kr_diag *d)
{
	const struct kr_fabric *f = s->f;
	const struct kr_sim_opts *o = s->o;
	unsigned used;

	if (sim_find_hosts(s))
		return KR_ENOMEM;
	s->nvl = vls_in_maps(f, s->t, &used);
	s->buf = o->buf_vl ? o->buf_vl : o->buf_port / used;
	if (o->ideal == KR_SIM_IDEAL_VOQNET) {
		if (s->nhost > 4096)
			return kr_fail(d, KR_EINVAL, 0, "VOQnet keeps a queue per "
				       "CA at every port: at most 4096 CAs, "
				       "not %u", s->nhost);
		s->voqnet = true;
		s->nvl = s->nhost;
		s->weight = NULL;	/* no VLs to arbitrate */
		s->buf = o->buf_vl ? o->buf_vl : 2 * o->pkt;
	}
	if (o->ideal == KR_SIM_IDEAL_BUBBLE) {
		int rc = sim_bubble_init(s, d);

		if (rc)
			return rc;
		s->nvl = 2;
		s->weight = NULL;
		s->buf = o->buf_vl ? o->buf_vl : o->buf_port / 2;
	}
	if (!o->pkt || s->buf < o->pkt)
		return kr_fail(d, KR_EINVAL, 0, "an input buffer of %u credits "
			       "per VL (%u VLs in use) cannot hold a packet of "
			       "%u credits", s->buf, used, o->pkt);
	if (o->oq && o->oq < o->pkt)
		return kr_fail(d, KR_EINVAL, 0, "an output queue of %u credits "
			       "cannot hold a packet of %u", o->oq, o->pkt);
	if (!o->speedup || (o->speedup > 1 && !o->oq))
		return kr_fail(d, KR_EINVAL, 0, "a crossbar speed-up needs "
			       "output queues to deliver into");
	for (uint32_t n = 0; n < f->nnode; n++)
		if (f->nports[n] + 1u > s->maxp)
			s->maxp = f->nports[n] + 1u;
	s->words = (s->maxp * s->nvl + 63) / 64;
	s->free_pkt = SIM_NIL;
	s->next_win = o->window ? o->window : SIM_NEVER;
	s->end = o->warmup + o->cycles;
	sim_seed(s, o->seed);
	return alloc_state(s);
}

static void free_state(struct sim *s)
{
	void *all[] = { s->ev, s->pkt, s->inq, s->voq, s->inq_used, s->in_busy,
			s->credits, s->link_busy, s->arb_at, s->req, s->rr,
			s->cur_vl, s->vl_left, s->busy_cycles, s->oq,
			s->oq_used, s->xb_busy, s->host_slot, s->host_of, s->hq,
			s->hq_vl, s->lmc_rr, s->lat_hist,
			s->net_hist, s->best };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	sim_traffic_free(s);
	sim_bubble_free(s);
}

/* The share of switch input buffers (linked ports, VLs in use) that are
 * full (no room for a packet) and empty, at this instant. */
static void buffer_shares(const struct sim *s, double *full, double *empty)
{
	const struct kr_fabric *f = s->f;
	uint64_t nfull = 0, nempty = 0, n = 0;

	for (uint32_t p = f->port0[0]; p < f->port0[f->nsw]; p++) {
		if (f->peer[p] < 0 || kr_port_num(f, p) == 0)
			continue;
		for (unsigned v = 0; v < s->nvl; v++) {
			uint32_t used = s->inq_used[(size_t)p * s->nvl + v];

			n++;
			nfull += used + s->o->pkt > s->buf;
			nempty += used == 0;
		}
	}
	*full = n ? (double)nfull / n : 0;
	*empty = n ? (double)nempty / n : 0;
}

static int close_windows(struct sim *s)
{
	struct kr_sim_result *r = s->r;
	double ncold = s->nhost - r->nhot;

	while (s->now >= s->next_win) {
		struct kr_sim_window *w, *n = realloc(r->win, (r->nwin + 1) *
						      sizeof(*n));
		double span = (double)s->o->window;

		if (!n)
			return KR_ENOMEM;
		r->win = n;
		w = &n[r->nwin++];
		w->start = s->next_win - s->o->window;
		w->accepted_hot = s->acc.hot_flits / span;
		w->accepted_cold = s->acc.cold_flits / (span * ncold);
		w->latency_mean = s->acc.npkt ? (double)s->acc.lat_sum /
						s->acc.npkt : 0;
		buffer_shares(s, &w->full_share, &w->empty_share);
		s->acc = (struct sim_acc){ 0 };
		s->next_win += s->o->window;
	}
	return 0;
}

static void deliver(struct sim *s, uint32_t p)
{
	const struct sim_pkt *k = &s->pkt[p];
	uint64_t lat = s->now - k->t_gen, net = s->now - k->t_inj;
	unsigned n = s->o->pkt;

	s->r->delivered++;
	s->in_switches--;
	s->last_delivery = s->now;
	if (k->hot)
		s->hot_done++;
	if (s->now >= s->o->warmup) {
		s->del_flits += n;
		s->hot_flits += k->hot ? n : 0;
		if (k->t_gen >= s->o->warmup) {
			s->lat_n++;
			s->lat_sum += lat;
			s->net_sum += net;
			s->lat_hist[sim_hist_bucket(lat)]++;
			s->net_hist[sim_hist_bucket(net)]++;
		}
	}
	*(k->hot ? &s->acc.hot_flits : &s->acc.cold_flits) += n;
	s->acc.lat_sum += lat;
	s->acc.npkt++;
	sim_pkt_free(s, p);
	if (s->o->pattern == KR_SIM_ALLTOALL &&
	    s->r->delivered == (uint64_t)s->nhost * (s->nhost - 1)) {
		s->r->completion = s->now;
		s->end = s->now + 1;
	}
}

static void dispatch(struct sim *s, const struct sim_ev *e)
{
	switch (e->type) {
	case EV_GEN:
		sim_gen(s, e->a);
		break;
	case EV_ARB:
		if (s->arb_at[e->a] != s->now)
			break;	/* an earlier one took its place */
		s->arb_at[e->a] = SIM_NEVER;
		if (kr_is_switch(s->f, s->f->owner[e->a]))
			sim_arb(s, e->a);
		else
			sim_host_arb(s, s->host_of[e->a]);
		break;
	case EV_HEAD:
		sim_head(s, e->a, e->b);
		break;
	case EV_CREDIT:
		s->credits[(size_t)e->a * s->nvl + e->b] += (int32_t)s->o->pkt;
		sim_arb_at(s, e->a, s->now);
		break;
	case EV_INFREE:
		sim_infree(s, e->a);
		break;
	case EV_DELIVER:
		deliver(s, e->a);
		break;
	case EV_OQFREE:
		s->oq_used[(size_t)e->a * s->nvl + e->b] -= s->o->pkt;
		sim_arb_at(s, e->a, s->now);
		break;
	}
}

static uint64_t watchdog(const struct kr_sim_opts *o)
{
	if (o->watchdog)
		return o->watchdog;
	/* far longer than any packet waits behind live traffic: 200
	 * packet times and fly times */
	return 200ull * (o->pkt + o->latency + o->route_delay);
}

static int run_events(struct sim *s)
{
	uint64_t wd = watchdog(s->o);

	for (uint32_t h = 0; h < s->nhost; h++)
		if (s->o->load > 0)
			sim_push(s, sim_rand(s) % (2 * s->o->pkt), EV_GEN, h, 0);
	for (uint64_t n = 1; s->nev && s->ev[0].t < s->end && !s->oom; n++) {
		struct sim_ev e = sim_pop(s);

		if (!(n & ((1u << 18) - 1)) && s->o->progress)
			s->o->progress(s->o->progress_ctx, e.t, s->end);

		s->now = e.t;
		if (close_windows(s))
			return KR_ENOMEM;
		if (s->in_switches && s->now - s->last_delivery > wd) {
			s->r->deadlock = true;
			s->r->deadlock_at = s->now;
			return sim_find_cycle(s);
		}
		dispatch(s, &e);
	}
	if (s->oom)
		return KR_ENOMEM;
	s->now = s->end;
	return close_windows(s);
}

static int link_use(const struct sim *s, struct kr_sim_result *r,
		    uint64_t span)
{
	const struct kr_fabric *f = s->f;
	double sum = 0;
	uint32_t n = 0;

	if (!(r->link_util = malloc(f->nport * sizeof(*r->link_util))))
		return KR_ENOMEM;
	for (uint32_t p = 0; p < f->nport; p++)
		r->link_util[p] = f->peer[p] < 0 ? -1 : span ?
				  (double)s->busy_cycles[p] / span : 0;

	for (uint32_t p = f->port0[0]; p < f->port0[f->nsw]; p++) {
		double u;

		if (f->peer[p] < 0 || !kr_is_switch(f, f->owner[f->peer[p]]))
			continue;
		u = span ? (double)s->busy_cycles[p] / span : 0;
		sum += u;
		n++;
		if (u > r->link_util_max)
			r->link_util_max = u;
	}
	r->link_util_mean = n ? sum / n : 0;
	return 0;
}

static int sum_up(struct sim *s)
{
	struct kr_sim_result *r = s->r;
	uint64_t stop = r->deadlock ? r->deadlock_at : s->now;
	double span = stop > s->o->warmup ? (double)(stop - s->o->warmup) : 0;
	double node = span * s->nhost, cold = span * (s->nhost - r->nhot);

	r->nhost = s->nhost;
	r->cycles = stop;
	r->offered = node ? s->gen_flits / node : 0;
	r->accepted = node ? s->del_flits / node : 0;
	if (s->o->pattern == KR_SIM_HOTSPOT) {
		r->accepted_hot = span ? s->hot_flits / span : 0;
		r->accepted_cold = cold ? (s->del_flits - s->hot_flits) / cold : 0;
		r->offered_cold = cold ? s->gen_cold_flits / cold : 0;
	}
	if (s->lat_n) {
		r->latency_mean = (double)s->lat_sum / s->lat_n;
		r->net_latency_mean = (double)s->net_sum / s->lat_n;
		r->latency_p99 = sim_hist_quantile(s->lat_hist, s->lat_n, 0.99);
		r->net_latency_p99 = sim_hist_quantile(s->net_hist, s->lat_n,
						       0.99);
	}
	r->queued = s->npkt;
	return link_use(s, r, (uint64_t)span);
}

int kr_sim_run(const struct kr_fabric *f, const struct kr_tables *t,
	       const struct kr_sim_vlarb *vlarb, const struct kr_sim_opts *o,
	       struct kr_sim_result *r, struct kr_diag *d)
{
	struct sim s = { .f = f, .t = t, .o = o, .r = r,
			 .weight = vlarb ? vlarb->weight : NULL };
	int rc;

	*r = (struct kr_sim_result){ 0 };
	rc = setup(&s, d);
	if (!rc)
		rc = sim_traffic_init(&s, d);
	if (!rc)
		rc = run_events(&s);
	if (!rc)
		rc = sum_up(&s);
	if (rc == KR_ENOMEM)
		kr_fail(d, rc, 0, "out of memory (%u packets in flight)", s.npkt);
	free_state(&s);
	if (rc)
		kr_sim_result_free(r);
	return rc;
}

void kr_sim_result_free(struct kr_sim_result *r)
{
	free(r->cycle_slot);
	free(r->cycle_vl);
	free(r->win);
	free(r->link_util);
	*r = (struct kr_sim_result){ 0 };
}
