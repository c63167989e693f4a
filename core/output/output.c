/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a plan looks like from outside: the dry-run directory (OpenSM's dump
 * files plus knsroute's path-sl, vlarb and summary), the summary text and
 * the one-line log message. */
#include "kr_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kr_atomic.h"
#include "kr_dump.h"
#include "kr_io.h"
#include "kr_out.h"

#define VLARB_WEIGHT 64

struct out_ctx {
	const struct kr_fabric *f;
	const struct kr_plan *p;
	double t0;		/* when writing began: the summary reports it */
};

/* " VL:weight" of every VL of a mask, kept for the next port: a plan has
 * a few masks, and a switch's ports of a kind mostly share theirs. */
struct vl_list {
	uint16_t mask;		/* 0: none yet */
	uint8_t len;
	char text[15 * 7];
};

static void put_vl_list(struct kr_out *o, struct vl_list *l, uint16_t mask)
{
	char *q = l->text;

	if (l->mask != mask) {
		for (unsigned vl = 0; vl < 15; vl++)
			if (mask >> vl & 1) {
				*q++ = ' ';
				q = kr_fmt_u(q, vl);
				*q++ = ':';
				q = kr_fmt_u(q, VLARB_WEIGHT);
			}
		l->mask = mask;
		l->len = (uint8_t)(q - l->text);
	}
	kr_out_put(o, l->text, l->len);
}

static int write_vlarb(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;
	const struct kr_fabric *f = c->f;
	const uint16_t *mask = c->p->slvl.vl_mask;
	struct vl_list last = { .mask = 0 };
	struct kr_out o;

	if (kr_out_open(&o, out))
		return KR_ENOMEM;
	kr_out_str(&o, "# knsroute VL arbitration: port GUID, port number, "
		   "low-priority VL:weight list; the high-priority table is "
		   "empty\n");
	for (uint32_t s = 0; s < f->nport; s++) {
		if (f->peer[s] < 0 || !mask[s])
			continue;
		kr_out_str(&o, "0x");
		kr_out_hex(&o, f->port_guid[s], 16, 0);
		kr_out_ch(&o, ' ');
		kr_out_u(&o, kr_port_num(f, s));
		kr_out_str(&o, " low");
		put_vl_list(&o, &last, mask[s]);
		kr_out_str(&o, "  # \"");
		kr_out_str(&o, kr_node_desc(f, f->owner[s]));
		kr_out_str(&o, "\"\n");
	}
	return kr_out_close(&o);
}

static int write_lfts(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_lfts_write(out, c->f, &c->p->tables);
}

static int write_sl2vl(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_sl2vl_write(out, c->f, &c->p->tables);
}

static int write_path_sl(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_path_sl_write(out, c->f, &c->p->tables);
}

/* Fat-tree subnets: CA-to-CA paths on the up links, per stage they climb
 * to (0: router to stage 0); on a pristine fabric each stage is even. */
static void stage_loads(FILE *out, const struct kr_fabric *f,
			const struct kr_plan *p)
{
	const struct kr_topo *t = &p->topo;
	uint64_t lo[KR_MAX_STAGE], hi[KR_MAX_STAGE];
	uint32_t n[KR_MAX_STAGE] = { 0 };

	for (uint32_t slot = 0; slot < f->port0[f->nsw]; slot++) {
		uint32_t u = f->owner[slot], w;
		unsigned e;

		if (f->peer[slot] < 0 || !kr_is_switch(f, w = f->owner[f->peer[slot]]) ||
		    t->sw_pos[w] != KR_NONE)
			continue;
		e = t->sw_pos[u] != KR_NONE ? 0 : t->sw_stage[u] + 1u;
		if (t->sw_pos[u] == KR_NONE && t->sw_stage[w] != e)
			continue;	/* a down link */
		if (!n[e]++ || p->check.link_load[slot] < lo[e])
			lo[e] = p->check.link_load[slot];
		if (n[e] == 1 || p->check.link_load[slot] > hi[e])
			hi[e] = p->check.link_load[slot];
	}
	fprintf(out, "subnet up-link load (CA-to-CA paths per link, by the "
		"stage climbed to):");
	for (unsigned e = 0; e < t->s; e++)
		fprintf(out, "%s stage %u: %u links, min %llu, max %llu",
			e ? ";" : "", e, n[e], (unsigned long long)lo[e],
			(unsigned long long)hi[e]);
	fputc('\n', out);
}

static int summary(FILE *out, const struct kr_fabric *f,
		   const struct kr_plan *p, double write_ms)
{
	char topo[256], repair[512];
	unsigned lids = 0, cas = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		if (f->lid_port[lid] != KR_NONE) {
			lids++;
			cas += !kr_is_switch(f, f->owner[f->lid_port[lid]]);
		}
	kr_topo_describe(topo, sizeof(topo), f, &p->topo);
	fprintf(out, "fabric: %s\n", topo);
	fprintf(out, "LIDs: %u routed (%u of CA ports, %u of switches), "
		"%u dimension order(s)\n", lids, cas, lids - cas, p->slvl.nvn);
	fprintf(out, "plan: %s\n", p->slvl.text);
	for (const char *l = p->topo.report; l && *l;) {	/* conflicts, notes */
		size_t n = strcspn(l, "\n");

		fprintf(out, "recognition: %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	if (p->resumed)
		fprintf(out, "tables in force: from a tables cache, %u "
			"destinations repaired\n", p->resumed_dests);
	kr_repair_describe(repair, sizeof(repair), &p->repair, "; ");
	fprintf(out, "repair: %s\n", repair);
	if (p->checked && kr_check_report_write(out, f, &p->check, 0))
		return KR_EIO;
	if (p->checked && p->topo.s > 1 && p->check.link_load)
		stage_loads(out, f, p);
	if (!p->checked)
		fprintf(out, "check: skipped (check no)\n");
	else if (p->incremental)
		fprintf(out, "check: incremental: the pairs above are those "
			"towards the %u destinations that changed, checked "
			"against the last sweep's proof\n", p->check_dests);
	fprintf(out, "compute ms: recognition %.1f, routing %.1f, SL/VL %.1f, "
		"repair %.1f, check %.1f\n", p->ms[KR_PHASE_TOPO],
		p->ms[KR_PHASE_ROUTE], p->ms[KR_PHASE_SLVL],
		p->ms[KR_PHASE_REPAIR], p->ms[KR_PHASE_CHECK]);
	fprintf(out, "write ms: %.1f\n", write_ms);
	return ferror(out) ? KR_EIO : KR_OK;
}

static int write_mfts(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_mft_write(out, c->f, &c->p->tables);
}

static int write_topology(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_net_write(out, c->f);
}

static int write_tables_cache(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return kr_tables_cache_write(out, c->f, &c->p->tables);
}

static int write_summary(FILE *out, const void *ctx)
{
	const struct out_ctx *c = ctx;

	return summary(out, c->f, c->p, kr_now_ms() - c->t0);
}

/* Those from FIRST_PROVEN on need the check's report or the groups that
 * come with it. */
static const struct kr_dir_file outputs[] = {
	{ "opensm-lfts.dump", write_lfts },
	{ "opensm-sl2vl.dump", write_sl2vl },
	{ "path-sl", write_path_sl },
	{ "vlarb", write_vlarb },
	{ "topology.net", write_topology },
	{ "knsroute-tables", write_tables_cache },
	{ "opensm.mcfdbs", write_mfts },
	{ "summary", write_summary },
};
#define NOUT (sizeof(outputs) / sizeof(outputs[0]))
#define FIRST_PROVEN 6

int kr_plan_write_dir(const char *dir, enum kr_write_to how,
		      const struct kr_fabric *f, const struct kr_plan *p,
		      struct kr_diag *d)
{
	struct out_ctx ctx = { f, p, kr_now_ms() };

	return kr_write_dir(dir, how, outputs, NOUT, &ctx, d);
}

int kr_plan_write_dir_proving(const char *dir, const struct kr_fabric *f,
			      const struct kr_plan *p, int (*prove)(void *arg),
			      void *arg, struct kr_diag *d)
{
	struct out_ctx ctx = { f, p, kr_now_ms() };
	struct kr_dir_gate gate = { prove, arg, FIRST_PROVEN };

	return kr_write_dir_while(dir, KR_TO_NAMED, outputs, NOUT, &ctx, &gate,
				  d);
}

struct cache_ctx {
	const struct kr_fabric *f;
	const struct kr_topo *t;
	char *old;		/* the cache being replaced, or NULL */
};

/* A cache line's words after the first, up to its CA slots: a switch's
 * coordinates (n characters). */
static const char *coords_of(const char *line, size_t *n)
{
	const char *c = line + strcspn(line, " \t"), *cas = strstr(c, " cas");

	*n = cas ? (size_t)(cas - c) : strlen(c);
	return c;
}

static int by_coords(const void *a, const void *b)
{
	size_t nx, ny;
	const char *x = coords_of(*(char *const *)a, &nx);
	const char *y = coords_of(*(char *const *)b, &ny);
	int cmp = memcmp(x, y, nx < ny ? nx : ny);

	return cmp ? cmp : (nx > ny) - (nx < ny);
}

/* The lines of text that start with 0x (switches) or not (the header),
 * as NUL-terminated strings in place; how many went to sw. */
static size_t split_cache(char *text, char **sw, char *head, size_t hlen)
{
	size_t n = 0, used = 0;

	head[0] = '\0';
	for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#\r")] = '\0';
		if (!strncmp(line, "0x", 2))
			sw[n++] = line;
		else if (*line && used + strlen(line) + 2 < hlen)
			used += (size_t)sprintf(head + used, "%s\n", line);
	}
	return n;
}

/* How many of lines[0 .. n), sorted by_coords, have line's coordinates:
 * the ends of their run, by bisection. */
static size_t same_place(char **lines, size_t n, char *line)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {	/* the first not below */
		size_t mid = (lo + hi) / 2;

		if (by_coords(&lines[mid], &line) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo, hi = n; end < hi;) {	/* the first above */
		size_t mid = (end + hi) / 2;

		if (by_coords(&lines[mid], &line) <= 0)
			end = mid + 1;
		else
			hi = mid;
	}
	return end - lo;
}

/* How many of the old lines kept[0 .. n) have line's coordinates (few:
 * the switches of a cache that f lacks). */
static size_t kept_here(char **kept, size_t n, char *line)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += !by_coords(&kept[i], &line);
	return k;
}

/* How many switches may hold the place of an old cache line: one, but
 * for the switches of a fat-tree subnet, which share their line's
 * coordinates (the crossbar's "*" in its own dimension), s stages of
 * k / arity switches. */
static size_t room_of(const struct kr_topo *t, const char *line)
{
	size_t n;
	const char *x = coords_of(line, &n), *star = memchr(x, '*', n);
	unsigned d = 0;

	if (t->s < 2 || !star || !t->arity)
		return 1;
	for (const char *p = x; p < star; p++)
		d += *p == ' ' && p > x;
	return d < t->ndim ? (size_t)t->s * t->k[d] / t->arity : 1;
}

/* The cache of t, then the switches of the one it replaces that f lacks
 * (gone with a failure, perhaps) on places that no switch of t holds,
 * when both describe one grid: they come back to their places then,
 * instead of to a fabric read afresh, which a grid that lost many
 * switches may no longer tell. A subnet's switches share a place, which
 * is free while fewer than the subnet holds are listed (room_of). */
static int write_cache(FILE *out, const void *ctx)
{
	const struct cache_ctx *c = ctx;
	char *now = NULL, **sw = NULL, head_now[512], head_old[512];
	size_t len = 0, nnow, nold, lines = 1;
	FILE *mem;
	int rc;

	if (!c->old)
		return kr_topo_cache_write(out, c->f, c->t);
	if (!(mem = open_memstream(&now, &len)))
		return KR_ENOMEM;
	rc = kr_topo_cache_write(mem, c->f, c->t);
	if (fclose(mem) && !rc)
		rc = KR_ENOMEM;
	if (!rc && fputs(now, out) == EOF)
		rc = KR_EIO;
	for (const char *s = now; !rc && *s; s++)
		lines += *s == '\n';
	for (const char *s = c->old; !rc && *s; s++)
		lines += 2 * (*s == '\n');	/* read, and perhaps kept */
	if (!rc && !(sw = malloc(lines * sizeof(*sw))))
		rc = KR_ENOMEM;
	if (!rc) {
		nnow = split_cache(now, sw, head_now, sizeof(head_now));
		nold = split_cache(c->old, sw + nnow, head_old,
				   sizeof(head_old));
		size_t kept = nnow + nold;	/* sw[kept ..]: old lines kept */

		qsort(sw, nnow, sizeof(*sw), by_coords);
		for (size_t i = nnow; i < nnow + nold &&
		     !strcmp(head_now, head_old); i++) {
			uint64_t guid = strtoull(sw[i], NULL, 16);

			if (kr_node_by_guid(c->f, guid) != KR_NONE ||
			    same_place(sw, nnow, sw[i]) +
			    kept_here(sw + nnow + nold, kept - nnow - nold,
				      sw[i]) >= room_of(c->t, sw[i]))
				continue;
			fprintf(out, "%s\n", sw[i]);
			sw[kept++] = sw[i];
		}
	}
	free(sw);
	free(now);
	return rc ? rc : ferror(out) ? KR_EIO : KR_OK;
}

int kr_topo_cache_save(const char *path, enum kr_write_to how,
		       const struct kr_fabric *f, const struct kr_topo *t,
		       struct kr_diag *d)
{
	struct cache_ctx ctx = { f, t, NULL };
	size_t len;
	int rc;

	/* no cache yet, or one unreadable: nothing to keep */
	if (kr_slurp(path, KR_IN_CACHE, &ctx.old, &len, NULL))
		ctx.old = NULL;
	rc = kr_write_atomic(path, how, write_cache, &ctx, d);
	free(ctx.old);
	return rc;
}

int kr_tables_cache_save(const char *path, const struct kr_fabric *f,
			 const struct kr_plan *p, struct kr_diag *d)
{
	struct out_ctx ctx = { f, p, 0 };

	return kr_write_atomic(path, KR_TO_OWN, write_tables_cache, &ctx, d);
}

/* Copies the SL plan's text with sep for each "; " between its clauses,
 * except before a bit range: the ranges of "SL bits:" stay on one line, as
 * do a clause's remarks in parentheses. */
static size_t put_clauses(char *buf, size_t len, const char *text,
			  const char *sep)
{
	size_t n = 0, seplen = strlen(sep);
	int depth = 0;

	for (const char *c = text; *c && n + 1 < len; c++) {
		depth += (*c == '(') - (*c == ')');
		if (!depth && c[0] == ';' && c[1] == ' ' &&
		    !(c[2] >= '0' && c[2] <= '9')) {
			if (n + seplen >= len)
				break;
			memcpy(buf + n, sep, seplen);
			n += seplen;
			c++;
			continue;
		}
		buf[n++] = *c;
	}
	buf[n] = 0;
	return n;
}

void kr_plan_summary(char *buf, size_t len, const struct kr_fabric *f,
		     const struct kr_plan *p, const char *sep)
{
	char topo[256], how[64] = "", sa[80] = "", plan[sizeof(p->slvl.text)];
	unsigned lids = 0;

	for (unsigned lid = 1; lid <= f->max_lid; lid++)
		lids += f->lid_port[lid] != KR_NONE;
	kr_topo_describe(topo, sizeof(topo), f, &p->topo);
	put_clauses(plan, sizeof(plan), p->slvl.text, sep);
	if (p->incremental)
		snprintf(how, sizeof(how), " (incremental: %u destinations)",
			 p->check_dests);
	if (p->checked && p->check.sm_lid && p->check.sm_sl == KR_PERFMGR_SL)
		snprintf(sa, sizeof(sa), ", SA traffic on SL %u included",
			 p->check.sm_sl);
	else if (p->checked && p->check.sm_lid)
		snprintf(sa, sizeof(sa), ", SA traffic on SL %u and the "
			 "PerfMgr's on SL %u included", p->check.sm_sl,
			 KR_PERFMGR_SL);
	/* a check without a CA to send from passes vacuously: not a proof */
	snprintf(buf, len, "%s%s%u LIDs routed%s%s%scheck %s%s%s%sms: topo %.1f "
		 "route %.1f slvl %.1f repair %.1f check %.1f", topo, sep,
		 lids, sep, plan, sep, !p->checked ? "skipped"
		 : p->incremental || p->check.nsrc ? "passed"
		 : "had no source (no CA with a LID)",
		 how, sa, sep,
		 p->ms[KR_PHASE_TOPO], p->ms[KR_PHASE_ROUTE],
		 p->ms[KR_PHASE_SLVL], p->ms[KR_PHASE_REPAIR],
		 p->ms[KR_PHASE_CHECK]);
}
