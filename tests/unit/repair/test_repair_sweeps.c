/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fault repair sweep after sweep: the SLs and routes in force kept, a
 * second fault and a restart on top of a first, the tables cache refused
 * when bad, and only the pairs that must leave their SL moved. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kr.h"
#include "repair_util.h"
#include "truth.h"

/* The stale-SL proof follows the SLs that were in force: from the plan's,
 * every moved pair is unsafe on its old SL (its routes closed a loop
 * there); when the same repair is already in force, no pair changed SL
 * and none is; once the link is back, the pristine tables return and the
 * moved pairs' packets still on the detour SL, now on dimension-order
 * routes alone on that VL, are safe. */
static void test_stale_sls_follow_prev(void **state)
{
	struct kr_gen_opts o = mesh444;
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_conf c;
	struct kr_tables r1, r2, r3;
	struct kr_slvl p;
	struct kr_repair_stats st;

	(void)state;
	kr_conf_init(&c);
	truth_gen(&o, &f, &t);
	assert_int_equal(kr_route(&f, &t, &c, &r1, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r1, &p, NULL), KR_OK);
	assert_int_equal(repair_into(&f, &t, &c, &p, NULL, &r1, &st, NULL), KR_OK);
	assert_true(st.pairs_sl_changed > 0);
	assert_int_equal(st.pairs_stale_unsafe, st.pairs_sl_changed);
	kr_slvl_free(&p);

	assert_int_equal(kr_route(&f, &t, &c, &r2, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r2, &p, NULL), KR_OK);
	assert_int_equal(repair_into(&f, &t, &c, &p, &r1, &r2, &st, NULL), KR_OK);
	assert_true(st.pairs_sl_changed > 0);
	assert_int_equal(st.pairs_stale_unsafe, 0);
	kr_slvl_free(&p);

	/* the same fabric whole again: the generator numbers it the same */
	kr_topo_free(&t);
	kr_fabric_free(&f);
	o.fail = 0;
	truth_gen(&o, &f, &t);
	assert_int_equal(kr_route(&f, &t, &c, &r3, NULL), KR_OK);
	assert_int_equal(kr_slvl_plan(&f, &t, &c, &r3, &p, NULL), KR_OK);
	assert_int_equal(repair_into(&f, &t, &c, &p, &r1, &r3, &st, NULL), KR_OK);
	assert_int_equal(st.dests_repaired, 0);
	assert_int_equal(st.pairs_stale_unsafe, 0);
	kr_slvl_free(&p);
	kr_tables_free(&r1);
	kr_tables_free(&r2);
	kr_tables_free(&r3);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* One sweep's tables for f (its faults cut on the pristine labels t),
 * after prev (NULL: pristine). */
static void sweep(const struct kr_fabric *f, const struct kr_topo *t,
		  const struct kr_tables *prev, struct kr_tables *r)
{
	struct kr_conf c;
	struct kr_slvl p;
	struct kr_repair_stats st;
	struct kr_diag d = { 0 };

	kr_conf_init(&c);
	assert_int_equal(kr_route(f, t, &c, r, &d), KR_OK);
	assert_int_equal(kr_slvl_plan(f, t, &c, r, &p, &d), KR_OK);
	if (repair_into(f, t, &c, &p, prev, r, &st, &d))
		fail_msg("repair: %s", d.msg);
	kr_slvl_free(&p);
}

/* The route from CA port src to dlid as a hash of the ports it leaves
 * switches by, 0 when it is not delivered. */
static uint64_t route_hash(const struct kr_fabric *f, const struct kr_tables *t,
			   uint32_t src, unsigned dlid)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t sw;

	if (f->peer[src] < 0)
		return 0;
	sw = f->owner[f->peer[src]];
	for (uint32_t n = 0; n <= f->nsw; n++) {
		unsigned port = kr_lft_port(t, sw, dlid);
		uint32_t out;

		if (port == KR_NO_PORT || port > f->nports[sw])
			return 0;
		if (port == 0)
			return h;
		out = f->port0[sw] + port;
		h = (h ^ out) * 1099511628211ull;
		if (f->peer[out] < 0)
			return 0;
		if ((uint32_t)f->peer[out] == kr_port_by_lid(f, dlid))
			return h;
		sw = f->owner[f->peer[out]];
		if (!kr_is_switch(f, sw))
			return 0;
	}
	return 0;
}

