/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Lookups over a built fabric: GUID hashes and the LID index. */
#include "kr_fabric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_int.h"

#define KR_LID_UCAST_END 0xBFFF

void kr_fabric_free(struct kr_fabric *f)
{
	free(f->type);
	free(f->nports);
	free(f->port0);
	free(f->guid);
	free(f->sysimg_guid);
	free(f->vendid);
	free(f->devid);
	free(f->name_off);
	free(f->desc_off);
	free(f->strtab);
	free(f->owner);
	free(f->peer);
	free(f->port_guid);
	free(f->lid);
	free(f->lmc);
	free(f->oper_vls);
	free(f->lid_port);
	kr_index_free(&f->guids);
	kr_index_free(&f->port_guids);
	*f = (struct kr_fabric){ 0 };
}

/* The slots that stand for a port to the outside world: a switch's port 0,
 * every port of a CA. Switch ports 1..n share port 0's GUID. */
static bool lid_slot(const struct kr_fabric *f, uint32_t slot)
{
	uint32_t n = f->owner[slot];

	return kr_is_switch(f, n) ? slot == f->port0[n] : slot != f->port0[n];
}

static const char *slot_name(const struct kr_fabric *f, uint32_t slot)
{
	return kr_node_name(f, f->owner[slot]);
}

struct kr_label kr_node_label(const struct kr_fabric *f, uint32_t node)
{
	struct kr_label l;

	if (kr_node_described(f, node))
		snprintf(l.s, sizeof(l.s), "%s \"%s\"", kr_node_name(f, node),
			 kr_node_desc(f, node));
	else
		snprintf(l.s, sizeof(l.s), "%s", kr_node_name(f, node));
	return l;
}

struct kr_label kr_port_label(const struct kr_fabric *f, uint32_t slot)
{
	struct kr_label l = kr_node_label(f, f->owner[slot]);
	size_t n = strlen(l.s);

	snprintf(l.s + n, sizeof(l.s) - n, "[%u]", kr_port_num(f, slot));
	return l;
}

/* kr_index_hash_fn of the two GUID indexes. */
static uint32_t node_guid_hash(const void *ctx, uint32_t n)
{
	return kr_hash64(((const struct kr_fabric *)ctx)->guid[n]);
}

static uint32_t port_guid_hash(const void *ctx, uint32_t s)
{
	return kr_hash64(((const struct kr_fabric *)ctx)->port_guid[s]);
}

