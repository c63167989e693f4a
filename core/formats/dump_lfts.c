/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* LFT dumps: OpenSM's opensm-lfts.dump and opensm.fdbs, ibroute / dump_fts
 * output.
 *
 * All print one block per switch. opensm-lfts.dump and ibroute: a "Unicast
 * lids [LO-HI] of switch ... guid 0x... (desc):" header, one "0xLID PORT
 * ..." line per routed LID and a "N lids dumped" trailer. OpenSM writes the
 * range in decimal and N = HI; ibroute writes it in hex, adds two
 * column-title lines and N counts the entries. The comment after an entry
 * names the port owning the LID; where it does, it must be the port the
 * topology gives that LID.
 *
 * opensm.fdbs (OpenSM with -D 0x40 in its log flags, e.g. -D 0x43): a
 * "dump_ucast_routes: Switch 0xGUID" header (older OpenSM and ibdiagnet
 * prefix "osm_ucast_mgr_"), the column titles "LID    : Port : Hops :
 * Optimal", then for every LID from 1 "0xLID : PORT  : HOPS : yes" (or a
 * note on the hops) or "0xLID : UNREACHABLE" when no port has the LID or
 * the switch has no route; no trailer, no owners, no switch LID. */
#include "kr_dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dump_int.h"
#include "kr_atomic.h"
#include "kr_io.h"
#include "kr_out.h"

enum { FMT_OPENSM, FMT_IBROUTE, FMT_FDBS };

struct lft_block {
	uint32_t sw;
	int fmt;
	unsigned line;		/* of the header */
	uint64_t lo, hi;
	uint64_t count;		/* entries seen */
	int64_t last;		/* last LID seen, -1 */
};

struct lft_parse {
	struct dump_lines r;
	const struct kr_fabric *f;
	struct kr_tables *t;
	struct kr_diag *d;
	unsigned *sw_line;	/* [nsw] header line of each switch's block */
	struct lft_block b;
	bool in_block;
	char **owner_ok;	/* [owner_cap] the last comment after a LID's
				 * port found right: every block repeats it,
				 * and comparing beats parsing the GUID again */
	size_t owner_cap;
};

static const char *const type_str[] = { "UNKNOWN", "Channel Adapter",
					"Switch", "Router" };

static const char *node_type_str(unsigned type)
{
	return type <= KR_ROUTER ? type_str[type] : type_str[0];
}

/* "Unicast lids [LO-HI]": fills lo, hi and tells the format apart. */
static bool header_range(const char **s, struct lft_block *b)
{
	b->fmt = (*s)[0] == '0' && (*s)[1] == 'x' ? FMT_IBROUTE : FMT_OPENSM;
	return dump_number(s, 0xffff, &b->lo) && dump_match(s, "-") &&
	       dump_number(s, 0xffff, &b->hi) && dump_match(s, "] of switch ") &&
	       b->lo <= b->hi;
}

/* "0xLID : " of an opensm.fdbs entry; *s moves past it. */
static bool fdbs_lid(const char **s, uint64_t *lid)
{
	return (*s)[0] == '0' && (*s)[1] == 'x' && dump_number(s, 0xffff, lid) &&
	       dump_match(s, " : ");
}

/* "dump_ucast_routes: Switch ", with the prefixes older OpenSM and
 * ibdiagnet write; *s moves past it. */
static bool fdbs_header(const char **s)
{
	static const char *const prefix[] = { "", "osm_ucast_mgr_",
					      "__osm_ucast_mgr_" };
	const char *p;

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++) {
		p = *s;
		if (dump_match(&p, prefix[i]) &&
		    dump_match(&p, "dump_ucast_routes: Switch ")) {
			*s = p;
			return true;
		}
	}
	return false;
}

static int check_switch_lid(struct lft_parse *ps, const char *s)
{
	const struct kr_fabric *f = ps->f;
	uint16_t have = f->lid[f->port0[ps->b.sw]];
	uint64_t lid;

	if (!dump_match(&s, "Lid ") || !have)
		return KR_OK;	/* a DR path, or a topology without LIDs */
	if (!dump_number(&s, 0xffff, &lid))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected the switch LID after \"Lid \"");
	if (lid != have)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "switch \"%s\" has LID %u in the topology, %u here",
			       kr_node_name(f, ps->b.sw), have, (unsigned)lid);
	return KR_OK;
}

