/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reads the VL arbitration file `knsroute route` writes (docs/
 * file-formats.md): "GUID PORT low VL:WEIGHT ..." per sending port, the
 * GUID a port GUID (CAs, switch port 0) or a switch's node GUID; '#'
 * starts a comment. Ports the file leaves out keep equal weights. */
#include "sim_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The slot of (guid, port): a switch's node GUID, else a port GUID. */
static uint32_t vlarb_slot(const struct kr_fabric *f, uint64_t guid,
			   unsigned port)
{
	uint32_t node = kr_node_by_guid(f, guid), slot;

	if (node != KR_NONE && kr_is_switch(f, node))
		return port <= f->nports[node] ? kr_port(f, node, port) : KR_NONE;
	slot = kr_port_by_guid(f, guid);
	if (slot == KR_NONE)
		return KR_NONE;
	return kr_port_num(f, slot) == port ? slot : KR_NONE;
}

static int parse_weights(char *at, uint8_t *w, unsigned line,
			 struct kr_diag *d)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(at, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		unsigned vl, wt;
		char end;

		if (sscanf(tok, "%u:%u%c", &vl, &wt, &end) != 2 || vl > 14 ||
		    wt > 255)
			return kr_fail(d, KR_EPARSE, line, "expected VL:WEIGHT "
				       "(VL 0-14, weight 0-255), not \"%s\"",
				       tok);
		w[vl] = (uint8_t)wt;
	}
	return 0;
}

static int parse_line(char *buf, const struct kr_fabric *f, uint8_t *weight,
		      unsigned line, struct kr_diag *d)
{
	char *hash = strchr(buf, '#'), table[8];
	uint64_t guid;
	unsigned port;
	int used = 0;
	uint32_t slot;

	if (hash)
		*hash = '\0';
	if (strspn(buf, " \t\r\n") == strlen(buf))
		return 0;
	if (sscanf(buf, "%" SCNx64 " %u %7s %n", &guid, &port, table, &used) < 3
	    || strcmp(table, "low"))
		return kr_fail(d, KR_EPARSE, line, "expected \"GUID PORT low "
			       "VL:WEIGHT ...\"");
	slot = vlarb_slot(f, guid, port);
	if (slot == KR_NONE)
		return kr_fail(d, KR_EPARSE, line, "no port %u of GUID "
			       "0x%016" PRIx64 " in the fabric", port, guid);
	return parse_weights(buf + used, weight + (size_t)slot * 16, line, d);
}

int kr_sim_vlarb_read(FILE *in, const struct kr_fabric *f,
		      struct kr_sim_vlarb *v, struct kr_diag *d)
{
	char buf[1024];
	unsigned line = 0;
	int rc = 0;

	v->weight = calloc((size_t)f->nport * 16, 1);
	if (!v->weight)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	while (!rc && fgets(buf, sizeof(buf), in)) {
		line++;
		rc = parse_line(buf, f, v->weight, line, d);
	}
	if (rc)
		kr_sim_vlarb_free(v);
	return rc;
}

void kr_sim_vlarb_free(struct kr_sim_vlarb *v)
{
	free(v->weight);
	v->weight = NULL;
}

static unsigned weight(const struct sim *s, uint32_t o, unsigned vl)
{
	const uint8_t *w = s->weight ? s->weight + (size_t)o * 16 : NULL;
	unsigned any = 0;

	for (unsigned v = 0; w && v < 16; v++)
		any |= w[v];
	return any ? w[vl] : s->o->pkt;
}

/* VL arbitration: the VL being served keeps the link while its weight
 * (64-byte units, InfiniBand's) lasts and it has a packet ready; then the
 * next VL with one, in VL order. A packet started on a positive weight
 * finishes, as on a real link. best[vl]: a ready request or SIM_NIL. */
int sim_vlarb_pick(struct sim *s, uint32_t o, const uint32_t *best)
{
	unsigned v = s->cur_vl[o];

	if (best[v] != SIM_NIL && s->vl_left[o] > 0)
		return (int)v;
	for (unsigned k = 1; k <= s->nvl; k++) {
		unsigned u = (v + k) % s->nvl;

		if (best[u] != SIM_NIL && weight(s, o, u)) {
			s->cur_vl[o] = (uint16_t)u;
			s->vl_left[o] = (int32_t)weight(s, o, u);
			return (int)u;
		}
	}
	return -1;
}
