/*
 * manifest_parse.c - reading a manifest file (manifest_parse(), manifest.h)
 * in any of its formats: gpurent's own, the checksum tools' `HASH  NAME`
 * and BSD `TAG (NAME) = HASH` lines (LF, CRLF or NUL-terminated), and
 * hashdeep's (docs/manifest.md), with the detection of the hash, and the
 * checks on names, sizes, hashes and totals.
 */
#include "core/files/manifest.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/files/manifest_int.h"
#include "base/util.h"
#include "base/i18n.h"

/* ---- parsing ---- */

struct parser {
	const char *fname;
	char *err;
	size_t errlen;
	unsigned long line;
	struct manifest *m;
	char *name;          /* scratch for unescaped names, owned */
	size_t name_cap;
	uint64_t bytes;      /* the sizes so far: at most MF_MAX_BYTES, never wrapped */
	const struct mf_parse_opts *o;   /* borrowed; never NULL */
	bool algo_known;     /* checksum files: the first entry has decided the hash */
	const char *algo_from;           /* what decided it, for messages */
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%lu: %s", p->fname, p->line, msg);
	return -1;
}

/* A short, printable quote of s[0..n) for messages ("..." when cut). */
static const char *quote(const char *s, size_t n, char *buf, size_t size)
{
	size_t o = 0, i;

	for (i = 0; i < n && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (i < n)
		o += (size_t)snprintf(buf + o, size - o, "...");
	buf[o] = '\0';
	return buf;
}

/* Relative, no empty, "." or ".." component, no NUL. */
static bool path_ok(const char *s, size_t n)
{
	size_t start = 0;

	if (!n || s[0] == '/' || memchr(s, '\0', n))
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '/')
			continue;
		size_t k = i - start;
		if (k == 0 || (k == 1 && s[start] == '.') ||
		    (k == 2 && s[start] == '.' && s[start + 1] == '.'))
			return false;
		start = i + 1;
	}
	return true;
}

/* Unescape s[0..n) into p->name (coreutils: \\ \n \r). -1 on a bad escape. */
static int unescape(struct parser *p, const char *s, size_t n, bool escaped, size_t *outlen)
{
	size_t o = 0;

	if (n + 1 > p->name_cap) {
		size_t ncap = n + 1 > 256 ? n + 1 : 256;
		char *nn = realloc(p->name, ncap);
		if (!nn)
			return perr(p, _("out of memory"));
		p->name = nn;
		p->name_cap = ncap;
	}
	for (size_t i = 0; i < n; i++) {
		if (!escaped || s[i] != '\\') {
			p->name[o++] = s[i];
			continue;
		}
		if (++i == n || (s[i] != '\\' && s[i] != 'n' && s[i] != 'r'))
			return perr(p, _("expected \\\\, \\n or \\r after a backslash in an escaped name"));
		p->name[o++] = s[i] == '\\' ? '\\' : s[i] == 'n' ? '\n' : '\r';
	}
	p->name[o] = '\0';
	*outlen = o;
	return 0;
}

/* Add the entry named by p->name[0..n) after checking it. */
static int add_entry(struct parser *p, size_t n, enum mf_kind kind, uint64_t size,
		     const unsigned char *hash)
{
	char q[64];
	struct mf_entry *e;
	const char *s = p->name;

	if (p->m->format != MF_GPURENT)
		while (n > 2 && s[0] == '.' && s[1] == '/') {
			s += 2;
			n -= 2;
		}
	if (!path_ok(s, n))
		return perr(p, _("expected a relative path without empty, '.' or '..' parts, got '%s'%s"),
			    quote(s, n, q, sizeof(q)),
			    n && s[0] == '/' ? " (write the manifest from inside the directory, "
			    "e.g. hashdeep -l -r .)" : "");
	if (kind == MF_FILE) {
		if (size > MF_MAX_BYTES - p->bytes)
			return perr(p, _("size: expected the sizes to add up to at most %" PRIu64
				    " bytes (1 EB), got %" PRIu64 " more after %" PRIu64),
				    (uint64_t)MF_MAX_BYTES, size, p->bytes);
		p->bytes += size;
	}
	if (!(e = manifest_add(p->m, s, n, kind, size)))
		return perr(p, _("out of memory"));
	memcpy(e->hash, hash, hash_size(p->m->algo));
	e->has_hash = true;
	e->line = p->line;
	return 0;
}

