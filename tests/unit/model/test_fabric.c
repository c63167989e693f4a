/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric builder's consistency rules and the GUID / LID indexes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

/* sw "A" (4 ports) - sw "B" (4 ports) on A[3]-B[3]; CAs "h1" on A[1], "h2"
 * on B[1]. Records in CA-first order to prove switches get renumbered. */
static struct kr_fabric_builder *two_switches(int *a, int *b, int *h1, int *h2)
{
	struct kr_fabric_builder *fb = kr_fb_new();

	*h1 = kr_fb_add_node(fb, KR_CA, 1, 0x100, "h1", "host one", 1, NULL);
	*a = kr_fb_add_node(fb, KR_SWITCH, 4, 0x200, "A", NULL, 2, NULL);
	*b = kr_fb_add_node(fb, KR_SWITCH, 4, 0x300, "B", NULL, 3, NULL);
	*h2 = kr_fb_add_node(fb, KR_CA, 1, 0x400, "h2", NULL, 4, NULL);
	assert_int_equal(kr_fb_link(fb, *a, 1, *h1, 1, 5, NULL), KR_OK);
	assert_int_equal(kr_fb_link(fb, *b, 1, *h2, 1, 6, NULL), KR_OK);
	assert_int_equal(kr_fb_link(fb, *a, 3, *b, 3, 7, NULL), KR_OK);
	return fb;
}

static void test_builder_switches_first(void **state)
{
	int a, b, h1, h2;
	struct kr_fabric_builder *fb = two_switches(&a, &b, &h1, &h2);
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_fb_finish(fb, &f, NULL), KR_OK);
	assert_int_equal(f.nsw, 2);
	assert_int_equal(f.nnode, 4);
	assert_string_equal(kr_node_name(&f, 0), "A");
	assert_string_equal(kr_node_name(&f, 1), "B");
	assert_string_equal(kr_node_desc(&f, 2), "host one");
	assert_string_equal(kr_node_desc(&f, 1), "B");	/* desc defaults to name */
	assert_int_equal(kr_fb_final_id(fb, h2), 3);
	/* labels quote a description only when it says more than the name */
	assert_string_equal(kr_node_label(&f, 2).s, "h1 \"host one\"");
	assert_string_equal(kr_node_label(&f, 1).s, "B");
	assert_string_equal(kr_port_label(&f, kr_port(&f, 2, 1)).s,
			    "h1 \"host one\"[1]");
	assert_string_equal(kr_port_label(&f, kr_port(&f, 0, 3)).s, "A[3]");
	/* A[3] <-> B[3] both ways, and A[2] unlinked */
	assert_int_equal(f.peer[kr_port(&f, 0, 3)], (int)kr_port(&f, 1, 3));
	assert_int_equal(f.peer[kr_port(&f, 1, 3)], (int)kr_port(&f, 0, 3));
	assert_int_equal(f.peer[kr_port(&f, 0, 2)], -1);
	assert_int_equal(kr_port_num(&f, kr_port(&f, 2, 1)), 1);
	assert_int_equal(kr_node_by_guid(&f, 0x300), 1);
	assert_int_equal(kr_node_by_guid(&f, 0x999), KR_NONE);
	/* CA port GUID = node GUID + port number, as ibsim makes them */
	assert_int_equal(kr_port_by_guid(&f, 0x101), kr_port(&f, 2, 1));
	assert_int_equal(kr_port_by_guid(&f, 0x200), kr_port(&f, 0, 0));
	kr_fabric_free(&f);
	kr_fb_free(fb);
}

static void test_builder_link_twice_ok_conflict_fails(void **state)
{
	int a, b, h1, h2;
	struct kr_fabric_builder *fb = two_switches(&a, &b, &h1, &h2);
	struct kr_diag d = { 0 };

	(void)state;
	assert_int_equal(kr_fb_link(fb, b, 3, a, 3, 8, &d), KR_OK);
	assert_int_equal(kr_fb_link(fb, b, 3, a, 4, 9, &d), KR_EPARSE);
	assert_int_equal(d.line, 9);
	assert_non_null(strstr(d.msg, "conflicts"));
	assert_int_equal(kr_fb_link(fb, a, 5, b, 4, 10, &d), KR_EPARSE);
	assert_int_equal(d.line, 10);
	assert_non_null(strstr(d.msg, "port 5 beyond \"A\" (4 ports)"));
	assert_int_equal(kr_fb_link(fb, a, 2, a, 2, 11, &d), KR_EPARSE);
	kr_fb_free(fb);
}

static void test_builder_duplicates(void **state)
{
	struct kr_fabric_builder *fb = kr_fb_new();
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_fb_add_node(fb, KR_SWITCH, 4, 1, "X", NULL, 3, &d), 0);
	assert_int_equal(kr_fb_add_node(fb, KR_SWITCH, 4, 2, "X", NULL, 9, &d),
			 KR_EPARSE);
	assert_int_equal(d.line, 9);
	assert_non_null(strstr(d.msg, "first on line 3"));
	assert_int_equal(kr_fb_add_node(fb, KR_SWITCH, 4, 1, "Y", NULL, 12, &d), 1);
	assert_int_equal(kr_fb_finish(fb, &f, &d), KR_EPARSE);
	assert_int_equal(d.line, 12);
	assert_non_null(strstr(d.msg, "duplicate node GUID"));
	kr_fb_free(fb);
}

/* Enough nodes to make the name hash grow several times. */
static void test_builder_many_names(void **state)
{
	struct kr_fabric_builder *fb = kr_fb_new();
	char name[32];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(kr_fb_add_node(fb, KR_SWITCH, 2, 10 + i, name,
						NULL, 0, NULL), i);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(kr_fb_find(fb, name), i);
	}
	assert_int_equal(kr_fb_find(fb, "n5000"), -1);
	kr_fb_free(fb);
}

