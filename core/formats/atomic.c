/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Files that appear whole or not at all: written to a temporary beside
 * the file, then renamed over it. The temporary gets a name no one can
 * guess and is created only if nothing is there (O_EXCL, O_NOFOLLOW), so
 * a link planted beside the file cannot redirect the write.
 *
 * At a name the user gave (KR_TO_NAMED), symbolic links are followed
 * first, so that the link stays and its target is what gets replaced, and
 * a name that is not a regular file (a FIFO, a device, a terminal, a
 * socket) is written in place instead: renaming would put a plain file
 * where a reader, or the system, expects that node, and nothing can make
 * its reader see all or nothing. The plugin's own files (KR_TO_OWN) live
 * where others may create names: whatever stands at the name, link or
 * FIFO, is replaced, never followed or opened, and a directory of files
 * must be the caller's own. */
#include "kr_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>


/* Where a write to a name goes. */
struct dest {
	char file[4200];	/* the regular file to replace or create */
	int in_place;		/* the name opens as something else */
	int is_stdout;		/* and is what our standard output is */
};

/* "cannot write PATH: why" into d (errno err when the C library set
 * one); rc, or KR_ENOMEM when memory (err ENOMEM: the C library's
 * buffers, the kernel's) was what failed. */
static int cannot_write(struct kr_diag *d, const char *path, int rc, int err)
{
	if (rc == KR_ENOMEM || (rc == KR_EIO && err == ENOMEM))
		return kr_fail(d, KR_ENOMEM, 0, "cannot write %s: out of memory",
			       path);
	return kr_fail(d, rc, 0, "cannot write %s: %s", path,
		       rc == KR_EIO ? strerror(err ? err : EIO) : kr_strerror(rc));
}

/* path with its symbolic links followed to the name they end at, into
 * out; that name may not exist: a dangling link names the file to create,
 * as the shell's > would. -1 with errno when a link cannot be read. */
static int follow(const char *path, char *out, size_t size)
{
	char link[4200];
	struct stat st;
	int hops = 0;

	if (snprintf(out, size, "%s", path) >= (int)size)
		return errno = ENAMETOOLONG, -1;
	while (!lstat(out, &st) && S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(out, link, sizeof(link) - 1);
		const char *slash = strrchr(out, '/');
		size_t keep = 0;

		if (n < 0)
			return -1;
		if (++hops > 40)
			return errno = ELOOP, -1;
		link[n] = '\0';
		/* a relative link is relative to the directory holding it */
		if (link[0] != '/' && slash)
			keep = (size_t)(slash - out + 1);
		if (keep + (size_t)n >= size)
			return errno = ENAMETOOLONG, -1;
		memcpy(out + keep, link, (size_t)n + 1);
	}
	return 0;
}

static int find_dest(const char *path, enum kr_write_to how, struct dest *to,
		     struct kr_diag *d)
{
	struct stat st, end;
	int exists;

	*to = (struct dest){ 0 };
	if (how == KR_TO_OWN) {
		if (snprintf(to->file, sizeof(to->file), "%s", path) >=
		    (int)sizeof(to->file))
			return cannot_write(d, path, KR_EIO, ENAMETOOLONG);
		return KR_OK;
	}
	exists = !stat(path, &st);
	if (!exists && errno != ENOENT)
		return cannot_write(d, path, KR_EIO, errno);
	/* /dev/stdout, or any name of it: the descriptor the shell opened
	 * may be one we could not open again (another user's pipe) and knows
	 * where to write (>> appends, a { ...; } > file block goes on) */
	to->is_stdout = exists && !fstat(STDOUT_FILENO, &end) &&
			end.st_dev == st.st_dev && end.st_ino == st.st_ino;
	/* a directory goes on to rename(), which refuses it */
	if (to->is_stdout || (exists && !S_ISREG(st.st_mode) &&
			      !S_ISDIR(st.st_mode))) {
		to->in_place = 1;
		return KR_OK;
	}
	if (follow(path, to->file, sizeof(to->file)))
		return cannot_write(d, path, KR_EIO, errno);
	/* /dev/fd/3 on a deleted file: the kernel follows the link, readlink
	 * gives no name that rename could replace */
	if (exists && (lstat(to->file, &end) || end.st_dev != st.st_dev ||
		       end.st_ino != st.st_ino))
		to->in_place = 1;
	return KR_OK;
}

