/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Topology recognition: one reading of the whole fabric (topo_recognize_whole;
 * recognize.c adds pendant switches and the cache's second opinion).
 *
 * Order of authority: a coordinates file (coords_file) that names every
 * switch is taken as it is, as is a cache (coords_cache) that names every
 * switch and fits the links; otherwise the recognisers read the structure
 * from the graph and label it by the documented rules, letting pinned
 * coordinates (file or cache), then knsroute.conf (seed, dims, wrap,
 * family) decide the choices the graph leaves open. A coordinates file or
 * conf key that contradicts the graph is a conflict: every conflict is
 * listed in t->report and recognition fails; a cache that does not fit is
 * only set aside (noted in t->report). */
#include "kr_topo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_int.h"

static int connected(struct rctx *x)
{
	const struct tgraph *g = x->g;
	uint32_t *queue = malloc(((size_t)g->n + 1) * sizeof(*queue));
	uint8_t *seen = calloc((size_t)g->n + 1, 1);
	uint32_t head = 0, tail = 0;
	int rc = KR_OK;

	if (!queue || !seen) {
		rc = KR_ENOMEM;
		goto out;
	}
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail)
		for (uint32_t v = queue[head++], i = g->off[v]; i < g->off[v + 1]; i++)
			if (!seen[g->nbr[i]]) {
				seen[g->nbr[i]] = 1;
				queue[tail++] = g->nbr[i];
			}
	for (uint32_t v = 0; v < g->n && tail < g->n; v++)
		if (!seen[v]) {
			rc = kr_fail(x->d, KR_ETOPO, 0, "the switches fall apart: "
				     "%s cannot reach %s",
				     kr_node_label(x->f, 0).s,
				     kr_node_label(x->f, v).s);
			break;
		}
out:
	free(queue);
	free(seen);
	return rc;
}

/* Which of family, dims and wrap a coordinates file says otherwise than
 * the conf, or NULL. */
static const char *pins_disagree(const struct kr_conf *c, const struct lab *l)
{
	if (c->family != KR_FAMILY_NONE && c->family != l->family)
		return "family";
	if (c->ndim && c->ndim != l->ndim)
		return "dims";
	for (unsigned j = 0; j < c->ndim; j++)
		if (c->k[j] && c->k[j] != l->k[j])
			return "dims";
	for (unsigned j = 0; j < l->ndim && l->family != KR_FAMILY_KNS; j++)
		if (c->wrap[j] >= 0 && c->wrap[j] != l->wrap[j])
			return "wrap";
	return NULL;
}

/* Coordinate j of position pos of labelling l. */
static unsigned lab_coord(const struct lab *l, uint32_t pos, unsigned j)
{
	for (unsigned i = 0; i < j; i++)
		pos /= l->k[i];
	return pos % l->k[j];
}

/* Whether seed port sp of switch o leads where l puts it (1), elsewhere
 * (0), or nowhere to tell (-1: no switch behind it): a KNS router's to a
 * crossbar of the port's dimension, a grid switch's to the switch one
 * step along that dimension in its direction. */
static int seed_port_kept(const struct kr_fabric *f, const struct lab *l,
			  uint32_t o, const struct kr_seed_port *sp)
{
	uint32_t slot = kr_port(f, o, sp->port), x;
	unsigned k, want;

	if (sp->port > f->nports[o] || f->peer[slot] < 0 ||
	    (x = f->owner[f->peer[slot]]) >= f->nsw)
		return -1;
	if (sp->dim >= l->ndim)
		return 0;
	if (l->family == KR_FAMILY_KNS)
		return l->sw_xdim[x] == sp->dim;
	if (l->sw_pos[x] == KR_NONE)
		return 0;
	k = l->k[sp->dim];
	want = (lab_coord(l, l->sw_pos[o], sp->dim) + k + (unsigned)sp->dir) % k;
	for (unsigned j = 0; j < l->ndim; j++)
		if (lab_coord(l, l->sw_pos[x], j) !=
		    (j == sp->dim ? want : lab_coord(l, l->sw_pos[o], j)))
			return 0;
	return 1;
}

