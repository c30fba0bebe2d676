/*
 * csv.h - an RFC 4180 reader for gpurent's data files: quoted fields,
 * doubled quotes, CRLF or LF, blank lines and '#' comment lines skipped.
 * Every record remembers the line it starts on, for error messages.
 */
#ifndef GPURENT_CSV_H
#define GPURENT_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct csv_row {
	size_t line;     /* 1-based line where the record starts */
	size_t nfields;
	char **fields;   /* owned by the struct csv */
};

struct csv {
	char **header;   /* first record; owned */
	size_t ncols;
	size_t header_line;
	struct csv_row *rows;  /* records after the header; owned */
	size_t nrows;
};

/*
 * The one CSV tokenizer (csv_parse() and the catalog loader use it): a
 * field borrowed from the buffer, with no allocation. A quoted field
 * starts with '"' and points inside the quotes; "" pairs are left as
 * they are (quoted_escapes says so: csv_field_unquote() undoes them);
 * bytes after a closing quote up to the next separator are ignored.
 */
struct csv_field {
	const char *p;
	uint32_t len;
	bool quoted_escapes;
};

/*
 * Split the record at buf[*pos] into up to maxf fields (f[0..maxf)).
 * Returns the record's field count (which may exceed maxf: the rest are
 * not stored), or -1 on an unterminated quote. Advances *pos past the
 * record and its line end (LF, CRLF or a lone CR) and *line past every
 * newline read; *rec_start and *rec_len give the record's raw bytes.
 */
int csv_scan_record(const char *buf, size_t len, size_t *pos, size_t *line,
		    struct csv_field *f, int maxf, const char **rec_start, size_t *rec_len);

/*
 * csv_scan_record() for a loop over one buffer: st keeps the separator,
 * line-end and quote masks of the 64 bytes last looked at, so that the next record starts
 * where the last one left off instead of loading them again (the catalog
 * loader's rows are about 60 bytes). Start st with CSV_SCAN_INIT; one st
 * serves one buffer whose bytes do not change.
 */
struct csv_scan {
	size_t mbase;    /* the offset the masks start at; SIZE_MAX: none */
	uint64_t sep;    /* bit k: buf[mbase + k] is ',', '\n' or '\r' */
	uint64_t eol;    /* ... is '\n' or '\r' */
	uint64_t quote;  /* ... is '"' */
};
#define CSV_SCAN_INIT {SIZE_MAX, 0, 0, 0}
int csv_scan_next(struct csv_scan *st, const char *buf, size_t len, size_t *pos, size_t *line,
		  struct csv_field *f, int maxf, const char **rec_start, size_t *rec_len);

/* Copy f into out (f->len + 1 bytes) undoing "" pairs; returns the length. */
size_t csv_field_unquote(const struct csv_field *f, char *out);

/*
 * Parse len bytes of buf. Returns 0 and fills *out (caller frees with
 * csv_free()), or -1 with "line N: what" in err for an unterminated
 * quote or an empty file. Rows whose field count differs from the
 * header are kept as they are: the loader reports them by line.
 */
int csv_parse(const char *buf, size_t len, struct csv *out,
	      char *err, size_t errlen);

/* Index of the column named name (exact match), or -1. */
int csv_col(const struct csv *c, const char *name);

/* Field i of row r, or "" when the row is short. Borrowed from c. */
const char *csv_get(const struct csv_row *r, int i);

void csv_free(struct csv *c);


/*
 * Load a whole data file into an array of elem_size records: parses buf,
 * checks every row has the header's field count, and calls load_row for
 * each (which fills one zeroed record or returns -1 with "fname:line:
 * column: ..." in err). On success *out is a calloc'd array the caller
 * frees with free() and *n its length; on failure nothing is allocated.
 */
typedef int (*csv_row_loader)(const struct csv *c, const struct csv_row *r,
			      const char *fname, void *record, char *err, size_t errlen);
int csv_load_table(const char *buf, size_t len, const char *fname, size_t elem_size,
		   csv_row_loader load_row, void **out, size_t *n, char *err, size_t errlen);

#endif

/*
 * Typed field readers for loaders. Each returns 0 and stores the value,
 * or -1 with "fname:line: column: expected ..." in err. An empty field
 * stores dflt when !required, else is an error. Numbers are plain
 * decimals (no hex, inf or nan), finite and within [min, max];
 * csv_field_double() and csv_field_long() cap at CSV_DOUBLE_MAX and
 * CSV_LONG_MAX, and digits too many for a long are refused, not
 * saturated.
 */
#define CSV_DOUBLE_MAX 1e15
#define CSV_LONG_MAX   1000000000L
int csv_field_double_range(const struct csv *c, const struct csv_row *r,
			   const char *col, bool required, double dflt, double min, double max,
			   const char *fname, double *out, char *err, size_t errlen);
int csv_field_long_range(const struct csv *c, const struct csv_row *r,
			 const char *col, bool required, long dflt, long min, long max,
			 const char *fname, long *out, char *err, size_t errlen);
int csv_field_double(const struct csv *c, const struct csv_row *r,
		     const char *col, bool required, double dflt, double min,
		     const char *fname, double *out, char *err, size_t errlen);
int csv_field_long(const struct csv *c, const struct csv_row *r,
		   const char *col, bool required, long dflt, long min,
		   const char *fname, long *out, char *err, size_t errlen);
int csv_field_bool(const struct csv *c, const struct csv_row *r,
		   const char *col, bool dflt, const char *fname, bool *out,
		   char *err, size_t errlen);
/* Copy a text field into out (n bytes); -1 if required and empty or too long. */
int csv_field_str(const struct csv *c, const struct csv_row *r,
		  const char *col, bool required, const char *fname,
		  char *out, size_t n, char *err, size_t errlen);
