/*
 * manifest.c - manifests in memory, their three file formats, and the
 * comparison behind `gpurent verify` (manifest.h). The formats are
 * described in docs/manifest.md; names are escaped exactly as coreutils'
 * sha256sum escapes them, so any byte but NUL survives a round trip.
 * This file holds, renders and compares manifests; reading the three
 * formats is in manifest_parse.c.
 */
#include "core/files/manifest.h"
#include "base/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/files/manifest_int.h"
#include "base/util.h"
#include "base/i18n.h"

void manifest_init(struct manifest *m, enum mf_format f, enum hash_algo a)
{
	memset(m, 0, sizeof(*m));
	m->format = f;
	m->algo = a;
	m->has_sizes = f == MF_GPURENT || f == MF_HASHDEEP;
}

void manifest_free(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

struct mf_entry *manifest_add(struct manifest *m, const char *path, size_t len,
			      enum mf_kind kind, uint64_t size)
{
	struct mf_entry *e;
	char *p;

	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct mf_entry *nv = realloc(m->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		m->v = nv;
		m->cap = ncap;
	}
	if (!(p = malloc(len + 1)))
		return NULL;
	memcpy(p, path, len);
	p[len] = '\0';
	e = &m->v[m->n++];
	memset(e, 0, sizeof(*e));
	e->path = p;
	e->kind = (unsigned char)kind;
	e->size = size;
	return e;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct mf_entry *)a)->path, ((const struct mf_entry *)b)->path);
}

void manifest_sort(struct manifest *m)
{
	/* the walk hands its entries over sorted: one pass says so */
	for (size_t i = 1; i < m->n; i++)
		if (cmp_entry(&m->v[i - 1], &m->v[i]) > 0) {
			qsort(m->v, m->n, sizeof(m->v[0]), cmp_entry);
			return;
		}
}

long manifest_find(const struct manifest *m, const char *path)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->v[mid].path, path);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const char *const format_names[] = {"gpurent", "sha256sum", "hashdeep", "bsd"};

const char *manifest_format_name(enum mf_format f)
{
	return format_names[f];
}

int manifest_parse_format(const char *s, enum mf_format *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcasecmp(s, format_names[i])) {
			*out = (enum mf_format)i;
			return 0;
		}
	return -1;
}

bool manifest_records_symlinks(const struct manifest *m)
{
	return m->format == MF_GPURENT && !m->follow_symlinks;
}

void manifest_totals(const struct manifest *m, struct mf_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].kind == MF_FILE) {
			t->files++;
			/* saturate: a parsed manifest holds at most MF_MAX_BYTES */
			t->bytes = m->v[i].size > UINT64_MAX - t->bytes ? UINT64_MAX : t->bytes + m->v[i].size;
		} else if (m->v[i].kind == MF_SYMLINK) {
			t->symlinks++;
		}
	}
}

bool manifest_escapes(enum mf_format f, enum hash_algo a)
{
	return f != MF_HASHDEEP && !(f != MF_GPURENT && hash_is_xxh(a));
}

bool manifest_path_fits(enum mf_format f, enum hash_algo a, const char *path)
{
	size_t n = strlen(path);

	if (f == MF_HASHDEEP)
		return !strpbrk(path, "\n\r");
	if (!manifest_escapes(f, a))
		return !strchr(path, '\n') && !(n && path[n - 1] == '\r');
	return true;
}

static bool needs_escape(const char *path)
{
	return strpbrk(path, "\\\n\r") != NULL;
}

bool manifest_escape(const char *path, char *out, size_t n)
{
	bool any = false;
	size_t o = 0;

	if (!n)
		return needs_escape(path);
	for (const char *s = path; *s; s++) {
		char two[2] = {*s, 0};
		size_t k = 1;
		if (*s == '\\' || *s == '\n' || *s == '\r') {
			two[0] = '\\';
			two[1] = *s == '\\' ? '\\' : *s == '\n' ? 'n' : 'r';
			k = 2;
			any = true;
		}
		if (o + k >= n)
			break;
		memcpy(out + o, two, k);
		o += k;
	}
	out[o] = '\0';
	return any || needs_escape(path);
}

