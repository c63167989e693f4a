/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reader for iblinkinfo output (infiniband-diags), the capture admins
 * paste most. Two forms, told apart by their first line:
 *
 *   Switch: 0x0002c90000000008 sw-1:              plain: a header per node,
 *              10    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  18  1[  ] "h-1" ( )
 *   CA: h-1:                                      a CA's lines start with
 *         0x0002c90100000081  18  1[  ] ==( ... )==>  10  1[  ] "sw-1" ( )
 *
 *   0x0002c90000000008 "  sw-1"  10  1[  ] ==( ... )==>  0x0002c90100000081  18  1[  ] "h-1" ( )
 *                                                 -l: a node's GUID (a CA's:
 *                                                 its port's) on every line
 *
 * A port line is "LID PORT[..] ==(state)==> PEERLID PEERPORT[..]" with the
 * peer's description after it; a port without a link ends "==> [ ] """.
 * The plain form names a link's far end by LID and port (so the SM must
 * have given LIDs); -l by GUID and port. Neither gives a CA's node GUID:
 * a CA is named by its lowest port GUID. Nor a node's type in -l: a GUID on
 * several lines is a switch (a switch lists every port, on its one LID),
 * and consecutive lines of one description with other port numbers are
 * one CA (iblinkinfo prints a node's ports together). Nodes are named
 * S-, H- and R-GUID as ibnetdiscover names them, their descriptions kept.
 * No LMC is given (guid2lid supplies it). */
#include "parse_net_int.h"

#include <stdlib.h>
#include <string.h>

struct ibl_port {
	uint32_t node;		/* into ibl.node */
	unsigned port, peer_port, line;
	uint64_t lid, peer_lid;
	uint64_t guid;		/* CA port GUID (plain), the line's GUID (-l) */
	uint64_t peer_guid;	/* -l */
	bool linked;
};

struct ibl_node {
	enum kr_node_type type;
	uint64_t guid;		/* switch: node GUID; CA: lowest port GUID */
	struct span desc;
	unsigned nports, line;
	int id;			/* builder id */
};

struct ibl {
	struct kr_diag *d;
	bool long_form;		/* -l */
	unsigned line;
	struct ibl_port *port;
	struct ibl_node *node;
	uint32_t nport, nnode;
	size_t cap_port, cap_node;
};

static int bad(struct ibl *x, const char *what)
{
	return kr_fail(x->d, KR_EPARSE, x->line, "expected %s (iblinkinfo "
		       "output: \"Switch: 0xGUID DESC:\" or \"CA: DESC:\" "
		       "headers and port lines \"LID PORT[ ] ==(..)==> "
		       "PEERLID PEERPORT[ ] \\\"DESC\\\"\", or with -l one line "
		       "per port starting \"0xGUID \\\"DESC\\\"\")", what);
}

static uint32_t add_node(struct ibl *x, enum kr_node_type type, uint64_t guid,
			 struct span desc)
{
	if (kr_grow(&x->node, &x->cap_node, (size_t)x->nnode + 1,
		    sizeof(*x->node)))
		return KR_NONE;
	x->node[x->nnode] = (struct ibl_node){ type, guid, desc, 0, x->line, -1 };
	return x->nnode++;
}

/* A quoted description, -l's right-aligned padding dropped. */
static bool quoted(struct span *s, struct span *out)
{
	const char *q;

	skip_ws(s);
	if (!eat(s, '"') || !(q = memchr(s->p, '"', (size_t)(s->e - s->p))))
		return false;
	*out = (struct span){ s->p, q };
	skip_ws(out);
	s->p = q + 1;
	return true;
}

/* "LID PORT[..]": the bracket holds an extended port number, or nothing. */
static bool lid_port(struct span *s, uint64_t *lid, unsigned *port)
{
	uint64_t p;

	skip_ws(s);
	if (!get_num(s, 10, 0xffff, lid))
		return false;
	skip_ws(s);
	if (!get_num(s, 10, 254, &p) || !eat(s, '['))
		return false;
	*port = (unsigned)p;
	while (s->p < s->e && *s->p != ']')
		s->p++;
	return eat(s, ']');
}

/* The rest of a port line, from its LID: the link state and far end. */
static int port_rest(struct ibl *x, struct span *s, struct ibl_port *p)
{
	const char *arrow;
	struct span t;

	if (!lid_port(s, &p->lid, &p->port) || !p->port)
		return bad(x, "a LID and a port number with brackets");
	for (arrow = s->p; arrow + 4 <= s->e && memcmp(arrow, ")==>", 4);
	     arrow++)
		;
	if (arrow + 4 > s->e)
		return bad(x, "\"==(\" STATE \")==>\" after the port");
	s->p = arrow + 4;
	skip_ws(s);
	if (s->p < s->e && *s->p == '[')
		return KR_OK;	/* no link */
	if (x->long_form && (!get_num(s, 16, UINT64_MAX, &p->peer_guid) ||
			     !p->peer_guid))
		return bad(x, "the far end's GUID after \")==>\"");
	if (!lid_port(s, &p->peer_lid, &p->peer_port) || !p->peer_port)
		return bad(x, "the far end's LID and port after \")==>\"");
	if (!quoted(s, &t))
		return bad(x, "the far end's description in quotes");
	p->linked = true;
	return KR_OK;
}

static int add_port(struct ibl *x, const struct ibl_port *p)
{
	struct ibl_node *n = &x->node[p->node];

	if (kr_grow(&x->port, &x->cap_port, (size_t)x->nport + 1,
		    sizeof(*x->port)))
		return kr_fail(x->d, KR_ENOMEM, 0, "out of memory");
	x->port[x->nport++] = *p;
	if (p->port > n->nports)
		n->nports = p->port;
	if (n->type != KR_SWITCH && p->guid && (!n->guid || p->guid < n->guid))
		n->guid = p->guid;
	return KR_OK;
}

/* "Switch: 0xGUID DESC:", "CA: DESC:", "Router: DESC:" */
static int plain_header(struct ibl *x, struct span *s, bool *done)
{
	static const struct { const char *word; enum kr_node_type type; }
		head[] = { { "Switch: ", KR_SWITCH }, { "CA: ", KR_CA },
			   { "Router: ", KR_ROUTER } };
	uint64_t guid = 0;

	*done = false;
	for (unsigned i = 0; i < 3 && !*done; i++) {
		if (!eat_word(s, head[i].word))
			continue;
		if (head[i].type == KR_SWITCH &&
		    (!get_num(s, 16, UINT64_MAX, &guid) || !eat(s, ' ')))
			return bad(x, "the switch's GUID after \"Switch:\"");
		while (s->e > s->p && s->e[-1] == ' ')
			s->e--;
		if (s->e == s->p || s->e[-1] != ':')
			return bad(x, "':' at the end of a node's header");
		s->e--;
		if (add_node(x, head[i].type, guid, *s) == KR_NONE)
			return kr_fail(x->d, KR_ENOMEM, 0, "out of memory");
		*done = true;
	}
	return KR_OK;
}

static int plain_line(struct ibl *x, struct span *s)
{
	struct ibl_port p = { .line = x->line };
	bool header;
	int rc = plain_header(x, s, &header);

	if (rc || header)
		return rc;
	if (!x->nnode)
		return bad(x, "a \"Switch:\", \"CA:\" or \"Router:\" header");
	p.node = x->nnode - 1;
	skip_ws(s);
	if (x->node[p.node].type != KR_SWITCH &&
	    (!starts(s, "0x") || !get_num(s, 16, UINT64_MAX, &p.guid) ||
	     !p.guid))
		return bad(x, "a CA port line starting with its port GUID");
	rc = port_rest(x, s, &p);
	return rc ? rc : add_port(x, &p);
}

/* The node of a -l line: its GUID's (a switch's every line, one port of
 * a CA) or, for a CA port, the CA of the line before when that has the
 * same description and not this port. Types are settled later. */
static uint32_t long_node(struct ibl *x, const struct ibl_port *p,
			  struct span desc)
{
	const struct ibl_port *prev = x->nport ? &x->port[x->nport - 1] : NULL;

	if (prev && prev->guid == p->guid)
		return prev->node;
	if (prev && x->node[prev->node].type != KR_SWITCH) {
		const struct ibl_node *n = &x->node[prev->node];
		bool taken = false;

		for (uint32_t i = x->nport; i-- > 0 && x->port[i].node == prev->node;)
			taken |= x->port[i].port == p->port;
		if (!taken && n->desc.e - n->desc.p == desc.e - desc.p &&
		    !memcmp(n->desc.p, desc.p, (size_t)(desc.e - desc.p)))
			return prev->node;
	}
	return add_node(x, KR_CA, p->guid, desc);
}

static int long_line(struct ibl *x, struct span *s)
{
	struct ibl_port p = { .line = x->line };
	struct span desc;
	int rc;

	if (!get_num(s, 16, UINT64_MAX, &p.guid) || !p.guid)
		return bad(x, "a line starting with a GUID");
	if (!quoted(s, &desc))
		return bad(x, "the node's description in quotes after its GUID");
	rc = port_rest(x, s, &p);
	if (rc)
		return rc;
	p.node = long_node(x, &p, desc);
	if (p.node == KR_NONE)
		return kr_fail(x->d, KR_ENOMEM, 0, "out of memory");
	/* a GUID on a second line of its node, on the same LID: a switch */
	if (x->nport && x->port[x->nport - 1].guid == p.guid &&
	    x->port[x->nport - 1].lid == p.lid)
		x->node[p.node].type = KR_SWITCH;
	return add_port(x, &p);
}

struct guid_node {
	uint64_t guid;
	uint32_t node;
};

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = ((const struct guid_node *)a)->guid;
	uint64_t y = ((const struct guid_node *)b)->guid;

	return (x > y) - (x < y);
}

