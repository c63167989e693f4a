/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Discovery: libibnetdisc walks the fabric by directed-route SMPs from the
 * local port (NodeInfo, SwitchInfo, PortInfo of every port) and we copy what
 * knsroute models into a kr_fabric, named as ibnetdiscover names nodes
 * ("S-GUID", "H-GUID", "R-GUID") so that topology.net reads like its
 * output. Each node's directed route is kept for the SMPs that follow. */
#include <config.h>

#include "capture_mad.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>

static void node_id(const ibnd_node_t *n, char name[KR_GUID_NAME_LEN])
{
	kr_fb_guid_name(name, (enum kr_node_type)n->type, n->guid);
}

/* PortInfo:OperVLs is a code: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14. */
static uint8_t oper_vls(const ibnd_port_t *port)
{
	unsigned code = mad_get_field((void *)port->info, 0, IB_PORT_OPER_VLS_F);

	return (uint8_t)(code >= 5 ? 15 : code ? 1u << (code - 1) : 0);
}

static int add_node(struct kr_fabric_builder *b, ibnd_node_t *n,
		    struct kr_diag *d)
{
	bool sw = n->type == IB_NODE_SWITCH;
	char name[KR_GUID_NAME_LEN];
	int id, rc = 0;

	node_id(n, name);
	id = kr_fb_add_node(b, (enum kr_node_type)n->type, (unsigned)n->numports,
			    n->guid, name, n->nodedesc, 0, d);
	if (id < 0)
		return id;
	kr_fb_set_ids(b, id, mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F),
		      mad_get_field(n->info, 0, IB_NODE_VENDORID_F),
		      mad_get_field(n->info, 0, IB_NODE_DEVID_F));
	if (sw)
		rc = kr_fb_set_port(b, id, 0, n->ports[0] ? n->ports[0]->guid : 0,
				    n->smalid, n->smalmc, 0, d);
	for (int i = 1; !rc && i <= n->numports; i++) {
		ibnd_port_t *p = n->ports[i];

		if (!p)
			continue;
		if (!sw)
			rc = kr_fb_set_port(b, id, (unsigned)i, p->guid,
					    p->base_lid, p->lmc, 0, d);
		kr_fb_set_oper_vls(b, id, (unsigned)i, oper_vls(p));
	}
	return rc ? rc : id;
}

static int add_links(struct kr_fabric_builder *b, const ibnd_node_t *n,
		     struct kr_diag *d)
{
	char name[KR_GUID_NAME_LEN];
	int id, rc = 0;

	node_id(n, name);
	id = kr_fb_find(b, name);
	for (int i = 1; !rc && i <= n->numports; i++) {
		const ibnd_port_t *p = n->ports[i];

		if (!p || !p->remoteport)
			continue;
		node_id(p->remoteport->node, name);
		rc = kr_fb_link(b, id, (unsigned)i, kr_fb_find(b, name),
				(unsigned)p->remoteport->portnum, 0, d);
	}
	return rc;
}

/* Node by node into the builder, in fab->nodes order (builder id = rank). */
static int build_fabric(ibnd_fabric_t *fab, struct kr_fabric_builder *b,
			struct kr_fabric *f, struct kr_diag *d)
{
	ibnd_node_t *n;
	int rc = 0;

	for (n = fab->nodes; !rc && n; n = n->next)
		if ((rc = add_node(b, n, d)) > 0)
			rc = 0;
	for (n = fab->nodes; !rc && n; n = n->next)
		rc = add_links(b, n, d);
	return rc ? rc : kr_fb_finish(b, f, d);
}

/* The fabric, then the routes and FDB tops by final id. */
static int build(ibnd_fabric_t *fab, struct cap_net *net, struct kr_fabric *f,
		 struct kr_diag *d)
{
	struct kr_fabric_builder *b = kr_fb_new();
	ibnd_node_t *n;
	int rc = b ? 0 : kr_fail(d, KR_ENOMEM, 0, "out of memory");
	int id = 0;

