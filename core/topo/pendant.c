/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Pendant switches: trees of switches that reach the rest of the fabric
 * only through one switch (a leaf switch for a few hosts, a management
 * switch, a chain of them). No KNS, torus or mesh has a place for them,
 * and a reading that makes one stretches the grid around them (a 4x4
 * torus with a leaf switch reads as 3x4x2 with seven switches missing).
 *
 * So, when the reading of the whole fabric is not a perfect one, the
 * switches with a single switch neighbour are peeled off, again and again
 * (a tree of switches, peeled away whole, keeps its longest path), and
 * the rest (the core) is read on its own. A peeled switch may be a grid
 * switch whose other links are down: while the core has a hole, each one
 * hanging off a switch next to a hole goes back into the core in turn,
 * and stays when that reading is no worse. The core's reading is then
 * taken when it has fewer faults than the whole fabric's, a pendant
 * counting as much as a switch missing: a mesh without a switch stays a
 * mesh with a hole, not a smaller mesh with the switches beyond the hole
 * hanging off it. When the coordinates cache (or file) places the core
 * and not the peeled switches, as it does once a reading had these
 * pendants, the core's reading is taken as it is.
 *
 * A tree's switches hang off their host, the core switch at its root: its
 * LIDs are targets on the host like CAs on it, and a pendant switch sends
 * everything outside its subtree up (route.c). A channel into a pendant
 * leads only further down and one out of it is entered only from below,
 * so no credit loop can pass through a tree. */
#include "kr_topo.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kr_conf.h"
#include "topo_int.h"

/* Breadth first over switch links from the n switches in queue: from[v]
 * the switch v was reached from (the sources themselves, KR_NONE where
 * none reaches). The last switch reached: one farthest from them. */
static uint32_t bfs(const struct kr_fabric *f, uint32_t *queue, uint32_t n,
		    uint32_t *from)
{
	uint32_t head = 0, last = queue[0];

	for (uint32_t v = 0; v < f->nsw; v++)
		from[v] = KR_NONE;
	for (uint32_t i = 0; i < n; i++)
		from[queue[i]] = queue[i];
	while (head < n) {
		uint32_t u = last = queue[head++];

		for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++) {
			uint32_t w = f->peer[s] < 0 ? u : f->owner[f->peer[s]];

			if (kr_is_switch(f, w) && from[w] == KR_NONE) {
				from[w] = u;
				queue[n++] = w;
			}
		}
	}
	return last;
}

/* A tree of switches (a ring with a link down and a leaf switch on it)
 * peels away whole. Its longest path is the grid then, a line, and the
 * rest hangs off it, each switch off the one it is reached from. How many
 * hang off; none when the path has fewer than three switches. */
static uint32_t peel_tree(const struct kr_fabric *f, uint32_t *parent)
{
	uint32_t *from = malloc(((size_t)f->nsw + 1) * sizeof(*from));
	uint32_t *queue = malloc(((size_t)f->nsw + 1) * sizeof(*queue));
	uint32_t a, b, n = 0, npeeled = 0;

	for (uint32_t v = 0; v < f->nsw; v++)
		parent[v] = KR_NONE;
	if (!from || !queue)
		goto out;
	queue[0] = 0;
	a = bfs(f, queue, 1, from);
	queue[0] = a;
	b = bfs(f, queue, 1, from);
	for (uint32_t v = b; n < f->nsw; v = from[v]) {
		queue[n++] = v;
		if (v == a)
			break;
	}
	if (n < 3)
		goto out;
	bfs(f, queue, n, from);
	for (uint32_t v = 0; v < f->nsw; v++)
		if (from[v] != KR_NONE && from[v] != v) {
			parent[v] = from[v];
			npeeled++;
		}
out:
	free(from);
	free(queue);
	return npeeled;
}

/* Switch neighbours of each switch, parallel cables once, loopbacks and
 * peeled switches not at all. */
void pendant_switch_degrees(const struct kr_fabric *f, const uint32_t *parent,
			    uint32_t *deg, uint32_t *stamp)
{
	for (uint32_t v = 0; v < f->nsw; v++)
		deg[v] = stamp[v] = 0;
	for (uint32_t v = 0; v < f->nsw; v++)
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
			uint32_t u = f->peer[s] < 0 ? v : f->owner[f->peer[s]];

			if (u != v && kr_is_switch(f, u) &&
			    parent[u] == KR_NONE && stamp[u] != v + 1) {
				stamp[u] = v + 1;
				deg[v]++;
			}
		}
}