int fabric_index_guids(struct kr_fabric *f, struct kr_diag *d,
		       uint32_t *bad_node, uint32_t *bad_slot)
{
	*bad_node = *bad_slot = KR_NONE;
	if (kr_index_init(&f->guids, f->nnode) ||
	    kr_index_init(&f->port_guids, f->nport))
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	for (uint32_t n = 0; n < f->nnode; n++) {
		uint32_t prev = kr_node_by_guid(f, f->guid[n]);

		if (prev != KR_NONE) {
			*bad_node = n;
			return kr_fail(d, KR_EPARSE, 0, "duplicate node GUID "
				       "0x%016llx (\"%s\" and \"%s\")",
				       (unsigned long long)f->guid[n],
				       kr_node_name(f, prev), kr_node_name(f, n));
		}
		if (kr_index_add(&f->guids, node_guid_hash(f, n), n,
				 node_guid_hash, f))
			return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t prev;

		if (!lid_slot(f, s) || !f->port_guid[s])
			continue;
		prev = kr_port_by_guid(f, f->port_guid[s]);
		if (prev != KR_NONE) {
			*bad_slot = s;
			return kr_fail(d, KR_EPARSE, 0, "duplicate port GUID "
				       "0x%016llx (\"%s\" and \"%s\")",
				       (unsigned long long)f->port_guid[s],
				       slot_name(f, prev), slot_name(f, s));
		}
		if (kr_index_add(&f->port_guids, port_guid_hash(f, s), s,
				 port_guid_hash, f))
			return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	return KR_OK;
}

uint32_t kr_node_by_guid(const struct kr_fabric *f, uint64_t guid)
{
	for (uint32_t h = kr_hash64(guid);; h++) {
		uint32_t n = kr_index_at(&f->guids, h);

		if (n == KR_NONE || f->guid[n] == guid)
			return n;
	}
}

uint32_t kr_port_by_guid(const struct kr_fabric *f, uint64_t port_guid)
{
	for (uint32_t h = kr_hash64(port_guid);; h++) {
		uint32_t s = kr_index_at(&f->port_guids, h);

		if (s == KR_NONE || f->port_guid[s] == port_guid)
			return s;
	}
}

int kr_fabric_index_lids(struct kr_fabric *f, struct kr_diag *d)
{
	uint32_t bad;

	return kr_fabric_index_lids_at(f, d, &bad);
}

int kr_fabric_index_lids_at(struct kr_fabric *f, struct kr_diag *d, uint32_t *bad)
{
	uint32_t max = 0;

	for (uint32_t s = 0; s < f->nport; s++) {
		uint32_t top = f->lid[s] + (1u << f->lmc[s]) - 1;

		if (!f->lid[s] || !lid_slot(f, s))
			continue;
		*bad = s;
		if (top > KR_LID_UCAST_END)
			return kr_fail(d, KR_EPARSE, 0,
				       "LID %u (LMC %u) of \"%s\" port %u beyond "
				       "the unicast range", f->lid[s], f->lmc[s],
				       slot_name(f, s), kr_port_num(f, s));
		if (f->lid[s] & ((1u << f->lmc[s]) - 1))
			return kr_fail(d, KR_EPARSE, 0,
				       "LID %u of \"%s\" port %u not aligned to "
				       "its LMC %u", f->lid[s], slot_name(f, s),
				       kr_port_num(f, s), f->lmc[s]);
		if (top > max)
			max = top;
	}
	free(f->lid_port);
	f->max_lid = max;
	f->lid_port = malloc((max + 1) * sizeof(*f->lid_port));
	if (!f->lid_port)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	memset(f->lid_port, 0xff, (max + 1) * sizeof(*f->lid_port));
	for (uint32_t s = 0; s < f->nport; s++) {
		if (!f->lid[s] || !lid_slot(f, s))
			continue;
		for (uint32_t l = f->lid[s]; l < f->lid[s] + (1u << f->lmc[s]); l++) {
			uint32_t prev = f->lid_port[l];

			*bad = s;
			if (prev != KR_NONE)
				return kr_fail(d, KR_EPARSE, 0,
					       "LID %u used by \"%s\" port %u and "
					       "\"%s\" port %u", l,
					       slot_name(f, prev), kr_port_num(f, prev),
					       slot_name(f, s), kr_port_num(f, s));
			f->lid_port[l] = s;
		}
	}
	return KR_OK;
}

static uint32_t next_free(const uint8_t *used, uint32_t from, unsigned align,
			  unsigned count)
{
	for (uint32_t l = (from + align - 1) / align * align;
	     l + count - 1 <= KR_LID_UCAST_END; l += align) {
		unsigned i = 0;

		while (i < count && !used[l + i])
			i++;
		if (i == count)
			return l;
	}
	return 0;
}

int kr_fabric_assign_lids(struct kr_fabric *f, unsigned lmc, struct kr_diag *d)
{
	uint8_t *used = calloc(KR_LID_UCAST_END + 1, 1);
	uint32_t next = 1;
	int rc = KR_OK;

	if (!used)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	if (lmc > 7) {
		free(used);
		return kr_fail(d, KR_EINVAL, 0, "LMC %u above 7", lmc);
	}
	used[0] = 1;
	for (uint32_t s = 0; s < f->nport; s++)
		if (f->lid[s] && lid_slot(f, s))
			memset(used + f->lid[s], 1, 1u << f->lmc[s]);
	for (uint32_t s = 0; s < f->nport && !rc; s++) {
		bool sw = kr_is_switch(f, f->owner[s]);
		unsigned width = sw ? 1 : 1u << lmc;
		uint32_t l;

		if (f->lid[s] || !lid_slot(f, s) || (!sw && f->peer[s] < 0))
			continue;
		l = next_free(used, next, width, width);
		if (!l) {
			rc = kr_fail(d, KR_EINVAL, 0, "unicast LIDs exhausted");
			break;
		}
		f->lid[s] = (uint16_t)l;
		f->lmc[s] = sw ? 0 : (uint8_t)lmc;
		memset(used + l, 1, width);
		next = l + width;
	}
	free(used);
	return rc ? rc : kr_fabric_index_lids(f, d);
}
