/*
 * fuzz_currencies.c - data/currencies.csv as the commands load it
 * (csv_load_table and the csv_field_* readers of src/core/csv.h).
 */
#include <math.h>

#include "../../src/core/catalog.h"
#include "../../src/core/csv.h"
#include "fuzz.h"

/* The row reader of src/cmd/offers_load.c and cmd_cost.c. */
static int rate_row(const struct csv *t, const struct csv_row *r, const char *fname, void *rec,
		    char *err, size_t errlen)
{
	struct currency_rate *cr = rec;

	if (csv_field_str(t, r, "code", true, fname, cr->code, sizeof(cr->code), err, errlen) ||
	    csv_field_double(t, r, "usd", true, 0, 1e-9, fname, &cr->usd, err, errlen))
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct currency_rate *v = NULL;
	void *out = NULL;
	char err[512];
	size_t n = 0;

	err[0] = '\0';
	if (csv_load_table((const char *)data, size, "currencies.csv", sizeof(*v), rate_row, &out, &n,
			   err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "currencies.csv");
		FUZZ_CHECK(out == NULL);   /* "on failure nothing is allocated" */
		return 0;
	}
	v = out;
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(memchr(v[i].code, '\0', sizeof(v[i].code)) != NULL);
		FUZZ_CHECK(v[i].code[0] != '\0');        /* required */
		FUZZ_CHECK(v[i].usd >= 1e-9 && isfinite(v[i].usd));
	}
	free(v);
	return 0;
}
