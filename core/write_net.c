/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writes a fabric in the ibnetdiscover dialect that ibsim also reads: GUIDs
 * go in switchguid= / caguid= lines before each record (ibsim takes them
 * from there), descriptions in the comment, links from both ends. */
#include "kr_io.h"

#include <inttypes.h>

static void write_port(FILE *out, const struct kr_fabric *f, uint32_t slot)
{
	uint32_t n = f->owner[slot], ps = (uint32_t)f->peer[slot];
	uint32_t pn = f->owner[ps];
	unsigned plid = f->lid[kr_is_switch(f, pn) ? f->port0[pn] : ps];

	if (kr_is_switch(f, n))
		fprintf(out, "[%u]\t\"%s\"[%u]\t\t# \"%s\" lid %u 4xSDR\n",
			kr_port_num(f, slot), kr_node_name(f, pn),
			kr_port_num(f, ps), kr_node_desc(f, pn), plid);
	else
		fprintf(out, "[%u](%" PRIx64 ") \t\"%s\"[%u]\t\t# lid %u lmc %u "
			"\"%s\" lid %u 4xSDR\n", kr_port_num(f, slot),
			f->port_guid[slot], kr_node_name(f, pn),
			kr_port_num(f, ps), f->lid[slot], f->lmc[slot],
			kr_node_desc(f, pn), plid);
}

static void write_node(FILE *out, const struct kr_fabric *f, uint32_t n)
{
	int sw = kr_is_switch(f, n);

	if (f->vendid[n])
		fprintf(out, "vendid=0x%" PRIx32 "\n", f->vendid[n]);
	if (f->devid[n])
		fprintf(out, "devid=0x%" PRIx32 "\n", f->devid[n]);
	fprintf(out, "sysimgguid=0x%" PRIx64 "\n", f->sysimg_guid[n]);
	if (sw) {
		fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", f->guid[n],
			f->port_guid[f->port0[n]]);
		fprintf(out, "Switch\t%u \"%s\"\t\t# \"%s\" base port 0 lid %u lmc %u\n",
			f->nports[n], kr_node_name(f, n), kr_node_desc(f, n),
			f->lid[f->port0[n]], f->lmc[f->port0[n]]);
	} else {
		fprintf(out, "%sguid=0x%" PRIx64 "\n",
			f->type[n] == KR_ROUTER ? "rt" : "ca", f->guid[n]);
		fprintf(out, "%s\t%u \"%s\"\t\t# \"%s\"\n",
			f->type[n] == KR_ROUTER ? "Rt" : "Ca", f->nports[n],
			kr_node_name(f, n), kr_node_desc(f, n));
	}
	for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++)
		if (f->peer[s] >= 0)
			write_port(out, f, s);
	fputc('\n', out);
}

int kr_net_write(FILE *out, const struct kr_fabric *f)
{
	fprintf(out, "# %u switches, %u CAs\n\n", f->nsw, f->nnode - f->nsw);
	for (uint32_t n = 0; n < f->nnode; n++)
		write_node(out, f, n);
	return ferror(out) ? KR_EIO : KR_OK;
}
