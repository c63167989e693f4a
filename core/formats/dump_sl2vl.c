/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* SL2VL dumps: OpenSM's opensm-sl2vl.dump, `smpquery sl2vl` output and
 * ibdiagnet's ibdiagnet.slvl (written with -vlr).
 *
 * OpenSM writes one block per port GUID: "Switch 0x<guid>, base LID <n>,
 * "<desc>"" (or "Channel Adapter", "Router"), two '#' title lines, then
 * "IN OUT : vl0 .. vl15" lines (a CA: the single line "0 0 :" for its port)
 * and a '#' separator. smpquery prints "# SL2VL table: Lid <n>" and
 * "ports: in I, out O: | vl0| .. | vl15|". ibdiagnet writes a line per
 * (switch, in port, out port) with the map as the SL2VL attribute holds
 * it, two SLs to a byte, the lower SL in the high nibble (ibdmchk(1)):
 * "0xNODEGUID IN OUT 0x01 0x23 0x45 0x67 0x89 0xab 0xcd 0xe7"; it reads
 * only switches. All three may be mixed in one file. */
#include "kr_dump.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dump_int.h"
#include "kr_atomic.h"
#include "kr_io.h"
#include "kr_out.h"

static const char *const sep_line =
	"#--------------------------------------------------------";

struct sl2vl_parse {
	struct dump_lines r;
	const struct kr_fabric *f;
	struct kr_tables *t;
	struct kr_diag *d;
	uint32_t slot;		/* port of the current block, KR_NONE */
	unsigned *seen;		/* [maps] line that set each map */
};

static const struct {
	const char *name;
	unsigned type;
} types[] = {
	{ "UNKNOWN", 0 },
	{ "Channel Adapter", KR_CA },
	{ "Switch", KR_SWITCH },
	{ "Router", KR_ROUTER },
};

static int osm_header(struct sl2vl_parse *ps, const char *s, unsigned type)
{
	const struct kr_fabric *f = ps->f;
	unsigned lineno = ps->r.lineno;
	uint64_t guid, lid;
	uint32_t slot;

	if (!dump_hex_guid(&s, &guid) || !dump_match(&s, ", base LID ") ||
	    !dump_number(&s, 0xffff, &lid))
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "expected \"TYPE 0xPORTGUID, base LID N, "
			       "\\\"desc\\\"\"");
	slot = kr_port_by_guid(f, guid);
	if (slot == KR_NONE)
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "unknown port GUID 0x%016" PRIx64, guid);
	if (f->type[f->owner[slot]] != type)
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "port GUID 0x%016" PRIx64 " belongs to \"%s\", "
			       "a %s, not a %s", guid,
			       kr_node_name(f, f->owner[slot]),
			       types[f->type[f->owner[slot]]].name,
			       types[type].name);
	if (f->lid[slot] && f->lid[slot] != lid)
		return kr_fail(ps->d, KR_EPARSE, lineno,
			       "port GUID 0x%016" PRIx64 " has LID %u in the "
			       "topology, %u here", guid, f->lid[slot],
			       (unsigned)lid);
	ps->slot = slot;
	return KR_OK;
}

static int smp_header(struct sl2vl_parse *ps, const char *s)
{
	uint64_t lid;
	uint32_t slot;

	if (!dump_number(&s, 0xffff, &lid) || !dump_blank(s))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "expected \"# SL2VL table: Lid N\"");
	slot = kr_port_by_lid(ps->f, (unsigned)lid);
	if (slot == KR_NONE)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "unknown LID %u: no port of the topology has it",
			       (unsigned)lid);
	ps->slot = slot;
	return KR_OK;
}

/* Sixteen VLs, each optionally preceded by sep (smpquery's '|'). */
static bool read_vls(const char **s, char sep, uint64_t *map)
{
	uint64_t m = 0, vl;

	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		*s = dump_skip_ws(*s);
		if (sep && **s == sep)
			*s = dump_skip_ws(*s + 1);
		if (!dump_number(s, 15, &vl) || (**s && **s != ' ' &&
						 **s != sep))
			return false;
		m = kr_map_set(m, sl, (unsigned)vl);
	}
	*s = dump_skip_ws(*s);
	if (sep && **s == sep)
		(*s)++;
	*map = m;
	return dump_blank(*s);
}

