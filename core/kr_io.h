/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* File formats: topologies (ibnetdiscover output, ibsim net files), OpenSM's
 * guid2lid cache, and the table dumps (opensm-lfts.dump, ibroute output,
 * opensm-sl2vl.dump, path-sl files, saquery PathRecords).
 *
 * Readers take a path (for messages) and report FILE:LINE on bad input.
 * Writers write to a stream the caller owns; making the file appear
 * atomically (temp file + rename) is the caller's job. */
#ifndef KR_IO_H
#define KR_IO_H

#include <stddef.h>
#include <stdio.h>

#include "kr_fabric.h"
#include "kr_tables.h"

/* Topologies: ibnetdiscover output, ibsim net files, or OpenSM's
 * opensm-subnet.lst (told apart by its first line). name is used in
 * messages only. */
int kr_net_parse(const char *buf, size_t len, const char *name,
		 struct kr_fabric *f, struct kr_diag *d);
int kr_net_read(const char *path, struct kr_fabric *f, struct kr_diag *d);
/* ibsim net file (also valid ibnetdiscover-family input): GUIDs, port GUIDs,
 * descriptions, LIDs and LMC when set, links from both ends. */
int kr_net_write(FILE *out, const struct kr_fabric *f);

/* OpenSM's guid2lid cache: "0xPORTGUID BASELID MAXLID" per line. Sets the
 * LIDs of the ports it names and re-indexes them. */
int kr_guid2lid_read(const char *path, struct kr_fabric *f, struct kr_diag *d);

/* The tables cache (knsroute.conf tables_cache): of tables t on f, what a
 * later start needs to repair as if t were still in force (kr_repair's
 * prev): every LID's SL, the pair SLs, the repaired destinations in their
 * order and the entries the repair wrote (t->fixes). */
int kr_tables_cache_write(FILE *out, const struct kr_fabric *f,
			  const struct kr_tables *t);
/* Reads one back as tables on f without LFTs (kr_tables_refill makes
 * them, for kr_repair's prev): the SLs of f's LIDs, the pair SLs, the
 * repaired destinations and the fixes, on f's switch indices. Switches
 * and destinations f lacks are left out. A cache whose LIDs are not f's
 * (a switch or destination on another LID), or that names none of f's
 * switches, is refused with KR_EINVAL. */
int kr_tables_cache_read(const char *path, const struct kr_fabric *f,
			 struct kr_tables *t, struct kr_diag *d);

/* Reads a whole file into a NUL-terminated buffer; d->file becomes path,
 * so that the parser's messages name it. */
int kr_slurp(const char *path, char **buf, size_t *len, struct kr_diag *d);

/* s as a JSON string: quotes and backslashes escaped, control characters
 * (names and descriptions come from devices) as \u00XX. */
void kr_json_string(FILE *out, const char *s);

#endif
