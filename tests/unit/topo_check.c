/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "topo_check.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void truth_alloc(struct tc_truth *tr, uint32_t nsw, uint32_t npos)
{
	tr->pos = malloc((nsw + 1) * sizeof(*tr->pos));
	tr->xdim = malloc(nsw + 1);
	tr->xline = malloc((nsw + 1) * sizeof(*tr->xline));
	tr->at = malloc((npos + 1) * sizeof(*tr->at));
	assert_non_null(tr->pos);
	assert_non_null(tr->xdim);
	assert_non_null(tr->xline);
	assert_non_null(tr->at);
	memset(tr->at, 0xff, npos * sizeof(*tr->at));
}

void tc_gen(const struct kr_gen_opts *o, struct kr_fabric *f,
	    struct tc_truth *tr)
{
	*tr = (struct tc_truth){ 0 };
	assert_int_equal(kr_gen(o, f, &tr->grid, NULL, NULL, NULL), KR_OK);
	truth_alloc(tr, f->nsw, tr->grid.npos);
	for (uint32_t s = 0; s < f->nsw; s++) {
		tr->pos[s] = tr->grid.sw_pos[s];
		tr->xdim[s] = tr->grid.sw_xdim[s];
		tr->xline[s] = tr->grid.sw_xline[s];
		if (tr->pos[s] != KR_NONE)
			tr->at[tr->pos[s]] = (int32_t)s;
	}
}

void tc_truth_free(struct tc_truth *tr)
{
	kr_topo_free(&tr->grid);
	free(tr->pos);
	free(tr->xdim);
	free(tr->xline);
	free(tr->at);
	*tr = (struct tc_truth){ 0 };
}

/* A CA goes when marked, or with the last switch it hangs off. */
static int dropped(const struct kr_fabric *f, const uint8_t *drop, uint32_t n)
{
	if (n < f->nsw || (drop && drop[n]))
		return drop && drop[n];
	for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++)
		if (f->peer[s] >= 0 && !dropped(f, drop, f->owner[f->peer[s]]))
			return 0;
	return 1;
}

void tc_without(const struct kr_fabric *f, const struct tc_truth *tr,
		const uint8_t *drop, uint32_t cut, struct kr_fabric *out,
		struct tc_truth *out_tr)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int *id = malloc(f->nnode * sizeof(*id));

	assert_non_null(b);
	assert_non_null(id);
	for (uint32_t n = 0; n < f->nnode; n++)
		id[n] = dropped(f, drop, n) ? -1 :
			kr_fb_add_node(b, f->type[n], f->nports[n], f->guid[n],
				       kr_node_name(f, n), NULL, 0, NULL);
	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t a = f->owner[s], z;

		if (f->peer[s] < (int32_t)s || s == cut || (uint32_t)f->peer[s] == cut)
			continue;
		z = f->owner[f->peer[s]];
		if (id[a] >= 0 && id[z] >= 0)
			assert_int_equal(kr_fb_link(b, id[a], kr_port_num(f, s), id[z],
						    kr_port_num(f, (uint32_t)f->peer[s]),
						    0, NULL), KR_OK);
	}
	assert_int_equal(kr_fb_finish(b, out, NULL), KR_OK);
	*out_tr = (struct tc_truth){ 0 };
	truth_alloc(out_tr, out->nsw, tr->grid.npos);
	/* the sizes only: none of the arrays is out's */
	out_tr->grid = (struct kr_topo){
		.family = tr->grid.family, .ndim = tr->grid.ndim,
		.p = tr->grid.p, .parallel = tr->grid.parallel,
		.npos = tr->grid.npos, .s = tr->grid.s,
		.arity = tr->grid.arity };
	memcpy(out_tr->grid.k, tr->grid.k, sizeof(tr->grid.k));
	memcpy(out_tr->grid.wrap, tr->grid.wrap, sizeof(tr->grid.wrap));
	memcpy(out_tr->grid.stride, tr->grid.stride, sizeof(tr->grid.stride));
	for (uint32_t n = 0; n < f->nsw; n++) {
		uint32_t m;

		if (id[n] < 0)
			continue;
		m = kr_fb_final_id(b, id[n]);
		out_tr->pos[m] = tr->pos[n];
		out_tr->xdim[m] = tr->xdim[n];
		out_tr->xline[m] = tr->xline[n];
		if (tr->pos[n] != KR_NONE)
			out_tr->at[tr->pos[n]] = (int32_t)m;
	}
	kr_fb_free(b);
	free(id);
}