static int store_map(struct sl2vl_parse *ps, uint64_t in, uint64_t out,
		     uint64_t map)
{
	const struct kr_fabric *f = ps->f;
	uint32_t node = f->owner[ps->slot];
	unsigned nports = f->nports[node];
	uint64_t *ref;
	size_t i;

	if (!kr_is_switch(f, node)) {
		if (in || out)
			return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
				       "a CA port has one map, \"0 0\"; not "
				       "\"%u %u\"", (unsigned)in, (unsigned)out);
		in = out = kr_port_num(f, ps->slot);
	} else if (in > nports || out > nports) {
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "port %u beyond switch \"%s\" (%u ports)",
			       (unsigned)(in > nports ? in : out),
			       kr_node_name(f, node), nports);
	}
	ref = kr_tables_sl2vl_ref(f, ps->t, node, (unsigned)in, (unsigned)out);
	i = (size_t)(ref - ps->t->sl2vl);
	if (ps->seen[i])
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "map of in port %u, out port %u of \"%s\" given "
			       "twice (first on line %u)", (unsigned)in,
			       (unsigned)out, kr_node_name(f, node), ps->seen[i]);
	ps->seen[i] = ps->r.lineno;
	ps->t->sl2vl_given[i] = 1;
	*ref = map;
	return KR_OK;
}

static int map_line(struct sl2vl_parse *ps, const char *s, bool smp)
{
	uint64_t in, out, map;
	bool ok;

	if (smp)
		ok = dump_match(&s, "ports: in") &&
		     (s = dump_skip_ws(s), dump_number(&s, 255, &in)) &&
		     dump_match(&s, ", out") &&
		     (s = dump_skip_ws(s), dump_number(&s, 255, &out)) &&
		     dump_match(&s, ":") && read_vls(&s, '|', &map);
	else
		ok = dump_number(&s, 255, &in) &&
		     (s = dump_skip_ws(s), dump_number(&s, 255, &out)) &&
		     (s = dump_skip_ws(s), dump_match(&s, ":")) &&
		     read_vls(&s, 0, &map);
	if (!ok)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, smp ?
			       "expected \"ports: in I, out O: | vl| ... |\" "
			       "with 16 VLs 0..15" :
			       "expected \"IN OUT : vl ...\" with 16 VLs 0..15");
	if (ps->slot == KR_NONE)
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
			       "map line before any port header");
	return store_map(ps, in, out, map);
}

/* "0xNODEGUID IN OUT" and eight "0xHL" bytes: SL 2i in H, 2i+1 in L. */
static int ibdiag_line(struct sl2vl_parse *ps, const char *s)
{
	uint64_t guid, in, out, map = 0, b;
	uint32_t node;
	bool ok = dump_hex_guid(&s, &guid) &&
		  (s = dump_skip_ws(s), dump_number(&s, 255, &in)) &&
		  (s = dump_skip_ws(s), dump_number(&s, 255, &out));

	for (unsigned i = 0; ok && i < KR_NSL / 2; i++) {
		s = dump_skip_ws(s);
		ok = s[0] == '0' && s[1] == 'x' && dump_number(&s, 0xff, &b);
		map = kr_map_set(kr_map_set(map, 2 * i, (unsigned)(b >> 4)),
				 2 * i + 1, (unsigned)(b & 15));
	}
	if (!ok || !dump_blank(s))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "expected "
			       "\"0xNODEGUID IN OUT\" and 8 bytes \"0x01 0x23 "
			       "...\", two SLs' VLs each (an ibdiagnet.slvl "
			       "line)");
	node = kr_node_by_guid(ps->f, guid);
	if (node == KR_NONE || !kr_is_switch(ps->f, node))
		return kr_fail(ps->d, KR_EPARSE, ps->r.lineno, "0x%016" PRIx64
			       " is not a switch's node GUID in the topology",
			       guid);
	ps->slot = ps->f->port0[node];
	return store_map(ps, in, out, map);
}

static int parse_line(struct sl2vl_parse *ps)
{
	const char *s = ps->r.line;

	if (dump_match(&s, "# SL2VL table: Lid "))
		return smp_header(ps, s);
	if (*s == '#' || dump_blank(s) || !strncmp(s, "ibwarn:", 7))
		return KR_OK;
	for (unsigned i = KR_CA; i <= KR_ROUTER; i++) {
		const char *h = s;

		if (dump_match(&h, types[i].name) && *h == ' ')
			return osm_header(ps, h + 1, types[i].type);
	}
	if (s[0] == 'p')
		return map_line(ps, s, true);
	if (s[0] == '0' && s[1] == 'x')
		return ibdiag_line(ps, s);
	if (s[0] >= '0' && s[0] <= '9')
		return map_line(ps, s, false);
	return kr_fail(ps->d, KR_EPARSE, ps->r.lineno,
		       "expected a port header (\"Switch 0x...\", \"Channel "
		       "Adapter 0x...\", \"# SL2VL table: Lid N\") or a map line");
}

