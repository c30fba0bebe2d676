/*
 * fuzz_billing_db.c - billing_db_load (src/core/market/billing.h) on a
 * data/billing.csv, then each profile found and priced in every mode.
 */
#include <math.h>

#include "core/market/billing.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct billing_db db;
	struct usage u;
	struct bill b;
	char err[512];

	err[0] = '\0';
	if (billing_db_load(&db, (const char *)data, size, "billing.csv", err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "billing.csv");
		return 0;
	}
	billing_usage_init(&u);
	billing_usage_job(&u, 10);
	u.data_gb = 100;
	u.egress_gb = 5;
	for (size_t i = 0; i < db.n; i++) {
		const struct billing_profile *p = &db.v[i];

		FUZZ_CHECK(memchr(p->name, '\0', sizeof(p->name)) != NULL);
		FUZZ_CHECK(memchr(p->currency, '\0', sizeof(p->currency)) != NULL);
		/* names are unique, case-insensitively: each finds itself */
		FUZZ_CHECK(billing_find(&db, p->name) == p);
		FUZZ_CHECK(billing_mode_offered(p, BILLING_PER_SECOND) &&
			   billing_mode_offered(p, BILLING_ON_DEMAND));
		for (int m = 0; m < BILLING_NMODES; m++) {
			int rc;

			err[0] = '\0';
			rc = billing_price(p, (enum billing_mode)m, 2.5, &u, &b, err, sizeof(err));
			FUZZ_CHECK(rc == 0 || rc == -1 || rc == BILLING_ENOMODE);
			if (rc == BILLING_ENOMODE)
				FUZZ_CHECK(!billing_mode_offered(p, (enum billing_mode)m));
			if (rc)
				FUZZ_CHECK(err[0] != '\0');
			else
				FUZZ_STRICT_CHECK(isfinite(b.total) && b.total >= 0);
		}
	}
	billing_find(&db, "ai-cloud");
	billing_db_free(&db);
	return 0;
}