/* LIDs 0 .. hi in every row. The table starts at the topology's LIDs and
 * grows when a header or entry goes beyond them (LIDs no port owns): the
 * stream is read once, so nothing can be sized from its end. */
static int lft_cover(struct lft_parse *ps, uint64_t hi)
{
	struct kr_tables *t = ps->t;
	uint32_t old = t->stride, stride = (uint32_t)hi + 1;
	uint8_t *p;

	if (hi < old)
		return KR_OK;
	p = realloc(t->lft, (size_t)t->nsw * stride + 1);
	if (!p)
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	for (uint32_t sw = t->nsw; sw-- > 0;) {
		memmove(p + (size_t)sw * stride, p + (size_t)sw * old, old);
		memset(p + (size_t)sw * stride + old, KR_NO_PORT, stride - old);
	}
	t->lft = p;
	t->stride = stride;
	return KR_OK;
}

/* The switch a block header names starts a block of its own. */
static int open_block(struct lft_parse *ps, uint64_t guid)
{
	const struct kr_fabric *f = ps->f;
	unsigned lineno = ps->r.lineno;
	uint32_t n;
	int rc = dump_block_switch(f, guid, lineno, ps->sw_line, &n, ps->d);

	if (rc)
		return rc;
	ps->b.sw = n;
	ps->b.line = lineno;
	ps->b.count = 0;
	ps->b.last = -1;
	ps->in_block = true;
	return KR_OK;
}

static int parse_header(struct lft_parse *ps, const char *s)
{
	const char *g = strstr(s, " guid 0x");
	uint64_t guid;
	int rc;

	if (!g || !(g += 6, dump_hex_guid(&g, &guid)))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"guid 0x...\" in the switch header");
	rc = lft_cover(ps, ps->b.hi);
	if (!rc)
		rc = open_block(ps, guid);
	return rc ? rc : check_switch_lid(ps, s);
}

/* An opensm.fdbs block has every LID from 1 up to the switch's top, and
 * its column titles on the line after the header. */
static int parse_fdbs_header(struct lft_parse *ps, const char *s)
{
	uint64_t guid;
	int rc;

	if (!dump_hex_guid(&s, &guid) || !dump_blank(s))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected "
			       "\"dump_ucast_routes: Switch 0xGUID\"");
	rc = open_block(ps, guid);
	if (rc)
		return rc;
	ps->b.fmt = FMT_FDBS;
	ps->b.lo = 1;
	ps->b.hi = ps->t->stride - 1;
	rc = dump_next_line(&ps->r, ps->d);
	if (rc < 0)
		return rc;
	s = ps->r.line;
	if (!rc || !dump_match(&s, "LID") || !dump_match(&s, "    : Port : Hops"))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected the "
			       "column titles \"LID    : Port : Hops : "
			       "Optimal\" after the switch header");
	return KR_OK;
}

/* The port GUID an entry's comment names must own the LID. */
static int check_owner(struct lft_parse *ps, unsigned lid, const char *rest)
{
	const struct kr_fabric *f = ps->f;
	const char *g = strstr(rest, "portguid 0x");
	uint64_t guid;
	uint32_t slot;

	if (!g)
		return KR_OK;
	g += 9;
	if (!dump_hex_guid(&g, &guid))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected a port GUID after \"portguid\"");
	slot = kr_port_by_lid(f, lid);
	if (slot == KR_NONE) {
		uint32_t named = kr_port_by_guid(f, guid);

		/* opensm-subnet.lst, say, gives base LIDs alone */
		if (named != KR_NONE && f->lid[named])
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "LID %u of port GUID 0x%016" PRIx64 ", which "
				       "has LID %u (LMC %u) in the topology: the "
				       "LIDs differ (a guid2lid cache older than "
				       "the dump?), or the topology lacks the LMC "
				       "(OpenSM's guid2lid cache gives it: "
				       "--guid2lid)",
				       lid, guid, f->lid[named], f->lmc[named]);
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "unknown LID %u (port GUID 0x%016" PRIx64 " here): "
			       "no port of the topology has it", lid, guid);
	}
	if (f->port_guid[slot] != guid)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "LID %u belongs to port GUID 0x%016" PRIx64
			       " (\"%s\" port %u) in the topology, not 0x%016"
			       PRIx64, lid, f->port_guid[slot],
			       kr_node_name(f, f->owner[slot]),
			       kr_port_num(f, slot), guid);
	return KR_OK;
}

