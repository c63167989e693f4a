/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The coordinates file (explicit coordinates and the persisted cache) and
 * the JSON description of a recognised topology.
 *
 * Coordinates file, one item per line, '#' starts a comment:
 *   family torus|mesh|kns
 *   dims K0xK1x...            (before the first switch line)
 *   wrap yes|no ...           (per dimension; default: all for torus)
 *   0xGUID c0 c1 ...          a grid switch or KNS router
 *   0xGUID c0 * c2 ...        a KNS crossbar: '*' marks its dimension,
 *                             the other values name its line
 *   ... cas P:S P:S ...       after a switch's coordinates: its CA slots
 *                             by port number (kr_topo.held)
 * GUIDs the fabric does not have are skipped (the switch is gone). */
#include "kr_topo.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

/* A switch line with 256 CA slots fits ("254:255 " each). */
#define LINE_MAX_COORDS 4096

void pins_free(struct pins *p)
{
	lab_free(&p->lab);
	free(p->held);
	*p = (struct pins){ 0 };
}

struct cread {
	const struct kr_fabric *f;
	struct pins *p;
	struct kr_diag *d;
	unsigned line;
	unsigned have_dims;	/* the dims line, 0: none yet */
	int have_wrap;
	uint8_t *seen;		/* [nsw] */
};

static int header(struct cread *r, const char *key, char **w, unsigned nw)
{
	struct lab *l = &r->p->lab;

	if (r->p->npinned || (nw < 1 && strcmp(key, "wrap")))
		return kr_fail(r->d, KR_EPARSE, r->line, "%s: expected a value "
			       "(headers come before the switches)", key);
	if (!strcmp(key, "family")) {
		l->family = !strcmp(w[0], "torus") ? KR_FAMILY_TORUS :
			    !strcmp(w[0], "mesh") ? KR_FAMILY_MESH :
			    !strcmp(w[0], "kns") ? KR_FAMILY_KNS :
			    !strcmp(w[0], "mikant") ? KR_FAMILY_MIKANT :
			    KR_FAMILY_NONE;
		if (l->family == KR_FAMILY_NONE || nw != 1)
			return kr_fail(r->d, KR_EPARSE, r->line, "family: expected "
				       "torus, mesh, kns or mikant");
		return KR_OK;
	}
	if (!strcmp(key, "dims")) {
		if (nw != 1 || kr_parse_dims(w[0], l->k, &l->ndim, NULL) ||
		    !lab_npos(l))
			return kr_fail(r->d, KR_EPARSE, r->line, "dims: expected "
				       "sizes joined by 'x', e.g. 4x4x4");
		r->have_dims = r->line;
		return KR_OK;
	}
	if (!strcmp(key, "wrap")) {
		for (unsigned i = 0; i < nw; i++) {
			if (i >= KR_MAX_DIM || (strcmp(w[i], "yes") && strcmp(w[i], "no")))
				return kr_fail(r->d, KR_EPARSE, r->line, "wrap: "
					       "expected yes or no per dimension");
			l->wrap[i] = !strcmp(w[i], "yes");
		}
		r->have_wrap = 1;
		return KR_OK;
	}
	return kr_fail(r->d, KR_EPARSE, r->line, "expected family, dims, wrap "
		       "or a switch GUID, not \"%s\"", key);
}

/* dims K x .. x K (n - 1 times) x (n - 1) x 2, n >= 3. */
static bool mikant_dims(const struct lab *l)
{
	if (l->ndim < 4 || l->k[l->ndim - 1] != 2 ||
	    l->k[l->ndim - 2] != l->ndim - 2)
		return false;
	for (unsigned j = 1; j + 2 < l->ndim; j++)
		if (l->k[j] != l->k[0])
			return false;
	return l->k[0] >= 2;
}

static int check_header(struct cread *r)
{
	struct lab *l = &r->p->lab;

	if (!l->family || !r->have_dims)
		return kr_fail(r->d, KR_EPARSE, r->line, "family and dims must "
			       "come before the first switch");
	if (!r->have_wrap)
		for (unsigned j = 0; j < l->ndim; j++)
			l->wrap[j] = l->family == KR_FAMILY_TORUS;
	if (l->family == KR_FAMILY_KNS || l->family == KR_FAMILY_MIKANT)
		memset(l->wrap, 0, sizeof(l->wrap));
	if (l->family == KR_FAMILY_MIKANT && !mikant_dims(l))
		return kr_fail(r->d, KR_EPARSE, r->have_dims, "dims: a MiKANT(k, n) "
			       "has n - 1 digits of k, then n - 1 stages and 2 "
			       "groups (kxkx2x2 for k, 3)");
	return KR_OK;
}