	if (!rc)
		rc = build_fabric(fab, b, f, d);
	if (!rc) {
		net->path = calloc(f->nnode + 1, sizeof(*net->path));
		net->fdb_top = calloc(f->nsw + 1, sizeof(*net->fdb_top));
		if (!net->path || !net->fdb_top)
			rc = kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	for (n = fab->nodes; !rc && n; n = n->next, id++) {
		uint32_t node = kr_fb_final_id(b, id);

		net->path[node] = n->path_portid;
		if (kr_is_switch(f, node))
			net->fdb_top[node] = (uint16_t)mad_get_field(
				n->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F);
	}
	kr_fb_free(b);
	return rc;
}

static void local_sm(const ibnd_fabric_t *fab, struct cap_net *net)
{
	const ibnd_port_t *p = fab->from_node && fab->from_portnum <=
			       fab->from_node->numports ?
			       fab->from_node->ports[fab->from_portnum] : NULL;

	if (!p)
		return;
	net->sm_lid = mad_get_field((void *)p->info, 0, IB_PORT_SMLID_F);
	net->sm_sl = mad_get_field((void *)p->info, 0, IB_PORT_SMSL_F);
}

int cap_discover(const struct capture_opts *o, struct cap_net *net,
		 struct kr_fabric *f, FILE *log, struct kr_diag *d)
{
	struct ibnd_config cfg = { .timeout_ms = o->timeout_ms,
				   .retries = o->retries };
	ibnd_fabric_t *fab;
	umad_port_t up;
	double t0 = kr_now_ms();
	int rc;

	*net = (struct cap_net){ 0 };
	rc = umad_get_port(o->ca, (int)o->port, &up);
	if (rc < 0)
		return kr_fail(d, KR_EIO, 0, "no usable InfiniBand port (%s%s "
			       "port %u): %s", o->ca ? "CA " : "first CA",
			       o->ca ? o->ca : "", o->port, strerror(-rc));
	snprintf(net->ca, sizeof(net->ca), "%s", up.ca_name);
	net->port = (unsigned)up.portnum;
	umad_release_port(&up);
	fab = ibnd_discover_fabric(net->ca, (int)net->port, NULL, &cfg);
	if (!fab)
		return kr_fail(d, KR_EIO, 0, "discovery from %s port %u failed "
			       "(is the port active? ibnetdiscover -d tells more)",
			       net->ca, net->port);
	net->port = (unsigned)fab->from_portnum;
	local_sm(fab, net);
	rc = build(fab, net, f, d);
	ibnd_destroy_fabric(fab);
	if (!rc)
		fprintf(log, "discovery: from %s port %u, %u switches, %u other "
			"nodes, SM LID %u SL %u, %.2f s\n", net->ca, net->port,
			f->nsw, f->nnode - f->nsw, net->sm_lid, net->sm_sl,
			(kr_now_ms() - t0) / 1e3);
	return rc;
}

/* ibnd_load_fabric says why it failed only under libibnetdisc's debug
 * switch, so the message can only list the likely causes. */
int cap_load_cache(const char *path, struct kr_fabric *f, struct kr_diag *d)
{
	ibnd_fabric_t *fab = ibnd_load_fabric(path, 0);
	struct kr_fabric_builder *b;
	int rc;

	*f = (struct kr_fabric){ 0 };
	if (!fab)
		return kr_fail(d, KR_EPARSE, 0, "libibnetdisc could not load this "
			       "ibnetdiscover cache (truncated, or written by "
			       "another version?)");
	b = kr_fb_new();
	rc = b ? build_fabric(fab, b, f, d) :
		 kr_fail(d, KR_ENOMEM, 0, "out of memory");
	kr_fb_free(b);
	ibnd_destroy_fabric(fab);
	return rc;
}

void cap_net_free(struct cap_net *net)
{
	free(net->path);
	free(net->fdb_top);
	*net = (struct cap_net){ 0 };
}

void cap_node_name(const struct kr_fabric *f, uint32_t node, char *buf,
		   size_t len)
{
	snprintf(buf, len, "%s 0x%016" PRIx64 " \"%s\"", kr_is_switch(f, node) ?
		 "switch" : f->type[node] == KR_ROUTER ? "router" : "CA",
		 f->guid[node], kr_node_desc(f, node));
}
