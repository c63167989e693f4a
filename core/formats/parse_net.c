/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reader for the topology grammar that ibnetdiscover writes and ibsim reads.
 *
 * One pass over the buffer, line by line, straight into the fabric builder,
 * without allocating per line. A port line names its far end, which may
 * come later in the file, so links wait in an array as (node, port, name
 * span in the buffer, line) and are resolved once the whole file is read;
 * the builder then enforces consistency (a port linked twice, ports beyond
 * a node, duplicate names and GUIDs) and reports the offending line.
 *
 * Where a file gives no GUIDs they are made as ibsim makes them, so a net
 * file parses to the GUIDs the simulator will show: one counter per node
 * type (CA 0x100000, switch 0x200000, router 0), advanced by one per switch
 * and by nports + 1 per CA or router. "switchguid=X" (likewise caguid=,
 * hcaguids=, rtguid=) restarts a counter at X, "switchguid+X" at its last
 * base + X. Port GUIDs: "(guid)" on the port line, else the switch's node
 * GUID or a CA's node GUID + port number. A "(guid)" after the far port is
 * a claim about the far end, checked against what its own record says.
 *
 * `ibnetdiscover -g` adds chassis section headers and "[ext N]" port numbers,
 * which are read and dropped: they group and label what the records say.
 * `ibnetdiscover -s` puts a "DR path ..." line per discovery step in front
 * of the records; they are skipped like comments (ibsim would refuse them).
 *
 * Lines must start in column 1, as ibsim wants them: ibsim silently skips
 * indented lines, and we refuse them rather than build another fabric. */
#include "kr_io.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_net_int.h"

#define NAME_MAX_LEN 255
#define LID_MAX 0xBFFF
#define MAX_PORTS 254

struct pend_link {		/* a port line whose far end is still a name */
	int node, peer;		/* builder ids; peer once resolved */
	uint8_t port, rport;
	uint32_t name_off, name_len;	/* far end's name in the input */
	uint64_t rguid;		/* far port GUID the line claims, 0 if none */
	unsigned line;
};

struct parser {
	const char *buf;
	unsigned line;
	struct kr_fabric_builder *b;
	struct kr_diag *d;
	uint32_t nnode;
	int cur;		/* builder id of the open record, -1 if none */
	uint8_t cur_type;
	uint8_t cur_nports;
	char cur_name[NAME_MAX_LEN + 1];
	uint64_t base[4], next[4];	/* ibsim's GUID counters by node type */
	uint64_t port0_guid;	/* "switchguid=X(Y)": Y, for the next switch */
	uint64_t sysimg;	/* sysimgguid= for the next node, 0 if none */
	uint32_t vendid;	/* for the next node (ibsim resets it) */
	uint32_t devid;		/* sticks until changed (ibsim keeps it) */
	unsigned setting_line;	/* a setting no node record has used yet */
	struct pend_link *link;
	uint32_t nlink;
	size_t cap_link;
};

static int perr(struct parser *ps, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, unsigned line, const char *fmt, ...)
{
	char msg[sizeof(ps->d->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kr_fail(ps->d, KR_EPARSE, line, "%s", msg);
}

/* ---- lexing within one line ---- */

static const char *find(const struct span *s, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = s->p; (size_t)(s->e - p) >= n; p++)
		if (*p == *needle && !memcmp(p, needle, n))
			return p;
	return NULL;
}

static const char *find_last(const struct span *s, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = s->e; (size_t)(p - s->p) >= n; p--)
		if (!memcmp(p - n, needle, n))
			return p - n;
	return NULL;
}

static bool get_quoted(struct span *s, struct span *q)
{
	const char *close;

	if (!eat(s, '"'))
		return false;
	close = memchr(s->p, '"', (size_t)(s->e - s->p));
	if (!close)
		return false;
	q->p = s->p;
	q->e = close;
	s->p = close + 1;
	return true;
}

static int copy_text(struct parser *ps, const struct span *q, char *out,
		     const char *what)
{
	size_t n = (size_t)(q->e - q->p);

	if (n > NAME_MAX_LEN)
		return perr(ps, ps->line, "%s longer than %d characters", what,
			    NAME_MAX_LEN);
	memcpy(out, q->p, n);
	out[n] = '\0';
	return KR_OK;
}