/* Whether labelling l (a cache's) keeps knsroute.conf's seed at its
 * origin and its seed ports: an admin who set them since wants them
 * applied. A seed or seed port the fabric no longer shows (that switch
 * or cable failed, or a typo) cannot be told from the cache: the cache is
 * kept, and a note says what was not found. Without a seed, seed ports
 * are the origin's. */
static bool seeds_kept(struct rctx *x, const struct lab *l, const char *path)
{
	const struct kr_fabric *f = x->f;
	const struct kr_conf *c = x->c;
	uint32_t o = KR_NONE;
	int kept = 1;

	if (c->seed_guid)
		o = kr_node_by_guid(f, c->seed_guid);
	else
		for (uint32_t s = 0; s < f->nsw && o == KR_NONE; s++)
			o = l->sw_pos[s] == 0 ? s : KR_NONE;
	if (c->seed_guid && o >= f->nsw)
		notes_add(x->notes, "seed 0x%016llx: no such switch; %s keeps "
			  "its origin", (unsigned long long)c->seed_guid, path);
	if (o >= f->nsw)
		return true;
	if (l->sw_pos[o] != 0)
		return false;
	for (unsigned i = 0; i < c->nseed_port && kept; i++) {
		kept = seed_port_kept(f, l, o, &c->seed_port[i]);
		if (kept < 0)
			notes_add(x->notes, "seed_port %u: no switch behind it; "
				  "%s keeps its axes", c->seed_port[i].port,
				  path);
	}
	return kept != 0;
}

/* coords_file must be readable and agree with the conf; a cache may be
 * absent, broken or disagree (then it is set aside with a note). */
static int load_pins(struct rctx *x, struct pins *p)
{
	const struct kr_conf *c = x->c;
	struct kr_diag cd = { 0 };
	const char *what;
	char msg[KR_DIAG_LINE];
	int rc;

	if (c->coords_file[0]) {
		const char *file = x->d->file;	/* errors past here: the fabric's */

		rc = pins_read(x->f, c->coords_file, KR_IN_FILE, p, x->d);
		if (!rc)
			x->d->file = file;
		if (!rc && (what = pins_disagree(c, &p->lab)))
			notes_add(x->conflicts, "coords_file %s: its %s differ%s "
				  "from knsroute.conf's", p->path, what,
				  strcmp(what, "dims") ? "s" : "");
		else if (!rc && p->npinned)
			x->pins = p;
		return rc;
	}
	if (!c->coords_cache[0] || access(c->coords_cache, F_OK))
		return KR_OK;
	rc = pins_read(x->f, c->coords_cache, KR_IN_CACHE, p, &cd);
	if (rc == KR_ENOMEM)
		return kr_fail(x->d, rc, 0, "out of memory");
	if (rc) {
		kr_diag_format(&cd, msg, sizeof(msg));
		notes_add(x->notes, "coords_cache not used: %s", msg);
		pins_free(p);
		return KR_OK;
	}
	p->from_cache = 1;
	if ((what = pins_disagree(c, &p->lab)))
		notes_add(x->notes, "coords_cache %s not used: its %s differ%s "
			  "from knsroute.conf's", p->path, what,
			  strcmp(what, "dims") ? "s" : "");
	else if (!seeds_kept(x, &p->lab, p->path))
		notes_add(x->notes, "coords_cache %s not used: its origin or "
			  "axes are not knsroute.conf's seed and seed_port",
			  p->path);
	else if (p->npinned)
		x->pins = p;
	return KR_OK;
}

static void conf_basics(struct rctx *x)
{
	const struct kr_conf *c = x->c;

	for (uint32_t s = 0; s < x->f->nsw && c->p; s++)
		if (x->g->nca[s] > c->p) {
			notes_add(x->conflicts, "p %u: switch %s has %u CAs",
				  c->p, kr_node_label(x->f, s).s, x->g->nca[s]);
			break;
		}
}

