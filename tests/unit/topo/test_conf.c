/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute.conf: the reader (every key, every error with its line), and
 * what recognition does with it: pinned family, dims, wrap and seed,
 * explicit coordinates, the cache that keeps labels across sweeps, and
 * the list of conflicts when the conf contradicts the fabric. */
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
#include "topo_check.h"

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/kr-topo-conf-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

/* Writes text to tmpdir/name and returns the path (static buffer). */
static const char *put_file(const char *name, const char *text)
{
	static char path[2][160];
	static int which;
	char *p = path[which ^= 1];
	FILE *fp;

	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
	return p;
}

static void data_path(char *buf, size_t len, const char *rel)
{
	const char *src = getenv("KR_SRCDIR");

	snprintf(buf, len, "%s/%s", src ? src : ".", rel);
}

static void test_defaults(void **state)
{
	struct kr_conf c;

	(void)state;
	kr_conf_init(&c);
	assert_int_equal(c.family, KR_FAMILY_NONE);
	assert_int_equal(c.ndim, 0);
	for (unsigned d = 0; d < KR_MAX_DIM; d++)
		assert_int_equal(c.wrap[d], -1);
	assert_int_equal(c.classify, KR_CLASSIFY_XORDET);
	assert_int_equal(c.check, 1);
	assert_int_equal(c.dump_tables, 0);
	assert_int_equal(c.seed_guid, 0);
	assert_string_equal(c.coords_file, "");
	assert_int_equal(c.mcast_sls, 1);	/* SL 0, OpenSM's default */
}

static void test_every_key(void **state)
{
	char path[512], want[600];
	struct kr_conf c;
	struct kr_diag d = { 0 };

	(void)state;
	data_path(path, sizeof(path), "tests/data/topo_all_keys.conf");
	kr_conf_init(&c);
	assert_int_equal(kr_conf_load(&c, path, KR_IN_FILE, &d), KR_OK);
	assert_int_equal(c.family, KR_FAMILY_TORUS);
	assert_int_equal(c.ndim, 3);
	assert_int_equal(c.k[2], 8);
	assert_int_equal(c.wrap[0], 1);
	assert_int_equal(c.wrap[1], 0);
	assert_int_equal(c.wrap[2], -1);
	assert_int_equal(c.p, 2);
	assert_int_equal(c.norder, 3);
	assert_int_equal(c.order[0], 2);
	assert_int_equal(c.order[2], 1);
	assert_int_equal(c.seed_guid, 0x0002c90000000017ull);
	assert_int_equal(c.nseed_port, 2);
	assert_int_equal(c.seed_port[1].dim, 2);
	assert_int_equal(c.seed_port[1].dir, -1);
	assert_int_equal(c.seed_port[1].port, 7);
	/* relative to the conf file's directory */
	snprintf(want, sizeof(want), "%.*s/topo_coords.txt",
		 (int)(strrchr(path, '/') - path), path);
	assert_string_equal(c.coords_file, want);
	assert_string_equal(c.coords_cache, "/var/cache/knsroute/coords");
	assert_string_equal(c.tables_cache, "/var/cache/knsroute/tables");
	assert_int_equal(c.classify, KR_CLASSIFY_DBBQ);
	assert_int_equal(c.classes, 4);
	assert_int_equal(c.vls, 6);
	assert_int_equal(c.lmc, 1);
	assert_int_equal(c.check, 0);
	assert_int_equal(c.dump_tables, 1);
	assert_int_equal(c.mcast_sls, 1u << 0 | 1u << 7);
}

/* The shipped example is a valid file that changes nothing. */
static void test_example_conf(void **state)
{
	char path[512];
	struct kr_conf c, def;
	struct kr_diag d = { 0 };

	(void)state;
	data_path(path, sizeof(path), "conf/knsroute.conf");
	kr_conf_init(&c);
	kr_conf_init(&def);
	if (kr_conf_load(&c, path, KR_IN_FILE, &d))
		fail_msg("%s:%u: %s", path, d.line, d.msg);
	assert_memory_equal(&c, &def, sizeof(c));
}

