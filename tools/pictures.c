/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Layouts and SVG files for the commands that draw (pictures.h). */
#include "pictures.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define DOT_HINT "Graphviz's dot lays out fabrics that are not a KNS, " \
	"torus or mesh (Debian: apt-get install graphviz)"

/* The graph of f into a temporary file, whose name goes into path. */
static int dot_input(const struct kr_fabric *f, char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	FILE *fp;
	int fd, rc;

	snprintf(path, len, "%s/knsroute-dot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) < 0 || !(fp = fdopen(fd, "w"))) {
		cli_say("%s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return EXIT_USAGE;
	}
	rc = kr_draw_dot_write(fp, f);
	if (fclose(fp) || rc) {
		cli_say("%s: %s", path, rc == KR_ENOMEM ? "out of memory" :
			"cannot write the graph for dot");
		unlink(path);
		return EXIT_USAGE;
	}
	return 0;
}

/* dot -Tplain on path, its output read as f's layout. */
static int run_dot(const struct kr_fabric *f, const char *path,
		   struct kr_draw_layout *l)
{
	char *argv[] = { "dot", "-Tplain", (char *)path, NULL };
	posix_spawn_file_actions_t fa;
	struct kr_diag d = { .file = "dot -Tplain" };
	int fds[2], rc, status = 0;
	pid_t pid;
	FILE *in;

	if (pipe(fds)) {
		cli_say("pipe: %s", strerror(errno));
		return EXIT_USAGE;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	rc = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		cli_say("cannot run dot (%s): %s", strerror(rc), DOT_HINT);
		return EXIT_USAGE;
	}
	in = fdopen(fds[0], "r");
	rc = in ? kr_draw_plain_read(in, f, l, &d) : KR_ENOMEM;
	if (in)
		fclose(in);
	else
		close(fds[0]);
	waitpid(pid, &status, 0);
	/* dot's own failure first (its stderr said why); a SIGPIPE is ours,
	 * from leaving output we could not read */
	if (WIFEXITED(status) ? WEXITSTATUS(status) != 0
			      : !rc || WTERMSIG(status) != SIGPIPE) {
		if (!rc)
			kr_draw_layout_free(l);
		cli_say("dot -Tplain failed (%s %d): %s", WIFEXITED(status) ?
			"exit status" : "signal", WIFEXITED(status) ?
			WEXITSTATUS(status) : WTERMSIG(status), DOT_HINT);
		return EXIT_USAGE;
	}
	return rc ? cli_error(&d) : 0;
}

int pictures_layout(const struct kr_fabric *f, const struct kr_topo *t,
		    struct kr_draw_layout *l)
{
	char path[4200];
	int rc;

	if (t) {
		if (kr_draw_layout_grid(f, t, l)) {
			cli_say("out of memory");
			return EXIT_USAGE;
		}
		return 0;
	}
	rc = dot_input(f, path, sizeof(path));
	if (rc)
		return rc;
	rc = run_dot(f, path, l);
	unlink(path);
	return rc;
}

int pictures_recognise(const struct kr_fabric *f, struct kr_topo *t)
{
	struct kr_diag d = { 0 };
	int rc = kr_topo_recognize(f, NULL, t, &d);

	if (rc == KR_ENOMEM) {
		kr_topo_free(t);
		cli_say("out of memory");
		return -1;
	}
	if (rc)
		kr_topo_free(t);
	return !rc;
}

struct svg_job {
	const struct kr_fabric *f;
	const struct kr_draw_layout *l;
	const struct kr_draw_opts *o;
};

static int write_svg(FILE *out, const void *ctx)
{
	const struct svg_job *j = ctx;

	return kr_draw_svg(out, j->f, j->l, j->o);
}

int pictures_write(const char *path, const struct kr_fabric *f,
		   const struct kr_draw_layout *l,
		   const struct kr_draw_opts *o)
{
	struct svg_job j = { f, l, o };

	return cli_write(path, write_svg, &j);
}

char *pictures_text(const struct kr_fabric *f, const struct kr_draw_layout *l,
		    const struct kr_draw_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc = mem ? kr_draw_svg(mem, f, l, o) : KR_ENOMEM;

	if (mem && fclose(mem) && !rc)
		rc = KR_ENOMEM;
	if (rc) {
		free(text);
		cli_say("out of memory");
		return NULL;
	}
	return text;
}

void pictures_check_opts(const struct kr_check_report *r,
			 struct kr_draw_opts *o)
{
	const struct kr_check_class *c = &r->cls[kr_check_deciding(r)];

	o->load = r->link_load;
	o->load_max = r->load_max;
	o->cycle = c->cycle;
	o->ncycle = c->ncycle;
}