static bool cas_item(const char *w, unsigned long *port, unsigned long *slot)
{
	char *end;

	if (!isdigit((unsigned char)*w))
		return false;
	*port = strtoul(w, &end, 10);
	if (*end != ':' || !isdigit((unsigned char)end[1]))
		return false;
	*slot = strtoul(end + 1, &end, 10);
	return !*end && *port && *port <= 254 && *slot <= 255;
}

/* "cas P:S ..." of switch sw (KR_NONE: not in the fabric, only checked)
 * into p->held. */
static int cas_list(struct cread *r, uint32_t sw, char *list)
{
	const struct kr_fabric *f = r->f;
	struct pins *p = r->p;
	char *save = NULL;

	if (sw != KR_NONE && !p->held) {
		uint32_t n = f->port0[f->nsw];

		if (!(p->held = malloc(((size_t)n + 1) * sizeof(*p->held))))
			return kr_fail(r->d, KR_ENOMEM, r->line, "out of memory");
		memset(p->held, 0xff, (size_t)n * sizeof(*p->held));
	}
	for (char *w = strtok_r(list, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		unsigned long port, slot;

		if (!cas_item(w, &port, &slot))
			return kr_fail(r->d, KR_EPARSE, r->line, "cas: expected "
				       "PORT:SLOT (port 1..254, slot 0..255), "
				       "not \"%s\"", w);
		if (sw == KR_NONE || port > f->nports[sw])
			continue;	/* a switch now smaller: not its port */
		p->held[f->port0[sw] + port] = (uint32_t)slot;
		if (slot + 1 > p->p)
			p->p = (unsigned)slot + 1;
	}
	return KR_OK;
}

static int switch_line(struct cread *r, const char *gs, char **w, unsigned nw,
		       char *cas)
{
	struct lab *l = &r->p->lab;
	uint32_t pos = 0, st = 1, sw;
	int star = -1, rc;
	char *end;
	uint64_t guid;

	errno = 0;
	guid = strtoull(gs, &end, 16);
	if (errno || *end || !guid)
		return kr_fail(r->d, KR_EPARSE, r->line, "expected a GUID, not "
			       "\"%s\"", gs);
	if (!r->seen && check_header(r))
		return KR_EPARSE;
	if (!r->seen && !(r->seen = calloc((size_t)r->f->nsw + 1, 1)))
		return kr_fail(r->d, KR_ENOMEM, r->line, "out of memory");
	if (nw != l->ndim)
		return kr_fail(r->d, KR_EPARSE, r->line, "expected %u coordinates, "
			       "got %u", l->ndim, nw);
	for (unsigned j = 0; j < nw; st *= l->k[j++]) {
		unsigned long v = strtoul(w[j], &end, 10);

		if (!strcmp(w[j], "*") && star < 0 && l->family == KR_FAMILY_KNS) {
			star = (int)j;
			continue;
		}
		if (*end || end == w[j] || v >= l->k[j])
			return kr_fail(r->d, KR_EPARSE, r->line, "coordinate %u: "
				       "expected 0..%u%s, not \"%s\"", j, l->k[j] - 1,
				       l->family == KR_FAMILY_KNS ? " or *" : "", w[j]);
		pos += (uint32_t)v * st;
	}
	sw = kr_node_by_guid(r->f, guid);
	if (sw != KR_NONE && sw >= r->f->nsw)
		return kr_fail(r->d, KR_EPARSE, r->line, "0x%016" PRIx64 " is not "
			       "a switch of the fabric", guid);
	if (cas && star >= 0)
		return kr_fail(r->d, KR_EPARSE, r->line, "cas: a crossbar has "
			       "no CAs");
	if (cas && (rc = cas_list(r, sw, cas)))
		return rc;
	if (sw == KR_NONE)
		return KR_OK;
	if (r->seen[sw])
		return kr_fail(r->d, KR_EPARSE, r->line, "0x%016" PRIx64 " listed "
			       "twice", guid);
	r->seen[sw] = 1;
	r->p->npinned++;
	if (star >= 0) {
		l->sw_xdim[sw] = (uint8_t)star;
		l->sw_xline[sw] = pos;
	} else {
		l->sw_pos[sw] = pos;
	}
	return KR_OK;
}

static int read_line(struct cread *r, char *buf)
{
	char *w[KR_MAX_DIM + 2], *save = NULL, *key, *cas = NULL;
	unsigned nw = 0;

	buf[strcspn(buf, "#\r\n")] = '\0';
	key = strtok_r(buf, " \t", &save);
	if (!key)
		return KR_OK;
	while ((w[nw] = strtok_r(NULL, " \t", &save))) {
		if (!strcmp(w[nw], "cas")) {	/* the rest is the CA list */
			cas = save;
			break;
		}
		if (++nw == KR_MAX_DIM + 2)
			return kr_fail(r->d, KR_EPARSE, r->line, "too many values");
	}
	if (key[0] == '0' && (key[1] == 'x' || key[1] == 'X'))
		return switch_line(r, key, w, nw, cas);
	if (cas || !strcmp(key, "cas"))
		return kr_fail(r->d, KR_EPARSE, r->line, "cas: only after a "
			       "switch's coordinates");
	return header(r, key, w, nw);
}

int pins_read(const struct kr_fabric *f, const char *path,
	      enum kr_input kind, struct pins *p, struct kr_diag *d)
{
	struct cread r = { .f = f, .p = p, .d = d };
	char buf[LINE_MAX_COORDS];
	FILE *fp;
	int rc;

	*p = (struct pins){ .path = path };
	if (d)
		d->file = path;
	rc = lab_alloc(&p->lab, f->nsw);
	if (rc)
		return kr_fail(d, rc, 0, "out of memory");
	if ((rc = kr_input_open(path, kind, &fp, d))) {
		pins_free(p);
		return rc;
	}
	while (!rc && (rc = kr_input_line(fp, buf, sizeof(buf), ++r.line,
					  d)) > 0)
		rc = read_line(&r, buf);
	if (!rc && !r.seen)
		rc = check_header(&r);
	fclose(fp);
	free(r.seen);
	if (rc)
		pins_free(p);
	else
		p->path = path;
	return rc;
}

static void put_coords(FILE *out, const struct kr_topo *t, uint32_t pos,
		       unsigned skip, const char *sep, const char *star)
{
	for (unsigned d = 0; d < t->ndim; d++) {
		fputs(d ? sep : "", out);
		if (d == skip)
			fputs(star, out);
		else
			fprintf(out, "%u", kr_topo_coord(t, pos, d));
	}
}

static void put_dims(FILE *out, const struct kr_topo *t, const char *sep)
{
	for (unsigned d = 0; d < t->ndim; d++)
		fprintf(out, "%s%u", d ? sep : "", t->k[d]);
}

/* " cas P:S ..." of switch sw, when its ports hold CA slots. */
static void put_cas(FILE *out, const struct kr_fabric *f,
		    const struct kr_topo *t, uint32_t sw)
{
	const char *sep = " cas";

	for (unsigned port = 1; t->held && port <= f->nports[sw]; port++) {
		uint32_t k = t->held[f->port0[sw] + port];

		if (k == KR_NONE)
			continue;
		fprintf(out, "%s %u:%u", sep, port, k);
		sep = "";
	}
}

int kr_topo_cache_write(FILE *out, const struct kr_fabric *f,
			const struct kr_topo *t)
{
	fprintf(out, "# knsroute coordinates, see knsroute.conf(5): one switch "
		"per line, \"GUID c0 c1 ...\";\n# a crossbar has '*' in its own "
		"dimension; \"cas PORT:SLOT ...\" the CA slots.\nfamily %s\n"
		"dims ", kr_family_name(t->family));
	put_dims(out, t, "x");
	if (t->family != KR_FAMILY_KNS) {
		fputs("\nwrap", out);
		for (unsigned d = 0; d < t->ndim; d++)
			fputs(t->wrap[d] ? " yes" : " no", out);
	}
	fputc('\n', out);
	for (uint32_t pos = 0; pos < t->npos; pos++) {
		if (t->pos_sw[pos] < 0)
			continue;
		fprintf(out, "0x%016" PRIx64 " ", f->guid[t->pos_sw[pos]]);
		put_coords(out, t, pos, KR_NO_DIM, " ", "*");
		put_cas(out, f, t, (uint32_t)t->pos_sw[pos]);
		fputc('\n', out);
	}
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		if (t->sw_pos[sw] != KR_NONE || t->sw_xdim[sw] == KR_NO_DIM)
			continue;
		fprintf(out, "0x%016" PRIx64 " ", f->guid[sw]);
		put_coords(out, t, t->sw_xline[sw], t->sw_xdim[sw], " ", "*");
		fputc('\n', out);
	}
	return ferror(out) ? KR_EIO : KR_OK;
}

