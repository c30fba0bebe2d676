/*
 * csv.c - RFC 4180 parsing (see csv.h): the one tokenizer, which borrows
 * fields from the buffer (the catalog loader reads millions of rows with
 * it), and on top of it an owned table of strings for the data files.
 * Nothing here knows what the columns mean.
 */
#include "core/text/csv.h"

#include <ctype.h>
#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "core/text/units.h"
#include "base/i18n.h"

static void free_fields(char **f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i]);
	free(f);
}

void csv_free(struct csv *c)
{
	if (!c)
		return;
	free_fields(c->header, c->ncols);
	for (size_t i = 0; i < c->nrows; i++)
		free_fields(c->rows[i].fields, c->rows[i].nfields);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

/* ---- the tokenizer (csv.h) ---- */

#ifdef __SSE2__
/* The set bits of x: the instruction where the build targets it, else
 * SWAR (x86-64's baseline has no popcnt: the builtin would be a call). */
static inline int bits64(uint64_t x)
{
#ifdef __POPCNT__
	return __builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* The 64 bytes at buf[j] as masks (bit k: buf[j + k]): st->sep ',' '\n'
 * '\r', st->eol '\n' '\r', st->quote '"'. */
static inline void load_window(struct csv_scan *st, const char *buf, size_t j)
{
	const __m128i comma = _mm_set1_epi8(','), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
	const __m128i quote = _mm_set1_epi8('"');
	uint64_t q = 0, e = 0, c = 0;

	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + j + 16 * k));
		q |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << (16 * k);
		e |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl),
									_mm_cmpeq_epi8(v, cr))) << (16 * k);
		c |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) << (16 * k);
	}
	st->mbase = j;
	st->sep = c | e;
	st->eol = e;
	st->quote = q;
}
#endif

int csv_scan_record(const char *buf, size_t len, size_t *pos, size_t *line,
		    struct csv_field *f, int maxf, const char **rec_start, size_t *rec_len)
{
	struct csv_scan st = CSV_SCAN_INIT;

	return csv_scan_next(&st, buf, len, pos, line, f, maxf, rec_start, rec_len);
}

int csv_scan_next(struct csv_scan *st, const char *buf, size_t len, size_t *pos, size_t *line,
		  struct csv_field *f, int maxf, const char **rec_start, size_t *rec_len)
{
	size_t i = *pos;
	int n = 0;

	*rec_start = buf + i;
	for (;;) {
		struct csv_field cur = {buf + i, 0, false};
#ifdef __SSE2__
		/* no field left to store: when the record's end is in the window
		 * (64 bytes) with no quote before it, its fields are its commas */
		if (n >= maxf) {
			if ((st->mbase > i || i >= st->mbase + 64) && i + 64 <= len)
				load_window(st, buf, i);
			if (st->mbase <= i && i < st->mbase + 64) {
				unsigned sh = (unsigned)(i - st->mbase);
				uint64_t e = st->eol >> sh, before;
				if (!e && sh && i + 64 <= len) {   /* the end is further: look from here */
					load_window(st, buf, i);
					sh = 0;
					e = st->eol;
				}
				before = (e & -e) - 1;
				if (e && !((st->quote >> sh) & before)) {
					n += bits64((st->sep >> sh) & before) + 1;
					i += (size_t)__builtin_ctzll(e);
					break;
				}
			}
		}
#endif
		if (i < len && buf[i] == '"') {
			size_t j = ++i;
			for (;;) {
				const char *q = memchr(buf + j, '"', len - j);
				if (!q)
					return -1;
				j = (size_t)(q - buf);
				if (j + 1 < len && buf[j + 1] == '"') {
					cur.quoted_escapes = true;
					j += 2;
					continue;
				}
				break;
			}
			cur.p = buf + i;
			cur.len = (uint32_t)(j - i);
			for (const char *nl = memchr(buf + i, '\n', j - i); nl;
			     nl = memchr(nl + 1, '\n', (size_t)(buf + j - nl - 1)))
				(*line)++;   /* newlines inside a quoted field */
			i = j + 1;
			while (i < len && buf[i] != ',' && buf[i] != '\n' && buf[i] != '\r')
				i++;   /* junk after a closing quote is ignored */
		} else {
			size_t j = i;
#ifdef __SSE2__
			/* the separators of 64 bytes at a time, as a bit mask kept
			 * across the record's fields: most fields take one shift */
			for (;;) {
				uint64_t m;
				if (j < st->mbase || j >= st->mbase + 64) {
					if (j + 64 > len)
						break;
					load_window(st, buf, j);
				}
				m = st->sep >> (j - st->mbase);
				if (m) {
					j += (size_t)__builtin_ctzll(m);
					goto found;
				}
				j = st->mbase + 64;
			}
#endif
			while (j < len && buf[j] != ',' && buf[j] != '\n' && buf[j] != '\r')
				j++;
#ifdef __SSE2__
found:
#endif
			cur.len = (uint32_t)(j - i);
			i = j;
		}
		if (n < maxf)
			f[n] = cur;
		n++;
		if (i < len && buf[i] == ',') {
			i++;
			continue;
		}
		break;
	}
	*rec_len = (size_t)(buf + i - *rec_start);
	if (i < len && buf[i] == '\r') {
		i++;
		if (i >= len || buf[i] != '\n')
			(*line)++;   /* a lone CR ends a line too */
	}
	if (i < len && buf[i] == '\n') {
		i++;
		(*line)++;
	}
	*pos = i;
	return n;
}

