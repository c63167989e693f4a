/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Path SLs: knsroute's path-sl file, `saquery -p` output and ibdiagnet's
 * ibdiagnet.psl (written with -vlr).
 *
 * path-sl: "DLID SL" gives the SL every source uses towards DLID, "SLID
 * DLID SL" overrides it for one pair; LIDs decimal or 0x-hex, '#' starts a
 * comment. saquery prints "PathRecord dump:" blocks of "name....value"
 * fields, of which slid, dlid and sl matter here. Either way the result is
 * t->dlid_sl plus the pairs that differ from it, and t->sl_given: a "DLID
 * SL" line speaks for every source, PathRecords only for the pairs they
 * list (all of a DLID's CA sources, or each listed pair kept on its own).
 * ibdiagnet asks the SA for every pair of ports and writes "0xNODEGUID
 * DLID SL" (DLID and SL decimal, ibdmchk(1)): the source is a node, so
 * each of its ports with a LID (a switch's port 0) is a source, and the
 * records count as PathRecords do.
 *
 * A path-sl that knsroute wrote (its first line says so) ends with "# end:
 * D DLID lines, P pair lines": cut anywhere, the file would still parse,
 * and the pairs whose lines were lost would fall back to their DLID's SL
 * as if given. */
#include "kr_dump.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dump_int.h"
#include "kr_io.h"
#include "kr_out.h"

struct rec {			/* one pair as read, with its line */
	struct kr_sl_pair p;
	unsigned line;
};

enum { PSL_UNKNOWN, PSL_TEXT, PSL_SAQUERY, PSL_IBDIAG };

struct psl_parse {
	struct dump_lines r;
	int fmt;		/* PSL_*: known from the first line that tells */
	const struct kr_fabric *f;
	struct kr_tables *t;
	struct kr_diag *d;
	unsigned *dlid_line;	/* [stride] line of each "DLID SL" */
	struct rec *rec;
	size_t nrec, cap;
	/* knsroute's own: the end line and the records counted before it */
	bool ours;
	unsigned end_line, ndlid, npair;
	/* saquery: the record being read */
	unsigned pr_line;
	uint64_t pr_slid, pr_dlid, pr_sl;
	unsigned pr_have;	/* bits: 1 slid, 2 dlid, 4 sl */
};

static int check_lid(struct psl_parse *ps, uint64_t lid, const char *what)
{
	if (lid && lid < ps->t->stride && kr_port_by_lid(ps->f, (unsigned)lid)
	    != KR_NONE)
		return KR_OK;
	return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
		       "unknown %s %u: no port of the topology has it", what,
		       (unsigned)lid);
}

static int add_rec(struct psl_parse *ps, uint64_t slid, uint64_t dlid,
		   uint64_t sl, unsigned line)
{
	int rc = check_lid(ps, slid, "SLID");

	if (!rc)
		rc = check_lid(ps, dlid, "DLID");
	if (rc)
		return rc;
	if (kr_grow(&ps->rec, &ps->cap, ps->nrec + 1, sizeof(*ps->rec)))
		return kr_fail(ps->d, KR_ENOMEM, line, "out of memory");
	ps->rec[ps->nrec++] = (struct rec){
		.p = { .slid = (uint16_t)slid, .dlid = (uint16_t)dlid,
		       .sl = (uint8_t)sl },
		.line = line };
	return KR_OK;
}

#define PSL_HEADER "# knsroute path-sl:"
#define PSL_END "# end:"

/* "# end: D DLID lines, P pair lines" against what came before it. */
static int end_line(struct psl_parse *ps, const char *s)
{
	uint64_t nd, np;

	s = dump_skip_ws(s + strlen(PSL_END));
	if (ps->end_line)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "a second end "
			       "line (the first on line %u)", ps->end_line);
	if (!dump_number(&s, UINT32_MAX, &nd) ||
	    strncmp(s, " DLID lines, ", 13) ||
	    (s += 13, !dump_number(&s, UINT32_MAX, &np)) ||
	    strncmp(s, " pair lines", 11) || !dump_blank(s + 11))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected "
			       "\"# end: D DLID lines, P pair lines\"");
	if (nd != ps->ndlid || np != ps->npair)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "the end line "
			       "counts %llu DLID and %llu pair lines, the file "
			       "has %u and %u: cut or edited",
			       (unsigned long long)nd, (unsigned long long)np,
			       ps->ndlid, ps->npair);
	ps->end_line = ps->r.lineno;
	return KR_OK;
}

