/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Multicast forwarding table dumps: the writer on chk_t33 (the shuffled 3x3
 * torus of test_dump.c) by hand, the readers on real output of OpenSM and
 * infiniband-diags (tests/data/mcast_t33.notes tells how it was made). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

static char *data_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("KR_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/data/%s", dir ? dir : ".", name);
	return path;
}

static int setup_t33(void **state)
{
	struct kr_fabric *f = calloc(1, sizeof(*f));

	assert_int_equal(kr_net_read(data_path("chk_t33.ibnd"), f, NULL), KR_OK);
	*state = f;
	return 0;
}

static int teardown_fabric(void **state)
{
	kr_fabric_free(*state);
	free(*state);
	return 0;
}

static char *load(const char *name, size_t *len)
{
	char *buf;

	assert_int_equal(kr_slurp(data_path(name), KR_IN_STREAM, &buf, len, NULL), KR_OK);
	return buf;
}

static int setup_mcast(void **state)
{
	struct kr_fabric *f = calloc(1, sizeof(*f));

	assert_int_equal(kr_net_read(data_path("mcast_t33.ibnd"), f, NULL),
			 KR_OK);
	*state = f;
	return 0;
}

static uint32_t sw_of_lid(const struct kr_fabric *f, unsigned lid)
{
	return f->owner[kr_port_by_lid(f, lid)];
}

static void set_port(const struct kr_fabric *f, struct kr_mgroup *g,
		     unsigned lid, unsigned port)
{
	uint32_t sw = sw_of_lid(f, lid);

	g->ports[(size_t)sw * KR_MCAST_WORDS + port / 64] |= 1ull << port % 64;
}

static char *mft_text(const struct kr_fabric *f, const struct kr_tables *t)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_int_equal(kr_mft_write(out, f, t), KR_OK);
	fclose(out);
	return buf;
}

/* Switches in OpenSM's order (LID 4's GUID ...1b04 sorts before LID 1's
 * ...7680 byte-swapped, as in chk_t33-lfts.dump), MLIDs ascending within a
 * switch, a group with no ports nowhere, ports ascending with OpenSM's
 * spacing. Worked by hand from osm_dump.c's format. */
static void test_write_hand_worked(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_mgroup g[3] = { { .mlid = 0xc000 }, { .mlid = 0xc001 },
				  { .mlid = 0xc002 } };
	struct kr_tables t = { .mgroup = g, .nmgroup = 3 };
	char *text;

	for (unsigned i = 0; i < 3; i++)
		g[i].ports = calloc((size_t)f->nsw * KR_MCAST_WORDS,
				    sizeof(uint64_t));
	set_port(f, &g[0], 1, 3);
	set_port(f, &g[0], 1, 1);
	set_port(f, &g[0], 4, 0);
	set_port(f, &g[0], 4, 2);
	set_port(f, &g[1], 4, 5);
	set_port(f, &g[1], 4, 4);
	text = mft_text(f, &t);
	assert_string_equal(text,
			    "\nSwitch 0x0002c9783aac1b04\nLID    : Out Port(s)\n"
			    "0xC000 : 0x000  0x002 \n"
			    "0xC001 : 0x004  0x005 \n"
			    "\nSwitch 0x0002c93bcb817680\nLID    : Out Port(s)\n"
			    "0xC000 : 0x001  0x003 \n");
	free(text);
	for (unsigned i = 0; i < 3; i++)
		free(g[i].ports);
}

static void read_mft(const struct kr_fabric *f, const char *name,
		     struct kr_tables *t)
{
	struct kr_diag d = { 0 };

	*t = (struct kr_tables){ 0 };
	if (kr_mft_read(data_path(name), f, t, &d))
		fail_msg("%s:%u: %s", name, d.line, d.msg);
}

/* The switch with LID 1 as the capture shows it: 0x002e in ibroute -n. */
static const unsigned sw1_ports[] = { 1, 2, 3, 5 };
static const uint16_t mlids[] = { 0xc000, 0xc00a, 0xc00c };

/* opensm.mcfdbs read and written again is the same file, byte for byte;
 * the groups are the three MLIDs with the masks the file shows. */
