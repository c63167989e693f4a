/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The dry run's writers format by hand (kr_out.h); here a reference written
 * independently with printf, field by field as the file formats say
 * (docs/file-formats.md), gives the bytes they must produce. Each fabric is
 * generated, planned and written into a real directory by
 * kr_plan_write_dir, and its LFT dump once more into a memory stream.
 * Fabrics: KNS with p > 1, a torus with LMC 2, a mesh with parallel links,
 * a torus with failed links, a KNS with fat-tree subnets; multicast groups
 * where the plan allows them. Then the directory written while a gate (the
 * dry run's check) runs: kr_write_dir_while. */
#define _GNU_SOURCE	/* statfs */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"

/* ------------------------------------------------------------------ */
/* Reference formatters                                               */

static const char *ref_type(const struct kr_fabric *f, uint32_t node)
{
	static const char *const name[] = { "UNKNOWN", "Channel Adapter",
					    "Switch", "Router" };

	return f->type[node] <= KR_ROUTER ? name[f->type[node]] : name[0];
}

/* OpenSM's order: GUIDs as big-endian bytes compared as a little-endian
 * integer, i.e. ascending byte-reversed GUIDs. */
static const uint64_t *sort_guid;

static int by_osm_guid(const void *a, const void *b)
{
	uint64_t x = __builtin_bswap64(sort_guid[*(const uint32_t *)a]);
	uint64_t y = __builtin_bswap64(sort_guid[*(const uint32_t *)b]);

	return (x > y) - (x < y);
}

static void osm_sort(const uint64_t *guid, uint32_t *ids, uint32_t n)
{
	sort_guid = guid;
	qsort(ids, n, sizeof(*ids), by_osm_guid);
}

static uint32_t *switches_osm(const struct kr_fabric *f)
{
	uint32_t *ids = malloc((f->nsw + 1) * sizeof(*ids));

	assert_non_null(ids);
	for (uint32_t i = 0; i < f->nsw; i++)
		ids[i] = i;
	osm_sort(f->guid, ids, f->nsw);
	return ids;
}

static void ref_lfts(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t)
{
	uint32_t *order = switches_osm(f);

	for (uint32_t i = 0; i < f->nsw; i++) {
		uint32_t sw = order[i];

		fprintf(out, "Unicast lids [0-%u] of switch Lid %u guid 0x%016"
			PRIx64 " ('%s'):\n", t->stride - 1, f->lid[f->port0[sw]],
			f->guid[sw], kr_node_desc(f, sw));
		for (unsigned lid = 0; lid < t->stride; lid++) {
			unsigned port = kr_lft_port(t, sw, lid);
			uint32_t s = kr_port_by_lid(f, lid);

			if (port > f->nports[sw])
				continue;
			fprintf(out, "0x%04x %03u # ", lid, port);
			if (s == KR_NONE)
				fprintf(out, "unknown node and type\n");
			else
				fprintf(out, "%s portguid 0x%016" PRIx64 ": '%s'\n",
					ref_type(f, f->owner[s]), f->port_guid[s],
					kr_node_desc(f, f->owner[s]));
		}
		fprintf(out, "%u lids dumped\n", t->stride - 1);
	}
	free(order);
}

static void ref_map(FILE *out, unsigned in, unsigned op, uint64_t map)
{
	fprintf(out, "%-3u %-3u :", in, op);
	for (unsigned sl = 0; sl < KR_NSL; sl++)
		fprintf(out, " %-2u", (unsigned)(map >> 4 * sl & 15));
	fprintf(out, "\n");
}

static void ref_sl2vl(FILE *out, const struct kr_fabric *f,
		      const struct kr_tables *t)
{
	const char *sep = "#--------------------------------------------------"
			  "------";
	uint32_t *ids = malloc((f->nport + 1) * sizeof(*ids)), n = 0;

	assert_non_null(ids);
	for (uint32_t node = 0; node < f->nnode; node++)
		for (uint32_t s = f->port0[node]; s < f->port0[node + 1]; s++)
			if (kr_is_switch(f, node) ? s == f->port0[node]
						  : s > f->port0[node] && f->peer[s] >= 0)
				ids[n++] = s;
	osm_sort(f->port_guid, ids, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = ids[i], node = f->owner[s];
		unsigned np = f->nports[node];

		fprintf(out, "%s 0x%016" PRIx64 ", base LID %u, \"%s\"\n", ref_type(f, node),
			f->port_guid[s], f->lid[s], kr_node_desc(f, node));
		fprintf(out, "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 "
			"13 14 15\n%s\n", sep);
		if (kr_is_switch(f, node)) {
			for (unsigned o = 0; o <= np; o++)
				for (unsigned in = 0; in <= np &&
				     f->peer[kr_port(f, node, o)] >= 0; in++)
					ref_map(out, in, o,
						kr_tables_sl2vl(f, t, node, in, o));
		} else {
			unsigned pn = kr_port_num(f, s);

			ref_map(out, 0, 0, kr_tables_sl2vl(f, t, node, pn, pn));
		}
		fprintf(out, "%s\n\n", sep);
	}
	free(ids);
}

static void ref_path_sl(FILE *out, const struct kr_fabric *f,
			const struct kr_tables *t)
{
	unsigned ndlid = 0, npair = 0;

	fprintf(out, "# knsroute path-sl: \"DLID SL\" for every LID whose SL "
		"is known for all sources, then \"SLID DLID SL\" where a pair "
		"differs or only the pair is known\n");
	for (unsigned lid = 1; lid < t->stride; lid++)
		if (kr_port_by_lid(f, lid) != KR_NONE &&
		    (!t->sl_given || t->sl_given[lid])) {
			fprintf(out, "%u %u\n", lid, t->dlid_sl ? t->dlid_sl[lid] : 0);
			ndlid++;
		}
	for (size_t i = 0; i < t->npair_sl; i++) {
		const struct kr_sl_pair *p = &t->pair_sl[i];
		int known = p->dlid < t->stride &&
			    (!t->sl_given || t->sl_given[p->dlid]);

		if (!known || p->sl != (t->dlid_sl ? t->dlid_sl[p->dlid] : 0)) {
			fprintf(out, "%u %u %u\n", p->slid, p->dlid, p->sl);
			npair++;
		}
	}
	fprintf(out, "# end: %u DLID lines, %u pair lines\n", ndlid, npair);
}

static void ref_mfts(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t)
{
	uint32_t *order = switches_osm(f);

	for (uint32_t i = 0; i < f->nsw; i++) {
		uint32_t sw = order[i];
		int header = 0;

		for (size_t g = 0; g < t->nmgroup; g++) {
			const uint64_t *m = t->mgroup[g].ports +
					    (size_t)sw * KR_MCAST_WORDS;
			int line = 0;

			for (unsigned port = 0; port < 64 * KR_MCAST_WORDS; port++) {
				if (!(m[port / 64] >> port % 64 & 1))
					continue;
				if (!header++)
					fprintf(out, "\nSwitch 0x%016" PRIx64 "\n"
						"LID    : Out Port(s)\n", f->guid[sw]);
				if (!line++)
					fprintf(out, "0x%04X :", t->mgroup[g].mlid);
				fprintf(out, " 0x%03X ", port);
			}
			if (line)
				fprintf(out, "\n");
		}
	}
	free(order);
}

static void ref_vlarb(FILE *out, const struct kr_fabric *f,
		      const struct kr_plan *p)
{
	fprintf(out, "# knsroute VL arbitration: port GUID, port number, "
		"low-priority VL:weight list; the high-priority table is empty\n");
	for (uint32_t s = 0; s < f->nport; s++) {
		uint16_t m = p->slvl.vl_mask[s];

		if (f->peer[s] < 0 || !m)
			continue;
		fprintf(out, "0x%016" PRIx64 " %u low", f->port_guid[s],
			kr_port_num(f, s));
		for (unsigned vl = 0; vl < 15; vl++)
			if (m >> vl & 1)
				fprintf(out, " %u:64", vl);
		fprintf(out, "  # \"%s\"\n", kr_node_desc(f, f->owner[s]));
	}
}

static void ref_net(FILE *out, const struct kr_fabric *f)
{
	fprintf(out, "# %u switches, %u CAs\n\n", f->nsw, f->nnode - f->nsw);
	for (uint32_t n = 0; n < f->nnode; n++) {
		int sw = kr_is_switch(f, n);

		if (f->vendid[n])
			fprintf(out, "vendid=0x%" PRIx32 "\n", f->vendid[n]);
		if (f->devid[n])
			fprintf(out, "devid=0x%" PRIx32 "\n", f->devid[n]);
		fprintf(out, "sysimgguid=0x%" PRIx64 "\n", f->sysimg_guid[n]);
		if (sw)
			fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\nSwitch\t%u "
				"\"%s\"\t\t# \"%s\" base port 0 lid %u lmc %u\n",
				f->guid[n], f->port_guid[f->port0[n]], f->nports[n],
				kr_node_name(f, n), kr_node_desc(f, n),
				f->lid[f->port0[n]], f->lmc[f->port0[n]]);
		else
			fprintf(out, "%sguid=0x%" PRIx64 "\n%s\t%u \"%s\"\t\t# \"%s\"\n",
				f->type[n] == KR_ROUTER ? "rt" : "ca", f->guid[n],
				f->type[n] == KR_ROUTER ? "Rt" : "Ca", f->nports[n],
				kr_node_name(f, n), kr_node_desc(f, n));
		for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++) {
			uint32_t ps = (uint32_t)f->peer[s], pn;
			unsigned plid;

			if (f->peer[s] < 0)
				continue;
			pn = f->owner[ps];
			plid = f->lid[kr_is_switch(f, pn) ? f->port0[pn] : ps];
			if (sw)
				fprintf(out, "[%u]\t\"%s\"[%u]\t\t# \"%s\" lid %u 4xSDR\n",
					kr_port_num(f, s), kr_node_name(f, pn),
					kr_port_num(f, ps), kr_node_desc(f, pn), plid);
			else
				fprintf(out, "[%u](%" PRIx64 ") \t\"%s\"[%u]\t\t# lid %u "
					"lmc %u \"%s\" lid %u 4xSDR\n", kr_port_num(f, s),
					f->port_guid[s], kr_node_name(f, pn),
					kr_port_num(f, ps), f->lid[s], f->lmc[s],
					kr_node_desc(f, pn), plid);
		}
		fprintf(out, "\n");
	}
}