/* "(hex)" if present; a port GUID. */
static int get_paren_guid(struct parser *ps, struct span *s, uint64_t *guid)
{
	if (!eat(s, '('))
		return KR_OK;
	if (!get_num(s, 16, UINT64_MAX, guid) || !eat(s, ')'))
		return perr(ps, ps->line,
			    "expected a port GUID in hex inside \"( )\"");
	return KR_OK;
}

/* Nothing but white space or a comment may follow. */
static int end_of_line(struct parser *ps, struct span *s, const char *after)
{
	skip_ws(s);
	if (s->p == s->e || *s->p == '#')
		return KR_OK;
	return perr(ps, ps->line, "unexpected \"%.*s\" after %s",
		    (int)(s->e - s->p > 40 ? 40 : s->e - s->p), s->p, after);
}

/* "WORD N" at t->p (LID or LMC in a comment), range checked; t moves on. */
static int get_word_num(struct parser *ps, struct span *t, const char *word,
			uint64_t max, uint64_t *v)
{
	t->p += strlen(word);
	skip_ws(t);
	if (!get_num(t, 0, max, v))
		return perr(ps, ps->line, "expected a number from 0 to %llu "
			    "after \"%s\"", (unsigned long long)max, word);
	return KR_OK;
}

/* ---- records ---- */

/* A comment after a node name: a quoted description, or text up to
 * " base port ", " enhanced port ", " lid " or " lmc " (ibsim's rule). s is
 * left after the description. ibnetdiscover prints NodeDescription raw,
 * '"' and all, and nothing quoted after it: a quoted one closes at the
 * comment's last '"', so that what it holds ("lid 99") stays in it. */
static int parse_desc(struct parser *ps, struct span *s, char *desc)
{
	static const char *const stop[] = { " base port ", " enhanced port ",
					    " lid ", " lmc " };
	struct span q;

	skip_ws(s);
	if (s->p < s->e && *s->p == '"') {
		q = (struct span){ s->p + 1, s->e };
		while (q.e > q.p && q.e[-1] != '"')
			q.e--;
		if (q.e == q.p)
			return perr(ps, ps->line, "unterminated description "
				    "(expected a closing '\"')");
		s->p = q.e--;
	} else {
		q = *s;
		for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++) {
			const char *at = find(&q, stop[i]);

			if (at)
				q.e = at;
		}
		s->p = q.e;
		while (q.e > q.p && (q.e[-1] == ' ' || q.e[-1] == '\t'))
			q.e--;
	}
	return copy_text(ps, &q, desc, "description");
}

/* Switch header comment: "... base port 0 lid L lmc M". The LID is the
 * last "lid ": an unquoted description (ibsim's rule) ends at its first. */
static int parse_sw_lid(struct parser *ps, const struct span *s, uint64_t *lid,
			uint64_t *lmc)
{
	struct span t = { find_last(s, "lid "), s->e };
	int rc = KR_OK;

	if (t.p)
		rc = get_word_num(ps, &t, "lid", LID_MAX, lid);
	t.p = find(t.p ? &t : s, "lmc ");
	if (!rc && t.p)
		rc = get_word_num(ps, &t, "lmc", 7, lmc);
	return rc;
}

static void open_record(struct parser *ps, int node, enum kr_node_type type,
			unsigned nports, const char *name)
{
	ps->cur = node;
	ps->cur_type = (uint8_t)type;
	ps->cur_nports = (uint8_t)nports;
	strcpy(ps->cur_name, name);
	ps->port0_guid = ps->sysimg = 0;
	ps->vendid = 0;
	ps->setting_line = 0;
	ps->nnode++;
}

static int parse_header(struct parser *ps, struct span *s,
			enum kr_node_type type, const char *kw)
{
	char name[NAME_MAX_LEN + 1], desc[NAME_MAX_LEN + 1] = "";
	uint64_t nports, guid, lid = 0, lmc = 0;
	struct span q;
	int node, rc = KR_OK;