static uint32_t peer_node(const struct kr_fabric *f, uint32_t slot)
{
	return f->owner[f->peer[slot]];
}

static void assert_placed(const struct kr_fabric *f, const struct kr_topo *t)
{
	uint32_t npos = 1, placed = 0;

	assert_int_not_equal(t->family, KR_FAMILY_NONE);
	for (unsigned d = 0; d < t->ndim; d++) {
		assert_int_equal(t->stride[d], npos);
		npos *= t->k[d];
		if (t->family == KR_FAMILY_KNS)
			assert_int_equal(t->k[d], t->k[0]);
	}
	assert_int_equal(t->npos, npos);
	for (uint32_t s = 0; s < f->nsw; s++) {
		if (t->sw_pos[s] != KR_NONE) {
			assert_int_equal(t->pos_sw[t->sw_pos[s]], (int32_t)s);
			assert_int_equal(t->sw_xdim[s], KR_NO_DIM);
			placed++;
		} else {
			assert_int_equal(t->family, KR_FAMILY_KNS);
			assert_true(t->sw_xdim[s] < t->ndim);
			assert_int_equal(kr_topo_coord(t, t->sw_xline[s],
						       t->sw_xdim[s]), 0);
		}
	}
	for (uint32_t p = 0; p < t->npos; p++)
		placed -= t->pos_sw[p] >= 0;
	assert_int_equal(placed, 0);
}

/* The neighbour a link's direction label points to, or KR_NONE. */
static uint32_t step_to(const struct kr_topo *t, uint32_t pos, unsigned dir)
{
	unsigned d = dir / 2, c = kr_topo_coord(t, pos, d), k = t->k[d], nc;

	if (dir & 1)
		nc = c ? c - 1 : t->wrap[d] ? k - 1 : KR_NONE;
	else
		nc = c + 1 < k ? c + 1 : t->wrap[d] ? 0 : KR_NONE;
	return nc == KR_NONE ? KR_NONE : pos - c * t->stride[d] + nc * t->stride[d];
}

static void assert_grid_port(const struct kr_fabric *f, const struct kr_topo *t,
			     uint32_t u, uint32_t s)
{
	uint32_t w = peer_node(f, s), back = (uint32_t)f->peer[s];
	unsigned dir = t->port_dir[s];

	if (t->family == KR_FAMILY_KNS) {
		uint32_t r = t->sw_pos[u] != KR_NONE ? u : w, x = r == u ? w : u;
		unsigned d = t->sw_xdim[x];

		assert_int_equal(t->sw_pos[r] - kr_topo_coord(t, t->sw_pos[r], d) *
				 t->stride[d], t->sw_xline[x]);
		assert_int_equal(dir, r == u ? 2 * d : KR_DIR_XBAR);
		return;
	}
	assert_true(dir < 2 * t->ndim);
	if (t->family == KR_FAMILY_MIKANT) {	/* up, down, across */
		unsigned sd = t->ndim - 2, gd = t->ndim - 1;
		unsigned su = kr_topo_coord(t, t->sw_pos[u], sd);
		unsigned sw = kr_topo_coord(t, t->sw_pos[w], sd);
		unsigned gu = kr_topo_coord(t, t->sw_pos[u], gd);

		assert_int_equal(dir, sw == su + 1 ? 2 * sd : sw + 1 == su ?
				 2 * sd + 1 : 2 * gd + gu);
		assert_int_equal(t->port_dir[back], dir ^ 1);
		return;
	}
	assert_int_equal(step_to(t, t->sw_pos[u], dir), t->sw_pos[w]);
	assert_int_equal(t->port_dir[back], dir ^ 1);	/* + one way, - back */
}

static void assert_ports(const struct kr_fabric *f, const struct kr_topo *t)
{
	unsigned p = 0;

	for (uint32_t u = 0; u < f->nsw; u++) {
		unsigned rank = 0;

		for (uint32_t s = f->port0[u]; s < f->port0[u + 1]; s++) {
			if (s == f->port0[u] || f->peer[s] < 0) {
				assert_int_equal(t->port_dir[s], KR_DIR_NONE);
			} else if (!kr_is_switch(f, peer_node(f, s))) {
				assert_int_equal(t->port_dir[s], KR_DIR_CA);
				assert_int_equal(t->ca_slot[f->peer[s]], rank++);
			} else {
				assert_grid_port(f, t, u, s);
			}
		}
		p = rank > p ? rank : p;
	}
	assert_int_equal(t->p, p);
}

