/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reader for OpenSM's opensm-subnet.lst, the topology OpenSM writes into
 * its dump directory at every sweep, so that its dumps alone can be
 * checked. One line per linked port, from each end:
 *
 *   { CA Ports:01 SystemGUID:... NodeGUID:... PortGUID:... VenID:...
 *     DevID:... Rev:... {desc} LID:000C PN:01 } { SW Ports:05 ... LID:0002
 *     PN:05 } PHY=4x LOG=ACT SPD=2.5
 *
 * (one line in the file). Numbers are hex; a type may carry "-SM" (the
 * port's LID is the SM's: kr_fabric.sm_lid); a switch's LID is its port
 * 0's. The file gives
 * no LMC (a CA LID's range comes from --guid2lid, else it is the base LID
 * alone) and no OperVLs. A link whose port is not up (LOG=DWN) is left
 * out, as OpenSM routes none over it. Nodes are named as ibnetdiscover
 * names them (S-, H-, R-GUID). */
#include "parse_net_int.h"

#include <string.h>

struct lst_end {
	enum kr_node_type type;
	bool sm;		/* "-SM": its LID is the SM's */
	uint64_t nports, sysimg, guid, port_guid, vendid, devid, lid, port;
	struct span desc;
};

struct lst {
	struct kr_fabric_builder *b;
	struct kr_diag *d;
	unsigned line;
	uint16_t sm_lid;	/* of the first end marked -SM */
};

/* " KEY:HEX" with the key as given; *v the value. */
static bool field(struct span *s, const char *key, uint64_t max, uint64_t *v)
{
	skip_ws(s);
	return eat_word(s, key) && get_num(s, 16, max, v);
}

static int bad(struct lst *x, const char *what)
{
	return kr_fail(x->d, KR_EPARSE, x->line, "expected %s (an "
		       "opensm-subnet.lst line: \"{ TYPE Ports:.. SystemGUID:.. "
		       "NodeGUID:.. PortGUID:.. VenID:.. DevID:.. Rev:.. {desc} "
		       "LID:.. PN:.. }\" twice, then PHY= LOG= SPD=)", what);
}

/* Where the description that starts at s->p ends. OpenSM prints
 * NodeDescription raw: a "} LID:" inside it is passed over unless a whole
 * "} LID:.. PN:.. }" follows it, then the other end's "{" or "PHY=". When
 * none is whole, the first "} LID:", for the caller to report on. */
static const char *desc_end(const struct span *s)
{
	const char *first = NULL;

	for (const char *c = s->p; c + 6 <= s->e; c++) {
		struct span t = { c + 1, s->e };
		uint64_t v;

		if (memcmp(c, "} LID:", 6))
			continue;
		if (!first)
			first = c;
		if (!field(&t, "LID:", 0xbfff, &v) || !field(&t, "PN:", 254, &v))
			continue;
		skip_ws(&t);
		if (!eat(&t, '}'))
			continue;
		skip_ws(&t);
		if (starts(&t, "{") || starts(&t, "PHY="))
			return c;
	}
	return first;
}

static int end_record(struct lst *x, struct span *s, struct lst_end *n)
{
	uint64_t rev;
	const char *close;

	skip_ws(s);
	if (!eat(s, '{'))
		return bad(x, "\"{\"");
	skip_ws(s);
	if (eat_word(s, "SW"))
		n->type = KR_SWITCH;
	else if (eat_word(s, "CA"))
		n->type = KR_CA;
	else if (eat_word(s, "Rt"))
		n->type = KR_ROUTER;
	else
		return bad(x, "a node type SW, CA or Rt");
	n->sm = eat_word(s, "-SM");
	if (!field(s, "Ports:", 254, &n->nports) || !n->nports)
		return bad(x, "\"Ports:\" and a port count");
	if (!field(s, "SystemGUID:", UINT64_MAX, &n->sysimg) ||
	    !field(s, "NodeGUID:", UINT64_MAX, &n->guid) ||
	    !field(s, "PortGUID:", UINT64_MAX, &n->port_guid))
		return bad(x, "SystemGUID:, NodeGUID: and PortGUID: in hex");
	if (!field(s, "VenID:", UINT32_MAX, &n->vendid) ||
	    !field(s, "DevID:", UINT32_MAX, &n->devid) ||
	    !field(s, "Rev:", UINT32_MAX, &rev))
		return bad(x, "VenID:, DevID: and Rev: in hex");
	skip_ws(s);
	/* ibdiagnet2.lst leaves the description out, braces and all */
	if (starts(s, "LID:")) {
		n->desc = (struct span){ s->p, s->p };
	} else if (!eat(s, '{')) {
		return bad(x, "the node description in braces");
	} else {
		n->desc.p = s->p;
		if (!(close = desc_end(s)))
			return bad(x, "\"} LID:\" after the description");
		n->desc.e = close;
		s->p = close + 1;
	}
	if (!field(s, "LID:", 0xbfff, &n->lid) ||
	    !field(s, "PN:", 254, &n->port) || !n->port || n->port > n->nports)
		return bad(x, "\"LID:\" and \"PN:\" with a port of the node");
	skip_ws(s);
	return eat(s, '}') ? KR_OK : bad(x, "\"}\" after PN:");
}