/* A decimal number in s[0..n), at most max (never wrapped). */
static int parse_size(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!n || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_hash(struct parser *p, const char *s, size_t n, unsigned char *out)
{
	size_t hn = hash_size(p->m->algo);
	char q[64];

	if (n != 2 * hn || hash_from_hex(s, hn, out))
		return perr(p, _("expected %zu hex digits (%s), got '%s'"), 2 * hn,
			    hash_name(p->m->algo), quote(s, n, q, sizeof(q)));
	return 0;
}

/* Header of the gpurent format: "# KEY: VALUE". */
struct gp_header {
	bool have_hash, have_follow, have_files, have_links, have_bytes;
	uint64_t files, links, bytes;
	unsigned long files_line, links_line, bytes_line;
};

static int gp_header_line(struct parser *p, struct gp_header *h, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n), *key = s + 2, *val;
	size_t klen, vlen;
	char q[64];

	if (n < 2 || s[1] != ' ' || !colon || colon + 1 >= s + n || colon[1] != ' ')
		return perr(p, _("expected a header line '# KEY: VALUE', got '%s'"), quote(s, n, q, sizeof(q)));
	klen = (size_t)(colon - key);
	val = colon + 2;
	vlen = (size_t)(s + n - val);
#define KEY(k) (klen == sizeof(k) - 1 && !memcmp(key, k, klen))
	if (KEY("hash")) {
		char name[32];
		snprintf(name, sizeof(name), "%.*s", (int)(vlen < 31 ? vlen : 31), val);
		if (h->have_hash || p->m->n)
			return perr(p, _("hash: expected once, before the first entry"));
		if (hash_parse_name(name, &p->m->algo) || vlen > 31)
			return perr(p, _("hash: expected xxh3-128, sha256, md5, sha1, sha512, blake2b, "
				    "blake3, xxh32, xxh64 or xxh3-64, got '%s'"),
				    quote(val, vlen, q, sizeof(q)));
		h->have_hash = true;
	} else if (KEY("follow-symlinks")) {
		if (vlen == 3 && !memcmp(val, "yes", 3))
			p->m->follow_symlinks = true;
		else if (vlen == 2 && !memcmp(val, "no", 2))
			p->m->follow_symlinks = false;
		else
			return perr(p, _("follow-symlinks: expected yes or no, got '%s'"),
				    quote(val, vlen, q, sizeof(q)));
		h->have_follow = true;
	} else if (KEY("files") || KEY("symlinks") || KEY("bytes")) {
		uint64_t v, max = KEY("bytes") ? MF_MAX_BYTES : MF_MAX_FILES;
		if (parse_size(val, vlen, max, &v))
			return perr(p, _("%.*s: expected a whole number from 0 to %" PRIu64 ", got '%s'"),
				    (int)klen, key, max, quote(val, vlen, q, sizeof(q)));
		if (KEY("files")) {
			h->have_files = true, h->files = v, h->files_line = p->line;
		} else if (KEY("symlinks")) {
			h->have_links = true, h->links = v, h->links_line = p->line;
		} else {
			h->have_bytes = true, h->bytes = v, h->bytes_line = p->line;
		}
	} else {
		return perr(p, _("unknown header key '%s' (expected hash, follow-symlinks, files, "
			    "symlinks or bytes)"), quote(key, klen, q, sizeof(q)));
	}
#undef KEY
	return 0;
}

