/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Writes a fabric in the ibnetdiscover dialect that ibsim also reads: GUIDs
 * go in switchguid= / caguid= lines before each record (ibsim takes them
 * from there), descriptions in the comment, links from both ends. */
#include "kr_io.h"

#include "kr_out.h"

static void put_name(struct kr_out *o, const char *pre, const char *s,
		     const char *post)
{
	kr_out_str(o, pre);
	kr_out_str(o, s);
	kr_out_str(o, post);
}

/* A switch port: [P]\t"peer"[PP]\t\t# "desc" lid L 4xSDR; a CA port has
 * its GUID after [P] and its own LID and LMC after the '#'. */
static void write_port(struct kr_out *o, const struct kr_fabric *f,
		       uint32_t slot)
{
	uint32_t n = f->owner[slot], ps = (uint32_t)f->peer[slot];
	uint32_t pn = f->owner[ps];
	unsigned plid = f->lid[kr_is_switch(f, pn) ? f->port0[pn] : ps];
	int ca = !kr_is_switch(f, n);

	kr_out_ch(o, '[');
	kr_out_u(o, kr_port_num(f, slot));
	if (ca) {
		kr_out_str(o, "](");
		kr_out_hex(o, f->port_guid[slot], 0, 0);
		kr_out_str(o, ") ");
	} else {
		kr_out_ch(o, ']');
	}
	put_name(o, "\t\"", kr_node_name(f, pn), "\"[");
	kr_out_u(o, kr_port_num(f, ps));
	kr_out_str(o, "]\t\t# ");
	if (ca) {
		kr_out_str(o, "lid ");
		kr_out_u(o, f->lid[slot]);
		kr_out_str(o, " lmc ");
		kr_out_u(o, f->lmc[slot]);
		kr_out_ch(o, ' ');
	}
	put_name(o, "\"", kr_node_desc(f, pn), "\" lid ");
	kr_out_u(o, plid);
	kr_out_str(o, " 4xSDR\n");
}

static void write_node(struct kr_out *o, const struct kr_fabric *f,
		       uint32_t n)
{
	int sw = kr_is_switch(f, n);

	if (f->vendid[n]) {
		kr_out_str(o, "vendid=0x");
		kr_out_hex(o, f->vendid[n], 0, 0);
		kr_out_ch(o, '\n');
	}
	if (f->devid[n]) {
		kr_out_str(o, "devid=0x");
		kr_out_hex(o, f->devid[n], 0, 0);
		kr_out_ch(o, '\n');
	}
	kr_out_str(o, "sysimgguid=0x");
	kr_out_hex(o, f->sysimg_guid[n], 0, 0);
	kr_out_ch(o, '\n');
	if (sw) {
		kr_out_str(o, "switchguid=0x");
		kr_out_hex(o, f->guid[n], 0, 0);
		kr_out_ch(o, '(');
		kr_out_hex(o, f->port_guid[f->port0[n]], 0, 0);
		kr_out_str(o, ")\nSwitch\t");
		kr_out_u(o, f->nports[n]);
		put_name(o, " \"", kr_node_name(f, n), "\"\t\t# \"");
		kr_out_str(o, kr_node_desc(f, n));
		kr_out_str(o, "\" base port 0 lid ");
		kr_out_u(o, f->lid[f->port0[n]]);
		kr_out_str(o, " lmc ");
		kr_out_u(o, f->lmc[f->port0[n]]);
		kr_out_ch(o, '\n');
	} else {
		kr_out_str(o, f->type[n] == KR_ROUTER ? "rtguid=0x" : "caguid=0x");
		kr_out_hex(o, f->guid[n], 0, 0);
		kr_out_str(o, f->type[n] == KR_ROUTER ? "\nRt\t" : "\nCa\t");
		kr_out_u(o, f->nports[n]);
		put_name(o, " \"", kr_node_name(f, n), "\"\t\t# \"");
		kr_out_str(o, kr_node_desc(f, n));
		kr_out_str(o, "\"\n");
	}
	for (uint32_t s = f->port0[n] + 1; s < f->port0[n + 1]; s++)
		if (f->peer[s] >= 0)
			write_port(o, f, s);
	kr_out_ch(o, '\n');
}

int kr_net_write(FILE *out, const struct kr_fabric *f)
{
	struct kr_out o;

	if (kr_out_open(&o, out))
		return KR_ENOMEM;
	kr_out_str(&o, "# ");
	kr_out_u(&o, f->nsw);
	kr_out_str(&o, " switches, ");
	kr_out_u(&o, f->nnode - f->nsw);
	kr_out_str(&o, " CAs\n\n");
	for (uint32_t n = 0; n < f->nnode; n++)
		write_node(&o, f, n);
	return kr_out_close(&o);
}
