/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Table dumps against real output: a shuffled 3x3 torus (random GUIDs, so
 * OpenSM's byte-swapped GUID order matters), LMC 1, routed by OpenSM 3.3.23
 * `dor` with QoS on, on ibsim; chk_t33.ibnd is its ibnetdiscover output,
 * the other chk_t33-* files what opensm -D 0x43, dump_lfts.sh, ibroute -a
 * / -n, smpquery sl2vl and saquery -p printed. */
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

static char *data_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("KR_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/data/%s", dir ? dir : ".", name);
	return path;
}

static char *load(const char *name, size_t *len)
{
	char *buf = NULL;
	int rc = kr_slurp(data_path(name), KR_IN_STREAM, &buf, len, NULL);

	assert_int_equal(rc, KR_OK);
	return buf;
}

static int setup_t33(void **state)
{
	struct kr_fabric *f = calloc(1, sizeof(*f));

	assert_int_equal(kr_net_read(data_path("chk_t33.ibnd"), f, NULL), KR_OK);
	*state = f;
	return 0;
}

static int teardown_t33(void **state)
{
	kr_fabric_free(*state);
	free(*state);
	return 0;
}

/* What a writer puts into a memory buffer. */
static char *written(int (*wr)(FILE *, const struct kr_fabric *,
			       const struct kr_tables *),
		     const struct kr_fabric *f, const struct kr_tables *t,
		     size_t *len)
{
	char *buf;
	FILE *out = open_memstream(&buf, len);

	assert_int_equal(wr(out, f, t), KR_OK);
	fclose(out);
	return buf;
}

static void assert_same_file(const char *name, const char *buf, size_t len)
{
	size_t flen;
	char *want = load(name, &flen);

	assert_int_equal(len, flen);
	assert_memory_equal(buf, want, len);
	free(want);
}

static void read_osm(const struct kr_fabric *f, struct kr_tables *t)
{
	assert_int_equal(kr_lfts_read(data_path("chk_t33-lfts.dump"), f, t,
				      NULL), KR_OK);
	assert_int_equal(kr_sl2vl_read(data_path("chk_t33-sl2vl.dump"), f, t,
				       NULL), KR_OK);
}

static void test_osm_dumps_byte_for_byte(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *buf;

	read_osm(f, &t);
	assert_int_equal(t.stride, 28);	/* "Unicast lids [0-27]" */
	buf = written(kr_lfts_write, f, &t, &len);
	assert_same_file("chk_t33-lfts.dump", buf, len);
	free(buf);
	buf = written(kr_sl2vl_write, f, &t, &len);
	assert_same_file("chk_t33-sl2vl.dump", buf, len);
	free(buf);
	/* QoS default: SL i -> VL i mod 8 (ibsim ports have 8 data VLs) */
	assert_int_equal(kr_map_vl(kr_tables_sl2vl(f, &t, 0, 1, 2), 9), 1);
	kr_tables_free(&t);
}

/* A switch description longer than the writer's line buffer still comes
 * out whole, in place, and the dump reads back to the same tables. */
static void test_lfts_long_description(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_fabric g = *f;
	struct kr_tables t, back;
	char desc[700], *buf, *tab, *path;
	size_t len, at, tablen = 0;
	FILE *out;

	memset(desc, 'x', sizeof(desc) - 1);
	desc[sizeof(desc) - 1] = '\0';
	for (uint32_t i = 0; i < f->nnode; i++)
		if (f->desc_off[i] + strlen(kr_node_desc(f, i)) + 1 > tablen)
			tablen = f->desc_off[i] + strlen(kr_node_desc(f, i)) + 1;
	tab = malloc(tablen + sizeof(desc));
	memcpy(tab, f->strtab, tablen);
	memcpy(tab + tablen, desc, sizeof(desc));
	g.strtab = tab;
	g.desc_off = malloc(f->nnode * sizeof(*g.desc_off));
	memcpy(g.desc_off, f->desc_off, f->nnode * sizeof(*g.desc_off));
	assert_true(kr_is_switch(f, 0));
	g.desc_off[0] = (uint32_t)tablen;
	read_osm(f, &t);
	buf = written(kr_lfts_write, &g, &t, &len);
	/* in its own block's header, whole */
	for (at = 0; at + sizeof(desc) + 4 <= len &&
		     (strncmp(buf + at, "('", 2) ||
		      strncmp(buf + at + 2, desc, sizeof(desc) - 1) ||
		      strncmp(buf + at + 1 + sizeof(desc), "'):\n", 4)); at++)
		;
	assert_true(at + sizeof(desc) + 4 <= len);
	assert_non_null(path = strdup("/tmp/kr-test-dump-XXXXXX"));
	assert_true(mkstemp(path) >= 0);
	assert_non_null(out = fopen(path, "w"));
	fwrite(buf, 1, len, out);
	fclose(out);
	assert_int_equal(kr_lfts_read(path, &g, &back, NULL), KR_OK);
	assert_memory_equal(back.lft, t.lft, (size_t)f->nsw * t.stride);
	unlink(path);
	free(path);
	free(buf);
	free(tab);
	free(g.desc_off);
	kr_tables_free(&back);
	kr_tables_free(&t);
}

/* dump_lfts.sh output (dump_fts plus its warning) holds the same LFTs. */
static void test_dump_lfts_sh_same_tables(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables osm, diag;

	read_osm(f, &osm);
	assert_int_equal(kr_lfts_read(data_path("chk_t33-dump_lfts.txt"), f,
				      &diag, NULL), KR_OK);
	assert_int_equal(diag.stride, osm.stride);
	assert_memory_equal(diag.lft, osm.lft, (size_t)f->nsw * osm.stride);
	kr_tables_free(&osm);
	kr_tables_free(&diag);
}

