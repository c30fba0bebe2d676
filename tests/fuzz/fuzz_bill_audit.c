/*
 * fuzz_bill_audit.c - `bill import` then `bill audit --from/--to` on the
 * bytes: the first byte picks which bounds are given, the next two 4-byte
 * words (seconds after 2024-01-01, little-endian) are --from and --to,
 * the rest is the export (bill_parse, then audit_bill). Invariants: the
 * period is never inverted, a default bound stays on its side of a given
 * one, totals and the split are finite and add up, findings are finite.
 */
#include <math.h>
#include <string.h>

#include "core/books/audit.h"
#include "core/books/bill.h"
#include "fuzz.h"
#include "fuzz_bill_rules.h"


static double word(const uint8_t *p)
{
	return 1704067200.0 + (double)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				       (uint32_t)p[3] << 24);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bill_export b;
	struct audit_result r;
	struct audit_run run = {.id = 1, .start = 1709283600, .end = 1709287200, .cost = 1, .currency = "USD"};
	double from, to;
	char err[512];
	int mode;

	if (size < 9)
		return 0;
	mode = data[0];
	from = mode & 1 ? word(data + 1) : NAN;
	to = mode & 2 ? word(data + 5) : NAN;
	/* the command refuses --to not after --from (cmd_bill.c) */
	if (!isnan(from) && !isnan(to) && to <= from)
		return 0;
	if (bill_parse((const char *)data + 9, size - 9, "bill.csv", rules(), &b, err, sizeof(err)))
		return 0;
	for (size_t c = 0; c < b.n && c < 2; c++) {
		struct audit_opts o = {.from = from, .to = to, .currency = b.v[c].currency,
				       .budget = mode & 4 ? 10 : NAN};
		double sum = 0, scale = 0;
		if (audit_bill(b.v, b.n, &run, 1, &o, &r, err, sizeof(err)))
			continue;
		FUZZ_CHECK(isfinite(r.from) && isfinite(r.to) && r.from <= r.to);
		FUZZ_CHECK(isnan(from) || r.from == from);
		FUZZ_CHECK(isnan(to) || r.to == to);
		FUZZ_CHECK(isfinite(r.total));
		for (int k = 0; k < BILL_NKINDS; k++) {
			FUZZ_CHECK(isfinite(r.by_kind[k]));
			sum += r.by_kind[k];
			scale += fabs(r.by_kind[k]);
		}
		FUZZ_CHECK(fabs(sum - r.total) <= 1e-9 * (scale + 1));
		FUZZ_CHECK(r.lines <= b.n);
		for (size_t i = 0; i < r.nf; i++)
			FUZZ_CHECK(r.f[i].amount >= 0 && isfinite(r.f[i].amount) && isfinite(r.f[i].from) &&
				   isfinite(r.f[i].to));
		for (size_t i = 0; i < r.nres; i++)
			FUZZ_CHECK(isfinite(r.res[i].total));
		audit_result_free(&r);
	}
	bill_free(&b);
	return 0;
}
