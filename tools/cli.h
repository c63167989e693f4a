/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Shared by the knsroute subcommands: output files that appear atomically,
 * error printing, and the exit code convention (0 fine, 1 a check found a
 * problem, 2 usage or input error). */
#ifndef KR_CLI_H
#define KR_CLI_H

#include <stdio.h>

#include "kr.h"

/* 3: check found a problem only under assumed inputs (see knsroute(8)). */
enum { EXIT_PROBLEM = 1, EXIT_USAGE = 2, EXIT_ASSUMED = 3 };

/* Subcommands: each parses its own options and returns the exit code. */
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* knsroute check --live [capture options] [check options]: capture into a
 * temporary directory, then run check on it. */
int cmd_check_live(int argc, char **argv, int (*check)(int, char **));

/* Output lost to a full disk or a closed pipe is a failure, whatever the
 * command thought: flushes stdout and returns rc, or EXIT_USAGE (with the
 * reason on stderr) when rc was 0 and stdout failed. */
int cli_flush_stdout(int rc);

/* Progress lines on stderr, "knsroute CMD: [  3.2 s] what": at normal
 * verbosity only once the command has run 2 s (a short run stays quiet, a
 * long one says what it is doing at each step), from the start with -v,
 * never with -q. */
enum { CLI_QUIET, CLI_NORMAL, CLI_VERBOSE };
void cli_progress_begin(int level);
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For kr_conf.on_phase: "PHASE ..." as kr_plan_build starts each phase. */
void cli_progress_phase(void *ctx, const char *phase);

/* The exit code for kr_plan_build's error rc: a finding about a fabric
 * read fine (not a KNS, torus or mesh; a credit loop; undelivered pairs)
 * is EXIT_PROBLEM in every command, anything else (out of memory, a check
 * cut short) EXIT_USAGE. */
int cli_plan_exit(int rc);

/* Why a plan failed, as "knsroute: FILE[:LINE]: PHASE failed[ CTX]: MSG".
 * The file is the one the failure is in (a coords_file, say), which is not
 * always the fabric's. Returns cli_plan_exit(rc). */
int cli_plan_error(int rc, const struct kr_diag *d, const char *phase,
		   const char *ctx);

/* Every message starts "knsroute CMD: ", CMD the command main is running
 * (set before it runs). With --json a command calls cli_json_errors, and
 * its first failure also prints {"version": V, "error": MSG} on standard
 * output; a command that prints a richer error object itself calls
 * cli_json_error_done first. */
void cli_command(const char *cmd);
void cli_json_errors(void);
void cli_json_error_done(void);
/* A message on stderr, with the prefix: warnings and the like. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "knsroute CMD: FILE:LINE: msg"; returns EXIT_USAGE. */
int cli_error(const struct kr_diag *d);
/* A usage error, followed by "Try 'knsroute CMD --help'."; an input error
 * (a file missing or unfit), without. Both return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_input_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reads a topology ("-": standard input; a directory: the topology of a
 * capture, `route` output, OpenSM's dump or ibdiagnet's output in it),
 * then names its nodes from the node-name-map (cli_name_map); on failure
 * prints why and returns EXIT_USAGE. */
int cli_read_fabric(const char *path, struct kr_fabric *f);

/* --node-name-map FILE, taken by every command that names nodes. Without
 * it, infiniband-diags' default map is read when it exists; a default map
 * that does not read is passed over with a warning, as those tools do,
 * while a named one that does not read is an input error. */
#define CLI_NAME_MAP_DEFAULT "/etc/rdma/ib-node-name-map"
enum { CLI_OPT_NAME_MAP = 700 };
#define CLI_NAME_MAP_OPTION \
	{ "node-name-map", required_argument, NULL, CLI_OPT_NAME_MAP }
void cli_name_map(const char *path);

/* What check and path read: a topology and the tables programmed on it.
 * A directory in place of the topology is a capture (topology.net,
 * lfts.dump, sl2vl.dump, path-sl, oper-vls, mfts.dump, mcast-sl),
 * `knsroute route` output (topology.net,
 * opensm-lfts.dump, opensm-sl2vl.dump, path-sl), OpenSM's dump directory
 * (opensm-subnet.lst, opensm-lfts.dump or opensm.fdbs, opensm.mcfdbs) or
 * ibdiagnet's output directory (ibdiagnet.lst, .fdbs, .mcfdbs, .slvl,
 * .psl, .sm); files named by options win over the directory's. */