static void json_list(FILE *out, const struct kr_topo *t, uint32_t pos,
		      unsigned skip)
{
	fputc('[', out);
	put_coords(out, t, pos, skip, ", ", "null");
	fputc(']', out);
}

static void json_coords(FILE *out, const struct kr_fabric *f,
			const struct kr_topo *t)
{
	const char *sep = "";

	fputs(",\n  \"coords\": {", out);
	for (uint32_t pos = 0; pos < t->npos; pos++) {
		if (t->pos_sw[pos] < 0)
			continue;
		fprintf(out, "%s\n    \"0x%016" PRIx64 "\": ", sep,
			f->guid[t->pos_sw[pos]]);
		json_list(out, t, pos, KR_NO_DIM);
		sep = ",";
	}
	fputs("\n  }", out);
	if (t->family != KR_FAMILY_KNS)
		return;
	sep = "";
	fputs(",\n  \"crossbars\": {", out);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		if (t->sw_xdim[sw] == KR_NO_DIM)
			continue;
		fprintf(out, "%s\n    \"0x%016" PRIx64 "\": {\"dim\": %u, "
			"\"line\": ", sep, f->guid[sw], t->sw_xdim[sw]);
		json_list(out, t, t->sw_xline[sw], t->sw_xdim[sw]);
		if (t->s > 1)
			fprintf(out, ", \"stage\": %u, \"order\": %u",
				t->sw_stage[sw], t->sw_order[sw]);
		fputc('}', out);
		sep = ",";
	}
	fputs("\n  }", out);
}

