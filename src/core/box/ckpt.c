/*
 * ckpt.c - the newest complete checkpoint and the prune list, from
 * directory entries. Pure: no I/O. Rules in ckpt.h and docs/checkpoints.md.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/box/ckpt.h"

static bool ends_with_ci(const char *s, size_t len, const char *suffix)
{
	size_t k = strlen(suffix);

	return len >= k && !strncasecmp(s + len - k, suffix, k);
}

/* Does s[0..len) hold `part` (case-insensitive)? */
static bool contains_ci(const char *s, size_t len, const char *part)
{
	size_t k = strlen(part);

	for (size_t i = 0; i + k <= len; i++)
		if (!strncasecmp(s + i, part, k))
			return true;
	return false;
}

bool ckpt_name_is_temp(const char *name)
{
	static const char *const endings[] = {"~", ".part", ".partial", ".incomplete", ".lock", ".swp"};
	size_t len = strlen(name);
	const char *dot = strrchr(name, '.');

	if (!len || name[0] == '.')
		return true;
	if (contains_ci(name, len, ".tmp") || !strncasecmp(name, "tmp", 3))
		return true;
	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++)
		if (ends_with_ci(name, len, endings[i]))
			return true;
	/* mkstemp's "NAME.XXXXXX": six letters/digits, not all lower case */
	if (dot && strlen(dot + 1) == 6) {
		bool alnum = true, lower = true;
		for (const char *p = dot + 1; *p; p++) {
			alnum = alnum && isalnum((unsigned char)*p);
			lower = lower && islower((unsigned char)*p);
		}
		if (alnum && !lower)
			return true;
	}
	return false;
}

bool ckpt_name_step(const char *name, uint64_t *step)
{
	size_t end = strlen(name), i, start, digits;
	uint64_t v = 0;

	/* strip extensions that contain a letter: ".pt", ".tar.gz", ".h5" */
	for (;;) {
		const char *dot = NULL;
		bool letter = false;
		for (i = end; i > 0; i--)
			if (name[i - 1] == '.') {
				dot = name + i - 1;
				break;
			}
		if (!dot || dot == name || end - (size_t)(dot - name) > 13)
			break;
		for (const char *p = dot + 1; p < name + end; p++)
			letter = letter || isalpha((unsigned char)*p);
		if (!letter)
			break;
		end = (size_t)(dot - name);
	}
	for (i = end; i > 0 && !isdigit((unsigned char)name[i - 1]); i--)
		;
	if (!i)
		return false;
	for (start = i; start > 0 && isdigit((unsigned char)name[start - 1]); start--)
		;
	while (start < i - 1 && name[start] == '0')   /* leading zeros */
		start++;
	digits = i - start;
	if (digits > 19)
		return false;
	for (size_t k = start; k < i; k++)
		v = v * 10 + (uint64_t)(name[k] - '0');
	*step = v;
	return true;
}

size_t ckpt_name_marker_base(const char *name)
{
	size_t len = strlen(name);

	if (ends_with_ci(name, len, ".complete") && len > 9)
		return len - 9;
	if (ends_with_ci(name, len, ".done") && len > 5)
		return len - 5;
	return 0;
}

bool ckpt_is_dir_marker(const char *name)
{
	/* MUST stay in step with docs/checkpoints.md */
	static const char *const markers[] = {
		"COMPLETE", "DONE", ".complete", ".done", ".metadata", "trainer_state.json",
	};

	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
		if (!strcmp(name, markers[i]))
			return true;
	return false;
}

/* Index of the entry named name[0..len), or -1. */
static long find_entry(const struct ckpt_entry *e, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(e[i].name) == len && !strncmp(e[i].name, name, len))
			return (long)i;
	return -1;
}

const char *ckpt_why_name(enum ckpt_why w)
{
	static const char *const t[CKPT_WHY_COUNT] = {
		"none", "no_step", "temp_name", "no_marker", "empty_dir", "empty_file",
	};
	return (unsigned)w < CKPT_WHY_COUNT ? t[w] : "?";
}

