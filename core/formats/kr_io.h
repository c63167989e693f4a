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

/* infiniband-diags' node-name-map ("GUID \"NAME\"" lines, # comments):
 * each node of f the map names gets the name as its description. Every
 * line is checked first, so on error (naming the line) f is unchanged. */
int kr_name_map_parse(const char *buf, size_t len, struct kr_fabric *f,
		      struct kr_diag *d);
int kr_name_map_read(const char *path, struct kr_fabric *f, struct kr_diag *d);

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

/* What a reader may be given. Every input is opened without blocking and
 * checked before a byte is read, so that nothing planted at a path (a
 * FIFO with no writer, a device that never ends, a link to a file the
 * reader may see and the log's readers may not) can hold or grow the
 * caller: OpenSM's sweep reads the caches under its lock. */
enum kr_input {
	KR_IN_STREAM,	/* named by the user: a regular file or a pipe */
	KR_IN_FILE,	/* a regular file (configuration) */
	KR_IN_CACHE,	/* a regular file not behind a symbolic link: the
			 * caches, in directories others may write to */
};
#define KR_INPUT_MAX (1ull << 30)	/* bytes, for all but KR_IN_STREAM
					 * and for every whole-file read */

/* Opens path for reading as kind allows, into *fp; d->file becomes path. */
int kr_input_open(const char *path, enum kr_input kind, FILE **fp,
		  struct kr_diag *d);
/* The next line of fp into buf (without its newline and a CR before it):
 * 1, or 0 at the end of the file; KR_EPARSE, naming line, when the line
 * needs size - 1 characters or more or holds a NUL byte; KR_EIO. */
int kr_input_line(FILE *fp, char *buf, size_t size, unsigned line,
		  struct kr_diag *d);
/* Reads a whole file into a NUL-terminated buffer; d->file becomes path,
 * so that the parser's messages name it. */
int kr_slurp(const char *path, enum kr_input kind, char **buf, size_t *len,
	     struct kr_diag *d);

/* s as a JSON string: quotes and backslashes escaped, control characters
 * (names and descriptions come from devices) as \u00XX. */
void kr_json_string(FILE *out, const char *s);
/* "version": "knsroute's version", the first key of every JSON object a
 * command prints, so that a consumer can tell what wrote it. */
void kr_json_version(FILE *out);

#endif
