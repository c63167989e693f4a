/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the libFuzzer targets share. Each target is one file with
 * LLVMFuzzerTestOneInput; the table readers check what they read against a
 * fabric, so those targets read theirs from tests/data once (a fabric whose
 * GUIDs and LIDs the seed dumps name, so mutations start from inputs that
 * get past the first GUID check). */
#ifndef KR_FUZZ_H
#define KR_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fabric in tests/data/NAME; aborts when it cannot be read, since
 * every input would then be rejected for the wrong reason. */
void fuzz_fabric(const char *name, struct kr_fabric *f);
/* The text of tests/data/NAME (NUL-terminated), for targets that need a
 * fresh fabric per input because the reader changes it. */
const char *fuzz_text(const char *name, size_t *len);
/* A path whose file holds exactly data, for readers that open files
 * (one memfd, rewritten per input). */
const char *fuzz_path(const uint8_t *data, size_t size);
/* /dev/null, for running writers over what a reader accepted. */
FILE *fuzz_null(void);
/* A reader's result: a refusal must say why (the tools print d after
 * "FILE:LINE: "), so an empty message aborts. Returns rc. */
int fuzz_check(int rc, const struct kr_diag *d);

typedef int fuzz_parse_fn(const char *buf, size_t len,
			  const struct kr_fabric *f, struct kr_tables *t,
			  struct kr_diag *d);
typedef int fuzz_write_fn(FILE *out, const struct kr_fabric *f,
			  const struct kr_tables *t);
/* A table reader's round trip: data parsed against f into fresh tables
 * (sized for f's LIDs first when sized: the readers that add to the
 * LFTs' tables), written back when accepted. */
void fuzz_tables(const uint8_t *data, size_t size, const struct kr_fabric *f,
		 int sized, fuzz_parse_fn *parse, fuzz_write_fn *write);

#endif
