/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Files that appear whole or not at all: written to NAME.tmp.PID in the
 * same directory, flushed, then renamed over NAME. */
#include "kr_atomic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The reason for a failed write: errno when the C library set one. */
static const char *io_reason(int rc, int err)
{
	return rc == KR_EIO ? strerror(err ? err : EIO) : kr_strerror(rc);
}

int kr_write_atomic(const char *path, kr_writer_fn *fn, const void *ctx,
		    struct kr_diag *d)
{
	char tmp[4200];
	FILE *out;
	int rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return kr_fail(d, KR_EINVAL, 0, "path too long: %s", path);
	out = fopen(tmp, "w");
	if (!out)
		return kr_fail(d, KR_EIO, 0, "%s: %s", tmp, strerror(errno));
	rc = fn(out, ctx);
	if (ferror(out) && !rc)
		rc = KR_EIO;
	if (fclose(out) && !rc)
		rc = KR_EIO;
	if (!rc && rename(tmp, path))
		rc = KR_EIO;
	if (rc) {
		int err = errno;

		unlink(tmp);
		return kr_fail(d, rc, 0, "cannot write %s: %s", path,
			       io_reason(rc, err));
	}
	return KR_OK;
}

/* Writes each file to its temporary; returns how many are complete
 * (n when all are), with *rc and d saying why the next one is not. */
static size_t write_temps(const char *dir, const struct kr_dir_file *files,
			  size_t n, const void *ctx, char (*tmp)[4200],
			  int *rc, struct kr_diag *d)
{
	size_t i;

	for (i = 0; i < n; i++) {
		FILE *out;
		int err;

		snprintf(tmp[i], sizeof(tmp[i]), "%s/.%s.tmp.%ld", dir,
			 files[i].name, (long)getpid());
		out = fopen(tmp[i], "w");
		if (!out) {
			*rc = kr_fail(d, KR_EIO, 0, "%s: %s", tmp[i],
				      strerror(errno));
			break;
		}
		errno = 0;
		*rc = files[i].fn(out, ctx);
		if (ferror(out) && !*rc)
			*rc = KR_EIO;
		err = errno;
		if (fclose(out) && !*rc) {
			*rc = KR_EIO;
			err = errno;
		}
		if (*rc) {
			unlink(tmp[i]);
			kr_fail(d, *rc, 0, "cannot write %s/%s: %s", dir,
				files[i].name, io_reason(*rc, err));
			break;
		}
	}
	return i;
}

/* Keeps what path holds as a hard link named old (old[0] = 0 when path
 * does not exist), so that it can be put back. */
static int keep_old(const char *path, char *old, size_t size, const char *dir,
		    const char *name, struct kr_diag *d)
{
	struct stat st;

	snprintf(old, size, "%s/.%s.old.%ld", dir, name, (long)getpid());
	if (lstat(path, &st) && errno == ENOENT) {
		old[0] = '\0';
		return KR_OK;
	}
	/* link(2) would only say EPERM */
	if (S_ISDIR(st.st_mode))
		errno = EISDIR;
	else if (!link(path, old))
		return KR_OK;
	return kr_fail(d, KR_EIO, 0, "cannot replace %s: %s", path,
		       strerror(errno));
}

/* Renames every temporary over its name. What the names held is kept
 * first, so that when rename k fails (a directory in the way, a read-only
 * mount) the k files before it get their old contents back, or go if they
 * are new: the directory ends up all new or as it was. */
static int commit_temps(const char *dir, const struct kr_dir_file *files,
			size_t n, char (*tmp)[4200], char (*old)[4200],
			struct kr_diag *d)
{
	char path[4200];
	size_t kept = 0, done = 0;
	int rc = KR_OK;

	for (; kept < n && !rc; kept++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[kept].name);
		rc = keep_old(path, old[kept], sizeof(old[kept]), dir,
			      files[kept].name, d);
		if (rc)
			break;
	}
	for (; !rc && done < n; done++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[done].name);
		if (rename(tmp[done], path)) {
			rc = kr_fail(d, KR_EIO, 0, "cannot replace %s: %s",
				     path, strerror(errno));
			break;
		}
	}
	for (size_t i = 0; rc && i < done; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (old[i][0])
			rename(old[i], path);
		else
			unlink(path);
	}
	for (size_t i = 0; i < kept; i++)
		if (old[i][0] && (!rc || i >= done))
			unlink(old[i]);
	return rc;
}

int kr_write_dir(const char *dir, const struct kr_dir_file *files, size_t n,
		 const void *ctx, struct kr_diag *d)
{
	char (*tmp)[4200] = malloc(2 * n * sizeof(*tmp) + 1);
	size_t written;
	int rc = KR_OK;

	if (!tmp)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	if (mkdir(dir, 0755) && errno != EEXIST) {
		free(tmp);
		return kr_fail(d, KR_EIO, 0, "cannot create %s: %s", dir,
			       strerror(errno));
	}
	written = write_temps(dir, files, n, ctx, tmp, &rc, d);
	if (!rc)
		rc = commit_temps(dir, files, n, tmp, tmp + n, d);
	/* the ones already renamed are gone; the rest must go */
	for (size_t i = 0; rc && i < written; i++)
		unlink(tmp[i]);
	free(tmp);
	return rc;
}