/* ------------------------------------------------------------------ */

struct case_fabric {
	const char *name;
	struct kr_gen_opts o;
};

static const struct case_fabric cases[] = {
	{ "KNS 4-ary 3-direct p3, shuffled",
	  { .family = KR_FAMILY_KNS, .ndim = 3, .k = { 4, 4, 4 }, .p = 3,
	    .shuffle = 1, .shuffle_seed = 5, .assign_lids = 1 } },
	{ "torus 4x4x3 p2 LMC 2, shuffled",
	  { .family = KR_FAMILY_TORUS, .ndim = 3, .k = { 4, 4, 3 },
	    .wrap = { 1, 1, 1 }, .p = 2, .parallel = 1, .shuffle = 1,
	    .shuffle_seed = 7, .assign_lids = 1, .lmc = 2 } },
	{ "mesh 5x4 p2, parallel links",
	  { .family = KR_FAMILY_MESH, .ndim = 2, .k = { 5, 4 }, .p = 2,
	    .parallel = 2, .assign_lids = 1 } },
	{ "torus 6x6 p2, 4 failed links",
	  { .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 6, 6 },
	    .wrap = { 1, 1 }, .p = 2, .parallel = 1, .fail = 4, .fail_seed = 3,
	    .assign_lids = 1 } },
	{ "KNS 8-ary 2-direct p2, 4-port subnet switches",
	  { .family = KR_FAMILY_KNS, .ndim = 2, .k = { 8, 8 }, .p = 2,
	    .radix = 4, .assign_lids = 1 } },
};