/* ibroute -a and -n on the switch with LID 1: that row only. */
static void test_ibroute_single_switch(void **state)
{
	static const char *const files[] = { "chk_t33-ibroute-a.txt",
					     "chk_t33-ibroute-n.txt" };
	const struct kr_fabric *f = *state;
	uint32_t sw = f->owner[kr_port_by_lid(f, 1)];
	struct kr_tables osm, diag;

	read_osm(f, &osm);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(kr_lfts_read(data_path(files[i]), f, &diag,
					      NULL), KR_OK);
		for (uint32_t s = 0; s < f->nsw; s++)
			for (unsigned lid = 0; lid < osm.stride; lid++)
				assert_int_equal(kr_lft_port(&diag, s, lid),
						 s == sw ? kr_lft_port(&osm, s, lid)
							 : KR_NO_PORT);
		kr_tables_free(&diag);
	}
	kr_tables_free(&osm);
}

/* smpquery sl2vl for LID 1 out port 2: the maps OpenSM's dump has. For
 * LID 10 it shows out port 0, which OpenSM does not program or dump: there
 * ibsim's own map (SL i -> VL i, SL 15 -> VL 7). Maps not listed stay 0. */
static void test_smpquery_sl2vl(void **state)
{
	const struct kr_fabric *f = *state;
	uint32_t sw1 = f->owner[kr_port_by_lid(f, 1)];
	uint32_t sw10 = f->owner[kr_port_by_lid(f, 10)];
	struct kr_tables osm, smp = { 0 };

	read_osm(f, &osm);
	assert_int_equal(kr_sl2vl_read(data_path("chk_t33-smp-sl2vl.txt"), f,
				       &smp, NULL), KR_OK);
	for (unsigned in = 0; in <= f->nports[sw1]; in++)
		assert_int_equal(kr_tables_sl2vl(f, &smp, sw1, in, 2),
				 kr_tables_sl2vl(f, &osm, sw1, in, 2));
	assert_true(kr_tables_sl2vl(f, &smp, sw10, 3, 0) ==
		    0x7edcba9876543210ull);
	assert_int_equal(kr_tables_sl2vl(f, &osm, sw10, 3, 0), 0);
	assert_int_equal(kr_tables_sl2vl(f, &smp, sw1, 1, 3), 0);
	assert_int_not_equal(kr_tables_sl2vl(f, &osm, sw1, 1, 3), 0);
	kr_tables_free(&osm);
	kr_tables_free(&smp);
}

/* ------------------------------------------------------------------ */
/* Round trips of generated tables                                    */

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A shuffled 4x4 torus, 2 CAs per switch, LMC 1; tables full of random
 * ports (some unrouted), random maps and random path SLs. */
static void random_tables(struct kr_fabric *f, struct kr_tables *t)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 4, 4 }, .wrap = { 1, 1 }, .p = 2,
				 .parallel = 1, .shuffle = 1, .shuffle_seed = 3,
				 .assign_lids = 1, .lmc = 1 };
	uint64_t x = 88172645463325252ull;
	size_t npair = 0;

	assert_int_equal(kr_gen(&o, f, NULL, NULL, NULL, NULL), KR_OK);
	assert_int_equal(kr_tables_init(t, f, f->max_lid + 1, 1, 1), KR_OK);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned lid = 0; lid < t->stride; lid++) {
			unsigned v = (unsigned)(rng_next(&x) % (f->nports[sw] + 2u));

			t->lft[sw * t->stride + lid] = v > f->nports[sw] ?
						       KR_NO_PORT : (uint8_t)v;
		}
	for (uint32_t i = 0; i < t->sl2vl_base[f->nnode]; i++)
		t->sl2vl[i] = rng_next(&x);
	t->pair_sl = malloc(200 * sizeof(*t->pair_sl));
	for (unsigned lid = 1; lid < t->stride; lid++) {
		if (kr_port_by_lid(f, lid) == KR_NONE)
			continue;
		t->dlid_sl[lid] = (uint8_t)(rng_next(&x) % 16);
		if (npair < 200 && rng_next(&x) % 3 == 0)
			t->pair_sl[npair++] = (struct kr_sl_pair){
				.slid = (uint16_t)f->lid[f->port0[f->nsw] + 1],
				.dlid = (uint16_t)lid,
				.sl = (uint8_t)(rng_next(&x) % 16) };
	}
	t->npair_sl = npair;
	assert_int_equal(kr_tables_sort_pairs(t, NULL), KR_OK);
}

/* Maps the SL2VL dump carries: switch out ports with a link (every in
 * port), linked CA ports (a CA has one map per port, whatever "in"). */
static bool map_dumped(const struct kr_fabric *f, uint32_t node, unsigned out)
{
	return f->peer[kr_port(f, node, out)] >= 0;
}