/* "[\]f|l SIZE HASH PATH" */
static int gp_entry_line(struct parser *p, const char *s, size_t n)
{
	bool esc = n && s[0] == '\\';
	const char *end = s + n, *sp1, *sp2;
	unsigned char hash[HASH_MAX_BYTES];
	uint64_t size;
	size_t plen;
	char q[64];

	if (esc)
		s++;
	if (end - s < 3 || (s[0] != 'f' && s[0] != 'l') || s[1] != ' ' ||
	    !(sp1 = memchr(s + 2, ' ', (size_t)(end - s - 2))) ||
	    !(sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1))) || sp2 + 1 >= end)
		return perr(p, _("expected an entry 'f|l SIZE HASH PATH', got '%s'"),
			    quote(s, (size_t)(end - s), q, sizeof(q)));
	if (parse_size(s + 2, (size_t)(sp1 - s - 2), MF_MAX_BYTES, &size))
		return perr(p, _("size: expected a size in bytes from 0 to %" PRIu64 " (1 EB), got '%s'"),
			    (uint64_t)MF_MAX_BYTES, quote(s + 2, (size_t)(sp1 - s - 2), q, sizeof(q)));
	if (parse_hash(p, sp1 + 1, (size_t)(sp2 - sp1 - 1), hash))
		return -1;
	if (unescape(p, sp2 + 1, (size_t)(end - sp2 - 1), esc, &plen))
		return -1;
	return add_entry(p, plen, s[0] == 'l' ? MF_SYMLINK : MF_FILE, size, hash);
}

/* ---- the checksum tools' lines ---- */

