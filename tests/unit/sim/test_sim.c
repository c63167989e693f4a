/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The simulator against truths that need no simulator: Karol's head-of-line
 * limit for one switch with FIFO inputs, conservation of packets, one seed
 * one output, a credit loop that must deadlock and name its channels.
 * Fixtures are built by hand: "star" is one N-port switch with a CA on each
 * port; "ring" n switches each with a CA on port 1, port 2 to the next
 * switch, port 3 from the previous, every route going the + way round on
 * VL 0 (the loop `knsroute check` reports for the same tables). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kr.h"
#include "kr_sim.h"

struct fixture {
	struct kr_fabric f;
	struct kr_tables t;
};

/* Switch "S" (LID 1), CAs "H0".. on ports 1..n with LIDs 2..n+1. */
static void build_star(struct fixture *x, unsigned n)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int sw = kr_fb_add_node(b, KR_SWITCH, n, 0x100, "S", NULL, 0, NULL);
	char name[16];

	kr_fb_set_port(b, sw, 0, 0, 1, 0, 0, NULL);
	for (unsigned i = 0; i < n; i++) {
		int ca;

		snprintf(name, sizeof(name), "H%u", i);
		ca = kr_fb_add_node(b, KR_CA, 1, 0x1000 + i, name, NULL, 0, NULL);
		assert_int_equal(kr_fb_link(b, sw, i + 1, ca, 1, 0, NULL), 0);
		kr_fb_set_port(b, ca, 1, 0x2000 + i, (uint16_t)(i + 2), 0, 0, NULL);
	}
	assert_int_equal(kr_fb_finish(b, &x->f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_tables_init(&x->t, &x->f, x->f.max_lid + 1, 1, 1), 0);
	for (unsigned i = 0; i < n; i++)
		x->t.lft[i + 2] = (uint8_t)(i + 1);
}

/* Switch i "S<i>" LID i+1, its CA "H<i>" LID n+1+i. */
static void build_ring(struct fixture *x, unsigned n)
{
	struct kr_fabric_builder *b = kr_fb_new();
	int sw[8], ca[8];
	char name[16];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "S%u", i);
		sw[i] = kr_fb_add_node(b, KR_SWITCH, 3, 0x100 + i, name, NULL, 0,
				       NULL);
		snprintf(name, sizeof(name), "H%u", i);
		ca[i] = kr_fb_add_node(b, KR_CA, 1, 0x1000 + i, name, NULL, 0,
				       NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(kr_fb_link(b, sw[i], 1, ca[i], 1, 0, NULL), 0);
		assert_int_equal(kr_fb_link(b, sw[i], 2, sw[(i + 1) % n], 3, 0,
					    NULL), 0);
		kr_fb_set_port(b, sw[i], 0, 0, (uint16_t)(i + 1), 0, 0, NULL);
		kr_fb_set_port(b, ca[i], 1, 0x2000 + i, (uint16_t)(n + 1 + i),
			       0, 0, NULL);
	}
	assert_int_equal(kr_fb_finish(b, &x->f, NULL), KR_OK);
	kr_fb_free(b);
	assert_int_equal(kr_tables_init(&x->t, &x->f, x->f.max_lid + 1, 1, 1), 0);
	for (unsigned s = 0; s < n; s++)
		for (unsigned i = 0; i < n; i++)
			x->t.lft[s * x->t.stride + n + 1 + i] = i == s ? 1 : 2;
}

static void fixture_free(struct fixture *x)
{
	kr_tables_free(&x->t);
	kr_fabric_free(&x->f);
}

/* Small packets and a short run: a fixture takes milliseconds natively
 * and stays within seconds under valgrind. */
static struct kr_sim_opts small_opts(void)
{
	struct kr_sim_opts o;

	kr_sim_opts_default(&o);
	o.pkt = 8;
	o.buf_vl = 32;
	o.warmup = 2000;
	o.cycles = 20000;
	return o;
}

static void run(const struct fixture *x, const struct kr_sim_opts *o,
		struct kr_sim_result *r)
{
	struct kr_diag d = { 0 };

	assert_int_equal(kr_sim_run(&x->f, &x->t, NULL, o, r, &d), KR_OK);
	/* conservation, whatever else the test looks at */
	assert_int_equal(r->injected, r->delivered + r->dropped + r->queued);
}

/* Karol, Hluchyj and Morgan (1987): FIFO inputs under uniform traffic
 * saturate at 2 - sqrt(2) = 0.586 as N grows (0.60 at N = 16), however
 * deep the queues; with virtual output queues in the same buffers the
 * inputs no longer block and nearly all of the link rate gets through. */
