/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The iblinkinfo reader. The truth is ibnetdiscover's: tests/data/
 * ibl_mixed.txt and ibl_mixed_l.txt are what iblinkinfo 44 and
 * `iblinkinfo -l` printed on ibsim running tests/data/net_mixed.net after
 * `opensm -o -R minhop`, the run ibnd_mixed.net was read from; every
 * linked port must have the far end and LID ibnetdiscover saw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"

static void read_data(const char *name, struct kr_fabric *f)
{
	const char *src = getenv("KR_SRCDIR");
	char path[4096];
	struct kr_diag d = { 0 };

	snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
	if (kr_net_read(path, f, &d))
		fail_msg("%s:%u: %s", path, d.line, d.msg);
}

/* The slot of b that stands for slot s of a: a switch port by node GUID
 * and number, a CA port by its port GUID (iblinkinfo gives CAs no node
 * GUID). */
static uint32_t same_slot(const struct kr_fabric *a, uint32_t s,
			  const struct kr_fabric *b)
{
	uint32_t n = a->owner[s];

	if (kr_is_switch(a, n)) {
		uint32_t m = kr_node_by_guid(b, a->guid[n]);

		assert_int_not_equal(m, KR_NONE);
		assert_true(kr_is_switch(b, m));
		return kr_port(b, m, kr_port_num(a, s));
	}
	return kr_port_by_guid(b, a->port_guid[s]);
}

/* Every link and LID of truth is in f, and f has no other link. */
static void assert_as_ibnetdiscover(const struct kr_fabric *truth,
				    const struct kr_fabric *f)
{
	unsigned links = 0;

	assert_int_equal(f->nsw, truth->nsw);
	for (uint32_t s = 0; s < truth->nport; s++) {
		uint32_t t = same_slot(truth, s, f);

		if (truth->peer[s] < 0)
			continue;
		links++;
		assert_int_not_equal(t, KR_NONE);
		assert_int_equal(f->peer[t],
				 (int32_t)same_slot(truth, (uint32_t)truth->peer[s], f));
		if (!kr_is_switch(truth, truth->owner[s]))
			assert_int_equal(f->lid[t], truth->lid[s]);
	}
	for (uint32_t s = 0; s < f->nport; s++)
		links -= f->peer[s] >= 0;
	assert_int_equal(links, 0);
	for (uint32_t n = 0; n < truth->nsw; n++)
		assert_int_equal(f->lid[f->port0[kr_node_by_guid(f, truth->guid[n])]],
				 truth->lid[truth->port0[n]]);
}

static void test_plain(void **state)
{
	struct kr_fabric truth, f;
	uint32_t rt, h2;

	(void)state;
	read_data("ibnd_mixed.net", &truth);
	read_data("ibl_mixed.txt", &f);
	assert_as_ibnetdiscover(&truth, &f);
	assert_int_equal(f.nnode, truth.nnode);
	/* a CA is named by its lowest port GUID; the header's type kept */
	rt = f.owner[kr_port_by_guid(&f, 0x300002)];
	assert_int_equal(f.type[rt], KR_ROUTER);
	assert_string_equal(kr_node_name(&f, rt), "R-0000000000300002");
	h2 = f.owner[kr_port_by_guid(&f, 0x100102)];
	assert_string_equal(kr_node_desc(&f, h2), "host two");
	assert_string_equal(kr_node_desc(&f, kr_node_by_guid(&f, 0x500)),
			    "edge C");
	assert_int_equal(f.nports[kr_node_by_guid(&f, 0x200000)], 8);
	kr_fabric_free(&truth);
	kr_fabric_free(&f);
}

static void test_long_form(void **state)
{
	struct kr_fabric truth, f;
	uint32_t rt;

	(void)state;
	read_data("ibnd_mixed.net", &truth);
	read_data("ibl_mixed_l.txt", &f);
	assert_as_ibnetdiscover(&truth, &f);
	/* -l gives no types: a GUID on one line is a CA, a router too */
	rt = f.owner[kr_port_by_guid(&f, 0x300002)];
	assert_int_equal(f.type[rt], KR_CA);
	assert_string_equal(kr_node_desc(&f, rt), "rt1");	/* unpadded */
	kr_fabric_free(&truth);
	kr_fabric_free(&f);
}

/* Two CA ports of one description on consecutive -l lines are one HCA;
 * the same port number again starts another node. */
static void test_long_form_hca(void **state)
{
	static const char text[] =
		"0x0000000000000010 \"    sw\"      1    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000000021      2    1[  ] \"hca\" ( )\n"
		"0x0000000000000010 \"    sw\"      1    2[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000000022      3    2[  ] \"hca\" ( )\n"
		"0x0000000000000010 \"    sw\"      1    3[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
		"0x0000000000000021 \"   hca\"      2    1[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000000010      1    1[  ] \"sw\" ( )\n"
		"0x0000000000000022 \"   hca\"      3    2[  ] ==( 4X 2.5 Gbps Active/  LinkUp)==>  0x0000000000000010      1    2[  ] \"sw\" ( )\n";
	struct kr_fabric f;
	struct kr_diag d = { 0 };

	(void)state;
	assert_int_equal(kr_net_parse(text, strlen(text), "l.txt", &f, &d), KR_OK);
	assert_int_equal(f.nsw, 1);
	assert_int_equal(f.nnode, 2);
	assert_int_equal(f.nports[0], 3);
	assert_int_equal(f.owner[kr_port_by_guid(&f, 0x21)],
			 f.owner[kr_port_by_guid(&f, 0x22)]);
	assert_int_equal(f.lid[kr_port_by_guid(&f, 0x22)], 3);
	kr_fabric_free(&f);
}

static void test_errors(void **state)
{
	static const char sw[] = "Switch: 0x0000000000000010 sw one:\n";
	static const struct { const char *text; unsigned line;
			      const char *msg; } bad[] = {
		/* what an unmanaged subnet prints: no LIDs to link by */
		{ "CA: h:\n      0x0000000000000021      0    1[  ] ==( 4X 2.5 "
		  "Gbps Initialize/  LinkUp)==>       0    1[  ] \"sw\" ( )\n",
		  2, "far end on LID 0" },
		{ "CA: h\n", 1, "':' at the end of a node's header" },
		{ "Switch: sw:\n", 1, "the switch's GUID" },
		{ "CA: h:\n      1    1[  ] ==( )==>  2  1[  ] \"sw\" ( )\n", 2,
		  "starting with its port GUID" },
		{ "%s           1    1[  ] ==( 4X Active/  LinkUp)==>       9"
		  "    1[  ] \"x\" ( )\n", 2, "far end LID 9 is no port" },
		{ "%s           1    1[  ] ==( 4X Active/  LinkUp)\n", 2,
		  "\")==>\"" },
		{ "%s           1    1[  ] ==( 4X Active/  LinkUp)==>  2 1[ ] x\n",
		  2, "description in quotes" },
		{ "0x0000000000000010 \"sw\"  1  1[  ] ==( 4X )==>  "
		  "0x0000000000000099  2  1[  ] \"h\" ( )\n", 1,
		  "0x0000000000000099 is not a node of the file" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[512];
		struct kr_fabric f;
		struct kr_diag d = { 0 };

		snprintf(text, sizeof(text), bad[i].text, sw);
		if (kr_net_parse(text, strlen(text), "i.txt", &f, &d) != KR_EPARSE ||
		    d.line != bad[i].line || !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_long_form),
		cmocka_unit_test(test_long_form_hca),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