/* A core switch for each peeled one: its parent, the neighbour it hung off
 * when peeled (KR_NONE for the core). How many were peeled. */
uint32_t pendant_peel(const struct kr_fabric *f, uint32_t *parent)
{
	uint32_t nsw = f->nsw, npeeled = 0, head = 0, tail = 0;
	uint32_t *deg = malloc(((size_t)nsw + 1) * sizeof(*deg));
	uint32_t *stamp = malloc(((size_t)nsw + 1) * sizeof(*stamp));
	uint32_t *queue = malloc(((size_t)nsw + 1) * sizeof(*queue));

	for (uint32_t v = 0; v < nsw; v++)
		parent[v] = KR_NONE;
	if (!deg || !stamp || !queue)
		goto out;
	pendant_switch_degrees(f, parent, deg, stamp);
	for (uint32_t v = 0; v < nsw; v++)
		if (deg[v] == 1)
			queue[tail++] = v;
	while (head < tail) {
		uint32_t v = queue[head++], u = KR_NONE;

		if (deg[v] != 1)	/* its last neighbour went first */
			continue;
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
			uint32_t w = f->peer[s] < 0 ? v : f->owner[f->peer[s]];

			if (w != v && kr_is_switch(f, w) && parent[w] == KR_NONE) {
				u = w;
				break;
			}
		}
		if (u == KR_NONE)
			continue;
		parent[v] = u;
		deg[v] = 0;
		npeeled++;
		if (--deg[u] == 1)
			queue[tail++] = u;
	}
	if (nsw - npeeled < 3)
		npeeled = peel_tree(f, parent);
out:
	free(deg);
	free(stamp);
	free(queue);
	return npeeled;
}

/* A node stays in the core unless it is a peeled switch or hangs off
 * peeled ones only (a CA with a port on the grid stays, without its
 * links to pendants). */
static bool in_core(const struct kr_fabric *f, const uint32_t *parent,
		    uint32_t v)
{
	bool pendant = false;

	if (kr_is_switch(f, v))
		return parent[v] == KR_NONE;
	for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++) {
		uint32_t w = f->peer[s] < 0 ? v : f->owner[f->peer[s]];

		if (!kr_is_switch(f, w))
			continue;
		if (parent[w] == KR_NONE)
			return true;
		pendant = true;
	}
	return !pendant;
}

/* f without the peeled switches and the nodes hanging off them. */
static int core_fabric(const struct kr_fabric *f, const uint32_t *parent,
		       struct kr_fabric *core, struct kr_diag *d)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int *id = malloc(((size_t)f->nnode + 1) * sizeof(*id));
	int rc = b && id ? KR_OK : KR_ENOMEM;

	for (uint32_t v = 0; !rc && v < f->nnode; v++) {
		id[v] = -1;
		if (!in_core(f, parent, v))
			continue;
		id[v] = kr_fb_add_node(b, f->type[v], f->nports[v], f->guid[v],
				       kr_node_name(f, v), kr_node_desc(f, v),
				       0, d);
		if (id[v] < 0) {
			rc = id[v];
			break;
		}
		kr_fb_set_ids(b, id[v], f->sysimg_guid[v], f->vendid[v],
			      f->devid[v]);
		for (uint32_t s = f->port0[v]; !rc && s < f->port0[v + 1]; s++) {
			unsigned pn = kr_port_num(f, s);

			if (f->port_guid[s] || f->lid[s])
				rc = kr_fb_set_port(b, id[v], pn, f->port_guid[s],
						    f->lid[s], f->lmc[s], 0, d);
			if (!rc && f->oper_vls[s])
				rc = kr_fb_set_oper_vls(b, id[v], pn,
							f->oper_vls[s]);
		}
	}
	for (uint32_t s = 0; !rc && s < f->nport; s++) {
		uint32_t v = f->owner[s], w;

		if (f->peer[s] <= (int32_t)s)
			continue;
		w = f->owner[f->peer[s]];
		if (id[v] >= 0 && id[w] >= 0)
			rc = kr_fb_link(b, id[v], kr_port_num(f, s), id[w],
					kr_port_num(f, (uint32_t)f->peer[s]), 0, d);
	}
	if (!rc)
		rc = kr_fb_finish(b, core, d);
	if (!rc)
		core->sm_lid = f->sm_lid;
	kr_fb_free(b);
	free(id);
	return rc;
}

