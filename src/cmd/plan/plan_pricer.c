/*
 * plan_pricer.c - the planner's prices (plan_pricer.h): loads the billing
 * profiles and binds them and the offers' currency rates to the core's
 * plan_price() (src/core/plan/plan_price.h), which holds the pricing itself.
 */
#include "cmd/plan/plan_pricer.h"

#include <stdlib.h>
#include <string.h>

#include "core/market/billing.h"
#include "core/plan/plan_price.h"
#include "kit/common.h"

/* offers_rate() as plan_price()'s conversion: USD per unit, 0 when unknown. */
static double offers_fx(const void *ctx, const char *code)
{
	return offers_rate(ctx, code);
}

static int price(void *ctx, const struct offer *o, enum plan_mode mode, const struct plan_usage *pu,
		 struct plan_cost *out)
{
	const struct plan_pricer_ctx *pc = ctx;
	const struct plan_price_env env = {pc->billing, offers_fx, pc->offers};

	return plan_price(&env, o, mode, pu, out);
}

int plan_pricer_init(struct plan_pricer_ctx *pc, const struct offers_ctx *offers, struct plan_pricer *out)
{
	int rc;

	memset(pc, 0, sizeof(*pc));
	pc->offers = offers;
	pc->billing = calloc(1, sizeof(*pc->billing));
	if (!pc->billing)
		return EXIT_RUNTIME;
	if ((rc = common_load_billing(pc->billing))) {
		free(pc->billing);
		pc->billing = NULL;
		return rc;
	}
	out->price = price;
	out->ctx = pc;
	return 0;
}

void plan_pricer_free(struct plan_pricer_ctx *pc)
{
	if (pc->billing) {
		billing_db_free(pc->billing);
		free(pc->billing);
	}
	pc->billing = NULL;
}
