/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The report page: one HTML file that needs nothing else (styles inline,
 * pictures as inline SVG, no script, nothing fetched), so an admin can
 * mail it or open it on a machine without network. Sections, each an
 * id a reader (or a test) can find: summary, plan, check, pictures,
 * links, and faults and sim when their files were there. */
#include <config.h>

#include "draw_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TOP_LINKS 10		/* rows of the most loaded links */
#define JSON_MEMBERS 64		/* the widest object shown (sim: 26) */

static const char style[] =
"body{font-family:sans-serif;margin:1.5em auto;max-width:75em;color:#222}"
"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}"
"table{border-collapse:collapse;margin:.5em 0}"
"td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left;"
"vertical-align:top}th{background:#f0f0f0}td.n{text-align:right}"
".ok{color:#1a7f37;font-weight:bold}.bad{color:#d7191c;font-weight:bold}"
"figure{margin:1em 0;overflow:auto;border:1px solid #ddd}"
"figure svg{max-width:100%;height:auto}figcaption{padding:.3em;"
"background:#f8f8f8}pre{background:#f8f8f8;padding:.6em;overflow:auto}"
"nav a{margin-right:1em}section{overflow-x:auto}";

static void html_n(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(s[i], out);
		}
	}
}

static void html(FILE *out, const char *s)
{
	html_n(out, s, strlen(s));
}

/* The summary file's line starting with key ("plan: "), or NULL. */
static const char *summary_line(const char *summary, const char *key,
				size_t *n)
{
	size_t k = strlen(key);

	for (const char *p = summary; p && *p; p += *n + (p[*n] == '\n')) {
		*n = strcspn(p, "\n");
		if (*n >= k && !strncmp(p, key, k)) {
			*n -= k;
			return p + k;
		}
	}
	return NULL;
}

static void row(FILE *out, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void row(FILE *out, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("<tr><th>", out);
	html(out, key);
	fputs("</th><td>", out);
	html(out, buf);
	fputs("</td></tr>\n", out);
}

static void verdict_span(FILE *out, const char *v)
{
	fprintf(out, "<span class=\"%s\">%s</span>", strcmp(v, "ok") ? "bad" :
		"ok", v);
}

static void section_summary(FILE *out, const struct kr_report *rep)
{
	const struct kr_check_report *r = rep->r;
	const char *line;
	size_t n;

	fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n",
	      out);
	row(out, "directory", "%s", rep->title);
	row(out, "fabric", "%s", rep->fabric);
	row(out, "nodes", "%" PRIu32 " switches, %" PRIu32 " CAs",
	    rep->f->nsw, rep->f->nnode - rep->f->nsw);
	if ((line = summary_line(rep->summary, "LIDs: ", &n)))
		row(out, "LIDs", "%.*s", (int)n, line);
	if ((line = summary_line(rep->summary, "repair: ", &n)))
		row(out, "repair", "%.*s", (int)n, line);
	row(out, "pairs", "%" PRIu64 " checked, %" PRIu64 " delivered",
	    r->pairs, r->delivered);
	row(out, "link load", "max %" PRIu64 ", mean %.2f over %" PRIu32
	    " directed switch links", r->load_max, r->load_mean, r->nlinks);
	fputs("<tr><th>verdict</th><td>", out);
	verdict_span(out, r->pairs ? kr_check_verdict(
			&r->cls[kr_check_deciding(r)]) : "nothing_checked");
	fputs("</td></tr>\n</table></section>\n", out);
}

/* Which VLs each SL reaches on links between switches, from the maps:
 * the plan as the tables carry it, whatever engine made them. */
