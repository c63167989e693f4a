/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A second thread for work split in two (routing's rows, the dry run's
 * files beside the check). Not for tools/. */
#ifndef KR_THREAD_H
#define KR_THREAD_H

#include <pthread.h>

/* pthread_create(th, NULL, fn, arg), but fn starts on one of the
 * process's CPUs other than the caller's, when it has one, and may go
 * anywhere once started. Linux otherwise queued a new thread on its
 * creator's CPU until the next load balancing, which on the 2-vCPU VM
 * measured took 3-4 ms (the scheduler tick), while the creator went on
 * with its own half: the two halves ran one after the other. 0, or
 * pthread_create's error. */
int kr_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