/* Where a far end points: by LID (plain) or GUID (-l) to a node. byguid
 * is every line's GUID, sorted; bylid[0xc000] every line's LID. */
static uint32_t far_node(const struct ibl *x, const struct ibl_port *p,
			 const struct guid_node *byguid, const uint32_t *bylid)
{
	struct guid_node key = { p->peer_guid, 0 }, *hit;

	if (!x->long_form)
		return p->peer_lid < 0xc000 ? bylid[p->peer_lid] : KR_NONE;
	hit = bsearch(&key, byguid, x->nport, sizeof(*byguid), cmp_guid);
	return hit ? hit->node : KR_NONE;
}

static int far_error(struct ibl *x, const struct ibl_port *p)
{
	x->line = p->line;
	if (x->long_form)
		return kr_fail(x->d, KR_EPARSE, p->line, "far end 0x%016llx is "
			       "not a node of the file (a partial scan, or "
			       "--switches-only?)",
			       (unsigned long long)p->peer_guid);
	if (!p->peer_lid)
		return kr_fail(x->d, KR_EPARSE, p->line, "far end on LID 0: the "
			       "plain form names far ends by LID, so it needs "
			       "a subnet whose SM gave LIDs (or use -l)");
	return kr_fail(x->d, KR_EPARSE, p->line, "far end LID %llu is no "
		       "port of the file", (unsigned long long)p->peer_lid);
}

