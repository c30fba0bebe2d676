/*
 * fuzz_bill.c - a billing export as `gpurent bill import` reads it
 * (bill_parse of src/core/books/bill.h, data/bill_kinds.csv's rules), then the
 * audit of its lines (audit_bill of src/core/books/audit.h).
 */
#include <math.h>
#include <string.h>

#include "core/books/audit.h"
#include "core/books/bill.h"
#include "fuzz.h"
#include "fuzz_bill_rules.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bill_export b;
	struct audit_result r;
	/* one run by time, one by host (matched when a resource id carries "i-a") */
	struct audit_run run[] = {{.id = 1, .start = 1709283600, .end = 1709287200, .cost = 1,
				   .currency = "USD"},
				  {.id = 2, .start = 1709283600, .end = NAN, .cost = NAN, .host = "i-a",
				   .gpu = "A100-80GB"}};
	char err[512];

	err[0] = '\0';
	if (bill_parse((const char *)data, size, "bill.csv", rules(), &b, err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "bill.csv");
		FUZZ_CHECK(b.n == 0 && b.v == NULL);   /* "a file with one bad line gives no items" */
		return 0;
	}
	for (size_t i = 0; i < b.n; i++) {
		const struct bill_item *it = &b.v[i];
		FUZZ_CHECK(isfinite(it->start) && isfinite(it->end) && it->end >= it->start);
		FUZZ_CHECK(isfinite(it->amount) && fabs(it->amount) <= 1e12);
		FUZZ_CHECK(isfinite(it->quantity));
		FUZZ_CHECK((unsigned)it->kind < BILL_NKINDS);
		FUZZ_CHECK(it->currency[0] != '\0');
		FUZZ_CHECK(it->line >= 2);
		(void)bill_item_digest(it);
	}
	if (b.n) {
		struct audit_opts o = {.from = NAN, .to = NAN, .budget = 10, .currency = b.v[0].currency};
		if (!audit_bill(b.v, b.n, run, 2, &o, &r, err, sizeof(err))) {
			FUZZ_CHECK(isfinite(r.total));
			for (size_t i = 0; i < r.nf; i++)
				FUZZ_CHECK(r.f[i].amount >= 0 && !isnan(r.f[i].amount) && isfinite(r.f[i].from) &&
					   isfinite(r.f[i].to));
			for (size_t i = 1; i < r.nf; i++)
				FUZZ_CHECK(r.f[i - 1].amount >= r.f[i].amount);
			audit_result_free(&r);
		}
	}
	bill_free(&b);
	return 0;
}