static void *copy_of(const void *p, size_t n)
{
	void *q = p && n ? malloc(n) : NULL;

	if (q)
		memcpy(q, p, n);
	return q;
}

/* t as c (of core) with its per-switch and per-port arrays sized for f
 * and cleared to no place, which the pendants keep; KR_ENOMEM when one
 * cannot be had (t then holds what was had, c its own). */
static int graft_alloc(const struct kr_fabric *f, const struct kr_topo *c,
		       uint32_t *parent, struct kr_topo *t)
{
	uint32_t nsp = f->port0[f->nsw];
	size_t nx = (size_t)c->npos * c->ndim;

	*t = *c;
	t->report = NULL;
	t->pos_sw = malloc(((size_t)c->npos + 1) * sizeof(*t->pos_sw));
	t->sw_pos = malloc(((size_t)f->nsw + 1) * sizeof(*t->sw_pos));
	t->sw_xdim = malloc((size_t)f->nsw + 1);
	t->sw_xline = malloc(((size_t)f->nsw + 1) * sizeof(*t->sw_xline));
	t->xbar = c->xbar ? malloc((nx + 1) * sizeof(*t->xbar)) : NULL;
	t->port_dir = malloc((size_t)f->nport + 1);
	t->ca_slot = c->ca_slot ? malloc(((size_t)f->nport + 1) *
					 sizeof(*t->ca_slot)) : NULL;
	t->held = c->held ? malloc(((size_t)nsp + 1) * sizeof(*t->held)) : NULL;
	t->sw_stage = c->sw_stage ? malloc((size_t)f->nsw + 1) : NULL;
	t->sw_order = c->sw_order ? malloc(((size_t)f->nsw + 1) *
					   sizeof(*t->sw_order)) : NULL;
	t->missing_link = copy_of(c->missing_link, c->nmissing_link *
				  sizeof(*c->missing_link));
	t->missing_sw = copy_of(c->missing_sw, c->nmissing_sw *
				sizeof(*c->missing_sw));
	t->sw_parent = parent;
	t->sw_host = malloc(((size_t)f->nsw + 1) * sizeof(*t->sw_host));
	if (!t->pos_sw || !t->sw_pos || !t->sw_xdim || !t->sw_xline ||
	    (c->xbar && !t->xbar) || !t->port_dir ||
	    (c->ca_slot && !t->ca_slot) || (c->held && !t->held) ||
	    (c->sw_stage && !t->sw_stage) || (c->sw_order && !t->sw_order) ||
	    (c->nmissing_link && !t->missing_link) ||
	    (c->nmissing_sw && !t->missing_sw) || !t->sw_host)
		return KR_ENOMEM;
	memset(t->port_dir, KR_DIR_NONE, (size_t)f->nport);
	if (t->ca_slot)
		memset(t->ca_slot, 0xff, (size_t)f->nport * sizeof(*t->ca_slot));
	if (t->held)
		memset(t->held, 0xff, (size_t)nsp * sizeof(*t->held));
	for (uint32_t v = 0; v < f->nsw; v++) {
		t->sw_pos[v] = KR_NONE;
		t->sw_xdim[v] = KR_NO_DIM;
		t->sw_xline[v] = KR_NONE;
		if (t->sw_stage)
			t->sw_stage[v] = KR_NO_DIM;
		if (t->sw_order)
			t->sw_order[v] = KR_NONE;
	}
	return KR_OK;
}

/* The core's places, port directions and CA slots onto f's nodes (fof:
 * core node -> f node). */
static void copy_core(const struct kr_fabric *f, const struct kr_fabric *core,
		      const struct kr_topo *c, const uint32_t *fof,
		      struct kr_topo *t)
{
	size_t nx = (size_t)c->npos * c->ndim;

