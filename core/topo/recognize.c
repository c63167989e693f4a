/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Topology recognition: the entry point. A reading of the whole fabric
 * (reading.c); when it leaves switches without a place, a reading
 * without the pendant trees hanging off it (pendant.c); when the
 * coordinates cache's labelling leaves cables without a place, a reading
 * afresh to compare. */
#include "kr_topo.h"

#include <stdlib.h>
#include <string.h>

#include "topo_int.h"

/* Cables between switches that t gives no place (KR_DIR_NONE at both
 * ends), and t's faults: those, missing links and missing switches. */
static uint32_t unplaced(const struct kr_fabric *f, const struct kr_topo *t)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < f->port0[f->nsw]; s++)
		n += f->peer[s] > (int32_t)s &&
		     f->owner[f->peer[s]] < f->nsw &&
		     t->port_dir[s] == KR_DIR_NONE;
	return n;
}

static uint64_t faults(const struct kr_fabric *f, const struct kr_topo *t)
{
	return (uint64_t)unplaced(f, t) + t->nmissing_link + t->nmissing_sw +
	       t->nmissing_sublink + t->nmissing_subsw;
}

/* A coordinates cache outlives a re-cabling (two switches traded every
 * cable): its labelling then leaves healthy cables without a place and
 * counts the grid links they displaced as missing, sweep after sweep,
 * since each rewrites the same cache. Where a reading afresh places every
 * cable with fewer faults, it is taken, and the report says why. */
static int fresher(const struct kr_fabric *f, const struct kr_conf *c,
		   struct kr_topo *t, struct kr_diag *d)
{
	struct kr_conf *fc = malloc(sizeof(*fc));
	struct kr_topo ft;
	struct kr_diag fd = { 0 };
	uint32_t cut = unplaced(f, t);
	char line[300 + KR_CONF_PATH], *r;
	size_t len;
	int rc;

	if (!fc)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	*fc = *c;
	fc->coords_cache[0] = '\0';
	rc = topo_recognize_whole(f, fc, &ft, &fd);
	free(fc);
	if (rc || unplaced(f, &ft) || faults(f, &ft) >= faults(f, t)) {
		kr_topo_free(&ft);
		return rc == KR_ENOMEM ? kr_fail(d, rc, 0, "out of memory")
				       : KR_OK;
	}
	snprintf(line, sizeof(line), "coords_cache %s not used: its labelling "
		 "leaves %u cables between switches without a place, a reading "
		 "afresh places every one (%llu faults against %llu)\n",
		 c->coords_cache, cut, (unsigned long long)faults(f, &ft),
		 (unsigned long long)faults(f, t));
	len = strlen(line) + (ft.report ? strlen(ft.report) : 0) + 1;
	if (!(r = malloc(len))) {
		kr_topo_free(&ft);
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	}
	snprintf(r, len, "%s%s", line, ft.report ? ft.report : "");
	free(ft.report);
	ft.report = r;
	kr_topo_free(t);
	*t = ft;
	return KR_OK;
}

/* t, the whole fabric's reading (rc_whole its code, t freed when it
 * failed), replaced by the reading of the fabric without its pendant trees
 * (pendant.c, two_homed.c) when that one has fewer faults; the code to
 * return. */
static int pendants(const struct kr_fabric *f, const struct kr_conf *c,
		    struct kr_topo *t, struct kr_diag *d, int rc_whole)
{
	uint32_t *parent = malloc(((size_t)f->nsw + 1) * sizeof(*parent));
	struct kr_fabric core = { 0 };
	struct kr_topo ct = { 0 }, grafted;
	uint64_t score = rc_whole ? UINT64_MAX : pendant_faults(t);
	uint32_t npeeled = parent ? pendant_peel(f, parent) : 0;
	int rc = parent ? pendant_judge(f, c, parent, &npeeled, 0, &score, &core, &ct)
		 : KR_ENOMEM;

	if (rc == KR_ETOPO) {	/* judge may have put some back */
		npeeled = pendant_peel(f, parent);
		rc = pendant_two_homed(f, c, parent, &npeeled, &score, &core, &ct);
	} else if (rc == KR_OK &&	/* a two-homed leaf may read better */
		   pendant_two_homed(f, c, parent, &npeeled, &score, &core, &ct) ==
		   KR_ENOMEM) {
		rc = KR_ENOMEM;
	}
	if (rc) {
		free(parent);
		return rc == KR_ENOMEM ? kr_fail(d, rc, 0, "out of memory")
		       : rc_whole;
	}
	rc = pendant_graft(f, &core, &ct, parent, &grafted);
	kr_fabric_free(&core);
	if (rc) {
		free(parent);
		return kr_fail(d, rc, 0, "out of memory");
	}
	kr_topo_free(t);
	*t = grafted;
	pendant_note(f, t);
	return KR_OK;
}

int kr_topo_recognize(const struct kr_fabric *f, const struct kr_conf *c,
		      struct kr_topo *t, struct kr_diag *d)
{
	struct kr_diag scratch = { 0 };
	int rc;

	if (!d)
		d = &scratch;
	rc = topo_recognize_whole(f, c, t, d);
	if (!rc && c && c->coords_cache[0] && !c->coords_file[0] &&
	    unplaced(f, t))
		rc = fresher(f, c, t, d);
	if (rc == KR_ENOMEM || rc == KR_EPARSE || rc == KR_EIO ||
	    (!rc && !t->nmissing_sw && !t->nmissing_link &&
	     !t->nmissing_subsw && !t->nmissing_sublink))
		return rc;
	return pendants(f, c, t, d, rc);
}