/* MiKANT: the parents (group 0's top: the switches across) present
 * that a switch has no link up to, by the slides' rule. */
static uint32_t mk_unlinked_up(const struct kr_fabric *f,
			       const struct kr_topo *t, uint32_t pos)
{
	unsigned sd = t->ndim - 2, top = sd - 1, k = t->k[0];
	unsigned L = kr_topo_coord(t, pos, sd), j = L < top ? L : top;
	uint32_t base = pos - kr_topo_coord(t, pos, j) * t->stride[j], n = 0;
	int32_t u = t->pos_sw[pos];

	if (L == top && kr_topo_coord(t, pos, sd + 1))
		return 0;	/* counted from group 0 */
	base += L < top ? t->stride[sd] : t->stride[sd + 1];
	for (unsigned v = 0; v < k; v++) {
		int32_t nb = t->pos_sw[base + v * t->stride[j]];
		bool have = false;

		for (uint32_t s = f->port0[u] + 1; nb >= 0 && s < f->port0[u + 1]; s++)
			have |= f->peer[s] >= 0 && peer_node(f, s) == (uint32_t)nb;
		n += nb >= 0 && !have;
	}
	return n;
}

/* Missing links counted again from the ports: parallel per + direction
 * (KNS: per router and crossbar of its lines) between present switches. */
static void assert_missing(const struct kr_fabric *f, const struct kr_topo *t)
{
	uint32_t want = 0, empty = 0;

	for (uint32_t pos = 0; pos < t->npos; pos++) {
		if (t->family == KR_FAMILY_MIKANT) {
			empty += t->pos_sw[pos] < 0;
			want += t->pos_sw[pos] >= 0 ? mk_unlinked_up(f, t, pos) : 0;
			continue;
		}
		int32_t u = t->pos_sw[pos];

		empty += u < 0;
		for (unsigned d = 0; d < t->ndim && u >= 0; d++) {
			uint32_t nb = step_to(t, pos, 2 * d), have = 0;

			if (t->family == KR_FAMILY_KNS ?
			    t->xbar[(size_t)pos * t->ndim + d] < 0 :
			    nb == KR_NONE || t->pos_sw[nb] < 0)
				continue;
			for (uint32_t s = f->port0[u] + 1; s < f->port0[u + 1]; s++)
				have += t->port_dir[s] == 2 * d;
			want += have < t->parallel ? t->parallel - have : 0;
		}
		for (unsigned d = 0; d < t->ndim && t->family == KR_FAMILY_KNS; d++)
			empty += !kr_topo_coord(t, pos, d) &&
				 t->xbar[(size_t)pos * t->ndim + d] < 0;
	}
	assert_int_equal(t->nmissing_link, want);
	assert_int_equal(t->nmissing_sw, empty);
	for (uint32_t i = 0; i < t->nmissing_sw; i++)
		assert_true(t->missing_sw[i].xdim == KR_NO_DIM ?
			    t->pos_sw[t->missing_sw[i].pos] < 0 :
			    t->xbar[(size_t)t->missing_sw[i].pos * t->ndim +
				    t->missing_sw[i].xdim] < 0);
	for (uint32_t i = 0; i < t->nmissing_link; i++)
		assert_true(t->pos_sw[t->missing_link[i].pos] >= 0);
}

void tc_assert_valid(const struct kr_fabric *f, const struct kr_topo *t)
{
	assert_placed(f, t);
	assert_ports(f, t);
	assert_missing(f, t);
	assert_true(t->parallel >= 1);
}

static int adjacent(const struct kr_topo *t, uint32_t a, uint32_t b)
{
	unsigned diff = 0;

	for (unsigned d = 0; d < t->ndim; d++) {
		unsigned ca = kr_topo_coord(t, a, d), cb = kr_topo_coord(t, b, d);

		if (ca == cb)
			continue;
		diff++;
		if (t->family != KR_FAMILY_KNS && ca + 1 != cb && cb + 1 != ca &&
		    !(t->wrap[d] && ((ca + 1) % t->k[d] == cb ||
				     (cb + 1) % t->k[d] == ca)))
			return 0;
	}
	return diff == 1;
}