	for (uint32_t vc = 0; vc < core->nnode; vc++) {
		uint32_t v = fof[vc];

		if (kr_is_switch(core, vc)) {
			t->sw_pos[v] = c->sw_pos[vc];
			t->sw_xdim[v] = c->sw_xdim ? c->sw_xdim[vc] : KR_NO_DIM;
			t->sw_xline[v] = c->sw_xline ? c->sw_xline[vc] : KR_NONE;
			if (t->sw_stage)
				t->sw_stage[v] = c->sw_stage[vc];
			if (t->sw_order)
				t->sw_order[v] = c->sw_order[vc];
		}
		for (unsigned pn = 0; pn <= core->nports[vc]; pn++) {
			uint32_t sc = core->port0[vc] + pn, s = f->port0[v] + pn;

			t->port_dir[s] = c->port_dir[sc];
			if (t->ca_slot)
				t->ca_slot[s] = c->ca_slot[sc];
			if (t->held && kr_is_switch(core, vc))
				t->held[s] = c->held[sc];
		}
	}
	for (uint32_t pos = 0; pos < c->npos; pos++)
		t->pos_sw[pos] = c->pos_sw[pos] < 0 ? -1
				 : (int32_t)fof[c->pos_sw[pos]];
	for (size_t i = 0; t->xbar && i < nx; i++)
		t->xbar[i] = c->xbar[i] < 0 ? -1 : (int32_t)fof[c->xbar[i]];
}

/* Each pendant's host, and its tree's links (both ends) and CAs; a cable
 * from a pendant to any other switch is left unused, as a stray one. */
static void tree_links(const struct kr_fabric *f, const uint32_t *parent,
		       struct kr_topo *t)
{
	for (uint32_t v = 0; v < f->nsw; v++) {
		uint32_t h = v;

		while (parent[h] != KR_NONE)
			h = parent[h];
		t->sw_host[v] = h == v ? KR_NONE : h;
		t->npendant += h != v;
		for (uint32_t s = f->port0[v] + 1; h != v && s < f->port0[v + 1];
		     s++) {
			uint32_t w;

			if (f->peer[s] < 0)
				continue;
			w = f->owner[f->peer[s]];
			if (!kr_is_switch(f, w)) {
				t->port_dir[s] = KR_DIR_CA;
				continue;
			}
			if (w != parent[v] && parent[w] != v)
				continue;	/* a stray: NONE at both ends */
			t->port_dir[s] = KR_DIR_TREE;
			if (parent[w] == KR_NONE)
				t->port_dir[f->peer[s]] = KR_DIR_TREE;
		}
	}
}

/* The core's reading c (of core) put onto f: per-switch and per-port
 * arrays through the GUIDs, the pendants placeless, parent and host set.
 * c is freed (its report moves to t). */
int pendant_graft(const struct kr_fabric *f, const struct kr_fabric *core,
		  struct kr_topo *c, uint32_t *parent, struct kr_topo *t)
{
	uint32_t *fof = malloc(((size_t)core->nnode + 1) * sizeof(*fof));
	int rc = graft_alloc(f, c, parent, t);

	t->report = c->report;
	c->report = NULL;
	if (!rc && !fof)
		rc = KR_ENOMEM;
	if (!rc) {
		for (uint32_t v = 0; v < core->nnode; v++)
			fof[v] = kr_node_by_guid(f, core->guid[v]);
		copy_core(f, core, c, fof, t);
		tree_links(f, parent, t);
	}
	free(fof);
	if (rc) {
		t->sw_parent = NULL;	/* the caller's still */
		kr_topo_free(t);
	}
	kr_topo_free(c);
	return rc;
}

/* Whether the coordinates file or cache places every switch of the core
 * and none of the peeled ones: the grid had no place for them when it was
 * written (a reading with these pendants), so a hole in the core now is a
 * switch gone, not one of them, and the core's reading is the one. */
static bool pinned_apart(const struct kr_fabric *f, const struct kr_conf *c,
			 const uint32_t *parent)
{
	const char *path = !c ? "" : c->coords_file[0] ? c->coords_file
			   : c->coords_cache;
	struct pins p = { 0 };
	struct kr_diag d = { 0 };
	bool apart = true;

	if (!path[0] || access(path, F_OK) ||
	    pins_read(f, path, c->coords_file[0] ? KR_IN_FILE : KR_IN_CACHE,
		      &p, &d))
		return false;
	for (uint32_t sw = 0; sw < f->nsw && apart; sw++)
		apart = (p.lab.sw_pos[sw] == KR_NONE &&
			 p.lab.sw_xdim[sw] == KR_NO_DIM) ==
			(parent[sw] != KR_NONE);
	pins_free(&p);
	return apart;
}

