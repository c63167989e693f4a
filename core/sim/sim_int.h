/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The simulator's state, shared by the files of core/sim/.
 *
 * Everything is indexed by the fabric's dense ids: a port slot is the
 * sending end of a link (its peer the receiving end), a channel is (slot,
 * VL) and its buffer sits at the peer. Packets live in one pool and are
 * chained through `next` into whichever queue holds them; a queue is a head
 * and a tail index. Per-pair state is never kept: a host's admittance
 * queues are per first-hop VL (see sim_host.c for why that is the same as
 * one per destination), so memory is the fabric, the LFTs and the packets
 * in flight. */
#ifndef KR_SIM_INT_H
#define KR_SIM_INT_H

#include "kr_sim.h"
#include "kr_topo.h"

#define SIM_NIL UINT32_MAX
#define SIM_NEVER UINT64_MAX
#define SIM_NVL 15		/* data VLs 0..14; VL 15 is management only */

struct sim_pkt {
	uint64_t t_gen;		/* cycle the source made it */
	uint64_t t_inj;		/* cycle its head left the host */
	uint64_t ready;		/* cycle it may compete for its output */
	uint32_t next;		/* next in its queue, SIM_NIL */
	uint32_t src;		/* host index */
	uint16_t dlid;
	uint8_t sl;
	uint16_t vl;		/* queue (VL) of the buffer it is in */
	uint16_t ovl;		/* queue (VL) on the port it leaves by */
	uint16_t nsw_seen;	/* switches passed: more than nsw is a loop */
	uint8_t out;		/* port number it leaves its switch by */
	uint8_t hot;		/* hot-spot traffic */
};

/* An output a head may take (adaptive bubble router): port, VL, and the
 * credits the next buffer must have for it there. */
struct sim_cand {
	uint8_t out;
	uint8_t vl;
	uint32_t need;
};

struct sim_q {
	uint32_t head, tail;
};

enum sim_ev_type { EV_GEN, EV_ARB, EV_HEAD, EV_CREDIT, EV_INFREE,
		   EV_DELIVER, EV_OQFREE };

struct sim_ev {
	uint64_t t;
	uint64_t seq;		/* insertion order: ties fall the same way */
	uint32_t a, b;
	uint32_t type;
};

/* Counters of one measuring window. */
struct sim_acc {
	uint64_t hot_flits, cold_flits, lat_sum, npkt;
};

struct sim {
	const struct kr_fabric *f;
	const struct kr_tables *t;
	const struct kr_sim_opts *o;
	struct kr_sim_result *r;
	uint64_t now, end;
	bool oom;		/* an allocation failed: stop */
	uint64_t rng[4];	/* xoshiro256** state */

	/* Queues per channel: VLs 0 .. nvl-1 as the maps use them; in the
	 * ideal VOQnet one per destination CA (host index), so that every
	 * "VL" below is a destination's own queue with its own credits. */
	unsigned nvl;
	bool voqnet;
	bool bubble;		/* adaptive bubble router: VL 0 adaptive, 1
				 * escape (sim_bubble.c) */
	struct kr_topo topo;	/* with bubble: coordinates */
	uint8_t *dir_port;	/* with bubble: [nsw * 2 ndim] port of each
				 * direction, 0 if none */
	uint32_t *best;		/* [nvl] arbitration scratch */
	unsigned maxp;		/* most port slots of any node (ports + 1) */
	unsigned words;		/* uint64 words of a request bitmap */
	unsigned buf;		/* input buffer per (port, VL), credits */
	const uint8_t *weight;	/* [nport * 16] VLArb weights or NULL */

	/* events: a 4-ary min-heap on (t, seq) */
	struct sim_ev *ev;
	size_t nev, cap_ev;
	uint64_t seq;

	/* packet pool */
	struct sim_pkt *pkt;
	uint32_t npkt, cap_pkt, free_pkt;

	/* per receiving slot (input buffers at switches) */
	struct sim_q *inq;	/* [nport * nvl] FIFO per (slot, VL) */
	struct sim_q *voq;	/* [nport * nvl * maxp] with --voq */
	uint32_t *inq_used;	/* [nport * nvl] credits held */
	uint64_t *in_busy;	/* [nport] input read port busy until */