static void test_mcfdbs_round_trip(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *want = load("mcast_t33-mcfdbs.dump", &len), *text;
	uint32_t sw = sw_of_lid(f, 1);

	read_mft(f, "mcast_t33-mcfdbs.dump", &t);
	assert_int_equal(t.nmgroup, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(t.mgroup[i].mlid, mlids[i]);
		assert_int_equal(t.mgroup[i].sl_given, 0);
		for (unsigned p = 0, k = 0; p <= f->nports[sw]; p++) {
			bool in = k < 4 && sw1_ports[k] == p;

			assert_int_equal(kr_mgroup_has(&t.mgroup[i], sw, p), in);
			k += in;
		}
	}
	text = mft_text(f, &t);
	assert_int_equal(strlen(text), len);
	assert_memory_equal(text, want, len);
	free(text);
	free(want);
	kr_tables_free(&t);
}

static void assert_same_masks(const struct kr_fabric *f,
			      const struct kr_tables *a,
			      const struct kr_tables *b, uint32_t only_sw)
{
	assert_int_equal(a->nmgroup, b->nmgroup);
	for (size_t i = 0; i < a->nmgroup; i++) {
		assert_int_equal(a->mgroup[i].mlid, b->mgroup[i].mlid);
		for (uint32_t sw = 0; sw < f->nsw; sw++)
			for (unsigned w = 0; w < KR_MCAST_WORDS; w++) {
				size_t k = (size_t)sw * KR_MCAST_WORDS + w;

				assert_true(a->mgroup[i].ports[k] ==
					    (only_sw == KR_NONE || sw == only_sw
						     ? b->mgroup[i].ports[k] : 0));
			}
	}
}

/* dump_mfts has every switch's MFT, ibroute -M (x columns) and -M -n (hex
 * words) the one switch asked for: the same masks as OpenSM's file. */
static void test_diags_same_masks(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables osm, diag;

	read_mft(f, "mcast_t33-mcfdbs.dump", &osm);
	read_mft(f, "mcast_t33-dump_mfts.txt", &diag);
	assert_same_masks(f, &diag, &osm, KR_NONE);
	kr_tables_free(&diag);
	read_mft(f, "mcast_t33-ibroute-M.txt", &diag);
	assert_same_masks(f, &diag, &osm, sw_of_lid(f, 1));
	kr_tables_free(&diag);
	read_mft(f, "mcast_t33-ibroute-Mn.txt", &diag);
	assert_same_masks(f, &diag, &osm, sw_of_lid(f, 1));
	kr_tables_free(&diag);
	kr_tables_free(&osm);
}

/* saquery -g gives 0xC000 its SL (and names groups without MFT entries,
 * skipped); 0xC00A and 0xC00C stay assumed. */
static void test_saquery_g(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables t;

	read_mft(f, "mcast_t33-mcfdbs.dump", &t);
	t.mgroup[0].sl = 7;
	assert_int_equal(kr_mcast_sl_read(data_path("mcast_t33-saquery-g.txt"),
					  f, &t, NULL), KR_OK);
	assert_int_equal(t.mgroup[0].sl_given, 1);
	assert_int_equal(t.mgroup[0].sl, 0);
	assert_int_equal(t.mgroup[1].sl_given, 0);
	assert_int_equal(t.mgroup[2].sl_given, 0);
	kr_tables_free(&t);
}

static void expect_sl_error(const struct kr_fabric *f, struct kr_tables *t,
			    const char *text, unsigned line, const char *msg)
{
	struct kr_diag d = { 0 };

	assert_int_equal(kr_mcast_sl_parse(text, strlen(text), f, t, &d),
			 KR_EPARSE);
	assert_int_equal(d.line, line);
	if (!strstr(d.msg, msg))
		fail_msg("\"%s\" lacks \"%s\"", d.msg, msg);
}

/* "MLID SL" lines with comments; saquery MCMR records; errors name the
 * line and what was expected. */