static int add_nodes(struct ibl *x, struct kr_fabric_builder *b)
{
	for (uint32_t i = 0; i < x->nnode; i++) {
		struct ibl_node *n = &x->node[i];
		char name[KR_GUID_NAME_LEN], desc[256];
		size_t dl = (size_t)(n->desc.e - n->desc.p);

		dl = dl < sizeof(desc) ? dl : sizeof(desc) - 1;
		memcpy(desc, n->desc.p, dl);
		desc[dl] = '\0';
		kr_fb_guid_name(name, n->type, n->guid);
		n->id = kr_fb_add_node(b, n->type, n->nports ? n->nports : 1,
				       n->guid, name, desc, n->line, x->d);
		if (n->id < 0)
			return n->id;
	}
	return KR_OK;
}

/* Ports' GUIDs and LIDs, then the links (each given from both ends). */
static int add_ports(struct ibl *x, struct kr_fabric_builder *b,
		     const struct guid_node *byguid, const uint32_t *bylid)
{
	for (uint32_t i = 0; i < x->nport; i++) {
		const struct ibl_port *p = &x->port[i];
		const struct ibl_node *n = &x->node[p->node];
		bool sw = n->type == KR_SWITCH;
		int rc = kr_fb_set_port(b, n->id, sw ? 0 : p->port,
					sw ? n->guid : p->guid,
					(uint16_t)p->lid, 0, p->line, x->d);

		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < x->nport; i++) {
		const struct ibl_port *p = &x->port[i];
		uint32_t z = p->linked ? far_node(x, p, byguid, bylid) : 0;
		int rc;

		if (!p->linked)
			continue;
		if (z == KR_NONE)
			return far_error(x, p);
		rc = kr_fb_link(b, x->node[p->node].id, p->port,
				x->node[z].id, p->peer_port, p->line, x->d);
		if (rc)
			return rc;
	}
	return KR_OK;
}

