/*
 * fuzz_csv.c - csv_parse (src/core/text/csv.h), the RFC 4180 reader under every
 * data-file loader, and csv_col/csv_get on what it read.
 */
#include "core/text/csv.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv c;
	char err[256];
	size_t last = 0;

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
