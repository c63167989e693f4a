/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reader for infiniband-diags' node-name-map, the file that gives nodes
 * the names an admin knows them by (ibnetdiscover(8), NODE NAME MAP FILE
 * FORMAT; opensm.conf's node_name_map_name):
 *
 *   # comment
 *   0x0008f10400411a08 "SW1  (Rack  3) ISR9024 Voltaire 9024D"
 *
 * A line is a node GUID (strtoull base 0: 0x hex, leading 0 octal, else
 * decimal) and its name, as rdma-core's reader takes them: the name is the
 * text between the first pair of quotes, or unquoted the rest of the line
 * up to a '#'; the first line of a GUID wins; a GUID with no name is no
 * entry. Where that reader takes a broken line quietly, this one names
 * it: a GUID with text glued to it, out of 64-bit range, or an opening
 * quote without its closing one. A named node's description becomes the
 * map's name, so that every report, and every file written from the
 * fabric, carries it; GUIDs the fabric lacks are ignored (a site's map
 * covers all its fabrics). */
#include "kr_io.h"

#include <stdlib.h>
#include <string.h>

#include "parse_net_int.h"

/* The name on a line after its GUID: s is past the GUID. *name is empty
 * when the line names nothing. */
static int line_name(struct span *s, unsigned line, struct span *name,
		     struct kr_diag *d)
{
	skip_ws(s);
	*name = (struct span){ s->p, s->p };
	if (eat(s, '"')) {
		const char *q = memchr(s->p, '"', (size_t)(s->e - s->p));

		if (!q)
			return kr_fail(d, KR_EPARSE, line, "expected a closing "
				       "quote after the name (GUID \"NAME\")");
		*name = (struct span){ s->p, q };
		return KR_OK;
	}
	if (s->p == s->e || *s->p == '#')
		return KR_OK;
	name->e = memchr(s->p, '#', (size_t)(s->e - s->p));
	if (!name->e)
		name->e = s->e;
	while (name->e > name->p && (name->e[-1] == ' ' || name->e[-1] == '\t'))
		name->e--;
	return KR_OK;
}

/* One line into names[node] (first wins); blank and comment lines and
 * GUIDs f lacks leave it alone. */
static int parse_line(const struct kr_fabric *f, struct span s, unsigned line,
		      struct span *names, struct kr_diag *d)
{
	struct span name;
	uint64_t guid;
	uint32_t n;
	int rc;

	drop_cr(&s);
	skip_ws(&s);
	if (s.p == s.e || *s.p == '#')
		return KR_OK;
	if (!get_num(&s, 0, UINT64_MAX, &guid))
		return kr_fail(d, KR_EPARSE, line, "expected a node GUID "
			       "(0x and up to 16 hex digits), then its name in "
			       "quotes");
	if (s.p < s.e && *s.p != ' ' && *s.p != '\t' && *s.p != '#')
		return kr_fail(d, KR_EPARSE, line, "expected a space after the "
			       "GUID, not '%c' (a GUID is at most 16 hex "
			       "digits)", *s.p);
	rc = line_name(&s, line, &name, d);
	if (rc || name.p == name.e)
		return rc;
	n = kr_node_by_guid(f, guid);
	if (n != KR_NONE && !names[n].p)
		names[n] = name;
	return KR_OK;
}

/* The bytes f->strtab holds: past the end of its last string. */
static size_t strtab_len(const struct kr_fabric *f)
{
	size_t len = 0;

	for (uint32_t n = 0; n < f->nnode; n++) {
		size_t a = f->name_off[n] + strlen(kr_node_name(f, n)) + 1;
		size_t b = f->desc_off[n] + strlen(kr_node_desc(f, n)) + 1;

		len = a > len ? a : len;
		len = b > len ? b : len;
	}
	return len;
}

/* The names found become the descriptions, appended to the string table
 * (descriptions are offsets, so nothing else moves). */
static int apply(struct kr_fabric *f, const struct span *names,
		 struct kr_diag *d)
{
	size_t len = strtab_len(f), grow = 0;
	char *tab;

	for (uint32_t n = 0; n < f->nnode; n++)
		if (names[n].p)
			grow += (size_t)(names[n].e - names[n].p) + 1;
	if (!grow)
		return KR_OK;
	if (len + grow > UINT32_MAX)
		return kr_fail(d, KR_EPARSE, 0, "names too long");
	tab = realloc(f->strtab, len + grow);
	if (!tab)
		return kr_fail(d, KR_ENOMEM, 0, "out of memory");
	f->strtab = tab;
	for (uint32_t n = 0; n < f->nnode; n++) {
		size_t k = (size_t)(names[n].e - names[n].p);

		if (!names[n].p)
			continue;
		memcpy(tab + len, names[n].p, k);
		tab[len + k] = '\0';
		f->desc_off[n] = (uint32_t)len;
		len += k + 1;
	}
	return KR_OK;
}

int kr_name_map_parse(const char *buf, size_t len, struct kr_fabric *f,
		      struct kr_diag *d)
{
	struct span *names = calloc((size_t)f->nnode + 1, sizeof(*names));
	const char *p = buf, *end = buf + len;
	unsigned line = 0;
	int rc = names ? KR_OK : kr_fail(d, KR_ENOMEM, 0, "out of memory");

	/* every line is checked before any description changes, so that a
	 * broken map leaves the fabric as it was */
	while (!rc && p < end)
		rc = parse_line(f, next_line(&p, end), ++line, names, d);
	if (!rc)
		rc = apply(f, names, d);
	free(names);
	return rc;
}

int kr_name_map_read(const char *path, struct kr_fabric *f, struct kr_diag *d)
{
	char *buf;
	size_t len;
	int rc = kr_slurp(path, KR_IN_STREAM, &buf, &len, d);

	if (rc)
		return rc;
	rc = kr_name_map_parse(buf, len, f, d);
	free(buf);
	return rc;
}