/* An entry's LID is in the block's range and above the one before. */
static int entry_lid(struct lft_parse *ps, uint64_t lid)
{
	struct lft_block *b = &ps->b;
	unsigned lineno = ps->r.lineno;

	if (lid < b->lo || lid > b->hi)
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "LID %u outside the block's range %u-%u",
			       (unsigned)lid, (unsigned)b->lo, (unsigned)b->hi);
	if ((int64_t)lid <= b->last)
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "LID %u after LID %u: LIDs must ascend",
			       (unsigned)lid, (unsigned)b->last);
	b->last = (int64_t)lid;
	b->count++;
	return KR_OK;
}

static int entry_port(struct lft_parse *ps, uint64_t port)
{
	const struct kr_fabric *f = ps->f;
	unsigned nports = f->nports[ps->b.sw];

	if (port > nports)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "port %u beyond switch \"%s\" (%u ports)",
			       (unsigned)port, kr_node_name(f, ps->b.sw), nports);
	return KR_OK;
}

/* check_owner, skipped for the text it last passed for this LID. */
static int check_owner_once(struct lft_parse *ps, unsigned lid,
			    const char *rest)
{
	char **ok;
	int rc;

	if (kr_grow(&ps->owner_ok, &ps->owner_cap, (size_t)lid + 1,
		    sizeof(*ok)))
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	ok = &ps->owner_ok[lid];
	if (*ok && !strcmp(*ok, rest))
		return KR_OK;
	rc = check_owner(ps, lid, rest);
	if (!rc) {
		free(*ok);
		*ok = strdup(rest);	/* NULL: only the shortcut is lost */
	}
	return rc;
}

static int parse_entry(struct lft_parse *ps, const char *s)
{
	struct lft_block *b = &ps->b;
	uint64_t lid, port;
	int rc;

	if (!dump_number(&s, 0xffff, &lid) || *s != ' ' ||
	    (s = dump_skip_ws(s), !dump_number(&s, 255, &port)) ||
	    (*s && *s != ' '))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected an LFT entry \"0xLID PORT\"");
	rc = entry_lid(ps, lid);
	if (rc)
		return rc;
	if (b->fmt == FMT_IBROUTE && strstr(s, "illegal port"))
		return KR_OK;	/* ibroute -a shows unrouted LIDs too */
	if (port == KR_NO_PORT)
		return KR_OK;	/* OpenSM's "no path": left without a route */
	rc = entry_port(ps, port);
	if (!rc)
		rc = check_owner_once(ps, (unsigned)lid, s);
	if (!rc)
		ps->t->lft[(size_t)b->sw * ps->t->stride + lid] = (uint8_t)port;
	return rc;
}

/* "0xLID : PORT  : ..." or "0xLID : UNREACHABLE"; what follows the port
 * (hops, whether they are minimal) is OpenSM's opinion, not the table. */
static int parse_fdbs_entry(struct lft_parse *ps, const char *s)
{
	uint64_t lid, port;
	int rc;

	if (!fdbs_lid(&s, &lid))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected an "
			       "entry \"0xLID : PORT ...\" or \"0xLID : "
			       "UNREACHABLE\"");
	rc = lft_cover(ps, lid);
	ps->b.hi = ps->t->stride - 1;
	if (!rc)
		rc = entry_lid(ps, lid);
	if (rc || (dump_match(&s, "UNREACHABLE") && dump_blank(s)))
		return rc;
	if (!dump_number(&s, 255, &port) || (*s && *s != ' '))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected a "
			       "port number or UNREACHABLE after \"0x%04X : \"",
			       (unsigned)lid);
	rc = entry_port(ps, port);
	if (!rc)
		ps->t->lft[(size_t)ps->b.sw * ps->t->stride + lid] =
			(uint8_t)port;
	return rc;
}