static void test_round_trip_generated(void **state)
{
	struct kr_fabric f;
	struct kr_tables t, back;
	struct kr_diag d = { 0 };
	size_t len;
	char *buf;

	(void)state;
	random_tables(&f, &t);
	buf = written(kr_lfts_write, &f, &t, &len);
	assert_int_equal(kr_lfts_parse(buf, len, &f, &back, &d), KR_OK);
	free(buf);
	assert_int_equal(back.stride, t.stride);
	assert_memory_equal(back.lft, t.lft, (size_t)f.nsw * t.stride);
	buf = written(kr_sl2vl_write, &f, &t, &len);
	assert_int_equal(kr_sl2vl_parse(buf, len, &f, &back, &d), KR_OK);
	free(buf);
	for (uint32_t n = 0; n < f.nnode; n++)
		for (unsigned in = 0; in <= f.nports[n]; in++)
			for (unsigned out = 0; out <= f.nports[n]; out++)
				assert_true(kr_tables_sl2vl(&f, &back, n, in, out) ==
					    (map_dumped(&f, n, out) ?
					     kr_tables_sl2vl(&f, &t, n, in, out) : 0));
	buf = written(kr_path_sl_write, &f, &t, &len);
	assert_int_equal(kr_path_sl_parse(buf, len, &f, &back, &d), KR_OK);
	free(buf);
	assert_true(back.npair_sl <= t.npair_sl);
	for (unsigned s = 1; s < t.stride; s++)
		for (unsigned l = 1; l < t.stride; l++)
			if (kr_port_by_lid(&f, l) != KR_NONE)
				assert_int_equal(kr_tables_path_sl(&back, s, l),
						 kr_tables_path_sl(&t, s, l));
	kr_tables_free(&back);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* buf in a fresh temporary file; the caller unlinks and frees the path. */
static char *temp_file(const char *buf, size_t len)
{
	char *path = strdup("/tmp/kr-test-dump-XXXXXX");
	FILE *out;
	int fd;

	assert_non_null(path);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(out = fdopen(fd, "w"));
	assert_int_equal(fwrite(buf, 1, len, out), len);
	assert_int_equal(fclose(out), 0);
	return path;
}

/* The readers take files a chunk (64 KiB) at a time: dumps longer than a
 * chunk read from a file give the tables the same text gives from memory,
 * and a line too long is refused at its own line when it straddles two
 * chunks. */
static void test_stream_chunks(void **state)
{
	struct kr_fabric f;
	struct kr_tables t, mem, file;
	struct kr_diag dm = { 0 }, df = { 0 };
	size_t len, at;
	char *buf, *path, *big;

	(void)state;
	random_tables(&f, &t);
	buf = written(kr_lfts_write, &f, &t, &len);
	assert_true(len > 70000);
	path = temp_file(buf, len);
	assert_int_equal(kr_lfts_parse(buf, len, &f, &mem, NULL), KR_OK);
	assert_int_equal(kr_lfts_read(path, &f, &file, NULL), KR_OK);
	assert_int_equal(file.stride, mem.stride);
	assert_memory_equal(file.lft, mem.lft, (size_t)f.nsw * mem.stride);
	kr_tables_free(&mem);
	kr_tables_free(&file);
	unlink(path);
	free(path);

	/* one entry line around the first chunk's end becomes 1500 bytes */
	for (at = 65000; buf[at - 1] != '\n'; at++)
		;
	big = malloc(len + 1500);
	memcpy(big, buf, at);
	memset(big + at, 'x', 1500);
	memcpy(big + at + 1500, buf + at, len - at);
	path = temp_file(big, len + 1500);
	assert_int_equal(kr_lfts_parse(big, len + 1500, &f, &mem, &dm),
			 KR_EPARSE);
	assert_int_equal(kr_lfts_read(path, &f, &file, &df), KR_EPARSE);
	assert_true(dm.line > 1);
	assert_int_equal(df.line, dm.line);
	assert_string_equal(df.msg, "line longer than 1023 characters");
	unlink(path);
	free(path);
	free(big);
	free(buf);

	buf = written(kr_sl2vl_write, &f, &t, &len);
	path = temp_file(buf, len);
	kr_tables_init(&mem, &f, f.max_lid + 1, 0, 0);
	kr_tables_init(&file, &f, f.max_lid + 1, 0, 0);
	assert_int_equal(kr_sl2vl_parse(buf, len, &f, &mem, NULL), KR_OK);
	assert_int_equal(kr_sl2vl_read(path, &f, &file, NULL), KR_OK);
	assert_memory_equal(file.sl2vl, mem.sl2vl,
			    mem.sl2vl_base[f.nnode] * sizeof(*mem.sl2vl));
	unlink(path);
	free(path);
	free(buf);
	kr_tables_free(&mem);
	kr_tables_free(&file);
	kr_tables_free(&t);
	kr_fabric_free(&f);
}

/* A block announcing LIDs beyond the topology's after others were read
 * widens every row, keeping what the earlier blocks gave. */
static void test_lfts_grow(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_tables want, t;
	size_t len;
	char *buf = load("chk_t33-lfts.dump", &len), *text, *p;
	FILE *m;

	read_osm(f, &want);
	assert_non_null(m = open_memstream(&text, &len));
	p = strstr(buf, "27 lids dumped\n") + 15;	/* first block */
	fwrite(buf, 1, (size_t)(p - buf), m);
	p = strchr(p, '\n') + 1;		/* second header, rewritten */
	fputs("Unicast lids [0-40] of switch Lid 5 guid 0x0002c9ff5cd68e04 "
	      "('sw-cc0da93e'):\n", m);
	fwrite(p, 1, (size_t)(strstr(p, "27 lids dumped") - p), m);
	fputs("0x0028 002 # unknown node and type\n40 lids dumped\n", m);
	fputs(strstr(p, "27 lids dumped\n") + 15, m);
	fclose(m);
	assert_int_equal(kr_lfts_parse(text, len, f, &t, NULL), KR_OK);
	assert_int_equal(t.stride, 41);
	for (uint32_t sw = 0; sw < f->nsw; sw++)
		for (unsigned lid = 0; lid < t.stride; lid++)
			assert_int_equal(kr_lft_port(&t, sw, lid),
					 lid == 40 && f->guid[sw] ==
					 0x0002c9ff5cd68e04ull ? 2 :
					 kr_lft_port(&want, sw, lid));
	free(text);
	free(buf);
	kr_tables_free(&t);
	kr_tables_free(&want);
}

/* ------------------------------------------------------------------ */
/* Path SLs                                                           */

static void test_path_sl_text(void **state)
{
	static const char text[] =
		"# path SLs\n"			/* 1 */
		"0x1 3\n"			/* 2 */
		"  2\t4  # tab, trailing comment\n"	/* 3 */
		"\n"				/* 4 */
		"10 0x4 5\n"			/* 5 */
		"10 2 4\n";			/* 6: same as 2's default */
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *buf;

	assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 0), KR_OK);
	assert_int_equal(kr_path_sl_parse(text, sizeof(text) - 1, f, &t, NULL),
			 KR_OK);
	assert_int_equal(kr_tables_path_sl(&t, 5, 1), 3);
	assert_int_equal(kr_tables_path_sl(&t, 5, 2), 4);
	assert_int_equal(kr_tables_path_sl(&t, 10, 4), 5);
	assert_int_equal(kr_tables_path_sl(&t, 11, 4), 0);
	assert_int_equal(t.npair_sl, 1);	/* 10 -> 2 adds nothing */
	assert_int_equal(t.sl_given[1], KR_SL_ALL);
	assert_int_equal(t.sl_given[2], KR_SL_ALL);
	assert_int_equal(t.sl_given[3], KR_SL_ASSUMED);
	assert_int_equal(t.sl_given[4], KR_SL_ASSUMED);	/* one pair only */
	buf = written(kr_path_sl_write, f, &t, &len);
	/* no "DLID SL" line states what no line gave (LID 3, 4) */
	assert_non_null(strstr(buf, "\n1 3\n2 4\n1"));
	assert_null(strstr(buf, "\n3 0\n"));
	assert_non_null(strstr(buf, "\n10 4 5\n"));
	free(buf);
	kr_tables_free(&t);
}