static void test_errors_name_the_line(void **state)
{
	static const struct { const char *text; unsigned line; const char *msg; } bad[] = {
		{ "family torus\nfoo 1\n", 2, "unknown key \"foo\"" },
		{ "\n# x\ndims 4x4x\n", 3, "dims: expected sizes" },
		{ "p\n", 1, "p: expected 1 value, got 0" },
		{ "p 1 2\n", 1, "p: expected 1 value, got 2" },
		{ "p 300\n", 1, "from 0 to 253" },
		{ "vls 0\n", 1, "from 1 to 15" },
		{ "lmc 8\n", 1, "from 0 to 7" },
		{ "classes 17\n", 1, "from 1 to 16" },
		{ "check maybe\n", 1, "check: expected yes or no" },
		{ "dump_tables often\n", 1, "dump_tables: expected yes or no, not \"often\"" },
		{ "classify fast\n", 1, "classify: expected xordet" },
		{ "family star\n", 1, "family: expected auto, kns, torus, mesh or mikant" },
		{ "seed 0xzz\n", 1, "seed: expected a switch GUID" },
		{ "seed_port 0 * 3\n", 1, "direction \"*\"" },
		{ "seed_port 9 + 3\n", 1, "seed_port: expected a number from 0 to 7" },
		{ "order 0 0\n", 1, "dimension 0 listed twice" },
		/* once shifted 1 by the rejected value (UBSan) */
		{ "order 1 65536\n", 1, "order: expected a number from 0 to 1" },
		{ "wrap maybe\n", 1, "wrap: expected yes, no or auto" },
		{ "dims 4x4\n\nwrap yes yes yes\n", 3, "3 values for 2 dimensions (line 1)" },
		{ "dims 4x4x4\norder 1 0\n", 2, "2 dimensions, but dims says 3" },
		{ "\nmcast_sls 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0\n", 2,
		  "mcast_sls: expected 0 or more values, got 17" },
		{ "mcast_sls 0 16\n", 1, "mcast_sls: expected a number from 0 to 15, not \"16\"" },
	};
	struct kr_diag d;
	struct kr_conf c;
	char longline[1100];
	const char *nul;
	FILE *fp;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = put_file("bad.conf", bad[i].text);

		kr_conf_init(&c);
		d = (struct kr_diag){ 0 };
		assert_int_equal(kr_conf_load(&c, path, KR_IN_FILE, &d), KR_EPARSE);
		assert_string_equal(d.file, path);
		if (d.line != bad[i].line || !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
	}
	memset(longline, 'x', sizeof(longline) - 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(kr_conf_load(&c, put_file("long.conf", longline), KR_IN_FILE, &d),
			 KR_EPARSE);
	assert_int_equal(d.line, 1);
	assert_non_null(strstr(d.msg, "line longer than 1022 characters"));
	/* a NUL byte is said as such, not as a long line */
	nul = put_file("nul.conf", "");
	assert_non_null(fp = fopen(nul, "w"));
	assert_int_equal(fwrite("p 2\nclassify\0 none\n", 1, 20, fp), 20);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(kr_conf_load(&c, nul, KR_IN_FILE, &d), KR_EPARSE);
	assert_int_equal(d.line, 2);
	assert_non_null(strstr(d.msg, "NUL byte in line"));
	assert_int_equal(kr_conf_load(&c, "/nonexistent/knsroute.conf", KR_IN_FILE, &d), KR_EIO);
	assert_int_equal(d.line, 0);
}

static void test_classify_names(void **state)
{
	enum kr_classify cl;

	(void)state;
	for (int i = KR_CLASSIFY_XORDET; i <= KR_CLASSIFY_NONE; i++) {
		assert_int_equal(kr_classify_parse(kr_classify_name(i), &cl), KR_OK);
		assert_int_equal(cl, i);
	}
	assert_string_equal(kr_classify_name(KR_CLASSIFY_IODET), "iodet");
	assert_int_equal(kr_classify_parse("XORDET", &cl), KR_EINVAL);
}

static void conf_from(const char *text, struct kr_conf *c)
{
	struct kr_diag d = { 0 };

	kr_conf_init(c);
	if (kr_conf_load(c, put_file("k.conf", text), KR_IN_FILE, &d))
		fail_msg("line %u: %s", d.line, d.msg);
}

/* knsroute.conf(5): an empty mcast_sls list sets no SL aside for groups,
 * nor the SA's sm_sl with them; every SL may be listed. */
static void test_mcast_sls_lists(void **state)
{
	struct kr_conf c;

	(void)state;
	conf_from("mcast_sls\n", &c);
	c.sm_sl = 3;		/* OpenSM's, from opensm.conf */
	assert_int_equal(c.mcast_sls, 0);
	assert_int_equal(kr_conf_mcast_sls(&c), 0);
	conf_from("mcast_sls 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n", &c);
	assert_int_equal(c.mcast_sls, 0xffff);
	conf_from("mcast_sls 5\n", &c);
	c.sm_sl = 3;
	assert_int_equal(kr_conf_mcast_sls(&c), 1u << 5 | 1u << 3);
}

static struct kr_gen_opts opts(enum kr_family fam, const char *dims,
			       unsigned p, uint64_t shuffle)
{
	struct kr_gen_opts o = { .family = fam, .p = p, .parallel = 1,
				 .shuffle = shuffle != 0, .shuffle_seed = shuffle };

	assert_int_equal(kr_parse_dims(dims, o.k, &o.ndim, NULL), KR_OK);
	for (unsigned d = 0; d < o.ndim; d++)
		o.wrap[d] = fam == KR_FAMILY_TORUS;
	return o;
}

/* Recognises f with conf text; KR_OK results are checked against tr. */
static int with_conf(const struct kr_fabric *f, const struct tc_truth *tr,
		     const char *text, struct kr_topo *t, struct kr_diag *d)
{
	struct kr_conf c;
	int rc;

	conf_from(text, &c);
	*d = (struct kr_diag){ 0 };
	rc = kr_topo_recognize(f, &c, t, d);
	if (!rc) {
		const char *why = tr ? tc_iso(f, tr, t) : NULL;

		tc_assert_valid(f, t);
		if (why)
			fail_msg("%s", why);
	}
	return rc;
}

static void assert_conflict(const struct kr_fabric *f, const char *text,
			    const char *want)
{
	struct kr_topo t;
	struct kr_diag d;

	assert_int_equal(with_conf(f, NULL, text, &t, &d), KR_ETOPO);
	assert_non_null(strstr(d.msg, "knsroute.conf does not fit"));
	assert_non_null(t.report);
	if (!strstr(t.report, want))
		fail_msg("expected \"%s\" in report:\n%s", want, t.report);
	kr_topo_free(&t);
}

/* Without CAs a 2-ary KNS reads as a path or ring; family kns says it is
 * a KNS. */
static void test_family_kns(void **state)
{
	static const char *shapes[] = { "2", "2x2" };
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct kr_gen_opts o = opts(KR_FAMILY_KNS, shapes[i], 0, 3);

		tc_gen(&o, &f, &tr);
		assert_int_equal(with_conf(&f, &tr, "family kns\n", &t, &d), KR_OK);
		assert_int_equal(t.family, KR_FAMILY_KNS);
		assert_int_equal(t.ndim, (unsigned)i + 1);
		kr_topo_free(&t);
		assert_int_equal(with_conf(&f, NULL, "family auto\n", &t, &d), KR_OK);
		assert_int_equal(t.family, i ? KR_FAMILY_TORUS : KR_FAMILY_MESH);
		kr_topo_free(&t);
		tc_truth_free(&tr);
		kr_fabric_free(&f);
	}
}