/* "DLID SL" or "SLID DLID SL", comment stripped. */
static int text_line(struct psl_parse *ps, const char *s)
{
	uint64_t v[3];
	unsigned n = 0;

	if (!strncmp(s, PSL_END, strlen(PSL_END)))
		return end_line(ps, s);
	for (s = dump_skip_ws(s); *s && *s != '#'; s = dump_skip_ws(s)) {
		if (n == 3 || !dump_number(&s, 0xffff, &v[n]) ||
		    (*s && *s != ' ' && *s != '\t' && *s != '#'))
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "expected \"DLID SL\" or \"SLID DLID SL\"");
		n++;
	}
	if (n == 0)
		return KR_OK;
	if (ps->end_line)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "a record after "
			       "the end line (line %u)", ps->end_line);
	if (n == 1)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"DLID SL\" or \"SLID DLID SL\"");
	ps->ndlid += n == 2;
	ps->npair += n == 3;
	if (v[n - 1] >= KR_NSL)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "SL %u outside 0..15", (unsigned)v[n - 1]);
	if (n == 3)
		return add_rec(ps, v[0], v[1], v[2], ps->r.lineno);
	if (check_lid(ps, v[0], "DLID"))
		return KR_EPARSE;
	if (ps->dlid_line[v[0]])
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "DLID %u given twice (first on line %u)",
			       (unsigned)v[0], ps->dlid_line[v[0]]);
	ps->dlid_line[v[0]] = ps->r.lineno;
	ps->t->dlid_sl[v[0]] = (uint8_t)v[1];
	ps->t->sl_given[v[0]] = KR_SL_ALL;
	return KR_OK;
}

/* "0xNODEGUID DLID SL": a record from every source port of the node. */
static int ibdiag_line(struct psl_parse *ps, const char *s)
{
	const struct kr_fabric *f = ps->f;
	uint64_t guid, dlid, sl;
	uint32_t node, first, last;
	int rc = KR_OK;

	if (!dump_hex_guid(&s, &guid) ||
	    (s = dump_skip_ws(s), !dump_number(&s, 0xffff, &dlid)) ||
	    (s = dump_skip_ws(s), !dump_number(&s, KR_NSL - 1, &sl)) ||
	    !dump_blank(s))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected "
			       "\"0xNODEGUID DLID SL\" with an SL from 0 to 15 "
			       "(an ibdiagnet.psl line)");
	node = kr_node_by_guid(f, guid);
	if (node == KR_NONE)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "unknown node "
			       "GUID 0x%016llx", (unsigned long long)guid);
	first = f->port0[node] + !kr_is_switch(f, node);
	last = kr_is_switch(f, node) ? first + 1 : f->port0[node + 1];
	for (uint32_t p = first; !rc && p < last; p++)
		if (f->lid[p] && (kr_is_switch(f, node) || f->peer[p] >= 0))
			rc = add_rec(ps, f->lid[p], dlid, sl, ps->r.lineno);
	return rc;
}

static int pr_flush(struct psl_parse *ps)
{
	unsigned line = ps->pr_line;

	if (!line)
		return KR_OK;
	ps->pr_line = 0;
	if (ps->pr_have != 7)
		return kr_fail(ps->d, KR_EPARSE, line,
			       "PathRecord without %s", !(ps->pr_have & 1) ?
			       "slid" : !(ps->pr_have & 2) ? "dlid" : "sl");
	if (ps->pr_sl >= KR_NSL)
		return kr_fail(ps->d, KR_EPARSE, line, "SL %u outside 0..15",
			       (unsigned)ps->pr_sl);
	return add_rec(ps, ps->pr_slid, ps->pr_dlid, ps->pr_sl, line);
}

