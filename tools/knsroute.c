/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* knsroute: offline front end of the routing engine. Each subcommand lives
 * in tools/cmd_<name>.c and parses its own options. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "gen", cmd_gen, "generate a KNS, torus or mesh fabric (ibsim net file)" },
	{ "topo", cmd_topo, "recognise KNS / torus / mesh, list what is missing" },
	{ "info", cmd_info, "summarise a topology file (counts, LIDs, components)" },
	{ "route", cmd_route, "dry run: route, plan SLs/VLs, check, write dumps" },
	{ "capture", cmd_capture, "read a live fabric's tables into a directory" },
	{ "check", cmd_check, "check tables: delivery, link load, credit loops" },
	{ "path", cmd_path, "one pair hop by hop: ports, SL and VLs" },
	{ "stats", cmd_stats, "destinations per output port and VL" },
	{ "faults", cmd_faults, "random link or switch faults: how repair copes" },
	{ "sim", cmd_sim, "traffic simulation: throughput, latency, deadlock" },
	{ "report", cmd_report, "one HTML page: check, plan, pictures, results" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: knsroute COMMAND [OPTIONS] [ARGS]\n"
		"       knsroute help [COMMAND] | -V | --version\n\n"
		"Routing for InfiniBand KNS and torus/mesh fabrics, offline.\n\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-7s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'knsroute help COMMAND' (or 'knsroute COMMAND --help') "
		"describes a command;\nknsroute(8) has the whole story. A "
		"TOPOLOGY argument of - is read from\nstandard input. "
		"With --json every object starts with \"version\", and a\n"
		"failure prints {\"version\", \"error\"}.\n"
		"Exit status: 0 fine, 1 a check found a problem, 2 usage or "
		"input error,\n3 a credit loop only through assumed SLs or "
		"SL2VL maps (check only).\n");
}

static int find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return (int)i;
	return -1;
}

/* knsroute help CMD: the command's own --help. */
static int help(const char *name)
{
	char *argv[] = { (char *)name, "--help", NULL };
	int i = find(name);

	if (i < 0) {
		fprintf(stderr, "knsroute: no command \"%s\" to describe\n", name);
		usage(stderr);
		return EXIT_USAGE;
	}
	return commands[i].run(2, argv);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return cli_flush_stdout(help(argv[2]));
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return cli_flush_stdout(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("knsroute %s\n", PACKAGE_VERSION);
		return cli_flush_stdout(0);
	}
	if ((i = find(argv[1])) >= 0) {
		cli_command(commands[i].name);
		return cli_flush_stdout(commands[i].run(argc - 1, argv + 1));
	}
	fprintf(stderr, "knsroute: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