/* A 4x4 torus is the 4-cube: dims says which reading. */
static void test_dims_pick_the_reading(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "4x4", 1, 5);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;

	(void)state;
	tc_gen(&o, &f, &tr);
	assert_int_equal(with_conf(&f, &tr, "dims 2x2x2x2\n", &t, &d), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_MESH);
	assert_int_equal(t.ndim, 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(t.k[i], 2);
	kr_topo_free(&t);
	assert_int_equal(with_conf(&f, &tr, "ndim 3\n", &t, &d), KR_OK);
	assert_int_equal(t.ndim, 3);
	assert_int_equal(t.k[0] * t.k[1] * t.k[2], 16);
	kr_topo_free(&t);
	assert_conflict(&f, "dims 5x5\n", "dims: no dimension of size 5");
	assert_conflict(&f, "dims 4x4x4\n", "dims: no dimension of size 4");
	assert_int_equal(with_conf(&f, &tr, "family mesh\n", &t, &d), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_MESH);	/* the 4-cube */
	assert_int_equal(t.ndim, 4);
	kr_topo_free(&t);
	assert_int_equal(with_conf(&f, NULL, "family kns\n", &t, &d), KR_ETOPO);
	assert_non_null(strstr(d.msg, "not a KNS"));
	kr_topo_free(&t);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static uint32_t slot_to(const struct kr_fabric *f, uint32_t sw, uint32_t nb)
{
	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		if (f->peer[s] >= 0 && f->owner[f->peer[s]] == nb)
			return s;
	return KR_NONE;
}

/* A ring that lost a link is a path; wrap says it is still a ring. */
static void test_wrap_keeps_a_ring(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "6", 1, 2);
	struct kr_fabric f, g;
	struct kr_topo t;
	struct tc_truth tr, tr2;
	struct kr_diag d;

	(void)state;
	tc_gen(&o, &f, &tr);
	tc_without(&f, &tr, NULL, slot_to(&f, (uint32_t)tr.at[2],
					  (uint32_t)tr.at[3]), &g, &tr2);
	assert_int_equal(with_conf(&g, NULL, "", &t, &d), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_MESH);
	assert_int_equal(t.nmissing_link, 0);
	kr_topo_free(&t);
	assert_int_equal(with_conf(&g, &tr2, "wrap yes\n", &t, &d), KR_OK);
	assert_int_equal(t.family, KR_FAMILY_TORUS);
	assert_int_equal(t.k[0], 6);
	assert_int_equal(t.nmissing_link, 1);
	kr_topo_free(&t);
	assert_conflict(&g, "family torus\n", "no dimension of the fabric wraps");
	tc_truth_free(&tr2);
	tc_truth_free(&tr);
	kr_fabric_free(&g);
	kr_fabric_free(&f);
}

static unsigned ca_port(const struct kr_fabric *f, uint32_t sw)
{
	for (uint32_t s = f->port0[sw] + 1; s < f->port0[sw + 1]; s++)
		if (f->peer[s] >= 0 && !kr_is_switch(f, f->owner[f->peer[s]]))
			return kr_port_num(f, s);
	return 0;
}

static void seed_conf(char *buf, size_t len, const struct kr_fabric *f,
		      uint32_t seed, const char *ports)
{
	snprintf(buf, len, "seed 0x%016llx\n%s",
		 (unsigned long long)f->guid[seed], ports);
}

/* The seed is the origin; a seed port says which neighbour is +1 or -1
 * in which dimension (two of them in one dimension: its 4-ring). */
