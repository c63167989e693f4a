/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast forwarding tables and group SLs as files.
 *
 * OpenSM's opensm.mcfdbs lists, for every switch in its GUID map order that
 * has any MFT entry, a "Switch 0xGUID" header and one "0xMLID : 0xPPP ..."
 * line per MLID with the ports of its mask, ascending. Switches and MLIDs
 * without ports are left out, so an empty fabric gives an empty file.
 * Every port is written " 0x%03X " and every line ends in a newline, so
 * the last entry of a file cut short shows it, unless the cut fell on a
 * line's end.
 *
 * ibroute -M and dump_fts -M (dump_mfts.sh) print a "Multicast mlids
 * [0xLO-0xHI] of switch ... guid 0x... (desc):" block per switch: port
 * column titles, then "0xmlid" with an 'x' under each port of the mask
 * (two columns a port, port 0 at column 12) or, with -n (brief), the mask
 * as 16-bit hex words, ports 0-15 first; "N valid mlids dumped" closes it.
 * A switch without entries still gets its block, so there a missing
 * block means a dump cut short (t->mft_given tells which).
 *
 * Group SLs come from saquery -g ("MCMemberRecord group dump"), saquery
 * MCMR ("MCMember Record dump") or "MLID SL" lines. saquery -m (member
 * dump) has no SL field; it is refused with a line saying so. */
#include "kr_dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dump_int.h"
#include "kr_out.h"

#define MLID_LO 0xc000u
#define MLID_HI 0xfffeu		/* 0xffff is the permissive LID */
#define NMLID (MLID_HI - MLID_LO + 1)

static void write_switch(struct kr_out *o, const struct kr_fabric *f,
			 const struct kr_tables *t, uint32_t sw)
{
	int header = 0;

	for (size_t i = 0; i < t->nmgroup; i++) {
		const uint64_t *mask = t->mgroup[i].ports +
				       (size_t)sw * KR_MCAST_WORDS;
		int line = 0;

		for (unsigned w = 0; w < KR_MCAST_WORDS; w++)
			for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
				if (!header) {
					kr_out_str(o, "\nSwitch 0x");
					kr_out_hex(o, f->guid[sw], 16, 0);
					kr_out_str(o, "\nLID    : Out Port(s)\n");
				}
				if (!line) {
					kr_out_str(o, "0x");
					kr_out_hex(o, t->mgroup[i].mlid, 4, 1);
					kr_out_str(o, " :");
				}
				header = line = 1;
				kr_out_str(o, " 0x");
				kr_out_hex(o, w * 64 + (unsigned)__builtin_ctzll(bits),
					   3, 1);
				kr_out_ch(o, ' ');
			}
		if (line)
			kr_out_ch(o, '\n');
	}
}

int kr_mft_write(FILE *out, const struct kr_fabric *f,
		 const struct kr_tables *t)
{
	uint32_t *order = dump_switch_order(f);
	struct kr_out o;

	if (!order || kr_out_open(&o, out)) {
		free(order);
		return KR_ENOMEM;
	}
	for (uint32_t i = 0; i < f->nsw; i++)
		write_switch(&o, f, t, order[i]);
	free(order);
	return kr_out_close(&o);
}

/* ------------------------------------------------------------------ */
/* MFT readers                                                        */

enum { FMT_NONE, FMT_OPENSM, FMT_IBROUTE };

struct mft_parse {
	struct dump_lines r;
	const struct kr_fabric *f;
	struct kr_tables *t;
	struct kr_diag *d;
	uint64_t **mask;	/* [NMLID] the group's masks, NULL: none yet */
	unsigned *sw_line;	/* [nsw] header line of each switch's block */
	int fmt;		/* of the current block, FMT_NONE outside */
	uint32_t sw;
	unsigned line;		/* of the block's header */
	uint64_t lo, hi, count;
	int64_t last;		/* last MLID of the block, -1 */
	bool brief;		/* ibroute -n: hex masks */
	bool per_switch;	/* an ibroute block was seen */
	unsigned entry_line;	/* of the last OpenSM entry */
	const char *cut;	/* how that entry shows a cut, NULL: whole */
};

static uint64_t *group_mask(struct mft_parse *ps, unsigned mlid)
{
	uint64_t **m = &ps->mask[mlid - MLID_LO];

	if (!*m)
		*m = calloc((size_t)ps->f->nsw * KR_MCAST_WORDS + 1,
			    sizeof(uint64_t));
	return *m ? *m + (size_t)ps->sw * KR_MCAST_WORDS : NULL;
}