/* A pair's SL is kept under its source's base LID (14, LMC 1); the
 * port's other LID (15) sends over the same routes and gets it too. */
static void test_path_sl_any_lid_of_port(void **state)
{
	static const char text[] = "4 2\n14 4 5\n";
	const struct kr_fabric *f = *state;
	struct kr_tables t;

	assert_int_equal(f->lid[kr_port_by_lid(f, 15)], 14);
	assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 0), KR_OK);
	assert_int_equal(kr_path_sl_parse(text, sizeof(text) - 1, f, &t, NULL),
			 KR_OK);
	assert_int_equal(kr_tables_port_path_sl(f, &t, 14, 4), 5);
	assert_int_equal(kr_tables_port_path_sl(f, &t, 15, 4), 5);
	assert_int_equal(kr_tables_port_path_sl(f, &t, 6, 4), 2);
	kr_tables_free(&t);
}

/* Pairs in any order, worked by hand: DLID 1 has SL 2 from three sources
 * and 5 from one, so 2 is its default and 10 -> 1 an exception; DLID 2 ties
 * 3 against 4 and takes the lower; DLID 3 is in no pair and keeps SL 0,
 * though an earlier table gave it 7. */
static void test_path_sl_set(void **state)
{
	struct kr_sl_pair p[] = {
		{ 10, 1, 5 }, { 11, 2, 4 }, { 5, 1, 2 }, { 11, 1, 2 },
		{ 10, 2, 3 }, { 12, 1, 2 },
	};
	const struct kr_fabric *f = *state;
	struct kr_tables t;

	assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 1), KR_OK);
	t.dlid_sl[3] = 7;
	assert_int_equal(kr_path_sl_set(&t, p, 6, NULL), KR_OK);
	assert_int_equal(t.dlid_sl[1], 2);
	assert_int_equal(t.dlid_sl[2], 3);
	assert_int_equal(t.dlid_sl[3], 0);
	assert_int_equal(t.npair_sl, 2);
	assert_int_equal(kr_tables_path_sl(&t, 10, 1), 5);
	assert_int_equal(kr_tables_path_sl(&t, 11, 1), 2);
	assert_int_equal(kr_tables_path_sl(&t, 11, 2), 4);
	assert_int_equal(kr_tables_path_sl(&t, 10, 2), 3);
	assert_int_equal(kr_tables_path_sl(&t, 5, 3), 0);
	kr_tables_free(&t);
}

/* A pair the SA knew no path for (KR_SL_UNKNOWN): its DLID is given only
 * for the pairs listed, every one of them kept; a DLID whose pairs all
 * came stays given for every source. */
static void test_path_sl_set_unknown(void **state)
{
	struct kr_sl_pair p[] = {
		{ 10, 1, 5 }, { 11, 1, KR_SL_UNKNOWN }, { 12, 1, 5 },
		{ 10, 2, 3 }, { 11, 2, 3 },
	};
	const struct kr_fabric *f = *state;
	struct kr_tables t;

	assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 1), KR_OK);
	assert_int_equal(kr_path_sl_set(&t, p, 5, NULL), KR_OK);
	assert_non_null(t.sl_given);
	assert_int_equal(t.sl_given[1], KR_SL_ASSUMED);
	assert_int_equal(t.sl_given[2], KR_SL_ALL);
	assert_int_equal(t.dlid_sl[1], 5);
	assert_int_equal(t.npair_sl, 2);	/* 10 -> 1 and 12 -> 1 */
	assert_int_equal(t.pair_sl[0].sl, 5);
	assert_int_equal(t.pair_sl[1].sl, 5);
	assert_int_equal(kr_tables_path_sl(&t, 10, 2), 3);
	kr_tables_free(&t);
}

/* Each bad line, the line it is on and words from the message. */
static const struct bad_case {
	const char *text;
	unsigned line;
	const char *msg;
} bad_path_sl[] = {
	{ "1 1\n99 1\n", 2, "unknown DLID 99" },
	{ "1 16\n", 1, "SL 16 outside 0..15" },
	{ "1 2\n# x\n0x1 2\n", 3, "DLID 1 given twice (first on line 1)" },
	{ "10 4 5\n\n10 4 6\n", 3, "given twice (first on line 1)" },
	{ "1 2 3 4\n", 1, "expected \"DLID SL\"" },
	{ "1 x\n", 1, "expected \"DLID SL\"" },
	{ "\n\n7\n", 3, "expected \"DLID SL\"" },
	{ "0 1\n", 1, "unknown DLID 0" },
	{ "99 1 1\n", 1, "unknown SLID 99" },
	{ "PathRecord dump:\n\t\tdlid....1\n\t\tslid....2\n"
	  "PathRecord dump:\n\t\tsl....0x0\n", 1, "PathRecord without sl" },
	{ "PathRecord dump:\n\t\tdlid....1\n\t\tslid....2\n\t\tsl....0x0\n"
	  "PathRecord dump:\n\t\tdlid....1\n\t\tslid....x\n", 7,
	  "expected a number after \"slid....\"" },
	{ "PathRecord dump:\n\t\tdlid....1\n\t\tslid....2\n\t\tsl....0x10\n",
	  1, "SL 16 outside" },
	{ "PathRecord dump:\nnonsense\n", 2, "\"name....value\"" },
	/* knsroute's own, cut after a DLID line: the pair lines lost would
	 * read as their DLIDs' SLs */
	{ "# knsroute path-sl: x\n1 2\n4 3\n", 3, "cut short: no \"# end:\"" },
	{ "# knsroute path-sl: x\n1 2\n10 4 5\n# end: 1 DLID lines, 2 pair "
	  "lines\n", 4, "counts 1 DLID and 2 pair lines, the file has 1 and 1" },
	{ "# knsroute path-sl: x\n1 2\n# end: 1 DLID lines, 0 pair lines\n"
	  "10 4 5\n", 4, "a record after the end line (line 3)" },
	{ "# knsroute path-sl: x\n1 2\n# end: 1 DLID lines\n", 3,
	  "expected \"# end: D DLID lines, P pair lines\"" },
	{ "1 2\n# end: 1 DLID lines, 0 pair lines\n"
	  "# end: 1 DLID lines, 0 pair lines\n", 3, "a second end line" },
};