/* "\t\tname....value" inside a PathRecord block. */
static int pr_field(struct psl_parse *ps, const char *s)
{
	static const char *const names[] = { "slid", "dlid", "sl" };
	uint64_t *dst[] = { &ps->pr_slid, &ps->pr_dlid, &ps->pr_sl };
	size_t n = strcspn(s, ".");

	if (!s[n] || !ps->pr_line)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"PathRecord dump:\" or a "
			       "\"name....value\" field");
	for (unsigned i = 0; i < 3; i++) {
		const char *v = s + n;

		if (strlen(names[i]) != n || strncmp(s, names[i], n))
			continue;
		while (*v == '.')
			v++;
		if (!dump_number(&v, 0xffff, dst[i]) || !dump_blank(v))
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "expected a number after \"%s....\"",
				       names[i]);
		ps->pr_have |= 1u << i;
	}
	return KR_OK;
}

/* The format shows in the first line that is not blank, a comment or a
 * warning: saquery's output starts with a record, a path-sl file never
 * does. Deciding there lets the file be read as a stream, once. */
static void detect(struct psl_parse *ps, const char *s)
{
	if (!strncmp(s, PSL_HEADER, strlen(PSL_HEADER)))
		ps->ours = true;
	/* ibdiagnet's lines start with a 16-digit GUID, ours with a LID */
	if (*s && *s != '#' && strncmp(s, "ibwarn:", 7))
		ps->fmt = !strncmp(s, "PathRecord dump:", 16) ? PSL_SAQUERY
			  : strspn(s + 2, "0123456789abcdefABCDEF") == 16 &&
			    !strncmp(s, "0x", 2) ? PSL_IBDIAG : PSL_TEXT;
}

static int parse_line(struct psl_parse *ps)
{
	const char *s = dump_skip_ws(ps->r.line);

	if (ps->fmt == PSL_UNKNOWN)
		detect(ps, s);
	if (ps->fmt == PSL_IBDIAG && *s && *s != '#')
		return ibdiag_line(ps, s);
	if (ps->fmt != PSL_SAQUERY)
		return text_line(ps, s);
	if (!*s || !strncmp(s, "ibwarn:", 7))
		return KR_OK;
	if (!strncmp(s, "PathRecord dump:", 16)) {
		int rc = pr_flush(ps);

		ps->pr_line = ps->r.lineno;
		ps->pr_have = 0;
		return rc;
	}
	return pr_field(ps, s);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->p.dlid != y->p.dlid)
		return x->p.dlid < y->p.dlid ? -1 : 1;
	if (x->p.slid != y->p.slid)
		return x->p.slid < y->p.slid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* A CA port that sends as the checker's sources do: linked, from its
 * base LID. */
static bool ca_source(const struct kr_fabric *f, unsigned lid)
{
	uint32_t s = kr_port_by_lid(f, lid);

	return s != KR_NONE && !kr_is_switch(f, f->owner[s]) &&
	       f->peer[s] >= 0 && f->lid[s] == lid;
}

static uint32_t count_ca_sources(const struct kr_fabric *f)
{
	uint32_t n = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		n += ca_source(f, lid);
	return n;
}

/* Whether records i .. j-1 (one DLID, by SLID) come from every CA source
 * but the DLID's own port. */
static bool covers_cas(const struct psl_parse *ps, size_t i, size_t j,
		       uint32_t ncas)
{
	const struct kr_fabric *f = ps->f;
	unsigned dlid = ps->rec[i].p.dlid;
	uint32_t own = kr_port_by_lid(f, dlid), n = 0;

	if (ca_source(f, f->lid[own]))
		ncas--;
	for (size_t k = i; k < j; k++)
		if ((k == i || ps->rec[k].p.slid != ps->rec[k - 1].p.slid) &&
		    ca_source(f, ps->rec[k].p.slid) &&
		    kr_port_by_lid(f, ps->rec[k].p.slid) != own)
			n++;
	return n == ncas;
}

/* The SL most of a DLID's pairs carry; the lowest of equals. */
static unsigned most_common(const unsigned cnt[KR_NSL])
{
	unsigned best = 0;

	for (unsigned sl = 1; sl < KR_NSL; sl++)
		if (cnt[sl] > cnt[best])
			best = sl;
	return best;
}

/* Records sorted by (dlid, slid); for saquery each DLID first takes the SL
 * most of its records carry. A DLID whose SL holds for every source keeps
 * only the pairs that differ; any other keeps every pair it lists, since
 * only those are known. */
