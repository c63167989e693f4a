/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The OperVLs of a fabric's linked ports, the file `knsroute capture`
 * keeps them in (oper-vls): the topology formats have no place for them,
 * and without them a check cannot tell a map to a VL the port does not
 * run from a good one. */
#include "kr_dump.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kr_io.h"

int kr_oper_vls_write(FILE *out, const struct kr_fabric *f)
{
	fputs("# knsroute oper-vls: NODE_GUID PORT VLS, the data VLs a linked "
	      "port runs (PortInfo:OperVLs)\n", out);
	for (uint32_t s = 0; s < f->nport; s++)
		if (f->peer[s] >= 0 && f->oper_vls[s])
			fprintf(out, "0x%016" PRIx64 " %u %u\n",
				f->guid[f->owner[s]], kr_port_num(f, s),
				f->oper_vls[s]);
	return ferror(out) ? KR_EIO : KR_OK;
}

/* One line: the slot it names and its VLs. */
static int oper_line(const struct kr_fabric *f, const char *buf,
		     unsigned line, uint32_t *slot, unsigned *vls,
		     struct kr_diag *d)
{
	uint64_t guid;
	unsigned port;
	uint32_t node;
	char end;

	if (sscanf(buf, "%" SCNx64 " %u %u %c", &guid, &port, vls, &end) != 3)
		return kr_fail(d, KR_EPARSE, line, "expected \"NODE_GUID PORT "
			       "VLS\"");
	node = kr_node_by_guid(f, guid);
	if (node == KR_NONE)
		return kr_fail(d, KR_EPARSE, line, "no node 0x%016" PRIx64
			       " in the topology", guid);
	if (port < 1 || port > f->nports[node])
		return kr_fail(d, KR_EPARSE, line, "port %u of a node with %u "
			       "ports", port, f->nports[node]);
	/* what PortInfo:OperVLs can say: VL0, VL0-1, VL0-3, VL0-7, VL0-14 */
	if (*vls != 1 && *vls != 2 && *vls != 4 && *vls != 8 && *vls != 15)
		return kr_fail(d, KR_EPARSE, line, "expected 1, 2, 4, 8 or 15 "
			       "VLs, not %u", *vls);
	*slot = kr_port(f, node, port);
	return KR_OK;
}

int kr_oper_vls_read(const char *path, struct kr_fabric *f, struct kr_diag *d)
{
	char buf[256];
	unsigned line = 0, vls = 0;
	uint32_t slot = 0;
	FILE *fp = NULL;
	int rc = kr_input_open(path, KR_IN_STREAM, &fp, d);

	while (!rc && (rc = kr_input_line(fp, buf, sizeof(buf), ++line, d)) > 0) {
		const char *p = buf + strspn(buf, " \t");

		rc = KR_OK;
		if (*p == '#' || !*p)
			continue;
		rc = oper_line(f, p, line, &slot, &vls, d);
		if (!rc)
			f->oper_vls[slot] = (uint8_t)vls;
	}
	if (fp)
		fclose(fp);
	return rc;
}
