/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibdiagnet's ibdiagnet.sm: the SMs it found, by state, best priority
 * first; the master's port gives the SM's LID (what OpenSM's subnet.lst
 * marks "-SM" and a capture's log states):
 *
 *   ibdiagnet fabric SM report
 *
 *     SM - master
 *       H-0002c90100000000/P1 lid=0x000a guid=0x0002c90100000001 dev=... priority:0
 *
 *     SM - standby
 *       ...
 *
 * (ibdiagnet 1.5.7, DumpSMReport: a node's name, then "lid=", "guid=" and
 * "dev=" of its port.) The file gives no SL. */
#include "kr_dump.h"

#include <string.h>

#include "dump_int.h"

/* The number after "lid=" on a master's line. */
static int master_lid(const char *s, unsigned line, uint16_t *lid,
		      struct kr_diag *d)
{
	const char *at = strstr(s, " lid=");
	uint64_t v;

	if (!at || (at += 5, !dump_number(&at, 0xbfff, &v)) || !v ||
	    (*at && *at != ' '))
		return kr_fail(d, KR_EPARSE, line, "expected the master SM's "
			       "port as \"NAME lid=0xLID guid=0xGUID ...\" "
			       "with a unicast LID");
	*lid = (uint16_t)v;
	return KR_OK;
}

static int sm_run(const struct dump_src *src, uint16_t *lid, struct kr_diag *d)
{
	struct dump_lines r;
	bool master = false;
	int rc;

	*lid = 0;
	dump_lines_init(&r, src);
	while ((rc = dump_next_line(&r, d)) > 0) {
		const char *s = dump_skip_ws(r.line);

		if (!strncmp(s, "SM - ", 5))
			master = !strncmp(s + 5, "master", 6) && dump_blank(s + 11);
		else if (master && !dump_blank(s))
			return master_lid(s, r.lineno, lid, d);
	}
	if (!rc)
		rc = kr_fail(d, KR_EPARSE, 0, "no master SM (an ibdiagnet.sm "
			     "lists it under \"SM - master\")");
	return rc;
}

int kr_ibdiag_sm_parse(const char *buf, size_t len, uint16_t *lid,
		       struct kr_diag *d)
{
	struct dump_src src = { .buf = buf, .len = len };

	return sm_run(&src, lid, d);
}

int kr_ibdiag_sm_read(const char *path, uint16_t *lid, struct kr_diag *d)
{
	struct dump_src src;
	int rc = dump_src_open(&src, path, d);

	if (rc)
		return rc;
	rc = sm_run(&src, lid, d);
	dump_src_close(&src);
	return rc;
}
