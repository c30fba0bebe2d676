/*
 * plan_pricer.h - binds the planner's pricer (plan.h) to the billing
 * profiles of data/billing.csv: each offer is priced under the profile its
 * catalog row names (or its supply type's default).
 */
#ifndef GPURENT_PLAN_PRICER_H
#define GPURENT_PLAN_PRICER_H

#include "core/plan/plan.h"
#include "core/market/billing.h"
#include "cmd/plan/offers_load.h"

struct plan_pricer_ctx {
	struct billing_db *billing;    /* owned */
	const struct offers_ctx *offers;
};

/* Load the billing profiles and fill *out. 0 or an exit code (message printed). */
int plan_pricer_init(struct plan_pricer_ctx *pc, const struct offers_ctx *offers,
		     struct plan_pricer *out);
void plan_pricer_free(struct plan_pricer_ctx *pc);

#endif