static int set_port(struct mft_parse *ps, uint64_t *m, unsigned mlid,
		    unsigned port)
{
	unsigned nports = ps->f->nports[ps->sw];

	if (port > nports)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "MLID 0x%04X: port %u beyond switch \"%s\" "
			       "(%u ports)", mlid, port,
			       kr_node_name(ps->f, ps->sw), nports);
	m[port / 64] |= 1ull << port % 64;
	return KR_OK;
}

static int switch_by_guid(struct mft_parse *ps, const char *g)
{
	const struct kr_fabric *f = ps->f;
	unsigned lineno = ps->r.lineno;
	uint64_t guid;
	uint32_t n;
	int rc;

	if (!dump_hex_guid(&g, &guid))
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "expected the switch GUID \"0x...\"");
	rc = dump_block_switch(f, guid, lineno, ps->sw_line, &n, ps->d);
	if (rc)
		return rc;
	ps->sw = n;
	ps->line = lineno;
	ps->count = 0;
	ps->last = -1;
	ps->brief = false;
	return KR_OK;
}

/* "0xMLID" at the start of an entry, in range and ascending. */
static int entry_mlid(struct mft_parse *ps, const char **s, unsigned *mlid)
{
	uint64_t v;

	if (!dump_number(s, 0xffff, &v) || v < MLID_LO || v > MLID_HI)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected an MLID 0xC000-0xFFFE");
	if ((int64_t)v <= ps->last)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "MLID 0x%04X after 0x%04X: MLIDs must ascend",
			       (unsigned)v, (unsigned)ps->last);
	if (ps->fmt == FMT_IBROUTE && (v < ps->lo || v > ps->hi))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "MLID 0x%04X outside the block's range "
			       "0x%04X-0x%04X", (unsigned)v, (unsigned)ps->lo,
			       (unsigned)ps->hi);
	ps->last = (int64_t)v;
	ps->count++;
	*mlid = (unsigned)v;
	return KR_OK;
}

/* Whether s is one or more " 0xPPP " as OpenSM writes them. */
static bool osm_ports_whole(const char *s)
{
	do {
		if (strncmp(s, " 0x", 3) ||
		    strspn(s + 3, "0123456789abcdefABCDEF") != 3 || s[6] != ' ')
			return false;
		s += 7;
	} while (*s);
	return true;
}

/* OpenSM: "0xMLID : 0xPPP  0xPPP ". */
static int osm_entry(struct mft_parse *ps, const char *s)
{
	uint64_t *m, port;
	unsigned mlid;
	int rc = entry_mlid(ps, &s, &mlid);

	if (rc)
		return rc;
	if (!dump_match(&s, " :"))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \" :\" after the MLID");
	if (!(m = group_mask(ps, mlid)))
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	ps->entry_line = ps->r.lineno;
	ps->cut = !ps->r.nl ? "the file ends inside this entry" :
		  !osm_ports_whole(s) ? "OpenSM ends every port of an entry "
					"\"0xPPP \"" : NULL;
	for (s = dump_skip_ws(s); *s; s = dump_skip_ws(s)) {
		if (!dump_number(&s, 255, &port) || (*s && *s != ' '))
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "expected out ports \"0xPPP\"");
		if ((rc = set_port(ps, m, mlid, (unsigned)port)))
			return rc;
	}
	return KR_OK;
}

/* Four hex digits followed by a blank or the end. */
static bool hex4(const char *s, unsigned *v)
{
	char word[5];

	if (strspn(s, "0123456789abcdefABCDEF") != 4 || (s[4] && s[4] != ' '))
		return false;
	memcpy(word, s, 4);
	word[4] = '\0';
	*v = (unsigned)strtoul(word, NULL, 16);
	return true;
}