	skip_ws(s);
	if (!get_num(s, 0, MAX_PORTS, &nports) || !nports)
		return perr(ps, ps->line, "expected a port count from 1 to %d "
			    "after \"%s\"", MAX_PORTS, kw);
	skip_ws(s);
	if (!get_quoted(s, &q) || q.p == q.e)
		return perr(ps, ps->line, "expected the node name in double "
			    "quotes after the port count");
	rc = copy_text(ps, &q, name, "node name");
	if (!rc)
		rc = end_of_line(ps, s, "the node name");
	if (!rc && eat(s, '#'))
		rc = parse_desc(ps, s, desc);
	if (!rc && type == KR_SWITCH)
		rc = parse_sw_lid(ps, s, &lid, &lmc);
	if (rc)
		return rc;
	guid = ps->next[type];
	ps->next[type] += type == KR_SWITCH ? 1 : nports + 1;
	node = kr_fb_add_node(ps->b, type, (unsigned)nports, guid, name,
			      desc[0] ? desc : NULL, ps->line, ps->d);
	if (node < 0)
		return node;
	kr_fb_set_ids(ps->b, node, ps->sysimg ? ps->sysimg : guid, ps->vendid,
		      ps->devid);
	if (type == KR_SWITCH)
		rc = kr_fb_set_port(ps->b, node, 0, ps->port0_guid,
				    (uint16_t)lid, (uint8_t)lmc, ps->line, ps->d);
	open_record(ps, node, type, (unsigned)nports, name);
	return rc;
}

/* ibsim's per-link options ("w=4") change nothing in the graph; anything
 * else before the comment is an error. */
static int skip_options(struct parser *ps, struct span *s)
{
	for (;;) {
		const char *tok;

		skip_ws(s);
		if (s->p == s->e || *s->p == '#')
			return KR_OK;
		tok = s->p;
		while (s->p < s->e && *s->p != ' ' && *s->p != '\t' &&
		       *s->p != '#')
			s->p++;
		if (*tok == '=' || !memchr(tok, '=', (size_t)(s->p - tok)))
			return perr(ps, ps->line, "unexpected \"%.*s\" (expected "
				    "name=value options or a # comment)",
				    (int)(s->p - tok > 40 ? 40 : s->p - tok), tok);
	}
}

/* CA port comment as ibnetdiscover writes it: "# lid L lmc M ...". */
static int parse_ca_lid(struct parser *ps, struct span *s, uint64_t *lid,
			uint64_t *lmc)
{
	int rc;

	skip_ws(s);
	if (!starts(s, "lid ") && !starts(s, "lid\t"))
		return KR_OK;
	rc = get_word_num(ps, s, "lid", LID_MAX, lid);
	skip_ws(s);
	if (!rc && (starts(s, "lmc ") || starts(s, "lmc\t")))
		rc = get_word_num(ps, s, "lmc", 7, lmc);
	return rc;
}

static int push_link(struct parser *ps, const struct pend_link *l)
{
	if (kr_grow(&ps->link, &ps->cap_link, (size_t)ps->nlink + 1,
		    sizeof(*ps->link)))
		return kr_fail(ps->d, KR_ENOMEM, ps->line, "out of memory");
	ps->link[ps->nlink++] = *l;
	return KR_OK;
}

/* "[ext N]": the chassis's front-panel number of the port just read, which
 * `ibnetdiscover -g` adds after a port of a chassis line or spine board. The
 * cabling is told by the port numbers alone, so it is checked and dropped. */
static int skip_ext_port(struct parser *ps, struct span *s)
{
	uint64_t ext;

	if (!eat_word(s, "[ext "))
		return KR_OK;
	if (!get_num(s, 10, UINT32_MAX, &ext) || !eat(s, ']'))
		return perr(ps, ps->line, "expected \"[ext N]\" with a chassis "
			    "port number");
	return KR_OK;
}

/* "[P](guid) "far"[FP](farguid) opts # comment": all but [P] and the name
 * optional; the far port defaults to 1 as in ibsim. Grouped output puts
 * "[ext N]" after either port number. */
