/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Collects nodes and links in input order, then lays them out as a
 * struct kr_fabric with switches first. Parsers, the generator and the
 * OpenSM adapter all go through here, so every fabric obeys one set of
 * consistency rules. */
#include "kr_fabric.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_int.h"

struct fb_node {
	uint8_t type;
	uint8_t nports;
	uint64_t guid;
	uint64_t sysimg_guid;
	uint32_t vendid;
	uint32_t devid;
	uint32_t name_off;
	uint32_t desc_off;
	uint32_t slot0;		/* first builder slot */
	unsigned line;
};

struct fb_slot {
	int32_t peer;		/* builder slot, -1 */
	uint64_t guid;
	uint16_t lid;
	uint8_t lmc;
	uint8_t oper_vls;
	unsigned line;		/* that gave the GUID or LID; 0: none did */
};

struct kr_fabric_builder {
	struct fb_node *node;
	uint32_t nnode;
	size_t cap_node;
	struct fb_slot *slot;
	uint32_t nslot;
	size_t cap_slot;
	char *strtab;
	uint32_t nstr;
	size_t cap_str;
	struct kr_index names;	/* builder node ids by name */
	uint32_t *final;	/* [nnode] after finish */
};

/* Names and descriptions come from devices and reach terminals and logs:
 * control characters are kept as the text \xNN, so every reader of the
 * fabric sees the same printable strings (lookups escape their key too). */
static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static size_t escaped_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += is_control((unsigned char)*s) ? 4 : 1;
	return n;
}

static void escape_into(char *dst, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (is_control(c)) {
			*dst++ = '\\';
			*dst++ = 'x';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		} else {
			*dst++ = (char)c;
		}
	}
	*dst = '\0';
}