int manifest_algo_by_length(size_t hexlen, enum hash_algo *out, const char **names)
{
	static const struct {
		size_t hex;
		int n;                  /* how many algorithms write that many digits */
		enum hash_algo a;       /* the one, when n == 1 */
		const char *names;
	} tab[] = {
		{8, 1, HASH_XXH32, "XXH32"},
		{16, 2, HASH_XXH64, "XXH64 or XXH3 (xxhsum -H1, -H3)"},
		{32, 2, HASH_MD5, "MD5 or XXH128 (md5sum, xxhsum -H2)"},
		{40, 1, HASH_SHA1, "SHA1"},
		{64, 3, HASH_SHA256, "SHA256, BLAKE3 or BLAKE2b-256 (sha256sum, b3sum, b2sum -l 256)"},
		{128, 2, HASH_SHA512, "SHA512 or BLAKE2b (sha512sum, b2sum)"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (tab[i].hex == hexlen) {
			*names = tab[i].names;
			if (tab[i].n != 1)
				return 0;
			*out = tab[i].a;
			return 1;
		}
	*names = NULL;
	return -1;
}

int manifest_algo_by_filename(const char *fname, enum hash_algo *out, bool *xxh3_any)
{
	static const struct {
		const char *s;
		bool whole;             /* the whole name, else its last extension */
		enum hash_algo a;
	} tab[] = {
		{"MD5SUMS", true, HASH_MD5}, {"SHA1SUMS", true, HASH_SHA1},
		{"SHA256SUMS", true, HASH_SHA256}, {"SHA512SUMS", true, HASH_SHA512},
		{"B2SUMS", true, HASH_BLAKE2B}, {"B3SUMS", true, HASH_BLAKE3},
		{"md5", false, HASH_MD5}, {"md5sum", false, HASH_MD5},
		{"sha1", false, HASH_SHA1}, {"sha256", false, HASH_SHA256},
		{"sha512", false, HASH_SHA512}, {"b2", false, HASH_BLAKE2B},
		{"blake2b", false, HASH_BLAKE2B}, {"b3", false, HASH_BLAKE3},
		{"blake3", false, HASH_BLAKE3}, {"xxh32", false, HASH_XXH32},
		{"xxh64", false, HASH_XXH64}, {"xxh128", false, HASH_XXH3},
		{"xxh3", false, HASH_XXH3},
	};
	const char *base = fname ? strrchr(fname, '/') : NULL, *dot;

	*xxh3_any = false;
	if (!fname)
		return -1;
	base = base ? base + 1 : fname;
	dot = strrchr(base, '.');
	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (tab[i].whole ? !strcasecmp(base, tab[i].s)
				 : dot && dot > base && !strcasecmp(dot + 1, tab[i].s)) {
			*out = tab[i].a;
			*xxh3_any = !strcasecmp(tab[i].s, "xxh3");
			return 0;
		}
	return -1;
}

/* XXH3-128 or XXH3-64 by the length, for a hint that said "xxh3". */
static enum hash_algo xxh3_by_length(enum hash_algo a, bool any, size_t hexlen)
{
	return any && hexlen == 16 ? HASH_XXH3_64 : any ? HASH_XXH3 : a;
}

/* The first entry of a checksum file: which hash its hexlen digits are. */
static int decide_plain(struct parser *p, size_t hexlen)
{
	enum hash_algo a;
	bool any;
	const char *names, *from;

	if (p->o->algo_set) {
		a = xxh3_by_length(p->o->algo, p->o->xxh3_any, hexlen);
		from = "--hash";
	} else if (!manifest_algo_by_filename(p->fname, &a, &any)) {
		a = xxh3_by_length(a, any, hexlen);
		from = _("the file name");
	} else {
		int r = manifest_algo_by_length(hexlen, &a, &names);
		if (r < 0)
			return perr(p, _("expected a digest of 8, 16, 32, 40, 64 or 128 hex digits "
				    "and a name, got %zu characters before the space"), hexlen);
		if (r == 0)
			return perr(p, _("%zu hex digits could be %s: say which with --hash "
				    "(or name the file *.md5, SHA256SUMS, ...)"), hexlen, names);
		from = _("the digest length");
	}
	p->m->algo = a;
	p->algo_known = true;
	p->algo_from = from;
	if (2 * hash_size(a) != hexlen)
		return perr(p, _("expected %zu hex digits (%s, from %s), got %zu"), 2 * hash_size(a),
			    hash_name(a), from, hexlen);
	return 0;
}

/* The tag of a BSD line decides, or must agree with what did. */
static int decide_tag(struct parser *p, const char *tag, size_t n)
{
	enum hash_algo a;
	char q[64];

	if (hash_parse_tag(tag, n, &a)) {
		if (n > 8 && !memcmp(tag, "BLAKE2b-", 8))
			return perr(p, _("%s: only BLAKE2b-512 (b2sum's default length) is supported "
				    "(OpenSSL 3.0 computes no other length)"), quote(tag, n, q, sizeof(q)));
		return perr(p, _("unknown tag '%s' (expected MD5, SHA1, SHA256, SHA512, BLAKE2b, "
			    "BLAKE3, XXH32, XXH64, XXH128 or XXH3)"), quote(tag, n, q, sizeof(q)));
	}
	if (p->algo_known) {
		if (a != p->m->algo)
			return perr(p, _("a %s line in a file of %s lines: expected one hash in a "
				    "manifest"), hash_tag(a), hash_tag(p->m->algo));
		return 0;
	}
	if (p->o->algo_set && a != p->o->algo &&
	    !(p->o->xxh3_any && (a == HASH_XXH3 || a == HASH_XXH3_64)))
		return perr(p, _("--hash says %s, the line's tag says %s"), hash_name(p->o->algo),
			    hash_tag(a));
	p->m->algo = a;
	p->algo_known = true;
	p->algo_from = _("the tag");
	p->m->format = MF_BSD;
	return 0;
}

/*
 * "[\]HASH  NAME", "[\]HASH *NAME" (binary mode), "[\]TAG (NAME) = HASH"
 * (--tag) and xxhsum 0.8.2's "XXH3_HASH  NAME". Names are unescaped
 * unless the file is NUL-terminated.
 */
static int sum_entry_line(struct parser *p, const char *s, size_t n)
{
	bool esc = !p->m->zero && n && s[0] == '\\';
	const char *end = s + n, *t, *sp, *hex, *name, *name_end;
	unsigned char hash[HASH_MAX_BYTES];
	size_t plen, hexlen;
	char q[64];

	if (esc)
		s++;
	for (t = s; t < end && (isalnum((unsigned char)*t) || *t == '-' || *t == '_'); t++)
		;
	if (t > s && end - t >= 2 && t[0] == ' ' && t[1] == '(') {
		/* the last ") = ": a name may hold one, the digits cannot */
		const char *close = NULL;
		for (const char *c = t + 2; c + 4 <= end; c++)
			if (!memcmp(c, ") = ", 4))
				close = c;
		if (!close)
			return perr(p, _("expected 'TAG (NAME) = HASH' (BSD --tag format), got '%s'"),
				    quote(s, (size_t)(end - s), q, sizeof(q)));
		if (decide_tag(p, s, (size_t)(t - s)))
			return -1;
		name = t + 2;
		name_end = close;
		hex = close + 4;
		hexlen = (size_t)(end - hex);
	} else {
		sp = memchr(s, ' ', (size_t)(end - s));
		if (!sp || end - sp < 3 || (sp[1] != ' ' && sp[1] != '*'))
			return perr(p, _("expected 'HASH  NAME' (sha256sum format) or 'TAG (NAME) = HASH', "
				    "got '%s'"), quote(s, (size_t)(end - s), q, sizeof(q)));
		hex = s;
		hexlen = (size_t)(sp - s);
		if (hexlen > 5 && !memcmp(hex, "XXH3_", 5)) {
			/* xxhsum 0.8.2 writes XXH3-64 so, to tell it from XXH64 */
			if (decide_tag(p, "XXH3", 4))
				return -1;
			hex += 5;
			hexlen -= 5;
		}
		if (!p->algo_known && decide_plain(p, hexlen))
			return -1;
		name = sp + 2;
		name_end = end;
	}
	if (parse_hash(p, hex, hexlen, hash))
		return -1;
	if (unescape(p, name, (size_t)(name_end - name), esc, &plen))
		return -1;
	return add_entry(p, plen, MF_FILE, 0, hash);
}

/* "%%%% size,md5,sha256,filename": which columns hold size and the hash. */
struct hd_cols {
	int ncols, size_col, sha_col;
};

static int hd_columns(struct parser *p, const char *s, size_t n, struct hd_cols *c)
{
	static const enum hash_algo pref[] = {HASH_SHA256, HASH_SHA1, HASH_MD5};  /* strongest first */
	const char *f = s + 5, *end = s + n;
	int col = 0, hcol[ARRAY_SIZE(pref)] = {-1, -1, -1};
	bool fname_last = false;
	char q[64];

	c->size_col = c->sha_col = -1;
	if (n < 6 || memcmp(s, "%%%% ", 5))
		return perr(p, _("expected the hashdeep column line '%%%%%%%% size,sha256,filename'"));
	while (f < end) {
		const char *comma = memchr(f, ',', (size_t)(end - f));
		size_t k = comma ? (size_t)(comma - f) : (size_t)(end - f);
		if (k == 4 && !memcmp(f, "size", 4))
			c->size_col = col;
		for (size_t i = 0; i < ARRAY_SIZE(pref); i++)
			if (k == strlen(hash_name(pref[i])) && !memcmp(f, hash_name(pref[i]), k))
				hcol[i] = col;
		fname_last = k == 8 && !memcmp(f, "filename", 8) && !comma;
		col++;
		f += k + 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(pref) && c->sha_col < 0; i++)
		if (hcol[i] >= 0 && (!p->o->algo_set || p->o->algo == pref[i])) {
			c->sha_col = hcol[i];
			p->m->algo = pref[i];
		}
	if (c->size_col < 0 || c->sha_col < 0 || !fname_last)
		return perr(p, _("expected columns size, %s and filename last, got '%s'"),
			    p->o->algo_set ? hash_name(p->o->algo) : "md5, sha1 or sha256",
			    quote(s + 5, n - 5, q, sizeof(q)));
	c->ncols = col;
	return 0;
}

static int hd_entry_line(struct parser *p, const struct hd_cols *c, const char *s, size_t n)
{
	const char *f = s, *end = s + n, *size_f = NULL, *sha_f = NULL;
	size_t size_n = 0, sha_n = 0, plen;
	unsigned char hash[HASH_MAX_BYTES];
	uint64_t size;
	char q[64];

	for (int col = 0; col < c->ncols - 1; col++) {
		const char *comma = memchr(f, ',', (size_t)(end - f));
		if (!comma)
			return perr(p, _("expected %d comma-separated columns, got '%s'"), c->ncols,
				    quote(s, n, q, sizeof(q)));
		if (col == c->size_col)
			size_f = f, size_n = (size_t)(comma - f);
		if (col == c->sha_col)
			sha_f = f, sha_n = (size_t)(comma - f);
		f = comma + 1;
	}
	if (parse_size(size_f, size_n, MF_MAX_BYTES, &size))
		return perr(p, _("size: expected a size in bytes from 0 to %" PRIu64 " (1 EB), got '%s'"),
			    (uint64_t)MF_MAX_BYTES, quote(size_f, size_n, q, sizeof(q)));
	if (parse_hash(p, sha_f, sha_n, hash))
		return -1;
	if (unescape(p, f, (size_t)(end - f), false, &plen))
		return -1;
	return add_entry(p, plen, MF_FILE, size, hash);
}

static int check_dups(struct parser *p)
{
	for (size_t i = 1; i < p->m->n; i++)
		if (!strcmp(p->m->v[i - 1].path, p->m->v[i].path)) {
			const struct mf_entry *a = &p->m->v[i - 1], *b = &p->m->v[i];
			char q[64];
			p->line = a->line > b->line ? a->line : b->line;
			return perr(p, _("duplicate name '%s' (also on line %lu)"),
				    quote(b->path, strlen(b->path), q, sizeof(q)),
				    a->line < b->line ? a->line : b->line);
		}
	return 0;
}

static int gp_check_totals(struct parser *p, const struct gp_header *h)
{
	struct mf_totals t;

	manifest_totals(p->m, &t);
	if (t.files != h->files) {
		p->line = h->files_line;
		return perr(p, _("files: the header says %" PRIu64 ", the manifest lists %" PRIu64
			    " (truncated or edited?)"), h->files, t.files);
	}
	if (h->have_links && t.symlinks != h->links) {
		p->line = h->links_line;
		return perr(p, _("symlinks: the header says %" PRIu64 ", the manifest lists %" PRIu64),
			    h->links, t.symlinks);
	}
	if (t.bytes != h->bytes) {
		p->line = h->bytes_line;
		return perr(p, _("bytes: the header says %" PRIu64 ", the sizes add up to %" PRIu64),
			    h->bytes, t.bytes);
	}
	return 0;
}

/* Whether buf's lines end in CR LF: every LF follows a CR (and a file of
 * one line without LF counts as such, as before). */
static bool crlf_file(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (nl == buf || nl[-1] != '\r')
			return false;
		p = nl + 1;
	}
	return true;
}

int manifest_parse(const char *buf, size_t len, const char *fname, struct manifest *m,
		   char *err, size_t errlen)
{
	return manifest_parse_opts(buf, len, fname, NULL, m, err, errlen);
}

int manifest_parse_opts(const char *buf, size_t len, const char *fname,
			const struct mf_parse_opts *o, struct manifest *m, char *err, size_t errlen)
{
	static const struct mf_parse_opts none = {0};
	struct parser p = {.fname = fname, .err = err, .errlen = errlen, .m = m, .o = o ? o : &none};
	struct gp_header h = {0};
	struct hd_cols cols = {0};
	size_t pos = 0;
	int rc = -1;
	char sep = '\n';
	bool crlf = false;

	manifest_init(m, MF_SHA256SUM, HASH_SHA256);
	if (len >= sizeof(GPURENT_MAGIC) - 1 && !memcmp(buf, GPURENT_MAGIC, sizeof(GPURENT_MAGIC) - 1)) {
		manifest_init(m, MF_GPURENT, HASH_XXH3);
	} else if (len >= sizeof(HASHDEEP_MAGIC) - 1 &&
		 !memcmp(buf, HASHDEEP_MAGIC, sizeof(HASHDEEP_MAGIC) - 1)) {
		manifest_init(m, MF_HASHDEEP, HASH_SHA256);
	} else {
		/* sha256sum -z: NUL-terminated records, the first one before any newline */
		const char *nul = memchr(buf, '\0', len), *nl = memchr(buf, '\n', len);
		if (nul && (!nl || nul < nl || buf[len - 1] == '\0')) {
			m->zero = true;
			sep = '\0';
		}
	}
	/* CRLF line ends: a file written on Windows, where every line ends in
	 * CR LF (sha256sum -c reads those). b3sum, hashdeep and md5deep write a
	 * name's CR as it is, so in a file where some line ends in a bare LF a
	 * CR before LF is the name's own (verify-cr-name). A one-line file
	 * ending in CR is read as CRLF: nothing tells the two apart there. */
	if (!m->zero)
		crlf = crlf_file(buf, len);
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, sep, len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + 1;
		p.line++;
		if (!m->zero && memchr(s, '\0', n)) {
			perr(&p, _("expected text, found a NUL byte"));
			goto out_fail;
		}
		if (crlf && n && s[n - 1] == '\r')
			n--;   /* CRLF, as sha256sum -c reads it */
		switch (m->format) {
		case MF_GPURENT:
			if (p.line == 1) {
				char want[64];
				snprintf(want, sizeof(want), "%s %d", GPURENT_MAGIC, GPURENT_VERSION_NUM);
				if (n != strlen(want) || memcmp(s, want, n)) {
					perr(&p, _("expected '%s' (this gpurent reads version %d)"), want,
					     GPURENT_VERSION_NUM);
					goto out_fail;
				}
			} else if (n && s[0] == '#') {
				if (gp_header_line(&p, &h, s, n))
					goto out_fail;
			} else {
				if (!h.have_hash || !h.have_files || !h.have_bytes) {
					perr(&p, _("expected the header lines '# hash:', '# files:' and "
					     "'# bytes:' before the first entry"));
					goto out_fail;
				}
				if (gp_entry_line(&p, s, n))
					goto out_fail;
			}
			break;
		case MF_SHA256SUM:
		case MF_BSD:
			if (!n || (s[0] == '#' && !m->zero))
				break;
			if (sum_entry_line(&p, s, n))
				goto out_fail;
			break;
		case MF_HASHDEEP:
			if (p.line == 1) {
				if (n != sizeof(HASHDEEP_MAGIC) - 1) {
					perr(&p, _("expected '%s'"), HASHDEEP_MAGIC);
					goto out_fail;
				}
			} else if (p.line == 2) {
				if (hd_columns(&p, s, n, &cols))
					goto out_fail;
			} else if (n >= 2 && s[0] == '#' && s[1] == '#') {
				/* comment */
			} else if (hd_entry_line(&p, &cols, s, n)) {
				goto out_fail;
			}
			break;
		}
	}
	if (m->format == MF_GPURENT && p.line < 2) {
		p.line = 2;
		perr(&p, _("expected the header lines '# hash:', '# files:' and '# bytes:'"));
		goto out_fail;
	}
	if (m->format == MF_GPURENT && (!h.have_hash || !h.have_files || !h.have_bytes)) {
		p.line++;
		perr(&p, _("expected the header lines '# hash:', '# files:' and '# bytes:'"));
		goto out_fail;
	}
	if (m->format == MF_HASHDEEP && p.line < 2) {
		p.line = 2;
		perr(&p, _("expected the hashdeep column line '%%%%%%%% size,sha256,filename'"));
		goto out_fail;
	}
	if ((m->format == MF_SHA256SUM || m->format == MF_BSD) && !m->n) {
		p.line = p.line ? p.line : 1;
		perr(&p, _("expected a manifest: '# gpurent manifest 1', '%s', 'HASH  NAME' or "
		     "'TAG (NAME) = HASH' lines"), HASHDEEP_MAGIC);
		goto out_fail;
	}
	manifest_sort(m);
	if (check_dups(&p))
		goto out_fail;
	if (m->format == MF_GPURENT && gp_check_totals(&p, &h))
		goto out_fail;
	rc = 0;
	goto out_free_name;
out_fail:
	manifest_free(m);
out_free_name:
	free(p.name);
	return rc;
}
