/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LFTs and SL2VL maps, read by directed-route SMPs (Get) along the routes
 * discovery found: they reach every switch whatever its LFTs say, which is
 * what a check of those LFTs needs. At most CAPTURE_SMP_WINDOW in flight. */
#include <config.h>

#include "capture_mad.h"

#include <stdlib.h>
#include <string.h>

#define LFT_BLOCK 64		/* LIDs per LinearForwardingTable block */

struct smp_list {
	const struct cap_net *net;
	const struct kr_fabric *f;
	struct kr_tables *t;
	uint32_t *node;		/* [n] */
	uint16_t *a, *b;	/* [n] LFT: block; SL2VL: in and out port */
	size_t n;
};

static int list_alloc(struct smp_list *l, size_t cap, struct kr_diag *d)
{
	l->node = malloc((cap + 1) * sizeof(*l->node));
	l->a = malloc((cap + 1) * sizeof(*l->a));
	l->b = malloc((cap + 1) * sizeof(*l->b));
	if (l->node && l->a && l->b)
		return KR_OK;
	return kr_fail(d, KR_ENOMEM, 0, "out of memory");
}

static void list_free(struct smp_list *l)
{
	free(l->node);
	free(l->a);
	free(l->b);
}

static void smp_get(struct cap_query *q, const ib_portid_t *to, unsigned attr,
		    unsigned mod)
{
	q->rpc.mgtclass = IB_SMI_DIRECT_CLASS;
	q->rpc.method = IB_MAD_METHOD_GET;
	q->rpc.attr.id = attr;
	q->rpc.attr.mod = mod;
	q->rpc.dataoffs = IB_SMP_DATA_OFFS;
	q->rpc.datasz = IB_SMP_DATA_SIZE;
	q->to = *to;
}

static void lft_build(void *ctx, size_t i, struct cap_query *q)
{
	const struct smp_list *l = ctx;

	smp_get(q, &l->net->path[l->node[i]], IB_ATTR_LINEARFORWTBL, l->a[i]);
}

static int lft_answer(void *ctx, size_t i, const uint8_t *mad, int len,
		      char *why, size_t whylen)
{
	const struct smp_list *l = ctx;
	struct kr_tables *t = l->t;
	unsigned lid0 = (unsigned)l->a[i] * LFT_BLOCK;

	(void)why;
	(void)whylen;
	(void)len;
	for (unsigned k = 0; k < LFT_BLOCK && lid0 + k < t->stride; k++)
		t->lft[(size_t)l->node[i] * t->stride + lid0 + k] =
			mad[IB_SMP_DATA_OFFS + k];
	return 0;
}

static void lft_name(void *ctx, size_t i, char *buf, size_t len)
{
	const struct smp_list *l = ctx;
	char node[128];

	cap_node_name(l->f, l->node[i], node, sizeof(node));
	snprintf(buf, len, "%s: LinearForwardingTable block %u", node, l->a[i]);
}

int cap_read_lfts(struct cap_port *p, const struct cap_net *net,
		  const struct kr_fabric *f, struct kr_tables *t,
		  struct kr_diag *d)
{
	struct smp_list l = { .net = net, .f = f, .t = t };
	struct cap_batch b = { .what = "LFT blocks", .window = CAPTURE_SMP_WINDOW,
			       .ctx = &l, .build = lft_build,
			       .answer = lft_answer, .name = lft_name };
	size_t cap = 0;
	int rc;

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		cap += net->fdb_top[sw] / LFT_BLOCK + 1u;
	rc = list_alloc(&l, cap, d);
	for (uint32_t sw = 0; !rc && sw < f->nsw; sw++)
		for (unsigned blk = 0; blk <= net->fdb_top[sw] / LFT_BLOCK;
		     blk++) {
			l.node[l.n] = sw;
			l.a[l.n++] = (uint16_t)blk;
		}
	b.n = l.n;
	if (!rc)
		rc = cap_batch_run(p, &b, d);
	list_free(&l);
	return rc;
}

/* A CA port is reached through its peer switch and the peer's port, so
 * each port of a multi-port CA answers for itself. */