/* Faults a reading counts, a switch missing as much as all its links. */
uint64_t pendant_faults(const struct kr_topo *t)
{
	return (uint64_t)(t->nmissing_sw + t->nmissing_subsw) * 2 * t->ndim +
	       t->nmissing_link + t->nmissing_sublink;
}

/* Links from switch v to CAs. */
uint32_t pendant_ca_links(const struct kr_fabric *f, uint32_t v)
{
	uint32_t n = 0;

	for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++)
		n += f->peer[s] >= 0 && !kr_is_switch(f, f->owner[f->peer[s]]);
	return n;
}

/* Appends a line per pendant switch to t->report. */
void pendant_note(const struct kr_fabric *f, struct kr_topo *t)
{
	struct notes n = { 0 };
	size_t had = t->report ? strlen(t->report) : 0;
	char *r;

	for (uint32_t v = 0; v < f->nsw; v++) {
		uint32_t strays = 0;

		if (t->sw_parent[v] == KR_NONE)
			continue;
		for (uint32_t s = f->port0[v] + 1; s < f->port0[v + 1]; s++)
			strays += f->peer[s] >= 0 &&
				  t->port_dir[s] == KR_DIR_NONE;
		notes_add(&n, "pendant switch %s (%u CAs) hangs off %s: "
			  "a tree off grid switch %s, routed through it%s",
			  kr_node_label(f, v).s, pendant_ca_links(f, v),
			  kr_node_label(f, t->sw_parent[v]).s,
			  kr_node_label(f, t->sw_host[v]).s, strays ?
			  "; its cables to other switches are not used" : "");
	}
	if (!n.oom && n.buf && (r = malloc(had + n.len + 1))) {
		memcpy(r, t->report ? t->report : "", had);
		memcpy(r + had, n.buf, n.len + 1);
		free(t->report);
		t->report = r;
	}
	notes_free(&n);
}

/* The core (f without the switches parent peels, into core) read into
 * ct; both freed when the reading fails. */
static int read_core(const struct kr_fabric *f, const struct kr_conf *c,
		     const uint32_t *parent, struct kr_fabric *core,
		     struct kr_topo *ct, struct kr_diag *d)
{
	int rc = core_fabric(f, parent, core, d);

	*ct = (struct kr_topo){ 0 };
	if (!rc && (rc = topo_recognize_whole(core, c, ct, d)))
		kr_fabric_free(core);
	if (rc)
		kr_topo_free(ct);
	return rc;
}

/* A core reading's faults, each pendant counting as a switch missing. */
static uint64_t core_faults(const struct kr_topo *ct, uint32_t npeeled)
{
	return pendant_faults(ct) + (uint64_t)npeeled * 2 * ct->ndim;
}

/* Whether grid positions a and b are one step apart in one dimension. */
static bool one_step(const struct kr_topo *t, uint32_t a, uint32_t b)
{
	unsigned differ = 0;
	bool step = false;

	for (unsigned d = 0; d < t->ndim; d++) {
		unsigned ca = kr_topo_coord(t, a, d), cb = kr_topo_coord(t, b, d);
		unsigned diff = ca > cb ? ca - cb : cb - ca;

		if (!diff)
			continue;
		differ++;
		step = diff == 1 || (t->wrap[d] && diff == t->k[d] - 1);
	}
	return differ == 1 && step;
}

/* Whether switch sw of the core sits next to a hole of its reading t: a
 * grid switch one step from a missing one, a router on a missing
 * crossbar's line, a crossbar whose line lacks a router; any switch when
 * subnet switches are missing, whose places the reading does not keep. */