static void test_seed_ports(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "4x4x4", 1, 9);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;
	uint32_t s, up, back, side;
	char text[256], ports[128];

	(void)state;
	tc_gen(&o, &f, &tr);
	s = (uint32_t)tr.at[21];			/* (1,1,1) */
	up = (uint32_t)tr.at[22];			/* (2,1,1) */
	back = (uint32_t)tr.at[20];			/* (0,1,1) */
	side = (uint32_t)tr.at[25];			/* (1,2,1) */
	snprintf(ports, sizeof(ports), "seed_port 1 + %u\nseed_port 1 - %u\n"
		 "seed_port 0 - %u\n", kr_port_num(&f, slot_to(&f, s, up)),
		 kr_port_num(&f, slot_to(&f, s, back)),
		 kr_port_num(&f, slot_to(&f, s, side)));
	seed_conf(text, sizeof(text), &f, s, ports);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_int_equal(t.sw_pos[s], 0);
	assert_int_equal(t.sw_pos[up], 4);		/* (0,1,0) */
	assert_int_equal(t.sw_pos[back], 12);		/* (0,3,0) */
	assert_int_equal(t.sw_pos[side], 3);		/* (3,0,0) */
	kr_topo_free(&t);
	assert_conflict(&f, "seed 0x77\n", "seed 0x0000000000000077: no such switch");
	snprintf(ports, sizeof(ports), "seed_port 0 + %u\n", ca_port(&f, s));
	seed_conf(text, sizeof(text), &f, s, ports);
	assert_conflict(&f, text, "not linked to a switch");
	snprintf(ports, sizeof(ports), "seed_port 5 + %u\n",
		 kr_port_num(&f, slot_to(&f, s, up)));
	seed_conf(text, sizeof(text), &f, s, ports);
	assert_conflict(&f, text, "dimension 5, but the fabric has 3");
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_kns_seed(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_KNS, "4x4", 1, 4);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;
	uint32_t r, x = KR_NONE;
	char text[256], ports[64];

	(void)state;
	tc_gen(&o, &f, &tr);
	r = (uint32_t)tr.at[5];				/* router (1,1) */
	for (uint32_t s = 0; s < f.nsw; s++)
		if (tr.xdim[s] == 0 && tr.xline[s] == 4)	/* (*,1) */
			x = s;
	snprintf(ports, sizeof(ports), "seed_port 1 + %u\n",
		 kr_port_num(&f, slot_to(&f, r, x)));
	seed_conf(text, sizeof(text), &f, r, ports);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_int_equal(t.sw_pos[r], 0);
	assert_int_equal(t.sw_xdim[x], 1);
	assert_int_equal(t.sw_xline[x], 0);
	kr_topo_free(&t);
	snprintf(ports, sizeof(ports), "seed_port 1 - %u\n",
		 kr_port_num(&f, slot_to(&f, r, x)));
	seed_conf(text, sizeof(text), &f, r, ports);
	assert_conflict(&f, text, "expected a + port of the seed router");
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* Every conflict is listed, one per line; the message names the first. */
static void test_every_conflict_listed(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "5x5x3", 2, 6);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;
	unsigned lines = 0;

	(void)state;
	tc_gen(&o, &f, &tr);
	assert_conflict(&f, "p 1\n", "p 1: switch");
	assert_conflict(&f, "order 1 0\n", "order: 2 dimensions, but the fabric has 3");
	assert_int_equal(with_conf(&f, NULL, "dims 5x5x7\nseed 0x1\np 1\n", &t, &d),
			 KR_ETOPO);
	for (const char *c = t.report; c && *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 3);
	assert_non_null(strstr(d.msg, "(and more, see the report)"));
	kr_topo_free(&t);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* The generator's 3x3 torus (its coordinates, see test_topo) relabelled
 * by x' = 2 - x, y' = y + 1: a grid automorphism. */
static void relabelled(const struct tc_truth *tr, uint32_t sw, unsigned *x,
		       unsigned *y)
{
	*x = 2 - tr->pos[sw] % 3;
	*y = (tr->pos[sw] / 3 + 1) % 3;
}

static const char *coords_file(const struct kr_fabric *f,
			       const struct tc_truth *tr, unsigned every)
{
	char text[2048];
	size_t n = (size_t)snprintf(text, sizeof(text),
				    "family torus\ndims 3x3\n");

	for (uint32_t s = 0; s < f->nsw; s += every) {
		unsigned x, y;

		relabelled(tr, s, &x, &y);
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "0x%016llx %u %u  # pinned\n",
				      (unsigned long long)f->guid[s], x, y);
	}
	return put_file("coords.txt", text);
}

/* Coordinates for every switch are taken as they are; for some of them,
 * they decide the labelling of all. */
static void test_coords_file(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "3x3", 1, 0);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;
	char text[400];

	(void)state;
	tc_gen(&o, &f, &tr);
	for (unsigned every = 1; every <= 4; every += 3) {
		snprintf(text, sizeof(text), "coords_file %s\n",
			 coords_file(&f, &tr, every));
		assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
		for (uint32_t s = 0; s < f.nsw; s++) {
			unsigned x, y;

			relabelled(&tr, s, &x, &y);
			assert_int_equal(t.sw_pos[s], x + 3 * y);
		}
		kr_topo_free(&t);
	}
	snprintf(text, sizeof(text), "coords_file %s\n",
		 put_file("c2.txt", "family torus\ndims 3x3\n"
			  "0x0002c90000000000 0 0\n0x0002c90000000004 0 1\n"));
	assert_conflict(&f, text, "coords_file");
	snprintf(text, sizeof(text), "coords_file %s\n",
		 put_file("c3.txt", "family torus\ndims 5x5\n0x0002c90000000000 0 0\n"));
	assert_conflict(&f, text, "nothing in the fabric");
	snprintf(text, sizeof(text), "family mesh\ncoords_file %s\n",
		 coords_file(&f, &tr, 1));
	assert_conflict(&f, text, "its family differs from knsroute.conf's");
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

