/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute capture: reading a live fabric with the libraries infiniband-diags
 * uses (libibnetdisc, libibmad, libibumad). Only tools/capture_*.c see their
 * types; this header and cmd_capture.c build without them. */
#ifndef KR_CAPTURE_H
#define KR_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>

#include "kr.h"

/* SMPs in flight at most, whatever --window says: switch management
 * processors are slow and drop SMPs when flooded; OpenSM's default
 * max_wire_smps is as many. */
#define CAPTURE_SMP_WINDOW 4

struct capture_opts {
	const char *ca;		/* NULL: the first CA with an active port */
	unsigned port;		/* 0: its first active port */
	unsigned timeout_ms;	/* one attempt of one query */
	unsigned retries;	/* attempts after the first */
	unsigned window;	/* queries in flight at once */
	bool path_sl;		/* ask the SA for every pair's PathRecord */
	bool quiet;		/* no progress on stderr */
};

#ifdef HAVE_CAPTURE
/* Discovers the fabric from the local port and reads its LFTs, SL2VL maps
 * and (with o->path_sl) path SLs into f and t; log receives one line per
 * phase and per retry. Returns 0, or EXIT_PROBLEM after printing which
 * query failed and why. */
int capture_fabric(const struct capture_opts *o, struct kr_fabric *f,
		   struct kr_tables *t, FILE *log);

/* An `ibnetdiscover --cache` file, loaded by libibnetdisc itself. */
int cap_load_cache(const char *path, struct kr_fabric *f, struct kr_diag *d);
#endif

/* The first bytes of an `ibnetdiscover --cache` file: libibnetdisc's magic
 * 0x8FE7832B, which it writes least significant byte first on every host. */
#define CAPTURE_IBND_CACHE_MAGIC "\x2b\x83\xe7\x8f"

#endif