static int parse_trailer(struct lft_parse *ps, const char *s)
{
	struct lft_block *b = &ps->b;
	uint64_t n, want = b->fmt == FMT_OPENSM ? b->hi : b->count;
	const char *tail;

	if (!dump_number(&s, UINT32_MAX, &n))
		return 0;
	tail = b->fmt == FMT_OPENSM ? " lids dumped" : " valid lids dumped";
	if (!dump_match(&s, tail) && !(b->fmt == FMT_IBROUTE &&
				       dump_match(&s, " lids dumped")))
		return 0;
	if (!dump_blank(s))
		return 0;
	if (n != want)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "\"%u lids dumped\" but expected %u for the block "
			       "of line %u", (unsigned)n, (unsigned)want, b->line);
	ps->in_block = false;
	return 1;
}

static bool column_titles(const char *s)
{
	s = dump_skip_ws(s);
	return !strncmp(s, "Lid  Out", 8) || !strncmp(s, "Port     Info", 13);
}

static int parse_line(struct lft_parse *ps)
{
	const char *s = ps->r.line;
	int rc;

	/* entries first: they are nearly every line, and no header starts
	 * with "0x" */
	if (ps->in_block && s[0] == '0' && s[1] == 'x')
		return ps->b.fmt == FMT_FDBS ? parse_fdbs_entry(ps, s)
					     : parse_entry(ps, s);
	if (fdbs_header(&s)) {
		if (ps->in_block && ps->b.fmt != FMT_FDBS)
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "new switch block before the \"lids "
				       "dumped\" line of the block of line %u",
				       ps->b.line);
		return parse_fdbs_header(ps, s);
	}
	if (ps->in_block && ps->b.fmt == FMT_FDBS) {
		if (dump_blank(s))	/* ibdiagnet ends each block so */
			return KR_OK;
		return parse_fdbs_entry(ps, s);
	}
	if (dump_match(&s, "Unicast lids [")) {
		if (ps->in_block)
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "new switch block before the \"lids "
				       "dumped\" line of the block of line %u",
				       ps->b.line);
		if (!header_range(&s, &ps->b))
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "expected \"Unicast lids [LO-HI] of "
				       "switch ...\"");
		return parse_header(ps, s);
	}
	if (!ps->in_block) {
		if (dump_blank(s) || !strncmp(s, "ibwarn:", 7) ||
		    strstr(s, "*** WARNING ***"))
			return KR_OK;	/* dump_lfts.sh and stderr noise */
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"Unicast lids [LO-HI] of switch ...\"");
	}
	if (ps->b.fmt == FMT_IBROUTE && column_titles(s))
		return KR_OK;
	rc = parse_trailer(ps, s);
	if (rc)
		return rc < 0 ? rc : KR_OK;
	return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
		       "expected an LFT entry \"0xLID PORT ...\" or "
		       "\"N lids dumped\"");
}

static int lfts_run(const struct dump_src *src, const struct kr_fabric *f,
		    struct kr_tables *t, struct kr_diag *d)
{
	struct lft_parse ps = { .f = f, .t = t, .d = d };
	int rc;