static void run_bad(const struct kr_fabric *f, const struct bad_case *c,
		    int (*parse)(const char *, size_t, const struct kr_fabric *,
				 struct kr_tables *, struct kr_diag *),
		    bool fresh)
{
	struct kr_tables t;
	struct kr_diag d = { 0 };

	if (!fresh)
		assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 0),
				 KR_OK);
	if (parse(c->text, strlen(c->text), f, &t, &d) != KR_EPARSE ||
	    d.line != c->line || !strstr(d.msg, c->msg))
		fail_msg("\"%.60s\"...: got line %u \"%s\", want line %u \"%s\"",
			 c->text, d.line, d.msg, c->line, c->msg);
	if (!fresh)
		kr_tables_free(&t);
}

static void test_path_sl_errors(void **state)
{
	for (size_t i = 0; i < sizeof(bad_path_sl) / sizeof(bad_path_sl[0]); i++)
		run_bad(*state, &bad_path_sl[i], kr_path_sl_parse, false);
}

/* The majority SL of each DLID becomes its default, the rest pairs;
 * unlisted sources take the default. */
static void test_saquery(void **state)
{
	static const char more[] =
		"PathRecord dump:\n\t\tdlid....................21\n"
		"\t\tslid....................1\n\t\tsl......................0x2\n"
		"PathRecord dump:\n\t\tdlid....................21\n"
		"\t\tslid....................4\n\t\tsl......................0x1\n"
		"PathRecord dump:\n\t\tdlid....................21\n"
		"\t\tslid....................5\n\t\tsl......................0x2\n"
		"PathRecord dump:\n\t\tdlid....................4\n"
		"\t\tslid....................10\n\t\tsl......................0x3\n";
	const struct kr_fabric *f = *state;
	struct kr_tables t;
	size_t len;
	char *buf = load("chk_t33-saquery.txt", &len), *all;

	assert_int_equal(kr_tables_init(&t, f, f->max_lid + 1, 0, 0), KR_OK);
	assert_int_equal(kr_path_sl_parse(buf, len, f, &t, NULL), KR_OK);
	assert_int_equal(kr_tables_path_sl(&t, 10, 21), 0);	/* real record */
	/* one record towards 21, from a switch: no CA source covered, so
	 * the record stays a pair of its own and the DLID's SL is assumed */
	assert_int_equal(t.sl_given[21], KR_SL_ASSUMED);
	assert_int_equal(t.npair_sl, 1);
	all = malloc(len + sizeof(more));
	memcpy(all, buf, len);
	memcpy(all + len, more, sizeof(more));
	assert_int_equal(kr_path_sl_parse(all, len + sizeof(more) - 1, f, &t,
					  NULL), KR_OK);
	assert_int_equal(t.dlid_sl[21], 2);
	assert_int_equal(kr_tables_path_sl(&t, 10, 21), 0);
	assert_int_equal(kr_tables_path_sl(&t, 4, 21), 1);
	assert_int_equal(kr_tables_path_sl(&t, 7, 21), 2);	/* unlisted */
	assert_int_equal(kr_tables_path_sl(&t, 10, 4), 3);
	assert_int_equal(kr_tables_path_sl(&t, 11, 4), 3);
	free(all);
	free(buf);
	kr_tables_free(&t);
}

/* ------------------------------------------------------------------ */
/* Malformed dumps                                                    */

/* buf with line n (1-based) replaced by text ("" drops everything from
 * line n on when cut is set). */
static char *with_line(const char *buf, unsigned n, const char *text,
		       bool cut)
{
	const char *p = buf, *e;
	char *out = malloc(strlen(buf) + strlen(text) + 2);
	size_t k;

	for (unsigned i = 1; i < n; i++)
		p = strchr(p, '\n') + 1;
	k = (size_t)(p - buf);
	memcpy(out, buf, k);
	if (cut) {
		out[k] = '\0';
		return out;
	}
	e = strchr(p, '\n');
	sprintf(out + k, "%s%s", text, e ? e : "");
	return out;
}

static void bad_line(const struct kr_fabric *f, const char *file, unsigned n,
		     const char *text, unsigned want_line, const char *msg,
		     int (*parse)(const char *, size_t, const struct kr_fabric *,
				  struct kr_tables *, struct kr_diag *))
{
	size_t len;
	char *buf = load(file, &len);
	char *bad = with_line(buf, n, text, !*text);
	struct bad_case c = { bad, want_line, msg };

	run_bad(f, &c, parse, parse == kr_lfts_parse);
	free(bad);
	free(buf);
}

