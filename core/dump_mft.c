/* Multicast forwarding tables as files.
 *
 * OpenSM's opensm.mcfdbs lists, for every switch in its GUID map order that
 * has any MFT entry, a header naming the switch and one line per MLID with
 * the ports of its mask, ascending. Switches and MLIDs without ports are
 * left out, so an empty fabric gives an empty file. */
#include "kr_dump.h"

#include <inttypes.h>
#include <stdlib.h>

static void write_switch(FILE *out, const struct kr_fabric *f,
			 const struct kr_tables *t, uint32_t sw)
{
	int header = 0;

	for (size_t i = 0; i < t->nmgroup; i++) {
		const uint64_t *mask = t->mgroup[i].ports +
				       (size_t)sw * KR_MCAST_WORDS;
		int line = 0;

		for (unsigned w = 0; w < KR_MCAST_WORDS; w++)
			for (uint64_t bits = mask[w]; bits; bits &= bits - 1) {
				if (!header)
					fprintf(out, "\nSwitch 0x%016" PRIx64
						"\nLID    : Out Port(s)\n",
						f->guid[sw]);
				if (!line)
					fprintf(out, "0x%04X :",
						t->mgroup[i].mlid);
				header = line = 1;
				fprintf(out, " 0x%03X ",
					w * 64 + __builtin_ctzll(bits));
			}
		if (line)
			fputc('\n', out);
	}
}

int kr_mft_write(FILE *out, const struct kr_fabric *f,
		 const struct kr_tables *t)
{
	uint32_t *ids = malloc((f->nsw + 1) * sizeof(*ids)), *order;

	if (!ids)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < f->nsw; i++)
		ids[i] = i;
	order = kr_guid_order(f->guid, ids, f->nsw);
	free(ids);
	if (!order)
		return KR_ENOMEM;
	for (uint32_t i = 0; i < f->nsw; i++)
		write_switch(out, f, t, order[i]);
	free(order);
	return ferror(out) ? KR_EIO : KR_OK;
}
