/* Shared by the knsroute subcommands: output files that appear atomically,
 * error printing, and the exit code convention (0 fine, 1 a check found a
 * problem, 2 usage or input error). */
#ifndef KR_CLI_H
#define KR_CLI_H

#include <stdio.h>

#include "kr.h"

enum { EXIT_PROBLEM = 1, EXIT_USAGE = 2 };

/* Subcommands: each parses its own options and returns the exit code. */
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_capture(int argc, char **argv);
/* knsroute check --live [capture options] [check options]: capture into a
 * temporary directory, then run check on it. */
int cmd_check_live(int argc, char **argv, int (*check)(int, char **));

/* "knsroute: FILE:LINE: msg" on stderr; returns EXIT_USAGE. */
int cli_error(const struct kr_diag *d);
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reads a topology; on failure prints why and returns EXIT_USAGE. */
int cli_read_fabric(const char *path, struct kr_fabric *f);

/* A file written to PATH.tmp.PID and renamed over PATH on commit, so readers
 * never see half a file; "-" or NULL means stdout. */
struct cli_out {
	char path[4096];
	char tmp[4200];
	FILE *fp;
};
FILE *cli_out_open(struct cli_out *o, const char *path);
int cli_out_commit(struct cli_out *o);	/* 0, or -1 after printing why */
void cli_out_abort(struct cli_out *o);

/* strtoul for option values; exits with a usage error when not a number in
 * [lo, hi]. */
unsigned long cli_number(const char *cmd, const char *opt, const char *s,
			 unsigned long lo, unsigned long hi);

#endif
