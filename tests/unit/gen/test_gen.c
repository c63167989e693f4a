/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The generator's fabrics against their definitions, checked through the
 * ground-truth coordinates it reports (shuffled or not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "mikant_rules.h"

static unsigned coord(const struct kr_topo *t, uint32_t pos, unsigned d)
{
	return kr_topo_coord(t, pos, d);
}

static unsigned sw_links(const struct kr_fabric *f)
{
	unsigned n = 0;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)
		n += f->peer[s] >= 0 && (uint32_t)f->peer[s] < f->port0[f->nsw];
	return n / 2;
}

/* Every router has one link to the crossbar of each dimension, and that
 * crossbar's line is the router's line. */
static void assert_kns(const struct kr_fabric *f, const struct kr_topo *t)
{
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned per_dim[KR_MAX_DIM] = { 0 };

		if (t->sw_pos[sw] == KR_NONE)
			continue;
		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			uint32_t nb;

			if (f->peer[s] < 0 || !kr_is_switch(f, f->owner[f->peer[s]]))
				continue;
			nb = f->owner[f->peer[s]];
			assert_int_not_equal(t->sw_xdim[nb], KR_NO_DIM);
			per_dim[t->sw_xdim[nb]]++;
			assert_int_equal(t->sw_pos[sw] - coord(t, t->sw_pos[sw],
				t->sw_xdim[nb]) * t->stride[t->sw_xdim[nb]],
				t->sw_xline[nb]);
		}
		for (unsigned d = 0; d < t->ndim; d++)
			assert_int_equal(per_dim[d], 1);
	}
}

static void test_kns_4ary_2direct(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 4 }, .p = 2 };
	struct kr_fabric f;
	struct kr_topo t;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	assert_int_equal(f.nsw, 16 + 8);
	assert_int_equal(f.nnode - f.nsw, 32);
	assert_int_equal(sw_links(&f), 32);
	assert_kns(&f, &t);
	o.shuffle = 1;
	o.shuffle_seed = 7;
	kr_fabric_free(&f);
	kr_topo_free(&t);
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	assert_kns(&f, &t);
	assert_int_equal(strncmp(kr_node_name(&f, 0), "sw-", 3), 0);
	kr_fabric_free(&f);
	kr_topo_free(&t);
}

/* Neighbours differ by one step in exactly one dimension; count them. */
static void assert_grid(const struct kr_fabric *f, const struct kr_topo *t,
			unsigned want_min, unsigned want_max)
{
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		unsigned deg = 0;

		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			uint32_t nb, a, b, diff = 0;

			if (f->peer[s] < 0 || !kr_is_switch(f, f->owner[f->peer[s]]))
				continue;
			nb = f->owner[f->peer[s]];
			a = t->sw_pos[sw];
			b = t->sw_pos[nb];
			for (unsigned d = 0; d < t->ndim; d++) {
				unsigned ca = coord(t, a, d), cb = coord(t, b, d);
				unsigned step = (cb + t->k[d] - ca) % t->k[d];

				if (ca == cb)
					continue;
				diff++;
				assert_true(step == 1 || step == t->k[d] - 1);
				if (!t->wrap[d])
					assert_true(ca + 1 == cb || cb + 1 == ca);
			}
			assert_int_equal(diff, 1);
			deg++;
		}
		assert_in_range(deg, want_min, want_max);
	}
}

static void test_torus_and_mesh(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 4, 4, 4 }, .wrap = { 1, 1, 1 }, .p = 1 };
	struct kr_fabric f;
	struct kr_topo t;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	assert_int_equal(f.nsw, 64);
	assert_int_equal(sw_links(&f), 64 * 3);
	assert_grid(&f, &t, 6, 6);
	kr_fabric_free(&f);
	kr_topo_free(&t);

	o = (struct kr_gen_opts){ .family = KR_FAMILY_MESH, .ndim = 2,
				  .k = { 5, 3 }, .p = 2, .shuffle = 1,
				  .shuffle_seed = 3 };
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	assert_int_equal(sw_links(&f), 4 * 3 + 5 * 2);
	assert_grid(&f, &t, 2, 4);
	kr_fabric_free(&f);
	kr_topo_free(&t);
}

/* A ring of 2 has two links per pair; --parallel multiplies them. */
static void test_torus_k2_parallel(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 2, 3 }, .wrap = { 1, 1 }, .p = 0,
				 .parallel = 2 };
	struct kr_fabric f;
	struct kr_topo t;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	assert_int_equal(f.nnode, 6);
	assert_int_equal(sw_links(&f), 6 * 2 * 2);
	assert_grid(&f, &t, 8, 8);
	kr_fabric_free(&f);
	kr_topo_free(&t);
}

