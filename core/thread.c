/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Threads started where they can run at once (thread_int.h). */
#define _GNU_SOURCE	/* sched_getcpu, the affinity calls */
#include "thread_int.h"

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

/* Into other, a CPU of s->any that is not the caller's; false: none. */
static bool other_cpu(const struct start *s, cpu_set_t *other)
{
	int me = sched_getcpu();

	CPU_ZERO(other);
	if (me < 0)
		return false;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != me && CPU_ISSET(c, &s->any)) {
			CPU_SET(c, other);
			return true;
		}
	return false;
}

int kr_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	struct start *s = malloc(sizeof(*s));
	pthread_attr_t attr;
	cpu_set_t other;
	int rc;

	if (!s || sched_getaffinity(0, sizeof(s->any), &s->any) ||
	    !other_cpu(s, &other) || pthread_attr_init(&attr)) {
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
