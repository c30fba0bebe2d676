/*
 * fuzz_catalog_vast.c - catalog_vast_to_csv (src/core/market/catalog_vast.h)
 * on vast's search answer, and the SkyPilot loader on what it wrote.
 */
#include "core/market/catalog.h"
#include "core/market/catalog_vast.h"
#include "fuzz.h"

static size_t bad_calls;

static void on_bad(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
	bad_calls++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct currency rate_v[] = {{.code = "USD", .usd = 1}};
	static const struct currency_table rates = {rate_v, 1, 1};
	struct catalog_opts opts = {.gpus = fuzz_gpu_db(), .currencies = &rates, .bad_row = on_bad, .provider = "vast"};
	struct strbuf out = STRBUF_INIT;
	struct offer_set s;
	size_t rows, skipped, lines = 0;
	char err[512];
	int rc;

	err[0] = '\0';
	rc = catalog_vast_to_csv((const char *)data, size, "vast.json", &out, &rows, &skipped, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* "FILE: byte N: expected ..." on one line */
		FUZZ_CHECK(!strncmp(err, "vast.json: byte ", 16));
		FUZZ_CHECK(fuzz_one_line(err));
		strbuf_release(&out);
		return 0;
	}
	/* the header, then one line a row, every line ended */
	FUZZ_CHECK(out.len > strlen(CATALOG_VAST_HEADER));
	FUZZ_CHECK(!strncmp(out.p, CATALOG_VAST_HEADER "\n", strlen(CATALOG_VAST_HEADER) + 1));
	FUZZ_CHECK(out.p[out.len - 1] == '\n');
	for (size_t i = 0; i < out.len; i++)
		lines += out.p[i] == '\n';
	FUZZ_CHECK(lines == rows + 1);
	/* what it wrote is a SkyPilot catalog the loader reads */
	bad_calls = 0;
	offer_set_init(&s);
	rc = catalog_load(&s, out.p, out.len, false, "vms.csv", &opts, err, sizeof(err));
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(!strcmp(s.reports[0].format, "skypilot"));
	FUZZ_CHECK(s.reports[0].rows == rows);
	/* strict: a count or memory no catalog has (1e300 GPUs) is a bad row there */
	FUZZ_STRICT_CHECK(bad_calls == 0);
	offer_set_free(&s);
	strbuf_release(&out);
	return 0;
}