/* A fresh "DIR/.BASE.WHAT.XXXXXXXX" for file DIR/BASE into buf, made by
 * make(buf) (0 when made, -1 with errno): on the file's file system, so
 * that rename() can put it in place, hidden from a glob of DIR, and with
 * a random part, so that nothing can be planted there in advance. -1
 * with errno when no name could be made. */
static int beside(char *buf, size_t size, const char *file, const char *what,
		  int (*make)(const char *name, void *arg), void *arg)
{
	const char *slash = strrchr(file, '/');
	int dirlen = slash ? (int)(slash - file + 1) : 0;
	uint32_t r;

	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint32_t)getpid() * 2654435761u + (uint32_t)tries;
		if (snprintf(buf, size, "%.*s.%s.%s.%08x", dirlen, file,
			     file + dirlen, what, r) >= (int)size)
			return errno = ENAMETOOLONG, -1;
		if (!make(buf, arg))
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* make for beside: the temporary, opened for writing into *arg. */
static int create_temp(const char *name, void *arg)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0666);

	if (fd < 0)
		return -1;
	if (!(*(FILE **)arg = fdopen(fd, "w"))) {
		close(fd);
		unlink(name);
		return -1;
	}
	return 0;
}

/* make for beside: a hard link to the file *arg names. */
static int link_old(const char *name, void *arg)
{
	return link((const char *)arg, name);
}

/* fn into out, then closes out: KR_OK, or why not (*err: the errno of a
 * failed write). */
static int fill(FILE *out, kr_writer_fn *fn, const void *ctx, int *err)
{
	int rc;

	errno = 0;
	rc = fn(out, ctx);
	if (ferror(out) && !rc)
		rc = KR_EIO;
	*err = errno;
	if (fclose(out) && !rc) {
		rc = KR_EIO;
		*err = errno;
	}
	return rc;
}

/* Opened without O_CREAT, so that a node gone meanwhile is not replaced by
 * a plain file; a FIFO makes this wait for its reader. */