static void test_coords_file_errors(void **state)
{
	static const struct { const char *text; unsigned line; const char *msg; } bad[] = {
		{ "0x0002c90000000000 0 0\n", 1, "family and dims must come before" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 3 0\n", 3,
		  "coordinate 0: expected 0..2, not \"3\"" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 1\n", 3,
		  "expected 2 coordinates, got 1" },
		{ "family kns\ndims 3x3\n0x0002c90000000000 * *\n", 3,
		  "coordinate 1: expected 0..2 or *" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 0\n"
		  "0x0002c90000000000 0 1\n", 4, "listed twice" },
		{ "family torus\ndims 3x3\n0x0002c90100000000 0 0\n", 3,
		  "is not a switch of the fabric" },
		{ "dims 3x3\nfamily ring\n", 2, "family: expected torus, mesh, kns or mikant" },
		{ "family mesh\nsize 3x3\n", 2, "expected family, dims, wrap" },
		{ "family torus\ndims 3x3\nwrap yes maybe\n", 3, "wrap: expected yes or no" },
		{ "family torus\ndims 3x3\n0xq 0 0\n", 3, "expected a GUID" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 0 cas 1\n", 3,
		  "cas: expected PORT:SLOT (port 1..254, slot 0..255), not \"1\"" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 0 cas 0:1\n", 3,
		  "not \"0:1\"" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 0 cas 1:256\n", 3,
		  "not \"1:256\"" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 0 cas 1:0 2:-1\n", 3,
		  "not \"2:-1\"" },
		{ "family torus\ndims 3x3\n0x0000000000abcdef 0 0 cas 1:x\n", 3,
		  "not \"1:x\"" },
		{ "family torus\ndims 3x3\n0x0002c90000000000 0 cas 1:0\n", 3,
		  "expected 2 coordinates, got 1" },
		{ "family kns\ndims 3x3\n0x0002c90000000000 0 * cas 1:0\n", 3,
		  "cas: a crossbar has no CAs" },
		{ "family torus\ncas 1:0\n", 2,
		  "cas: only after a switch's coordinates" },
		{ "family mikant\ndims 3x3x3x2\n0x0002c90000000000 0 0 0 0\n", 2,
		  "dims: a MiKANT(k, n) has n - 1 digits of k" },
		{ "family mikant\ndims 3x4x2x2\n", 2,
		  "dims: a MiKANT(k, n) has n - 1 digits of k" },
	};
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "3x3", 1, 0);
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_diag d;
	char text[300];

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = put_file("bad.coords", bad[i].text);

		snprintf(text, sizeof(text), "coords_file %s\n", path);
		conf_from(text, &c);
		d = (struct kr_diag){ 0 };
		assert_int_equal(kr_topo_recognize(&f, &c, &t, &d), KR_EPARSE);
		assert_string_equal(d.file, c.coords_file);
		if (d.line != bad[i].line || !strstr(d.msg, bad[i].msg))
			fail_msg("case %zu: line %u \"%s\"", i, d.line, d.msg);
		kr_topo_free(&t);
	}
	{	/* a line past the reader's buffer is refused, not split */
		char *text_long = malloc(5000);
		size_t n;

		assert_non_null(text_long);
		n = (size_t)snprintf(text_long, 5000, "family torus\ndims 3x3\n"
				     "0x0002c90000000000 0 0 cas");
		while (n < 4900)
			n += (size_t)snprintf(text_long + n, 5000 - n, " 1:0");
		snprintf(text, sizeof(text), "coords_file %s\n",
			 put_file("long.coords", text_long));
		free(text_long);
		conf_from(text, &c);
		assert_int_equal(kr_topo_recognize(&f, &c, &t, &d), KR_EPARSE);
		assert_int_equal(d.line, 3);
		assert_non_null(strstr(d.msg, "line longer than 4094 characters"));
		kr_topo_free(&t);
	}
	conf_from("coords_file /nonexistent/coords\n", &c);
	assert_int_equal(kr_topo_recognize(&f, &c, &t, &d), KR_EIO);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

static const char *write_cache(const struct kr_fabric *f, const struct kr_topo *t)
{
	static char path[160];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(kr_topo_cache_write(fp, f, t), KR_OK);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* What becomes of the switch of lowest GUID by sweep 2: nothing, gone,
 * or replaced by one of a new GUID, the highest. */
enum lowest { LOWEST_KEPT, LOWEST_GONE, LOWEST_REPLACED };

/* Sweep 1 recognises and writes the cache; sweep 2 sees more faults (drop,
 * cut, a replaced switch) and, through the cache, keeps every label (a
 * replaced switch takes the old one's). */
static void later_sweep(struct kr_gen_opts o, enum lowest lowest,
			uint32_t cut_at, uint32_t cut_to)
{
	struct kr_fabric f, g;
	struct kr_topo first, t;
	struct tc_truth tr, tr2;
	struct kr_diag d;
	uint8_t *drop;
	char text[300];

	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &first, NULL), KR_OK);
	snprintf(text, sizeof(text), "coords_cache %s\n", write_cache(&f, &first));
	drop = calloc(f.nnode, 1);
	assert_non_null(drop);
	for (uint32_t s = 0, low = 0; s < f.nsw && lowest; s++) {
		low = f.guid[s] < f.guid[low] ? s : low;
		drop[low] = s + 1 == f.nsw && lowest == LOWEST_GONE;
		if (s + 1 == f.nsw && lowest == LOWEST_REPLACED)
			f.guid[low] = 0x0002c9fffffffff0ull;
	}
	tc_without(&f, &tr, drop, cut_at == KR_NONE ? KR_NONE :
		   slot_to(&f, (uint32_t)tr.at[cut_at], (uint32_t)tr.at[cut_to]),
		   &g, &tr2);
	assert_int_equal(with_conf(&g, &tr2, text, &t, &d), KR_OK);
	tc_assert_same(&f, &first, &g, &t);
	assert_null(t.report);
	kr_topo_free(&t);
	kr_topo_free(&first);
	tc_truth_free(&tr2);
	tc_truth_free(&tr);
	kr_fabric_free(&g);
	kr_fabric_free(&f);
	free(drop);
}