size_t csv_field_unquote(const struct csv_field *f, char *out)
{
	size_t k = 0;

	for (uint32_t i = 0; i < f->len; i++) {
		out[k++] = f->p[i];
		if (f->quoted_escapes && f->p[i] == '"' && i + 1 < f->len && f->p[i + 1] == '"')
			i++;
	}
	out[k] = '\0';
	return k;
}

/* Parse one record starting at *pos into owned strings (csv_scan_record()
 * splits it); advances *pos and *line. */
static int parse_record(const char *buf, size_t len, size_t *pos, size_t *line,
			char ***fields_out, size_t *n_out, char *err, size_t errlen)
{
	struct csv_field local[64], *f = local;
	size_t start_line = *line, p0 = *pos, l0 = *line, rec_len;
	const char *rec;
	char **fields = NULL;
	int n, k = 0;

	n = csv_scan_record(buf, len, pos, line, f, 64, &rec, &rec_len);
	if (n < 0) {
		snprintf(err, errlen, _("line %zu: unterminated quoted field"), start_line);
		return -1;
	}
	if (n > 64) {   /* a wide record: scan it again into room for every field */
		f = malloc((size_t)n * sizeof(*f));
		if (!f)
			goto out_oom;
		*pos = p0;
		*line = l0;
		csv_scan_record(buf, len, pos, line, f, n, &rec, &rec_len);
	}
	fields = calloc((size_t)n, sizeof(*fields));
	if (!fields)
		goto out_oom;
	for (k = 0; k < n; k++) {
		fields[k] = malloc((size_t)f[k].len + 1);
		if (!fields[k])
			goto out_oom;
		csv_field_unquote(&f[k], fields[k]);
	}
	if (f != local)
		free(f);
	*fields_out = fields;
	*n_out = (size_t)n;
	return 0;
out_oom:
	snprintf(err, errlen, _("line %zu: out of memory"), start_line);
	if (fields)
		free_fields(fields, (size_t)k);
	if (f != local)
		free(f);
	return -1;
}

static int blank_or_comment(const char *buf, size_t len, size_t pos)
{
	if (pos >= len)
		return 1;
	if (buf[pos] == '#')
		return 1;
	while (pos < len && (buf[pos] == ' ' || buf[pos] == '\t'))
		pos++;
	return pos >= len || buf[pos] == '\n' || buf[pos] == '\r';
}

static void skip_line(const char *buf, size_t len, size_t *pos, size_t *line)
{
	while (*pos < len && buf[*pos] != '\n')
		(*pos)++;
	if (*pos < len) {
		(*pos)++;
		(*line)++;
	}
}

int csv_parse(const char *buf, size_t len, struct csv *out,
	      char *err, size_t errlen)
{
	size_t pos = 0, line = 1, cap = 0;

	memset(out, 0, sizeof(*out));
	/* A UTF-8 byte order mark is not part of the first column's name. */
	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		pos = 3;
	while (pos < len) {
		char **fields;
		size_t n, rec_line;

		if (blank_or_comment(buf, len, pos)) {
			skip_line(buf, len, &pos, &line);
			continue;
		}
		rec_line = line;
		if (parse_record(buf, len, &pos, &line, &fields, &n, err, errlen))
			goto out_fail;
		if (!out->header) {
			out->header = fields;
			out->ncols = n;
			out->header_line = rec_line;
			continue;
		}
		if (out->nrows == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct csv_row *nr = realloc(out->rows, ncap * sizeof(*nr));
			if (!nr) {
				free_fields(fields, n);
				snprintf(err, errlen, _("line %zu: out of memory"), rec_line);
				goto out_fail;
			}
			out->rows = nr;
			cap = ncap;
		}
		out->rows[out->nrows].line = rec_line;
		out->rows[out->nrows].fields = fields;
		out->rows[out->nrows].nfields = n;
		out->nrows++;
	}
	if (!out->header) {
		snprintf(err, errlen, _("line 1: empty file, expected a header row"));
		goto out_fail;
	}
	return 0;
out_fail:
	csv_free(out);
	return -1;
}

int csv_col(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->header[i], name))
			return (int)i;
	return -1;
}

const char *csv_get(const struct csv_row *r, int i)
{
	if (i < 0 || (size_t)i >= r->nfields)
		return "";
	return r->fields[i];
}

/* Shared front half of the typed readers: find the column, trim, check. */
static int field_text(const struct csv *c, const struct csv_row *r,
		      const char *col, const char *fname, const char **s,
		      char *err, size_t errlen)
{
	int i = csv_col(c, col);

	if (i < 0) {
		snprintf(err, errlen, _("%s:%zu: %s: column missing from the header"),
			 fname, c->header_line, col);
		return -1;
	}
	*s = csv_get(r, i);
	return 0;
}

