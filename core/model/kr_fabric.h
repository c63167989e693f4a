/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fabric model: a dense-id graph of switches, CAs, ports and links.
 *
 * Switches are nodes 0 .. nsw-1 in GUID order, whatever the order of the
 * input (OpenSM's map, a capture, a file), so that every tie broken by
 * switch id falls the same way for all of them; CAs (and IB routers)
 * follow, in GUID order too, so that files listing nodes or ports come out
 * alike from the plugin and from a dry run. Every node owns
 * a run of port slots indexed by port number, slot 0 included (a switch's
 * management port; unused on a CA), so the slot of (node, port number) is
 * port0[node] + number and a neighbour walk is a loop over that run.
 * Everything is a flat array; nothing points into anything else. */
#ifndef KR_FABRIC_H
#define KR_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kr_base.h"
#include "kr_index.h"

enum kr_node_type {		/* NodeInfo:NodeType values */
	KR_CA = 1,
	KR_SWITCH = 2,
	KR_ROUTER = 3,
};

struct kr_fabric {
	uint32_t nnode;
	uint32_t nsw;
	uint32_t nport;		/* port slots over all nodes */

	uint8_t *type;		/* [nnode] enum kr_node_type */
	uint8_t *nports;	/* [nnode] NodeInfo:NumPorts */
	uint32_t *port0;	/* [nnode+1] first slot of each node */
	uint64_t *guid;		/* [nnode] node GUID */
	uint64_t *sysimg_guid;	/* [nnode] */
	uint32_t *vendid;	/* [nnode] */
	uint32_t *devid;	/* [nnode] */
	uint32_t *name_off;	/* [nnode] into strtab: the file's node id */
	uint32_t *desc_off;	/* [nnode] into strtab: NodeDescription */
	char *strtab;

	uint32_t *owner;	/* [nport] node owning the slot */
	int32_t *peer;		/* [nport] slot at the far end, -1 if no link */
	uint64_t *port_guid;	/* [nport] */
	uint16_t *lid;		/* [nport] base LID (switches: slot 0), 0 if none */
	uint8_t *lmc;		/* [nport] */
	uint8_t *oper_vls;	/* [nport] data VLs in use, 0 when unknown */

	uint32_t max_lid;	/* highest LID of any port, LMC range included */
	uint32_t *lid_port;	/* [max_lid+1] slot owning each LID, KR_NONE */
	uint16_t sm_lid;	/* the SM's LID where the input marks it
				 * (opensm-subnet.lst), else 0 */

	struct kr_index guids;		/* node ids by GUID: kr_node_by_guid */
	struct kr_index port_guids;	/* slots by port GUID */
};

static inline bool kr_is_switch(const struct kr_fabric *f, uint32_t node)
{
	return node < f->nsw;
}

static inline uint32_t kr_port(const struct kr_fabric *f, uint32_t node,
			       unsigned num)
{
	return f->port0[node] + num;
}

static inline unsigned kr_port_num(const struct kr_fabric *f, uint32_t port)
{
	return port - f->port0[f->owner[port]];
}

static inline const char *kr_node_name(const struct kr_fabric *f, uint32_t node)
{
	return f->strtab + f->name_off[node];
}

static inline const char *kr_node_desc(const struct kr_fabric *f, uint32_t node)
{
	return f->strtab + f->desc_off[node];
}

/* Whether a node has a description that says more than its name: what
 * a NodeDescription or a node-name-map gives it (a topology without
 * descriptions gets its names as descriptions). */
static inline bool kr_node_described(const struct kr_fabric *f, uint32_t node)
{
	const char *desc = kr_node_desc(f, node);

	return *desc && strcmp(desc, kr_node_name(f, node));
}

/* A node as reports name it: its name, then its description in quotes
 * when it has one of its own (S-0002c9000000000f "sw-x1y2"); an admin
 * knows nodes by description, the other files by name. Returned by value
 * so that one message can name several nodes: kr_node_label(f, a).s lives
 * to the end of the full expression (C11 6.2.4). Longer labels are cut. */
enum { KR_LABEL_LEN = 200 };
struct kr_label {
	char s[KR_LABEL_LEN];
};
struct kr_label kr_node_label(const struct kr_fabric *f, uint32_t node);
/* The same for the node owning a port slot, with the port number in
 * brackets: S-0002c9000000000f "sw-x1y2"[3]. */
struct kr_label kr_port_label(const struct kr_fabric *f, uint32_t slot);

/* The slot that carries traffic for a node: slot 0 of a switch, else the
 * given port. Its LID range is lid .. lid + 2^lmc - 1. */
static inline uint32_t kr_lid_range(const struct kr_fabric *f, uint32_t port,
				    unsigned *nlids)
{
	*nlids = 1u << f->lmc[port];
	return f->lid[port];
}

uint32_t kr_node_by_guid(const struct kr_fabric *f, uint64_t guid);
uint32_t kr_port_by_guid(const struct kr_fabric *f, uint64_t port_guid);
static inline uint32_t kr_port_by_lid(const struct kr_fabric *f, unsigned lid)
{
	return lid <= f->max_lid ? f->lid_port[lid] : KR_NONE;
}

void kr_fabric_free(struct kr_fabric *f);

/* Recomputes max_lid and lid_port after LIDs changed; fails with a message
 * when two ports claim one LID or a LID is beyond the unicast range. */
int kr_fabric_index_lids(struct kr_fabric *f, struct kr_diag *d);
/* The same, with the port slot whose LID is wrong in *bad, for callers
 * that can name its input line. */
int kr_fabric_index_lids_at(struct kr_fabric *f, struct kr_diag *d,
			    uint32_t *bad);

/* Gives every switch port 0 and every connected CA port a LID, in node order,
 * CA port ranges aligned to 2^lmc, leaving LIDs already set alone. This is
 * the documented assignment for topologies that carry none. */
int kr_fabric_assign_lids(struct kr_fabric *f, unsigned lmc,
			  struct kr_diag *d);

/* Builds a fabric from records in any order: nodes by name, links by either
 * end (given once or from both sides). Builder node ids are the order of
 * kr_fb_add_node calls; kr_fb_finish renumbers switches first. line numbers
 * are kept so that late errors (duplicate GUIDs) can point at the input. */
struct kr_fabric_builder;

struct kr_fabric_builder *kr_fb_new(void);
void kr_fb_free(struct kr_fabric_builder *b);
/* Returns the builder node id (>= 0) or a negative kr_err. */
int kr_fb_add_node(struct kr_fabric_builder *b, enum kr_node_type type,
		   unsigned nports, uint64_t guid, const char *name,
		   const char *desc, unsigned line, struct kr_diag *d);
/* ibnetdiscover's name for a node: "S-", "H-" or "R-" by type, then the
 * GUID in 16 hex digits; what a capture and the plugin call nodes, so
 * their files read like ibnetdiscover's. */
enum { KR_GUID_NAME_LEN = 19 };
void kr_fb_guid_name(char name[KR_GUID_NAME_LEN], enum kr_node_type type,
		     uint64_t guid);
/* Builder node id of a name, or -1. */
int kr_fb_find(const struct kr_fabric_builder *b, const char *name);
void kr_fb_set_ids(struct kr_fabric_builder *b, int node, uint64_t sysimg_guid,
		   uint32_t vendid, uint32_t devid);
int kr_fb_set_port(struct kr_fabric_builder *b, int node, unsigned port,
		   uint64_t port_guid, uint16_t lid, uint8_t lmc,
		   unsigned line, struct kr_diag *d);
int kr_fb_set_oper_vls(struct kr_fabric_builder *b, int node, unsigned port,
		       uint8_t vls);
/* Records a link; the same link again (from its other end) is fine, a port
 * already linked elsewhere is an error naming both descriptions. */
int kr_fb_link(struct kr_fabric_builder *b, int a, unsigned pa, int z,
	       unsigned pz, unsigned line, struct kr_diag *d);
/* Builder node id -> final node id, valid after kr_fb_finish. */
uint32_t kr_fb_final_id(const struct kr_fabric_builder *b, int node);
int kr_fb_finish(struct kr_fabric_builder *b, struct kr_fabric *f,
		 struct kr_diag *d);

#endif