static void sl_table(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t)
{
	uint16_t vls[KR_NSL] = { 0 };

	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned in = 0; in <= f->nports[sw]; in++)
			for (unsigned o = 1; o <= f->nports[sw]; o++) {
				int32_t q = f->peer[kr_port(f, sw, o)];
				uint64_t map;

				if (q < 0 || !kr_is_switch(f, f->owner[q]))
					continue;
				map = kr_tables_sl2vl(f, t, sw, in, o);
				for (unsigned sl = 0; sl < KR_NSL; sl++)
					vls[sl] |= (uint16_t)(1u << kr_map_vl(map, sl));
			}
	uint32_t dests[KR_NSL] = { 0 };

	for (unsigned lid = 1; lid < t->stride; lid++)
		if (kr_port_by_lid(f, lid) != KR_NONE)
			dests[t->dlid_sl ? t->dlid_sl[lid] % KR_NSL : 0]++;
	fputs("<p>No plan file (<code>summary</code> of <code>knsroute "
	      "route</code>) in the directory: the SL2VL maps and path SLs "
	      "as read.</p>\n<table class=\"sl2vl\"><tr><th>SL</th>"
	      "<th>destination LIDs</th><th>VLs on switch links</th></tr>\n",
	      out);
	for (unsigned sl = 0; sl < KR_NSL; sl++) {
		fprintf(out, "<tr><td class=\"n\">%u</td><td class=\"n\">%"
			PRIu32 "</td><td>", sl, dests[sl]);
		for (unsigned vl = 0, first = 1; vl < 16; vl++)
			if (vls[sl] >> vl & 1) {
				fprintf(out, "%s%u", first ? "" : ", ", vl);
				first = 0;
			}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* Up to the plan's next "; " outside parentheses (a clause may hold
 * one: "SL 0: multicast (VL 4, ...; unicast SL 0 sent on SL 8)"). */
static size_t clause_len(const char *s, size_t n)
{
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		depth += (s[i] == '(') - (s[i] == ')');
		if (s[i] == ';' && depth <= 0)
			return i;
	}
	return n;
}

static void section_plan(FILE *out, const struct kr_report *rep)
{
	size_t n;
	const char *plan = summary_line(rep->summary, "plan: ", &n);

	fputs("<section id=\"plan\"><h2>SL/VL plan</h2>\n", out);
	if (!plan) {
		sl_table(out, rep->f, rep->t);
		fputs("</section>\n", out);
		return;
	}
	fputs("<ul class=\"plan\">\n", out);
	while (n) {
		size_t k = clause_len(plan, n);

		fputs("<li>", out);
		html_n(out, plan, k);
		fputs("</li>\n", out);
		k += k < n;
		while (k < n && plan[k] == ' ')
			k++;
		plan += k;
		n -= k;
	}
	fputs("</ul></section>\n", out);
}