static int add_str(struct kr_fabric_builder *b, const char *s, uint32_t *off)
{
	size_t len = escaped_len(s) + 1;

	if (kr_grow(&b->strtab, &b->cap_str, (size_t)b->nstr + len, 1))
		return -1;
	escape_into(b->strtab + b->nstr, s);
	*off = b->nstr;
	b->nstr += (uint32_t)len;
	return 0;
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* kr_index_hash_fn of the name index. */
static uint32_t name_hash(const void *ctx, uint32_t n)
{
	const struct kr_fabric_builder *b = ctx;

	return hash_str(b->strtab + b->node[n].name_off);
}
struct kr_fabric_builder *kr_fb_new(void)
{
	struct kr_fabric_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (kr_index_init(&b->names, 64)) {
		free(b);
		return NULL;
	}
	return b;
}

void kr_fb_free(struct kr_fabric_builder *b)
{
	if (!b)
		return;
	free(b->node);
	free(b->slot);
	free(b->strtab);
	kr_index_free(&b->names);
	free(b->final);
	free(b);
}

static int find_stored(const struct kr_fabric_builder *b, const char *name)
{
	uint32_t i = hash_str(name);

	for (;; i++) {
		uint32_t n = kr_index_at(&b->names, i);

		if (n == KR_NONE)
			return -1;
		if (!strcmp(b->strtab + b->node[n].name_off, name))
			return (int)n;
	}
}

int kr_fb_find(const struct kr_fabric_builder *b, const char *name)
{
	size_t len = escaped_len(name);
	char *key;
	int n;

	if (len == strlen(name))
		return find_stored(b, name);
	if (!(key = malloc(len + 1)))
		return -1;
	escape_into(key, name);
	n = find_stored(b, key);
	free(key);
	return n;
}

void kr_fb_guid_name(char name[KR_GUID_NAME_LEN], enum kr_node_type type,
		     uint64_t guid)
{
	snprintf(name, KR_GUID_NAME_LEN, "%c-%016" PRIx64,
		 type == KR_SWITCH ? 'S' : type == KR_ROUTER ? 'R' : 'H', guid);
}

int kr_fb_add_node(struct kr_fabric_builder *b, enum kr_node_type type,
		   unsigned nports, uint64_t guid, const char *name,
		   const char *desc, unsigned line, struct kr_diag *d)
{
	struct fb_node *n;
	int prev = kr_fb_find(b, name);

	if (prev >= 0)
		return kr_fail(d, KR_EPARSE, line,
			       "duplicate node name \"%s\" (first on line %u)",
			       name, b->node[prev].line);
	if (nports < 1 || nports > 254)
		return kr_fail(d, KR_EPARSE, line,
			       "node \"%s\": port count %u outside 1..254",
			       name, nports);
	if (type != KR_CA && type != KR_SWITCH && type != KR_ROUTER)
		return kr_fail(d, KR_EINVAL, line, "node \"%s\": bad type %d",
			       name, (int)type);
	if (kr_grow(&b->node, &b->cap_node, (size_t)b->nnode + 1,
		    sizeof(*b->node)) ||
	    kr_grow(&b->slot, &b->cap_slot, (size_t)b->nslot + nports + 1,
		    sizeof(*b->slot)))
		return kr_fail(d, KR_ENOMEM, line, "out of memory");
	n = &b->node[b->nnode];
	*n = (struct fb_node){ .type = (uint8_t)type, .nports = (uint8_t)nports,
			       .guid = guid, .sysimg_guid = guid,
			       .slot0 = b->nslot, .line = line };
	if (add_str(b, name, &n->name_off) ||
	    add_str(b, desc ? desc : name, &n->desc_off))
		return kr_fail(d, KR_ENOMEM, line, "out of memory");
	for (unsigned p = 0; p <= nports; p++) {
		uint64_t pg = type == KR_SWITCH ? guid : (p ? guid + p : 0);

		b->slot[b->nslot + p] = (struct fb_slot){ .peer = -1, .guid = pg };
	}
	b->nslot += nports + 1;
	b->nnode++;
	if (kr_index_add(&b->names, name_hash(b, b->nnode - 1), b->nnode - 1,
			 name_hash, b))
		return kr_fail(d, KR_ENOMEM, line, "out of memory");
	return (int)(b->nnode - 1);
}

static int fb_slot_owner(const struct kr_fabric_builder *b, uint32_t slot)
{
	uint32_t lo = 0, hi = b->nnode;

	while (hi - lo > 1) {	/* slot0 grows with the node id */
		uint32_t mid = (lo + hi) / 2;

		if (b->node[mid].slot0 <= slot)
			lo = mid;
		else
			hi = mid;
	}
	return (int)lo;
}

void kr_fb_set_ids(struct kr_fabric_builder *b, int node, uint64_t sysimg_guid,
		   uint32_t vendid, uint32_t devid)
{
	b->node[node].sysimg_guid = sysimg_guid;
	b->node[node].vendid = vendid;
	b->node[node].devid = devid;
}

static const char *fb_name(const struct kr_fabric_builder *b, int node)
{
	return b->strtab + b->node[node].name_off;
}

int kr_fb_set_port(struct kr_fabric_builder *b, int node, unsigned port,
		   uint64_t port_guid, uint16_t lid, uint8_t lmc,
		   unsigned line, struct kr_diag *d)
{
	struct fb_slot *s;

	if (port > b->node[node].nports)
		return kr_fail(d, KR_EPARSE, line,
			       "port %u beyond \"%s\" (%u ports)", port,
			       fb_name(b, node), b->node[node].nports);
	if (lmc > 7)
		return kr_fail(d, KR_EPARSE, line, "LMC %u of \"%s\" above 7",
			       lmc, fb_name(b, node));
	s = &b->slot[b->node[node].slot0 + port];
	if (port_guid)
		s->guid = port_guid;
	s->lid = lid;
	s->lmc = lmc;
	s->line = line;
	return KR_OK;
}

int kr_fb_set_oper_vls(struct kr_fabric_builder *b, int node, unsigned port,
		       uint8_t vls)
{
	if (port > b->node[node].nports)
		return KR_EINVAL;
	b->slot[b->node[node].slot0 + port].oper_vls = vls;
	return KR_OK;
}

int kr_fb_link(struct kr_fabric_builder *b, int a, unsigned pa, int z,
	       unsigned pz, unsigned line, struct kr_diag *d)
{
	uint32_t sa, sz;

	if (pa < 1 || pa > b->node[a].nports)
		return kr_fail(d, KR_EPARSE, line,
			       "port %u beyond \"%s\" (%u ports)", pa,
			       fb_name(b, a), b->node[a].nports);
	if (pz < 1 || pz > b->node[z].nports)
		return kr_fail(d, KR_EPARSE, line,
			       "port %u beyond \"%s\" (%u ports)", pz,
			       fb_name(b, z), b->node[z].nports);
	sa = b->node[a].slot0 + pa;
	sz = b->node[z].slot0 + pz;
	if (sa == sz)
		return kr_fail(d, KR_EPARSE, line,
			       "port %u of \"%s\" linked to itself", pa,
			       fb_name(b, a));
	if (b->slot[sa].peer == (int32_t)sz && b->slot[sz].peer == (int32_t)sa)
		return KR_OK;
	if (b->slot[sa].peer >= 0 || b->slot[sz].peer >= 0) {
		uint32_t busy = b->slot[sa].peer >= 0 ? sa : sz;
		uint32_t other = (uint32_t)b->slot[busy].peer;
		int bn = fb_slot_owner(b, busy), on = fb_slot_owner(b, other);

		return kr_fail(d, KR_EPARSE, line,
			       "link \"%s\"[%u] - \"%s\"[%u] conflicts with "
			       "\"%s\"[%u] - \"%s\"[%u]", fb_name(b, a), pa,
			       fb_name(b, z), pz, fb_name(b, bn),
			       busy - b->node[bn].slot0, fb_name(b, on),
			       other - b->node[on].slot0);
	}
	b->slot[sa].peer = (int32_t)sz;
	b->slot[sz].peer = (int32_t)sa;
	return KR_OK;
}

uint32_t kr_fb_final_id(const struct kr_fabric_builder *b, int node)
{
	return b->final ? b->final[node] : KR_NONE;
}

static int alloc_fabric(struct kr_fabric *f)
{
	uint32_t nn = f->nnode, np = f->nport;

	f->type = calloc(nn, 1);
	f->nports = calloc(nn, 1);
	f->port0 = calloc(nn + 1, sizeof(*f->port0));
	f->guid = calloc(nn, sizeof(*f->guid));
	f->sysimg_guid = calloc(nn, sizeof(*f->sysimg_guid));
	f->vendid = calloc(nn, sizeof(*f->vendid));
	f->devid = calloc(nn, sizeof(*f->devid));
	f->name_off = calloc(nn, sizeof(*f->name_off));
	f->desc_off = calloc(nn, sizeof(*f->desc_off));
	f->owner = calloc(np, sizeof(*f->owner));
	f->peer = calloc(np, sizeof(*f->peer));
	f->port_guid = calloc(np, sizeof(*f->port_guid));
	f->lid = calloc(np, sizeof(*f->lid));
	f->lmc = calloc(np, 1);
	f->oper_vls = calloc(np, 1);
	return f->type && f->nports && f->port0 && f->guid && f->sysimg_guid &&
	       f->vendid && f->devid && f->name_off && f->desc_off &&
	       f->owner && f->peer && f->port_guid && f->lid && f->lmc &&
	       f->oper_vls ? KR_OK : KR_ENOMEM;
}

struct node_key {
	bool other;		/* not a switch */
	uint64_t guid;
	uint32_t node;
};

/* Switches first, then by GUID; a duplicate GUID (refused later, naming
 * both lines) keeps the input order. */
static int cmp_node(const void *a, const void *b)
{
	const struct node_key *x = a, *y = b;

	if (x->other != y->other)
		return x->other - y->other;
	if (x->guid != y->guid)
		return (x->guid > y->guid) - (x->guid < y->guid);
	return (x->node > y->node) - (x->node < y->node);
}

/* Switches first, each kind in GUID order: a capture, OpenSM and a
 * generated file list nodes in different orders, every tie the router and
 * the repair break by switch id must fall the same way for all of them,
 * and files in node order (vlarb, topology.net) should read alike. */
static int number_nodes(struct kr_fabric_builder *b, struct kr_fabric *f)
{
	uint32_t nsw = 0;
	struct node_key *order;

	b->final = malloc((b->nnode + 1) * sizeof(*b->final));
	order = malloc((b->nnode + 1) * sizeof(*order));
	if (!b->final || !order) {
		free(order);
		return KR_ENOMEM;
	}
	for (uint32_t n = 0; n < b->nnode; n++) {
		order[n] = (struct node_key){ b->node[n].type != KR_SWITCH,
					      b->node[n].guid, n };
		nsw += !order[n].other;
	}
	qsort(order, b->nnode, sizeof(*order), cmp_node);
	for (uint32_t i = 0; i < b->nnode; i++)
		b->final[order[i].node] = i;
	free(order);
	f->nnode = b->nnode;
	f->nsw = nsw;
	f->nport = b->nslot;
	return KR_OK;
}

static void copy_nodes(const struct kr_fabric_builder *b, struct kr_fabric *f,
		       uint32_t *slot_map)
{
	uint32_t *order = slot_map + b->nslot;	/* scratch: final -> builder */

	for (uint32_t n = 0; n < b->nnode; n++)
		order[b->final[n]] = n;
	for (uint32_t i = 0, slot = 0; i < f->nnode; i++) {
		const struct fb_node *bn = &b->node[order[i]];

		f->type[i] = bn->type;
		f->nports[i] = bn->nports;
		f->port0[i] = slot;
		f->guid[i] = bn->guid;
		f->sysimg_guid[i] = bn->sysimg_guid;
		f->vendid[i] = bn->vendid;
		f->devid[i] = bn->devid;
		f->name_off[i] = bn->name_off;
		f->desc_off[i] = bn->desc_off;
		for (unsigned p = 0; p <= bn->nports; p++) {
			slot_map[bn->slot0 + p] = slot + p;
			f->owner[slot + p] = i;
		}
		slot += bn->nports + 1u;
		f->port0[i + 1] = slot;
	}
}

static void copy_slots(const struct kr_fabric_builder *b, struct kr_fabric *f,
		       const uint32_t *slot_map)
{
	for (uint32_t s = 0; s < b->nslot; s++) {
		const struct fb_slot *bs = &b->slot[s];
		uint32_t t = slot_map[s];

		f->peer[t] = bs->peer >= 0 ? (int32_t)slot_map[bs->peer] : -1;
		f->port_guid[t] = bs->guid;
		f->lid[t] = bs->lid;
		f->lmc[t] = bs->lmc;
		f->oper_vls[t] = bs->oper_vls;
	}
	/* Only switch port 0 and CA ports own LIDs. */
	for (uint32_t n = 0; n < f->nsw; n++)
		for (uint32_t p = f->port0[n] + 1; p < f->port0[n + 1]; p++)
			f->lid[p] = f->lmc[p] = 0;
}

/* Input line that set final port slot's GUID or LID, else its node's. */
static unsigned fb_port_line(const struct kr_fabric_builder *b,
		      const struct kr_fabric *f, uint32_t slot)
{
	uint32_t node = f->owner[slot];

	for (uint32_t n = 0; n < b->nnode; n++)
		if (b->final[n] == node) {
			unsigned line = b->slot[b->node[n].slot0 + slot -
						f->port0[node]].line;

			return line ? line : b->node[n].line;
		}
	return 0;
}

/* Input line of the record that created final node id (0 if unknown). */
static unsigned fb_node_line(const struct kr_fabric_builder *b, uint32_t final_id)
{
	for (uint32_t n = 0; n < b->nnode; n++)
		if (b->final[n] == final_id)
			return b->node[n].line;
	return 0;
}

int kr_fb_finish(struct kr_fabric_builder *b, struct kr_fabric *f,
		 struct kr_diag *d)
{
	uint32_t *slot_map, bad = KR_NONE, bad_node = KR_NONE;
	int rc;

	*f = (struct kr_fabric){ 0 };
	if (!b->nnode)
		return kr_fail(d, KR_EPARSE, 0, "no nodes");
	rc = number_nodes(b, f);
	if (rc == KR_OK)
		rc = alloc_fabric(f);
	if (rc) {
		kr_fabric_free(f);
		return kr_fail(d, rc, 0, "out of memory");
	}
	slot_map = malloc(((size_t)b->nslot + b->nnode) * sizeof(*slot_map));
	f->strtab = malloc(b->nstr);
	if (!slot_map || !f->strtab) {
		free(slot_map);
		kr_fabric_free(f);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	memcpy(f->strtab, b->strtab, b->nstr);
	copy_nodes(b, f, slot_map);
	copy_slots(b, f, slot_map);
	free(slot_map);
	rc = fabric_index_guids(f, d, &bad_node, &bad);
	if (!rc)
		rc = kr_fabric_index_lids_at(f, d, &bad);
	/* the input line of the record at fault */
	if (rc == KR_EPARSE && d)
		d->line = bad_node != KR_NONE ? fb_node_line(b, bad_node)
		: bad != KR_NONE ? fb_port_line(b, f, bad) : 0;
	if (rc)
		kr_fabric_free(f);
	return rc;
}