/* Pairs of switches adjacent in the grid, counted both ways. */
static uint64_t grid_pairs(const struct kr_topo *t, const int32_t *at,
			   const uint32_t *pos_of, uint32_t nsw,
			   const struct kr_topo *other, const uint32_t *other_pos,
			   int *broken)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < nsw; s++) {
		if (pos_of[s] == KR_NONE)
			continue;
		for (unsigned d = 0; d < t->ndim; d++)
			for (unsigned c = 0; c < t->k[d]; c++) {
				uint32_t q = pos_of[s] + (c - kr_topo_coord(t, pos_of[s], d)) *
					     t->stride[d];
				int32_t b = at[q];

				if (b < 0 || (uint32_t)b == s || !adjacent(t, pos_of[s], q))
					continue;
				n++;
				if (other && !adjacent(other, other_pos[s], other_pos[b]))
					*broken = 1;
			}
	}
	return n;
}

/* MiKANT: the stages are the truth's and the groups too, or all swapped
 * (which is 0 is a choice); the links fit the rules (tc_assert_valid). */
static const char *mk_iso(const struct kr_fabric *f, const struct tc_truth *tr,
			  const struct kr_topo *t)
{
	unsigned sd = t->ndim - 2;
	int swap = -1;

	for (uint32_t s = 0; s < f->nsw; s++) {
		unsigned a = t->sw_pos[s] / t->stride[sd], b = tr->pos[s] / t->stride[sd];

		if (a % t->k[sd] != b % t->k[sd])
			return "a switch on another stage";
		if (swap < 0)
			swap = a / t->k[sd] != b / t->k[sd];
		if ((a / t->k[sd] ^ (unsigned)swap) != b / t->k[sd])
			return "the groups differ";
	}
	return NULL;
}

const char *tc_iso(const struct kr_fabric *f, const struct tc_truth *tr,
		   const struct kr_topo *t)
{
	int broken = 0;
	uint64_t e1, e2;

	if (t->family == KR_FAMILY_MIKANT)
		return tr->grid.family == t->family ? mk_iso(f, tr, t)
		       : "another family";
	for (uint32_t s = 0; s < f->nsw; s++)
		if ((tr->pos[s] == KR_NONE) != (t->sw_pos[s] == KR_NONE))
			return "routers and crossbars differ";
	e1 = grid_pairs(&tr->grid, tr->at, tr->pos, f->nsw, t, t->sw_pos, &broken);
	if (broken)
		return "grid neighbours are not neighbours any more";
	e2 = grid_pairs(t, t->pos_sw, t->sw_pos, f->nsw, NULL, NULL, &broken);
	if (e1 != e2)
		return "new grid neighbours";
	for (uint32_t x = 0; x < f->nsw; x++) {
		unsigned d = tr->xdim[x];

		for (unsigned c = 0; d != KR_NO_DIM && c < tr->grid.k[d]; c++) {
			int32_t r = tr->at[tr->xline[x] + c * tr->grid.stride[d]];
			unsigned rd = t->sw_xdim[x];

			if (r >= 0 && t->sw_pos[r] - kr_topo_coord(t, t->sw_pos[r], rd) *
			    t->stride[rd] != t->sw_xline[x])
				return "a crossbar's line moved apart";
		}
	}
	return NULL;
}

void tc_assert_same(const struct kr_fabric *fa, const struct kr_topo *a,
		    const struct kr_fabric *fb, const struct kr_topo *b)
{
	assert_int_equal(a->family, b->family);
	assert_int_equal(a->ndim, b->ndim);
	for (unsigned d = 0; d < a->ndim; d++) {
		assert_int_equal(a->k[d], b->k[d]);
		assert_int_equal(a->wrap[d], b->wrap[d]);
	}
	for (uint32_t s = 0; s < fa->nsw; s++) {
		uint32_t o = kr_node_by_guid(fb, fa->guid[s]);

		if (o == KR_NONE)
			continue;
		assert_int_equal(a->sw_pos[s], b->sw_pos[o]);
		assert_int_equal(a->sw_xdim[s], b->sw_xdim[o]);
		assert_int_equal(a->sw_xline[s], b->sw_xline[o]);
	}
}
