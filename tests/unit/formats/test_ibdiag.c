/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibdiagnet's ibdiagnet.slvl, .psl and .sm, written by hand from the
 * formats ibdmchk(1) documents ("swguid iport oport 0x(sl0)(sl1)...",
 * "src_node_guid dlid sl") and ibdiagnet 1.5.7's SM report: the nibble
 * order of a map, a node's ports as the sources of a .psl line, the
 * master's LID; every broken line refused with its number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

/* Switches 0x10 (LID 1) and 0x20 (LID 2) on ports 2-2; a two-port HCA
 * 0x100 (ports 1 and 2, LIDs 3 and 4) on both of 0x10's ports 1 and
 * 0x20's port 1. */
static const char net[] =
	"switchguid=0x10\n"
	"Switch 3 \"sw1\" # \"sw1\" base port 0 lid 1 lmc 0\n"
	"[1] \"hca\"[1]\n"
	"[2] \"sw2\"[2]\n"
	"switchguid=0x20\n"
	"Switch 3 \"sw2\" # \"sw2\" base port 0 lid 2 lmc 0\n"
	"[1] \"hca\"[2]\n"
	"[2] \"sw1\"[2]\n"
	"caguid=0x100\n"
	"Hca 2 \"hca\"\n"
	"[1](101) \"sw1\"[1] # lid 3 lmc 0\n"
	"[2](102) \"sw2\"[1] # lid 4 lmc 0\n";

static void setup(struct kr_fabric *f, struct kr_tables *t)
{
	struct kr_diag d = { 0 };

	if (kr_net_parse(net, strlen(net), "t.net", f, &d))
		fail_msg("t.net:%u: %s", d.line, d.msg);
	assert_int_equal(kr_tables_init(t, f, f->max_lid + 1, 0, 0), KR_OK);
}