static char *slurp_file(const char *dir, const char *name, size_t *len)
{
	char path[4200], *buf;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(kr_slurp(path, KR_IN_STREAM, &buf, len, NULL), KR_OK);
	unlink(path);
	return buf;
}

/* dir/name holds text (and is removed). */
static void assert_file(const char *dir, const char *name, const char *text)
{
	size_t len;
	char *got = slurp_file(dir, name, &len);

	assert_string_equal(got, text);
	free(got);
}

/* Compared line by line, so that a failure shows where. */
static void assert_same_text(const char *what, const char *got, size_t glen,
			     const char *want, size_t wlen)
{
	size_t at = 0, line = 1;

	while (at < glen && at < wlen && got[at] == want[at])
		line += got[at++] == '\n';
	if (at == glen && at == wlen)
		return;
	fail_msg("%s: differs at byte %zu, line %zu (%zu bytes, want %zu)",
		 what, at, line, glen, wlen);
}

typedef void ref_fn(FILE *, const struct kr_fabric *, const struct kr_plan *);

static void ref_lfts_p(FILE *o, const struct kr_fabric *f, const struct kr_plan *p)
{
	ref_lfts(o, f, &p->tables);
}

static void ref_sl2vl_p(FILE *o, const struct kr_fabric *f, const struct kr_plan *p)
{
	ref_sl2vl(o, f, &p->tables);
}