static void test_mcast_sl_text(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *m = load("mcast_t33-saquery-m.txt", &len);
	static const char mcmr[] =
		"MCMember Record dump:\n"
		"\t\tMGID....................ff12:401b:ffff::ffff:ffff\n"
		"\t\tmlid....................0xc00c\n"
		"\t\tSL......................0x3\n";
	static const char lines[] = "# groups\n0xC00A 2  # ipoib\n\n49152 1\n";

	read_mft(f, "mcast_t33-mcfdbs.dump", &t);
	assert_int_equal(kr_mcast_sl_parse(lines, sizeof(lines) - 1, f, &t,
					   NULL), KR_OK);
	assert_int_equal(t.mgroup[0].sl, 1);
	assert_int_equal(t.mgroup[1].sl, 2);
	assert_int_equal(t.mgroup[1].sl_given, 1);
	assert_int_equal(t.mgroup[2].sl_given, 0);
	assert_int_equal(kr_mcast_sl_parse(mcmr, sizeof(mcmr) - 1, f, &t,
					   NULL), KR_OK);
	assert_int_equal(t.mgroup[2].sl, 3);
	assert_int_equal(t.mgroup[2].sl_given, 1);
	expect_sl_error(f, &t, m, 1, "use saquery -g");
	expect_sl_error(f, &t, "0xc000 1\n0xc000 2\n", 2,
			"SL 2 here, SL 1 on line 1");
	expect_sl_error(f, &t, "0xc000\n", 1, "expected \"MLID SL\"");
	expect_sl_error(f, &t, "0x00c0 1\n", 1, "0xC000-0xFFFE");
	expect_sl_error(f, &t, "0xc000 16\n", 1, "expected 0-15");
	expect_sl_error(f, &t, "x\nMCMemberRecord group dump:\n", 1,
			"expected \"MLID SL\"");
	expect_sl_error(f, &t, "MCMemberRecord group dump:\n\t\tSL....0x1\n",
			1, "no Mlid field");
	expect_sl_error(f, &t, "MCMemberRecord group dump:\n\t\tMlid....x\n",
			2, "expected a number");
	free(m);
	kr_tables_free(&t);
}

static void expect_mft_error(const struct kr_fabric *f, const char *text,
			     unsigned line, const char *msg)
{
	struct kr_tables t = { 0 };
	struct kr_diag d = { 0 };

	assert_int_equal(kr_mft_parse(text, strlen(text), f, &t, &d),
			 KR_EPARSE);
	kr_tables_free(&t);
	if (d.line != line || !strstr(d.msg, msg))
		fail_msg("line %u \"%s\", expected line %u \"%s\"", d.line,
			 d.msg, line, msg);
}

#define OSW "\nSwitch 0x0002c90000000000\nLID    : Out Port(s)\n"
#define IBR "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid " \
	    "0x0002c90000000000 (switch(0,0)):\n     Ports: 0 1 2 3 4 5 \n" \
	    " MLid\n"

static void test_mft_errors(void **state)
{
	const struct kr_fabric *f = *state;

	expect_mft_error(f, OSW "0xC000 : 0x001  0x006 \n", 4,
			 "port 6 beyond switch \"S-0002c90000000000\" (5 ports)");
	expect_mft_error(f, OSW "0xC001 : 0x001 \n0xC000 : 0x002 \n", 5,
			 "must ascend");
	expect_mft_error(f, OSW "0xBFFF : 0x001 \n", 4, "0xC000-0xFFFE");
	expect_mft_error(f, OSW "0xC000 0x001\n", 4, "expected \" :\"");
	expect_mft_error(f, OSW "0xC000 : 1x\n", 4, "expected out ports");
	expect_mft_error(f, OSW OSW, 5, "dumped twice (first on line 2)");
	expect_mft_error(f, "\nSwitch 0x0002c90000000099\n", 2,
			 "unknown switch GUID 0x0002c90000000099");
	expect_mft_error(f, "\nSwitch 0x0002c90100000080\n", 2,
			 "not a switch");
	expect_mft_error(f, "0xC000 : 0x001\n", 1, "expected \"Switch 0x...\"");
	expect_mft_error(f, IBR "0xc000        x x\n", 4,
			 "truncated: the block of line 1");
	expect_mft_error(f, IBR "0xc000        x x\n2 valid mlids dumped \n", 5,
			 "\"2 mlids dumped\" but the block of line 1 has 1");
	expect_mft_error(f, IBR "0xc000       x\n", 4, "at column 14");
	expect_mft_error(f, IBR "0xc000        o\n", 4, "found 'o'");
	expect_mft_error(f, IBR "0xc000                  x\n", 4,
			 "port 6 beyond");
	expect_mft_error(f, IBR "0xc400        x\n", 4, "outside the block");
	expect_mft_error(f, IBR IBR, 4, "before the \"mlids dumped\" line");
	expect_mft_error(f, "Multicast mlids [0xc000-0xc3ff] of switch x\n", 1,
			 "expected \"Multicast mlids [0xLO-0xHI] of switch");
	expect_mft_error(f, "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 "
			 "guid 0x0002c90000000000 (s):\n MLid       Port Mask\n"
			 "0xc000      00g2\n", 3, "hex words");
	expect_mft_error(f, OSW "0xC000 : 0x001  0", 4,
			 "truncated: the file ends inside this entry");
	expect_mft_error(f, OSW "0xC000 : 0x001 ", 4,
			 "truncated: the file ends inside this entry");
	expect_mft_error(f, OSW "0xC000 : 0x001  0x0\n", 4,
			 "truncated: OpenSM ends every port");
	expect_mft_error(f, OSW "0xC000 :\n", 4,
			 "truncated: OpenSM ends every port");
	expect_mft_error(f, OSW "0xC000 : 0x001 \n\nSwitch 0x0002c90000000001\n"
			 "LID    : Out Port(s)\n", 7,
			 "truncated: the block of line 6 has no entry");
}