static int write_in_place(const char *path, const struct dest *to,
			  kr_writer_fn *fn, const void *ctx, struct kr_diag *d)
{
	int fd;
	struct stat st;
	FILE *out;
	int rc, err;

	if (to->is_stdout)
		fflush(stdout);	/* what was printed before comes first */
	fd = to->is_stdout ? dup(STDOUT_FILENO) : open(path, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		return cannot_write(d, path, KR_EIO, errno);
	/* a regular file that rename could not reach is rewritten from its
	 * start; standard output is where the shell's > or >> left it */
	if ((!to->is_stdout && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	     ftruncate(fd, 0)) || !(out = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		return cannot_write(d, path, KR_EIO, err);
	}
	rc = fill(out, fn, ctx, &err);
	return rc ? cannot_write(d, path, rc, err) : KR_OK;
}

/* Whether a directory stands at the file (as rename would find it): said
 * before the writing, which can take long. */
static bool dir_at(const char *file, enum kr_write_to how)
{
	struct stat st;

	return !(how == KR_TO_OWN ? lstat(file, &st) : stat(file, &st)) &&
	       S_ISDIR(st.st_mode);
}

/* The temporary for to->file, opened into *out. */
static int open_temp(const char *path, const struct dest *to, char *tmp,
		     size_t size, FILE **out, struct kr_diag *d)
{
	if (!beside(tmp, size, to->file, "tmp", create_temp, out))
		return KR_OK;
	tmp[0] = '\0';
	if (errno == ENAMETOOLONG)
		return kr_fail(d, KR_EINVAL, 0, "path too long: %s", path);
	return cannot_write(d, path, KR_EIO, errno);
}

int kr_write_atomic(const char *path, enum kr_write_to how, kr_writer_fn *fn,
		    const void *ctx, struct kr_diag *d)
{
	struct dest to;
	char tmp[4200];
	FILE *out;
	int rc = find_dest(path, how, &to, d), err;

	if (rc)
		return rc;
	if (to.in_place)
		return write_in_place(path, &to, fn, ctx, d);
	if (dir_at(to.file, how))
		return cannot_write(d, path, KR_EIO, EISDIR);
	if ((rc = open_temp(path, &to, tmp, sizeof(tmp), &out, d)))
		return rc;
	rc = fill(out, fn, ctx, &err);
	if (!rc && rename(tmp, to.file)) {
		rc = KR_EIO;
		err = errno;
	}
	if (rc) {
		unlink(tmp);
		return cannot_write(d, path, rc, err);
	}
	return KR_OK;
}

/* One file of kr_write_dir on its way. */
struct slot {
	struct dest to;
	char tmp[4200];		/* empty when written in place */
	char old[4200];		/* a hard link to what to.file held, or empty */
	int rc;			/* writing it: KR_OK, or why not in d */
	struct kr_diag d;
};

/* One file into its temporary s->tmp, or in place: s->rc. A temporary
 * that failed is left to the caller's clean-up, like the others. */
static int write_one(const char *dir, enum kr_write_to how,
		     const struct kr_dir_file *file, const void *ctx,
		     struct slot *s)
{
	char path[4200];
	FILE *out;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, file->name);
	if ((s->rc = find_dest(path, how, &s->to, &s->d)))
		return s->rc;
	if (s->to.in_place)
		return s->rc = write_in_place(path, &s->to, file->fn, ctx,
					      &s->d);
	if ((s->rc = open_temp(path, &s->to, s->tmp, sizeof(s->tmp), &out,
			       &s->d)))
		return s->rc;
	s->rc = fill(out, file->fn, ctx, &err);
	if (s->rc)
		s->rc = cannot_write(&s->d, path, s->rc, err);
	return s->rc;
}

/* Keeps what s->to.file holds as a hard link (s->old empty when there is
 * nothing to keep), so that it can be put back. */
static int keep_old(struct slot *s, const char *path, struct kr_diag *d)
{
	struct stat st;

	s->old[0] = '\0';
	if (!s->tmp[0])
		return KR_OK;
	if (lstat(s->to.file, &st)) {
		if (errno == ENOENT)
			return KR_OK;
	} else if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;	/* link(2) would only say EPERM */
	} else if (!beside(s->old, sizeof(s->old), s->to.file, "old",
			   link_old, s->to.file)) {
		return KR_OK;
	}
	s->old[0] = '\0';
	return kr_fail(d, KR_EIO, 0, "cannot replace %s: %s", path,
		       strerror(errno));
}

/* Renames every temporary over its file. What the files held is kept
 * first, so that when rename k fails (a directory in the way, a read-only
 * mount) the k files before it get their old contents back, or go if they
 * are new: the directory ends up all new or as it was, but for what was
 * written in place. */
static int commit_temps(const char *dir, const struct kr_dir_file *files,
			size_t n, struct slot *s, struct kr_diag *d)
{
	char path[4200];
	size_t kept = 0, done = 0;
	int rc = KR_OK;

	for (; kept < n && !rc; kept++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[kept].name);
		rc = keep_old(&s[kept], path, d);
		if (rc)
			break;
	}
	for (; !rc && done < n; done++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[done].name);
		if (s[done].tmp[0] && rename(s[done].tmp, s[done].to.file)) {
			rc = kr_fail(d, KR_EIO, 0, "cannot replace %s: %s",
				     path, strerror(errno));
			break;
		}
	}
	for (size_t i = 0; rc && i < done; i++) {
		if (!s[i].tmp[0])
			continue;
		if (s[i].old[0])
			rename(s[i].old, s[i].to.file);
		else
			unlink(s[i].to.file);
	}
	for (size_t i = 0; i < kept; i++)
		if (s[i].old[0] && (!rc || i >= done))
			unlink(s[i].old);
	return rc;
}

/* Files taken one at a time, in order, by whoever is free: while a gate
 * runs, a thread of their own; once it has passed, the caller's too. */
struct pool {
	const char *dir;
	enum kr_write_to how;
	const struct kr_dir_file *files;
	size_t n;
	const void *ctx;
	struct slot *s;
	atomic_size_t next;	/* the next file to take */
	atomic_bool stop;	/* a file failed, or the gate did */
};

/* The stop flag of the pool this thread writes a file for, NULL: none. */
static _Thread_local const atomic_bool *writing_for;