static void test_slvl(void **state)
{
	static const char slvl[] =
		"0x0000000000000010 1 2 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n"
		"0x0000000000000020 0 1 0x10 0x00 0x00 0x00 0x00 0x00 0x00 0x0f\n";
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_diag d = { 0 };
	uint64_t *m;

	(void)state;
	setup(&f, &t);
	assert_int_equal(kr_sl2vl_parse(slvl, strlen(slvl), &f, &t, &d), KR_OK);
	m = kr_tables_sl2vl_ref(&f, &t, kr_node_by_guid(&f, 0x10), 1, 2);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_int_equal(kr_map_vl(*m, sl), sl % 8);
	m = kr_tables_sl2vl_ref(&f, &t, kr_node_by_guid(&f, 0x20), 0, 1);
	assert_int_equal(kr_map_vl(*m, 0), 1);	/* high nibble: the even SL */
	assert_int_equal(kr_map_vl(*m, 1), 0);
	assert_int_equal(kr_map_vl(*m, 15), 15);
	assert_int_equal(t.sl2vl_given[m - t.sl2vl], 1);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static void test_psl(void **state)
{
	static const char psl[] =
		"0x0000000000000100 1 2\n"	/* from both HCA ports */
		"0x0000000000000100 2 2\n"
		"0x0000000000000010 2 5\n"	/* a switch: its port 0 */
		"0x0000000000000020 1 5\n"
		"0x0000000000000010 3 1\n"
		"0x0000000000000020 3 1\n"
		"0x0000000000000010 4 1\n"
		"0x0000000000000020 4 1\n";
	struct kr_fabric f;
	struct kr_tables t;
	struct kr_diag d = { 0 };

	(void)state;
	setup(&f, &t);
	assert_int_equal(kr_path_sl_parse(psl, strlen(psl), &f, &t, &d), KR_OK);
	assert_int_equal(kr_tables_path_sl(&t, 3, 1), 2);
	assert_int_equal(kr_tables_path_sl(&t, 4, 2), 2);
	assert_int_equal(kr_tables_path_sl(&t, 1, 2), 5);
	assert_int_equal(kr_tables_path_sl(&t, 2, 1), 5);
	assert_int_equal(kr_tables_path_sl(&t, 1, 3), 1);
	/* counted as PathRecords: every CA source has DLID 1's SL, the
	 * switch that differs keeps a pair of its own */
	assert_int_equal(t.sl_given[1], KR_SL_CAS);
	assert_true(kr_tables_pair_given(&t, 2, 1));
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

static void test_sm(void **state)
{
	static const char sm[] =
		"ibdiagnet fabric SM report\n\n"
		"  SM - standby\n"
		"    sw2 lid=0x0002 guid=0x0000000000000020 dev=23108 priority:3\n\n"
		"  SM - master\n"
		"    hca/P2 lid=0x0004 guid=0x0000000000000102 dev=25418 priority:0\n";
	uint16_t lid;
	struct kr_diag d = { 0 };

	(void)state;
	assert_int_equal(kr_ibdiag_sm_parse(sm, strlen(sm), &lid, &d), KR_OK);
	assert_int_equal(lid, 4);
	assert_int_equal(kr_ibdiag_sm_parse(sm, 80, &lid, &d), KR_EPARSE);
	assert_non_null(strstr(d.msg, "no master SM"));
	assert_int_equal(kr_ibdiag_sm_parse("  SM - master\n    hca lid=x\n",
					    27, &lid, &d), KR_EPARSE);
	assert_int_equal(d.line, 2);
}

/* ibdiagnet2.lst prints no description, not even the braces. */
static void test_lst_without_desc(void **state)
{
	static const char lst[] =
		"{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 "
		"PortGUID:0002c90300165e61 VenID:000002c9 DevID:1003 Rev:00000000  "
		"LID:0005 PN:01 } { SW Ports:24 SystemGUID:0002c90300688830 "
		"NodeGUID:0002c90300688830 PortGUID:0002c90300688830 VenID:000002c9 "
		"DevID:c738 Rev:000000a1  LID:0002 PN:14 } PHY=4x LOG=ACT SPD=2.5\n";
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint32_t h;

	(void)state;
	assert_int_equal(kr_net_parse(lst, strlen(lst), "ibdiagnet2.lst", &f, &d),
			 KR_OK);
	h = kr_node_by_guid(&f, 0x0002c90300165e60);
	assert_int_equal(f.lid[kr_port(&f, h, 1)], 5);
	assert_int_equal(f.peer[kr_port(&f, h, 1)],
			 (int32_t)kr_port(&f, kr_node_by_guid(&f, 0x0002c90300688830), 0x14));
	assert_string_equal(kr_node_label(&f, h).s, "H-0002c90300165e60");
	kr_fabric_free(&f);
}

static void test_errors(void **state)
{
	static const struct { int psl; const char *text; unsigned line;
			      const char *msg; } bad[] = {
		{ 0, "0x0000000000000010 1 2 0x01 0x23 0x45 0x67 0x01 0x23 0x45\n",
		  1, "8 bytes" },
		{ 0, "0x0000000000000010 1 2 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n"
		     "0x0000000000000100 0 1 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n",
		  2, "not a switch's node GUID" },
		{ 0, "0x0000000000000010 1 9 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n",
		  1, "port 9 beyond switch" },
		{ 0, "0x0000000000000010 1 2 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n"
		     "0x0000000000000010 1 2 0x01 0x23 0x45 0x67 0x01 0x23 0x45 0x67\n",
		  2, "given twice (first on line 1)" },
		{ 1, "0x0000000000000100 1 2\n0x0000000000000999 2 2\n", 2,
		  "unknown node GUID 0x0000000000000999" },
		{ 1, "0x0000000000000100 1 16\n", 1, "an SL from 0 to 15" },
		{ 1, "0x0000000000000100 77 1\n", 1, "unknown DLID 77" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kr_fabric f;
		struct kr_tables t;
		struct kr_diag d = { 0 };
		const char *s = bad[i].text;
		int rc;

		setup(&f, &t);
		rc = bad[i].psl ? kr_path_sl_parse(s, strlen(s), &f, &t, &d)
				: kr_sl2vl_parse(s, strlen(s), &f, &t, &d);
		if (rc != KR_EPARSE || d.line != bad[i].line ||
		    !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
		kr_tables_free(&t);
		kr_fabric_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slvl),
		cmocka_unit_test(test_psl),
		cmocka_unit_test(test_sm),
		cmocka_unit_test(test_lst_without_desc),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