static void test_lids_assign_and_conflict(void **state)
{
	int a, b, h1, h2;
	struct kr_fabric_builder *fb = two_switches(&a, &b, &h1, &h2);
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_fb_set_port(fb, h2, 1, 0, 8, 2, 1, &d), KR_OK);
	assert_int_equal(kr_fb_finish(fb, &f, &d), KR_OK);
	assert_int_equal(f.max_lid, 11);
	assert_int_equal(kr_port_by_lid(&f, 10), kr_port(&f, 3, 1));
	assert_int_equal(kr_fabric_assign_lids(&f, 1, &d), KR_OK);
	/* switches 1, 2; h1 aligned to 2 -> 4..5 would be fine but 3 is odd */
	assert_int_equal(f.lid[kr_port(&f, 0, 0)], 1);
	assert_int_equal(f.lid[kr_port(&f, 1, 0)], 2);
	assert_int_equal(f.lid[kr_port(&f, 2, 1)], 4);
	assert_int_equal(f.lmc[kr_port(&f, 2, 1)], 1);
	assert_int_equal(f.lid[kr_port(&f, 3, 1)], 8);	/* kept */
	assert_int_equal(kr_port_by_lid(&f, 5), kr_port(&f, 2, 1));
	assert_int_equal(kr_port_by_lid(&f, 3), KR_NONE);
	f.lid[kr_port(&f, 1, 0)] = 9;	/* inside h2's LMC range */
	assert_int_equal(kr_fabric_index_lids(&f, &d), KR_EPARSE);
	assert_non_null(strstr(d.msg, "LID 9 used by"));
	f.lid[kr_port(&f, 1, 0)] = 0xC000;
	assert_int_equal(kr_fabric_index_lids(&f, &d), KR_EPARSE);
	kr_fabric_free(&f);
	kr_fb_free(fb);
}

/* A LID clash found while indexing names the record that repeats it. */
static void test_lid_clash_names_line(void **state)
{
	int a, b, h1, h2;
	struct kr_fabric_builder *fb = two_switches(&a, &b, &h1, &h2);
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_fb_set_port(fb, h1, 1, 0, 7, 0, 1, &d), KR_OK);
	assert_int_equal(kr_fb_set_port(fb, h2, 1, 0, 7, 0, 4, &d), KR_OK);
	assert_int_equal(kr_fb_finish(fb, &f, &d), KR_EPARSE);
	assert_int_equal(d.line, 4);	/* h2's record */
	assert_non_null(strstr(d.msg, "LID 7 used by"));
	kr_fb_free(fb);
}

static void test_tables_sl2vl_and_pairs(void **state)
{
	int a, b, h1, h2;
	struct kr_fabric_builder *fb = two_switches(&a, &b, &h1, &h2);
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_diag d = { 0 };
	uint64_t *m;

	(void)state;
	assert_int_equal(kr_fb_finish(fb, &f, NULL), KR_OK);
	assert_int_equal(kr_tables_init(&t, &f, 8, 1, 1), KR_OK);
	assert_int_equal(kr_lft_port(&t, 1, 7), KR_NO_PORT);
	m = kr_tables_sl2vl_ref(&f, &t, 0, 3, 1);
	*m = kr_map_set(*m, 5, 3);
	assert_int_equal(kr_map_vl(kr_tables_sl2vl(&f, &t, 0, 3, 1), 5), 3);
	assert_int_equal(kr_map_vl(kr_tables_sl2vl(&f, &t, 0, 1, 3), 5), 0);
	assert_null(kr_tables_sl2vl_ref(&f, &t, 0, 5, 1));
	t.dlid_sl[4] = 2;
	t.pair_sl = calloc(3, sizeof(*t.pair_sl));
	t.pair_sl[0] = (struct kr_sl_pair){ 9, 4, 7 };
	t.pair_sl[1] = (struct kr_sl_pair){ 1, 4, 6 };
	t.pair_sl[2] = (struct kr_sl_pair){ 9, 4, 7 };
	t.npair_sl = 3;
	assert_int_equal(kr_tables_sort_pairs(&t, &d), KR_OK);
	assert_int_equal(t.npair_sl, 2);
	assert_int_equal(kr_tables_path_sl(&t, 9, 4), 7);
	assert_int_equal(kr_tables_path_sl(&t, 1, 4), 6);
	assert_int_equal(kr_tables_path_sl(&t, 2, 4), 2);
	t.pair_sl[1].sl = 1;	/* (9,4) now 7 and, appended, 1 */
	t.pair_sl = realloc(t.pair_sl, 3 * sizeof(*t.pair_sl));
	t.pair_sl[2] = (struct kr_sl_pair){ 9, 4, 7 };
	t.pair_sl[1] = (struct kr_sl_pair){ 9, 4, 1 };
	t.npair_sl = 3;
	assert_int_equal(kr_tables_sort_pairs(&t, &d), KR_EPARSE);
	kr_tables_free(&t);
	kr_fabric_free(&f);
	kr_fb_free(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builder_switches_first),
		cmocka_unit_test(test_builder_link_twice_ok_conflict_fails),
		cmocka_unit_test(test_builder_duplicates),
		cmocka_unit_test(test_builder_many_names),
		cmocka_unit_test(test_lids_assign_and_conflict),
		cmocka_unit_test(test_lid_clash_names_line),
		cmocka_unit_test(test_tables_sl2vl_and_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