bool kr_write_stopped(void)
{
	return writing_for && atomic_load(writing_for);
}

static void *take_files(void *arg)
{
	struct pool *p = arg;
	size_t i;

	writing_for = &p->stop;
	while (!atomic_load(&p->stop) &&
	       (i = atomic_fetch_add(&p->next, 1)) < p->n)
		if (write_one(p->dir, p->how, &p->files[i], p->ctx, &p->s[i]))
			atomic_store(&p->stop, true);
	writing_for = NULL;
	return NULL;
}

/* A file written in place cannot be taken back: none may be written
 * before the gate has passed. */
static bool any_in_place(const char *dir, enum kr_write_to how,
			 const struct kr_dir_file *files, size_t n)
{
	char path[4200];
	struct dest to;

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (!find_dest(path, how, &to, NULL) && to.in_place)
			return true;
	}
	return false;
}

/* The pool's files written while the gate runs (only after it, when a
 * thread cannot be had or one of them is written in place), and none more
 * once it failed: the gate's code. */
static int write_gated(struct pool *p, const struct kr_dir_gate *gate)
{
	pthread_t th;
	bool threaded = !any_in_place(p->dir, p->how, p->files, p->n) &&
			!pthread_create(&th, NULL, take_files, p);
	int rc = gate->run(gate->arg);

	if (rc)
		atomic_store(&p->stop, true);
	else
		take_files(p);
	if (threaded)
		pthread_join(th, NULL);
	return rc;
}

/* dir made (*made) or found; for KR_TO_OWN it must be a directory of
 * this user's that no one else can write to, or what is written there
 * could be moved or replaced under the caller. */
static int make_dir(const char *dir, enum kr_write_to how, bool *made,
		    struct kr_diag *d)
{
	struct stat st;

	*made = !mkdir(dir, 0755);
	if (!*made && errno != EEXIST)
		return kr_fail(d, KR_EIO, 0, "cannot create %s: %s", dir,
			       strerror(errno));
	if (how != KR_TO_OWN)
		return KR_OK;
	if (lstat(dir, &st))
		return kr_fail(d, KR_EIO, 0, "cannot use %s: %s", dir,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return kr_fail(d, KR_EIO, 0, "cannot use %s: %s", dir,
			       !S_ISDIR(st.st_mode) ? "not a directory (a link "
			       "is not followed)" : st.st_uid != geteuid() ?
			       "owned by another user" : "others may write to "
			       "it");
	return KR_OK;
}

int kr_write_dir_while(const char *dir, enum kr_write_to how,
		       const struct kr_dir_file *files, size_t n,
		       const void *ctx, const struct kr_dir_gate *gate,
		       struct kr_diag *d)
{
	struct slot *s = calloc(n + 1, sizeof(*s));
	struct pool p = { .dir = dir, .how = how, .files = files, .ctx = ctx,
			  .s = s, .n = gate ? gate->first_after : n };
	bool made;
	int rc = KR_OK;

	if (!s)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	if ((rc = make_dir(dir, how, &made, d))) {
		free(s);
		return rc;
	}
	atomic_init(&p.next, 0);
	atomic_init(&p.stop, false);
	for (size_t i = 0; d && i < n; i++)
		s[i].d = *d;
	if (gate)
		rc = write_gated(&p, gate);
	else
		take_files(&p);
	/* the first file that failed speaks for all */
	for (size_t i = 0; !rc && i < n; i++) {
		if (i >= p.n)
			write_one(dir, how, &files[i], ctx, &s[i]);
		if ((rc = s[i].rc) && d)
			*d = s[i].d;
	}
	if (!rc)
		rc = commit_temps(dir, files, n, s, d);
	/* the ones already renamed are gone; the rest must go */
	for (size_t i = 0; rc && i < n; i++)
		if (s[i].tmp[0])
			unlink(s[i].tmp);
	if (rc && made)
		rmdir(dir);
	free(s);
	return rc;
}

int kr_write_dir(const char *dir, enum kr_write_to how,
		 const struct kr_dir_file *files, size_t n, const void *ctx,
		 struct kr_diag *d)
{
	return kr_write_dir_while(dir, how, files, n, ctx, NULL, d);
}
