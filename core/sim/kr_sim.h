/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The traffic simulator: packets over any engine's tables.
 *
 * A consumer of struct kr_tables, like the checker: it forwards on the LFTs,
 * takes each hop's VL from the SL2VL maps and each pair's SL from the path
 * SLs, and measures what the fabric accepts. Virtual cut-through with
 * credit-based flow control; the time unit (a cycle) is one credit, 64
 * bytes, on a link, so link rate is one credit per cycle and throughput in
 * credits per cycle per node is the papers' flits/cycle/node when the flit
 * is the credit. docs/sim.md states the model; the face is kr_sim_run. */
#ifndef KR_SIM_H
#define KR_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kr_tables.h"

enum kr_sim_pattern {
	KR_SIM_UNIFORM, KR_SIM_HOTSPOT, KR_SIM_BITREV, KR_SIM_TRANSPOSE,
	KR_SIM_COMPLEMENT, KR_SIM_TORNADO, KR_SIM_SHIFT, KR_SIM_RANDPERM,
	KR_SIM_ZIPF, KR_SIM_ALLTOALL, KR_SIM_NPATTERN
};

/* "uniform" .. "alltoall", or NULL for a value out of range. */
const char *kr_sim_pattern_name(unsigned p);
/* The pattern of a name, -1 if none. */
int kr_sim_pattern_parse(const char *name);

/* Which LID of a destination's LMC range a host sends to. */
enum kr_sim_lmc_path {
	KR_SIM_LMC_FIXED,	/* the base LID */
	KR_SIM_LMC_RR,		/* the next one for each packet (OSHA) */
	KR_SIM_LMC_LEAST,	/* the one whose queue holds fewest (SASHA) */
};

/* Ideal baselines, not programmable in InfiniBand switches. */
enum kr_sim_ideal {
	KR_SIM_IDEAL_NONE,
	KR_SIM_IDEAL_VOQNET,	/* a queue per destination CA at every input,
				 * each with its own credits */
	KR_SIM_IDEAL_BUBBLE,	/* tori and meshes: minimal adaptive routing
				 * with a bubble-controlled escape channel */
};

/* VL arbitration: the low-priority table's weight per VL of each sending
 * port, in 64-byte units as InfiniBand counts them. */
struct kr_sim_vlarb {
	uint8_t *weight;	/* [nport * 16]; NULL: equal weights */
};

/* What to simulate. kr_sim_opts_default fills the documented defaults. */
struct kr_sim_opts {
	unsigned pattern;	/* enum kr_sim_pattern */
	double load;		/* offered load per CA, fraction of link rate */
	double hot_share;	/* hotspot: share of CAs sending to the hot CA */
	uint64_t hot_start;	/* hotspot: cycle the hot traffic starts */
	uint64_t hot_packets;	/* hotspot: it stops once this many hot
				 * packets are delivered; 0: never */
	double zipf_s;		/* zipf exponent */
	unsigned shift;		/* shift pattern: destination index + shift */
	uint64_t seed;
	unsigned lmc_path;	/* enum kr_sim_lmc_path */

	unsigned pkt;		/* packet size in credits */
	unsigned buf_port;	/* input buffer per port in credits, split
				 * over the VLs in use ... */
	unsigned buf_vl;	/* ... unless this per-VL size is given */
	unsigned oq;		/* output queue per (port, VL) in credits;
				 * 0: no output queues */
	unsigned speedup;	/* crossbar speed-up (with output queues) */
	unsigned route_delay;	/* cycles from a head's arrival to its
				 * request for an output */
	unsigned latency;	/* link fly time in cycles */
	bool voq;		/* virtual output queues at switch inputs */
	unsigned ideal;		/* enum kr_sim_ideal */
	unsigned host_queue;	/* packets a host's queue for one VL may
				 * hold before it refuses new ones (open
				 * loop, bounded) */

	uint64_t warmup;	/* cycles before measuring */
	uint64_t cycles;	/* cycles measured */
	uint64_t window;	/* cycles per reported window; 0: none */
	uint64_t watchdog;	/* no delivery for this long while packets
				 * wait in switches: deadlock; 0: auto */
	/* called every 2^18 events, for a progress line; may be NULL */
	void (*progress)(void *ctx, uint64_t now, uint64_t end);
	void *progress_ctx;
};

void kr_sim_opts_default(struct kr_sim_opts *o);