bool ckpt_classify(const struct ckpt_entry *e, size_t n, struct ckpt_class *out)
{
	bool marker_mode = false;
	bool *marked = calloc(n ? n : 1, sizeof(*marked));

	for (size_t i = 0; i < n; i++) {
		size_t base = ckpt_name_marker_base(e[i].name);
		long target;

		out[i] = (struct ckpt_class){.kind = CKPT_OTHER, .code = CKPT_WHY_NO_STEP};
		if (ckpt_name_is_temp(e[i].name)) {
			out[i] = (struct ckpt_class){.kind = CKPT_TEMP, .code = CKPT_WHY_TEMP};
			continue;
		}
		if (base && !e[i].is_dir) {
			out[i] = (struct ckpt_class){.kind = CKPT_MARKER, .code = CKPT_WHY_NONE};
			if ((target = find_entry(e, n, e[i].name, base)) >= 0) {
				marker_mode = true;
				if (marked)
					marked[target] = true;
			}
			continue;
		}
		if (e[i].is_dir && e[i].has_marker)
			marker_mode = true;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t step;
		bool marker;

		if (out[i].kind != CKPT_OTHER || !ckpt_name_step(e[i].name, &step))
			continue;
		marker = (e[i].is_dir && e[i].has_marker) || (marked && marked[i]);
		out[i].step = step;
		if (marker) {
			out[i].kind = CKPT_COMPLETE, out[i].code = CKPT_WHY_NONE;
		} else if (marker_mode) {
			out[i].kind = CKPT_TORN;
			out[i].code = CKPT_WHY_NO_MARKER;
		} else if (e[i].empty) {
			out[i].kind = CKPT_TORN;
			out[i].code = e[i].is_dir ? CKPT_WHY_EMPTY_DIR : CKPT_WHY_EMPTY_FILE;
		} else {
			out[i].kind = CKPT_COMPLETE, out[i].code = CKPT_WHY_NONE;
		}
	}
	free(marked);
	return marker_mode;
}

/* Is a newer than b? Step, then modification time, then name. */
static bool newer(const struct ckpt_entry *e, const struct ckpt_class *c, size_t a, size_t b)
{
	if (c[a].step != c[b].step)
		return c[a].step > c[b].step;
	if (e[a].mtime_ns != e[b].mtime_ns)
		return e[a].mtime_ns > e[b].mtime_ns;
	return strcmp(e[a].name, e[b].name) > 0;
}

long ckpt_latest(const struct ckpt_entry *e, size_t n)
{
	struct ckpt_class *c = calloc(n ? n : 1, sizeof(*c));
	long best = -1;

	if (!c)
		return -1;
	ckpt_classify(e, n, c);
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == CKPT_COMPLETE && (best < 0 || newer(e, c, i, (size_t)best)))
			best = (long)i;
	free(c);
	return best;
}

/* qsort context: C has no qsort_r in C17, so sort indices by insertion. */
static void sort_newest_first(const struct ckpt_entry *e, const struct ckpt_class *c,
			      size_t *idx, size_t m)
{
	for (size_t i = 1; i < m; i++) {
		size_t v = idx[i], j = i;
		while (j > 0 && newer(e, c, v, idx[j - 1])) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

size_t ckpt_prune(const struct ckpt_entry *e, size_t n, size_t keep, size_t *victims)
{
	struct ckpt_class *c = calloc(n ? n : 1, sizeof(*c));
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	size_t m = 0, nv = 0;
	uint64_t newest = 0;

	if (!c || !idx || keep < 1)
		goto out_free;
	ckpt_classify(e, n, c);
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == CKPT_COMPLETE)
			idx[m++] = i;
	if (!m)
		goto out_free;
	sort_newest_first(e, c, idx, m);
	newest = c[idx[0]].step;
	for (size_t k = keep; k < m; k++) {
		size_t len = strlen(e[idx[k]].name);
		victims[nv++] = idx[k];
		/* its sibling markers go with it */
		for (size_t i = 0; i < n; i++)
			if (c[i].kind == CKPT_MARKER && ckpt_name_marker_base(e[i].name) == len &&
			    !strncmp(e[i].name, e[idx[k]].name, len))
				victims[nv++] = i;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].kind == CKPT_TORN && c[i].step < newest)
			victims[nv++] = i;
		/* the atomic protocol's own temp files (".NAME.tmp.XXXXXX") older
		 * than the newest complete checkpoint: a writer killed mid-write */
		else if (c[i].kind == CKPT_TEMP && e[i].name[0] == '.' && strstr(e[i].name, ".tmp.") &&
			 e[i].mtime_ns < e[idx[0]].mtime_ns)
			victims[nv++] = i;
	}
out_free:
	free(idx);
	free(c);
	return nv;
}