static void test_cache_keeps_labels(void **state)
{
	(void)state;
	/* a ring without a link is a path, unless the cache knows better */
	later_sweep(opts(KR_FAMILY_TORUS, "8", 1, 3), LOWEST_KEPT, 2, 3);
	/* the origin (lowest GUID) itself gone */
	later_sweep(opts(KR_FAMILY_TORUS, "5x5", 1, 0), LOWEST_GONE, 7, 8);
	later_sweep(opts(KR_FAMILY_TORUS, "4x4x3", 1, 11), LOWEST_GONE, 5, 6);
	later_sweep(opts(KR_FAMILY_KNS, "4x4", 2, 0), LOWEST_GONE, KR_NONE, 0);
	/* MiKANT(3, 3): without (0,0,00), the lowest GUID, and the link
	 * (0,0,01) - (0,1,01), positions 1 and 10; shuffled too */
	later_sweep((struct kr_gen_opts){ .family = KR_FAMILY_MIKANT, .ndim = 3,
					  .k = { 3 } }, LOWEST_GONE, 1, 10);
	later_sweep((struct kr_gen_opts){ .family = KR_FAMILY_MIKANT, .ndim = 3,
					  .k = { 3 }, .shuffle = 1,
					  .shuffle_seed = 8 }, LOWEST_GONE, 1, 10);
	/* (1,2) - (1,3) of a 2x5 mesh leaves two switches the graph cannot
	 * tell apart; the cache can */
	later_sweep(opts(KR_FAMILY_MESH, "2x5", 1, 0), LOWEST_KEPT, 5, 7);
}

/* A MiKANT switch replaced since the cache was written: the cache names
 * all switches but the new one, and the graph alone would number groups
 * and digits otherwise (the lowest GUID went). The cache pins the others,
 * which keep their places, and the new one takes the old one's. */
static void test_cache_pins_mikant(void **state)
{
	static const unsigned shape[][2] = { { 3, 3 }, { 3, 4 }, { 4, 3 } };

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++)
		for (unsigned i = 0; i < 3; i++)
			later_sweep((struct kr_gen_opts){
				.family = KR_FAMILY_MIKANT, .ndim = shape[i][1],
				.k = { shape[i][0] }, .shuffle = 1,
				.shuffle_seed = seed }, LOWEST_REPLACED,
				KR_NONE, 0);
}

/* A seed or seed ports set after the cache was written are applied: the
 * cache whose origin is another switch is set aside, and says so; a seed
 * the fabric lacks is named, the cache kept (the seed may have failed). */
static void test_cache_and_seed(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "4x4", 1, 5);
	struct kr_fabric f;
	struct kr_topo first, t;
	struct tc_truth tr;
	struct kr_diag d;
	char text[400];
	const char *cache;
	uint32_t other = KR_NONE, right = KR_NONE, o0 = KR_NONE;

	(void)state;
	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &first, NULL), KR_OK);
	cache = write_cache(&f, &first);
	for (uint32_t s = 0; s < f.nsw; s++)
		if (first.sw_pos[s] == 5)	/* (1,1) */
			other = s;
	assert_int_not_equal(other, KR_NONE);
	snprintf(text, sizeof(text), "coords_cache %s\nseed 0x%016llx\n", cache,
		 (unsigned long long)f.guid[other]);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_int_equal(t.sw_pos[other], 0);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "not used: its origin or axes are not "
			       "knsroute.conf's seed and seed_port"));
	kr_topo_free(&t);

	/* the seed at the cache's origin, its port +x kept: the cache holds */
	for (uint32_t s = 0; s < f.nsw; s++)
		o0 = first.sw_pos[s] == 0 ? s : o0;
	for (unsigned p = 1; p <= f.nports[o0]; p++) {
		uint32_t slot = kr_port(&f, o0, p), x;

		if (f.peer[slot] < 0 || (x = f.owner[f.peer[slot]]) >= f.nsw ||
		    first.sw_pos[x] != 1)
			continue;
		right = p;
		snprintf(text, sizeof(text), "coords_cache %s\nseed 0x%016llx\n"
			 "seed_port 0 + %u\n", cache,
			 (unsigned long long)f.guid[o0], p);
	}
	assert_int_not_equal(right, KR_NONE);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_null(t.report);
	kr_topo_free(&t);
	/* the same port as -x: set aside, read afresh with x reversed */
	*strstr(text, " + ") = '\0';
	snprintf(text + strlen(text), sizeof(text) - strlen(text), " - %u\n",
		 right);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "seed_port"));
	kr_topo_free(&t);

	snprintf(text, sizeof(text), "coords_cache %s\nseed 0xdeadbeef\n",
		 cache);
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "seed 0x00000000deadbeef: no such "
			       "switch; "));
	kr_topo_free(&t);
	kr_topo_free(&first);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