	/* per sending slot (switch outputs and host ports) */
	int32_t *credits;	/* [nport * nvl] downstream credits */
	uint64_t *link_busy;	/* [nport] */
	uint64_t *arb_at;	/* [nport] the pending arbitration, or NEVER */
	uint64_t *req;		/* [nport * words] bit in*nvl+vl requests */
	uint32_t *rr;		/* [nport] round-robin position */
	uint16_t *cur_vl;	/* [nport] VLArb: VL being served */
	int32_t *vl_left;	/* [nport] its weight left, credits */
	uint64_t *busy_cycles;	/* [nport] link cycles sent in the window */
	struct sim_q *oq;	/* [nport * nvl] output queues, with oq */
	uint32_t *oq_used;	/* [nport * nvl] */
	uint64_t *xb_busy;	/* [nport] crossbar write port busy until */

	/* hosts: connected CA ports, in LID order */
	uint32_t nhost;
	uint32_t *host_slot;	/* [nhost] */
	uint32_t *host_of;	/* [nport] host index of a CA slot, SIM_NIL */
	struct sim_q *hq;	/* [nhost * nvl] admittance queues */
	uint32_t *hq_vl;	/* [nhost * nvl] packets per queue */
	uint32_t *lmc_rr;	/* [nhost] next LID offset, round-robin */
	double gen_p;		/* packets per cycle per host */

	/* traffic */
	uint32_t *perm;		/* [nhost] permutation patterns, else NULL */
	uint8_t *is_hot;	/* [nhost] hotspot senders */
	uint32_t hot;		/* the hot host */
	uint64_t hot_done;	/* hot packets delivered since hot_start */
	double *zipf_cdf;	/* [nhost - 1] */
	uint64_t zipf_key;	/* ranking per source: see sim_host.c */
	uint32_t *a2a_next;	/* [nhost] alltoall: next destination offset */

	/* measurement */
	uint64_t last_delivery;
	uint64_t in_switches;	/* packets in switch buffers or on links */
	uint64_t gen_flits, gen_cold_flits, del_flits, hot_flits;
	uint64_t lat_n, lat_sum, net_sum;
	uint32_t *lat_hist, *net_hist;	/* log-linear buckets */
	struct sim_acc acc;		/* current window */
	uint64_t next_win;
};

/* sim_event.c */
int sim_push(struct sim *s, uint64_t t, unsigned type, uint32_t a, uint32_t b);
struct sim_ev sim_pop(struct sim *s);
uint64_t sim_rand(struct sim *s);
double sim_rand01(struct sim *s);
void sim_seed(struct sim *s, uint64_t seed);
uint32_t sim_pkt_new(struct sim *s);
void sim_pkt_free(struct sim *s, uint32_t p);
void sim_q_push(struct sim *s, struct sim_q *q, uint32_t p);
uint32_t sim_q_pop(struct sim *s, struct sim_q *q);
void sim_arb_at(struct sim *s, uint32_t slot, uint64_t t);
enum { SIM_HIST = 4096 + 64 * 40 };
unsigned sim_hist_bucket(uint64_t v);
double sim_hist_quantile(const uint32_t *h, uint64_t n, double q);

/* sim_switch.c */
void sim_head(struct sim *s, uint32_t slot, uint32_t p);
/* A switch output: crossbar and link arbitration (a host's link is
 * sim_host_arb's). */
void sim_arb(struct sim *s, uint32_t slot);
void sim_infree(struct sim *s, uint32_t slot);
void sim_send(struct sim *s, uint32_t o, uint32_t p, unsigned vl);
unsigned sim_queue(const struct sim *s, uint32_t node, unsigned in,
		   unsigned out, unsigned sl, unsigned dlid);

/* sim_vlarb.c */
int sim_vlarb_pick(struct sim *s, uint32_t o, const uint32_t *best);

/* sim.c */
int sim_find_hosts(struct sim *s);

/* sim_host.c */
int sim_make_perm(struct sim *s, struct kr_diag *d);
int sim_traffic_init(struct sim *s, struct kr_diag *d);
void sim_traffic_free(struct sim *s);
void sim_gen(struct sim *s, uint32_t h);
void sim_host_arb(struct sim *s, uint32_t h);

/* sim_bubble.c */
int sim_bubble_init(struct sim *s, struct kr_diag *d);
void sim_bubble_free(struct sim *s);
enum { SIM_MAX_CANDS = 2 * KR_MAX_DIM + 1 };
unsigned sim_bubble_cands(const struct sim *s, uint32_t node, unsigned in,
			  const struct sim_pkt *p, struct sim_cand *c);

/* sim_watch.c */
int sim_find_cycle(struct sim *s);

#endif
