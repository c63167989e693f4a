#include "kr_topo.h"

#include <stdlib.h>

const char *kr_family_name(enum kr_family fam)
{
	switch (fam) {
	case KR_FAMILY_KNS:
		return "kns";
	case KR_FAMILY_TORUS:
		return "torus";
	case KR_FAMILY_MESH:
		return "mesh";
	case KR_FAMILY_NONE:
		break;
	}
	return "none";
}

void kr_topo_free(struct kr_topo *t)
{
	free(t->pos_sw);
	free(t->sw_pos);
	free(t->sw_xdim);
	free(t->sw_xline);
	free(t->xbar);
	free(t->port_dir);
	free(t->ca_slot);
	free(t->missing_link);
	free(t->missing_sw);
	free(t->report);
	*t = (struct kr_topo){ 0 };
}