static void test_faults_listed_and_absent(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 1,
				 .fail = 5, .fail_seed = 11, .shuffle = 1 };
	struct kr_fabric f;
	struct kr_gen_fault *x;
	unsigned nx;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, &x, &nx, NULL), KR_OK);
	assert_int_equal(nx, 5);
	assert_int_equal(sw_links(&f), 32 - 5);
	for (unsigned i = 0; i < nx; i++) {
		assert_true(kr_is_switch(&f, x[i].node_a));
		assert_int_equal(f.peer[kr_port(&f, x[i].node_a, x[i].port_a)], -1);
		assert_int_equal(f.peer[kr_port(&f, x[i].node_b, x[i].port_b)], -1);
	}
	free(x);
	kr_fabric_free(&f);
}

static void test_bad_options(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 4, 3 }, .p = 1 };
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	unsigned k[KR_MAX_DIM], n;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, &d), KR_EINVAL);
	assert_int_equal(kr_parse_dims("4x4x4", k, &n, &d), KR_OK);
	assert_int_equal(n, 3);
	assert_int_equal(kr_parse_dims("4x", k, &n, &d), KR_EINVAL);
	assert_int_equal(kr_parse_dims("4y4", k, &n, &d), KR_EINVAL);
	assert_int_equal(kr_parse_dims("0x4", k, &n, &d), KR_EINVAL);
	assert_int_equal(kr_parse_dims("2x2x2x2x2x2x2x2x2", k, &n, &d), KR_EINVAL);
}

static void test_embedded_lids(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_KNS, .ndim = 2,
				 .k = { 3, 3 }, .p = 1, .assign_lids = 1,
				 .lmc = 1 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	for (uint32_t n = 0; n < f.nnode; n++) {
		uint32_t s = kr_is_switch(&f, n) ? f.port0[n] : f.port0[n] + 1;

		assert_int_not_equal(f.lid[s], 0);
		assert_int_equal(f.lmc[s], kr_is_switch(&f, n) ? 0 : 1);
		assert_int_equal(kr_port_by_lid(&f, f.lid[s]), s);
	}
	kr_fabric_free(&f);
}

/* 131072 shuffled nodes: names derive from the disguised GUIDs, so they
 * cannot collide the way random 32-bit tags would at this size. */
static void test_big_shuffle_unique_names(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 64, 64, 16 }, .wrap = { 1, 1, 1 },
				 .p = 1, .shuffle = 1, .shuffle_seed = 77 };
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, &d), KR_OK);
	assert_int_equal(f.nnode, 131072);
	kr_fabric_free(&f);
}

static void test_mikant_rules(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 4, 3 }, { 3, 4 } };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		unsigned k = shape[i][0], n = shape[i][1], kn = 1;
		struct kr_gen_opts o = { .family = KR_FAMILY_MIKANT, .ndim = n,
					 .k = { k }, .shuffle = 1,
					 .shuffle_seed = 5 + i };
		struct kr_fabric f;
		struct kr_topo t;

		for (unsigned j = 0; j < n; j++)
			kn *= k;
		assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
		assert_int_equal(f.nsw, (2 * n - 2) * kn / k);
		assert_int_equal(f.nnode - f.nsw, 2 * kn);
		/* (2n - 1) k^n links, 2k^n of them to CAs */
		assert_int_equal(sw_links(&f), (2 * n - 3) * kn);
		mk_assert_rules(&f, t.sw_pos, k, n, true);
		kr_fabric_free(&f);
		kr_topo_free(&t);
	}
}

/* Unshuffled names are the slides' addresses. */
static void test_mikant_names(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_MIKANT, .ndim = 3,
				 .k = { 3 } };
	struct kr_fabric f;
	struct kr_topo t;
	char want[32];

	(void)state;
	assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_OK);
	for (uint32_t sw = 0; sw < f.nsw; sw++) {
		struct mk_addr a = mk_addr(3, 3, t.sw_pos[sw]);

		snprintf(want, sizeof(want), "sw(%u,%u,%u%u)", a.group, a.stage,
			 a.dig[1], a.dig[0]);
		assert_string_equal(kr_node_name(&f, sw), want);
	}
	for (uint32_t ca = f.nsw; ca < f.nnode; ca++) {
		uint32_t s = f.port0[ca] + 1, sw = f.owner[f.peer[s]];
		struct mk_addr a = mk_addr(3, 3, t.sw_pos[sw]);

		snprintf(want, sizeof(want), "ca(%u,%u%u%u)", a.group,
			 kr_port_num(&f, (uint32_t)f.peer[s]) - 1, a.dig[1],
			 a.dig[0]);
		assert_string_equal(kr_node_name(&f, ca), want);
	}
	kr_fabric_free(&f);
	o.k[0] = 1;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_EINVAL);
	o.k[0] = 3;
	o.ndim = 1;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_EINVAL);
	kr_topo_free(&t);
}

