/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The SM whose SA traffic check and report count (cli.h). */
#include <stdbool.h>
#include <string.h>

#include "cli.h"

/* The SM a capture's local port was told of, from its log's discovery
 * line ("SM LID L SL S"); true when the log (one from before the SL was
 * logged) gives no SL. */
static bool sm_from_log(const char *log, struct cli_sm *sm)
{
	FILE *in;
	char line[512];
	const char *at;
	unsigned lid = 0, sl = 0;
	int n = 0;

	kr_input_open(log, KR_IN_STREAM, &in, NULL);
	while (in && fgets(line, sizeof(line), in)) {
		if (strncmp(line, "discovery: ", 11) ||
		    !(at = strstr(line, ", SM LID ")))
			continue;
		n = sscanf(at, ", SM LID %u SL %u", &lid, &sl);
		if (n >= 1 && lid <= 0xbfff && sl <= 15) {
			sm->lid = lid;
			if (!sm->sl_given)
				sm->sl = sl;
		}
		break;
	}
	if (in)
		fclose(in);
	return sm->lid && n < 2;
}

int cli_sm_inputs(const char *cmd, const struct cli_inputs *in,
		  struct cli_sm *sm, const struct kr_fabric *f,
		  struct kr_tables *t)
{
	int given = sm->lid != 0;

	if (!given && in->capture_log) {
		t->sm_sl_taken = sm_from_log(in->capture_log, sm) && !sm->sl_given;
		sm->from = in->capture_log;
	} else if (!given && (f->sm_lid || in->sm_file)) {
		/* opensm-subnet.lst marks the SM, ibdiagnet.sm names it, but
		 * neither gives its SL */
		struct kr_diag d = { 0 };
		uint16_t lid = f->sm_lid;

		if (!lid && kr_ibdiag_sm_read(in->sm_file, &lid, &d))
			return cli_error(&d);
		sm->lid = lid;
		sm->from = f->sm_lid ? in->topo : in->sm_file;
		if (!sm->sl_given) {
			cli_say("the SM from %s: LID %u, SL 0 taken (the file "
				"gives none; --sm-sl to say)", sm->from, sm->lid);
			t->sm_sl_taken = 1;
		}
	}
	if (!sm->lid && sm->sl_given)
		return cli_usage_error(cmd, "--sm-sl needs the SM's LID: "
				       "--sm-lid, a capture's log, the SM "
				       "mark of opensm-subnet.lst or "
				       "ibdiagnet.sm");
	if (!sm->lid)
		return 0;
	if (sm->lid > f->max_lid || f->lid_port[sm->lid] == KR_NONE)
		return given ? cli_usage_error(cmd, "--sm-lid %u: no port "
					       "of the fabric has that LID",
					       sm->lid)
			     : cli_usage_error(cmd, "%s: SM LID %u: no "
					       "port of the fabric has that "
					       "LID", sm->from, sm->lid);
	t->sm_lid = (uint16_t)sm->lid;
	t->sm_sl = (uint8_t)sm->sl;
	return 0;
}
