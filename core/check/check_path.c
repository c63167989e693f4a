/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* One pair, hop by hop: what `knsroute path` shows. The checker's walk
 * (check.c) memoises across all pairs and keeps no hop list, so a single
 * path is followed here on its own, with the checker's failure reasons. */
#include "kr_check.h"

#include <stdlib.h>

static int push(struct kr_path *p, uint32_t node, unsigned in, unsigned out,
		unsigned vl, uint8_t why)
{
	if (p->nhop % 16 == 0) {
		struct kr_hop *h = realloc(p->hop, (p->nhop + 16) * sizeof(*h));

		if (!h)
			return KR_ENOMEM;
		p->hop = h;
	}
	p->hop[p->nhop++] = (struct kr_hop){ .node = node, .in = (uint8_t)in,
					     .out = (uint8_t)out,
					     .vl = (uint8_t)vl, .why = why };
	return KR_OK;
}

/* Sends on (node, in -> out): the hop, and a failure if its VL is unusable
 * on the sending port. */
static int send(struct kr_path *p, const struct kr_fabric *f,
		const struct kr_tables *t, uint32_t node, unsigned in,
		unsigned out)
{
	uint32_t slot = f->port0[node] + out;
	unsigned vl = kr_map_vl(kr_tables_sl2vl(f, t, node, in, out), p->sl);
	uint8_t oper = f->oper_vls[slot];
	uint8_t why = kr_tables_sl2vl_given(f, t, node, in, out)
			      ? 0 : KR_CHECK_ASSUMED_MAP;

	p->at = slot;
	if (push(p, node, in, out, vl, why))
		return KR_ENOMEM;
	if (vl == KR_VL15)
		p->fail = KR_CHECK_VL15;
	else if (oper && vl >= oper)
		p->fail = KR_CHECK_OPER_VL;
	return KR_OK;
}

/* The packet arrives at slot: delivered when that port owns the DLID. */
static void arrive(struct kr_path *p, const struct kr_fabric *f, uint32_t slot)
{
	p->at = slot;
	p->fail = kr_port_by_lid(f, p->dlid) == slot ? -1 : KR_CHECK_WRONG_DEST;
}

static int through_switches(struct kr_path *p, const struct kr_fabric *f,
			    const struct kr_tables *t, uint32_t sw, unsigned in)
{
	for (uint32_t n = 0; n <= f->nsw; n++) {
		unsigned out = kr_lft_port(t, sw, p->dlid);
		int32_t peer;

		if (out > f->nports[sw]) {
			p->at = f->port0[sw];
			p->fail = KR_CHECK_NO_ENTRY;
			return push(p, sw, in, KR_NO_PORT, 0, 0);
		}
		if (out == 0) {
			arrive(p, f, f->port0[sw]);
			return push(p, sw, in, 0, 0, 0);
		}
		if (send(p, f, t, sw, in, out))
			return KR_ENOMEM;
		if (p->fail >= 0)
			return KR_OK;
		peer = f->peer[f->port0[sw] + out];
		if (peer < 0) {
			p->fail = KR_CHECK_DOWN_PORT;
			return KR_OK;
		}
		if (!kr_is_switch(f, f->owner[peer])) {
			arrive(p, f, (uint32_t)peer);
			return KR_OK;
		}
		sw = f->owner[peer];
		in = kr_port_num(f, (uint32_t)peer);
	}
	p->at = f->port0[sw];
	p->fail = KR_CHECK_LOOP;	/* more switches than the fabric has */
	return KR_OK;
}

int kr_check_path(const struct kr_fabric *f, const struct kr_tables *t,
		  uint32_t src, unsigned dlid, struct kr_path *p)
{
	uint32_t node = f->owner[src];
	unsigned port = kr_port_num(f, src);
	int32_t peer;

	*p = (struct kr_path){ .slid = f->lid[src], .dlid = (uint16_t)dlid,
			       .fail = -1 };
	p->sl = (uint8_t)kr_tables_path_sl(t, p->slid, dlid);
	p->sl_assumed = t->sl_given && dlid < t->stride &&
			t->sl_given[dlid] != KR_SL_ALL &&
			!(t->sl_given[dlid] == KR_SL_CAS && !kr_is_switch(f, node)) &&
			!kr_tables_pair_given(t, p->slid, dlid);
	if (kr_is_switch(f, node))
		return through_switches(p, f, t, node, 0);
	if (send(p, f, t, node, port, port))
		return KR_ENOMEM;
	if (p->fail >= 0)
		return KR_OK;
	peer = f->peer[src];
	if (peer < 0) {
		p->fail = KR_CHECK_DOWN_PORT;
		return KR_OK;
	}
	if (!kr_is_switch(f, f->owner[peer])) {
		arrive(p, f, (uint32_t)peer);
		return KR_OK;
	}
	return through_switches(p, f, t, f->owner[peer],
				kr_port_num(f, (uint32_t)peer));
}

void kr_path_free(struct kr_path *p)
{
	free(p->hop);
	*p = (struct kr_path){ 0 };
}