/* Every switch pinned: the coordinates only have to fit the links. */
static int direct(struct rctx *x, struct kr_topo *t)
{
	const struct pins *p = x->pins;
	struct notes_mark m = notes_mark(x->notes);
	int rc;

	if (!p || p->npinned < x->f->nsw)
		return 1;
	rc = topo_build(x, &p->lab, TOPO_BUILD_GIVEN, t);
	if (rc != KR_ETOPO)
		return rc;
	if (!p->from_cache) {
		notes_add(x->conflicts, "coords_file %s: %s", p->path, x->d->msg);
		return KR_ETOPO;
	}
	notes_rewind(x->notes, m);
	notes_add(x->notes, "coords_cache %s not used: %s", p->path, x->d->msg);
	return 1;
}

static unsigned families(struct rctx *x, enum kr_family *fam)
{
	switch (x->c->family) {
	case KR_FAMILY_KNS:
		fam[0] = KR_FAMILY_KNS;
		return 1;
	case KR_FAMILY_TORUS:
	case KR_FAMILY_MESH:
		fam[0] = KR_FAMILY_TORUS;
		return 1;
	case KR_FAMILY_NONE:
	case KR_FAMILY_MIKANT:	/* tried before (recognize) */
		break;
	}
	switch (kns_candidate(x->kg)) {
	case 1:
		fam[0] = KR_FAMILY_KNS;
		fam[1] = KR_FAMILY_TORUS;
		return 2;
	case 2:
	case 3:		/* a KNS with hosts on crossbars reads as no torus */
		fam[0] = KR_FAMILY_TORUS;
		fam[1] = KR_FAMILY_KNS;
		return 2;
	}
	fam[0] = KR_FAMILY_TORUS;
	return 1;
}

/* Subnets first; a crossbar KNS where some router has no CA also shows
 * switch components (routers with crossbars), so a refused subnet reading
 * falls back to crossbars, keeping the subnet reason if both fail. */
static int topo_kns(struct rctx *x, struct lab *l)
{
	char why[sizeof(x->d->msg)];
	int sub = topo_ksub(x, l), rc;

	if (sub != 1 && sub != KR_ETOPO)
		return sub;
	if (sub == KR_ETOPO)
		memcpy(why, x->d->msg, sizeof(why));
	rc = kns_lines(x, l);
	if (rc == KR_ETOPO && sub == KR_ETOPO)
		rc = kr_fail(x->d, KR_ETOPO, 0, "%s", why);
	return rc;
}

static int read_family(struct rctx *x, enum kr_family fam, struct kr_topo *t)
{
	const struct tgraph *all = x->g;
	struct lab l = { 0 };
	int rc;

	if (fam == KR_FAMILY_KNS)
		x->g = x->kg;
	rc = fam == KR_FAMILY_KNS ? topo_kns(x, &l)
	     : fam == KR_FAMILY_MIKANT ? topo_mikant(x, &l) : topo_torus(x, &l);
	if (!rc)
		rc = topo_build(x, &l, fam == KR_FAMILY_TORUS ? TOPO_BUILD_RIGID : 0,
				t);
	x->g = all;
	lab_free(&l);
	return rc;
}

/* A torus or mesh reading refused after the placement search placed some
 * switches cluster by cluster, one best on its own where another fitted
 * better, is tried once more with all of them placed together; the first
 * refusal is the one reported, and the notes are the reading's taken. */
static int try_family(struct rctx *x, enum kr_family fam, struct kr_topo *t)
{
	struct notes_mark m = notes_mark(x->notes);
	unsigned cn = x->conflicts->n;
	struct kr_diag first;
	int rc;

	x->jointly = x->searched = 0;
	rc = read_family(x, fam, t);
	/* a conflict with the conf is no reading to take again */
	if (rc != KR_ETOPO || fam == KR_FAMILY_KNS || !x->searched ||
	    x->conflicts->n > cn)
		return rc;
	first = *x->d;
	notes_rewind(x->notes, m);
	x->jointly = 1;
	rc = read_family(x, fam, t);
	x->jointly = 0;
	if (rc == KR_ETOPO)
		*x->d = first;
	return rc;
}

/* A switch with CAs whose only neighbour is one switch: what an admin
 * should look at when no reading fits, not even the one without such
 * switches (pendant.c). Either a leaf switch hanging off the grid
 * (a few hosts on their own switch) or a grid switch whose other links
 * are down. "" if none. */
