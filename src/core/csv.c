/*
 * csv.c - RFC 4180 parsing into an owned table of strings (see csv.h).
 * One pass, growing arrays; nothing here knows what the columns mean.
 */
#include "csv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"
#include "units.h"

struct strbuf {
	char *p;
	size_t len, cap;
};

static int sb_add(struct strbuf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 32;
		char *np = realloc(b->p, ncap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = ncap;
	}
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
	return 0;
}

static char *sb_take(struct strbuf *b)
{
	char *s = b->p ? b->p : strdup("");
	b->p = NULL;
	b->len = b->cap = 0;
	return s;
}

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

/* Parse one record starting at *pos; advances *pos and *line. */
static int parse_record(const char *buf, size_t len, size_t *pos, size_t *line,
			char ***fields_out, size_t *n_out, char *err, size_t errlen)
{
	struct strbuf field = {0};
	char **fields = NULL;
	size_t n = 0, cap = 0;
	size_t i = *pos, start_line = *line;
	int in_quotes = 0, done = 0;

	while (!done) {
		int end_field = 0;

		if (i >= len) {
			if (in_quotes) {
				snprintf(err, errlen,
					 "line %zu: unterminated quoted field",
					 start_line);
				goto out_fail;
			}
			end_field = done = 1;
		} else {
			char c = buf[i++];
			if (in_quotes) {
				if (c == '"') {
					if (i < len && buf[i] == '"') {
						i++;
						if (sb_add(&field, '"'))
							goto out_oom;
					} else {
						in_quotes = 0;
					}
				} else {
					if (c == '\n')
						(*line)++;
					if (sb_add(&field, c))
						goto out_oom;
				}
				continue;
			}
			if (c == '"' && field.len == 0) {
				in_quotes = 1;
				continue;
			}
			if (c == ',') {
				end_field = 1;
			} else if (c == '\n' || c == '\r') {
				if (c == '\r' && i < len && buf[i] == '\n')
					i++;
				(*line)++;
				end_field = done = 1;
			} else if (sb_add(&field, c)) {
				goto out_oom;
			}
		}
		if (end_field) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				char **nf = realloc(fields, ncap * sizeof(*nf));
				if (!nf)
					goto out_oom;
				fields = nf;
				cap = ncap;
			}
			fields[n] = sb_take(&field);
			if (!fields[n])
				goto out_oom;
			n++;
		}
	}
	*pos = i;
	*fields_out = fields;
	*n_out = n;
	return 0;
out_oom:
	snprintf(err, errlen, "line %zu: out of memory", start_line);
out_fail:
	free(field.p);
	free_fields(fields, n);
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
				snprintf(err, errlen, "line %zu: out of memory", rec_line);
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
		snprintf(err, errlen, "line 1: empty file, expected a header row");
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
		snprintf(err, errlen, "%s:%zu: %s: column missing from the header",
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
			snprintf(err, errlen, "%s:%zu: %s: expected a number, got an empty field",
				 fname, r->line, col);
			return -1;
		}
		*out = dflt;
		return 0;
	}
	if (units_scan_number(s, &v) || v < min || v > max) {
		snprintf(err, errlen, "%s:%zu: %s: expected a number from %g to %g, got '%s'",
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
			snprintf(err, errlen, "%s:%zu: %s: expected a whole number, got an empty field",
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
		snprintf(err, errlen, "%s:%zu: %s: expected a whole number from %ld to %ld, got '%s'",
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
		snprintf(err, errlen, "%s:%zu: %s: expected yes or no, got '%s'",
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
		snprintf(err, errlen, "%s:%zu: %s: expected a value, got an empty field",
			 fname, r->line, col);
		return -1;
	}
	if (strlen(s) >= n) {
		snprintf(err, errlen, "%s:%zu: %s: value longer than %zu characters",
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
		snprintf(err, errlen, "%s: out of memory", fname);
		goto out_free_csv;
	}
	for (size_t i = 0; i < c.nrows; i++) {
		if (c.rows[i].nfields != c.ncols) {
			snprintf(err, errlen, "%s:%zu: expected %zu fields, got %zu",
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