int csv_field_double_range(const struct csv *c, const struct csv_row *r,
			   const char *col, bool required, double dflt, double min, double max,
			   const char *fname, double *out, char *err, size_t errlen)
{
	char q[QUOTE_KEEP * 4 + 8];
	const char *s;
	double v;

	if (field_text(c, r, col, fname, &s, err, errlen))
		return -1;
	if (!*s) {
		if (required) {
			snprintf(err, errlen, _("%s:%zu: %s: expected a number, got an empty field"),
				 fname, r->line, col);
			return -1;
		}
		*out = dflt;
		return 0;
	}
	if (units_scan_number(s, &v) || v < min || v > max) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a number from %g to %g, got '%s'"),
			 fname, r->line, col, min, max, quote_value(s, q, sizeof(q)));
		return -1;
	}
	*out = v;
	return 0;
}

int csv_field_double(const struct csv *c, const struct csv_row *r,
		     const char *col, bool required, double dflt, double min,
		     const char *fname, double *out, char *err, size_t errlen)
{
	return csv_field_double_range(c, r, col, required, dflt, min, CSV_DOUBLE_MAX,
				      fname, out, err, errlen);
}

int csv_field_long_range(const struct csv *c, const struct csv_row *r,
			 const char *col, bool required, long dflt, long min, long max,
			 const char *fname, long *out, char *err, size_t errlen)
{
	char q[QUOTE_KEEP * 4 + 8];
	const char *s, *p;
	char *end;
	long v;

	if (field_text(c, r, col, fname, &s, err, errlen))
		return -1;
	if (!*s) {
		if (required) {
			snprintf(err, errlen, _("%s:%zu: %s: expected a whole number, got an empty field"),
				 fname, r->line, col);
			return -1;
		}
		*out = dflt;
		return 0;
	}
	p = s + (*s == '-');
	errno = 0;
	v = strtol(s, &end, 10);
	if (!isdigit((unsigned char)*p) || *end || errno == ERANGE || v < min || v > max) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a whole number from %ld to %ld, got '%s'"),
			 fname, r->line, col, min, max, quote_value(s, q, sizeof(q)));
		return -1;
	}
	*out = v;
	return 0;
}

int csv_field_long(const struct csv *c, const struct csv_row *r,
		   const char *col, bool required, long dflt, long min,
		   const char *fname, long *out, char *err, size_t errlen)
{
	return csv_field_long_range(c, r, col, required, dflt, min, CSV_LONG_MAX,
				    fname, out, err, errlen);
}

int csv_field_bool(const struct csv *c, const struct csv_row *r,
		   const char *col, bool dflt, const char *fname, bool *out,
		   char *err, size_t errlen)
{
	const char *s;

	if (field_text(c, r, col, fname, &s, err, errlen))
		return -1;
	if (!*s)
		*out = dflt;
	else if (!strcmp(s, "yes") || !strcmp(s, "true"))
		*out = true;
	else if (!strcmp(s, "no") || !strcmp(s, "false"))
		*out = false;
	else {
		char q[QUOTE_KEEP * 4 + 8];
		snprintf(err, errlen, _("%s:%zu: %s: expected yes or no, got '%s'"),
			 fname, r->line, col, quote_value(s, q, sizeof(q)));
		return -1;
	}
	return 0;
}

int csv_field_str(const struct csv *c, const struct csv_row *r,
		  const char *col, bool required, const char *fname,
		  char *out, size_t n, char *err, size_t errlen)
{
	const char *s;

	if (field_text(c, r, col, fname, &s, err, errlen))
		return -1;
	if (required && !*s) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a value, got an empty field"),
			 fname, r->line, col);
		return -1;
	}
	if (strlen(s) >= n) {
		snprintf(err, errlen, _("%s:%zu: %s: value longer than %zu characters"),
			 fname, r->line, col, n - 1);
		return -1;
	}
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int csv_load_table(const char *buf, size_t len, const char *fname, size_t elem_size,
		   csv_row_loader load_row, void **out, size_t *n, char *err, size_t errlen)
{
	struct csv c;
	char cerr[256];
	char *v;

	*out = NULL;
	*n = 0;
	if (csv_parse(buf, len, &c, cerr, sizeof(cerr))) {
		snprintf(err, errlen, "%s:%s", fname, cerr + strlen("line "));
		return -1;
	}
	v = calloc(c.nrows ? c.nrows : 1, elem_size);
	if (!v) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		goto out_free_csv;
	}
	for (size_t i = 0; i < c.nrows; i++) {
		if (c.rows[i].nfields != c.ncols) {
			snprintf(err, errlen, _("%s:%zu: expected %zu fields, got %zu"),
				 fname, c.rows[i].line, c.ncols, c.rows[i].nfields);
			goto out_free_v;
		}
		if (load_row(&c, &c.rows[i], fname, v + i * elem_size, err, errlen))
			goto out_free_v;
	}
	*out = v;
	*n = c.nrows;
	csv_free(&c);
	return 0;
out_free_v:
	free(v);
out_free_csv:
	csv_free(&c);
	return -1;
}