/* ibroute: 'x' under each port (column 12 + 2 * port), or hex words. */
static int ibroute_entry(struct mft_parse *ps, const char *s)
{
	const char *line = s;
	uint64_t *m;
	unsigned mlid;
	int rc = entry_mlid(ps, &s, &mlid);

	if (rc)
		return rc;
	if (!(m = group_mask(ps, mlid)))
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	if (ps->brief) {
		unsigned v;

		s = dump_skip_ws(s);
		for (unsigned w = 0; *s; w++, s = dump_skip_ws(s + 4)) {
			if (!hex4(s, &v))
				return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
					       "expected the port mask as hex "
					       "words \"XXXX\"");
			for (unsigned j = 0; j < 16; j++)
				if (v >> j & 1 &&
				    (rc = set_port(ps, m, mlid, w * 16 + j)))
					return rc;
		}
		return KR_OK;
	}
	for (size_t col = (size_t)(s - line); line[col]; col++) {
		if (line[col] == ' ')
			continue;
		if (line[col] != 'x' || col < 12 || (col - 12) % 2)
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "expected 'x' under a port column, "
				       "found '%c' at column %zu", line[col],
				       col + 1);
		if ((rc = set_port(ps, m, mlid, (unsigned)(col - 12) / 2)))
			return rc;
	}
	return KR_OK;
}

/* "N valid mlids dumped" (or "N mlids dumped" with -a) closes a block. */
static int ibroute_trailer(struct mft_parse *ps, const char *s)
{
	uint64_t n;

	if (!dump_number(&s, UINT32_MAX, &n) ||
	    !(dump_match(&s, " valid mlids dumped") ||
	      dump_match(&s, " mlids dumped")) || !dump_blank(s))
		return 0;
	if (n != ps->count)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "\"%u mlids dumped\" but the block of line %u "
			       "has %u", (unsigned)n, ps->line,
			       (unsigned)ps->count);
	ps->fmt = FMT_NONE;
	return 1;
}

static int ibroute_header(struct mft_parse *ps, const char *s)
{
	const char *g;
	int rc;

	if (ps->fmt == FMT_IBROUTE)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "new switch block before the \"mlids dumped\" "
			       "line of the block of line %u", ps->line);
	if (!dump_number(&s, 0xffff, &ps->lo) || !dump_match(&s, "-") ||
	    !dump_number(&s, 0xffff, &ps->hi) ||
	    !dump_match(&s, "] of switch ") || !(g = strstr(s, " guid 0x")))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"Multicast mlids [0xLO-0xHI] of "
			       "switch ... guid 0x...\"");
	rc = switch_by_guid(ps, g + 6);
	ps->fmt = FMT_IBROUTE;
	ps->per_switch = true;
	return rc;
}

/* ibroute's column titles: the tens of the port numbers, the ports, the
 * MLID title and, with -v, the switch's MFT capability. */
static bool ibroute_titles(struct mft_parse *ps, const char *s)
{
	const char *p = dump_skip_ws(s);

	if (!strcmp(s, " MLid       Port Mask")) {
		ps->brief = true;
		return true;
	}
	return !strncmp(p, "Ports:", 6) || !strcmp(s, " MLid") ||
	       !strncmp(s, "Switch multicast mlid capability", 32) ||
	       (ps->count == 0 && strspn(p, "0123456789 ") == strlen(p));
}

static int mft_line(struct mft_parse *ps)
{
	const char *s = ps->r.line;
	int rc;

	if (dump_match(&s, "Multicast mlids ["))
		return ibroute_header(ps, s);
	if (dump_match(&s, "Switch 0x")) {
		if (ps->fmt == FMT_IBROUTE)
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "OpenSM switch header inside the "
				       "ibroute block of line %u", ps->line);
		rc = switch_by_guid(ps, s - 2);
		ps->fmt = FMT_OPENSM;
		return rc;
	}
	if (ps->fmt == FMT_IBROUTE) {
		if (s[0] == '0' && s[1] == 'x')
			return ibroute_entry(ps, s);
		if (ibroute_titles(ps, s))
			return KR_OK;
		rc = ibroute_trailer(ps, s);
		if (rc)
			return rc < 0 ? rc : KR_OK;
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected an MFT entry \"0xMLID  x x ...\" or "
			       "\"N valid mlids dumped\"");
	}
	if (dump_blank(s) || !strncmp(s, "ibwarn:", 7) ||
	    strstr(s, "*** WARNING ***"))
		return KR_OK;	/* dump_mfts.sh and stderr noise */
	if (ps->fmt == FMT_OPENSM) {
		if (!strcmp(s, "LID    : Out Port(s)"))
			return KR_OK;
		if (s[0] == '0' && s[1] == 'x')
			return osm_entry(ps, s);
	}
	return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
		       ps->fmt == FMT_OPENSM
		       ? "expected \"0xMLID : 0xPPP ...\" or \"Switch 0x...\""
		       : "expected \"Switch 0x...\" (opensm.mcfdbs) or "
			 "\"Multicast mlids [...] of switch ...\" (ibroute -M)");
}

