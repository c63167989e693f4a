/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Just enough JSON for the report: the objects `knsroute faults --json`
 * and `knsroute sim --json` print, read member by member. Values are kept
 * as their text; nested arrays and objects are skipped over whole (the
 * report shows them as they are), so only the outer object's shape is
 * checked closely, and the brackets, strings and escapes inside. */
#include "draw_int.h"

#include <ctype.h>
#include <string.h>

static size_t space(const char *s, size_t i)
{
	while (s[i] && isspace((unsigned char)s[i]))
		i++;
	return i;
}

/* Past the string opening at s[i] ('"'), or 0 when it does not end. */
static size_t string_end(const char *s, size_t i)
{
	for (i++; s[i] && s[i] != '"'; i++)
		if (s[i] == '\\' && !s[++i])
			return 0;
	return s[i] ? i + 1 : 0;
}

/* Past the array or object opening at s[i], or 0 when it does not close
 * in kind. */
static size_t nested_end(const char *s, size_t i)
{
	char stack[64];
	unsigned depth = 0;

	for (; s[i]; i++) {
		if (s[i] == '"') {
			if (!(i = string_end(s, i)))
				return 0;
			i--;
		} else if (s[i] == '[' || s[i] == '{') {
			if (depth == sizeof(stack))
				return 0;
			stack[depth++] = s[i] == '[' ? ']' : '}';
		} else if (s[i] == ']' || s[i] == '}') {
			if (!depth || stack[--depth] != s[i])
				return 0;
			if (!depth)
				return i + 1;
		}
	}
	return 0;
}

/* The value at s[i] into m; past it, or 0 when there is none. */
static size_t value(const char *s, size_t i, struct draw_json_member *m)
{
	size_t end;

	if (s[i] == '"') {
		end = string_end(s, i);
		m->kind = 's';
		m->val = s + i + 1;
		m->nval = end ? (unsigned)(end - i - 2) : 0;
		return end;
	}
	if (s[i] == '[' || s[i] == '{')
		end = nested_end(s, i);
	else
		for (end = i; isalnum((unsigned char)s[end]) ||
		     (s[end] && strchr("+-.", s[end])); end++)
			;
	if (end == i)
		return 0;
	m->kind = s[i] == '[' || s[i] == '{' ? s[i] : 'n';
	m->val = s + i;
	m->nval = (unsigned)(end - i);
	return end;
}

int draw_json_object(const char *s, size_t *at, struct draw_json_member *m,
		     unsigned max)
{
	size_t i = space(s, *at), end;
	unsigned n = 0;

	if (s[i] != '{')
		goto bad;
	i = space(s, i + 1);
	if (s[i] == '}') {
		*at = i + 1;
		return 0;
	}
	for (;;) {
		struct draw_json_member one;

		if (s[i] != '"' || !(end = string_end(s, i)))
			goto bad;
		one.key = s + i + 1;
		one.nkey = (unsigned)(end - i - 2);
		i = space(s, end);
		if (s[i] != ':')
			goto bad;
		i = space(s, i + 1);
		if (!(end = value(s, i, &one)))
			goto bad;
		if (n < max)
			m[n++] = one;
		i = space(s, end);
		if (s[i] == '}')
			break;
		if (s[i] != ',')
			goto bad;
		i = space(s, i + 1);
	}
	*at = i + 1;
	return (int)n;
bad:
	*at = i;
	return -1;
}