static int parse_port_line(struct parser *ps, struct span *s)
{
	struct pend_link l = { .node = ps->cur, .peer = -1, .line = ps->line };
	uint64_t port, rport = 1, guid = 0, lid = 0, lmc = 0;
	struct span q;
	int rc;

	if (ps->cur < 0)
		return perr(ps, ps->line, "port line outside a node record "
			    "(a blank line or a setting ends a record)");
	s->p++;
	if (!get_num(s, 10, MAX_PORTS, &port) || !port || !eat(s, ']'))
		return perr(ps, ps->line, "expected \"[N]\" with a port number "
			    "from 1 to %d", MAX_PORTS);
	if (port > ps->cur_nports)
		return perr(ps, ps->line, "port %u beyond \"%s\" (%u ports)",
			    (unsigned)port, ps->cur_name, ps->cur_nports);
	rc = skip_ext_port(ps, s);
	if (!rc)
		rc = get_paren_guid(ps, s, &guid);
	if (rc)
		return rc;
	skip_ws(s);
	if (!get_quoted(s, &q) || q.p == q.e || q.e - q.p > NAME_MAX_LEN)
		return perr(ps, ps->line, "expected the far node's name in "
			    "double quotes (at most %d characters)", NAME_MAX_LEN);
	if (eat(s, '[') && (!get_num(s, 10, MAX_PORTS, &rport) || !rport ||
			    !eat(s, ']')))
		return perr(ps, ps->line, "expected \"[N]\" with the far port "
			    "number from 1 to %d", MAX_PORTS);
	rc = skip_ext_port(ps, s);
	if (!rc)
		rc = get_paren_guid(ps, s, &l.rguid);
	if (!rc)
		rc = skip_options(ps, s);
	if (!rc && eat(s, '#') && ps->cur_type != KR_SWITCH)
		rc = parse_ca_lid(ps, s, &lid, &lmc);
	if (!rc && (guid || lid || lmc))
		rc = kr_fb_set_port(ps->b, ps->cur, (unsigned)port, guid,
				    (uint16_t)lid, (uint8_t)lmc, ps->line, ps->d);
	if (rc)
		return rc;
	l.port = (uint8_t)port;
	l.rport = (uint8_t)rport;
	l.name_off = (uint32_t)(q.p - ps->buf);
	l.name_len = (uint32_t)(q.e - q.p);
	return push_link(ps, &l);
}

/* switchguid / caguid / hcaguids / rtguid: "=X" absolute, "+X" relative to
 * the last absolute value; the switch form may carry "(port GUID)". */
static int parse_guid_base(struct parser *ps, struct span *s,
			   enum kr_node_type type, const char *kw)
{
	uint64_t v, port0 = 0;
	bool rel;
	int rc;

	skip_ws(s);
	rel = eat(s, '+');
	if (!rel && !eat(s, '='))
		return perr(ps, ps->line, "expected \"=\" or \"+\" after \"%s\"",
			    kw);
	skip_ws(s);
	if (!get_num(s, 0, UINT64_MAX, &v))
		return perr(ps, ps->line, "expected a GUID after \"%s%c\"", kw,
			    rel ? '+' : '=');
	rc = get_paren_guid(ps, s, &port0);
	if (!rc)
		rc = end_of_line(ps, s, "the GUID");
	if (rc)
		return rc;
	if (!rel)
		ps->base[type] = v;
	ps->next[type] = ps->base[type] + (rel ? v : 0);
	ps->port0_guid = port0;
	ps->setting_line = ps->line;
	return KR_OK;
}

enum id_kind { ID_VEND, ID_DEV, ID_SYSIMG };

static int parse_id(struct parser *ps, struct span *s, enum id_kind kind,
		    const char *kw)
{
	uint64_t v;
	int rc;

	skip_ws(s);
	if (!eat(s, '='))
		return perr(ps, ps->line, "expected \"=\" after \"%s\"", kw);
	skip_ws(s);
	if (!get_num(s, 0, kind == ID_SYSIMG ? UINT64_MAX : UINT32_MAX, &v))
		return perr(ps, ps->line, "expected a number after \"%s=\"", kw);
	rc = end_of_line(ps, s, "the number");
	if (rc)
		return rc;
	if (kind == ID_VEND)
		ps->vendid = (uint32_t)v;
	else if (kind == ID_DEV)
		ps->devid = (uint32_t)v;
	else
		ps->sysimg = v;
	ps->setting_line = ps->line;
	return KR_OK;
}

enum kw_kind { KW_NODE, KW_GUID, KW_ID, KW_IGNORE, KW_UNSUPPORTED };

static const struct keyword {
	const char *word;
	uint8_t kind;		/* enum kw_kind */
	uint8_t arg;		/* node type, or enum id_kind */
} keywords[] = {
	{ "Switch", KW_NODE, KR_SWITCH },
	{ "Hca", KW_NODE, KR_CA },
	{ "Ca", KW_NODE, KR_CA },
	{ "Rt", KW_NODE, KR_ROUTER },
	{ "switchguid", KW_GUID, KR_SWITCH },
	{ "caguid", KW_GUID, KR_CA },
	{ "hcaguids", KW_GUID, KR_CA },
	{ "rtguid", KW_GUID, KR_ROUTER },
	{ "vendid", KW_ID, ID_VEND },
	{ "devid", KW_ID, ID_DEV },
	{ "sysimgguid", KW_ID, ID_SYSIMG },
	/* ibsim-only: link speeds, parser debugging, console commands (a
	 * "do Unlink" would change ibsim's fabric; we read the cabling) */
	{ "width", KW_IGNORE, 0 },
	{ "speed", KW_IGNORE, 0 },
	{ "extspeed", KW_IGNORE, 0 },
	{ "pdebug", KW_IGNORE, 0 },
	{ "do", KW_IGNORE, 0 },
	{ "include", KW_UNSUPPORTED, 0 },
	{ "module", KW_UNSUPPORTED, 0 },
};