/* ---- rendering ---- */

/* The name, escaped when needed (the caller has put the leading '\\'). */
/* v in decimal, as %" PRIu64 " writes it. */
static void sb_u64(struct strbuf *b, uint64_t v)
{
	char d[24];
	size_t i = sizeof(d);

	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	strbuf_add(b, d + i, sizeof(d) - i);
}

static void sb_path(struct strbuf *b, const char *path, bool escaped)
{
	const char *s, *run;

	if (!escaped) {
		strbuf_addstr(b, path);
		return;
	}
	for (run = s = path; *s; s++) {
		const char *rep = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
		if (!rep)
			continue;
		strbuf_add(b, run, (size_t)(s - run));
		strbuf_add(b, rep, 2);
		run = s + 1;
	}
	strbuf_add(b, run, (size_t)(s - run));
}

/* A comment line for hashdeep's header: newlines would end it early. */
static void sb_comment(struct strbuf *b, const char *lead, const char *text)
{
	strbuf_addstr(b, lead);
	for (const char *s = text; *s; s++)
		strbuf_add(b, *s == '\n' || *s == '\r' ? "?" : s, 1);
	strbuf_addstr(b, "\n");
}

int manifest_render(const struct manifest *m, const char *invoked_from, const char *command,
		    char **out, size_t *len, char *err, size_t errlen)
{
	struct strbuf b = STRBUF_INIT;
	struct mf_totals t;
	size_t hn = hash_size(m->algo);
	char hex[HASH_MAX_HEX + 1];

	bool escapes = manifest_escapes(m->format, m->algo);
	/* xxhsum 0.8.1 reads 16 hex digits as XXH64: it writes XXH3-64 as tag lines only */
	bool tag = m->format == MF_BSD || (m->format == MF_SHA256SUM && m->algo == HASH_XXH3_64);

	if (m->format == MF_HASHDEEP && m->algo != HASH_SHA256 && m->algo != HASH_SHA1 &&
	    m->algo != HASH_MD5) {
		snprintf(err, errlen, _("the hashdeep format holds md5, sha1 or sha256 here, not %s"),
			 hash_name(m->algo));
		return -1;
	}
	manifest_totals(m, &t);
	if (m->format == MF_GPURENT) {
		strbuf_addf(&b, "%s %d\n", GPURENT_MAGIC, GPURENT_VERSION_NUM);
		strbuf_addf(&b, "# hash: %s\n", hash_name(m->algo));
		strbuf_addf(&b, "# follow-symlinks: %s\n", m->follow_symlinks ? "yes" : "no");
		strbuf_addf(&b, "# files: %" PRIu64 "\n", t.files);
		strbuf_addf(&b, "# symlinks: %" PRIu64 "\n", t.symlinks);
		strbuf_addf(&b, "# bytes: %" PRIu64 "\n", t.bytes);
	} else if (m->format == MF_HASHDEEP) {
		strbuf_addstr(&b, HASHDEEP_MAGIC "\n");
		strbuf_addf(&b, "%%%%%%%% size,%s,filename\n", hash_name(m->algo));
		if (invoked_from)
			sb_comment(&b, "## Invoked from: ", invoked_from);
		if (command)
			sb_comment(&b, "## $ ", command);
		strbuf_addstr(&b, "## \n");
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct mf_entry *e = &m->v[i];
		bool esc = escapes && needs_escape(e->path);

		if (!(e->kind == MF_FILE || (e->kind == MF_SYMLINK && m->format == MF_GPURENT)))
			continue;
		if (!e->has_hash) {
			snprintf(err, errlen, _("%s: no hash computed"), e->path);
			goto out_fail;
		}
		hash_to_hex(e->hash, hn, hex);
		switch (m->format) {
		case MF_GPURENT:   /* "[\\]f SIZE HEX PATH": by hand, the hot loop of a big tree */
			if (esc)
				strbuf_add(&b, "\\", 1);
			strbuf_add(&b, e->kind == MF_SYMLINK ? "l " : "f ", 2);
			sb_u64(&b, e->size);
			strbuf_add(&b, " ", 1);
			strbuf_add(&b, hex, 2 * hn);
			strbuf_add(&b, " ", 1);
			sb_path(&b, e->path, esc);
			break;
		case MF_SHA256SUM:
		case MF_BSD:
			if (!manifest_path_fits(m->format, m->algo, e->path)) {
				snprintf(err, errlen, _("a name with a newline (or ending in a carriage "
					 "return) cannot be written in xxhsum's format (xxhsum 0.8.1 does "
					 "not escape names; use the gpurent format)"));
				goto out_fail;
			}
			if (tag) {
				strbuf_addf(&b, "%s%s (", esc ? "\\" : "", hash_tag(m->algo));
				sb_path(&b, e->path, esc);
				strbuf_addf(&b, ") = %s", hex);
			} else {
				if (esc)
					strbuf_add(&b, "\\", 1);
				strbuf_add(&b, hex, 2 * hn);
				strbuf_add(&b, "  ", 2);
				sb_path(&b, e->path, esc);
			}
			break;
		case MF_HASHDEEP:
			if (!manifest_path_fits(MF_HASHDEEP, m->algo, e->path)) {
				snprintf(err, errlen, _("a name with a newline or carriage return cannot be "
					 "written in the hashdeep format (use gpurent or sha256sum)"));
				goto out_fail;
			}
			strbuf_addf(&b, "%" PRIu64 ",%s,./", e->size, hex);
			strbuf_addstr(&b, e->path);
			break;
		}
		strbuf_add(&b, "\n", 1);
	}
	if (b.oom || !b.p) {
		if (!b.oom) {
			/* An empty sha256sum manifest is an empty file. */
			if (!(b.p = calloc(1, 1)))
				goto out_oom;
			*out = b.p;
			*len = 0;
			return 0;
		}
		goto out_oom;
	}
	*out = b.p;
	*len = b.len;
	return 0;
out_oom:
	snprintf(err, errlen, _("out of memory"));
out_fail:
	free(b.p);
	return -1;
}

