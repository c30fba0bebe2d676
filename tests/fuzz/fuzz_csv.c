/*
 * fuzz_csv.c - csv_parse (src/core/text/csv.h), the RFC 4180 reader under every
 * data-file loader, and csv_col/csv_get on what it read; and csv_scan_next
 * storing 0-2 fields of each record against storing all: the same count,
 * end, lines and fields (the catalog loader stores few on CPU-only rows).
 */
#include "core/text/csv.h"
#include "fuzz.h"

static void scan_few(const char *buf, size_t len)
{
	for (int maxf = 0; maxf <= 2; maxf++) {
		struct csv_scan a = CSV_SCAN_INIT, b = CSV_SCAN_INIT;
		size_t pa = 0, pb = 0, la = 1, lb = 1, ra, rb;
		const char *sa, *sb;
		struct csv_field fa[64], fb[64];

		while (pa < len) {
			int na = csv_scan_next(&a, buf, len, &pa, &la, fa, 64, &sa, &ra);
			int nb = csv_scan_next(&b, buf, len, &pb, &lb, fb, maxf, &sb, &rb);
			FUZZ_CHECK(na == nb);
			if (na < 0)
				break;
			FUZZ_CHECK(pa == pb && la == lb && sa == sb && ra == rb);
			for (int k = 0; k < maxf && k < na; k++)
				FUZZ_CHECK(fa[k].p == fb[k].p && fa[k].len == fb[k].len);
			if (pa == (size_t)(sa - buf))
				break;   /* an empty record at the end: nothing more to read */
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv c;
	char err[256];
	size_t last = 0;

	scan_few((const char *)data, size);
	err[0] = '\0';
	if (csv_parse((const char *)data, size, &c, err, sizeof(err))) {
		FUZZ_CHECK(!strncmp(err, "line ", 5));   /* "line N: what" */
		return 0;
	}
	FUZZ_CHECK(c.ncols >= 1 && c.header != NULL);
	FUZZ_CHECK(c.header_line >= 1);
	for (size_t i = 0; i < c.ncols; i++) {
		FUZZ_CHECK(c.header[i] != NULL);
		FUZZ_CHECK(csv_col(&c, c.header[i]) >= 0);
	}
	last = c.header_line;
	for (size_t r = 0; r < c.nrows; r++) {
		const struct csv_row *row = &c.rows[r];

		FUZZ_CHECK(row->line > last);   /* records in order, after the header */
		last = row->line;
		for (size_t f = 0; f < row->nfields; f++)
			FUZZ_CHECK(row->fields[f] != NULL);
		/* a short row reads "" */
		FUZZ_CHECK(!strcmp(csv_get(row, (int)row->nfields), ""));
		for (size_t f = 0; f < c.ncols; f++)
			FUZZ_CHECK(csv_get(row, (int)f) != NULL);
	}
	csv_free(&c);
	return 0;
}