/* The links between two switches, by their lower slot: up to max of
 * them into link; how many. */
static uint32_t switch_links(const struct kr_fabric *f, uint32_t *link,
			     uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < f->port0[f->nsw] && n < max; s++) {
		int32_t q = f->peer[s];

		if (q > (int32_t)s && kr_is_switch(f, f->owner[q]) &&
		    f->owner[q] != f->owner[s])
			link[n++] = s;
	}
	return n;
}

/* The tables in force with a switch more before all others (one gone
 * since shifts the rows of the switches after it): found by their own
 * LIDs, the rows give the same tables as want. */
static void same_with_rows_shifted(const struct kr_fabric *f,
				   const struct kr_topo *t,
				   const struct kr_tables *prev,
				   const struct kr_tables *want)
{
	struct kr_tables sh = *prev, r;
	size_t row = prev->stride;

	sh.nsw = prev->nsw + 1;
	sh.lft = malloc(sh.nsw * row);
	assert_non_null(sh.lft);
	memset(sh.lft, KR_NO_PORT, row);
	memcpy(sh.lft + row, prev->lft, prev->nsw * row);
	sweep(f, t, &sh, &r);
	assert_memory_equal(r.lft, want->lft, (size_t)want->nsw * row);
	assert_memory_equal(r.dlid_sl, want->dlid_sl, row);
	assert_int_equal(r.npair_sl, want->npair_sl);
	for (size_t i = 0; i < r.npair_sl; i++) {
		assert_int_equal(r.pair_sl[i].slid, want->pair_sl[i].slid);
		assert_int_equal(r.pair_sl[i].dlid, want->pair_sl[i].dlid);
		assert_int_equal(r.pair_sl[i].sl, want->pair_sl[i].sl);
	}
	free(sh.lft);
	kr_tables_free(&r);
}

/* A second fault joining a first: every CA pair whose route did not
 * change keeps its SL, those the first repair moved to a layer of
 * repaired trees included. The first sweep's repaired destinations are
 * taken first, in its order, their kept routes before any that changed
 * (keep_routes), and each meets a part of the graph it met then. Also the
 * order itself, and the same tables when prev's rows are shifted. 24 fault pairs per fabric; the pairs of repaired
 * destinations checked go to *seen, those of them off their planned SL
 * to *held. */