/* Moves the masks into t->mgroup, MLIDs ascending, SLs not yet given. */
static int mft_take(struct mft_parse *ps)
{
	struct kr_tables *t = ps->t;
	size_t n = 0;
	struct kr_mgroup *g;

	for (unsigned i = 0; i < NMLID; i++)
		n += ps->mask[i] != NULL;
	g = calloc(n + 1, sizeof(*g));
	if (!g)
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	n = 0;
	for (unsigned i = 0; i < NMLID; i++) {
		if (!ps->mask[i])
			continue;
		g[n] = (struct kr_mgroup){ .mlid = (uint16_t)(MLID_LO + i),
					   .ports = ps->mask[i] };
		ps->mask[i] = NULL;
		n++;
	}
	t->mgroup = g;
	t->nmgroup = n;
	if (!ps->per_switch)
		return KR_OK;
	if (!(t->mft_given = malloc((size_t)ps->f->nsw + 1)))
		return kr_fail(ps->d, KR_ENOMEM, 0, "out of memory");
	for (uint32_t sw = 0; sw < ps->f->nsw; sw++)
		t->mft_given[sw] = ps->sw_line[sw] != 0;
	return KR_OK;
}

/* What the end of the input shows of a cut: an ibroute block without its
 * closing line, an OpenSM header without the entry it is written with, an
 * OpenSM entry not written out. */
static int mft_end(struct mft_parse *ps)
{
	if (ps->fmt == FMT_IBROUTE)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "truncated: the "
			       "block of line %u has no \"mlids dumped\" line",
			       ps->line);
	if (ps->fmt == FMT_OPENSM && !ps->count)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "truncated: the "
			       "block of line %u has no entry (OpenSM writes "
			       "the header with the first)", ps->line);
	if (ps->fmt == FMT_OPENSM && ps->cut)
		return kr_fail(ps->d, KR_EPARSE, ps->entry_line,
			       "truncated: %s", ps->cut);
	return KR_OK;
}

static int mft_run(const struct dump_src *src, const struct kr_fabric *f,
		   struct kr_tables *t, struct kr_diag *d)
{
	struct mft_parse ps = { .f = f, .t = t, .d = d };
	int rc = KR_OK;

	ps.mask = calloc(NMLID, sizeof(*ps.mask));
	ps.sw_line = calloc(f->nsw + 1, sizeof(*ps.sw_line));
	if (!ps.mask || !ps.sw_line)
		rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (size_t j = 0; j < t->nmgroup; j++)
		free(t->mgroup[j].ports);
	free(t->mgroup);
	free(t->mft_given);
	t->mgroup = NULL;
	t->mft_given = NULL;
	t->nmgroup = 0;
	dump_lines_init(&ps.r, src);
	while (!rc && (rc = dump_next_line(&ps.r, d)) > 0 &&
	       !(rc = mft_line(&ps)))
		;
	if (!rc)
		rc = mft_end(&ps);
	if (!rc)
		rc = mft_take(&ps);
	for (unsigned i = 0; ps.mask && i < NMLID; i++)
		free(ps.mask[i]);
	free(ps.mask);
	free(ps.sw_line);
	return rc;
}

int kr_mft_parse(const char *buf, size_t len, const struct kr_fabric *f,
		 struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return mft_run(&src, f, t, d);
}

int kr_mft_read(const char *path, const struct kr_fabric *f,
		struct kr_tables *t, struct kr_diag *d)
{
	return dump_read(path, mft_run, f, t, d);
}

/* ------------------------------------------------------------------ */
/* Group SLs                                                          */

struct msl_parse {
	struct dump_lines r;
	struct kr_diag *d;
	uint8_t *sl;		/* [NMLID] */
	unsigned *line;		/* [NMLID] where each SL was given, 0: not */
	unsigned rec;		/* line of the record being read, 0: none */
	int64_t mlid, rec_sl;	/* of that record, -1 until seen */
};

