/*
 * names.c - name normalisation and "did you mean" suggestions (names.h).
 */
#include "core/text/names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

/* Is c a byte names_norm() drops? */
static bool names_sep(unsigned char c)
{
	return c == ' ' || c == '-' || c == '_' || c == '.' || c == '/';
}

char *names_norm(const char *s, char *out, size_t n)
{
	size_t j = 0;

	if (!n)
		return out;
	for (; *s && j + 1 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (names_sep(c))
			continue;
		out[j++] = (char)tolower(c);
	}
	out[j] = '\0';
	return out;
}

char *names_norm_n(const char *s, size_t len, char *out, size_t n)
{
	size_t j = 0;

	if (!n)
		return out;
	for (size_t i = 0; i < len && j + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (names_sep(c))
			continue;
		out[j++] = (char)tolower(c);
	}
	out[j] = '\0';
	return out;
}

char *names_family(const char *name, char *out, size_t n)
{
	static const char *const prefixes[] = {"NVIDIA ", "GeForce ", "AMD ", "Instinct ", "Google "};
	char tmp[128];
	size_t k = 0;
	bool again = true;

	while (again) {
		again = false;
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
			if (!strncmp(name, prefixes[i], strlen(prefixes[i]))) {
				name += strlen(prefixes[i]);
				again = true;
			}
	}
	while (*name && k + 1 < sizeof(tmp)) {
		bool digit = false;
		while (*name == ' ' || *name == '-' || *name == '_')
			name++;
		while (*name && *name != ' ' && *name != '-' && *name != '_' && k + 1 < sizeof(tmp)) {
			digit |= isdigit((unsigned char)*name) != 0;
			tmp[k++] = *name++;
		}
		if (digit)
			break;
	}
	tmp[k] = '\0';
	return names_norm(tmp, out, n);
}

bool names_norm_eq(const char *norm, const char *s, size_t len)
{
	size_t j = 0;

	/* names_norm() keeps at most 255 bytes: so does the comparison */
	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (names_sep(c))
			continue;
		if (j == 255)
			break;
		if (norm[j] != (char)tolower(c))
			return false;
		j++;
	}
	return norm[j] == '\0';
}

bool names_equal(const char *a, const char *b)
{
	char na[256];

	return names_norm_eq(names_norm(a, na, sizeof(na)), b, SIZE_MAX);
}

bool names_norm_in_list(const char *norm, const char *list)
{
	while (*list) {
		size_t len = strcspn(list, "|");
		if (len && len < 256 && names_norm_eq(norm, list, len))
			return true;
		list += len;
		if (*list == '|')
			list++;
	}
	return false;
}

bool names_in_list(const char *needle, const char *list)
{
	char nn[256];

	return names_norm_in_list(names_norm(needle, nn, sizeof(nn)), list);
}

int names_each(const char *list, int (*fn)(const char *item, size_t len, int pos, void *ctx), void *ctx)
{
	int pos = 0, rc;

	while (list && *list) {
		size_t len = strcspn(list, ","), a = 0, b = len;
		while (a < b && (list[a] == ' ' || list[a] == '\t'))
			a++;
		while (b > a && (list[b - 1] == ' ' || list[b - 1] == '\t'))
			b--;
		if (b > a && (rc = fn(list + a, b - a, pos++, ctx)))
			return rc;
		list += len + (list[len] == ',');
	}
	return 0;
}

size_t names_distance(const char *a, const char *b)
{
	char na[128], nb[128];
	size_t la, lb, prev[128], cur[128];

	names_norm(a, na, sizeof(na));
	names_norm(b, nb, sizeof(nb));
	la = strlen(na);
	lb = strlen(nb);
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t sub = prev[j - 1] + (na[i - 1] != nb[j - 1]);
			size_t m = del < ins ? del : ins;
			cur[j] = m < sub ? m : sub;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

void names_suggest_init(struct names_suggest *s, const char *needle)
{
	s->needle = needle;
	s->best[0] = '\0';
	s->best_dist = (size_t)-1;
}

void names_suggest_add(struct names_suggest *s, const char *candidate)
{
	char nn[128];
	size_t d = names_distance(s->needle, candidate);
	size_t len = strlen(names_norm(s->needle, nn, sizeof(nn)));
	/* Close enough: at most a third of the typed name differs (min 2). */
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	if (d <= limit && d < s->best_dist && strlen(candidate) < sizeof(s->best)) {
		memcpy(s->best, candidate, strlen(candidate) + 1);
		s->best_dist = d;
	}
}

void names_suggest_add_list(struct names_suggest *s, const char *list)
{
	char item[128];

	while (*list) {
		size_t len = strcspn(list, "|");
		if (len && len < sizeof(item)) {
			memcpy(item, list, len);
			item[len] = '\0';
			names_suggest_add(s, item);
		}
		list += len;
		if (*list == '|')
			list++;
	}
}