static void second_fault(const struct kr_gen_opts *o, unsigned *seen,
			 unsigned *held)
{
	for (unsigned trial = 0; trial < 24; trial++) {
		struct kr_fabric f;
		struct kr_topo t;
		struct kr_tables r0, ra, rab;
		uint32_t link[512], nl, a, b, nca;
		uint64_t *route;
		uint8_t *senior;

		truth_gen(o, &f, &t);
		nl = switch_links(&f, link, 512);
		a = link[(trial * 7 + 1) % nl];
		b = link[(trial * 13 + 5) % nl];
		sweep(&f, &t, NULL, &r0);
		cut_port(&f, a);
		sweep(&f, &t, &r0, &ra);
		nca = f.nport - f.port0[f.nsw];
		route = calloc((size_t)nca * (f.max_lid + 1), sizeof(*route));
		senior = calloc(f.max_lid + 1, 1);
		assert_non_null(route);
		assert_non_null(senior);
		for (uint32_t i = 0; i < ra.nrepaired; i++)
			senior[ra.repaired[i]] = 1;
		for (uint32_t s = f.port0[f.nsw]; s < f.nport; s++)
			for (unsigned lid = 1; lid <= f.max_lid; lid++)
				route[(size_t)(s - f.port0[f.nsw]) * (f.max_lid + 1) +
				      lid] = route_hash(&f, &ra, s, lid);
		cut_port(&f, b);
		sweep(&f, &t, &ra, &rab);
		same_with_rows_shifted(&f, &t, &ra, &rab);
		/* the second sweep's order: the first's repaired LIDs it
		 * repaired again, in the first's order, then the others */
		for (uint32_t i = 0, k = 0; i < rab.nrepaired; i++) {
			while (k < ra.nrepaired && ra.repaired[k] != rab.repaired[i])
				k++;
			if (k == ra.nrepaired && senior[rab.repaired[i]])
				fail_msg("trial %u: LID %u out of order", trial,
					 rab.repaired[i]);
		}
		for (uint32_t s = f.port0[f.nsw]; s < f.nport; s++)
			for (unsigned lid = 1; f.lid[s] && lid <= f.max_lid; lid++) {
				uint64_t h = route[(size_t)(s - f.port0[f.nsw]) *
						   (f.max_lid + 1) + lid];
				unsigned was = kr_tables_path_sl(&ra, f.lid[s], lid);

				if (!h || route_hash(&f, &rab, s, lid) != h)
					continue;
				if (was != kr_tables_path_sl(&rab, f.lid[s], lid))
					fail_msg("trial %u: LID %u to %u: SL %u, "
						 "then %u on the same route",
						 trial, f.lid[s], lid, was,
						 kr_tables_path_sl(&rab, f.lid[s], lid));
				*seen += senior[lid];
				*held += senior[lid] && was != r0.dlid_sl[lid];
			}
		free(route);
		free(senior);
		kr_tables_free(&r0);
		kr_tables_free(&ra);
		kr_tables_free(&rab);
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}

static void test_second_fault_keeps_sls(void **state)
{
	unsigned seen = 0, held = 0;

	(void)state;
	second_fault(&kns42p2, &seen, &held);
	second_fault(&kns43, &seen, &held);
	second_fault(&torus66, &seen, &held);
	second_fault(&mesh444, &seen, &held);
	assert_true(seen >= 1000);
	assert_true(held >= 10);
}

/* t through the tables cache: written for f, read back onto g. */
static int cache_trip(const struct kr_fabric *f, const struct kr_tables *t,
		      const struct kr_fabric *g, struct kr_tables *back,
		      struct kr_diag *d)
{
	char path[] = "/tmp/kr-test-tables-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *out;

	assert_true(fd >= 0);
	assert_non_null(out = fdopen(fd, "w"));
	assert_int_equal(kr_tables_cache_write(out, f, t), KR_OK);
	assert_int_equal(fclose(out), 0);
	rc = kr_tables_cache_read(path, g, back, d);
	unlink(path);
	return rc;
}

/* The SLs, pair SLs and repair order of a and b (not their LFTs). */
static void assert_same_sls(const struct kr_tables *a,
			    const struct kr_tables *b)
{
	assert_int_equal(a->stride, b->stride);
	assert_memory_equal(a->dlid_sl, b->dlid_sl, a->stride);
	assert_int_equal(a->npair_sl, b->npair_sl);
	for (size_t i = 0; i < a->npair_sl; i++) {
		assert_int_equal(a->pair_sl[i].slid, b->pair_sl[i].slid);
		assert_int_equal(a->pair_sl[i].dlid, b->pair_sl[i].dlid);
		assert_int_equal(a->pair_sl[i].sl, b->pair_sl[i].sl);
	}
	assert_int_equal(a->nrepaired, b->nrepaired);
	assert_memory_equal(a->repaired, b->repaired,
			    a->nrepaired * sizeof(*a->repaired));
}

/* A sweep that finds the fabric as the last one left it makes the same
 * tables: after 1 to 4 link faults one after the other, repairing again
 * with the tables in force changes no LFT entry and no SL. The first kind
 * of intermediates that closed a loop at a destination's turn may fit
 * now (the graph at its turn holds other routes), so before the repair
 * tried the column in force first, some destinations moved: of these 240
 * fault sequences on each fabric, 20 on the mesh and 31 on the KNS.
 * Returns how many sequences needed a repair. */
static unsigned settled(const struct kr_gen_opts *o)
{
	unsigned repaired = 0;

	for (unsigned trial = 0; trial < 60; trial += stride())
		for (unsigned nf = 1; nf <= 4; nf++) {
			struct kr_fabric f;
			struct kr_topo t;
			struct kr_tables r, prev, again;
			uint32_t link[512], nl;

			truth_gen(o, &f, &t);
			nl = switch_links(&f, link, 512);
			sweep(&f, &t, NULL, &r);
			for (unsigned k = 0; k < nf; k++) {
				prev = r;
				cut_port(&f, link[(trial * 31 + k * 17 + nf * 7 + 3) % nl]);
				sweep(&f, &t, &prev, &r);
				kr_tables_free(&prev);
			}
			sweep(&f, &t, &r, &again);
			for (size_t i = 0; i < (size_t)f.nsw * r.stride; i++)
				if (r.lft[i] != again.lft[i])
					fail_msg("trial %u, %u faults: switch %zu, "
						 "LID %zu: port %u, then %u", trial, nf,
						 i / r.stride, i % r.stride, r.lft[i],
						 again.lft[i]);
			assert_same_sls(&r, &again);
			repaired += again.nfixes > 0;
			kr_tables_free(&r);
			kr_tables_free(&again);
			kr_topo_free(&t);
			kr_fabric_free(&f);
		}
	return repaired;
}

static void test_no_change_keeps_tables(void **state)
{
	static const struct kr_gen_opts mesh53 = {
		.family = KR_FAMILY_MESH, .ndim = 2, .k = { 5, 3 }, .p = 3 };
	static const struct kr_gen_opts kns52 = {
		.family = KR_FAMILY_KNS, .ndim = 2, .k = { 5, 5 }, .p = 2 };

	(void)state;
	static const struct kr_gen_opts torus64 = {
		.family = KR_FAMILY_TORUS, .ndim = 2, .k = { 6, 4 }, .p = 2,
		.wrap = { 1, 1 } };

	assert_true(settled(&torus64) > 0);
	assert_true(settled(&mesh53) > 0);
	assert_true(settled(&kns52) > 0);
}

/* OpenSM restarted with three faults in place: the tables cache of the
 * tables in force, completed by this fabric's routes, gives the first
 * sweep's repair the tables the running one had (LFTs, SLs, pair SLs,
 * repaired destinations in order), so it makes exactly the tables the
 * running OpenSM's next sweep would: the repair after a restart is the
 * repair before it. Without the cache some pairs of unchanged route
 * change SL (counted into *moved_without over the trials). */
static void restart_with_faults(const struct kr_gen_opts *o,
				unsigned *moved_without)
{
	for (unsigned trial = 0; trial < 8; trial++) {
		struct kr_fabric f;
		struct kr_topo t;
		struct kr_tables r, prev, back, again, restarted, fresh, routed;
		struct kr_conf c;
		struct kr_diag d = { 0 };
		uint32_t link[512], nl;

		truth_gen(o, &f, &t);
		nl = switch_links(&f, link, 512);
		sweep(&f, &t, NULL, &r);
		for (unsigned k = 0; k < 3; k++) {
			prev = r;
			cut_port(&f, link[(trial * 11 + k * 17 + 3) % nl]);
			sweep(&f, &t, &prev, &r);
			kr_tables_free(&prev);
		}
		if (cache_trip(&f, &r, &f, &back, &d))
			fail_msg("tables cache: %s (line %u)", d.msg, d.line);
		assert_null(back.lft);
		assert_true(r.nfixes > 0);
		assert_int_equal(back.nfixes, r.nfixes);
		kr_conf_init(&c);
		assert_int_equal(kr_route(&f, &t, &c, &routed, &d), KR_OK);
		assert_int_equal(kr_tables_refill(&back, &routed), KR_OK);
		kr_tables_free(&routed);
		assert_memory_equal(back.lft, r.lft, (size_t)f.nsw * r.stride);
		assert_same_sls(&back, &r);
		sweep(&f, &t, &r, &again);
		sweep(&f, &t, &back, &restarted);
		assert_memory_equal(again.lft, restarted.lft,
				    (size_t)f.nsw * again.stride);
		assert_same_sls(&again, &restarted);
		sweep(&f, &t, NULL, &fresh);
		for (uint32_t s = f.port0[f.nsw]; s < f.nport; s++)
			for (unsigned lid = 1; f.lid[s] && lid <= f.max_lid; lid++) {
				uint64_t h = route_hash(&f, &r, s, lid);

				*moved_without += h && route_hash(&f, &fresh, s, lid) == h &&
					kr_tables_path_sl(&r, f.lid[s], lid) !=
					kr_tables_path_sl(&fresh, f.lid[s], lid);
			}
		kr_tables_free(&r);
		kr_tables_free(&back);
		kr_tables_free(&again);
		kr_tables_free(&restarted);
		kr_tables_free(&fresh);
		kr_topo_free(&t);
		kr_fabric_free(&f);
	}
}

static void test_restart_keeps_repair(void **state)
{
	static const struct kr_gen_opts mesh45 = {
		.family = KR_FAMILY_MESH, .ndim = 2, .k = { 4, 5 }, .p = 1,
		.shuffle = 3 };
	static const struct kr_gen_opts torus45 = {	/* LID ranges */
		.family = KR_FAMILY_TORUS, .ndim = 2, .k = { 4, 5 },
		.wrap = { 1, 1 }, .p = 2, .lmc = 1,
		.shuffle = 5 };
	struct kr_gen_opts kns42 = kns42p2;
	unsigned moved = 0;

	(void)state;
	kns42.shuffle = 7;
	restart_with_faults(&kns42, &moved);
	restart_with_faults(&torus66, &moved);
	restart_with_faults(&mesh45, &moved);
	restart_with_faults(&torus45, &moved);
	print_message("# without the cache: %u pairs of unchanged route moved\n",
		      moved);
	assert_true(moved > 0);
}

static int read_cache_text(const struct kr_fabric *f, const char *text,
			   struct kr_tables *t, struct kr_diag *d)
{
	char path[] = "/tmp/kr-test-tables-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = kr_tables_cache_read(path, f, t, d);
	unlink(path);
	return rc;
}

/* Bad caches are refused naming the line and what was expected; one
 * whose LIDs are another assignment's, or one of another fabric, is
 * refused as not this fabric's;
 * switches and destinations the fabric no longer has are passed over. */
static void test_tables_cache_refused(void **state)
{
	static const struct kr_gen_opts o = {
		.family = KR_FAMILY_TORUS, .ndim = 2, .k = { 3, 3 },
		.wrap = { 1, 1 }, .p = 1 };
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_tables r;
	struct kr_diag d;
	char s0[40], s1[40], text[512];
	uint32_t ca;
	unsigned cal, swl;
	struct { const char *body; int rc; unsigned line; const char *says; } bad[] = {
		{ "", KR_EPARSE, 0, "the file is empty" },
		{ "# only a comment\nsl 1 00\n", KR_EPARSE, 2, "\"lids N\"" },
		{ "lids 20\nsl 1 0g\n", KR_EPARSE, 2, "one SL per LID" },
		{ "lids 20\nsl 1 0F\n", KR_EPARSE, 2, "one SL per LID" },
		{ "lids 5\nsl 1 00000\n", KR_EPARSE, 2, "run past LID 4" },
		{ "lids 20\nsl 0 00\n", KR_EPARSE, 2, "a first LID" },
		{ "lids 20\nroute 1 2\n", KR_EPARSE, 2, "\"sl\", \"switch\"" },
		{ "lids 20\npair 1 2 16\n", KR_EPARSE, 2, "\"pair SLID DLID SL\"" },
		{ "lids 20\npair 1 20 1\n", KR_EPARSE, 2, "\"pair SLID DLID SL\"" },
	};

	(void)state;
	truth_gen(&o, &f, &t);
	ca = f.port0[f.nsw] + 1;
	cal = f.lid[ca];
	swl = f.lid[f.port0[1]];
	snprintf(s0, sizeof(s0), "0x%016llx", (unsigned long long)f.guid[0]);
	snprintf(s1, sizeof(s1), "0x%016llx", (unsigned long long)f.guid[1]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		d = (struct kr_diag){ 0 };
		assert_int_equal(read_cache_text(&f, bad[i].body, &r, &d),
				 bad[i].rc);
		assert_int_equal(d.line, bad[i].line);
		if (!strstr(d.msg, bad[i].says))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, d.msg,
				 bad[i].says);
		assert_null(r.lft);
	}

	/* entries: SWITCH:PORT of a switch line, switch lines first, one
	 * line per destination */
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\nswitch %s %u\n"
		 "dest %u 0x%016llx 2:1\n", f.max_lid + 1, s0,
		 f.lid[f.port0[0]], s1, swl, cal,
		 (unsigned long long)f.port_guid[ca]);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EPARSE);
	assert_int_equal(d.line, 4);
	assert_non_null(strstr(d.msg, "number 0 to 1"));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\n"
		 "dest %u 0x%016llx 0:1 0\n", f.max_lid + 1, s0,
		 f.lid[f.port0[0]], cal, (unsigned long long)f.port_guid[ca]);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EPARSE);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "expected SWITCH:PORT"));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\n"
		 "dest %u 0x%016llx 0:1\nswitch %s %u\n", f.max_lid + 1, s0,
		 f.lid[f.port0[0]], cal, (unsigned long long)f.port_guid[ca],
		 s1, swl);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EPARSE);
	assert_int_equal(d.line, 4);
	assert_non_null(strstr(d.msg, "before the first \"dest\""));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\n"
		 "dest %u 0x%016llx 0:1\ndest %u 0x%016llx 0:2\n", f.max_lid + 1,
		 s0, f.lid[f.port0[0]], cal, (unsigned long long)f.port_guid[ca],
		 cal, (unsigned long long)f.port_guid[ca]);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EPARSE);
	assert_int_equal(d.line, 4);
	assert_non_null(strstr(d.msg, "has a \"dest\" line already"));

	/* another LID assignment's */
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\nswitch %s %u\n",
		 f.max_lid + 1, s0, f.lid[f.port0[0]], s1, swl + 1);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EINVAL);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "handed out anew"));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\n"
		 "dest %u 0x%016llx 0:1\n", f.max_lid + 1, s0, f.lid[f.port0[0]],
		 swl, (unsigned long long)f.port_guid[ca]);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EINVAL);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "handed out anew"));
	/* a CA port on another LID, or the same LID under another LMC (an
	 * LMC change hands every CA LID out anew); a CA gone says nothing */
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\nca 0x%016llx "
		 "%u 0\n", f.max_lid + 1, s0, f.lid[f.port0[0]],
		 (unsigned long long)f.port_guid[ca], cal + 1);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EINVAL);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "handed out anew"));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\nca 0x%016llx "
		 "%u 1\n", f.max_lid + 1, s0, f.lid[f.port0[0]],
		 (unsigned long long)f.port_guid[ca], cal);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_EINVAL);
	assert_non_null(strstr(d.msg, "LMC 0, not LID"));
	snprintf(text, sizeof(text), "lids %u\nswitch %s %u\nca 0x%016llx "
		 "%u 0\nca 0xdead 7 0\n", f.max_lid + 1, s0, f.lid[f.port0[0]],
		 (unsigned long long)f.port_guid[ca], cal);
	assert_int_equal(read_cache_text(&f, text, &r, &d), KR_OK);
	kr_tables_free(&r);
	assert_int_equal(read_cache_text(&f, "lids 20\nca 0x1 70000 0\n", &r,
					 &d), KR_EPARSE);
	assert_non_null(strstr(d.msg, "\"ca 0xPORTGUID LID LMC\""));
	assert_int_equal(read_cache_text(&f, "lids 20\nswitch 0xdead 1\n",
					 &r, &d), KR_EINVAL);
	assert_non_null(strstr(d.msg, "none of its 1 switches"));

	/* a switch and a LID gone: passed over; the rest is read */
	snprintf(text, sizeof(text), "lids %u\nsl 1 %.*s\n"
		 "switch 0x00000000deadbeef 40000\nswitch %s %u\n"
		 "dest %u 0x%016llx 0:7 1:-\ndest %u 0x0 0:7 1:3\n"
		 "pair %u %u 9\n",
		 f.max_lid + 3, (int)f.max_lid + 2,
		 "5555555555555555555555555555555555555555555555555555555555555",
		 s1, swl, cal, (unsigned long long)f.port_guid[ca],
		 f.max_lid + 2, cal, swl);
	d = (struct kr_diag){ 0 };
	if (read_cache_text(&f, text, &r, &d))
		fail_msg("%s (line %u)", d.msg, d.line);
	assert_int_equal(r.stride, f.max_lid + 1);
	assert_int_equal(r.nrepaired, 1);
	assert_int_equal(r.repaired[0], cal);
	assert_int_equal(r.nfixes, 1);
	assert_int_equal(r.fixes[0].sw, 1);
	assert_int_equal(r.fixes[0].lid, cal);
	assert_int_equal(r.fixes[0].port, KR_NO_PORT);
	assert_int_equal(r.dlid_sl[f.max_lid], 5);
	assert_int_equal(r.npair_sl, 1);
	assert_int_equal(kr_tables_path_sl(&r, cal, swl), 9);
	kr_tables_free(&r);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