/* ---- comparing ---- */

static const char *const problem_names[] = {
	"missing", "extra", "size-changed", "content-changed", "unreadable",
};

const char *manifest_problem_name(enum mf_problem p)
{
	return problem_names[p];
}

size_t manifest_plan(const struct manifest *want, const struct manifest *have, size_t *idx)
{
	size_t i = 0, j = 0, k = 0;

	while (i < want->n && j < have->n) {
		int c = strcmp(want->v[i].path, have->v[j].path);
		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			const struct mf_entry *w = &want->v[i], *h = &have->v[j];
			if (w->kind == MF_FILE && h->kind == MF_FILE &&
			    (!want->has_sizes || w->size == h->size))
				idx[k++] = j;
			i++;
			j++;
		}
	}
	return k;
}

static int issue(struct mf_diff *d, enum mf_problem what, const struct mf_entry *w,
		 const struct mf_entry *h)
{
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;
		struct mf_issue *nv = realloc(d->v, ncap * sizeof(*nv));
		if (!nv)
			return -1;
		d->v = nv;
		d->cap = ncap;
	}
	d->v[d->n].what = what;
	d->v[d->n].want = w;
	d->v[d->n].have = h;
	d->n++;
	d->count[what]++;
	return 0;
}

/* Whether path lies under dir (a directory entry of the walk). */
static bool under(const char *path, const char *dir)
{
	size_t k = strlen(dir);

	return !strncmp(path, dir, k) && path[k] == '/';
}