static void test_lfts_errors(void **state)
{
	const struct kr_fabric *f = *state;
	const char *file = "chk_t33-lfts.dump";
	static const char *head = "Unicast lids [0-27] of switch Lid 4 guid ";

	char line[160];

	snprintf(line, sizeof(line), "%s0x0000000000000bad ('x'):", head);
	bad_line(f, file, 1, line, 1, "unknown switch GUID 0x0000000000000bad",
		 kr_lfts_parse);
	snprintf(line, sizeof(line), "%s0x0002ccbdb8176800 ('x'):", head);
	bad_line(f, file, 1, line, 1, "is \"H-0002ccbdb8176800\", not a switch",
		 kr_lfts_parse);
	bad_line(f, file, 1, "Unicast lids [0-27] of switch Lid 5 guid "
		 "0x0002c9783aac1b04 ('sw-232f36b4'):", 1,
		 "has LID 4 in the topology, 5 here", kr_lfts_parse);
	bad_line(f, file, 1, "Unicast lids [0-40] of switch Lid 4 guid "
		 "0x0002c9783aac1b04 ('sw-232f36b4'):", 29,
		 "\"27 lids dumped\" but expected 40", kr_lfts_parse);
	bad_line(f, file, 1, "Unicast lids of switch", 1,
		 "expected \"Unicast lids [LO-HI] of switch", kr_lfts_parse);
	bad_line(f, file, 1, "hello", 1, "expected \"Unicast lids", kr_lfts_parse);
	bad_line(f, file, 2, "0x0001 009 # x", 2,
		 "port 9 beyond switch \"S-0002c9783aac1b04\" (5 ports)",
		 kr_lfts_parse);
	bad_line(f, file, 2, "0x0040 003 # unknown node and type", 2,
		 "LID 64 outside the block's range 0-27", kr_lfts_parse);
	bad_line(f, file, 3, "0x0001 003", 3, "LID 1 after LID 1", kr_lfts_parse);
	bad_line(f, file, 2, "0x0001 003 # Switch portguid 0x0002c9783aac1b04: "
		 "'x'", 2, "LID 1 belongs to port GUID 0x0002c93bcb817680",
		 kr_lfts_parse);
	/* a later block's comment is checked too, not only the first's */
	bad_line(f, file, 31, "0x0001 005 # Switch portguid "
		 "0x0002c9783aac1b04: 'sw-cfe79a22'", 31,
		 "LID 1 belongs to port GUID 0x0002c93bcb817680", kr_lfts_parse);
	bad_line(f, file, 2, "0x0001 3x", 2, "expected an LFT entry",
		 kr_lfts_parse);
	bad_line(f, file, 5, "hello", 5, "expected an LFT entry",
		 kr_lfts_parse);
	bad_line(f, file, 29, "26 lids dumped", 29, "expected 27",
		 kr_lfts_parse);
	bad_line(f, file, 29, "Unicast lids [0-27] of switch Lid 4", 29,
		 "new switch block before", kr_lfts_parse);
	bad_line(f, file, 29, "", 28, "truncated: the block of line 1",
		 kr_lfts_parse);
}

/* opensm.fdbs and opensm-lfts.dump from one run of OpenSM 3.3.23 (`opensm
 * -o -R minhop -l 1 -D 0x43` on ibsim running net_mixed.net, whose
 * ibnetdiscover output is ibnd_mixed_lmc1.net): the same tables, the LMC
 * holes OpenSM calls UNREACHABLE left without a route. */
static void test_fdbs_same_tables(void **state)
{
	struct kr_fabric f;
	struct kr_tables fdbs, lfts;
	uint32_t sw;

	(void)state;
	assert_int_equal(kr_net_read(data_path("ibnd_mixed_lmc1.net"), &f,
				     NULL), KR_OK);
	assert_int_equal(kr_lfts_read(data_path("ibnd_mixed_lmc1-opensm.fdbs"),
				      &f, &fdbs, NULL), KR_OK);
	assert_int_equal(kr_lfts_read(data_path("ibnd_mixed_lmc1-lfts.dump"),
				      &f, &lfts, NULL), KR_OK);
	assert_int_equal(fdbs.stride, lfts.stride);
	assert_memory_equal(fdbs.lft, lfts.lft, (size_t)f.nsw * lfts.stride);
	/* by hand from the file's first block (switch 0x200000) */
	sw = kr_node_by_guid(&f, 0x200000);
	assert_int_equal(fdbs.lft[(size_t)sw * fdbs.stride + 1], 0);
	assert_int_equal(fdbs.lft[(size_t)sw * fdbs.stride + 5], KR_NO_PORT);
	assert_int_equal(fdbs.lft[(size_t)sw * fdbs.stride + 0xa], 2);
	assert_int_equal(fdbs.lft[(size_t)sw * fdbs.stride + 0xd], 5);
	kr_tables_free(&fdbs);
	kr_tables_free(&lfts);
	kr_fabric_free(&f);
}

static void test_fdbs_errors(void **state)
{
	const char *file = "ibnd_mixed_lmc1-opensm.fdbs";
	struct kr_diag d = { 0 };
	struct kr_fabric f;

	(void)state;
	assert_int_equal(kr_net_read(data_path("ibnd_mixed_lmc1.net"), &f,
				     NULL), KR_OK);
	bad_line(&f, file, 1, "dump_ucast_routes: Switch 0x0000000000000bad", 1,
		 "unknown switch GUID 0x0000000000000bad", kr_lfts_parse);
	bad_line(&f, file, 1, "dump_ucast_routes: Switch 0x200000 x", 1,
		 "expected \"dump_ucast_routes: Switch 0xGUID\"",
		 kr_lfts_parse);
	bad_line(&f, file, 2, "LID : Port", 2, "expected the column titles",
		 kr_lfts_parse);
	bad_line(&f, file, 3, "0x0001 : 009  : 00   : yes", 3,
		 "port 9 beyond switch \"S-0000000000200000\" (8 ports)",
		 kr_lfts_parse);
	bad_line(&f, file, 4, "0x0001 : 001  : 01   : yes", 4,
		 "LID 1 after LID 1", kr_lfts_parse);
	bad_line(&f, file, 4, "0x0002 : maybe", 4, "expected a port number or "
		 "UNREACHABLE after \"0x0002 : \"", kr_lfts_parse);
	bad_line(&f, file, 4, "0x0002 001", 4, "expected an entry \"0xLID : "
		 "PORT ...\"", kr_lfts_parse);
	bad_line(&f, file, 16, "osm_ucast_mgr_dump_ucast_routes: Switch "
		 "0x0000000000200000", 16, "switch \"S-0000000000200000\" "
		 "dumped twice (first on line 1)", kr_lfts_parse);
	kr_fabric_free(&f);
	/* No owners in the file, so no LIDs from it: said, not guessed. */
	assert_int_equal(kr_net_read(data_path("net_mixed.net"), &f, NULL),
			 KR_OK);
	assert_int_equal(kr_lfts_read_lids(data_path(file), &f, &d), KR_EPARSE);
	assert_int_equal(d.line, 1);
	assert_non_null(strstr(d.msg, "opensm.fdbs names no port GUIDs"));
	kr_fabric_free(&f);
}