static const struct keyword *lookup(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].word) == n &&
		    !memcmp(keywords[i].word, w, n))
			return &keywords[i];
	return NULL;
}

/* Any line that is not a port line or a comment ends the open record. */
/* After the type word, ibnetdiscover's node lists go on "\t : 0xGUID
 * ports N devid ...". */
static bool node_list_line(const struct span *s)
{
	struct span t = *s;

	skip_ws(&t);
	return starts(&t, ": 0x") && find(&t, " ports ") != NULL;
}

/* `ibnetdiscover -p`: "CA    18  1 0x0002c90100000081 4x SDR - SW ...",
 * a link per line between port GUIDs, without the nodes that own them. */
static bool port_list_line(const struct span *s)
{
	struct span t = *s;
	uint64_t v;

	if (!eat_word(&t, "CA ") && !eat_word(&t, "SW ") && !eat_word(&t, "RT "))
		return false;
	skip_ws(&t);
	if (!get_num(&t, 10, UINT64_MAX, &v))
		return false;
	skip_ws(&t);
	if (!get_num(&t, 10, UINT64_MAX, &v))
		return false;
	skip_ws(&t);
	return starts(&t, "0x");
}

static int parse_keyword(struct parser *ps, struct span *s)
{
	const char *w = s->p;
	const struct keyword *k;

	while (s->p < s->e && ((*s->p >= 'a' && *s->p <= 'z') ||
			       (*s->p >= 'A' && *s->p <= 'Z')))
		s->p++;
	k = lookup(w, (size_t)(s->p - w));
	ps->cur = -1;
	if (node_list_line(s))
		return perr(ps, ps->line, "a node list (`ibnetdiscover -l`, -H, "
			    "-S or -R output) has no links: use plain "
			    "`ibnetdiscover` output");
	if (port_list_line(&(struct span){ w, s->e }))
		return perr(ps, ps->line, "a port list (`ibnetdiscover -p` "
			    "output) does not say which ports share a node: "
			    "use plain `ibnetdiscover` output");
	if (!k)
		return perr(ps, ps->line, "unknown line \"%.*s\" (expected "
			    "Switch, Ca, Hca or Rt records, [port] lines or "
			    "name=value settings)",
			    (int)(s->e - w > 40 ? 40 : s->e - w), w);
	switch (k->kind) {
	case KW_NODE:
		return parse_header(ps, s, k->arg, k->word);
	case KW_GUID:
		return parse_guid_base(ps, s, k->arg, k->word);
	case KW_ID:
		return parse_id(ps, s, k->arg, k->word);
	case KW_UNSUPPORTED:
		return perr(ps, ps->line, "\"%s\" is not supported (ibsim net "
			    "files must be self-contained here)", k->word);
	default:
		return KR_OK;
	}
}

/* Section headers of `ibnetdiscover -g`: "Chassis N", optionally with
 * " (guid 0xG)", then "Hostname: ..." for a Xsigo chassis, and "Non-Chassis
 * Nodes" before the switches outside any chassis. They group records that
 * are complete without them. */
static bool group_header(const struct span *s)
{
	struct span t = *s;
	uint64_t v;

	if (starts(&t, "Hostname: "))
		return true;
	if (eat_word(&t, "Non-Chassis Nodes")) {
		skip_ws(&t);
		return t.p == t.e;
	}
	if (!eat_word(&t, "Chassis "))
		return false;
	if (!get_num(&t, 10, 255, &v))
		return false;
	skip_ws(&t);
	if (eat_word(&t, "(guid ")) {
		if (!get_num(&t, 16, UINT64_MAX, &v) || !eat(&t, ')'))
			return false;
		skip_ws(&t);
	}
	return t.p == t.e;
}

