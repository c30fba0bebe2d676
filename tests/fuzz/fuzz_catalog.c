/*
 * fuzz_catalog.c - catalog_load (src/core/market/catalog.h) on gpurent's own offer
 * format (data/offers.csv); fuzz_catalog_sky.c runs it on SkyPilot vms.csv.
 */
#include <math.h>

#include "core/market/catalog.h"
#include "fuzz.h"

#ifndef FUZZ_FNAME
#define FUZZ_FNAME "offers.csv"
#endif
#ifndef FUZZ_PROVIDER
#define FUZZ_PROVIDER NULL
#endif

static size_t bad_calls;
unsigned fuzz_sink;

/* "one line file:line: field: expected ..." */
static void on_bad(void *ctx, const char *msg)
{
	(void)ctx;
	FUZZ_CHECK(!strncmp(msg, FUZZ_FNAME ":", strlen(FUZZ_FNAME) + 1));
	/* strict: a quoted field with a newline is echoed as it is (pending/) */
	FUZZ_STRICT_CHECK(fuzz_one_line(msg));
	FUZZ_CHECK(msg[0] != '\0');
	bad_calls++;
}

/* Touch every byte of a borrowed string: it must lie in live memory. */
static unsigned touch(struct cat_str s)
{
	unsigned sum = 0;

	FUZZ_CHECK(s.p || !s.len);
	for (uint32_t i = 0; i < s.len; i++)
		sum += (unsigned char)s.p[i];
	return sum;
}

static void check_offer(const struct offer *o)
{
	fuzz_sink += touch(o->provider) + touch(o->instance) + touch(o->region) + touch(o->gpu_name) +
		touch(o->billing) + touch(o->source) + touch(o->date) + touch(o->slice) +
		touch(o->access) + touch(o->host) + touch(o->zone);
	FUZZ_CHECK(o->file == 0);
	FUZZ_CHECK(o->line >= 1);
	FUZZ_CHECK(o->supply >= SUPPLY_HYPERSCALER && o->supply <= SUPPLY_UNKNOWN);
	FUZZ_CHECK(o->gpus > 0);                 /* CPU-only rows are skipped */
	FUZZ_CHECK(o->price >= 0);               /* USD per instance-hour */
	FUZZ_CHECK(!isnan(o->price) && !isnan(o->spot_price));
	/* 0 = no spot; spot >= on-demand only on a row marked suspect or on a
	 * spot-only row (price 0, not free: a spot price and no on-demand) */
	FUZZ_CHECK(o->spot_price == 0 || (o->spot_price > 0 && o->spot_price < o->price) ||
		   (o->suspect == OFFER_SPOT_AT_OR_ABOVE && o->spot_price >= o->price) ||
		   (o->spot_only && o->price == 0 && o->spot_price > 0));
	FUZZ_CHECK(!o->spot_only || (o->price == 0 && o->spot_price > 0));
	/* peer ratios (offer_set_mark_outliers): 0, or a finite positive ratio */
	FUZZ_CHECK(o->peer_ratio == 0 || (o->peer_ratio > 0 && isfinite(o->peer_ratio)) ||
		   !isfinite(o->price));
	/* normalised to USD per hour: finite (unbounded counts are a known bug) */
	FUZZ_STRICT_CHECK(isfinite(o->price) && isfinite(o->gpus));
	FUZZ_STRICT_CHECK(isfinite(offer_price_per_gpu(o)) && isfinite(offer_spot_per_gpu(o)));
	FUZZ_STRICT_CHECK(isfinite(o->gpu_mem) && o->gpu_mem >= 0);
	FUZZ_STRICT_CHECK(o->queue_wait >= 0 && o->max_runtime >= 0);
	FUZZ_CHECK(supply_type_name(o->supply) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct currency rate_v[] = {{.code = "USD", .usd = 1}, {.code = "CNY", .usd = 0.1389}, {.code = "EUR", .usd = 1.08}};
	static const struct currency_table rates = {rate_v, 3, 3};
	struct catalog_opts opts = {
		.gpus = fuzz_gpu_db(), .currencies = &rates, .bad_row = on_bad,
		.provider = FUZZ_PROVIDER,
	};
	struct offer_set s;
	char err[512];
	int rc;

	bad_calls = 0;
	offer_set_init(&s);
	err[0] = '\0';
	rc = catalog_load(&s, (const char *)data, size, size & 1, FUZZ_FNAME, &opts, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		FUZZ_CHECK(!strncmp(err, FUZZ_FNAME, strlen(FUZZ_FNAME)));
		FUZZ_CHECK(fuzz_one_line(err));
	} else {
		const struct catalog_report *r = &s.reports[0];

		FUZZ_CHECK(s.nreports == 1);
		FUZZ_CHECK(!strcmp(r->format, "skypilot") || !strcmp(r->format, "gpurent"));
		FUZZ_CHECK(r->loaded == s.n && s.n <= s.cap);
		FUZZ_CHECK(r->bad_rows == bad_calls);
		FUZZ_CHECK(r->loaded <= r->rows);
		FUZZ_CHECK(memchr(r->unknown_names, '\0', sizeof(r->unknown_names)) != NULL);
		offer_set_mark_outliers(&s);
		for (size_t i = 0; i < s.n; i++)
			check_offer(&s.v[i]);
	}
	offer_set_free(&s);
	return 0;
}