	if (kr_tables_init(t, f, f->max_lid + 1u, 0, 0))
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	ps.sw_line = calloc(f->nsw + 1, sizeof(*ps.sw_line));
	if (!ps.sw_line) {
		kr_tables_free(t);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	dump_lines_init(&ps.r, src);
	while ((rc = dump_next_line(&ps.r, d)) > 0 && !(rc = parse_line(&ps)))
		;
	if (!rc && ps.in_block && ps.b.fmt != FMT_FDBS)
		rc = kr_fail(d, KR_EPARSE, ps.r.lineno,
			     "truncated: the block of line %u has no \"lids "
			     "dumped\" line", ps.b.line);
	if (!rc && !(t->lft_given = malloc((size_t)f->nsw + 1)))
		rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (uint32_t n = 0; !rc && n < f->nsw; n++)
		t->lft_given[n] = ps.sw_line[n] != 0;
	for (size_t lid = 0; lid < ps.owner_cap; lid++)
		free(ps.owner_ok[lid]);
	free(ps.owner_ok);
	free(ps.sw_line);
	if (rc)
		kr_tables_free(t);
	return rc;
}

int kr_lfts_parse(const char *buf, size_t len, const struct kr_fabric *f,
		  struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return lfts_run(&src, f, t, d);
}

int kr_lfts_read(const char *path, const struct kr_fabric *f,
		 struct kr_tables *t, struct kr_diag *d)
{
	return dump_read(path, lfts_run, f, t, d);
}

/* Each LID's line ("0xLID PPP # TYPE portguid 0x...: 'desc'") is the same
 * in every switch's block but for the port. The lines are built once into
 * one block; each switch puts its three port digits into it and writes the
 * runs of LIDs it routes straight from there, so that the bytes are copied
 * once, by the kernel, instead of line by line into a buffer first. */
/* Every LID's line, in nslot copies: a switch's block is its slot's copy
 * with the switch's ports written in, so that the blocks of nslot
 * switches can go to the kernel in one writev (kr_gather) before the
 * copies are written over. Each slot also holds its switch's header and
 * trailer. */
#define LFT_SLOTS_MAX 16
#define LFT_HEAD_MAX 128	/* a header but for the description */
struct lid_lines {
	size_t *off;		/* [stride + 1] line of LID l: off[l] .. */
	size_t len;		/* of one copy */
	unsigned nslot;
	char *text[LFT_SLOTS_MAX];
	char *head[LFT_SLOTS_MAX];	/* [LFT_HEAD_MAX + longest description] */
	char tail[LFT_SLOTS_MAX][32];
	char port[256][3];	/* "%03u" of every port number */
};

#define PORT_AT 7		/* "0xLLLL " */

static char *put(char *q, const char *s)
{
	size_t n = strlen(s);

	memcpy(q, s, n);
	return q + n;
}

static size_t lid_line(char *p, const struct kr_fabric *f, unsigned lid)
{
	uint32_t slot = kr_port_by_lid(f, lid);
	char *q = kr_fmt_hex(put(p, "0x"), lid, 4, 0);

	q = put(q, " 000 # ");
	if (slot == KR_NONE)
		return (size_t)(put(q, "unknown node and type\n") - p);
	q = put(q, node_type_str(f->type[f->owner[slot]]));
	q = kr_fmt_hex(put(q, " portguid 0x"), f->port_guid[slot], 16, 0);
	q = put(put(q, ": '"), kr_node_desc(f, f->owner[slot]));
	return (size_t)(put(q, "'\n") - p);
}

/* Longest line of a LID: a GUID, a type name and the description. */
static size_t lid_line_max(const struct kr_fabric *f, unsigned lid)
{
	uint32_t slot = kr_port_by_lid(f, lid);

	return 64 + (slot == KR_NONE ? 0 : strlen(kr_node_desc(f, f->owner[slot])));
}

static void lines_free(struct lid_lines *l)
{
	for (unsigned i = 0; i < LFT_SLOTS_MAX; i++) {
		free(l->text[i]);
		free(l->head[i]);
	}
	free(l->off);
}

static int lines_build(struct lid_lines *l, const struct kr_fabric *f,
		       const struct kr_tables *t)
{
	size_t cap = 0, desc = 0;

	*l = (struct lid_lines){ .nslot = 1 };
	l->off = malloc((t->stride + 1) * sizeof(*l->off));
	for (unsigned lid = 0; lid < t->stride; lid++)
		cap += lid_line_max(f, lid);
	l->text[0] = malloc(cap + 1);
	if (!l->off || !l->text[0]) {
		lines_free(l);
		return KR_ENOMEM;
	}
	l->off[0] = 0;
	for (unsigned lid = 0; lid < t->stride; lid++)
		l->off[lid + 1] = l->off[lid] +
				  lid_line(l->text[0] + l->off[lid], f, lid);
	l->len = l->off[t->stride];
	while (l->nslot < LFT_SLOTS_MAX &&
	       (l->nslot + 1) * l->len <= KR_GATHER_BYTES)
		l->nslot++;
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		if (strlen(kr_node_desc(f, sw)) > desc)
			desc = strlen(kr_node_desc(f, sw));
	for (unsigned i = 0; i < l->nslot; i++) {
		if ((i && !(l->text[i] = malloc(l->len + 1))) ||
		    !(l->head[i] = malloc(LFT_HEAD_MAX + desc))) {
			lines_free(l);
			return KR_ENOMEM;
		}
		if (i)
			memcpy(l->text[i], l->text[0], l->len);
	}
	for (unsigned port = 0; port < 256; port++) {
		l->port[port][0] = (char)('0' + port / 100);
		l->port[port][1] = (char)('0' + port / 10 % 10);
		l->port[port][2] = (char)('0' + port % 10);
	}
	return KR_OK;
}

/* The header of switch sw's block into p; its length. */
static size_t header(char *p, const struct kr_fabric *f,
		     const struct kr_tables *t, uint32_t sw)
{
	char *q = kr_fmt_u(put(p, "Unicast lids [0-"), t->stride - 1);

	q = kr_fmt_u(put(q, "] of switch Lid "), f->lid[f->port0[sw]]);
	q = kr_fmt_hex(put(q, " guid 0x"), f->guid[sw], 16, 0);
	q = put(put(put(q, " ('"), kr_node_desc(f, sw)), "'):\n");
	return (size_t)(q - p);
}

/* Switch sw's block, in slot's copy of the lines: the LIDs it routes (an
 * entry beyond its ports is none: OpenSM leaves those out), in runs of
 * consecutive lines, between header and trailer. */
static void write_block(struct kr_gather *g, const struct kr_fabric *f,
			const struct kr_tables *t, struct lid_lines *l,
			unsigned slot, uint32_t sw)
{
	const uint8_t *row = t->lft + (size_t)sw * t->stride;
	unsigned nports = f->nports[sw], lid = 0;
	char *text = l->text[slot];

	kr_gather_add(g, l->head[slot], header(l->head[slot], f, t, sw));
	while (lid < t->stride) {
		unsigned first;

		while (lid < t->stride && row[lid] > nports)
			lid++;
		for (first = lid; lid < t->stride && row[lid] <= nports; lid++)
			memcpy(text + l->off[lid] + PORT_AT,
			       l->port[row[lid]], 3);
		kr_gather_add(g, text + l->off[first],
			      l->off[lid] - l->off[first]);
	}
	kr_gather_add(g, l->tail[slot],
		      (size_t)(put(kr_fmt_u(l->tail[slot], t->stride - 1),
				   " lids dumped\n") - l->tail[slot]));
}

int kr_lfts_write(FILE *out, const struct kr_fabric *f,
		  const struct kr_tables *t)
{
	uint32_t *order = dump_switch_order(f);
	struct lid_lines l;
	struct kr_gather g;
	int rc;

	if (!order || lines_build(&l, f, t)) {
		free(order);
		return KR_ENOMEM;
	}
	kr_gather_open(&g, out);
	/* every switch routing every LID, headers and trailers aside: the
	 * dump of a pristine fabric, about, and more than that of one with
	 * entries missing. Counting them would take a pass over the LFTs
	 * as long as a tenth of the writing. */
	kr_gather_expect(&g, (uint64_t)f->nsw * l.len);
	/* a dry run whose check failed throws the file away: no reason to
	 * write gigabytes more of it */
	for (uint32_t i = 0; i < f->nsw && !kr_write_stopped(); i++) {
		unsigned slot = i % l.nslot;

		if (!slot)	/* the copies' last blocks are out */
			kr_gather_flush(&g);
		write_block(&g, f, t, &l, slot, order[i]);
	}
	rc = kr_gather_close(&g);
	free(order);
	lines_free(&l);
	return rc;
}

/* ------------------------------------------------------------------ */
/* LIDs from the comments                                              */

/* Each entry's comment names the port GUID owning its LID; every block
 * repeats them, so they must agree. */
/* A LID's port slot (KR_NONE: unowned) and the line that first named it;
 * an array of them grows to cap as LIDs come. */
struct lid_owner {
	uint32_t slot;
	unsigned line;
};

struct lid_owners {
	struct lid_owner *at;
	size_t cap;
};

static int lid_owner(struct dump_lines *r, const struct kr_fabric *f,
		     struct lid_owners *o, struct kr_diag *d)
{
	const char *s = dump_skip_ws(r->line), *g;
	uint64_t lid, guid;
	uint32_t slot;