/* Only the pairs that must leave their destination's SL do: the repair
 * moves the new routes of a destination switch by switch, so putting the
 * pairs of any one source switch it moved back on the destination's SL
 * must give tables the checker refuses with a credit loop (the graph
 * they closed one in then is part of the final one). The first 10 such
 * switches of each fabric; the number tried goes to *tried. */
static void moved_pairs_needed(const struct kr_gen_opts *o, unsigned *tried)
{
	struct kr_fabric f;
	struct kr_topo t;
	struct kr_tables r;
	struct kr_check_report rep;
	struct kr_check_opts co = { 0 };
	unsigned n_here = 0;

	truth_gen(o, &f, &t);
	sweep(&f, &t, NULL, &r);
	for (size_t i = 0; i < r.npair_sl && n_here < 10; i++) {
		const struct kr_sl_pair *e = &r.pair_sl[i];
		uint32_t sw = f.owner[f.peer[kr_port_by_lid(&f, e->slid)]];
		struct kr_sl_pair *all = r.pair_sl, *keep;
		size_t n = 0, nall = r.npair_sl;
		bool first = true;

		keep = malloc(nall * sizeof(*keep));
		assert_non_null(keep);
		/* each (source switch, DLID) once: at its first pair */
		for (size_t j = 0; j < nall; j++) {
			const struct kr_sl_pair *q = &all[j];
			uint32_t qs = f.owner[f.peer[kr_port_by_lid(&f, q->slid)]];

			if (q->dlid == e->dlid && qs == sw)
				first &= j >= i;
			else
				keep[n++] = *q;
		}
		if (first) {
			r.pair_sl = keep;
			r.npair_sl = n;
			if (kr_check_run(&f, &r, &co, &rep, NULL) != KR_ECYCLE)
				fail_msg("the pairs of switch %u to LID %u fit "
					 "on its SL %u", sw, e->dlid,
					 r.dlid_sl[e->dlid]);
			kr_check_report_free(&rep);
			r.pair_sl = all;
			r.npair_sl = nall;
			n_here++;
		}
		free(keep);
	}
	*tried += n_here;
	kr_tables_free(&r);
	kr_topo_free(&t);
	kr_fabric_free(&f);
}

static void test_moved_pairs_needed(void **state)
{
	struct kr_gen_opts o[] = {
		kns43,
		{ .family = KR_FAMILY_KNS, .ndim = 2, .k = { 4, 4 }, .p = 2 },
		{ .family = KR_FAMILY_TORUS, .ndim = 2, .k = { 6, 6 },
		  .wrap = { 1, 1 }, .p = 2 },
		{ .family = KR_FAMILY_MESH, .ndim = 2, .k = { 5, 5 }, .p = 2 },
	};
	unsigned tried = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		for (unsigned seed = 1; seed <= 4; seed++) {
			o[i].fail = 2;
			o[i].fail_seed = seed;
			moved_pairs_needed(&o[i], &tried);
		}
	assert_true(tried >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_sls_follow_prev),
		cmocka_unit_test(test_second_fault_keeps_sls),
		cmocka_unit_test(test_restart_keeps_repair),
		cmocka_unit_test(test_no_change_keeps_tables),
		cmocka_unit_test(test_tables_cache_refused),
		cmocka_unit_test(test_moved_pairs_needed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