static void test_karol_fifo_and_voq(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;

	(void)state;
	build_star(&x, 16);
	o.buf_vl = 16 * o.pkt;
	run(&x, &o, &r);
	assert_false(r.deadlock);
	assert_true(r.accepted > 0.55 && r.accepted < 0.65);
	kr_sim_result_free(&r);

	o.voq = true;
	run(&x, &o, &r);
	assert_true(r.accepted > 0.85);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

/* Below saturation a switch takes all that is offered. */
static void test_light_load_all_accepted(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;

	(void)state;
	build_star(&x, 8);
	o.load = 0.3;
	run(&x, &o, &r);
	assert_true(r.accepted > 0.27 && r.accepted < 0.33);
	assert_true(r.offered > 0.27 && r.offered < 0.33);
	assert_true(r.latency_p99 >= r.latency_mean);
	assert_int_equal(r.refused, 0);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

static char *json_of(const struct fixture *x, const struct kr_sim_opts *o)
{
	struct kr_sim_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	run(x, o, &r);
	assert_int_equal(kr_sim_write_json(out, &x->f, o, &r), 0);
	fclose(out);
	kr_sim_result_free(&r);
	return buf;
}

static void test_same_seed_same_bytes(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	char *a, *b, *c;

	(void)state;
	build_star(&x, 8);
	o.pattern = KR_SIM_HOTSPOT;
	o.window = 5000;
	a = json_of(&x, &o);
	b = json_of(&x, &o);
	o.seed = 2;
	c = json_of(&x, &o);
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
	fixture_free(&x);
}

/* Every route the + way round on one VL: each switch's channel to the
 * next waits for the next one's, and under load they fill and stop. The
 * witness is the whole ring, "S<i>[2] VL 0" for every i. */
static void test_ring_deadlocks(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;
	unsigned seen = 0;

	(void)state;
	build_ring(&x, 4);
	run(&x, &o, &r);
	assert_true(r.deadlock);
	assert_int_equal(r.ncycle, 4);
	for (unsigned i = 0; i < r.ncycle; i++) {
		uint32_t node = x.f.owner[r.cycle_slot[i]];

		assert_int_equal(kr_port_num(&x.f, r.cycle_slot[i]), 2);
		assert_int_equal(r.cycle_vl[i], 0);
		seen |= 1u << node;
	}
	assert_int_equal(seen, 0xf);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

/* The same ring with every route one hop long (neighbour traffic only,
 * the shift pattern): no channel waits for another, no deadlock. */
static void test_ring_without_dependency_runs(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;

	(void)state;
	build_ring(&x, 4);
	o.pattern = KR_SIM_SHIFT;
	o.shift = 1;
	run(&x, &o, &r);
	assert_false(r.deadlock);
	assert_true(r.accepted > 0.9);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

/* The LFT sends H1's packets to H2's port: H2 must not take them. Each
 * of 4 hosts sends uniformly to 3 others, so a quarter of all packets are
 * H1's, and the CA they reach drops them. */
static void test_wrong_port_drops(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;
	double share;

	(void)state;
	build_star(&x, 4);
	x.t.lft[1 + 2] = 3;	/* LID 3 is H1 on port 2 */
	o.load = 0.2;
	run(&x, &o, &r);
	share = (double)r.dropped / (double)r.injected;
	assert_true(share > 0.22 && share < 0.28);
	assert_true(r.delivered + r.dropped + r.queued == r.injected);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

/* Output queues filled at twice link rate: a head no longer waits for its
 * output's link, only for room in its queue, so the FIFO limit lifts
 * (Karol's speed-up argument); a speed-up with nothing to deliver into
 * is refused. */
static void test_speedup_lifts_fifo_limit(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;
	struct kr_diag d = { 0 };
	double one;

	(void)state;
	build_star(&x, 16);
	o.buf_vl = 16 * o.pkt;
	o.oq = 4 * o.pkt;
	run(&x, &o, &r);
	one = r.accepted;
	kr_sim_result_free(&r);
	o.speedup = 2;
	run(&x, &o, &r);
	assert_true(r.accepted > one + 0.1);
	kr_sim_result_free(&r);
	o.oq = 0;
	assert_int_equal(kr_sim_run(&x.f, &x.t, NULL, &o, &r, &d), KR_EINVAL);
	assert_non_null(strstr(d.msg, "speed-up"));
	fixture_free(&x);
}

/* Windows: buffers stay empty under light load; in a deadlock the ring's
 * buffers are full in the last window. */
static void test_windows_full_and_empty(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_opts o = small_opts();
	struct kr_sim_result r;

	(void)state;
	build_ring(&x, 4);
	o.window = 1000;
	o.load = 0.02;
	o.pattern = KR_SIM_SHIFT;
	o.shift = 1;
	run(&x, &o, &r);
	assert_int_equal(r.nwin, (o.warmup + o.cycles) / o.window);
	assert_true(r.win[r.nwin - 1].empty_share > 0.9);
	kr_sim_result_free(&r);
	o.load = 1;
	o.pattern = KR_SIM_UNIFORM;
	run(&x, &o, &r);
	assert_true(r.deadlock && r.nwin > 0);
	assert_true(r.win[r.nwin - 1].full_share > 0);
	assert_true(r.win[r.nwin - 1].accepted_cold == 0);
	kr_sim_result_free(&r);
	fixture_free(&x);
}

static void test_vlarb_errors_name_the_line(void **state)
{
	struct fixture x = { 0 };
	struct kr_sim_vlarb v = { 0 };
	struct kr_diag d = { 0 };
	const char text[] = "# comment\n0x100 1 low 0:64\n0x100 2 low 0:999\n";
	FILE *in = fmemopen((void *)text, sizeof(text) - 1, "r");

	(void)state;
	build_star(&x, 2);
	assert_int_equal(kr_sim_vlarb_read(in, &x.f, &v, &d), KR_EPARSE);
	assert_int_equal(d.line, 3);
	assert_non_null(strstr(d.msg, "VL:WEIGHT"));
	fclose(in);
	fixture_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_karol_fifo_and_voq),
		cmocka_unit_test(test_light_load_all_accepted),
		cmocka_unit_test(test_same_seed_same_bytes),
		cmocka_unit_test(test_ring_deadlocks),
		cmocka_unit_test(test_ring_without_dependency_runs),
		cmocka_unit_test(test_wrong_port_drops),
		cmocka_unit_test(test_speedup_lifts_fifo_limit),
		cmocka_unit_test(test_windows_full_and_empty),
		cmocka_unit_test(test_vlarb_errors_name_the_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
