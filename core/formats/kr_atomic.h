/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writing a file so that readers never see half of it. */
#ifndef KR_ATOMIC_H
#define KR_ATOMIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kr_base.h"

typedef int kr_writer_fn(FILE *out, const void *ctx);

/* Who named the path, and so what may stand there. */
enum kr_write_to {
	KR_TO_NAMED,	/* the user: links followed, non-files in place */
	KR_TO_OWN,	/* knsroute, in a directory others may write to (the
			 * plugin's caches and dumps): whatever stands at the
			 * name is replaced, never followed nor opened */
};

/* Calls fn(out, ctx) on a temporary file beside path (KR_TO_NAMED: beside
 * the file its symbolic links end at, created if they dangle) and renames
 * it over that file when fn returned KR_OK and every byte was written;
 * otherwise removes it and leaves the file untouched. With KR_TO_NAMED a
 * path that is not a regular file (FIFO, device, terminal, our standard
 * output) is written in place, with no such guarantee. A directory is
 * refused. Errors name path. */
int kr_write_atomic(const char *path, enum kr_write_to how, kr_writer_fn *fn,
		    const void *ctx, struct kr_diag *d);

/* One file of a directory written by kr_write_dir. */
struct kr_dir_file {
	const char *name;
	kr_writer_fn *fn;
};

/* Writes every file into dir (created if missing, one level) as
 * .NAME.tmp.RANDOM, and renames them all to NAME only when every one is
 * complete, so a failure leaves none of them behind (nor dir, when it
 * made it). Names are treated as kr_write_atomic treats path: with
 * KR_TO_NAMED those that are not regular files are written in place,
 * first, and are not undone. With KR_TO_OWN dir must be a directory (not
 * a link to one) of this process's user that no one else may write to.
 * Each fn gets ctx. */
int kr_write_dir(const char *dir, enum kr_write_to how,
		 const struct kr_dir_file *files, size_t n, const void *ctx,
		 struct kr_diag *d);

/* Work that the files from first_after on depend on, and that the files
 * before need not wait for. */
struct kr_dir_gate {
	int (*run)(void *arg);	/* KR_OK: the rest may be written */
	void *arg;
	size_t first_after;
};

/* kr_write_dir, with gate->run(gate->arg) called in the calling thread
 * while another writes files[0..first_after) (the two cores of a dry run:
 * the check beside the dumps), one after the other; once it returned
 * KR_OK the calling thread takes the next of them too, then writes the
 * rest, then all are renamed. When it fails, every file written is
 * removed and its code returned (d is then the gate's business). Without
 * a thread, or when one of the first files is written in place (which
 * could not be taken back), the gate runs first. */
int kr_write_dir_while(const char *dir, enum kr_write_to how,
		       const struct kr_dir_file *files, size_t n,
		       const void *ctx, const struct kr_dir_gate *gate,
		       struct kr_diag *d);

/* Whether the file this thread writes for kr_write_dir_while is no longer
 * wanted (its gate, or another file, failed): what it writes goes, so a
 * writer of a large file may stop early. false outside such a writer. */
bool kr_write_stopped(void);

#endif
