/*
 * plan_pricer.c - the planner's prices (plan_pricer.h).
 * PROVISIONAL: granularity by billing name until data/billing.csv lands.
 */
#include "plan_pricer.h"

#include <math.h>
#include <string.h>

#include "common.h"

static double granularity(const struct offer *o)
{
	if (o->billing.len == 6 && !memcmp(o->billing.p, "hourly", 6))
		return 3600;
	if (o->billing.len == 10 && !memcmp(o->billing.p, "per-minute", 10))
		return 60;
	return 1;
}

static int price(void *ctx, const struct offer *o, enum plan_mode mode, const struct plan_usage *u,
		 struct plan_cost *out)
{
	double g = granularity(o), per = u->sessions > 0 ? (u->busy_s + u->idle_s) / u->sessions : 0;
	double billed = ceil(per / g) * g * u->sessions;
	double rate;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (mode == PLAN_SPOT) {
		if (o->spot_price <= 0)
			return -1;
		rate = o->spot_price;
	} else if (mode == PLAN_ON_DEMAND) {
		rate = o->price;
	} else {
		return -1;
	}
	out->compute = rate * u->busy_s / 3600;
	out->idle = rate * (billed - u->busy_s) / 3600;
	out->total = out->compute + out->idle + out->storage + out->egress;
	return 0;
}

static double spot_mtbf(void *ctx, const struct offer *o)
{
	(void)ctx;
	(void)o;
	return 24 * 3600.0;
}

int plan_pricer_init(struct plan_pricer_ctx *pc, const struct offers_ctx *offers, struct plan_pricer *out)
{
	memset(pc, 0, sizeof(*pc));
	pc->offers = offers;
	out->price = price;
	out->spot_mtbf = spot_mtbf;
	out->ctx = pc;
	return 0;
}

void plan_pricer_free(struct plan_pricer_ctx *pc)
{
	(void)pc;
}