/* One reporting window: what was accepted in it, and queue fill. */
struct kr_sim_window {
	uint64_t start;
	double accepted_hot, accepted_cold;	/* fraction of link rate per CA */
	double latency_mean;			/* of packets delivered in it */
	double full_share, empty_share;		/* switch input buffers */
};

struct kr_sim_result {
	uint32_t nhost;
	uint64_t cycles;	/* simulated, warm-up included */
	double offered, accepted;	/* fraction of link rate per CA */
	double offered_cold, accepted_hot, accepted_cold;
	uint32_t nhot;		/* hot senders (hotspot), else 0 */
	double latency_mean, latency_p99;	/* from generation, cycles */
	double net_latency_mean, net_latency_p99;	/* from injection */
	uint64_t generated;	/* packets the sources made */
	uint64_t refused;	/* ... and could not queue (host queue full) */
	uint64_t injected;	/* packets admitted to host queues */
	uint64_t delivered;
	uint64_t dropped;	/* no route, a down port or VL 15 */
	uint64_t queued;	/* still in hosts, switches or on links */
	uint64_t hops;		/* packet-hops (link traversals) */
	double link_util_max, link_util_mean;	/* switch-switch links */
	double *link_util;	/* [nport] share of the measured cycles each
				 * port sent, -1 for ports without a link */
	uint64_t completion;	/* alltoall: cycle the last packet arrived */

	bool deadlock;
	uint64_t deadlock_at;
	uint32_t ncycle;
	uint32_t *cycle_slot;	/* [ncycle] sending port of each channel */
	uint8_t *cycle_vl;	/* [ncycle] */

	struct kr_sim_window *win;
	uint32_t nwin;
};

/* Runs the simulation on f and t (both read-only); vlarb may be NULL.
 * KR_EINVAL with a message for options the fabric cannot take (a buffer
 * smaller than a packet, a pattern that needs a power-of-two CA count),
 * KR_ENOMEM. A deadlock is a result, not an error. */
int kr_sim_run(const struct kr_fabric *f, const struct kr_tables *t,
	       const struct kr_sim_vlarb *vlarb, const struct kr_sim_opts *o,
	       struct kr_sim_result *r, struct kr_diag *d);
void kr_sim_result_free(struct kr_sim_result *r);

/* One JSON object (the keys knsroute(8) lists) or a CSV row, with the
 * options that made it. csv_header: the row's column names. */
int kr_sim_write_json(FILE *out, const struct kr_fabric *f,
		      const struct kr_sim_opts *o,
		      const struct kr_sim_result *r);
int kr_sim_write_text(FILE *out, const struct kr_fabric *f,
		      const struct kr_sim_opts *o,
		      const struct kr_sim_result *r);
void kr_sim_csv_header(FILE *out);
/* "node,port,peer,peer_port,utilisation" and a line per linked port. */
int kr_sim_write_links(FILE *out, const struct kr_fabric *f,
		       const struct kr_sim_result *r);
int kr_sim_write_csv(FILE *out, const struct kr_sim_opts *o,
		     const struct kr_sim_result *r);

/* Flow level: max-min fair rates of flows along the LFT paths, each link
 * carrying one unit (its rate). Permutation patterns: one flow per CA;
 * uniform and randperm: `samples` random permutations, whose mean rate is
 * the effective bisection bandwidth; alltoall: `samples` of the N-1 shift
 * phases, each lasting as long as its slowest flow. */
struct kr_sim_flow_result {
	uint32_t nhost;
	uint32_t samples;	/* permutations or phases computed */
	uint64_t flows;		/* over all samples */
	uint64_t unrouted;	/* flows the LFTs do not deliver */
	double rate_mean, rate_min;	/* fraction of link rate */
	double alltoall_efficiency;	/* ideal time / time, alltoall */
};

int kr_sim_flow_run(const struct kr_fabric *f, const struct kr_tables *t,
		    const struct kr_sim_opts *o, unsigned samples,
		    struct kr_sim_flow_result *r, struct kr_diag *d);
int kr_sim_flow_write(FILE *out, const struct kr_sim_opts *o,
		      const struct kr_sim_flow_result *r, bool json);

/* Reads a `knsroute route` vlarb file ("GUID PORT low VL:W ..." lines)
 * into v (weight[] allocated). KR_EPARSE naming the line. */
int kr_sim_vlarb_read(FILE *in, const struct kr_fabric *f,
		      struct kr_sim_vlarb *v, struct kr_diag *d);
void kr_sim_vlarb_free(struct kr_sim_vlarb *v);

#endif