/* The builder id of the node an end names, added on first sight; its
 * port's GUID and LID (a switch's: port 0's) recorded. */
static int end_node(struct lst *x, const struct lst_end *n)
{
	char name[KR_GUID_NAME_LEN], desc[256];
	size_t dl = (size_t)(n->desc.e - n->desc.p);
	unsigned port = n->type == KR_SWITCH ? 0 : (unsigned)n->port;
	int id, rc;

	kr_fb_guid_name(name, n->type, n->guid);
	id = kr_fb_find(x->b, name);
	if (id < 0) {
		if (dl >= sizeof(desc))
			dl = sizeof(desc) - 1;
		memcpy(desc, n->desc.p, dl);
		desc[dl] = '\0';
		id = kr_fb_add_node(x->b, n->type, (unsigned)n->nports, n->guid,
				    name, desc, x->line, x->d);
		if (id < 0)
			return id;
		kr_fb_set_ids(x->b, id, n->sysimg, (uint32_t)n->vendid,
			      (uint32_t)n->devid);
	}
	rc = kr_fb_set_port(x->b, id, port, n->port_guid, (uint16_t)n->lid, 0,
			    x->line, x->d);
	return rc ? rc : id;
}

static int lst_line(struct lst *x, struct span *s)
{
	struct lst_end a, z;
	int ia, iz, rc;
	const char *state;

	skip_ws(s);
	if (s->p == s->e)
		return KR_OK;
	if ((rc = end_record(x, s, &a)) || (rc = end_record(x, s, &z)))
		return rc;
	if (!x->sm_lid && (a.sm || z.sm))
		x->sm_lid = (uint16_t)(a.sm ? a.lid : z.lid);
	skip_ws(s);
	state = s->p;
	while (state + 4 <= s->e && memcmp(state, "LOG=", 4))
		state++;
	if (state + 7 > s->e)
		return bad(x, "\"LOG=\" and the port state after the two ends");
	if ((ia = end_node(x, &a)) < 0)
		return ia;
	if ((iz = end_node(x, &z)) < 0)
		return iz;
	if (!memcmp(state + 4, "DWN", 3))
		return KR_OK;
	return kr_fb_link(x->b, ia, (unsigned)a.port, iz, (unsigned)z.port,
			  x->line, x->d);
}

int lst_parse(const char *buf, size_t len, const char *name,
	      struct kr_fabric *f, struct kr_diag *d)
{
	struct lst x = { .b = kr_fb_new(), .d = d };
	const char *p = buf, *end = buf + len;
	int rc = x.b ? KR_OK : kr_fail(d, KR_ENOMEM, 0, "out of memory");

	*f = (struct kr_fabric){ 0 };
	if (d)
		d->file = name;
	while (!rc && p < end) {
		struct span s = next_line(&p, end);

		x.line++;
		if (memchr(s.p, '\0', (size_t)(s.e - s.p)))
			rc = kr_fail(d, KR_EPARSE, x.line, "NUL byte in the text");
		else
			rc = lst_line(&x, &s);
	}
	if (!rc)
		rc = kr_fb_finish(x.b, f, d);
	if (!rc)
		f->sm_lid = x.sm_lid;
	kr_fb_free(x.b);
	return rc;
}

bool lst_detect(const char *buf, size_t len)
{
	return len >= 5 && !memcmp(buf, "{ ", 2) &&
	       (!memcmp(buf + 2, "SW", 2) || !memcmp(buf + 2, "CA", 2) ||
		!memcmp(buf + 2, "Rt", 2));
}