static void section_check(FILE *out, const struct kr_report *rep)
{
	static const char *const names[KR_CHECK_NCLASS] = {
		"data (CA to CA)", "data + management", "unicast + multicast" };
	const struct kr_check_report *r = rep->r;

	fputs("<section id=\"check\"><h2>Check</h2>\n<table class=\"verdicts\">"
	      "<tr><th>traffic</th><th>pairs</th><th>delivered</th>"
	      "<th>verdict</th></tr>\n", out);
	for (unsigned c = 0; c < KR_CHECK_NCLASS; c++) {
		const struct kr_check_class *k = &r->cls[c];

		if (c == KR_CHECK_MCAST && !r->ngroups)
			continue;
		fprintf(out, "<tr><td>%s%s</td><td class=\"n\">%" PRIu64 "</td>"
			"<td class=\"n\">%" PRIu64 "</td><td>", names[c],
			c == kr_check_deciding(r) ? " (counted)" : "",
			k->pairs, k->delivered);
		verdict_span(out, kr_check_verdict(k));
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	if (rep->check_text) {
		fputs("<details><summary>the check's report</summary><pre>", out);
		html(out, rep->check_text);
		fputs("</pre></details>\n", out);
	}
	fputs("</section>\n", out);
}

static void section_pictures(FILE *out, const struct kr_report *rep)
{
	fputs("<section id=\"pictures\"><h2>Pictures</h2>\n", out);
	for (unsigned i = 0; i < rep->nsvg; i++) {
		fputs("<figure>\n", out);
		fputs(rep->svg[i].text, out);	/* ours: already markup */
		fputs("<figcaption>", out);
		html(out, rep->svg[i].name);
		fputs("</figcaption></figure>\n", out);
	}
	fputs("</section>\n", out);
}

static void link_cells(FILE *out, const struct kr_fabric *f, uint32_t slot)
{
	fputs("<td>", out);
	html(out, kr_port_label(f, slot).s);
	fputs("</td><td>", out);
	html(out, kr_port_label(f, (uint32_t)f->peer[slot]).s);
	fputs("</td>", out);
}

/* The TOP_LINKS most loaded directed links, by a pass per row: few rows,
 * and the load array is the fabric's ports. */
static void section_links(FILE *out, const struct kr_report *rep)
{
	const struct kr_fabric *f = rep->f;
	const uint64_t *load = rep->r->link_load;
	uint64_t below = UINT64_MAX;
	uint32_t last = 0;

	fputs("<section id=\"links\"><h2>Most loaded links</h2>\n<table "
	      "class=\"top-links\"><tr><th>#</th><th>from</th><th>to</th>"
	      "<th>CA-to-CA paths</th><th>of max</th></tr>\n", out);
	for (unsigned rank = 1; load && rank <= TOP_LINKS; rank++) {
		uint32_t best = KR_NONE;

		/* the next one: lower than the last, or equal and later */
		for (uint32_t s = 0; s < f->nport; s++)
			if (load[s] && (load[s] < below ||
					(load[s] == below && s > last)) &&
			    (best == KR_NONE || load[s] > load[best]))
				best = s;
		if (best == KR_NONE)
			break;
		fprintf(out, "<tr><td class=\"n\">%u</td>", rank);
		link_cells(out, f, best);
		fprintf(out, "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">"
			"%.0f%%</td></tr>\n", load[best], 100.0 * load[best] /
			(double)rep->r->load_max);
		below = load[best];
		last = best;
	}
	fputs("</table></section>\n", out);
}

static void cell_value(FILE *out, const struct draw_json_member *m)
{
	fputs("<td", out);
	fputs(m->kind == 'n' ? " class=\"n\">" : ">", out);
	html_n(out, m->val, m->nval);
	fputs("</td>", out);
}

#define FAULTS_JSON "the JSON object of knsroute faults --json"
#define SIM_JSON "JSON objects of knsroute sim --json, one a line"

/* The first object of a results file into m, then the file's heading and
 * the start of its table: the object's member count, or -1 with d saying
 * where the file stops being what was expected. */
static int results_start(FILE *out, const struct kr_report_file *rf,
			 const char *expected, const char *cls,
			 struct draw_json_member *m, struct kr_diag *d)
{
	size_t at = 0;
	int n = draw_json_object(rf->text, &at, m, JSON_MEMBERS);

	if (n < 0) {
		kr_fail(d, KR_EPARSE, 0, "%s: byte %zu: expected %s", rf->name,
			at + 1, expected);
		return -1;
	}
	fputs("<h3>", out);
	html(out, rf->name);
	fprintf(out, "</h3>\n<table class=\"%s\">", cls);
	return n;
}

/* A faults file: one object, a row per member. */
static int faults_table(FILE *out, const struct kr_report_file *rf,
			struct kr_diag *d)
{
	struct draw_json_member m[JSON_MEMBERS];
	int n = results_start(out, rf, FAULTS_JSON, "faults", m, d);

	if (n < 0)
		return KR_EPARSE;
	for (int i = 0; i < n; i++) {
		fputs("\n<tr><th>", out);
		html_n(out, m[i].key, m[i].nkey);
		fputs("</th>", out);
		cell_value(out, &m[i]);
		fputs("</tr>", out);
	}
	fputs("\n</table>\n", out);
	return KR_OK;
}

/* The value of key in m[0..n), or NULL. */
static const struct draw_json_member *member(const struct draw_json_member *m,
					     int n, const char *key,
					     unsigned nkey)
{
	for (int i = 0; i < n; i++)
		if (m[i].nkey == nkey && !memcmp(m[i].key, key, nkey))
			return &m[i];
	return NULL;
}

/* A sim file: a line per run, a row per run; the columns are the first
 * run's scalars (arrays, such as windows, stay out of the table). */
static int sim_table(FILE *out, const struct kr_report_file *rf,
		     struct kr_diag *d)
{
	struct draw_json_member head[JSON_MEMBERS], m[JSON_MEMBERS];
	int nh = results_start(out, rf, SIM_JSON, "sim", head, d), n;
	size_t at;

	if (nh < 0)
		return KR_EPARSE;
	fputs("<tr>", out);
	for (int i = 0; i < nh; i++)
		if (head[i].kind == 's' || head[i].kind == 'n') {
			fputs("<th>", out);
			html_n(out, head[i].key, head[i].nkey);
			fputs("</th>", out);
		}
	fputs("</tr>\n", out);
	for (at = 0; rf->text[at + strspn(rf->text + at, " \t\r\n")]; ) {
		if ((n = draw_json_object(rf->text, &at, m, JSON_MEMBERS)) < 0)
			return kr_fail(d, KR_EPARSE, 0, "%s: byte %zu: expected "
				       SIM_JSON, rf->name, at + 1);
		fputs("<tr>", out);
		for (int i = 0; i < nh; i++) {
			const struct draw_json_member *v;

			if (head[i].kind != 's' && head[i].kind != 'n')
				continue;
			v = member(m, n, head[i].key, head[i].nkey);
			if (v)
				cell_value(out, v);
			else
				fputs("<td></td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	return KR_OK;
}

static int section_results(FILE *out, const struct kr_report *rep,
			   struct kr_diag *d)
{
	int rc = KR_OK;

	if (rep->nfaults)
		fputs("<section id=\"faults\"><h2>Fault experiments</h2>\n", out);
	for (unsigned i = 0; !rc && i < rep->nfaults; i++)
		rc = faults_table(out, &rep->faults[i], d);
	if (rep->nfaults)
		fputs("</section>\n", out);
	if (rep->nsim)
		fputs("<section id=\"sim\"><h2>Traffic simulation</h2>\n", out);
	for (unsigned i = 0; !rc && i < rep->nsim; i++)
		rc = sim_table(out, &rep->sim[i], d);
	if (rep->nsim)
		fputs("</section>\n", out);
	return rc;
}

int kr_report_write(FILE *out, const struct kr_report *rep,
		    struct kr_diag *d)
{
	int rc;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>knsroute report: ", out);
	html(out, rep->title);
	fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<h1>knsroute "
		"report: <code>", style);
	html(out, rep->title);
	fprintf(out, "</code></h1>\n<nav><a href=\"#summary\">summary</a><a "
		"href=\"#plan\">plan</a><a href=\"#check\">check</a><a href="
		"\"#pictures\">pictures</a><a href=\"#links\">loaded links</a>"
		"%s%s</nav>\n", rep->nfaults ? "<a href=\"#faults\">faults</a>"
		: "", rep->nsim ? "<a href=\"#sim\">simulation</a>" : "");
	section_summary(out, rep);
	section_plan(out, rep);
	section_check(out, rep);
	section_pictures(out, rep);
	section_links(out, rep);
	rc = section_results(out, rep, d);
	fputs("<footer><p>knsroute " PACKAGE_VERSION "</p></footer>\n"
	      "</body></html>\n", out);
	if (!rc && ferror(out))
		rc = kr_fail(d, KR_EIO, 0, "cannot write the report");
	return rc;
}
