/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Between the parts of topology recognition; not for tools/.
 *
 * kr_topo_recognize (recognize.c) takes a reading of the whole fabric
 * (reading.c), which builds the switch graph (graph.c), reads pinned
 * coordinates (coords_file.c) and runs a family recogniser that produces
 * a labelling (struct lab, labels.c): torus and mesh in torus_factors.c
 * (prime factors), torus_place.c (switches the factors leave open) and
 * torus_label.c (reading and labelling rule); KNS in kns.c, kns_place.c
 * and, with fat-tree subnets, kns_subnets.c. build.c turns the labelling
 * into a struct kr_topo, checking it against every link on the way;
 * pendant.c reads a fabric again without the trees hanging off it. */
#ifndef KR_TOPO_INT_H
#define KR_TOPO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kr_conf.h"
#include "kr_fabric.h"
#include "kr_io.h"
#include "kr_topo.h"

#define TOPO_MAX_PRIME 16	/* K2 factors before 4-rings are paired */
#define TOPO_MAX_POS (1u << 24)

/* The switch graph without multi-edges: neighbour lists sorted by switch
 * id, one edge id per neighbour pair, the link count on each edge. */
struct tgraph {
	uint32_t n;		/* switches (f->nsw) */
	uint32_t *off;		/* [n+1] into nbr / eid */
	uint32_t *nbr;
	uint32_t *eid;
	uint32_t nedge;
	uint32_t *eu, *ev;	/* [nedge] ends, eu < ev */
	uint16_t *mult;		/* [nedge] links on the edge */
	uint16_t *nca;		/* [n] links to CAs and routers */
};

int tg_build(const struct kr_fabric *f, struct tgraph *g);	/* KR_ENOMEM */

/* How many links a neighbour pair has, as the most pairs have it: the
 * parallel cables a grid was built with. Not the most any pair has, as
 * one cable added beside another (more bandwidth between two switches)
 * would then make every other pair short of one, and turn a 4x4 torus
 * into a 2x4x2 with links missing. nlinks[m] counts the pairs with m
 * links (1 <= m < 256); a tie goes to the larger m; 0 when none counted. */
unsigned tg_usual_mult(const uint32_t nlinks[256]);
/* The graph of n nodes whose node v has the neighbours raw[rawoff[v]] ..
 * raw[rawoff[v+1]-1] (a neighbour once per link; the runs get sorted);
 * g->nca is the caller's, set before. */
int tg_from_lists(struct tgraph *g, uint32_t n, uint32_t *raw,
		  const uint32_t *rawoff);
/* g without the links keep(ctx, u, w) refuses, into *out (KR_ENOMEM). */
int tg_filter(const struct tgraph *g,
	      bool (*keep)(const void *ctx, uint32_t u, uint32_t w),
	      const void *ctx, struct tgraph *out);
void tg_free(struct tgraph *g);
static inline uint32_t tg_deg(const struct tgraph *g, uint32_t v)
{
	return g->off[v + 1] - g->off[v];
}
/* Index into nbr/eid of b in a's list, or KR_NONE. */
uint32_t tg_find(const struct tgraph *g, uint32_t a, uint32_t b);

/* A labelling: what a recogniser decided, before kr_topo is filled. */
struct lab {
	enum kr_family family;
	unsigned ndim;
	unsigned k[KR_MAX_DIM];
	uint8_t wrap[KR_MAX_DIM];
	uint32_t *sw_pos;	/* [nsw] position, KR_NONE for crossbars */
	uint8_t *sw_xdim;	/* [nsw] KNS crossbar dimension, KR_NO_DIM */
	uint32_t *sw_xline;	/* [nsw] crossbar line, KR_NONE */
};

int lab_alloc(struct lab *l, uint32_t nsw);
void lab_free(struct lab *l);
uint32_t lab_npos(const struct lab *l);	/* 0 when too large */

/* Coordinates pinned by a coordinates file or the cache, same meaning as
 * struct lab; switches of the file that the fabric lacks are dropped. */
struct pins {
	struct lab lab;
	uint32_t *held;		/* [port0[nsw]] CA slots of switch ports
				 * (kr_topo.held), KR_NONE where the file
				 * gives none; NULL: it gives none at all */
	unsigned p;		/* 1 + the largest slot in held */
	uint32_t npinned;	/* fabric switches with a line in the file */
	int from_cache;
	const char *path;
};

/* A coordinates file: kind KR_IN_FILE for the admin's coords_file,
 * KR_IN_CACHE for coords_cache. */
int pins_read(const struct kr_fabric *f, const char *path,
	      enum kr_input kind, struct pins *p, struct kr_diag *d);
void pins_free(struct pins *p);

/* The CA slots of t given back from old (t->held's meaning, indexed by
 * f's switch ports) with p slots per switch: a CA on a port that held a
 * slot takes it, the others the lowest free ones (those of CAs away
 * last); a port whose CA is away keeps its slot while no CA took it.
 * Nothing changes when the CAs do not fit. KR_OK or KR_ENOMEM. */
