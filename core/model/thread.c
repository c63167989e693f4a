/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Threads started where they can run at once (kr_thread.h). */
#define _GNU_SOURCE	/* sched_getcpu, the affinity calls */
#include "kr_thread.h"

#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

struct start {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t any;		/* the creator's CPUs */
};

static void *started(void *p)
{
	struct start s = *(struct start *)p;

	free(p);
	pthread_setaffinity_np(pthread_self(), sizeof(s.any), &s.any);
	return s.fn(s.arg);
}

/* Into other, the CPUs of s->any but the caller's (the scheduler picks
 * among them); false: there are none. */
static bool other_cpus(const struct start *s, cpu_set_t *other)
{
	int me = sched_getcpu();

	if (me < 0 || me >= CPU_SETSIZE)
		return false;
	*other = s->any;
	CPU_CLR(me, other);
	return CPU_COUNT(other) > 0;
}

int kr_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	struct start *s = malloc(sizeof(*s));
	pthread_attr_t attr;
	cpu_set_t other;
	int rc;

	if (!s || sched_getaffinity(0, sizeof(s->any), &s->any) ||
	    !other_cpus(s, &other) || pthread_attr_init(&attr)) {
		free(s);
		return pthread_create(th, NULL, fn, arg);
	}
	s->fn = fn;
	s->arg = arg;
	rc = pthread_attr_setaffinity_np(&attr, sizeof(other), &other) ? -1
	     : pthread_create(th, &attr, started, s);
	pthread_attr_destroy(&attr);
	if (!rc)
		return 0;
	free(s);
	return pthread_create(th, NULL, fn, arg);
}
