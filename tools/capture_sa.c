/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Path SLs: one SA PathRecord query per (source CA port, destination LID),
 * as `saquery -p --src-to-dst SLID:DLID` asks it: GetTable with SLID and
 * DLID in the component mask, so that the answer is one record and fits
 * one MAD (ibsim's umad2sim passes no multi-packet RMPP answers). The
 * pairs are those knsroute check walks: every CA port's base LID to every
 * LID of another port. */
#include <config.h>

#include "capture_mad.h"

#include <stdlib.h>
#include <string.h>

/* PathRecord ComponentMask bits (IBA 15.2.5.16). */
#define PR_COMP_DLID (1ull << 4)
#define PR_COMP_SLID (1ull << 5)

struct sa_list {
	const struct cap_net *net;
	struct kr_sl_pair *pair;	/* [n] the SL is filled in by answers */
	size_t n;
};

static void pr_build(void *ctx, size_t i, struct cap_query *q)
{
	const struct sa_list *l = ctx;

	q->rpc.mgtclass = IB_SA_CLASS;
	q->rpc.method = IB_MAD_METHOD_GET_TABLE;
	q->rpc.attr.id = IB_SA_ATTR_PATHRECORD;
	q->rpc.mask = PR_COMP_SLID | PR_COMP_DLID;
	q->rpc.dataoffs = IB_SA_DATA_OFFS;
	q->rpc.datasz = IB_SA_PR_RECSZ;
	mad_set_field(q->data, 0, IB_SA_PR_SLID_F, l->pair[i].slid);
	mad_set_field(q->data, 0, IB_SA_PR_DLID_F, l->pair[i].dlid);
	ib_portid_set(&q->to, (int)l->net->sm_lid, 1, IB_DEFAULT_QP1_QKEY);
	q->to.sl = (uint8_t)l->net->sm_sl;
}

static int pr_answer(void *ctx, size_t i, const uint8_t *mad, int len,
		     char *why, size_t whylen)
{
	const struct sa_list *l = ctx;
	struct kr_sl_pair *p = &l->pair[i];
	unsigned off = mad_get_field((void *)mad, 0, IB_SA_ATTROFFS_F) * 8;
	uint8_t *rec = (uint8_t *)mad + IB_SA_DATA_OFFS;

	if (!off || len < IB_SA_DATA_OFFS + IB_SA_PR_RECSZ) {
		p->sl = KR_SL_UNKNOWN;	/* no path: the LFTs will tell why */
		return 0;
	}
	if (mad_get_field(rec, 0, IB_SA_PR_SLID_F) != p->slid ||
	    mad_get_field(rec, 0, IB_SA_PR_DLID_F) != p->dlid) {
		snprintf(why, whylen, "the SA answered for SLID %u DLID %u",
			 mad_get_field(rec, 0, IB_SA_PR_SLID_F),
			 mad_get_field(rec, 0, IB_SA_PR_DLID_F));
		return -1;
	}
	p->sl = (uint8_t)mad_get_field(rec, 0, IB_SA_PR_SL_F);
	return 0;
}

static void pr_name(void *ctx, size_t i, char *buf, size_t len)
{
	const struct sa_list *l = ctx;

	snprintf(buf, len, "PathRecord SLID %u DLID %u (SA at LID %u)",
		 l->pair[i].slid, l->pair[i].dlid, l->net->sm_lid);
}

static int list_pairs(const struct kr_fabric *f, struct sa_list *l,
		      struct kr_diag *d)
{
	size_t nsrc = 0, nlid = 0;

	for (uint32_t s = 0; s < f->nport; s++)
		nsrc += !kr_is_switch(f, f->owner[s]) && f->peer[s] >= 0 &&
			f->lid[s];
	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		nlid += f->lid_port[lid] != KR_NONE;
	l->pair = malloc((nsrc * nlid + 1) * sizeof(*l->pair));
	if (!l->pair)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (uint32_t s = 0; s < f->nport; s++) {
		if (kr_is_switch(f, f->owner[s]) || f->peer[s] < 0 || !f->lid[s])
			continue;
		for (unsigned lid = 1; lid <= f->max_lid; lid++)
			if (f->lid_port[lid] != KR_NONE && f->lid_port[lid] != s)
				l->pair[l->n++] = (struct kr_sl_pair){
					.slid = f->lid[s], .dlid = (uint16_t)lid };
	}
	return KR_OK;
}

/* Pairs the SA knows no path for (an engine that leaves LIDs unrouted)
 * stay out of path-sl, and the check counts their SL as assumed; the LFT
 * walk shows what happens to them. Said in the log and on stderr. */
static void nopath_note(struct cap_port *p, const struct sa_list *l)
{
	size_t n = 0, first = SIZE_MAX;

	for (size_t i = 0; i < l->n; i++)
		if (l->pair[i].sl == KR_SL_UNKNOWN && !n++)
			first = i;
	if (!n)
		return;
	fprintf(p->log, "path SLs: the SA knows no path for %zu pairs (the "
		"first SLID %u DLID %u); path-sl leaves them out\n", n,
		l->pair[first].slid, l->pair[first].dlid);
	if (!p->o->quiet)
		fprintf(stderr, "knsroute capture: the SA knows no path for %zu "
			"of %zu pairs (the first SLID %u DLID %u); path-sl "
			"leaves them out\n", n, l->n, l->pair[first].slid,
			l->pair[first].dlid);
}

int cap_read_path_sls(struct cap_port *p, const struct cap_net *net,
		      const struct kr_fabric *f, struct kr_tables *t,
		      struct kr_diag *d)
{
	struct sa_list l = { .net = net };
	struct cap_batch b = { .what = "path SLs", .window = p->o->window,
			       .ctx = &l, .build = pr_build,
			       .answer = pr_answer, .name = pr_name };
	int rc;

	if (!net->sm_lid)
		return kr_fail(d, KR_EIO, 0, "no subnet manager: the SM LID of "
			       "%s port %u is 0, so there is no SA to ask for "
			       "path SLs (start one, or use --no-path-sl)",
			       net->ca, net->port);
	rc = list_pairs(f, &l, d);
	b.n = l.n;
	if (!rc)
		rc = cap_batch_run(p, &b, d);
	if (!rc)
		nopath_note(p, &l);
	if (!rc)
		rc = kr_path_sl_set(t, l.pair, l.n, d);
	free(l.pair);
	return rc;
}