int topo_take_slots(const struct kr_fabric *f, struct kr_topo *t,
		    const uint32_t *old, unsigned p);

/* A growing text of notes for the admin, one per line. */
struct notes {
	char *buf;
	size_t len, cap;
	unsigned n;
	int oom;
};

void notes_add(struct notes *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void notes_free(struct notes *n);
/* Where n stands before an attempt that may be set aside (a cache that
 * turns out not to fit), and back to there: what the attempt noted is
 * not the reading the admin gets. */
struct notes_mark {
	size_t len;
	unsigned n;
};
struct notes_mark notes_mark(const struct notes *n);
void notes_rewind(struct notes *n, struct notes_mark m);

/* What every recogniser gets. */
struct rctx {
	const struct kr_fabric *f;
	const struct kr_conf *c;	/* never NULL */
	const struct tgraph *g;
	const struct tgraph *kg;	/* the graph a KNS reading takes (reading.c,
					 * kns_view), else g */
	const struct pins *pins;	/* NULL: none to honour */
	struct notes *conflicts;	/* conf or coords file vs graph */
	struct notes *notes;		/* worth telling, not an error */
	struct kr_diag *d;
	/* torus and mesh: the switches the classes leave go to one search
	 * together first (a second reading, after the first was refused);
	 * and whether the search placed any (it could place them another
	 * way) */
	int jointly, searched;
	/* the switches have MiKANT stages and links across the top: when
	 * no reading fits, the MiKANT one's refusal is the one to tell */
	int mikant_like;
};

/* 1: bipartite with the switches with CAs on one side, 2: bipartite
 * without CAs, 3: with CAs on both, but for a few crossbars (hosts on
 * spare ports, or an even torus), 0: no KNS reading. */
int kns_candidate(const struct tgraph *g);

/* mikant.c: groups, stages and digits of a MiKANT (kr_topo.h), or
 * KR_ETOPO; mikant_dir: the port_dir of a link from position pu to pw,
 * -1 when the MiKANT rules do not link them. */
int topo_mikant(struct rctx *x, struct lab *l);
int mikant_dir(const struct kr_topo *t, uint32_t pu, uint32_t pw);

/* kns_place.c: KNS router coordinates from the crossbars' dimensions. */
struct khyper {
	const struct kr_fabric *f;
	const struct tgraph *g;
	const uint8_t *router;	/* [nsw] 1 for a router */
	const int *xdim;	/* [nsw] a crossbar's dimension */
	unsigned n, k;
	uint32_t *hp;		/* out [nsw * n]: hyperplane 0..k-1 */
	struct kr_diag *d;
	struct notes *notes;	/* placements chosen among equals */
};

int kns_hyperplanes(struct khyper *h);

/* Each returns KR_OK with *l filled, KR_ETOPO with the reason in d->msg
 * (and possibly conflicts noted), or KR_ENOMEM. */
int topo_torus(struct rctx *x, struct lab *l);

/* kns_subnets.c: KNS whose lines are fat-tree subnets (s > 1). Returns 1
 * when no subnet has more than one switch (a crossbar KNS, or no KNS):
 * topo_kns goes on as for s = 1. Otherwise recognises the routers on the
 * graph with every subnet contracted to one node (kns_lines) and fills
 * l, subnet switches with their line's sw_xdim and sw_xline. */
int topo_ksub(struct rctx *x, struct lab *l);
/* kns_subnet_labels.c: the stage and order of every subnet switch of t
 * (routers placed, subnet switches on their lines), xbar[] for the
 * routers, s, arity and the missing counts; KR_ETOPO when the links are
 * no fat tree. */
int ksub_build(struct rctx *x, struct kr_topo *t);
/* kns.c: routers and lines of a crossbar KNS (or a contracted one). */
int kns_lines(struct rctx *x, struct lab *l);
/* Stage of every switch below a router (BFS distance from the routers,
 * never through one, minus 1); KR_NO_DIM for routers and switches no
 * router reaches. Returns the highest stage + 1. */
unsigned kns_stages(const struct tgraph *g, const uint8_t *router,
		    uint8_t *stage, uint32_t *queue);

/* How topo_build takes a labelling. RIGID: read from the graph, so no
 * switch may fit as well elsewhere (the torus ambiguity check). GIVEN:
 * from a coordinates file or cache, the grid of the fabric as it was,
 * however few of its switches are left (a labelling read from the graph
 * must fill half its grid). */
enum { TOPO_BUILD_RIGID = 1, TOPO_BUILD_GIVEN = 2 };

/* Fills t from l and checks every link against it. */
int topo_build(struct rctx *x, const struct lab *l, unsigned how,
	       struct kr_topo *t);

/* Union-find with a parity bit per element (its orientation relative to
 * the root); plain union-find when every rel is 0. */
struct uf {
	uint32_t *parent;
	uint32_t *size;
	uint8_t *par;
};

int uf_init(struct uf *u, uint32_t n);
void uf_free(struct uf *u);
uint32_t uf_find(struct uf *u, uint32_t x, uint8_t *par);
/* Joins a and b so that par(a) ^ par(b) == rel; -1 if they already
 * disagree. */
int uf_union(struct uf *u, uint32_t a, uint32_t b, unsigned rel);

/* Counters keyed by a pair of 32-bit ids (open addressing). */
struct pmap {
	uint64_t *key;		/* key + 1, 0 = empty */
	uint32_t *val;		/* [2 * cap] two counters per key */
	uint32_t cap, n;
};

int pmap_add(struct pmap *m, uint32_t a, uint32_t b, unsigned which);
void pmap_free(struct pmap *m);

/* Puts classes (edge classes of a torus, parallel classes of crossbars)
 * into dimensions. xoff/xadj: classes that can never share a dimension
 * (CSR, sorted). */
struct grouping {
	uint32_t ncls;
	const uint32_t *size;
	const uint32_t *xoff, *xadj;
	unsigned maxg;
	int partial;		/* leave undecidable classes at -1 */
	int *group;		/* out [ncls] */
	unsigned ng;		/* out */
	uint32_t stuck;		/* out: a class with no single answer, or
				 * KR_NONE */
};

int group_classes(struct grouping *gp);
/* CSR adjacency from the keys of m (both directions), sorted. */
int pmap_csr(const struct pmap *m, uint32_t n, int which, uint32_t **off,
	     uint32_t **adj, uint32_t **cnt);

/* Prime factors of a torus or mesh: rings (k >= 3), paths and K2s. */
struct prime {
	unsigned ng;
	unsigned k[TOPO_MAX_PRIME];
	uint8_t ring[TOPO_MAX_PRIME];
	unsigned mult[TOPO_MAX_PRIME];	/* most links on one edge */
	uint16_t *coord;		/* [nsw * ng] */
};

void prime_free(struct prime *p);

/* torus_place.c: switches the torus classes could not place. */
struct tplace {
	const struct tgraph *g;
	unsigned ng;
	int32_t *pot;		/* [n * ng] potentials, rings modulo ring[] */
	uint8_t *seen;		/* [n] placed */
	uint32_t ring[TOPO_MAX_PRIME];	/* ring size, 0 for a path */
	unsigned mult[TOPO_MAX_PRIME];	/* links per neighbour pair */
	int32_t lo[TOPO_MAX_PRIME], hi[TOPO_MAX_PRIME];	/* extent so far */
	const struct kr_fabric *f;
	struct notes *notes;	/* clusters placed by choice among equals */
	int jointly;		/* all at once first (rctx.jointly) */
};

/* KR_ETOPO with *stuck when a switch has no place at all (or too many
 * arrangements to search). */
int place_rest(struct tplace *p, uint32_t *stuck);
/* A link from one end of a path to the other makes it a ring; 1 when
 * that happened. */
int close_rings(struct tplace *p);
/* torus_label.c: the reading (4-rings from K2 pairs, 2-rings) and the
 * labelling rules, honouring conf and pins. */
int torus_label(struct rctx *x, const struct prime *pr, struct lab *l);

/* The switch with the lowest GUID. */
uint32_t lowest_guid(const struct kr_fabric *f);

/* reading.c: kr_topo_recognize of the whole fabric, pendants and all. */
int topo_recognize_whole(const struct kr_fabric *f, const struct kr_conf *c,
			 struct kr_topo *t, struct kr_diag *d);
/* two_homed.c: leaves on two grid switches, tried as pendants */
int pendant_two_homed(const struct kr_fabric *f, const struct kr_conf *c,
		      uint32_t *parent, uint32_t *npeeled, uint64_t *score,
		      struct kr_fabric *core, struct kr_topo *ct);

/* pendant.c: peeling the trees off, reading the core, putting its
 * reading back onto the whole fabric. */
uint32_t pendant_peel(const struct kr_fabric *f, uint32_t *parent);
void pendant_switch_degrees(const struct kr_fabric *f, const uint32_t *parent,
			    uint32_t *deg, uint32_t *stamp);
uint32_t pendant_ca_links(const struct kr_fabric *f, uint32_t v);
uint64_t pendant_faults(const struct kr_topo *t);
int pendant_judge(const struct kr_fabric *f, const struct kr_conf *c,
		  uint32_t *parent, uint32_t *npeeled, uint32_t strays,
		  uint64_t *score, struct kr_fabric *core, struct kr_topo *ct);
int pendant_graft(const struct kr_fabric *f, const struct kr_fabric *core,
		  struct kr_topo *c, uint32_t *parent, struct kr_topo *t);
void pendant_note(const struct kr_fabric *f, struct kr_topo *t);

#endif
