/*
 * fuzz_ledger_import.c - a CSV as `gpurent ledger import --csv` reads it
 * (ledger_import_parse of src/core/books/ledger_import.h): all rows or none, and
 * every run returned passes the store's own check (ledger_run_check).
 */
#include <math.h>
#include <string.h>

#include "core/books/ledger_import.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger_import im;
	char err[1024], why[512];

	err[0] = '\0';
	if (ledger_import_parse((const char *)data, size, "runs.csv", &im, err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "runs.csv");
		FUZZ_CHECK(im.n == 0 && im.runs == NULL);   /* a bad line gives no runs at all */
		return 0;
	}
	for (size_t i = 0; i < im.n; i++) {
		const struct ledger_run *r = &im.runs[i];
		FUZZ_CHECK(r->start >= 0 && r->start <= LEDGER_MAX_TIME);
		FUZZ_CHECK(!ledger_known(r->end) || (r->end >= r->start && r->end <= LEDGER_MAX_TIME));
		FUZZ_CHECK(!ledger_known(r->cost) || (r->cost >= 0 && r->cost <= LEDGER_MAX_MONEY));
		FUZZ_CHECK(!ledger_known(r->cost) || r->currency);
		FUZZ_CHECK(im.lines[i] >= 2);
		FUZZ_CHECK(!ledger_run_check(r, r->start, r->end, r->currency,
					     ledger_known(r->cost) || ledger_known(r->price_per_hour),
					     why, sizeof(why)));
	}
	ledger_import_free(&im);
	return 0;
}