/* A Clos switch by its name: group (2 for a middle switch), stage
 * (n - 1 for one) and digits D_{n-2} .. D_0 as printed. */
struct clos_sw {
	unsigned g, l;
	char dig[8];
};

static struct clos_sw clos_sw(const struct kr_fabric *f, uint32_t sw,
			      unsigned n)
{
	struct clos_sw c = { 2, n - 1, "" };

	if (sscanf(kr_node_name(f, sw), "top(%7[0-9])", c.dig) != 1)
		assert_int_equal(sscanf(kr_node_name(f, sw), "sw(%u,%u,%7[0-9])",
					&c.g, &c.l, c.dig), 3);
	assert_int_equal(strlen(c.dig), n - 1);
	return c;
}

/* The two ends of a link differ in the digit the lower one's stage
 * replaces (D_L, printed at n - 2 - L), nowhere else. */
static void assert_clos_link(const struct clos_sw *a, const struct clos_sw *b,
			     unsigned n)
{
	assert_int_equal(b->l, a->l + 1);
	assert_true(b->g == a->g || (b->g == 2 && a->l == n - 2));
	for (unsigned i = 0; i + 1 < n; i++)
		if (i != n - 2 - a->l)
			assert_int_equal(a->dig[i], b->dig[i]);
}

/* Every switch has 2k linked ports: a leaf k CAs, a middle switch k
 * links down into each group, the rest k down and k up. */
static void assert_clos(const struct kr_fabric *f, unsigned k, unsigned n)
{
	for (uint32_t sw = 0; sw < f->nsw; sw++) {
		struct clos_sw a = clos_sw(f, sw, n);
		unsigned up = 0, down[3] = { 0 }, ca = 0;

		assert_int_equal(f->nports[sw], 2 * k);
		for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++) {
			uint32_t nb = f->owner[f->peer[s]];
			struct clos_sw b;

			assert_true(f->peer[s] >= 0);
			if (!kr_is_switch(f, nb)) {
				assert_int_equal(a.l, 0);
				ca++;
				continue;
			}
			b = clos_sw(f, nb, n);
			if (b.l > a.l) {
				assert_clos_link(&a, &b, n);
				up++;
			} else {
				assert_clos_link(&b, &a, n);
				down[b.g]++;
			}
		}
		assert_int_equal(up, a.g == 2 ? 0 : k);
		assert_int_equal(down[0] + down[1] + ca, a.g == 2 ? 2 * k : k);
		assert_true(a.g != 2 || down[0] == k);
	}
}

static void test_clos(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 2, 4 }, { 3, 2 } };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		unsigned k = shape[i][0], n = shape[i][1], kn = 1;
		struct kr_gen_opts o = { .family = KR_FAMILY_MIKANT, .clos = 1,
					 .ndim = n, .k = { k } };
		struct kr_fabric f;
		struct kr_topo t;

		for (unsigned j = 0; j < n; j++)
			kn *= k;
		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
		assert_int_equal(f.nsw, (2 * n - 1) * kn / k);
		assert_int_equal(f.nnode - f.nsw, 2 * kn);
		assert_int_equal(sw_links(&f), 2 * (n - 1) * kn);
		assert_clos(&f, k, n);
		kr_fabric_free(&f);
		o.shuffle = o.fail = 1;
		assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
		assert_int_equal(sw_links(&f), 2 * (n - 1) * kn - 1);
		kr_fabric_free(&f);
		/* nothing recognises a Clos, so there is no truth to give */
		assert_int_equal(kr_gen(&o, &f, &t, NULL, NULL, NULL), KR_EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kns_4ary_2direct),
		cmocka_unit_test(test_torus_and_mesh),
		cmocka_unit_test(test_torus_k2_parallel),
		cmocka_unit_test(test_faults_listed_and_absent),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_embedded_lids),
		cmocka_unit_test(test_big_shuffle_unique_names),
		cmocka_unit_test(test_mikant_rules),
		cmocka_unit_test(test_mikant_names),
		cmocka_unit_test(test_clos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
