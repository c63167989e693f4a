/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute.conf reader: "key value" lines, '#' starts a comment, keys may
 * repeat (the last one wins, seed_port adds). Every key and its syntax is
 * documented in docs/knsroute.conf.5; errors name the line and what was
 * expected there. Whether the values fit the fabric is recognition's job
 * (kr_topo_recognize lists the conflicts). */
#include "kr_conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kr_io.h"

void kr_conf_init(struct kr_conf *c)
{
	*c = (struct kr_conf){ .family = KR_FAMILY_NONE,
			       .classify = KR_CLASSIFY_XORDET, .check = 1,
			       .detour_vls = 2, .max_intermediates = 2,
			       .mcast_sls = 1 };
	for (unsigned d = 0; d < KR_MAX_DIM; d++)
		c->wrap[d] = -1;
}

/* One line being read: the key, its value words and where we are. */
struct cline {
	const char *path;
	unsigned line;
	char *key;
	/* the longest list, mcast_sls with every SL, and one to tell more */
	char *word[KR_NSL + 1];
	unsigned nword;
	unsigned wrap_line, order_line, dims_line;
	struct kr_diag *d;
};

static int bad(struct cline *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct cline *l, const char *fmt, ...)
{
	char msg[sizeof(l->d->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kr_fail(l->d, KR_EPARSE, l->line, "%s", msg);
}

static int want_words(struct cline *l, unsigned lo, unsigned hi)
{
	if (l->nword < lo || l->nword > hi)
		return kr_fail(l->d, KR_EPARSE, l->line,
			       "%s: expected %u%s value%s, got %u", l->key, lo,
			       hi > lo ? " or more" : "", hi > 1 ? "s" : "",
			       l->nword);
	return KR_OK;
}

static int number(struct cline *l, const char *s, unsigned long lo,
		  unsigned long hi, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || *v < lo || *v > hi)
		return kr_fail(l->d, KR_EPARSE, l->line,
			       "%s: expected a number from %lu to %lu, not \"%s\"",
			       l->key, lo, hi, s);
	return KR_OK;
}

static int one_number(struct cline *l, unsigned long lo, unsigned long hi,
		      unsigned *out)
{
	unsigned long v;
	int rc = want_words(l, 1, 1);

	if (!rc)
		rc = number(l, l->word[0], lo, hi, &v);
	if (!rc)
		*out = (unsigned)v;
	return rc;
}

static int yes_no(const char *s)
{
	if (!strcmp(s, "yes") || !strcmp(s, "1") || !strcmp(s, "on"))
		return 1;
	if (!strcmp(s, "no") || !strcmp(s, "0") || !strcmp(s, "off"))
		return 0;
	return -1;
}

static int key_family(struct cline *l, struct kr_conf *c)
{
	static const struct { const char *name; enum kr_family fam; } fams[] = {
		{ "auto", KR_FAMILY_NONE }, { "kns", KR_FAMILY_KNS },
		{ "torus", KR_FAMILY_TORUS }, { "mesh", KR_FAMILY_MESH },
		{ "mikant", KR_FAMILY_MIKANT },
	};
	int rc = want_words(l, 1, 1);

	for (unsigned i = 0; !rc && i < sizeof(fams) / sizeof(fams[0]); i++)
		if (!strcmp(l->word[0], fams[i].name)) {
			c->family = fams[i].fam;
			return KR_OK;
		}
	return rc ? rc : bad(l, "family: expected auto, kns, torus, mesh or "
			     "mikant, not \"%s\"", l->word[0]);
}

static int key_dims(struct cline *l, struct kr_conf *c)
{
	int rc = want_words(l, 1, 1);

	if (!rc && kr_parse_dims(l->word[0], c->k, &c->ndim, l->d))
		rc = kr_fail(l->d, KR_EPARSE, l->line, "dims: expected sizes "
			     "joined by 'x' (e.g. 4x4x8), at most %d, not \"%s\"",
			     KR_MAX_DIM, l->word[0]);
	l->dims_line = l->line;
	return rc;
}

static int key_ndim(struct cline *l, struct kr_conf *c)
{
	int rc = one_number(l, 1, KR_MAX_DIM, &c->ndim);

	if (!rc)
		memset(c->k, 0, sizeof(c->k));
	l->dims_line = l->line;
	return rc;
}

static int key_wrap(struct cline *l, struct kr_conf *c)
{
	int rc = want_words(l, 1, KR_MAX_DIM);

	for (unsigned i = 0; !rc && i < l->nword; i++) {
		int v = !strcmp(l->word[i], "auto") ? -1 : yes_no(l->word[i]);

		if (v == -1 && strcmp(l->word[i], "auto"))
			return bad(l, "wrap: expected yes, no or auto per "
				   "dimension, not \"%s\"", l->word[i]);
		c->wrap[i] = v;
	}
	for (unsigned i = l->nword; !rc && i < KR_MAX_DIM; i++)
		c->wrap[i] = -1;
	l->wrap_line = l->line;
	return rc;
}

static int key_order(struct cline *l, struct kr_conf *c)
{
	unsigned seen = 0;
	int rc = want_words(l, 1, KR_MAX_DIM);

	for (unsigned i = 0; !rc && i < l->nword; i++) {
		unsigned long v;

		rc = number(l, l->word[i], 0, l->nword - 1, &v);
		if (rc)
			break;
		if (seen >> v & 1)
			return bad(l, "order: dimension %s listed twice",
				   l->word[i]);
		seen |= 1u << v;
		c->order[i] = (unsigned)v;
	}
	if (!rc)
		c->norder = l->nword;
	l->order_line = l->line;
	return rc;
}

static int key_seed(struct cline *l, struct kr_conf *c)
{
	char *end;
	int rc = want_words(l, 1, 1);

	if (rc)
		return rc;
	errno = 0;
	c->seed_guid = strtoull(l->word[0], &end, 16);
	if (errno || *end || end == l->word[0] || !c->seed_guid)
		return bad(l, "seed: expected a switch GUID such as "
			   "0x0002c90000000001, not \"%s\"", l->word[0]);
	return KR_OK;
}

static int key_seed_port(struct cline *l, struct kr_conf *c)
{
	unsigned long dim, port;
	const char *dir;
	int rc = want_words(l, 3, 3);

	if (rc)
		return rc;
	if (c->nseed_port == KR_MAX_SEED_PORTS)
		return bad(l, "seed_port: more than 16 of them");
	dir = l->word[1];
	if (strcmp(dir, "+") && strcmp(dir, "-"))
		return bad(l, "seed_port: expected DIM +|- PORT, direction "
			   "\"%s\" is neither", dir);
	rc = number(l, l->word[0], 0, KR_MAX_DIM - 1, &dim);
	if (!rc)
		rc = number(l, l->word[2], 1, 254, &port);
	if (!rc)
		c->seed_port[c->nseed_port++] = (struct kr_seed_port){
			(uint8_t)dim, (int8_t)(*dir == '+' ? 1 : -1),
			(uint8_t)port };
	return rc;
}

/* Relative paths are taken from the directory of the conf file, so the
 * plugin and the CLI find the same files whatever their working dir. */
static int key_path(struct cline *l, char *dst, size_t len)
{
	const char *slash = strrchr(l->path, '/');
	int n, rc = want_words(l, 1, 1);

	if (rc)
		return rc;
	if (l->word[0][0] == '/' || !slash)
		n = snprintf(dst, len, "%s", l->word[0]);
	else
		n = snprintf(dst, len, "%.*s/%s", (int)(slash - l->path),
			     l->path, l->word[0]);
	if (n < 0 || (size_t)n >= len)
		return bad(l, "%s: path longer than 255 characters", l->key);
	return KR_OK;
}

static int key_classify(struct cline *l, struct kr_conf *c)
{
	int rc = want_words(l, 1, 1);

	if (!rc && kr_classify_parse(l->word[0], &c->classify))
		rc = bad(l, "classify: expected xordet, dbbm, bbq, dbbq, iodet "
			 "or none, not \"%s\"", l->word[0]);
	return rc;
}

static int key_yes_no(struct cline *l, int *dst)
{
	int rc = want_words(l, 1, 1);

	if (!rc && (*dst = yes_no(l->word[0])) < 0)
		rc = bad(l, "%s: expected yes or no, not \"%s\"", l->key,
			 l->word[0]);
	return rc;
}

static int key_classes(struct cline *l, struct kr_conf *c)
{
	if (l->nword == 1 && !strcmp(l->word[0], "auto")) {
		c->classes = 0;
		return KR_OK;
	}
	return one_number(l, 1, 16, &c->classes);
}

/* An empty list is a choice: no multicast SLs, so no VL set aside for
 * groups (they are refused) and the SA's traffic on unicast VLs. */
static int key_mcast_sls(struct cline *l, struct kr_conf *c)
{
	int rc = want_words(l, 0, KR_NSL);

	c->mcast_sls = 0;
	for (unsigned i = 0; !rc && i < l->nword; i++) {
		unsigned long v;

		rc = number(l, l->word[i], 0, 15, &v);
		if (!rc)
			c->mcast_sls |= (uint16_t)(1u << v);
	}
	return rc;
}

static int do_key(struct cline *l, struct kr_conf *c)
{
	const char *k = l->key;

	if (!strcmp(k, "family"))
		return key_family(l, c);
	if (!strcmp(k, "dims"))
		return key_dims(l, c);
	if (!strcmp(k, "ndim"))
		return key_ndim(l, c);
	if (!strcmp(k, "wrap"))
		return key_wrap(l, c);
	if (!strcmp(k, "p"))
		return one_number(l, 0, 253, &c->p);
	if (!strcmp(k, "order"))
		return key_order(l, c);
	if (!strcmp(k, "seed"))
		return key_seed(l, c);
	if (!strcmp(k, "seed_port"))
		return key_seed_port(l, c);
	if (!strcmp(k, "coords_file"))
		return key_path(l, c->coords_file, sizeof(c->coords_file));
	if (!strcmp(k, "coords_cache"))
		return key_path(l, c->coords_cache, sizeof(c->coords_cache));
	if (!strcmp(k, "tables_cache"))
		return key_path(l, c->tables_cache, sizeof(c->tables_cache));
	if (!strcmp(k, "classify"))
		return key_classify(l, c);
	if (!strcmp(k, "classes"))
		return key_classes(l, c);
	if (!strcmp(k, "vls"))
		return one_number(l, 1, 15, &c->vls);
	if (!strcmp(k, "lmc"))
		return one_number(l, 0, 7, &c->lmc);
	if (!strcmp(k, "check"))
		return key_yes_no(l, &c->check);
	if (!strcmp(k, "dump_tables"))
		return key_yes_no(l, &c->dump_tables);
	if (!strcmp(k, "detour_vls"))
		return one_number(l, 0, 2, &c->detour_vls);
	if (!strcmp(k, "mcast_sls"))
		return key_mcast_sls(l, c);
	if (!strcmp(k, "max_intermediates"))
		return one_number(l, 0, 2, &c->max_intermediates);
	return bad(l, "unknown key \"%s\" (see knsroute.conf(5))", k);
}

/* Splits buf into key and words; returns 0 for blank and comment lines. */
static int split(char *buf, struct cline *l)
{
	char *save = NULL, *w;

	buf[strcspn(buf, "#\r\n")] = '\0';
	l->key = strtok_r(buf, " \t,", &save);
	l->nword = 0;
	if (!l->key)
		return 0;
	while ((w = strtok_r(NULL, " \t,", &save))) {
		if (l->nword == sizeof(l->word) / sizeof(l->word[0]))
			return -1;
		l->word[l->nword++] = w;
	}
	return 1;
}

/* Keys that must agree with each other once the whole file is read. */
static int cross_check(struct cline *l, const struct kr_conf *c)
{
	unsigned nw = 0;

	for (unsigned i = 0; i < KR_MAX_DIM; i++)
		if (c->wrap[i] >= 0)
			nw = i + 1;
	if (c->ndim && nw > c->ndim) {
		l->line = l->wrap_line;
		return kr_fail(l->d, KR_EPARSE, l->line, "wrap: %u values for "
			       "%u dimensions (line %u)", nw, c->ndim,
			       l->dims_line);
	}
	if (c->ndim && c->norder && c->norder != c->ndim) {
		l->line = l->order_line;
		return kr_fail(l->d, KR_EPARSE, l->line, "order: %u dimensions, "
			       "but dims says %u (line %u)", c->norder,
			       c->ndim, l->dims_line);
	}
	return KR_OK;
}

int kr_conf_load(struct kr_conf *c, const char *path, enum kr_input kind,
		 struct kr_diag *d)
{
	struct cline l = { .path = path, .d = d };
	char buf[1024];
	FILE *fp;
	int rc = kr_input_open(path, kind, &fp, d);

	while (!rc && (rc = kr_input_line(fp, buf, sizeof(buf), ++l.line,
					  d)) > 0) {
		int n = split(buf, &l);

		rc = KR_OK;
		if (n < 0)
			rc = kr_fail(d, KR_EPARSE, l.line, "%s: too many values",
				     l.key);
		else if (n)
			rc = do_key(&l, c);
	}
	if (fp)
		fclose(fp);
	return rc ? rc : cross_check(&l, c);
}