	if (fdbs_header(&s))
		return kr_fail(d, KR_EPARSE, r->lineno, "opensm.fdbs names no "
			       "port GUIDs, so it cannot give the LIDs: use a "
			       "topology with LIDs, or --guid2lid");
	if (strncmp(s, "0x", 2) || !dump_number(&s, 0xffff, &lid) ||
	    !(g = strstr(s, "portguid 0x")))
		return KR_OK;
	g += 9;
	if (!dump_hex_guid(&g, &guid))
		return kr_fail(d, KR_EPARSE, r->lineno,
			       "expected a port GUID after \"portguid\"");
	slot = kr_port_by_guid(f, guid);
	if (slot == KR_NONE)
		return kr_fail(d, KR_EPARSE, r->lineno, "LID %u: no port of "
			       "the topology has port GUID 0x%016" PRIx64,
			       (unsigned)lid, guid);
	if (lid >= o->cap) {
		size_t was = o->cap;

		if (kr_grow(&o->at, &o->cap, (size_t)lid + 1, sizeof(*o->at)))
			return kr_fail(d, KR_ENOMEM, 0, "out of memory");
		/* an owner not seen yet: all ones (KR_NONE) */
		memset(o->at + was, 0xff, (o->cap - was) * sizeof(*o->at));
	}
	if (o->at[lid].slot != KR_NONE && o->at[lid].slot != slot)
		return kr_fail(d, KR_EPARSE, r->lineno, "LID %u named port GUID "
			       "0x%016" PRIx64 " here, 0x%016" PRIx64 " on line %u",
			       (unsigned)lid, guid, f->port_guid[o->at[lid].slot],
			       o->at[lid].line);
	if (o->at[lid].slot == KR_NONE)
		o->at[lid] = (struct lid_owner){ slot, r->lineno };
	return KR_OK;
}

/* A port's LIDs must form one range of 2^LMC, aligned to it; a port
 * that had a LID before keeps it. */
static int set_lids(struct kr_fabric *f, const struct lid_owners *o,
		    struct kr_diag *d)
{
	unsigned *range_line = calloc(f->nport, sizeof(*range_line));
	int rc = KR_OK;

