/* fuzz_bill_rules.h - the bundled bill_kinds.csv, loaded once, for the
 * harnesses that read bills (fuzz_bill.c, fuzz_bill_audit.c). */
#ifndef FUZZ_BILL_RULES_H
#define FUZZ_BILL_RULES_H

#include <stdio.h>
#include <stdlib.h>

#include "core/books/bill.h"
#include "fuzz.h"

static const struct bill_rules *rules(void)
{
	static struct bill_rules r;
	static int loaded;
	char err[512];
	size_t len;
	const char *buf;

	if (!loaded) {
		buf = fuzz_data_file("bill_kinds.csv", &len);
		if (bill_rules_load(buf, len, "bill_kinds.csv", &r, err, sizeof(err))) {
			fprintf(stderr, "fuzz: %s\n", err);
			abort();
		}
		loaded = 1;
	}
	return &r;
}

#endif
