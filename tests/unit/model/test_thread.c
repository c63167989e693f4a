/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* kr_thread_start: the second thread of routing and of the dry run. */
#define _GNU_SOURCE	/* sched_getcpu, the affinity calls */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kr_thread.h"

/* What a thread of kr_thread_start saw when it began. */
struct began {
	int cpu;
	cpu_set_t may;
};

static void *note_start(void *arg)
{
	struct began *b = arg;

	b->cpu = sched_getcpu();
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(b->may),
						&b->may), 0);
	return arg;
}

static struct began start_one(void)
{
	struct began b;
	pthread_t th;
	void *ret;

	assert_int_equal(kr_thread_start(&th, note_start, &b), 0);
	assert_int_equal(pthread_join(th, &ret), 0);
	assert_ptr_equal(ret, &b);
	return b;
}

/* A thread of kr_thread_start runs its function and returns its value,
 * and may run on any of its creator's CPUs once started (it starts on
 * another one: how much sooner that makes it start is a matter of time,
 * which bench_route and bench/scaling.sh measure); with one CPU it
 * starts all the same. */
static void test_thread_start(void **state)
{
	cpu_set_t all, one;
	struct began b;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	b = start_one();
	assert_true(CPU_EQUAL(&b.may, &all));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	b = start_one();
	assert_true(CPU_EQUAL(&b.may, &one));
	assert_true(CPU_ISSET(b.cpu, &one));
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