static const char *leaf_hint(const struct rctx *x, char *buf, size_t len)
{
	const struct tgraph *g = x->g;

	buf[0] = '\0';
	for (uint32_t v = 0; g->n > 2 && v < g->n; v++)
		if (g->nca[v] && tg_deg(g, v) == 1) {
			snprintf(buf, len, "; switch %.100s reaches the others "
				 "only through %.100s: a leaf switch hanging "
				 "off the grid, and the rest reads as no grid "
				 "either, or a grid switch whose other links "
				 "are down",
				 kr_node_label(x->f, v).s,
				 kr_node_label(x->f, g->nbr[g->off[v]]).s);
			break;
		}
	return buf;
}

static int recognize(struct rctx *x, struct kr_topo *t)
{
	enum kr_family fam[2];
	char why[2][281];	/* both, with their prefixes and the */
	char leaf[400];		/* hint, fit a diag */
	char mk[281] = "";	/* a MiKANT reading's refusal */
	unsigned nfam, i;
	int rc = direct(x, t);

	if (rc <= 0)
		return rc;
	if (x->f->nsw < 3 && x->c->family == KR_FAMILY_NONE && !x->c->ndim &&
	    !x->pins)
		return kr_fail(x->d, KR_ETOPO, 0, "%u switch%s: too few to tell "
			       "a KNS, torus or mesh (pin family and dims in "
			       "knsroute.conf)", x->f->nsw,
			       x->f->nsw == 1 ? "" : "es");
	if (x->c->family == KR_FAMILY_MIKANT || x->c->family == KR_FAMILY_NONE) {
		unsigned before = x->conflicts->n;

		rc = read_family(x, KR_FAMILY_MIKANT, t);
		if (rc != KR_ETOPO || x->conflicts->n > before)
			return rc;
		if (x->c->family == KR_FAMILY_MIKANT || x->mikant_like)
			snprintf(mk, sizeof(mk), "%.280s", x->d->msg);
		if (x->c->family == KR_FAMILY_MIKANT)
			return kr_fail(x->d, KR_ETOPO, 0, "not a MiKANT: %s", mk);
	}
	nfam = families(x, fam);
	for (i = 0; i < nfam; i++) {
		unsigned before = x->conflicts->n;

		rc = try_family(x, fam[i], t);
		if (rc != KR_ETOPO || x->conflicts->n > before)
			return rc;
		snprintf(why[i], sizeof(why[i]), "%.280s", x->d->msg);
	}
	leaf_hint(x, leaf, sizeof(leaf));
	if (mk[0])
		return kr_fail(x->d, KR_ETOPO, 0, "not a MiKANT: %s%s", mk, leaf);
	if (nfam == 1)
		return kr_fail(x->d, KR_ETOPO, 0, "not a %s: %s%s",
			       fam[0] == KR_FAMILY_KNS ? "KNS" : "torus or mesh",
			       why[0], leaf);
	return kr_fail(x->d, KR_ETOPO, 0, "not a %s: %s; not a %s: %s%s",
		       fam[0] == KR_FAMILY_KNS ? "KNS" : "torus or mesh", why[0],
		       fam[1] == KR_FAMILY_KNS ? "KNS" : "torus or mesh", why[1],
		       leaf);
}

/* The admin's report: conflicts first, then notes. */
static char *report(const struct notes *conflicts, const struct notes *notes)
{
	size_t len = conflicts->len + notes->len + 1;
	char *r;

	if (len == 1 || !(r = malloc(len)))
		return NULL;
	snprintf(r, len, "%s%s", conflicts->buf ? conflicts->buf : "",
		 notes->buf ? notes->buf : "");
	return r;
}