/* The last line of opensm.mcfdbs cut anywhere but at an entry's end (or
 * before the first header) is refused: OpenSM writes a header only with
 * the entry below it, every port as " 0x%03X ", a newline after each. */
static void test_mcfdbs_every_cut(void **state)
{
	const struct kr_fabric *f = *state;
	size_t len;
	char *buf = load("mcast_t33-mcfdbs.dump", &len);

	for (size_t n = 0; n <= len; n++) {
		struct kr_tables t = { 0 };
		size_t i = n;
		bool whole;
		int rc = kr_mft_parse(buf, n, f, &t, NULL);

		while (i > 0 && buf[i - 1] == '\n')
			i--;
		while (i > 0 && buf[i - 1] != '\n')
			i--;
		whole = (n > 0 && buf[n - 1] == '\n' &&
			 !strncmp(buf + i, "0x", 2)) || i == 0;
		if (rc != (whole ? KR_OK : KR_EPARSE))
			fail_msg("cut at byte %zu of %zu: %d", n, len, rc);
		kr_tables_free(&t);
	}
	free(buf);
}

/* Blocks per switch: dump_mfts has all of them, ibroute -M one, and a
 * dump_mfts cut after a block's "mlids dumped" line the switches before
 * the cut; opensm.mcfdbs leaves out switches without entries, so there
 * none is missing. */
static void test_blocks_given(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *buf = load("mcast_t33-dump_mfts.txt", &len), *cut;
	unsigned n = 0;

	read_mft(f, "mcast_t33-dump_mfts.txt", &t);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		assert_int_equal(t.mft_given[sw], 1);
	kr_tables_free(&t);
	read_mft(f, "mcast_t33-ibroute-M.txt", &t);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		assert_int_equal(t.mft_given[sw], sw == sw_of_lid(f, 1));
	cut = strstr(strstr(buf, "mlids dumped") + 1, "mlids dumped");
	cut = strchr(cut, '\n') + 1;
	assert_int_equal(kr_mft_parse(buf, (size_t)(cut - buf), f, &t, NULL),
			 KR_OK);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		n += t.mft_given[sw];
	assert_int_equal(n, 2);
	kr_tables_free(&t);
	read_mft(f, "mcast_t33-mcfdbs.dump", &t);
	assert_null(t.mft_given);
	kr_tables_free(&t);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_hand_worked,
						setup_t33, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_mcfdbs_round_trip,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_diags_same_masks,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_saquery_g,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_mcast_sl_text,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_mft_errors,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_mcfdbs_every_cut,
						setup_mcast, teardown_fabric),
		cmocka_unit_test_setup_teardown(test_blocks_given,
						setup_mcast, teardown_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
