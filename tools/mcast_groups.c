/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `knsroute route --mcast-groups FILE`: one group per line,
 *
 *   MLID SL MEMBER...     e.g.  0xc000 0 H-0001 0x0002c90000000102 17
 *
 * members named as for `knsroute path` (node name, node or port GUID, LID);
 * '#' starts a comment. Each group gets the tree the plugin would install
 * (kr_plan_add_group), or a warning when its SL is not one the plan keeps
 * safe for multicast, as the plugin refuses it. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kr_plan.h"

#define MLID_FIRST 0xc000
#define MLID_LAST 0xfffe
/* A group of every one of the 48K unicast LIDs, each named by a GUID,
 * fits with room to spare. */
#define LINE_MAX_GROUP (4u << 20)

/* Words of one line, comment cut off; returns how many (at most max). */
static size_t split_words(char *line, char **word, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	line[strcspn(line, "#\r\n")] = '\0';
	for (char *w = strtok_r(line, " \t", &save); w && n < max;
	     w = strtok_r(NULL, " \t", &save))
		word[n++] = w;
	return n;
}

static int number(const char *s, unsigned long lo, unsigned long hi,
		  unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *s && *s != '-' && !*end && *v >= lo && *v <= hi ? 0 : -1;
}

/* The fabric's names, and the MLIDs the lines so far gave. */
struct groups_seen {
	struct cli_names names;
	uint8_t mlid[(MLID_LAST - MLID_FIRST) / 8 + 1];	/* a bit each */
};

/* One line's group; KR_EINVAL (unsafe SL) only warns. */
static int one_group(char **word, size_t n, const struct kr_fabric *f,
		     struct kr_plan *p, struct kr_diag *d, uint32_t *slot,
		     struct groups_seen *seen)
{
	unsigned long mlid, sl, bit;
	unsigned line = d->line;
	struct kr_mcast_info info;
	int rc;

	if (n < 3)
		return kr_fail(d, KR_EPARSE, d->line, "expected MLID SL MEMBER..., "
			       "got %zu word%s", n, n == 1 ? "" : "s");
	if (number(word[0], MLID_FIRST, MLID_LAST, &mlid))
		return kr_fail(d, KR_EPARSE, d->line, "MLID: expected 0xc000 to "
			       "0xfffe, not \"%s\"", word[0]);
	bit = mlid - MLID_FIRST;
	if (seen->mlid[bit / 8] & 1u << bit % 8)
		return kr_fail(d, KR_EPARSE, d->line, "MLID 0x%04lx given twice",
			       mlid);
	seen->mlid[bit / 8] |= (uint8_t)(1u << bit % 8);
	if (number(word[1], 0, 15, &sl))
		return kr_fail(d, KR_EPARSE, d->line, "SL: expected 0 to 15, not "
			       "\"%s\"", word[1]);
	for (size_t i = 2; i < n; i++) {
		unsigned lid;
		int found = cli_resolve_port(f, &seen->names, word[i],
					     &slot[i - 2], &lid);

		if (found == -2)
			return kr_fail(d, KR_EPARSE, d->line, "member \"%s\": "
				       "several nodes have that description; "
				       "name one by GUID", word[i]);
		if (found)
			return kr_fail(d, KR_EPARSE, d->line, "member \"%s\": no "
				       "node, GUID or LID of the topology with a "
				       "LID", word[i]);
	}
	rc = kr_plan_add_group(f, p, (unsigned)mlid, (unsigned)sl, slot, n - 2,
			       &info, d);
	d->line = line;
	if (rc == KR_EINVAL) {
		cli_say("%s:%u: warning: %s; no tree written", d->file, line,
			d->msg);
		return KR_OK;
	}
	if (!rc)
		printf("multicast: MLID 0x%04lx SL %lu: %u members, %u switches, "
		       "%u tree links%s\n", mlid, sl, info.members, info.switches,
		       info.links, info.parts > 1 ? " (members in several "
		       "components: a tree in each)" : "");
	return rc;
}

int cli_mcast_groups(const char *path, const struct kr_fabric *f,
		     struct kr_plan *p)
{
	struct kr_diag d = { .file = path };
	struct groups_seen *seen = calloc(1, sizeof(*seen));
	char *line = malloc(LINE_MAX_GROUP), **word = NULL;
	uint32_t *slot = NULL;
	FILE *in;
	int rc = kr_input_open(path, KR_IN_STREAM, &in, &d);

	if (!rc && (!seen || !line || cli_names_init(&seen->names, f)))
		rc = kr_fail(&d, KR_ENOMEM, 0, "out of memory");
	while (!rc && (rc = kr_input_line(in, line, LINE_MAX_GROUP, ++d.line,
					  &d)) > 0) {
		size_t max = strlen(line) / 2 + 1, n;

		char **w = realloc(word, max * sizeof(*word));
		uint32_t *s = w ? realloc(slot, max * sizeof(*slot)) : NULL;

		word = w ? w : word;
		slot = s ? s : slot;
		if (!w || !s) {
			rc = kr_fail(&d, KR_ENOMEM, 0, "out of memory");
			break;
		}
		n = split_words(line, word, max);
		rc = n ? one_group(word, n, f, p, &d, slot, seen) : KR_OK;
	}
	if (in)
		fclose(in);
	free(line);
	free(word);
	free(slot);
	if (seen)
		cli_names_free(&seen->names);
	free(seen);
	return rc ? cli_error(&d) : 0;
}