/* SL2VL maps for t, borrowed from a scratch kr_tables_init, and a record
 * of which ones a file gave (maps t had already count as given). */
static int alloc_maps(const struct kr_fabric *f, struct kr_tables *t)
{
	struct kr_tables tmp;
	bool had = t->sl2vl != NULL;

	if (!had) {
		if (kr_tables_init(&tmp, f, 0, 1, 0))
			return KR_ENOMEM;
		t->sl2vl_base = tmp.sl2vl_base;
		t->sl2vl = tmp.sl2vl;
		tmp.sl2vl_base = NULL;
		tmp.sl2vl = NULL;
		kr_tables_free(&tmp);
	}
	if (t->sl2vl_given)
		return KR_OK;
	t->sl2vl_given = malloc((size_t)t->sl2vl_base[f->nnode] + 1);
	if (!t->sl2vl_given)
		return KR_ENOMEM;
	memset(t->sl2vl_given, had, (size_t)t->sl2vl_base[f->nnode] + 1);
	return KR_OK;
}

static int sl2vl_run(const struct dump_src *src, const struct kr_fabric *f,
		     struct kr_tables *t, struct kr_diag *d)
{
	struct sl2vl_parse ps = { .f = f, .t = t, .d = d, .slot = KR_NONE };
	int rc;

	if (alloc_maps(f, t))
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	ps.seen = calloc((size_t)t->sl2vl_base[f->nnode] + 1, sizeof(*ps.seen));
	if (!ps.seen)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	dump_lines_init(&ps.r, src);
	while ((rc = dump_next_line(&ps.r, d)) > 0 && !(rc = parse_line(&ps)))
		;
	free(ps.seen);
	return rc;
}

int kr_sl2vl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		   struct kr_tables *t, struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return sl2vl_run(&src, f, t, d);
}

int kr_sl2vl_read(const char *path, const struct kr_fabric *f,
		  struct kr_tables *t, struct kr_diag *d)
{
	return dump_read(path, sl2vl_run, f, t, d);
}

/* The " %-2u" of every SL of a map, kept for the maps met last (hashed
 * into 64 places): a fabric has few distinct maps and a line for every
 * (in, out) port pair of every switch. With the "%-3u " of every port
 * number, a line is four copies. A switch's lines are kept too: switches
 * of a grid have the same ports linked and the same maps, mostly, and
 * the next such switch copies them whole. */
#define MAP_LINE (9 + 3 * KR_NSL + 1)	/* "%-3u %-3u :" map "\n" */
struct map_texts {
	uint64_t map[64];
	bool valid[64];
	char text[64][3 * KR_NSL];
	char port[256][4];
	char body[256 * 256 * MAP_LINE];	/* the last switch's lines */
	size_t body_len;
	uint32_t body_node;	/* whose, KR_NONE: none */
};

static struct map_texts *map_texts_new(void)
{
	struct map_texts *m = malloc(sizeof(*m));

	if (!m)
		return NULL;
	memset(m->valid, 0, sizeof(m->valid));
	m->body_node = KR_NONE;
	for (unsigned p = 0; p < 256; p++) {
		char *end = kr_fmt_u(m->port[p], p);

		memset(end, ' ', (size_t)(m->port[p] + 4 - end));
	}
	return m;
}

static const char *map_text(struct map_texts *m, uint64_t map)
{
	unsigned h = (unsigned)((map * 0x9e3779b97f4a7c15ull) >> 58);
	char *q = m->text[h];

	if (m->valid[h] && m->map[h] == map)
		return q;
	m->valid[h] = true;
	m->map[h] = map;
	for (unsigned sl = 0; sl < KR_NSL; sl++, q += 3) {
		unsigned vl = kr_map_vl(map, sl);

		q[0] = ' ';
		q[1] = vl < 10 ? (char)('0' + vl) : '1';
		q[2] = vl < 10 ? ' ' : (char)('0' + vl - 10);
	}
	return m->text[h];
}

/* "%-3u %-3u :" and the map's text, into q; the line's end. */
static char *fmt_map_line(char *q, struct map_texts *m, unsigned in,
			  unsigned outp, uint64_t map)
{
	memcpy(q, m->port[in], 4);
	memcpy(q + 4, m->port[outp], 4);
	q[8] = ':';
	memcpy(q + 9, map_text(m, map), 3 * KR_NSL);
	q[MAP_LINE - 1] = '\n';
	return q + MAP_LINE;
}