static void ref_path_sl_p(FILE *o, const struct kr_fabric *f, const struct kr_plan *p)
{
	ref_path_sl(o, f, &p->tables);
}

static void ref_mfts_p(FILE *o, const struct kr_fabric *f, const struct kr_plan *p)
{
	ref_mfts(o, f, &p->tables);
}

static void ref_net_p(FILE *o, const struct kr_fabric *f, const struct kr_plan *p)
{
	(void)p;
	ref_net(o, f);
}

static const struct {
	const char *name;
	ref_fn *fn;
} ref_files[] = {
	{ "opensm-lfts.dump", ref_lfts_p },
	{ "opensm-sl2vl.dump", ref_sl2vl_p },
	{ "opensm.mcfdbs", ref_mfts_p },
	{ "path-sl", ref_path_sl_p },
	{ "vlarb", ref_vlarb },
	{ "topology.net", ref_net_p },
};

static char *ref_text(ref_fn *fn, const struct kr_fabric *f,
		      const struct kr_plan *p, size_t *len)
{
	char *buf;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	fn(m, f, p);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* Two groups of a few CA ports each, on the plan's multicast SL when it
 * has one: opensm.mcfdbs then has lines to compare. */
static void add_groups(const struct kr_fabric *f, struct kr_plan *p)
{
	uint32_t m[8];
	size_t n = 0;

	for (uint32_t s = f->port0[f->nsw]; s < f->nport && n < 8; s++)
		if (f->peer[s] >= 0 && f->lid[s])
			m[n++] = s;
	for (unsigned g = 0; g < 2; g++) {
		struct kr_mcast_info info;

		kr_plan_add_group(f, p, 0xc001 + 2 * g, 0, m + g * 3, 5,
				  &info, NULL);
	}
}

/* dir's knsroute-tables reads back as t's SLs and repair (and is
 * removed). */
static void assert_tables_cache(const char *dir, const struct kr_fabric *f,
				const struct kr_tables *t)
{
	char path[4200];
	struct kr_tables back;
	struct kr_diag d = { 0 };

	snprintf(path, sizeof(path), "%s/knsroute-tables", dir);
	if (kr_tables_cache_read(path, f, &back, &d))
		fail_msg("%s:%u: %s", path, d.line, d.msg);
	unlink(path);
	assert_int_equal(back.stride, t->stride);
	assert_memory_equal(back.dlid_sl, t->dlid_sl, t->stride);
	assert_int_equal(back.npair_sl, t->npair_sl);
	assert_int_equal(back.nrepaired, t->nrepaired);
	assert_int_equal(back.nfixes, t->nfixes);
	kr_tables_free(&back);
}

static void one_fabric(const struct case_fabric *c, const char *dir)
{
	struct kr_diag d = { 0 };
	struct kr_fabric f;
	struct kr_conf conf;
	struct kr_plan p;
	size_t glen, wlen;
	char *got, *want;

	assert_int_equal(kr_gen(&c->o, &f, NULL, NULL, NULL, &d), KR_OK);
	kr_conf_init(&conf);
	if (kr_plan_build(&f, &conf, &p, &d))
		fail_msg("%s: %s", c->name, d.msg);
	add_groups(&f, &p);
	assert_int_equal(kr_plan_write_dir(dir, KR_TO_OWN, &f, &p, &d), KR_OK);
	for (size_t i = 0; i < sizeof(ref_files) / sizeof(ref_files[0]); i++) {
		char what[256];

		snprintf(what, sizeof(what), "%s: %s", c->name, ref_files[i].name);
		got = slurp_file(dir, ref_files[i].name, &glen);
		want = ref_text(ref_files[i].fn, &f, &p, &wlen);
		assert_same_text(what, got, glen, want, wlen);
		free(got);
		free(want);
	}
	free(slurp_file(dir, "summary", &glen));
	assert_tables_cache(dir, &f, &p.tables);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

static void test_writers_match_reference(void **state)
{
	char dir[] = "/tmp/kr-test-fmt-XXXXXX";

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one_fabric(&cases[i], dir);
	assert_int_equal(rmdir(dir), 0);
}

/* A plan's groups, written at all: the fabrics above must not all lack a
 * multicast SL, or opensm.mcfdbs would only ever be compared empty. */
static void test_some_groups_written(void **state)
{
	struct kr_fabric f;
	struct kr_conf conf;
	struct kr_plan p;

	(void)state;
	assert_int_equal(kr_gen(&cases[0].o, &f, NULL, NULL, NULL, NULL), KR_OK);
	kr_conf_init(&conf);
	assert_int_equal(kr_plan_build(&f, &conf, &p, NULL), KR_OK);
	add_groups(&f, &p);
	assert_int_equal(p.tables.nmgroup, 2);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* A memory stream gets the same bytes, between what the caller writes
 * before and after; a full device makes the writer say KR_EIO and leaves
 * the stream's error flag and errno for the caller's message. */
static void test_memory_stream_and_errors(void **state)
{
	struct kr_fabric f;
	struct kr_conf conf;
	struct kr_plan p;
	size_t glen, wlen;
	char *got, *want;
	FILE *m, *full;

	(void)state;
	assert_int_equal(kr_gen(&cases[1].o, &f, NULL, NULL, NULL, NULL), KR_OK);
	kr_conf_init(&conf);
	assert_int_equal(kr_plan_build(&f, &conf, &p, NULL), KR_OK);
	assert_non_null(m = open_memstream(&got, &glen));
	fputs("before\n", m);
	assert_int_equal(kr_lfts_write(m, &f, &p.tables), KR_OK);
	fputs("after\n", m);
	assert_int_equal(fclose(m), 0);
	assert_non_null(m = open_memstream(&want, &wlen));
	fputs("before\n", m);
	ref_lfts(m, &f, &p.tables);
	fputs("after\n", m);
	assert_int_equal(fclose(m), 0);
	assert_same_text("memory stream", got, glen, want, wlen);
	free(got);
	free(want);
	full = fopen("/dev/full", "w");
	if (full) {
		errno = 0;
		assert_int_equal(kr_lfts_write(full, &f, &p.tables), KR_EIO);
		assert_int_equal(errno, ENOSPC);
		assert_true(ferror(full));
		fclose(full);
	}
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* A node description longer than the writers' buffer (1 MiB) goes out
 * whole where it belongs, in the LFT dump's lines and headers alike. */
static void test_description_beyond_buffer(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 2,
				 .k = { 3, 3 }, .wrap = { 1, 1 }, .p = 1,
				 .parallel = 1, .assign_lids = 1 };
	size_t dlen = (1u << 20) + 100, tablen = 0, glen, wlen;
	struct kr_fabric f, g;
	struct kr_conf conf;
	struct kr_plan p;
	char *tab, *got, *want;
	FILE *m;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	kr_conf_init(&conf);
	assert_int_equal(kr_plan_build(&f, &conf, &p, NULL), KR_OK);
	for (uint32_t i = 0; i < f.nnode; i++)
		if (f.desc_off[i] + strlen(kr_node_desc(&f, i)) + 1 > tablen)
			tablen = f.desc_off[i] + strlen(kr_node_desc(&f, i)) + 1;
	assert_non_null(tab = malloc(tablen + dlen + 1));
	memcpy(tab, f.strtab, tablen);
	memset(tab + tablen, 'd', dlen);
	tab[tablen + dlen] = '\0';
	g = f;
	g.strtab = tab;
	assert_non_null(g.desc_off = malloc(f.nnode * sizeof(*g.desc_off)));
	memcpy(g.desc_off, f.desc_off, f.nnode * sizeof(*g.desc_off));
	g.desc_off[0] = (uint32_t)tablen;	/* a switch: in every header */
	g.desc_off[f.nsw] = (uint32_t)tablen;	/* a CA: in every block */
	assert_non_null(m = open_memstream(&got, &glen));
	assert_int_equal(kr_lfts_write(m, &g, &p.tables), KR_OK);
	assert_int_equal(fclose(m), 0);
	assert_non_null(m = open_memstream(&want, &wlen));
	ref_lfts(m, &g, &p.tables);
	assert_int_equal(fclose(m), 0);
	assert_true(wlen > 2 * dlen);
	assert_same_text("long description", got, glen, want, wlen);
	free(got);
	free(want);
	free(g.desc_off);
	free(tab);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* Entries without a route (and one beyond the switch's ports) are left
 * out, so a block goes out in runs of its copy of the lines, the blocks of
 * several switches per writev, and more switches than copies, which are
 * written over. Into a real file, which the writer tells the size to
 * come: no block may stay allocated past its end. */
static void test_lft_runs_and_allocation(void **state)
{
	struct kr_gen_opts o = { .family = KR_FAMILY_TORUS, .ndim = 3,
				 .k = { 8, 8, 4 }, .wrap = { 1, 1, 1 }, .p = 8,
				 .parallel = 1, .assign_lids = 1 };
	char dir[] = "/tmp/kr-test-lft-XXXXXX", path[64], *got, *want;
	struct kr_fabric f;
	struct kr_conf conf;
	struct kr_plan p;
	struct statfs fs;
	struct stat st;
	size_t glen, wlen, stride;
	FILE *out, *m;

	(void)state;
	assert_int_equal(kr_gen(&o, &f, NULL, NULL, NULL, NULL), KR_OK);
	kr_conf_init(&conf);
	assert_int_equal(kr_plan_build(&f, &conf, &p, NULL), KR_OK);
	stride = p.tables.stride;
	/* lines are 60 to 80 bytes: copies of them fit a 1 MiB batch
	 * several times, and the switches outnumber the copies (at most 16) */
	assert_true(stride * 80 * 2 <= (1u << 20) && f.nsw > 16);
	for (uint32_t sw = 0; sw < f.nsw; sw++) {
		uint8_t *row = p.tables.lft + sw * stride;

		row[1 + sw * 7 % (stride - 1)] = KR_NO_PORT;
		if (sw % 3 == 0)
			memset(row + stride / 3, KR_NO_PORT, 40);
		if (sw % 5 == 0)
			row[stride - 1] = (uint8_t)(f.nports[sw] + 1);
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lfts", dir);
	assert_non_null(out = fopen(path, "w"));
	assert_int_equal(kr_lfts_write(out, &f, &p.tables), KR_OK);
	assert_int_equal(fclose(out), 0);
	got = slurp_file(dir, "lfts", &glen);
	assert_non_null(m = open_memstream(&want, &wlen));
	ref_lfts(m, &f, &p.tables);
	assert_int_equal(fclose(m), 0);
	assert_same_text("runs", got, glen, want, wlen);
	free(got);
	free(want);
	/* rewritten to stat it: slurp_file removed it */
	assert_non_null(out = fopen(path, "w"));
	assert_int_equal(kr_lfts_write(out, &f, &p.tables), KR_OK);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, wlen);
	/* ext4 and tmpfs count what is allocated, reserved or not */
	if (!statfs(dir, &fs) && (fs.f_type == 0xEF53 || fs.f_type == 0x01021994))
		assert_true((uint64_t)st.st_blocks * 512 <
			    (uint64_t)st.st_size + (uint64_t)st.st_blksize);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	kr_plan_free(&p);
	kr_fabric_free(&f);
}

/* ------------------------------------------------------------------ */
/* A directory written while a gate runs                               */

struct gated {
	const char *dir;
	int rc;			/* what the gate returns */
	int wait_early;		/* the gate waits for the first file */
	int saw_early;		/* ... and saw it written whole */
	int value;		/* set by the gate, written by "late" */
	int *calls;		/* calls of the first file's writer */
};

static int early_file(FILE *out, const void *ctx)
{
	const struct gated *g = ctx;

	++*g->calls;
	fputs("early\n", out);
	return KR_OK;
}

static int failing_file(FILE *out, const void *ctx)
{
	(void)ctx;
	fputs("half", out);
	return KR_EIO;
}

static int late_file(FILE *out, const void *ctx)
{
	const struct gated *g = ctx;

	fprintf(out, "%d\n", g->value);
	return KR_OK;
}

/* The size of dir's temporary for file "early" (its random part
 * unknown), -1: none. */
static long early_temp_size(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char path[4200];
	struct stat st;
	long size = -1;

	while (dp && (e = readdir(dp)))
		if (!strncmp(e->d_name, ".early.tmp.", 11)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (!stat(path, &st))
				size = (long)st.st_size;
		}
	if (dp)
		closedir(dp);
	return size;
}

/* Returns once the first file's temporary holds all of it (10 s at most):
 * it is written meanwhile, not after. */
static int gate(void *arg)
{
	struct gated *g = arg;
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; g->wait_early && i < 10000 && !g->saw_early; i++) {
		if (early_temp_size(g->dir) == 6)
			g->saw_early = 1;
		else
			nanosleep(&ms, NULL);
	}
	g->value = 42;
	return g->rc;
}

static const struct kr_dir_file gated_files[] = {
	{ "early", early_file }, { "late", late_file },
};

static int write_gated(struct gated *g, const struct kr_dir_file *files,
		       struct kr_diag *d)
{
	struct kr_dir_gate gt = { gate, g, 1 };

	return kr_write_dir_while(g->dir, KR_TO_NAMED, files, 2, g, &gt, d);
}

static void test_gate_passes(void **state)
{
	char dir[] = "/tmp/kr-test-gate-XXXXXX";
	int calls = 0;
	struct gated g = { dir, KR_OK, 1, 0, 0, &calls };
	struct kr_diag d = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(write_gated(&g, gated_files, &d), KR_OK);
	assert_int_equal(g.saw_early, 1);
	assert_int_equal(calls, 1);
	assert_file(dir, "late", "42\n");
	assert_file(dir, "early", "early\n");
	assert_int_equal(rmdir(dir), 0);	/* no temporaries either */
}

/* A gate that fails: what was written meanwhile goes, the directory made
 * for it goes, a file that was there stays as it was. */
static void test_gate_fails(void **state)
{
	char top[] = "/tmp/kr-test-gate-XXXXXX", dir[64];
	int calls = 0;
	struct gated g = { dir, KR_ECYCLE, 1, 0, 0, &calls };
	struct kr_diag d = { 0 };
	FILE *old;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/out", top);
	assert_int_equal(write_gated(&g, gated_files, &d), KR_ECYCLE);
	assert_int_equal(g.saw_early, 1);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_non_null(old = fopen(strcat(strcpy((char[80]){ 0 }, dir),
					   "/early"), "w"));
	fputs("old\n", old);
	assert_int_equal(fclose(old), 0);
	g.saw_early = 0;
	assert_int_equal(write_gated(&g, gated_files, &d), KR_ECYCLE);
	assert_int_equal(g.saw_early, 1);
	assert_file(dir, "early", "old\n");
	assert_int_equal(rmdir(dir), 0);	/* nothing else in it */
	assert_int_equal(rmdir(top), 0);
}

/* A writer told that its file is no longer wanted: the gate fails while
 * it writes (it waits for that, 10 s at most), and it sees
 * kr_write_stopped(), which a writer of a large file heeds to stop early;
 * outside a gated writer it is false. */
struct stopping {
	const char *dir;
	atomic_int started;	/* the writer has begun */
	int saw_stop;
};

static int stopping_file(FILE *out, const void *ctx)
{
	struct stopping *w = (struct stopping *)ctx;
	struct timespec ms = { 0, 1000000 };

	fputs("begun\n", out);
	atomic_store(&w->started, 1);
	for (int i = 0; i < 10000 && !kr_write_stopped(); i++)
		nanosleep(&ms, NULL);
	w->saw_stop = kr_write_stopped();
	return KR_OK;
}

static int failing_gate(void *arg)
{
	struct stopping *w = arg;
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 10000 && !atomic_load(&w->started); i++)
		nanosleep(&ms, NULL);
	return KR_ECYCLE;
}

static void test_gate_stops_writer(void **state)
{
	char dir[] = "/tmp/kr-test-gate-XXXXXX", sub[64];
	static const struct kr_dir_file files[] = { { "big", stopping_file } };
	struct stopping w = { sub, 0, 0 };
	struct kr_dir_gate gt = { failing_gate, &w, 1 };
	struct kr_diag d = { 0 };

	(void)state;
	assert_false(kr_write_stopped());
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/out", dir);
	assert_int_equal(kr_write_dir_while(sub, KR_TO_NAMED, files, 1, &w, &gt, &d),
			 KR_ECYCLE);
	assert_int_equal(w.saw_stop, 1);
	assert_false(kr_write_stopped());
	assert_int_equal(access(sub, F_OK), -1);
	assert_int_equal(rmdir(dir), 0);
}

/* A file written in place cannot be taken back: it waits for the gate,
 * and is not written when the gate fails. */
static void test_gate_in_place(void **state)
{
	char dir[] = "/tmp/kr-test-gate-XXXXXX", link[64];
	int calls = 0;
	struct gated g = { dir, KR_ECYCLE, 0, 0, 0, &calls };
	struct kr_diag d = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/early", dir);
	assert_int_equal(symlink("/dev/null", link), 0);
	assert_int_equal(write_gated(&g, gated_files, &d), KR_ECYCLE);
	assert_int_equal(calls, 0);
	g.rc = KR_OK;
	assert_int_equal(write_gated(&g, gated_files, &d), KR_OK);
	assert_int_equal(calls, 1);
	assert_file(dir, "late", "42\n");
	assert_int_equal(unlink(link), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A file that cannot be written fails the whole after a passing gate,
 * named in the message; nothing is left. */
static void test_gate_write_fails(void **state)
{
	static const struct kr_dir_file files[] = {
		{ "bad", failing_file }, { "late", late_file },
	};
	char top[] = "/tmp/kr-test-gate-XXXXXX", dir[64], want[128];
	int calls = 0;
	struct gated g = { dir, KR_OK, 0, 0, 0, &calls };
	struct kr_diag d = { 0 };

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/out", top);
	assert_int_equal(write_gated(&g, files, &d), KR_EIO);
	snprintf(want, sizeof(want), "cannot write %s/bad: ", dir);
	assert_memory_equal(d.msg, want, strlen(want));
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(rmdir(top), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writers_match_reference),
		cmocka_unit_test(test_some_groups_written),
		cmocka_unit_test(test_memory_stream_and_errors),
		cmocka_unit_test(test_description_beyond_buffer),
		cmocka_unit_test(test_lft_runs_and_allocation),
		cmocka_unit_test(test_gate_passes),
		cmocka_unit_test(test_gate_fails),
		cmocka_unit_test(test_gate_stops_writer),
		cmocka_unit_test(test_gate_in_place),
		cmocka_unit_test(test_gate_write_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