struct cli_inputs {
	const char *topo, *lfts, *sl2vl, *path_sl, *guid2lid;
	const char *mfts, *mcast_sl;	/* multicast: MFTs, group SLs */
	const char *capture_log;	/* a capture's log (DIR only) */
	const char *oper_vls;		/* a capture's OperVLs (DIR only) */
	const char *sm_file;		/* ibdiagnet.sm (DIR only) */
	char dir_file[10][4200];	/* paths found in the directory */
};
/* Reads them all into f and t (what none gave becomes an assumption on
 * record, with a warning on stderr); EXIT_USAGE after printing why. */
int cli_read_inputs(const char *cmd, struct cli_inputs *in,
		    struct kr_fabric *f, struct kr_tables *t);

/* The SM whose SA queries and answers join the check's management
 * class: lid and sl as --sm-lid and --sm-sl gave them (lid 0: not given),
 * else named by in's files: a capture's log (LID and SL), the SM mark of
 * opensm-subnet.lst or ibdiagnet.sm (LID only: SL 0 taken, with a
 * warning). Into t->sm_lid, sm_sl, sm_sl_taken; 0, or EXIT_USAGE after
 * saying why (an SM LID no port has, an SL without a LID). */
struct cli_sm {
	unsigned lid, sl;
	int sl_given;
	const char *from;	/* the file that named the SM, if any */
};
int cli_sm_inputs(const char *cmd, const struct cli_inputs *in,
		  struct cli_sm *sm, const struct kr_fabric *f,
		  struct kr_tables *t);

/* LIDs from guid2lid (may be NULL), else the topology's, else from the
 * port GUIDs the LFT dump names. 0, or EXIT_USAGE after printing why. */
int cli_read_lids(const char *cmd, const char *topo, const char *guid2lid,
		  const char *lfts, struct kr_fabric *f);

/* Every switch of f has a block in the LFT dump at path (t read from it):
 * a switch without one would route nothing, and a cut capture would pass
 * for a routing finding. 0, or EXIT_USAGE after printing which. */
int cli_lfts_whole(const char *cmd, const char *path,
		   const struct kr_fabric *f, const struct kr_tables *t);
/* The same for the MFT dump at path (NULL: none read), in the formats
 * that give every switch a block (ibroute -M, dump_mfts): a switch left
 * out would pass for one that forwards no group. */
int cli_mfts_whole(const char *cmd, const char *path,
		   const struct kr_fabric *f, const struct kr_tables *t);

/* A fabric's node names and descriptions, sorted: a groups file names
 * members by the hundred thousand. */
struct cli_names {
	struct cli_name {
		const char *s;
		uint32_t node;
	} *name, *desc;		/* by (s, node) */
	uint32_t n;
};
/* 0, or -1 out of memory */
int cli_names_init(struct cli_names *ix, const struct kr_fabric *f);
void cli_names_free(struct cli_names *ix);

/* A node name or description, a node or port GUID (0x...) or a LID to a
 * port slot: a node is its first linked port with a LID (a switch: port
 * 0); *lid is the LID it was named by (0: none). A name names the first
 * node that has it, a description only a node that alone has it. -1 when
 * nothing with a LID matches, -2 when several nodes have that
 * description. ix: f's names. */
int cli_resolve_port(const struct kr_fabric *f, const struct cli_names *ix,
		     const char *arg, uint32_t *slot, unsigned *lid);

/* `route --mcast-groups FILE`: "MLID SL MEMBER..." lines built into p's
 * tables with the plan's trees; a group on an SL the plan cannot make safe
 * is left out with a warning naming its line. 0, or EXIT_USAGE after
 * printing why. */
struct kr_plan;
int cli_mcast_groups(const char *path, const struct kr_fabric *f,
		     struct kr_plan *p);

/* fn's output to path by kr_write_atomic, or to standard output for "-" or
 * NULL. 0, or EXIT_USAGE after printing why (cli_flush_stdout says why
 * standard output failed). */
int cli_write(const char *path, kr_writer_fn *fn, const void *ctx);

/* strtoul for option values; exits with a usage error when not a number in
 * [lo, hi]. */
unsigned long cli_number(const char *cmd, const char *opt, const char *s,
			 unsigned long lo, unsigned long hi);

#endif