/* Whether switch b has the ports of switch a linked and a's maps. */
static bool same_switch_lines(const struct kr_fabric *f,
			      const struct kr_tables *t, uint32_t a,
			      uint32_t b)
{
	unsigned np = f->nports[a];

	if (f->nports[b] != np)
		return false;
	for (unsigned p = 0; p <= np; p++)
		if ((f->peer[kr_port(f, a, p)] < 0) !=
		    (f->peer[kr_port(f, b, p)] < 0))
			return false;
	return !t->sl2vl ||
	       !memcmp(t->sl2vl + t->sl2vl_base[a], t->sl2vl + t->sl2vl_base[b],
		       (size_t)(np + 1) * (np + 1) * sizeof(*t->sl2vl));
}

/* Switch node's map lines, an (in, out) pair each for its linked out
 * ports, into m->body (unless they are there already). */
static void switch_lines(struct map_texts *m, const struct kr_fabric *f,
			 const struct kr_tables *t, uint32_t node)
{
	unsigned np = f->nports[node];
	/* the node's maps, laid out as kr_tables.h says */
	const uint64_t *maps = t->sl2vl ? t->sl2vl + t->sl2vl_base[node] : NULL;
	char *q = m->body;

	if (m->body_node != KR_NONE &&
	    same_switch_lines(f, t, m->body_node, node))
		return;
	for (unsigned op = 0; op <= np; op++) {
		if (f->peer[kr_port(f, node, op)] < 0)
			continue;
		for (unsigned i = 0; i <= np; i++)
			q = fmt_map_line(q, m, i, op,
					 maps ? maps[op * (np + 1) + i] : 0);
	}
	m->body_len = (size_t)(q - m->body);
	m->body_node = node;
}

static void write_port(struct kr_out *o, struct map_texts *m,
		       const struct kr_fabric *f, const struct kr_tables *t,
		       uint32_t slot)
{
	uint32_t node = f->owner[slot];
	unsigned type = f->type[node];

	kr_out_str(o, types[type <= KR_ROUTER ? type : 0].name);
	kr_out_str(o, " 0x");
	kr_out_hex(o, f->port_guid[slot], 16, 0);
	kr_out_str(o, ", base LID ");
	kr_out_u(o, f->lid[slot]);
	kr_out_str(o, ", \"");
	kr_out_str(o, kr_node_desc(f, node));
	kr_out_str(o, "\"\n#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 "
		   "13 14 15\n");
	kr_out_str(o, sep_line);
	kr_out_ch(o, '\n');
	if (kr_is_switch(f, node)) {
		switch_lines(m, f, t, node);
		kr_out_put(o, m->body, m->body_len);
	} else {
		unsigned p = kr_port_num(f, slot);
		uint64_t map = t->sl2vl ? t->sl2vl[t->sl2vl_base[node] + p] : 0;

		kr_out_end(o, fmt_map_line(kr_out_room(o, MAP_LINE), m, 0, 0,
					   map));
	}
	kr_out_str(o, sep_line);
	kr_out_str(o, "\n\n");
}

int kr_sl2vl_write(FILE *out, const struct kr_fabric *f,
		   const struct kr_tables *t)
{
	uint32_t *ids = calloc((size_t)f->nport + 1, sizeof(*ids)), *order;
	struct map_texts *m = map_texts_new();
	uint32_t n = 0;
	struct kr_out o;

	if (!ids || !m) {
		free(ids);
		free(m);
		return KR_ENOMEM;
	}
	for (uint32_t node = 0; node < f->nnode; node++) {
		if (kr_is_switch(f, node)) {
			ids[n++] = f->port0[node];
			continue;
		}
		for (uint32_t s = f->port0[node] + 1; s < f->port0[node + 1]; s++)
			if (f->peer[s] >= 0)
				ids[n++] = s;
	}
	order = kr_guid_order(f->port_guid, ids, n);
	free(ids);
	if (!order || kr_out_open(&o, out)) {
		free(order);
		free(m);
		return KR_ENOMEM;
	}
	/* stops early, as the LFT dump does, for a dry run whose check
	 * failed (asked every 1024 ports) */
	for (uint32_t i = 0; i < n && ((i & 1023) || !kr_write_stopped()); i++)
		write_port(&o, m, f, t, order[i]);
	free(order);
	free(m);
	return kr_out_close(&o);
}
