/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The topology reader: ibsim net files and ibnetdiscover output.
 *
 * The strongest truths here come from the real tools: tests/data/net_mixed.net
 * is a hand-written ibsim file, ibnd_mixed.net is what ibnetdiscover 44 read
 * back from ibsim running it after `opensm -o -R minhop` (ibnd_mixed_lmc2.net
 * the same with -l 2, ibnd_mixed_grouped.net the same run's `ibnetdiscover
 * -g`). The GUIDs ibsim gave its nodes must be the GUIDs we
 * derive from the net file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"

static int parse(const char *text, struct kr_fabric *f, struct kr_diag *d)
{
	return kr_net_parse(text, strlen(text), "t.net", f, d);
}

static void read_data(const char *name, struct kr_fabric *f)
{
	const char *src = getenv("KR_SRCDIR");
	char path[4096];
	struct kr_diag d = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
	rc = kr_net_read(path, f, &d);
	if (rc)
		fail_msg("%s:%u: %s", path, d.line, d.msg);
}

static uint32_t by_name(const struct kr_fabric *f, const char *name)
{
	for (uint32_t n = 0; n < f->nnode; n++)
		if (!strcmp(kr_node_name(f, n), name))
			return n;
	fail_msg("no node \"%s\"", name);
	return KR_NONE;
}

/* Asserts node a's port pa is cabled to node z's port pz (both ways). */
static void assert_link(const struct kr_fabric *f, uint32_t a, unsigned pa,
			uint32_t z, unsigned pz)
{
	assert_int_equal(f->peer[kr_port(f, a, pa)], (int32_t)kr_port(f, z, pz));
	assert_int_equal(f->peer[kr_port(f, z, pz)], (int32_t)kr_port(f, a, pa));
}

static unsigned count_links(const struct kr_fabric *f)
{
	unsigned n = 0;

	for (uint32_t s = 0; s < f->nport; s++)
		n += f->peer[s] > (int32_t)s;
	return n;
}

/* Same nodes (by GUID), names optional, same descriptions, ports, port
 * GUIDs, cabling; LIDs compared when lids is set. */
static void assert_same_graph(const struct kr_fabric *a, const struct kr_fabric *b,
			      int names, int lids)
{
	assert_int_equal(a->nnode, b->nnode);
	assert_int_equal(a->nsw, b->nsw);
	assert_int_equal(count_links(a), count_links(b));
	for (uint32_t n = 0; n < a->nnode; n++) {
		uint32_t m = kr_node_by_guid(b, a->guid[n]);

		assert_int_not_equal(m, KR_NONE);
		if (names)
			assert_string_equal(kr_node_name(a, n), kr_node_name(b, m));
		assert_string_equal(kr_node_desc(a, n), kr_node_desc(b, m));
		assert_int_equal(a->type[n], b->type[m]);
		assert_int_equal(a->nports[n], b->nports[m]);
		assert_int_equal(a->sysimg_guid[n], b->sysimg_guid[m]);
		for (unsigned p = 0; p <= a->nports[n]; p++) {
			uint32_t s = kr_port(a, n, p), t = kr_port(b, m, p);

			if (p || kr_is_switch(a, n))
				assert_int_equal(a->port_guid[s], b->port_guid[t]);
			if (lids) {
				assert_int_equal(a->lid[s], b->lid[t]);
				assert_int_equal(a->lmc[s], b->lmc[t]);
			}
			assert_int_equal(a->peer[s] < 0, b->peer[t] < 0);
			if (a->peer[s] < 0)
				continue;
			assert_int_equal(a->guid[a->owner[a->peer[s]]],
					 b->guid[b->owner[b->peer[t]]]);
			assert_int_equal(kr_port_num(a, (uint32_t)a->peer[s]),
					 kr_port_num(b, (uint32_t)b->peer[t]));
		}
	}
}

/* GUIDs by ibsim's counters, worked by hand and confirmed by ibsim itself
 * (ibnd_mixed.net shows the same numbers). */
static void test_ibsim_file_guids(void **state)
{
	struct kr_fabric f;
	uint32_t swa, swb, swc, h1, h2, h3, rt;

	(void)state;
	read_data("net_mixed.net", &f);
	swa = by_name(&f, "sw-a"), swb = by_name(&f, "sw-b");
	swc = by_name(&f, "sw-c"), h1 = by_name(&f, "h1");
	h2 = by_name(&f, "h2"), h3 = by_name(&f, "h3"), rt = by_name(&f, "rt1");
	assert_int_equal(f.guid[swa], 0x200000);
	assert_int_equal(f.guid[swb], 0x200001);	/* +1 per switch */
	assert_int_equal(f.guid[h1], 0x100000);
	assert_int_equal(f.guid[swc], 0x500);		/* switchguid=0x500 */
	assert_int_equal(f.guid[h2], 0x100100);		/* caguid=0x100100 */
	assert_int_equal(f.guid[h3], 0x100140);		/* caguid+0x40 */
	assert_int_equal(f.guid[rt], 0x300000);		/* rtguid= */
	assert_int_equal(f.port_guid[kr_port(&f, h2, 2)], 0x100102);
	assert_int_equal(f.port_guid[kr_port(&f, swc, 0)], 0x500);
	assert_int_equal(f.type[rt], KR_ROUTER);
	assert_int_equal(f.sysimg_guid[swc], 0xabc);	/* next node only */
	assert_int_equal(f.sysimg_guid[h2], 0x100100);
	assert_int_equal(f.vendid[swa], 0x2c9);		/* next node only */
	assert_int_equal(f.vendid[swb], 0);
	assert_int_equal(f.devid[rt], 0xbd36);		/* devid= sticks */
	assert_string_equal(kr_node_desc(&f, swa), "spine A");
	assert_string_equal(kr_node_desc(&f, swc), "edge C");
	assert_string_equal(kr_node_desc(&f, h2), "host two");
	assert_string_equal(kr_node_desc(&f, h1), "h1");
	assert_int_equal(f.lid[kr_port(&f, swc, 0)], 7);
	assert_link(&f, swa, 3, swb, 3);
	assert_link(&f, swa, 4, swb, 4);
	assert_link(&f, swa, 5, swc, 1);
	assert_link(&f, swa, 2, h2, 2);
	assert_link(&f, swc, 3, rt, 2);
	assert_int_equal(f.peer[kr_port(&f, h2, 1)], -1);
	assert_int_equal(count_links(&f), 7);
	kr_fabric_free(&f);
}

/* The same fabric as ibnetdiscover printed it from the simulator. */
static void test_ibnetdiscover_matches_ibsim(void **state)
{
	struct kr_fabric net, ibnd;
	uint32_t n;

	(void)state;
	read_data("net_mixed.net", &net);
	read_data("ibnd_mixed.net", &ibnd);
	assert_same_graph(&net, &ibnd, 0, 0);
	assert_string_equal(kr_node_name(&ibnd, kr_node_by_guid(&ibnd, 0x500)),
			    "S-0000000000000500");
	assert_int_equal(ibnd.vendid[kr_node_by_guid(&ibnd, 0x200000)], 0x2c9);
	/* LIDs opensm gave: switches on the header, CAs on their port lines */
	n = kr_node_by_guid(&ibnd, 0x200000);
	assert_int_equal(ibnd.lid[kr_port(&ibnd, n, 0)], 1);
	n = kr_node_by_guid(&ibnd, 0x300000);
	assert_int_equal(ibnd.lid[kr_port(&ibnd, n, 2)], 4);
	assert_int_equal(ibnd.lid[kr_port(&ibnd, n, 1)], 0);
	assert_int_equal(kr_port_by_lid(&ibnd, 6), kr_port_by_guid(&ibnd, 0x100141));
	assert_int_equal(ibnd.max_lid, 7);
	kr_fabric_free(&net);
	kr_fabric_free(&ibnd);
}

/* `ibnetdiscover -g` from the same simulator and SM as ibnd_mixed.net: the
 * grouped form must read to the very same fabric, names and LIDs included. */
static void test_grouped_matches_plain(void **state)
{
	struct kr_fabric plain, grouped;

	(void)state;
	read_data("ibnd_mixed.net", &plain);
	read_data("ibnd_mixed_grouped.net", &grouped);
	assert_same_graph(&plain, &grouped, 1, 1);
	assert_int_equal(grouped.max_lid, 7);
	kr_fabric_free(&plain);
	kr_fabric_free(&grouped);
}

/* What -g prints for a chassis (ibsim models none): a "Chassis N (guid G)"
 * header, a chassis comment on sysimgguid= and switchguid=, and "[ext N]"
 * front-panel numbers after either port. Written by hand from
 * infiniband-diags' ibnetdiscover.c; it must read as the same text with the
 * grouping taken out. */
static void test_grouped_chassis_forms(void **state)
{
	static const char grouped[] =
		"\nChassis 1 (guid 0x8f104004128ca)\n"
		"\n# Spine Nodes\n"
		"vendid=0x8f1\ndevid=0x5a31\n"
		"sysimgguid=0x8f104004128ca\t\t# Chassis 1 (ISR9288)\n"
		"switchguid=0x10(10)\t# ISR9288 Voltaire sFB-12 3 Chip 1\n"
		"Switch\t4 \"S-10\"\t\t# \"sw\" base port 0 lid 3 lmc 0\n"
		"[1]\t\"S-20\"[2][ext 7]\t\t# \"line\" lid 5 4xSDR\n"
		"\n# Line Nodes\n"
		"vendid=0x8f1\ndevid=0x5a30\n"
		"sysimgguid=0x8f104004128ca\t\t# Chassis 1 (ISR9288)\n"
		"switchguid=0x20(20)\t# ISR9288 Voltaire sLB-24 5\n"
		"Switch\t4 \"S-20\"\t\t# \"line\" base port 0 lid 5 lmc 0\n"
		"[2][ext 7]\t\"S-10\"[1]\t\t# \"sw\" lid 3 4xSDR\n"
		"[3][ext 8]\t\"H-30\"[1](31) \t\t# \"h\" lid 6 4xSDR\n"
		"\n# Chassis Switches\n# Chassis CAs\n"
		"Hostname: xsigo-7\n"
		"\nNon-Chassis Nodes\n"
		"\ncaguid=0x30\nCa\t1 \"H-30\"\t\t# \"h\" (scp)\n"
		"[1](31) \t\"S-20\"[3][ext 8]\t\t# lid 6 lmc 0 \"line\" lid 5 4xSDR\n";
	static const char plain[] =
		"vendid=0x8f1\ndevid=0x5a31\nsysimgguid=0x8f104004128ca\n"
		"switchguid=0x10(10)\nSwitch\t4 \"S-10\"\t# \"sw\" base port 0 lid 3\n"
		"[1]\t\"S-20\"[2]\n\n"
		"vendid=0x8f1\ndevid=0x5a30\nsysimgguid=0x8f104004128ca\n"
		"switchguid=0x20(20)\nSwitch\t4 \"S-20\"\t# \"line\" base port 0 lid 5\n"
		"[2]\t\"S-10\"[1]\n[3]\t\"H-30\"[1](31)\n\n"
		"caguid=0x30\nCa\t1 \"H-30\"\t# \"h\"\n"
		"[1](31)\t\"S-20\"[3]\t# lid 6 lmc 0\n";
	struct kr_fabric g, p;
	struct kr_diag d = { 0 };

	(void)state;
	assert_int_equal(parse(grouped, &g, &d), KR_OK);
	assert_int_equal(parse(plain, &p, &d), KR_OK);
	assert_same_graph(&p, &g, 1, 1);
	assert_link(&g, by_name(&g, "S-20"), 3, by_name(&g, "H-30"), 1);
	assert_int_equal(g.sysimg_guid[by_name(&g, "S-10")], 0x8f104004128caULL);
	kr_fabric_free(&g);
	kr_fabric_free(&p);
}

static void test_ibnetdiscover_lmc(void **state)
{
	struct kr_fabric f;
	uint32_t h3;

	(void)state;
	read_data("ibnd_mixed_lmc2.net", &f);
	h3 = kr_port_by_guid(&f, 0x100141);
	assert_int_equal(f.lid[h3], 20);
	assert_int_equal(f.lmc[h3], 2);
	for (unsigned lid = 20; lid < 24; lid++)
		assert_int_equal(kr_port_by_lid(&f, lid), h3);
	assert_int_equal(f.lmc[kr_port(&f, kr_node_by_guid(&f, 0x200000), 0)], 0);
	kr_fabric_free(&f);
}

/* The examples shipped with ibsim-utils, when installed. The two-switch
 * one is counted by hand: 2 switches, 4 HCAs, 4 HCA links and two parallel
 * switch links (ports 3 and 5). */
static void test_ibsim_examples(void **state)
{
	static const char dir[] = "/usr/share/doc/ibsim-utils/net-examples";
	static const char *const names[] = { "net", "net.1", "net.2sw2path",
					     "net.2sw2path4hca",
					     "net.2sw2path4hca2port" };
	char path[256];
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	uint32_t s1, s2;

	(void)state;
	snprintf(path, sizeof(path), "%s/net.2sw2path4hca", dir);
	if (access(path, R_OK))
		skip();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (access(path, R_OK))
			continue;
		if (kr_net_read(path, &f, &d))
			fail_msg("%s:%u: %s", path, d.line, d.msg);
		kr_fabric_free(&f);
	}
	snprintf(path, sizeof(path), "%s/net.2sw2path4hca", dir);
	assert_int_equal(kr_net_read(path, &f, &d), KR_OK);
	assert_int_equal(f.nsw, 2);
	assert_int_equal(f.nnode, 6);
	assert_int_equal(count_links(&f), 6);
	s1 = by_name(&f, "Switch1"), s2 = by_name(&f, "Switch2");
	assert_link(&f, s1, 3, s2, 3);
	assert_link(&f, s1, 5, s2, 5);
	assert_int_equal(f.guid[by_name(&f, "Hca4")], 0x100009);
	kr_fabric_free(&f);
}

/* Links given from one end only; "[N] "name"" without a far port means
 * port 1, as in ibsim (which itself wants both ends). */
static void test_one_sided_links(void **state)
{
	static const char text[] =
		"Switch 4 \"s1\"\n"
		"[1] \"S-c1\"\n"
		"[2] \"H-s2\"[3]\n"
		"\n"
		"Switch 4 \"H-s2\"\n"
		"\n"
		"Ca 1 \"S-c1\"\n";
	struct kr_fabric f;
	uint32_t s1, s2, c1;

	(void)state;
	assert_int_equal(parse(text, &f, NULL), KR_OK);
	s1 = by_name(&f, "s1"), s2 = by_name(&f, "H-s2"), c1 = by_name(&f, "S-c1");
	/* the keyword decides the type, not ibnetdiscover's name prefix */
	assert_int_equal(f.type[s2], KR_SWITCH);
	assert_int_equal(f.type[c1], KR_CA);
	assert_link(&f, s1, 1, c1, 1);
	assert_link(&f, s1, 2, s2, 3);
	assert_int_equal(count_links(&f), 2);
	assert_int_equal(f.guid[s2], 0x200001);
	assert_int_equal(f.port_guid[kr_port(&f, c1, 1)], 0x100001);
	kr_fabric_free(&f);
}

/* Every other form: CRLF, no final newline, ibsim-only directives, router
 * counter (ibsim starts it at 0), relative rtguid, hcaguids, "(guid)" on a
 * CA port, hex LID with LMC, switchguid=X(Y), options, inner comments. */
/* opensm-subnet.lst: a link per line from each end (one here from one
 * end only), a CA behind the SM's port, a link not up (left out). */
#define LST_SW(g, lid, pn) "{ SW Ports:04 SystemGUID:" g " NodeGUID:" g \
	" PortGUID:" g " VenID:000000 DevID:0000 Rev:000000A1 {sw " g "} " \
	"LID:" lid " PN:" pn " }"
static const char lst_text[] =
	LST_SW("0000000000000100", "0001", "02") " "
	LST_SW("0000000000000200", "0002", "03") " PHY=4x LOG=ACT SPD=2.5\n"
	"{ CA-SM Ports:02 SystemGUID:0000000000001000 NodeGUID:0000000000001000 "
	"PortGUID:0000000000001002 VenID:000000 DevID:0000 Rev:000000A1 "
	"{host a} LID:0005 PN:02 } "
	LST_SW("0000000000000100", "0001", "01") " PHY=4x LOG=ACT SPD=2.5\n"
	LST_SW("0000000000000100", "0001", "01") " "
	"{ CA Ports:02 SystemGUID:0000000000001000 NodeGUID:0000000000001000 "
	"PortGUID:0000000000001002 VenID:00000000 DevID:0000 Rev:000000A1 "
	"{host a} LID:0005 PN:02 } PHY=4x LOG=ACT SPD=2.5\n"
	LST_SW("0000000000000200", "0002", "04") " "
	LST_SW("0000000000000100", "0001", "04") " PHY=4x LOG=DWN SPD=2.5\n";

static void test_opensm_subnet_lst(void **state)
{
	static const struct { const char *from, *to; unsigned line;
			      const char *msg; } bad[] = {
		{ "NodeGUID:0000000000000200", "NodeGUID:zz", 1, "NodeGUID:" },
		{ "PN:03", "PN:05", 1, "\"PN:\" with a port of the node" },
		{ "{host a} LID", "{host a LID", 2, "an opensm-subnet.lst line" },
		{ "Rev:000000A1 {host a} LID:0005 PN:02 } PHY", "Rev:1 {a", 3,
		  "\"} LID:\" after the description" },
		{ "LOG=DWN", "", 4, "\"LOG=\"" },
	};
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint32_t s1, s2, h;

	(void)state;
	assert_int_equal(parse(lst_text, &f, &d), KR_OK);
	s1 = by_name(&f, "S-0000000000000100");
	s2 = by_name(&f, "S-0000000000000200");
	h = by_name(&f, "H-0000000000001000");
	assert_int_equal(f.nsw, 2);
	assert_int_equal(f.nnode, 3);
	assert_link(&f, s1, 2, s2, 3);
	assert_link(&f, s1, 1, h, 2);
	assert_int_equal(f.peer[kr_port(&f, s1, 4)], -1);
	assert_int_equal(count_links(&f), 2);
	assert_int_equal(f.lid[kr_port(&f, s1, 0)], 1);
	assert_int_equal(f.lid[kr_port(&f, s2, 0)], 2);
	assert_int_equal(f.lid[kr_port(&f, h, 2)], 5);
	assert_int_equal(f.port_guid[kr_port(&f, h, 2)], 0x1002);
	assert_string_equal(kr_node_desc(&f, h), "host a");
	assert_int_equal(f.sm_lid, 5);	/* the CA-SM end's */
	kr_fabric_free(&f);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[sizeof(lst_text)];
		const char *at = strstr(lst_text, bad[i].from);
		size_t pre = (size_t)(at - lst_text);

		memcpy(text, lst_text, pre);
		snprintf(text + pre, sizeof(text) - pre, "%s%s", bad[i].to,
			 at + strlen(bad[i].from));
		if (parse(text, &f, &d) != KR_EPARSE || d.line != bad[i].line ||
		    !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
	}
}

/* What OpenSM 3.3.23 (`opensm -o -R minhop -l 1`) wrote on ibsim for
 * `knsroute gen torus --dims 3x3 --p 1 --lmc 1 --shuffle 3`: 9 switches of
 * 5 ports, 9 CAs, 27 links, every endpoint with a LID. */
static void test_opensm_subnet_lst_real(void **state)
{
	struct kr_fabric f;
	uint32_t lids = 0;

	(void)state;
	read_data("osm_t33-subnet.lst", &f);
	assert_int_equal(f.nsw, 9);
	assert_int_equal(f.nnode, 18);
	assert_int_equal(count_links(&f), 27);
	for (uint32_t n = 0; n < f.nnode; n++) {
		uint32_t s = kr_port(&f, n, kr_is_switch(&f, n) ? 0 : 1);

		assert_int_equal(f.nports[n], kr_is_switch(&f, n) ? 5 : 1);
		lids += f.lid[s] != 0;
	}
	assert_int_equal(lids, 18);
	assert_int_equal(f.sm_lid, 1);	/* ibsim put opensm on a switch */
	kr_fabric_free(&f);
}

/* ibnetdiscover prints NodeDescription raw, and OpenSM's subnet.lst too:
 * quotes, "lid 99" or "} LID:" inside one are the description's, and the
 * LID is the one written after it (sweep 9b, defect 6). */
static void test_desc_holding_lid(void **state)
{
	static const char ibnd[] =
		"switchguid=0x10(10)\n"
		"Switch\t2 \"S-10\"\t\t# \"my \"special\" sw lid 99 base port 0 "
		"lid 77\" base port 0 lid 14 lmc 0\n"
		"[1]\t\"H-30\"[1](31) \t\t# \"h\" lid 6 4xSDR\n"
		"\n"
		"switchguid=0x20(20)\n"
		"Switch\t2 \"S-20\"\t\t# sw lid 99 base port 0 lid 15 lmc 0\n"
		"[2]\t\"S-10\"[2]\n"
		"\n"
		"caguid=0x30\n"
		"Ca\t1 \"H-30\"\t\t# \"host \\\"x\\\" lid 5 lmc 3\"\n"
		"[1](31) \t\"S-10\"[1]\t\t# lid 6 lmc 0 \"my \"special\" sw lid "
		"99 base port 0 lid 77\" lid 14 4xSDR\n";
	static const char lst[] =
		"{ SW Ports:04 SystemGUID:0000000000000100 NodeGUID:"
		"0000000000000100 PortGUID:0000000000000100 VenID:000000 "
		"DevID:0000 Rev:000000A1 {sw} LID:0063 PN:01 } x} LID:0001 "
		"PN:02 } " LST_SW("0000000000000200", "0002", "03")
		" PHY=4x LOG=ACT SPD=2.5\n";
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint32_t s10, s20;

	(void)state;
	if (parse(ibnd, &f, &d))
		fail_msg("line %u: %s", d.line, d.msg);
	s10 = by_name(&f, "S-10");
	s20 = by_name(&f, "S-20");
	assert_int_equal(f.lid[kr_port(&f, s10, 0)], 14);
	assert_int_equal(f.lmc[kr_port(&f, s10, 0)], 0);
	assert_string_equal(kr_node_desc(&f, s10),
			    "my \"special\" sw lid 99 base port 0 lid 77");
	assert_int_equal(f.lid[kr_port(&f, s20, 0)], 15);
	assert_string_equal(kr_node_desc(&f, by_name(&f, "H-30")),
			    "host \\\"x\\\" lid 5 lmc 3");
	kr_fabric_free(&f);
	if (parse(lst, &f, &d))
		fail_msg("line %u: %s", d.line, d.msg);
	s10 = by_name(&f, "S-0000000000000100");
	assert_int_equal(f.lid[kr_port(&f, s10, 0)], 1);
	assert_string_equal(kr_node_desc(&f, s10),
			    "sw} LID:0063 PN:01 } x");
	kr_fabric_free(&f);
}

static void test_record_forms(void **state)
{
	static const char text[] =
		"DR path slid 0; dlid 0; 0 -> new Switch {0000000000007000} "
		"portnum 0 lid 0-0 \"\"\n"
		"pdebug=0\r\n"
		"do echo hello\r\n"
		"width=3\nspeed=1\nextspeed=0\n"
		"Rt 2 \"r0\"\n"
		"[1] \"s\"[2]\n"
		"\n"
		"rtguid+0x10\n"
		"Rt 1 \"r1\"\n"
		"\n"
		"hcaguids=0x4000\n"
		"Hca 2 \"h\"    # host h\n"
		"# a comment inside the record\n"
		"[2](0x9999) \"s\"[1] w=1 s=1 # lid 0x10 lmc 1 \"S\" lid 3 4xSDR\n"
		"\n"
		"switchguid=0x7000(7001)\n"
		"Switch 2 \"s\" # \"S\" base port 0 lid 3 lmc 0";
	struct kr_fabric f;
	uint32_t r0, r1, h, s;

	(void)state;
	assert_int_equal(parse(text, &f, NULL), KR_OK);
	r0 = by_name(&f, "r0"), r1 = by_name(&f, "r1");
	h = by_name(&f, "h"), s = by_name(&f, "s");
	assert_int_equal(f.guid[r0], 0);
	assert_int_equal(f.port_guid[kr_port(&f, r0, 2)], 2);
	assert_int_equal(f.guid[r1], 0x10);
	assert_int_equal(f.guid[h], 0x4000);
	assert_int_equal(f.port_guid[kr_port(&f, h, 1)], 0x4001);
	assert_int_equal(f.port_guid[kr_port(&f, h, 2)], 0x9999);
	assert_int_equal(f.lid[kr_port(&f, h, 2)], 16);
	assert_int_equal(f.lmc[kr_port(&f, h, 2)], 1);
	assert_string_equal(kr_node_desc(&f, h), "host h");
	assert_int_equal(f.guid[s], 0x7000);
	assert_int_equal(f.port_guid[kr_port(&f, s, 0)], 0x7001);
	assert_int_equal(f.lid[kr_port(&f, s, 0)], 3);
	assert_int_equal(f.nsw, 1);
	assert_link(&f, s, 2, r0, 1);
	assert_link(&f, s, 1, h, 2);
	kr_fabric_free(&f);
}

struct bad_case {
	const char *text;
	unsigned line;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	/* a link described inconsistently by its two ends */
	{ "Switch 4 \"a\"\n[1] \"b\"[1]\n\nSwitch 4 \"b\"\n[1] \"c\"[1]\n\n"
	  "Switch 4 \"c\"\n", 5, "conflicts" },
	{ "Switch 4 \"a\"\n[1] \"b\"[2]\n\nSwitch 4 \"b\"\n[2] \"a\"[3]\n", 5,
	  "conflicts" },
	{ "Switch 2 \"s\"\n[1] \"h\"[1](555)\n\nCa 1 \"h\"\n", 2,
	  "\"h\"[1] has GUID 0x555 here but 0x100001" },
	/* ports beyond a node */
	{ "Switch 4 \"a\"\n[5] \"b\"[1]\n", 2, "port 5 beyond \"a\" (4 ports)" },
	{ "Switch 4 \"a\"\n[1] \"h\"[3]\n\nCa 2 \"h\"\n", 2,
	  "port 3 beyond \"h\" (2 ports)" },
	/* duplicates */
	{ "Switch 4 \"a\"\n\nSwitch 4 \"a\"\n", 3, "duplicate node name" },
	{ "switchguid=0x10\nSwitch 4 \"a\"\n\nswitchguid=0x10\n"
	  "Switch 4 \"b\"\n", 5, "duplicate node GUID" },
	{ "Ca 1 \"x\"\n[1](77) \"s\"[1]\n\nCa 1 \"y\"\n[1](77) \"s\"[2]\n\n"
	  "Switch 2 \"s\"\n", 5, "duplicate port GUID" },
	/* a LID clash: on the port line that repeats the LID */
	{ "Switch 2 \"s\" # \"s\" base port 0 lid 1 lmc 0\n[1] \"x\"[1]\n"
	  "[2] \"y\"[1]\n\nCa 1 \"x\"\n[1](71) \"s\"[1] # lid 2 lmc 0\n\n"
	  "Ca 1 \"y\"\n[1](72) \"s\"[2] # lid 2 lmc 0\n", 9, "LID 2 used by" },
	{ "Switch 2 \"s\" # \"s\" base port 0 lid 2 lmc 0\n[1] \"x\"[1]\n"
	  "\nCa 1 \"x\"\n[1](71) \"s\"[1] # lid 2 lmc 0\n", 5,
	  "LID 2 used by" },
	/* unknown node: the first reference, after forward ones resolved */
	{ "Switch 4 \"a\"\n[1] \"b\"[1]\n[2] \"zz\"[1]\n[3] \"yy\"[1]\n\n"
	  "Switch 4 \"b\"\n", 3, "unknown node \"zz\"" },
	/* malformed headers */
	{ "Switch x \"a\"\n", 1, "port count" },
	{ "\nSwitch 4 a\n", 2, "node name" },
	{ "Switch 4 \"\"\n", 1, "node name" },
	{ "Switch 4 \"a\" junk\n", 1, "unexpected \"junk\" after the node name" },
	{ "Ca 0 \"a\"\n", 1, "port count from 1 to 254" },
	{ "Switch 255 \"a\"\n", 1, "port count from 1 to 254" },
	{ "Switch 4 \"a\n", 1, "node name" },
	/* malformed port lines */
	{ "Switch 4 \"a\"\n[x] \"b\"\n", 2, "\"[N]\" with a port number" },
	{ "Switch 4 \"a\"\n[1 \"b\"\n", 2, "\"[N]\" with a port number" },
	{ "Switch 4 \"a\"\n[0] \"b\"\n", 2, "\"[N]\" with a port number" },
	{ "Switch 4 \"a\"\n[255] \"b\"\n", 2, "from 1 to 254" },
	{ "Switch 4 \"a\"\n[1] b[1]\n", 2, "far node's name" },
	{ "Switch 4 \"a\"\n[1] \"b\"[0]\n", 2, "far port" },
	{ "Switch 4 \"a\"\n[1] \"b\"[2\n", 2, "far port" },
	{ "Switch 4 \"a\"\n[1] \"b\"[1] junk\n", 2, "unexpected \"junk\"" },
	{ "Switch 4 \"a\"\n[1] \"b\" [2]\n", 2, "unexpected \"[2]\"" },
	{ "Switch 4 \"a\"\n[1](zz) \"b\"\n", 2, "port GUID in hex" },
	{ "Switch 4 \"a\"\n[1](12 \"b\"\n", 2, "port GUID in hex" },
	{ "Switch 4 \"a\"\n\n[1] \"b\"\n", 3, "outside a node record" },
	{ "[1] \"b\"\n", 1, "outside a node record" },
	{ "Switch 4 \"a\"\n  [1] \"b\"\n", 2, "indented" },
	/* ibnetdiscover -g */
	{ "Switch 4 \"a\"\n[1][ext x] \"b\"\n", 2, "\"[ext N]\"" },
	{ "Switch 4 \"a\"\n[1] \"b\"[2][ext 3\n", 2, "\"[ext N]\"" },
	{ "Chassis one\nSwitch 4 \"a\"\n", 1, "unknown line \"Chassis one" },
	{ "Chassis 2 (guid zz)\n", 1, "unknown line" },
	{ "Non-Chassis Nodes here\n", 1, "unknown line" },
	/* ibnetdiscover -p */
	{ "CA    18  1 0x0002c90100000081 4x SDR - SW    10  1 "
	  "0x0002c90000000008 ( 'h' - 's' )\n", 1, "a port list" },
	/* numbers out of range */
	{ "Switch 4 \"a\" # \"d\" base port 0 lid 49152 lmc 0\n", 1,
	  "from 0 to 49151 after \"lid\"" },
	{ "Switch 4 \"a\" # \"d\" base port 0 lid 1 lmc 8\n", 1,
	  "from 0 to 7 after \"lmc\"" },
	{ "Switch 4 \"a\"\n[1] \"h\"[1]\n\nCa 1 \"h\"\n[1](11) \"a\"[1] # lid 4 lmc 8\n",
	  5, "from 0 to 7 after \"lmc\"" },
	{ "Switch 4 \"a\"\n[1] \"h\"[1]\n\nCa 1 \"h\"\n"
	  "[1](11) \"a\"[1] # lid 0xC000 lmc 0\n", 5, "from 0 to 49151" },
	{ "switchguid=0x10000000000000000\nSwitch 4 \"a\"\n", 1, "GUID" },
	/* settings */
	{ "caguid 0x10\nCa 1 \"a\"\n", 1, "\"=\" or \"+\" after \"caguid\"" },
	{ "vendid=zz\nCa 1 \"a\"\n", 1, "number after \"vendid=\"" },
	{ "devid=1 2\nCa 1 \"a\"\n", 1, "unexpected \"2\"" },
	/* truncated */
	{ "switchguid=0x10\nSwitch 4 \"a\"\n\nvendid=0x0\nswitchguid=0x20\n", 5,
	  "truncated" },
	{ "Switch 4 \"a\" # \"desc\n", 1, "unterminated description" },
	{ "", 0, "no node records" },
	{ "# nothing\n\n", 2, "no node records" },
	/* not ours */
	{ "include \"other.net\"\n", 1, "\"include\" is not supported" },
	{ "module=\"m\"\n", 1, "\"module\" is not supported" },
	{ "Switch 4 \"a\"\n@[1] \"x\"\n", 2, "aliases" },
	{ "Router 4 \"a\"\n", 1, "unknown line \"Router 4" },
	{ "Switch 4 \"a\"\n3 \"b\"\n", 2, "unknown line" },
};

static void test_errors_name_their_line(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct kr_diag d = { 0 };
		struct kr_fabric f;
		int rc = parse(c->text, &f, &d);

		if (rc != KR_EPARSE || d.line != c->line || !strstr(d.msg, c->msg))
			fail_msg("case %zu: rc %d line %u \"%s\"; want line %u "
				 "\"%s\"", i, rc, d.line, d.msg, c->line, c->msg);
		assert_string_equal(d.file, "t.net");
		assert_null(f.guid);	/* nothing left to free */
	}
}

static void test_nul_and_missing_file(void **state)
{
	static const char text[] = "Switch 4 \"a\"\n[1] \"b\0c\"[1]\n";
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_net_parse(text, sizeof(text) - 1, "t.net", &f, &d),
			 KR_EPARSE);
	assert_int_equal(d.line, 2);
	assert_non_null(strstr(d.msg, "NUL"));
	assert_int_equal(kr_net_read("/nonexistent/x.net", &f, &d), KR_EIO);
	assert_string_equal(d.file, "/nonexistent/x.net");
	assert_int_equal(d.line, 0);
	assert_non_null(strstr(d.msg, "cannot open"));
}

/* Parses exactly len bytes from a heap copy of that size, so that reading
 * past the end is an ASan error rather than luck. */
static int parse_exact(const char *buf, size_t len, struct kr_diag *d)
{
	char *copy = malloc(len ? len : 1);
	struct kr_fabric f;
	int rc;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	rc = kr_net_parse(copy, len, "fuzz.net", &f, d);
	free(copy);
	if (rc == KR_OK)
		kr_fabric_free(&f);
	else if (rc != KR_EPARSE)
		fail_msg("rc %d (%s) for %zu bytes", rc, d->msg, len);
	return rc;
}

static void slurp_data(const char *name, char **buf, size_t *len)
{
	const char *src = getenv("KR_SRCDIR");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
	assert_int_equal(kr_slurp(path, KR_IN_STREAM, buf, len, NULL), KR_OK);
}

/* Every prefix of a real file parses or fails cleanly; prefixes that stop
 * inside a record that names a later one must fail. */
static void test_fuzz_truncations(void **state)
{
	static const char *const files[] = { "ibnd_mixed.net", "net_mixed.net" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char *buf;
		size_t len, nok = 0, nbad = 0;

		slurp_data(files[i], &buf, &len);
		for (size_t cut = 0; cut <= len; cut++) {
			struct kr_diag d = { 0 };

			if (parse_exact(buf, cut, &d) == KR_OK)
				nok++;
			else
				nbad++;
		}
		assert_int_equal(parse_exact(buf, len, &(struct kr_diag){ 0 }),
				 KR_OK);
		assert_true(nok > 0 && nbad > 0);
		free(buf);
	}
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A garbage line: random bytes, or random picks from the grammar's tokens
 * so that the parser goes deep before it trips. */
static size_t garbage(char *out, uint64_t *rng)
{
	static const char *const tok[] = {
		"Switch", "Ca", "Hca", "Rt", "switchguid", "caguid", "rtguid",
		"+", "=", "[", "]", "(", ")", "\"", "#", " ", "\t", "lid ",
		"lmc ", "0x", "1", "254", "255", "0", "99999999999999999999",
		"\"S-0000000000200000\"", "\"sw-a\"", "\"h1\"", "w=4", "base port 0",
		"\r", "@", "\xff", "do",
	};
	size_t n = 0, ntok = rng_next(rng) % 12;

	if (rng_next(rng) % 4 == 0) {
		for (n = 0; n < rng_next(rng) % 60; n++) {
			out[n] = (char)(rng_next(rng) % 255 + 1);
			if (out[n] == '\n')
				out[n] = ' ';
		}
		return n;
	}
	for (size_t i = 0; i < ntok; i++) {
		const char *t = tok[rng_next(rng) % (sizeof(tok) / sizeof(tok[0]))];

		memcpy(out + n, t, strlen(t));
		n += strlen(t);
	}
	return n;
}

/* Random lines replacing or joining those of a real file: never a crash,
 * always OK or a parse error with a line inside the text. */
static void test_fuzz_garbage_lines(void **state)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	char *buf, *text;
	size_t len;

	(void)state;
	slurp_data("ibnd_mixed.net", &buf, &len);
	text = malloc(len + 1024);
	assert_non_null(text);
	for (int iter = 0; iter < 3000; iter++) {
		size_t at = rng_next(&rng) % (len + 1), n = 0, skip = at;
		struct kr_diag d = { 0 };
		unsigned lines = 1;

		while (at > 0 && buf[at - 1] != '\n')	/* start of a line */
			at--;
		if (rng_next(&rng) % 2)		/* replace that line */
			while (skip < len && buf[skip] != '\n')
				skip++;
		else
			skip = at;
		memcpy(text, buf, at);
		n = at + garbage(text + at, &rng);
		text[n++] = '\n';
		memcpy(text + n, buf + skip, len - skip);
		n += len - skip;
		for (size_t i = 0; i < n; i++)
			lines += text[i] == '\n';
		if (parse_exact(text, n, &d) == KR_EPARSE)
			assert_true(d.line <= lines);
	}
	free(text);
	free(buf);
}

/* kr_gen -> kr_net_write -> kr_net_parse keeps GUIDs, names, cabling and
 * LIDs, also for shuffled fabrics (random port numbers and record order). */
static void round_trip(const struct kr_gen_opts *o)
{
	struct kr_fabric a, b;
	struct kr_diag d = { 0 };
	char *mem = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&mem, &len);

	assert_non_null(fp);
	assert_int_equal(kr_gen(o, &a, NULL, NULL, NULL, &d), KR_OK);
	assert_int_equal(kr_net_write(fp, &a), KR_OK);
	assert_int_equal(fclose(fp), 0);
	if (kr_net_parse(mem, len, "mem.net", &b, &d))
		fail_msg("line %u: %s", d.line, d.msg);
	assert_same_graph(&a, &b, 1, 1);
	for (uint32_t n = 0; n < a.nnode; n++)	/* the writer keeps node order */
		assert_int_equal(a.guid[n], b.guid[n]);
	assert_int_equal(a.max_lid, b.max_lid);
	kr_fabric_free(&a);
	kr_fabric_free(&b);
	free(mem);
}

static void test_round_trip(void **state)
{
	struct kr_gen_opts kns = { .family = KR_FAMILY_KNS, .ndim = 2,
				   .k = { 3, 3 }, .p = 2 };
	struct kr_gen_opts torus = { .family = KR_FAMILY_TORUS, .ndim = 3,
				     .k = { 4, 3, 2 }, .wrap = { 1, 1, 0 },
				     .p = 2, .parallel = 2 };

	(void)state;
	round_trip(&kns);
	round_trip(&torus);
	kns.shuffle = torus.shuffle = 1;
	kns.shuffle_seed = 7;
	torus.shuffle_seed = 11;
	kns.assign_lids = torus.assign_lids = 1;
	torus.lmc = 2;
	torus.fail = 3;
	round_trip(&kns);
	round_trip(&torus);
}

/* OpenSM's own cache after `opensm -o -l 1` on net_mixed.net gives the
 * LIDs ibnetdiscover read back from that same run. */
static void test_guid2lid_from_opensm(void **state)
{
	const char *src = getenv("KR_SRCDIR");
	char path[4096];
	struct kr_fabric net, ibnd;
	struct kr_diag d = { 0 };

	(void)state;
	read_data("net_mixed.net", &net);
	read_data("ibnd_mixed_lmc1.net", &ibnd);
	snprintf(path, sizeof(path), "%s/tests/data/net_mixed.guid2lid",
		 src ? src : ".");
	if (kr_guid2lid_read(path, &net, &d))
		fail_msg("%s:%u: %s", path, d.line, d.msg);
	assert_same_graph(&net, &ibnd, 0, 1);
	assert_int_equal(net.max_lid, 13);
	assert_int_equal(kr_port_by_lid(&net, 13), kr_port_by_guid(&net, 0x100141));
	kr_fabric_free(&net);
	kr_fabric_free(&ibnd);
}

static int guid2lid_text(struct kr_fabric *f, const char *text,
			 struct kr_diag *d)
{
	char path[] = "/tmp/kr-g2l-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *fp;

	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	rc = kr_guid2lid_read(path, f, d);
	unlink(path);
	return rc;
}

/* Hand-written cache over net_mixed.net (GUIDs from test_ibsim_file_guids):
 * a header block and departed GUIDs are skipped, the first entry of a GUID
 * wins, LMC follows the range length, LIDs from the topology stay. */
static void test_guid2lid_hand_written(void **state)
{
	static const char text[] =
		"[guid2lid] written by hand\r\n"
		"second line of that block\r\n"
		"\r\n"
		"0x0000000000100001 0x0010 0x0013\n"
		"\n"
		"0x00000000deadbeef 0x0020 0x0020\n"
		"\n"
		"0x200001 0x0004 0x0004\n"
		"\n"
		"0x200001 0x0005 0x0005\n"
		"\n"
		"1048834 14 14\n";	/* 0x100102 in decimal */
	struct kr_fabric f;
	struct kr_diag d = { 0 };
	uint32_t h1p1;

	(void)state;
	read_data("net_mixed.net", &f);
	if (guid2lid_text(&f, text, &d))
		fail_msg("line %u: %s", d.line, d.msg);
	h1p1 = kr_port_by_guid(&f, 0x100001);
	assert_int_equal(f.lid[h1p1], 0x10);
	assert_int_equal(f.lmc[h1p1], 2);
	assert_int_equal(kr_port_by_lid(&f, 0x13), h1p1);
	assert_int_equal(f.lid[kr_port_by_guid(&f, 0x200001)], 4);
	assert_int_equal(f.lid[kr_port_by_guid(&f, 0x100102)], 14);
	assert_int_equal(f.lid[kr_port_by_guid(&f, 0x500)], 7);	/* file */
	assert_int_equal(kr_port_by_lid(&f, 0x20), KR_NONE);
	assert_int_equal(f.max_lid, 0x13);
	kr_fabric_free(&f);
}

static const struct bad_case bad_caches[] = {
	{ "0x100001 0x10 0x11\n0x200001 0x4 0x4\n", 2, "blank line" },
	{ "\n\n  0x100001 0x10 0x11\n", 3, "blank line" },
	{ "0x100001 0x10 0x12\n", 1, "not an aligned block" },
	{ "0x100001 0x11 0x12\n", 1, "not an aligned block" },
	{ "0x100001 0x0 0x0\n", 1, "base LID" },
	{ "0x100001 0xc000 0xc000\n", 1, "base LID" },
	{ "0x100001 0x10\n", 1, "top LID" },
	{ "0x100001 0x10 0xf\n", 1, "top LID" },
	{ "0x100001 0x10 0x10 x\n", 1, "unexpected text" },
	/* the topology file gave sw-c LID 7 */
	{ "0x100001 0x7 0x7\n", 1, "LID 7 used by" },
	{ "\n0x200000 0x1 0x1\n\n0x100001 0x6 0x7\n", 4, "LID 7 used by" },
	/* two entries of the file, the clash at the second */
	{ "0x100001 0x10 0x11\n\n0x200001 0x11 0x11\n", 3, "LID 17 used by" },
};

/* A bad cache leaves the fabric exactly as it was. */
static void test_guid2lid_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_caches) / sizeof(bad_caches[0]); i++) {
		const struct bad_case *c = &bad_caches[i];
		struct kr_diag d = { 0 };
		struct kr_fabric f;
		int rc;

		read_data("net_mixed.net", &f);
		rc = guid2lid_text(&f, c->text, &d);
		if (rc != KR_EPARSE || d.line != c->line || !strstr(d.msg, c->msg))
			fail_msg("case %zu: rc %d line %u \"%s\"; want line %u "
				 "\"%s\"", i, rc, d.line, d.msg, c->line, c->msg);
		assert_int_equal(f.lid[kr_port_by_guid(&f, 0x100001)], 0);
		assert_int_equal(kr_port_by_lid(&f, 7), kr_port_by_guid(&f, 0x500));
		assert_int_equal(f.max_lid, 7);
		kr_fabric_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibsim_file_guids),
		cmocka_unit_test(test_ibnetdiscover_matches_ibsim),
		cmocka_unit_test(test_grouped_matches_plain),
		cmocka_unit_test(test_grouped_chassis_forms),
		cmocka_unit_test(test_ibnetdiscover_lmc),
		cmocka_unit_test(test_ibsim_examples),
		cmocka_unit_test(test_one_sided_links),
		cmocka_unit_test(test_record_forms),
		cmocka_unit_test(test_desc_holding_lid),
		cmocka_unit_test(test_opensm_subnet_lst),
		cmocka_unit_test(test_opensm_subnet_lst_real),
		cmocka_unit_test(test_errors_name_their_line),
		cmocka_unit_test(test_nul_and_missing_file),
		cmocka_unit_test(test_fuzz_truncations),
		cmocka_unit_test(test_fuzz_garbage_lines),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_guid2lid_from_opensm),
		cmocka_unit_test(test_guid2lid_hand_written),
		cmocka_unit_test(test_guid2lid_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