/* f as a net file with the GUIDs of switches a and b traded: every cable
 * of one moved to the other, as far as a GUID-keyed cache can tell. */
static void traded(const struct kr_fabric *f, uint32_t a, uint32_t b,
		   struct kr_fabric *g)
{
	char *text = NULL, ga[24], gb[24];
	size_t len = 0, na, nb;
	FILE *out = open_memstream(&text, &len);
	struct kr_diag d = { 0 };

	assert_non_null(out);
	assert_int_equal(kr_net_write(out, f), KR_OK);
	assert_int_equal(fclose(out), 0);
	na = (size_t)snprintf(ga, sizeof(ga), "%llx", (unsigned long long)f->guid[a]);
	nb = (size_t)snprintf(gb, sizeof(gb), "%llx", (unsigned long long)f->guid[b]);
	assert_int_equal(na, nb);
	for (char *p = text; (p = strpbrk(p, "0123456789abcdef")); ) {
		size_t n = strspn(p, "0123456789abcdef");

		if (n == na && !memcmp(p, ga, na))
			memcpy(p, gb, nb);
		else if (n == nb && !memcmp(p, gb, nb))
			memcpy(p, ga, na);
		p += n;
	}
	assert_int_equal(kr_net_parse(text, len, "traded", g, &d), KR_OK);
	free(text);
}

/* Two switches trade every cable after the cache was written: the
 * cache's labelling would leave healthy cables unused and count the
 * links they displaced as missing for ever; a reading afresh places
 * them all, and is taken, saying why. A cache that keeps a switch gone
 * (nothing unplaced) is not second-guessed. */
static void test_cache_after_recabling(void **state)
{
	static const struct { enum kr_family fam; const char *dims;
			      unsigned p; } cases[] = {
		{ KR_FAMILY_TORUS, "4x4", 1 }, { KR_FAMILY_KNS, "4x4", 2 },
	};
	struct kr_fabric f, g;
	struct kr_topo first, t;
	struct tc_truth tr;
	struct kr_diag d;
	char text[300];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kr_gen_opts o = opts(cases[i].fam, cases[i].dims,
					    cases[i].p, 0);

		tc_gen(&o, &f, &tr);
		assert_int_equal(kr_topo_recognize(&f, NULL, &first, NULL),
				 KR_OK);
		snprintf(text, sizeof(text), "coords_cache %s\n",
			 write_cache(&f, &first));
		traded(&f, 1, 5, &g);
		assert_int_equal(with_conf(&g, NULL, text, &t, &d), KR_OK);
		assert_int_equal(t.nmissing_link, 0);
		assert_int_equal(t.nmissing_sw, 0);
		assert_non_null(t.report);
		assert_non_null(strstr(t.report, "cables between switches "
				       "without a place, a reading afresh "
				       "places every one (0 faults against"));
		/* nothing of the cache's attempt is left in the report */
		assert_null(strstr(t.report, "; not used"));
		kr_topo_free(&t);
		kr_topo_free(&first);
		tc_truth_free(&tr);
		kr_fabric_free(&g);
		kr_fabric_free(&f);
	}
}

/* A subnet switch of a KNS with fat-tree subnets dies: the sweep's cache
 * keeps its line (its subnet's switches share their line's coordinates,
 * so no other switch holds its place), once only however often it is
 * saved, so that the cache still names every switch when it comes back
 * and the labels stay; a cache without it would be set aside then. */
static void test_cache_keeps_dead_subnet_switch(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_KNS, "8x8", 1, 0);
	struct kr_fabric f, g;
	struct kr_topo first, t;
	struct tc_truth tr, tr2;
	struct kr_diag d = { 0 };
	struct kr_conf c;
	char text[300], line[200], want[40];
	const char *cache;
	uint32_t dead = KR_NONE;
	uint8_t *drop;
	unsigned listed = 0;
	FILE *fp;

	(void)state;
	o.radix = 4;
	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &first, NULL), KR_OK);
	assert_true(first.s > 1);
	cache = write_cache(&f, &first);
	snprintf(text, sizeof(text), "coords_cache %s\n", cache);
	for (uint32_t s = 0; s < f.nsw && dead == KR_NONE; s++)
		dead = first.sw_stage[s] == 0 ? s : KR_NONE;
	drop = calloc(f.nnode, 1);
	assert_non_null(drop);
	drop[dead] = 1;
	tc_without(&f, &tr, drop, KR_NONE, &g, &tr2);
	conf_from(text, &c);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(kr_topo_recognize(&g, &c, &t, &d), KR_OK);
		assert_int_equal(kr_topo_cache_save(cache, KR_TO_OWN, &g, &t,
						    &d), KR_OK);
		kr_topo_free(&t);
	}
	snprintf(want, sizeof(want), "0x%016llx ",
		 (unsigned long long)f.guid[dead]);
	assert_non_null(fp = fopen(cache, "r"));
	while (fgets(line, sizeof(line), fp))
		listed += !strncmp(line, want, strlen(want));
	fclose(fp);
	assert_int_equal(listed, 1);
	assert_int_equal(kr_topo_recognize(&f, &c, &t, &d), KR_OK);
	if (t.report)
		assert_null(strstr(t.report, "not used"));
	tc_assert_same(&f, &first, &f, &t);
	kr_topo_free(&t);
	kr_topo_free(&first);
	tc_truth_free(&tr2);
	tc_truth_free(&tr);
	kr_fabric_free(&g);
	kr_fabric_free(&f);
	free(drop);
}