static int build_pairs(struct psl_parse *ps, bool saquery)
{
	struct kr_tables *t = ps->t;
	uint32_t ncas = saquery ? count_ca_sources(ps->f) : 0;
	size_t out = 0;

	qsort(ps->rec, ps->nrec, sizeof(*ps->rec), rec_cmp);
	for (size_t i = 0, j; i < ps->nrec; i = j) {
		unsigned cnt[KR_NSL] = { 0 };
		uint16_t dlid = ps->rec[i].p.dlid;

		for (j = i; j < ps->nrec && ps->rec[j].p.dlid == dlid; j++) {
			cnt[ps->rec[j].p.sl]++;
			if (j > i && ps->rec[j].p.slid == ps->rec[j - 1].p.slid &&
			    (!saquery || ps->rec[j].p.sl != ps->rec[j - 1].p.sl))
				return kr_fail(ps->d, KR_EPARSE, ps->rec[j].line,
					       "SLID %u -> DLID %u given twice "
					       "(first on line %u)",
					       ps->rec[j].p.slid, dlid,
					       ps->rec[j - 1].line);
		}
		if (saquery) {
			t->dlid_sl[dlid] = (uint8_t)most_common(cnt);
			if (covers_cas(ps, i, j, ncas))
				t->sl_given[dlid] = KR_SL_CAS;
		}
		for (size_t k = i; k < j; k++)
			if ((ps->rec[k].p.sl != t->dlid_sl[dlid] ||
			     t->sl_given[dlid] == KR_SL_ASSUMED) &&
			    (k == i || ps->rec[k].p.slid != ps->rec[k - 1].p.slid))
				t->pair_sl[out++] = ps->rec[k].p;
	}
	t->npair_sl = out;
	return kr_tables_sort_pairs(t, ps->d);
}

static int alloc_sl(struct psl_parse *ps)
{
	struct kr_tables *t = ps->t;

	free(t->pair_sl);
	t->pair_sl = NULL;
	t->npair_sl = 0;
	if (!t->dlid_sl)
		t->dlid_sl = calloc((size_t)t->stride + 1, 1);
	else
		memset(t->dlid_sl, 0, t->stride);
	if (!t->sl_given)
		t->sl_given = calloc((size_t)t->stride + 1, 1);
	else
		memset(t->sl_given, KR_SL_ASSUMED, t->stride);
	ps->dlid_line = calloc((size_t)t->stride + 1, sizeof(*ps->dlid_line));
	return t->dlid_sl && t->sl_given && ps->dlid_line ? KR_OK : KR_ENOMEM;
}

static int psl_run(const struct dump_src *src, const struct kr_fabric *f,
		   struct kr_tables *t, struct kr_diag *d)
{
	struct psl_parse ps = { .f = f, .t = t, .d = d };
	bool saquery;
	int rc;

	if (t->stride <= f->max_lid)
		return kr_fail(d, KR_EINVAL, 0, "path SLs need tables for LIDs "
			       "up to %u (read the LFTs first)", f->max_lid);
	if (alloc_sl(&ps)) {
		free(ps.dlid_line);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	dump_lines_init(&ps.r, src);
	while ((rc = dump_next_line(&ps.r, d)) > 0 && !(rc = parse_line(&ps)))
		;
	saquery = ps.fmt == PSL_SAQUERY || ps.fmt == PSL_IBDIAG;
	if (!rc && ps.fmt == PSL_SAQUERY)
		rc = pr_flush(&ps);
	if (!rc && ps.ours && !ps.end_line)
		rc = kr_fail(d, KR_EPARSE, ps.r.lineno, "cut short: no \"%s\" "
			     "line (knsroute ends every path-sl it writes with "
			     "one)", PSL_END);
	if (!rc && ps.nrec) {
		t->pair_sl = malloc(ps.nrec * sizeof(*t->pair_sl));
		rc = t->pair_sl ? build_pairs(&ps, saquery)
				: kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	free(ps.rec);
	free(ps.dlid_line);
	return rc;
}

int kr_path_sl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		     struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return psl_run(&src, f, t, d);
}

static int pair_by_dlid(const void *a, const void *b)
{
	const struct kr_sl_pair *x = a, *y = b;

	if (x->dlid != y->dlid)
		return x->dlid < y->dlid ? -1 : 1;
	return (x->slid > y->slid) - (x->slid < y->slid);
}

int kr_path_sl_set(struct kr_tables *t, struct kr_sl_pair *pairs, size_t n,
		   struct kr_diag *d)
{
	size_t out = 0, unknown = 0;