static int parse_line(struct parser *ps, struct span *s)
{
	struct span t = *s;

	skip_ws(&t);
	if (t.p == t.e) {
		ps->cur = -1;	/* a blank line ends a record */
		return KR_OK;
	}
	if (*t.p == '#' || starts(s, "DR path "))
		return KR_OK;
	if (t.p != s->p)
		return perr(ps, ps->line, "indented line (ibsim ignores lines "
			    "that do not start in column 1)");
	if (*s->p == '[')
		return parse_port_line(ps, s);
	if (*s->p == '@')
		return perr(ps, ps->line, "port aliases (\"@[N]\") are not "
			    "supported");
	if (group_header(s)) {
		ps->cur = -1;
		return KR_OK;
	}
	return parse_keyword(ps, s);
}

static int parse_lines(struct parser *ps, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nul = memchr(buf, '\0', len);
	int rc = KR_OK;

	while (p < end && !rc) {
		struct span s = next_line(&p, end);

		ps->line++;
		if (nul && nul < s.e)
			return perr(ps, ps->line, "NUL byte in the text");
		drop_cr(&s);
		rc = parse_line(ps, &s);
	}
	if (!rc && ps->setting_line)
		rc = perr(ps, ps->setting_line, "setting not followed by a node "
			  "record (file truncated?)");
	if (!rc && !ps->nnode)
		rc = perr(ps, ps->line, "no node records (expected Switch, Ca, "
			  "Hca or Rt lines)");
	return rc;
}

/* Forward references are legal, so names are looked up only now. */
static int resolve_links(struct parser *ps)
{
	char name[NAME_MAX_LEN + 1];

	for (uint32_t i = 0; i < ps->nlink; i++) {
		struct pend_link *l = &ps->link[i];
		int rc;

		memcpy(name, ps->buf + l->name_off, l->name_len);
		name[l->name_len] = '\0';
		l->peer = kr_fb_find(ps->b, name);
		if (l->peer < 0)
			return perr(ps, l->line, "unknown node \"%s\" (no record "
				    "with that name)", name);
		rc = kr_fb_link(ps->b, l->node, l->port, l->peer, l->rport,
				l->line, ps->d);
		if (rc)
			return rc;
	}
	return KR_OK;
}

/* "(guid)" after a far port must match the far end's own port GUID. */
static int check_claims(struct parser *ps, const struct kr_fabric *f)
{
	for (uint32_t i = 0; i < ps->nlink; i++) {
		const struct pend_link *l = &ps->link[i];
		uint32_t z = kr_fb_final_id(ps->b, l->peer);
		uint32_t slot = kr_port(f, z, kr_is_switch(f, z) ? 0 : l->rport);

		if (l->rguid && f->port_guid[slot] != l->rguid)
			return perr(ps, l->line, "far port \"%s\"[%u] has GUID "
				    "0x%llx here but 0x%llx in its own record",
				    kr_node_name(f, z), l->rport,
				    (unsigned long long)l->rguid,
				    (unsigned long long)f->port_guid[slot]);
	}
	return KR_OK;
}

int kr_net_parse(const char *buf, size_t len, const char *name,
		 struct kr_fabric *f, struct kr_diag *d)
{
	struct parser ps = { .buf = buf, .d = d, .cur = -1,
			     .base = { [KR_CA] = 0x100000,
				       [KR_SWITCH] = 0x200000 } };
	int rc;

	if (lst_detect(buf, len))
		return lst_parse(buf, len, name, f, d);
	if (ibl_detect(buf, len))
		return ibl_parse(buf, len, name, f, d);
	*f = (struct kr_fabric){ 0 };
	if (d)
		d->file = name;
	memcpy(ps.next, ps.base, sizeof(ps.next));
	ps.b = kr_fb_new();
	if (!ps.b)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	rc = parse_lines(&ps, buf, len);
	if (!rc)
		rc = resolve_links(&ps);
	if (!rc)
		rc = kr_fb_finish(ps.b, f, d);
	if (!rc) {
		rc = check_claims(&ps, f);
		if (rc)
			kr_fabric_free(f);
	}
	free(ps.link);
	kr_fb_free(ps.b);
	return rc;
}

int kr_net_read(const char *path, struct kr_fabric *f, struct kr_diag *d)
{
	char *buf;
	size_t len;
	int rc;

	*f = (struct kr_fabric){ 0 };
	rc = kr_slurp(path, KR_IN_STREAM, &buf, &len, d);
	if (!rc)
		rc = kr_net_parse(buf, len, path, f, d);
	free(buf);
	return rc;
}