/* Index in dirs of the unreadable directory of have that path lies under, or -1. */
static long unreadable_dir(const struct manifest *have, const size_t *dirs, size_t ndirs,
			   const char *path)
{
	for (size_t i = 0; i < ndirs; i++)
		if (under(path, have->v[dirs[i]].path))
			return (long)i;
	return -1;
}

/* Recorded and present: what, if anything, differs. -1 when they match. */
static int judge(const struct manifest *want, const struct mf_entry *w, const struct mf_entry *h,
		 bool quick)
{
	if (h->kind == MF_UNREADABLE || h->kind == MF_OTHER || h->kind == MF_DIR_UNREADABLE)
		return MF_UNREADABLE_FILE;
	if (w->kind != h->kind)
		return MF_CONTENT_CHANGED;
	if (want->has_sizes && w->size != h->size)
		return w->kind == MF_FILE ? MF_SIZE_CHANGED : MF_CONTENT_CHANGED;
	if (quick && w->kind == MF_FILE)
		return -1;
	if (!h->has_hash)
		return MF_UNREADABLE_FILE;
	return memcmp(w->hash, h->hash, hash_size(want->algo)) ? MF_CONTENT_CHANGED : -1;
}

int manifest_compare(const struct manifest *want, const struct manifest *have, bool quick,
		     struct mf_diff *d)
{
	bool links = manifest_records_symlinks(want);
	size_t i = 0, j = 0, ndirs = 0, *dirs = NULL;
	bool *dir_used = NULL;

	memset(d, 0, sizeof(*d));
	d->expected = want->n;
	for (size_t k = 0; k < have->n; k++)
		ndirs += have->v[k].kind == MF_DIR_UNREADABLE;
	if (ndirs) {
		/* Directories that could not be listed, and whether anything recorded lies inside. */
		dirs = malloc(ndirs * sizeof(*dirs));
		dir_used = calloc(ndirs, sizeof(*dir_used));
		if (!dirs || !dir_used)
			goto out_oom;
		ndirs = 0;
		for (size_t k = 0; k < have->n; k++)
			if (have->v[k].kind == MF_DIR_UNREADABLE)
				dirs[ndirs++] = k;
		for (size_t k = 0; k < want->n; k++) {
			long u = unreadable_dir(have, dirs, ndirs, want->v[k].path);
			if (u >= 0)
				dir_used[u] = true;
		}
	}
	while (i < want->n || j < have->n) {
		int c = i == want->n ? 1 : j == have->n ? -1 : strcmp(want->v[i].path, have->v[j].path);
		const struct mf_entry *w = c <= 0 ? &want->v[i] : NULL;
		const struct mf_entry *h = c >= 0 ? &have->v[j] : NULL;
		int what = -1;

		if (w && h) {
			what = judge(want, w, h, quick);
			if (what < 0) {
				d->matched++;
				d->matched_bytes += w->kind == MF_FILE ? h->size : 0;
			}
		} else if (w) {
			long u = unreadable_dir(have, dirs, ndirs, w->path);
			what = MF_MISSING;
			if (u >= 0) {
				/* Inside a directory that could not be listed: not known to be gone. */
				what = MF_UNREADABLE_FILE;
				h = &have->v[dirs[u]];
			}
		} else if (h->kind == MF_FILE || h->kind == MF_UNREADABLE ||
			   (h->kind == MF_SYMLINK && links)) {
			what = MF_EXTRA;
		} else if (h->kind == MF_DIR_UNREADABLE) {
			/* Nothing recorded inside, but unrecorded files may hide there. */
			for (size_t k = 0; k < ndirs; k++)
				if (dirs[k] == j && !dir_used[k])
					what = MF_UNREADABLE_FILE;
		}
		if (what >= 0 && issue(d, (enum mf_problem)what, w, h))
			goto out_oom;
		i += c <= 0;
		j += c >= 0;
	}
	free(dirs);
	free(dir_used);
	return 0;
out_oom:
	free(dirs);
	free(dir_used);
	mf_diff_free(d);
	return -1;
}

void mf_diff_free(struct mf_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}