static void ca_port_route(const struct cap_net *net, const struct kr_fabric *f,
			  uint32_t node, unsigned port, ib_portid_t *to)
{
	int32_t peer = f->peer[kr_port(f, node, port)];
	uint32_t pn = peer >= 0 ? f->owner[peer] : KR_NONE;

	if (pn == KR_NONE || !kr_is_switch(f, pn) ||
	    net->path[pn].drpath.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX) {
		*to = net->path[node];
		return;
	}
	*to = net->path[pn];
	to->drpath.p[++to->drpath.cnt] = (uint8_t)kr_port_num(f, (uint32_t)peer);
}

static void sl2vl_build(void *ctx, size_t i, struct cap_query *q)
{
	const struct smp_list *l = ctx;
	uint32_t node = l->node[i];
	ib_portid_t to;

	if (kr_is_switch(l->f, node)) {
		smp_get(q, &l->net->path[node], IB_ATTR_SLVL_TABLE,
			(unsigned)l->a[i] << 8 | l->b[i]);
		return;
	}
	ca_port_route(l->net, l->f, node, l->a[i], &to);
	smp_get(q, &to, IB_ATTR_SLVL_TABLE, 0);
}

/* SLtoVLMappingTable: two SLs a byte, the lower SL in the high nibble. */
static int sl2vl_answer(void *ctx, size_t i, const uint8_t *mad, int len,
			char *why, size_t whylen)
{
	const struct smp_list *l = ctx;
	uint64_t *map = kr_tables_sl2vl_ref(l->f, l->t, l->node[i], l->a[i],
					    l->b[i]);
	const uint8_t *data = mad + IB_SMP_DATA_OFFS;

	(void)len;
	if (!map) {
		snprintf(why, whylen, "no room for the map");
		return -1;
	}
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		*map = kr_map_set(*map, sl, sl & 1 ? data[sl / 2] & 0xf
						   : data[sl / 2] >> 4);
	return 0;
}

static void sl2vl_name(void *ctx, size_t i, char *buf, size_t len)
{
	const struct smp_list *l = ctx;
	char node[128];

	cap_node_name(l->f, l->node[i], node, sizeof(node));
	if (kr_is_switch(l->f, l->node[i]))
		snprintf(buf, len, "%s: SLtoVLMappingTable in port %u out "
			 "port %u", node, l->a[i], l->b[i]);
	else
		snprintf(buf, len, "%s port %u: SLtoVLMappingTable", node,
			 l->a[i]);
}

/* The maps kr_sl2vl_write dumps: every linked out port of a switch from
 * every in port (0 included), and every linked CA port. */
int cap_read_sl2vl(struct cap_port *p, const struct cap_net *net,
		   const struct kr_fabric *f, struct kr_tables *t,
		   struct kr_diag *d)
{
	struct smp_list l = { .net = net, .f = f, .t = t };
	struct cap_batch b = { .what = "SL2VL maps", .window = CAPTURE_SMP_WINDOW,
			       .ctx = &l, .build = sl2vl_build,
			       .answer = sl2vl_answer, .name = sl2vl_name };
	size_t cap = 0;
	int rc;

	for (uint32_t n = 0; n < f->nnode; n++)
		cap += kr_is_switch(f, n) ? (f->nports[n] + 1u) * f->nports[n]
					  : f->nports[n];
	rc = list_alloc(&l, cap, d);
	for (uint32_t n = 0; !rc && n < f->nnode; n++) {
		unsigned np = f->nports[n];

		for (unsigned o = 1; o <= np; o++) {
			if (f->peer[kr_port(f, n, o)] < 0)
				continue;
			for (unsigned in = kr_is_switch(f, n) ? 0 : o;
			     in <= (kr_is_switch(f, n) ? np : o); in++) {
				l.node[l.n] = n;
				l.a[l.n] = (uint16_t)in;
				l.b[l.n++] = (uint16_t)o;
			}
		}
	}
	b.n = l.n;
	if (!rc)
		rc = cap_batch_run(p, &b, d);
	list_free(&l);
	return rc;
}