static bool next_to_hole(const struct kr_topo *t, uint32_t sw)
{
	uint32_t pos = t->sw_pos[sw];
	unsigned xdim = t->sw_xdim[sw];

	if (t->nmissing_subsw)
		return true;
	for (uint32_t i = 0; i < t->nmissing_sw; i++) {
		const struct kr_missing_sw *m = &t->missing_sw[i];

		if (pos != KR_NONE && m->xdim != KR_NO_DIM) {
			if (pos - kr_topo_coord(t, pos, m->xdim) *
				  t->stride[m->xdim] == m->pos)
				return true;
		} else if (pos == KR_NONE && xdim != KR_NO_DIM) {
			if (m->xdim == KR_NO_DIM &&
			    m->pos - kr_topo_coord(t, m->pos, xdim) *
				     t->stride[xdim] == t->sw_xline[sw])
				return true;
		} else if (pos != KR_NONE && t->family != KR_FAMILY_KNS &&
			   one_step(t, pos, m->pos)) {
			return true;
		}
	}
	return false;
}

/* A peeled switch next to the core may be a grid switch with its other
 * links down, and the core's hole its place: each such switch hanging off
 * a switch next to a hole goes back into the core in turn, and stays
 * when the reading gets no worse (a hole filled outweighs the links it
 * lacks). */
static int fill_holes(const struct kr_fabric *f, const struct kr_conf *c,
		      uint32_t *parent, uint32_t *npeeled,
		      struct kr_fabric *core, struct kr_topo *ct)
{
	bool again = true;

	while (again && (ct->nmissing_sw || ct->nmissing_subsw)) {
		again = false;
		for (uint32_t v = 0; v < f->nsw; v++) {
			uint32_t up = parent[v];
			struct kr_fabric core2;
			struct kr_topo ct2;
			struct kr_diag d2 = { 0 };
			int rc;

			if (up == KR_NONE || parent[up] != KR_NONE ||
			    !next_to_hole(ct, kr_node_by_guid(core, f->guid[up])))
				continue;	/* in the core, below a root, or
						 * away from every hole */
			parent[v] = KR_NONE;
			rc = read_core(f, c, parent, &core2, &ct2, &d2);
			if (rc == KR_ENOMEM)
				return rc;
			if (rc || core_faults(&ct2, *npeeled - 1) >
				  core_faults(ct, *npeeled)) {
				if (!rc) {
					kr_topo_free(&ct2);
					kr_fabric_free(&core2);
				}
				parent[v] = up;
				continue;
			}
			kr_topo_free(ct);
			kr_fabric_free(core);
			*ct = ct2;
			*core = core2;
			--*npeeled;
			again = true;
			break;
		}
	}
	return KR_OK;
}

/* Whether a pendant hangs off a subnet switch of a KNS with fat-tree
 * subnets: a target on it would need up*-down* routes into the subnet
 * (route_updn.c) that only the subnet switches' own LIDs get, and it is
 * refused, as a CA on one is. */
static bool on_subnet(const struct kr_fabric *f, const struct kr_fabric *core,
		      const struct kr_topo *ct, const uint32_t *parent)
{
	for (uint32_t v = 0; ct->s > 1 && v < f->nsw; v++)
		if (parent[v] != KR_NONE && parent[parent[v]] == KR_NONE &&
		    ct->sw_pos[kr_node_by_guid(core, f->guid[parent[v]])] ==
		    KR_NONE)
			return true;
	return false;
}

/* The core that parent leaves, read into core and ct and judged against
 * the whole fabric's reading t (rc_whole its code; *score the faults to
 * beat, each pendant counting as a switch missing and each cable left
 * unused, strays, as a link): KR_OK when taken, with *score its own. */
int pendant_judge(const struct kr_fabric *f, const struct kr_conf *c,
		  uint32_t *parent, uint32_t *npeeled, uint32_t strays,
		  uint64_t *score, struct kr_fabric *core, struct kr_topo *ct)
{
	struct kr_diag cd = { 0 };
	int rc = *npeeled ? read_core(f, c, parent, core, ct, &cd) : KR_ETOPO;
	bool apart = !rc && !strays && pinned_apart(f, c, parent);

	if (!rc && (ct->nmissing_sw || ct->nmissing_subsw) && !apart)
		rc = fill_holes(f, c, parent, npeeled, core, ct);
	if (!rc && (!*npeeled || on_subnet(f, core, ct, parent) ||
		    (!apart && core_faults(ct, *npeeled) + strays >= *score))) {
		kr_topo_free(ct);
		kr_fabric_free(core);
		rc = KR_ETOPO;
	}
	if (!rc)
		*score = apart ? 0 : core_faults(ct, *npeeled) + strays;
	return rc;
}