static void json_missing(FILE *out, const struct kr_topo *t)
{
	fputs(",\n  \"missing_links\": [", out);
	for (uint32_t i = 0; i < t->nmissing_link; i++) {
		const struct kr_missing_link *m = &t->missing_link[i];
		unsigned d = m->dim, c;

		fprintf(out, "%s\n    {\"%s\": ", i ? "," : "",
			t->family == KR_FAMILY_KNS ? "router" : "from");
		json_list(out, t, m->pos, KR_NO_DIM);
		if (t->family == KR_FAMILY_MIKANT) {	/* dim: a digit value */
			fputs(", \"to\": ", out);
			json_list(out, t, kr_mk_up_pos(t, m->pos, d), KR_NO_DIM);
			fprintf(out, ", \"digit\": %u}", d);
			continue;
		}
		if (t->family != KR_FAMILY_KNS) {
			c = kr_topo_coord(t, m->pos, d);
			fputs(", \"to\": ", out);
			json_list(out, t, m->pos - c * t->stride[d] +
				  (c + 1) % t->k[d] * t->stride[d], KR_NO_DIM);
		}
		fprintf(out, ", \"dim\": %u}", d);
	}
	fputs(t->nmissing_link ? "\n  ]" : "]", out);
	fputs(",\n  \"missing_switches\": [", out);
	for (uint32_t i = 0; i < t->nmissing_sw; i++) {
		const struct kr_missing_sw *m = &t->missing_sw[i];

		fprintf(out, "%s\n    {", i ? "," : "");
		if (m->xdim == KR_NO_DIM) {
			fputs("\"pos\": ", out);
			json_list(out, t, m->pos, KR_NO_DIM);
		} else {
			fprintf(out, "\"dim\": %u, \"line\": ", m->xdim);
			json_list(out, t, m->pos, m->xdim);
		}
		fputc('}', out);
	}
	fputs(t->nmissing_sw ? "\n  ]" : "]", out);
}

/* "pendants": GUID -> {parent, host} (pendant.c), when there are. */
static void json_pendants(FILE *out, const struct kr_fabric *f,
			  const struct kr_topo *t)
{
	const char *sep = "";

	if (!t->npendant)
		return;
	fputs(",\n  \"pendants\": {", out);
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		if (t->sw_host[sw] == KR_NONE)
			continue;
		fprintf(out, "%s\n    \"0x%016" PRIx64 "\": {\"parent\": \"0x%016"
			PRIx64 "\", \"host\": \"0x%016" PRIx64 "\"}", sep,
			f->guid[sw], f->guid[t->sw_parent[sw]],
			f->guid[t->sw_host[sw]]);
		sep = ",";
	}
	fputs("\n  }", out);
}

int kr_topo_write_json(FILE *out, const struct kr_fabric *f,
		       const struct kr_topo *t)
{
	fputs("{\n  ", out);
	kr_json_version(out);
	fprintf(out, ",\n  \"family\": \"%s\",\n  \"dims\": [",
		kr_family_name(t->family));
	put_dims(out, t, ", ");
	fputs("]", out);
	if (t->family != KR_FAMILY_KNS) {
		fputs(",\n  \"wrap\": [", out);
		for (unsigned d = 0; d < t->ndim; d++)
			fprintf(out, "%s%s", d ? ", " : "",
				t->wrap[d] ? "true" : "false");
		fputs("]", out);
	}
	fprintf(out, ",\n  \"p\": %u,\n  \"parallel\": %u,\n  \"switches\": %u,"
		"\n  \"cas\": %u", t->p, t->parallel, f->nsw, f->nnode - f->nsw);
	if (t->family == KR_FAMILY_KNS)
		fprintf(out, ",\n  \"s\": %u", t->s);
	if (t->s > 1)
		fprintf(out, ",\n  \"radix\": %u,\n  \"missing_subnet_links\": "
			"%u,\n  \"missing_subnet_switches\": %u", 2 * t->arity,
			t->nmissing_sublink, t->nmissing_subsw);
	json_coords(out, f, t);
	json_pendants(out, f, t);
	json_missing(out, t);
	fputs("\n}\n", out);
	return ferror(out) ? KR_EIO : KR_OK;
}