/* OpenSM writes 255 (OSM_NO_PATH) where a switch has no route to a LID:
 * not an input error but a hole the check reports as undelivered. */
static void test_lfts_no_path(void **state)
{
	const struct kr_fabric *f = *state;
	struct kr_check_opts o = { .max_examples = 1 };
	struct kr_check_report r;
	struct kr_tables t;
	struct kr_diag d = { 0 };
	size_t len;
	char *buf = load("chk_t33-lfts.dump", &len);
	char *hole = with_line(buf, 3, "0x0002 255 # no path", false);
	uint32_t sw = kr_node_by_guid(f, 0x0002c9783aac1b04ull);

	assert_int_equal(kr_lfts_parse(hole, strlen(hole), f, &t, &d), KR_OK);
	assert_int_equal(kr_lft_port(&t, sw, 2), KR_NO_PORT);
	assert_int_equal(kr_lft_port(&t, sw, 3), 3);
	assert_int_equal(kr_check_run(f, &t, &o, &r, &d), KR_EROUTE);
	assert_true(r.fail[KR_CHECK_NO_ENTRY] > 0);
	kr_check_report_free(&r);
	kr_tables_free(&t);
	free(hole);
	free(buf);
}

/* A header range beyond the topology's LIDs is fine; a LID there is
 * unknown, or, named for a port the topology gives another LID, one
 * of LIDs that differ (an LMC that opensm-subnet.lst leaves out, say).
 * The same block twice names the first. */
static void test_lfts_unknown_lid_and_twice(void **state)
{
	const struct kr_fabric *f = *state;
	char *buf, *two;
	size_t len, blk;
	struct bad_case c = {
		"Unicast lids [0-40] of switch Lid 4 guid 0x0002c9783aac1b04 "
		"('sw-232f36b4'):\n0x0028 003 # Switch portguid "
		"0x0000000000000bad: 'x'\n40 lids dumped\n", 2,
		"unknown LID 40" };

	run_bad(f, &c, kr_lfts_parse, true);
	c = (struct bad_case){
		"Unicast lids [0-40] of switch Lid 4 guid 0x0002c9783aac1b04 "
		"('sw-232f36b4'):\n0x0028 003 # Switch portguid "
		"0x0002c9783aac1b04: 'x'\n40 lids dumped\n", 2,
		"LID 40 of port GUID 0x0002c9783aac1b04, which has LID 4 (LMC "
		"0) in the topology: the LIDs differ (a guid2lid cache older "
		"than the dump?), or the topology lacks the LMC (OpenSM's "
		"guid2lid cache gives it: --guid2lid)" };
	run_bad(f, &c, kr_lfts_parse, true);
	buf = load("chk_t33-lfts.dump", &len);
	blk = (size_t)(strstr(buf, "27 lids dumped\n") - buf) + 15;
	two = malloc(2 * blk + 1);
	memcpy(two, buf, blk);
	memcpy(two + blk, buf, blk);
	two[2 * blk] = '\0';
	c = (struct bad_case){ two, 30, "dumped twice (first on line 1)" };
	run_bad(f, &c, kr_lfts_parse, true);
	free(two);
	free(buf);
}

/* The file opens with a CA block (lines 1-5), then a switch (line 7, its
 * first map on line 10). */
static void test_sl2vl_errors(void **state)
{
	const struct kr_fabric *f = *state;
	const char *file = "chk_t33-sl2vl.dump";
	static const char vls[] = " 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7";
	char line[200];

	bad_line(f, file, 7, "Switch 0x0000000000000bad, base LID 4, \"x\"", 7,
		 "unknown port GUID 0x0000000000000bad", kr_sl2vl_parse);
	bad_line(f, file, 7, "Channel Adapter 0x0002c9783aac1b04, base LID 4, "
		 "\"x\"", 7, "a Switch, not a Channel Adapter", kr_sl2vl_parse);
	bad_line(f, file, 7, "Switch 0x0002c9783aac1b04, base LID 7, \"x\"", 7,
		 "has LID 4 in the topology, 7 here", kr_sl2vl_parse);
	bad_line(f, file, 7, "Switch 0x0002c9783aac1b04 base LID 4", 7,
		 "expected \"TYPE 0xPORTGUID, base LID N", kr_sl2vl_parse);
	bad_line(f, file, 4, "1   1   :0", 4, "with 16 VLs 0..15",
		 kr_sl2vl_parse);
	snprintf(line, sizeof(line), "1   1   :%s", vls);
	bad_line(f, file, 4, line, 4, "a CA port has one map, \"0 0\"",
		 kr_sl2vl_parse);
	snprintf(line, sizeof(line), "0   1   :%s  8", vls);
	bad_line(f, file, 10, line, 10, "with 16 VLs 0..15", kr_sl2vl_parse);
	bad_line(f, file, 10, "0   1   : 0  1  2", 10, "with 16 VLs 0..15",
		 kr_sl2vl_parse);
	snprintf(line, sizeof(line), "0   1   : 16%s", vls + 2);
	bad_line(f, file, 10, line, 10, "with 16 VLs 0..15", kr_sl2vl_parse);
	snprintf(line, sizeof(line), "9   1   :%s", vls);
	bad_line(f, file, 10, line, 10, "port 9 beyond switch", kr_sl2vl_parse);
	snprintf(line, sizeof(line), "0   1   :%s", vls);
	bad_line(f, file, 11, line, 11, "given twice (first on line 10)",
		 kr_sl2vl_parse);
	bad_line(f, file, 10, "hello", 10, "expected a port header",
		 kr_sl2vl_parse);
	bad_line(f, file, 7, "# SL2VL table: Lid 99", 7, "unknown LID 99",
		 kr_sl2vl_parse);
}