	free(t->pair_sl);
	t->npair_sl = 0;
	t->pair_sl = malloc((n + 1) * sizeof(*t->pair_sl));
	if (!t->dlid_sl)
		t->dlid_sl = calloc((size_t)t->stride + 1, 1);
	for (size_t i = 0; i < n; i++)
		unknown += pairs[i].sl == KR_SL_UNKNOWN;
	if (unknown && !t->sl_given)
		t->sl_given = malloc((size_t)t->stride + 1);
	if (!t->pair_sl || !t->dlid_sl || (unknown && !t->sl_given))
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	memset(t->dlid_sl, 0, t->stride);
	if (unknown)
		memset(t->sl_given, KR_SL_ALL, t->stride);
	qsort(pairs, n, sizeof(*pairs), pair_by_dlid);
	for (size_t i = 0, j; i < n; i = j) {
		unsigned cnt[KR_NSL] = { 0 };
		uint16_t dlid = pairs[i].dlid;
		bool all = true;

		if (dlid >= t->stride)
			return kr_fail(d, KR_EINVAL, 0, "DLID %u beyond the "
				       "tables (%u LIDs)", dlid, t->stride);
		for (j = i; j < n && pairs[j].dlid == dlid; j++) {
			if (pairs[j].sl == KR_SL_UNKNOWN)
				all = false;
			else
				cnt[pairs[j].sl & 0xf]++;
		}
		t->dlid_sl[dlid] = (uint8_t)most_common(cnt);
		if (!all)
			t->sl_given[dlid] = KR_SL_ASSUMED;
		/* where some pair is unknown, only those listed are given */
		for (size_t k = i; k < j; k++)
			if (pairs[k].sl != KR_SL_UNKNOWN &&
			    (pairs[k].sl != t->dlid_sl[dlid] || !all))
				t->pair_sl[out++] = pairs[k];
	}
	t->npair_sl = out;
	return kr_tables_sort_pairs(t, d);
}

int kr_path_sl_read(const char *path, const struct kr_fabric *f,
		    struct kr_tables *t, struct kr_diag *d)
{
	return dump_read(path, psl_run, f, t, d);
}

/* A "DLID SL" line states the SL of every pair towards DLID: written only
 * where the tables know it so. */
static bool dlid_line(const struct kr_tables *t, unsigned lid)
{
	return lid < t->stride && (!t->sl_given || t->sl_given[lid]);
}

int kr_path_sl_write(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t)
{
	struct kr_out o;
	unsigned ndlid = 0, npair = 0;

	if (kr_out_open(&o, out))
		return KR_ENOMEM;
	kr_out_str(&o, PSL_HEADER " \"DLID SL\" for every LID whose SL "
		   "is known for all sources, then \"SLID DLID SL\" where a "
		   "pair differs or only the pair is known\n");
	for (uint32_t lid = 1; lid < t->stride; lid++) {
		if (kr_port_by_lid(f, lid) == KR_NONE || !dlid_line(t, lid))
			continue;
		ndlid++;
		kr_out_u(&o, lid);
		kr_out_ch(&o, ' ');
		kr_out_u(&o, t->dlid_sl ? t->dlid_sl[lid] : 0);
		kr_out_ch(&o, '\n');
	}
	for (size_t i = 0; i < t->npair_sl; i++) {
		const struct kr_sl_pair *p = &t->pair_sl[i];

		if (dlid_line(t, p->dlid) &&
		    p->sl == (t->dlid_sl ? t->dlid_sl[p->dlid] : 0))
			continue;
		npair++;
		kr_out_u(&o, p->slid);
		kr_out_ch(&o, ' ');
		kr_out_u(&o, p->dlid);
		kr_out_ch(&o, ' ');
		kr_out_u(&o, p->sl);
		kr_out_ch(&o, '\n');
	}
	kr_out_str(&o, PSL_END " ");
	kr_out_u(&o, ndlid);
	kr_out_str(&o, " DLID lines, ");
	kr_out_u(&o, npair);
	kr_out_str(&o, " pair lines\n");
	return kr_out_close(&o);
}