	if (!range_line)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (size_t lid = 1, n; lid < o->cap; lid += n) {
		uint32_t slot = o->at[lid].slot;
		unsigned lmc;

		for (n = 1; lid + n < o->cap && o->at[lid + n].slot == slot; n++)
			;
		if (slot == KR_NONE || (f->lid[slot] && !range_line[slot]))
			continue;
		lmc = kr_ceil_log2(n);
		if (range_line[slot])
			rc = kr_fail(d, KR_EPARSE, o->at[lid].line, "port GUID "
				     "0x%016" PRIx64 " has LID %u (line %u) and "
				     "LID %zu: a port's LIDs are one range",
				     f->port_guid[slot], f->lid[slot],
				     range_line[slot], lid);
		else if ((1u << lmc) != n || lid & (n - 1))
			rc = kr_fail(d, KR_EPARSE, o->at[lid].line, "LIDs %zu-%zu "
				     "of port GUID 0x%016" PRIx64 " are no "
				     "aligned range of 2^LMC", lid,
				     lid + n - 1, f->port_guid[slot]);
		if (rc)
			break;
		f->lid[slot] = (uint16_t)lid;
		f->lmc[slot] = (uint8_t)lmc;
		range_line[slot] = o->at[lid].line;
	}
	free(range_line);
	return rc ? rc : kr_fabric_index_lids(f, d);
}

static int lids_run(const struct dump_src *src, struct kr_fabric *f,
		    struct kr_diag *d)
{
	struct lid_owners o = { 0 };
	struct dump_lines r;
	int rc;

	dump_lines_init(&r, src);
	while ((rc = dump_next_line(&r, d)) > 0 &&
	       !(rc = lid_owner(&r, f, &o, d)))
		;
	if (!rc)
		rc = set_lids(f, &o, d);
	free(o.at);
	return rc;
}

int kr_lfts_parse_lids(const char *buf, size_t len, struct kr_fabric *f,
		       struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return lids_run(&src, f, d);
}

/* The fabric gains LIDs, so this cannot go through dump_read, whose
 * parsers take the fabric read-only. */
int kr_lfts_read_lids(const char *path, struct kr_fabric *f,
		      struct kr_diag *d)
{
	struct dump_src src;
	int rc = dump_src_open(&src, path, d);

	if (rc)
		return rc;
	rc = lids_run(&src, f, d);
	dump_src_close(&src);
	return rc;
}
