/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Table dumps: what a fabric is programmed with, as files.
 *
 * - LFTs: OpenSM's opensm-lfts.dump, and the output of ibroute / dump_fts /
 *   dump_lfts.sh (with or without -n, -a); the reader tells them apart by
 *   each block's header.
 * - SL2VL: OpenSM's opensm-sl2vl.dump, and concatenated
 *   `smpquery sl2vl LID [OUTPORT]` output.
 * - Path SLs: knsroute's path-sl file ("dlid sl", "slid dlid sl"), and the
 *   output of `saquery -p` (PathRecord dumps: slid, dlid, sl).
 * - MFTs: OpenSM's opensm.mcfdbs, and the output of ibroute -M / dump_fts
 *   -M / dump_mfts.sh (with or without -n); group SLs: saquery -g or
 *   saquery MCMR output, or "MLID SL" lines.
 *
 * Readers check every GUID and LID they meet against the fabric (so tables
 * dumped from another fabric, or with other LIDs, are refused with the line
 * that shows it) and report FILE:LINE. They set d->file to the path. The
 * OpenSM writers reproduce OpenSM's files byte for byte; making a file
 * appear atomically is the caller's job. docs/file-formats.md has the
 * grammar of each format. */
#ifndef KR_DUMP_H
#define KR_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include "kr_fabric.h"
#include "kr_tables.h"

/* Fills a fresh t (kr_tables_init: no SL2VL, no path SLs) with LIDs
 * 0 .. max(f->max_lid, highest LID in the file). Switches the file does not
 * mention keep empty rows. */
int kr_lfts_parse(const char *buf, size_t len, const struct kr_fabric *f,
		  struct kr_tables *t, struct kr_diag *d);
int kr_lfts_read(const char *path, const struct kr_fabric *f,
		 struct kr_tables *t, struct kr_diag *d);
/* LIDs for a fabric that has none, from the port GUIDs the entries'
 * comments name (opensm-lfts.dump, ibroute): each port gets the aligned
 * range of LIDs naming it. Ports already with a LID keep it. */
int kr_lfts_parse_lids(const char *buf, size_t len, struct kr_fabric *f,
		       struct kr_diag *d);
int kr_lfts_read_lids(const char *path, struct kr_fabric *f,
		      struct kr_diag *d);
/* opensm-lfts.dump: switches in OpenSM's order (see kr_guid_order), LIDs
 * 0 .. t->stride - 1. */
int kr_lfts_write(FILE *out, const struct kr_fabric *f,
		  const struct kr_tables *t);

/* Adds SL2VL maps to t (allocating them, all VL 0, when t has none yet).
 * Maps the file does not mention keep their value. */
int kr_sl2vl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		   struct kr_tables *t, struct kr_diag *d);
int kr_sl2vl_read(const char *path, const struct kr_fabric *f,
		  struct kr_tables *t, struct kr_diag *d);
/* opensm-sl2vl.dump: every switch (out ports with a link, in ports
 * 0 .. nports) and every linked CA port, in port GUID order. */
int kr_sl2vl_write(FILE *out, const struct kr_fabric *f,
		   const struct kr_tables *t);

/* The master SM's LID from ibdiagnet's ibdiagnet.sm (the first port
 * under "SM - master"); KR_EPARSE, naming the line, when there is none or
 * its line has no LID. */
int kr_ibdiag_sm_parse(const char *buf, size_t len, uint16_t *lid,
		       struct kr_diag *d);
int kr_ibdiag_sm_read(const char *path, uint16_t *lid, struct kr_diag *d);

/* Replaces t's path SLs (dlid_sl, pair_sl). From saquery output, each DLID
 * gets the SL most of its records carry and the other records become
 * pairs; pairs the output does not list take that per-DLID SL. */
int kr_path_sl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		     struct kr_tables *t, struct kr_diag *d);
int kr_path_sl_read(const char *path, const struct kr_fabric *f,
		    struct kr_tables *t, struct kr_diag *d);
/* Replaces t's path SLs by the n pairs given, in any order (sorts them):
 * each DLID gets the SL most of its pairs carry (the lowest of equals),
 * the pairs that differ become exceptions. A DLID with a pair of SL
 * KR_SL_UNKNOWN is given only for its other pairs (t->sl_given). */
int kr_path_sl_set(struct kr_tables *t, struct kr_sl_pair *pairs, size_t n,
		   struct kr_diag *d);
/* A "dlid sl" line for every LID a port owns, then "slid dlid sl" lines
 * for the pairs whose SL differs from their DLID's. */
int kr_path_sl_write(FILE *out, const struct kr_fabric *f,
		     const struct kr_tables *t);

/* oper-vls: "0xNODE_GUID PORT VLS" for every linked port whose OperVLs f
 * knows; reading one sets f->oper_vls of the ports it names (the rest stay
 * as they were), errors naming the line. */
int kr_oper_vls_write(FILE *out, const struct kr_fabric *f);
int kr_oper_vls_read(const char *path, struct kr_fabric *f, struct kr_diag *d);

/* Replaces t's multicast groups with the MLIDs the file gives ports for
 * (sorted, SLs not given: SL 0, sl_given 0). */
int kr_mft_parse(const char *buf, size_t len, const struct kr_fabric *f,
		 struct kr_tables *t, struct kr_diag *d);
int kr_mft_read(const char *path, const struct kr_fabric *f,
		struct kr_tables *t, struct kr_diag *d);
/* Gives t's groups their SLs (after kr_mft_read); MLIDs t has no group
 * for are checked and skipped: without MFT entries they carry nothing. */
int kr_mcast_sl_parse(const char *buf, size_t len, const struct kr_fabric *f,
		      struct kr_tables *t, struct kr_diag *d);
int kr_mcast_sl_read(const char *path, const struct kr_fabric *f,
		     struct kr_tables *t, struct kr_diag *d);
/* opensm.mcfdbs: switches in OpenSM's order with the MLIDs whose masks
 * hold ports there, ports ascending. */
int kr_mft_write(FILE *out, const struct kr_fabric *f,
		 const struct kr_tables *t);

/* OpenSM keeps nodes and ports in maps keyed by GUIDs in network byte order
 * compared as host integers, and its dumps follow that order: on a little
 * endian host, ascending byte-swapped GUIDs. Returns the n ids sorted that
 * way (caller frees), NULL when out of memory. */
uint32_t *kr_guid_order(const uint64_t *guid, const uint32_t *ids, uint32_t n);

#endif