static int give_sl(struct msl_parse *ps, uint64_t mlid, uint64_t sl,
		   unsigned line)
{
	unsigned i;

	if (mlid < MLID_LO || mlid > MLID_HI)
		return kr_fail(ps->d, KR_EPARSE, line,
			       "expected an MLID 0xC000-0xFFFE, not 0x%04X",
			       (unsigned)mlid);
	if (sl >= KR_NSL)
		return kr_fail(ps->d, KR_EPARSE, line,
			       "SL %u: expected 0-15", (unsigned)sl);
	i = (unsigned)mlid - MLID_LO;
	if (ps->line[i] && ps->sl[i] != sl)
		return kr_fail(ps->d, KR_EPARSE, line,
			       "MLID 0x%04X has SL %u here, SL %u on line %u",
			       (unsigned)mlid, (unsigned)sl, ps->sl[i],
			       ps->line[i]);
	if (!ps->line[i])
		ps->line[i] = line;
	ps->sl[i] = (uint8_t)sl;
	return KR_OK;
}

/* The record read so far must have had both fields. */
static int end_record(struct msl_parse *ps)
{
	unsigned rec = ps->rec;

	ps->rec = 0;
	if (!rec)
		return KR_OK;
	if (ps->mlid < 0 || ps->rec_sl < 0)
		return kr_fail(ps->d, KR_EPARSE, rec, "the record has no %s "
			       "field", ps->mlid < 0 ? "Mlid" : "SL");
	return give_sl(ps, (uint64_t)ps->mlid, (uint64_t)ps->rec_sl, rec);
}

/* "\t\tName....value" inside a saquery record. */
static int record_field(struct msl_parse *ps, const char *s)
{
	const char *v = s + strcspn(s, ".");
	size_t n = (size_t)(v - s);
	int64_t *dst = NULL;
	uint64_t x;

	if (n == 4 && !strncasecmp(s, "mlid", 4))
		dst = &ps->mlid;
	else if (n == 2 && !strncmp(s, "SL", 2))
		dst = &ps->rec_sl;
	if (!dst)
		return KR_OK;
	v += strspn(v, ".");
	if (!dump_number(&v, 0xffff, &x) || !dump_blank(v))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected a number after \"%.*s....\"", (int)n, s);
	*dst = (int64_t)x;
	return KR_OK;
}

static int msl_line(struct msl_parse *ps)
{
	const char *s = ps->r.line, *p = dump_skip_ws(s);
	uint64_t mlid, sl;
	int rc;

	if (!strncmp(s, "MCMemberRecord member dump:", 27))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "saquery -m member records carry no SL: use "
			       "saquery -g (group records) for group SLs");
	if (!strncmp(s, "MCMemberRecord group dump:", 26) ||
	    !strncmp(s, "MCMember Record dump:", 21)) {
		rc = end_record(ps);
		ps->rec = ps->r.lineno;
		ps->mlid = ps->rec_sl = -1;
		return rc;
	}
	if (ps->rec && s[0] == '\t')
		return record_field(ps, p);
	if ((rc = end_record(ps)))
		return rc;
	if (!*p || *p == '#' || !strncmp(s, "ibwarn:", 7))
		return KR_OK;
	if (!dump_number(&p, 0xffff, &mlid) || (*p != ' ' && *p != '\t') ||
	    (p = dump_skip_ws(p), !dump_number(&p, 0xff, &sl)) ||
	    (!dump_blank(p) && *dump_skip_ws(p) != '#'))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"MLID SL\" or a saquery -g "
			       "\"MCMemberRecord group dump\"");
	return give_sl(ps, mlid, sl, ps->r.lineno);
}

static int msl_run(const struct dump_src *src, const struct kr_fabric *f,
		   struct kr_tables *t, struct kr_diag *d)
{
	struct msl_parse ps = { .d = d };
	int rc = KR_OK;

	(void)f;
	ps.sl = calloc(NMLID, 1);
	ps.line = calloc(NMLID, sizeof(*ps.line));
	if (!ps.sl || !ps.line)
		rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	dump_lines_init(&ps.r, src);
	while (!rc && (rc = dump_next_line(&ps.r, d)) > 0 &&
	       !(rc = msl_line(&ps)))
		;
	if (!rc)
		rc = end_record(&ps);
	for (size_t i = 0; !rc && i < t->nmgroup; i++) {
		struct kr_mgroup *g = &t->mgroup[i];

		if (ps.line[g->mlid - MLID_LO]) {
			g->sl = ps.sl[g->mlid - MLID_LO];
			g->sl_given = 1;
		}
	}
	free(ps.sl);
	free(ps.line);
	return rc;
}

int kr_mcast_sl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		      struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return msl_run(&src, f, t, d);
}

int kr_mcast_sl_read(const char *path, const struct kr_fabric *f,
		     struct kr_tables *t, struct kr_diag *d)
{
	return dump_read(path, msl_run, f, t, d);
}