static void test_sl2vl_errors_small(void **state)
{
	static const struct bad_case cases[] = {
		{ "0   1   : 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", 1,
		  "map line before any port header" },
		{ "# SL2VL table: Lid 2\n"
		  "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|"
		  "12|13|14|15|\n"
		  "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|"
		  "12|13|14|15|\n", 3, "given twice (first on line 2)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_bad(*state, &cases[i], kr_sl2vl_parse, false);
}

/* Every prefix of each real file parses cleanly or fails with EPARSE. */
static void test_truncations(void **state)
{
	static const char *const files[] = { "chk_t33-lfts.dump",
					     "chk_t33-ibroute-a.txt",
					     "chk_t33-sl2vl.dump",
					     "chk_t33-smp-sl2vl.txt",
					     "chk_t33-saquery.txt" };
	const struct kr_fabric *f = *state;

	for (unsigned i = 0; i < 5; i++) {
		size_t len;
		char *buf = load(files[i], &len);

		for (size_t n = 0; n <= len; n += i == 2 ? 3 : 1) {
			struct kr_tables t;
			int rc;

			if (i < 2) {
				rc = kr_lfts_parse(buf, n, f, &t, NULL);
			} else {
				kr_tables_init(&t, f, f->max_lid + 1, 0, 0);
				rc = i < 4 ? kr_sl2vl_parse(buf, n, f, &t, NULL)
					   : kr_path_sl_parse(buf, n, f, &t, NULL);
			}
			assert_true(rc == KR_OK || rc == KR_EPARSE);
			if (rc == KR_OK || i >= 2)
				kr_tables_free(&t);
		}
		free(buf);
	}
}

/* LIDs from the entries' comments: a fabric without LIDs gets back the
 * ones the dump was written with; a LID named for two ports, a port
 * named for two ranges and a range that is no aligned 2^LMC are refused
 * with their line. */
static void test_lids_from_comments(void **state)
{
	static const struct {
		unsigned line;
		const char *text, *msg;
	} bad[] = {
		{ 34, "0x0004 003 # Switch portguid 0x0002c93bcb817680: 'x'",
		  "LID 4 named port GUID 0x0002c93bcb817680 here, "
		  "0x0002c9783aac1b04 on line 5" },
		{ 4, "0x0400 003 # Channel Adapter portguid "
		     "0x0002ccbdb8176801: 'ca-96bf887f'",
		  "port GUID 0x0002ccbdb8176801 has LID 2 (line 3) and LID 1024" },
		/* line 0: the text is the whole input */
		{ 0, "0x0001 003 # Switch portguid 0x0002c93bcb817680: 'a'\n"
		     "0x0002 003 # Switch portguid 0x0002c93bcb817680: 'a'\n",
		  "LIDs 1-2 of port GUID 0x0002c93bcb817680 are no aligned" },
	};
	const struct kr_fabric *orig = *state;
	struct kr_fabric f;
	size_t len;
	char *buf = load("chk_t33-lfts.dump", &len);
	struct kr_diag d = { 0 };

	(void)len;
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		char *in = !i ? strdup(buf) : !bad[i - 1].line ?
			   strdup(bad[i - 1].text) :
			   with_line(buf, bad[i - 1].line, bad[i - 1].text, false);

		assert_int_equal(kr_net_read(data_path("chk_t33.ibnd"), &f,
					     NULL), KR_OK);
		memset(f.lid, 0, f.nport * sizeof(*f.lid));
		memset(f.lmc, 0, f.nport * sizeof(*f.lmc));
		assert_int_equal(kr_fabric_index_lids(&f, &d), KR_OK);
		if (!i) {
			assert_int_equal(kr_lfts_parse_lids(in, strlen(in), &f,
							    &d), KR_OK);
			assert_memory_equal(f.lid, orig->lid,
					    f.nport * sizeof(*f.lid));
			assert_memory_equal(f.lmc, orig->lmc,
					    f.nport * sizeof(*f.lmc));
		} else {
			assert_int_equal(kr_lfts_parse_lids(in, strlen(in), &f,
							    &d), KR_EPARSE);
			assert_int_equal(d.line, bad[i - 1].line ?
						 bad[i - 1].line : 1);
			if (!strstr(d.msg, bad[i - 1].msg))
				fail_msg("case %zu: \"%s\"", i, d.msg);
		}
		kr_fabric_free(&f);
		free(in);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_osm_dumps_byte_for_byte,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_lfts_long_description,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_dump_lfts_sh_same_tables,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_ibroute_single_switch,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_smpquery_sl2vl,
						setup_t33, teardown_t33),
		cmocka_unit_test(test_round_trip_generated),
		cmocka_unit_test(test_stream_chunks),
		cmocka_unit_test_setup_teardown(test_lfts_grow,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_path_sl_text,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_path_sl_any_lid_of_port,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_path_sl_set_unknown,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_path_sl_set,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_path_sl_errors,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_saquery,
						setup_t33, teardown_t33),
		cmocka_unit_test(test_fdbs_same_tables),
		cmocka_unit_test(test_fdbs_errors),
		cmocka_unit_test_setup_teardown(test_lids_from_comments,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_lfts_no_path,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_lfts_errors,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_lfts_unknown_lid_and_twice,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_sl2vl_errors,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_sl2vl_errors_small,
						setup_t33, teardown_t33),
		cmocka_unit_test_setup_teardown(test_truncations,
						setup_t33, teardown_t33),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