static int build(struct ibl *x, struct kr_fabric *f)
{
	struct kr_fabric_builder *b = kr_fb_new();
	struct guid_node *byguid = malloc(((size_t)x->nport + 1) *
					  sizeof(*byguid));
	uint32_t *bylid = malloc(0xc000 * sizeof(*bylid));
	int rc = b && byguid && bylid ? KR_OK
		 : kr_fail(x->d, KR_ENOMEM, 0, "out of memory");

	for (uint32_t l = 0; !rc && l < 0xc000; l++)
		bylid[l] = KR_NONE;
	for (uint32_t i = 0; !rc && i < x->nport; i++) {
		byguid[i] = (struct guid_node){ x->port[i].guid, x->port[i].node };
		if (x->port[i].lid && x->port[i].lid < 0xc000)
			bylid[x->port[i].lid] = x->port[i].node;
	}
	if (!rc)
		qsort(byguid, x->nport, sizeof(*byguid), cmp_guid);
	if (!rc)
		rc = add_nodes(x, b);
	if (!rc)
		rc = add_ports(x, b, byguid, bylid);
	if (!rc)
		rc = kr_fb_finish(b, f, x->d);
	kr_fb_free(b);
	free(byguid);
	free(bylid);
	return rc;
}

int ibl_parse(const char *buf, size_t len, const char *name,
	      struct kr_fabric *f, struct kr_diag *d)
{
	struct ibl x = { .d = d, .long_form = len > 2 && buf[0] == '0' };
	const char *p = buf, *end = buf + len;
	int rc = KR_OK;

	*f = (struct kr_fabric){ 0 };
	if (d)
		d->file = name;
	while (!rc && p < end) {
		struct span s = next_line(&p, end);

		x.line++;
		drop_cr(&s);
		skip_ws(&s);
		if (memchr(s.p, '\0', (size_t)(s.e - s.p)))
			rc = kr_fail(d, KR_EPARSE, x.line, "NUL byte in the text");
		else if (s.p < s.e)
			rc = x.long_form ? long_line(&x, &s) : plain_line(&x, &s);
	}
	if (!rc && !x.nnode)
		rc = kr_fail(d, KR_EPARSE, 0, "no node in the iblinkinfo output");
	if (!rc)
		rc = build(&x, f);
	free(x.port);
	free(x.node);
	return rc;
}

bool ibl_detect(const char *buf, size_t len)
{
	struct span s = { buf, buf + len }, t;
	uint64_t guid;

	if (starts(&s, "Switch: ") || starts(&s, "CA: ") ||
	    starts(&s, "Router: "))
		return true;
	/* -l: "0xGUID \"DESC\"" */
	return get_num(&s, 16, UINT64_MAX, &guid) && s.p - buf == 18 &&
	       quoted(&s, &t);
}