static int finish(struct rctx *x, struct kr_topo *t, int rc)
{
	const struct kr_conf *c = x->c;
	struct notes *cf = x->conflicts;

	unsigned nwrap = 0;

	for (unsigned j = 0; j < KR_MAX_DIM; j++)
		if (c->wrap[j] >= 0)
			nwrap = j + 1;
	if (!rc && c->norder && c->norder != t->ndim)
		notes_add(cf, "order: %u dimensions, but the fabric has %u",
			  c->norder, t->ndim);
	if (!rc && nwrap > t->ndim)
		notes_add(cf, "wrap: %u values, but the fabric has %u "
			  "dimensions", nwrap, t->ndim);
	if (rc != KR_ENOMEM && rc != KR_EPARSE && rc != KR_EIO && cf->n) {
		size_t eol = strcspn(cf->buf ? cf->buf : "", "\n");

		rc = kr_fail(x->d, KR_ETOPO, 0, "knsroute.conf does not fit the "
			     "fabric: %.*s%s", (int)eol, cf->buf ? cf->buf : "?",
			     cf->n > 1 ? " (and more, see the report)" : "");
	}
	if (cf->oom || x->notes->oom)
		rc = kr_fail(x->d, KR_ENOMEM, 0, "out of memory");
	if (rc)
		kr_topo_free(t);
	t->report = report(cf, x->notes);
	return rc;
}

/* Whether switch v, with CAs, is more likely a KNS crossbar carrying a
 * host on a spare port than a router: most of its switch neighbours have
 * CAs, as a crossbar's routers do and a router's crossbars do not. */
static bool crossbar_with_cas(const struct tgraph *g, uint32_t v)
{
	uint32_t with = 0, deg = 0;

	for (uint32_t i = g->off[v]; i < g->off[v + 1]; i++) {
		deg++;
		with += g->nca[g->nbr[i]] != 0;
	}
	return 2 * with > deg;
}

static bool not_router_to_router(const void *ctx, uint32_t u, uint32_t w)
{
	const struct tgraph *g = ctx;

	return !g->nca[u] || !g->nca[w] || crossbar_with_cas(g, u) ||
	       crossbar_with_cas(g, w);
}

/* A KNS never links two routers, the switches with CAs (but for the odd
 * crossbar carrying a host): a reading as one takes the graph without
 * such cables (plugged into the wrong switch; label_ports names them),
 * when they are few, at most one link in eight, as a torus's are all
 * between switches with CAs. kg stays empty (no switches) when the
 * reading takes g itself. */
static int kns_view(const struct tgraph *g, struct tgraph *kg)
{
	uint32_t links = 0, between = 0;

	for (uint32_t e = 0; e < g->nedge; e++) {
		links += g->mult[e];
		if (!not_router_to_router(g, g->eu[e], g->ev[e]))
			between += g->mult[e];
	}
	if (!between || 8 * (uint64_t)between > links)
		return KR_OK;
	return tg_filter(g, not_router_to_router, g, kg);
}

int topo_recognize_whole(const struct kr_fabric *f, const struct kr_conf *c,
			 struct kr_topo *t, struct kr_diag *d)
{
	struct kr_conf defaults;
	struct tgraph g = { 0 }, kg = { 0 };
	struct pins pins = { 0 };
	struct notes conflicts = { 0 }, notes = { 0 };
	struct rctx x = { .f = f, .c = c, .g = &g, .kg = &g,
			  .conflicts = &conflicts, .notes = &notes, .d = d };
	struct kr_diag scratch = { 0 };
	int rc;

	*t = (struct kr_topo){ 0 };
	if (!d)
		x.d = &scratch;
	if (!c) {
		kr_conf_init(&defaults);
		x.c = &defaults;
	}
	if (!f->nsw)
		return kr_fail(x.d, KR_ETOPO, 0, "no switches");
	rc = tg_build(f, &g);
	if (!rc)
		rc = kns_view(&g, &kg);
	if (kg.n)
		x.kg = &kg;
	if (!rc)
		rc = connected(&x);
	if (!rc)
		rc = load_pins(&x, &pins);
	if (!rc) {
		conf_basics(&x);
		rc = recognize(&x, t);
	}
	rc = finish(&x, t, rc);
	if (rc == KR_ENOMEM)
		kr_fail(x.d, rc, 0, "out of memory");
	pins_free(&pins);
	tg_free(&kg);
	tg_free(&g);
	notes_free(&conflicts);
	notes_free(&notes);
	return rc;
}
