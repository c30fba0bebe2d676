/*
 * fuzz_currencies.c - data/currencies.csv as the commands load it
 * (currency_table_load of src/core/text/currency.h), then a --rate on top.
 */
#include <math.h>
#include <string.h>

#include "core/text/currency.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct currency_table t = {0};
	char err[512];

	err[0] = '\0';
	if (currency_table_load(&t, (const char *)data, size, "currencies.csv", err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "currencies.csv");
		FUZZ_CHECK(t.n == 0);   /* "on failure the table is left empty" */
		currency_table_free(&t);
		return 0;
	}
	for (size_t i = 0; i < t.n; i++) {
		FUZZ_CHECK(memchr(t.v[i].code, '\0', sizeof(t.v[i].code)) != NULL);
		FUZZ_CHECK(t.v[i].code[0] != '\0');
		FUZZ_CHECK(t.v[i].usd > 0 && isfinite(t.v[i].usd));
		FUZZ_CHECK(currency_to_usd(&t, t.v[i].code) > 0);
	}
	if (!currency_set_rate(&t, "CNY=7.2", err, sizeof(err)))
		FUZZ_CHECK(fabs(currency_to_usd(&t, "CNY") - 1 / 7.2) < 1e-12);
	currency_table_free(&t);
	return 0;
}
