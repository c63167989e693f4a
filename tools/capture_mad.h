/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Many MADs in flight on one umad port: the engine under knsroute capture.
 *
 * A batch is n queries, numbered 0 .. n-1. The engine keeps up to a window
 * of them in flight, matches answers to queries by transaction ID, and
 * gives each attempt its own ID, so a late answer to an attempt that timed
 * out is recognised and dropped. A query that times out, or that the far
 * end answers BUSY, is sent again up to o->retries times; anything else
 * fails the batch with a message naming the query. */
#ifndef KR_CAPTURE_MAD_H
#define KR_CAPTURE_MAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "capture.h"

struct cap_port {
	int fd;			/* umad port, -1 when closed */
	int agent_smi;		/* directed-route SMPs */
	int agent_sa;		/* SA queries */
	const struct capture_opts *o;
	FILE *log;		/* capture.log text */
	uint32_t tid;		/* low half of the last transaction ID used */
	uint8_t *buf;		/* receive buffer: umad_size() + buf_len */
	int buf_len;
};

/* One attempt of a query, as the batch's build callback fills it. */
struct cap_query {
	ib_rpc_t rpc;
	ib_portid_t to;
	uint8_t data[IB_SA_DATA_SIZE];	/* payload, rpc.datasz bytes */
};

struct cap_batch {
	const char *what;	/* "LFT blocks": progress, log, messages */
	size_t n;
	unsigned window;	/* at most this many in flight */
	void *ctx;
	void (*build)(void *ctx, size_t i, struct cap_query *q);
	/* The answer to query i (len bytes of MAD, status 0). Returns 0, or
	 * -1 after writing why the answer is unusable into why. */
	int (*answer)(void *ctx, size_t i, const uint8_t *mad, int len,
		      char *why, size_t whylen);
	/* What query i asks, for messages: "switch 0x... "S1": LFT block 2" */
	void (*name)(void *ctx, size_t i, char *buf, size_t len);
};

/* Opens ca/port (resolved names, see umad_get_port) with agents for
 * directed-route SMPs and SA queries. */
int cap_port_open(struct cap_port *p, const char *ca, unsigned port,
		  const struct capture_opts *o, FILE *log, struct kr_diag *d);
void cap_port_close(struct cap_port *p);

/* Runs every query of b; KR_OK, or an error with d naming the query. */
int cap_batch_run(struct cap_port *p, const struct cap_batch *b,
		  struct kr_diag *d);


/* What discovery learnt beyond the fabric itself: how to reach each node
 * and what the SMPs and SA queries need. */
struct cap_net {
	char ca[UMAD_CA_NAME_LEN];	/* the local port, resolved */
	unsigned port;
	ib_portid_t *path;	/* [nnode] directed route from the local port */
	uint16_t *fdb_top;	/* [nsw] SwitchInfo:LinearFDBTop */
	unsigned sm_lid;	/* the local port's PortInfo:MasterSMLID */
	unsigned sm_sl;
};

/* capture_disc.c: libibnetdisc's discovery as a kr_fabric. */
int cap_discover(const struct capture_opts *o, struct cap_net *net,
		 struct kr_fabric *f, FILE *log, struct kr_diag *d);
void cap_net_free(struct cap_net *net);
/* "switch 0xGUID "DESC"" for messages. */
void cap_node_name(const struct kr_fabric *f, uint32_t node, char *buf,
		   size_t len);

/* capture_smp.c: LFT blocks and SL2VL maps by directed-route SMPs. */
int cap_read_lfts(struct cap_port *p, const struct cap_net *net,
		  const struct kr_fabric *f, struct kr_tables *t,
		  struct kr_diag *d);
int cap_read_sl2vl(struct cap_port *p, const struct cap_net *net,
		   const struct kr_fabric *f, struct kr_tables *t,
		   struct kr_diag *d);

/* capture_sa.c: the SL of every (CA port, destination LID) PathRecord. */
int cap_read_path_sls(struct cap_port *p, const struct cap_net *net,
		      const struct kr_fabric *f, struct kr_tables *t,
		      struct kr_diag *d);

#endif