/* A 3x5 torus (x = 0..2) loses columns x = 1 and 2, two thirds of its
 * switches; then (1,0) comes back. The graph alone reads the remnant as
 * a ring of 5 and the comeback not at all ("runs both ways"), so OpenSM
 * fell back to an engine with credit loops: the cache, saved over by the
 * remnant's sweep, must still place every switch as the first sweep did. */
static void test_cache_outlives_most_switches(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "3x5", 1, 0);
	struct kr_fabric f, cut, back;
	struct kr_topo first, t;
	struct tc_truth tr, tr_cut, tr_back;
	struct kr_diag d = { 0 };
	unsigned listed = 0;
	uint8_t *drop;
	char text[300], line[200];
	const char *cache;
	FILE *fp;

	(void)state;
	tc_gen(&o, &f, &tr);
	assert_int_equal(kr_topo_recognize(&f, NULL, &first, NULL), KR_OK);
	cache = write_cache(&f, &first);
	snprintf(text, sizeof(text), "coords_cache %s\n", cache);
	drop = calloc(f.nnode, 1);
	assert_non_null(drop);
	for (uint32_t pos = 0; pos < 15; pos++)
		drop[tr.at[pos]] = pos % 3 != 0;
	tc_without(&f, &tr, drop, KR_NONE, &cut, &tr_cut);
	assert_int_equal(with_conf(&cut, &tr_cut, text, &t, &d), KR_OK);
	tc_assert_same(&f, &first, &cut, &t);
	assert_int_equal(t.nmissing_sw, 10);
	/* the plugin saves each sweep's labelling: the gone switches stay */
	assert_int_equal(kr_topo_cache_save(cache, KR_TO_OWN, &cut, &t, &d), KR_OK);
	kr_topo_free(&t);
	fp = fopen(cache, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		listed += !strncmp(line, "0x", 2);
	fclose(fp);
	assert_int_equal(listed, 15);
	drop[tr.at[1]] = 0;	/* (1,0) back */
	tc_without(&f, &tr, drop, KR_NONE, &back, &tr_back);
	assert_int_equal(with_conf(&back, &tr_back, text, &t, &d), KR_OK);
	tc_assert_same(&f, &first, &back, &t);
	assert_int_equal(t.nmissing_sw, 9);
	kr_topo_free(&t);
	kr_topo_free(&first);
	tc_truth_free(&tr_back);
	tc_truth_free(&tr_cut);
	tc_truth_free(&tr);
	kr_fabric_free(&back);
	kr_fabric_free(&cut);
	kr_fabric_free(&f);
	free(drop);
}

/* A cache that contradicts the links is set aside (with a note) and the
 * fabric recognised as if there were none. */
static void test_cache_set_aside(void **state)
{
	struct kr_gen_opts o = opts(KR_FAMILY_TORUS, "3x3", 1, 0);
	struct kr_fabric f;
	struct kr_topo t;
	struct tc_truth tr;
	struct kr_diag d;
	char text[300];

	(void)state;
	tc_gen(&o, &f, &tr);
	snprintf(text, sizeof(text), "coords_cache %s\n",
		 put_file("cache", "family torus\ndims 3x3\n"
			  "0x0002c90000000000 0 0\n0x0002c90000000004 0 1\n"));
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_non_null(t.report);
	assert_non_null(strstr(t.report, "not used"));
	kr_topo_free(&t);
	put_file("cache", "this is not a coordinates file\n");
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_non_null(strstr(t.report, "coords_cache not used"));
	kr_topo_free(&t);
	unlink(put_file("cache", ""));
	assert_int_equal(with_conf(&f, &tr, text, &t, &d), KR_OK);
	assert_null(t.report);
	kr_topo_free(&t);
	tc_truth_free(&tr);
	kr_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_example_conf),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_mcast_sls_lists),
		cmocka_unit_test(test_classify_names),
		cmocka_unit_test(test_family_kns),
		cmocka_unit_test(test_dims_pick_the_reading),
		cmocka_unit_test(test_wrap_keeps_a_ring),
		cmocka_unit_test(test_seed_ports),
		cmocka_unit_test(test_kns_seed),
		cmocka_unit_test(test_every_conflict_listed),
		cmocka_unit_test(test_coords_file),
		cmocka_unit_test(test_coords_file_errors),
		cmocka_unit_test(test_cache_keeps_labels),
		cmocka_unit_test(test_cache_pins_mikant),
		cmocka_unit_test(test_cache_outlives_most_switches),
		cmocka_unit_test(test_cache_and_seed),
		cmocka_unit_test(test_cache_after_recabling),
		cmocka_unit_test(test_cache_keeps_dead_subnet_switch),
		cmocka_unit_test(test_cache_set_aside),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
