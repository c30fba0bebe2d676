/*
 * plan_price.h - the planner's price of one offer (plan.h's pricer, pure):
 * the offer is billed under the profile its catalog row names, else its
 * supply type's profile, else "per-second" (data/billing.csv,
 * docs/billing.md), with the profile's money converted to USD by a
 * function the caller supplies (a currency table, usually).
 */
#ifndef GPURENT_PLAN_PRICE_H
#define GPURENT_PLAN_PRICE_H

#include "core/market/billing.h"
#include "core/market/catalog.h"
#include "core/plan/plan.h"

/* USD per one unit of the currency `code` ("CNY" -> 0.1389); <= 0 when unknown. */
typedef double (*plan_price_fx_fn)(const void *ctx, const char *code);

/* What plan_price() prices with; every pointer borrowed for the call. */
struct plan_price_env {
	const struct billing_db *billing;
	plan_price_fx_fn usd_per_unit;
	const void *fx_ctx;                  /* passed to usd_per_unit */
};

/* A plan_price_fx_fn over a struct currency_table (currency.h): pass the
 * table as fx_ctx. */
double plan_price_fx_currency(const void *currency_table, const char *code);

/*
 * The profile an offer is billed under: the one its catalog `billing`
 * column names, else the one named after its supply type ("ai-cloud"),
 * else "per-second"; NULL when db has none of them. Borrowed from db.
 */
const struct billing_profile *plan_price_profile(const struct billing_db *db,
						 const struct offer *o);

/*
 * The assumed mean time between spot interruptions, seconds, for an offer
 * billed under p: p's own, else its supply type's profile's, else the
 * shortest any profile of db states (the cautious choice); 0 when none does.
 */
double plan_price_spot_mtbf(const struct billing_db *db, const struct billing_profile *p,
			    const struct offer *o);

/*
 * The USD cost of usage pu of offer o under mode (plan.h's pricer
 * contract): 0 with *out filled (note: "hourly: 1.00 h billed for 0.33 h
 * used", "<profile>: N.N interruptions expected", "<profile> billing"),
 * or -1 with *out zeroed when the offer has no such mode (no spot price,
 * no package or reserved term in the profile; reserved bills every hour of
 * the usage's span, billing.h), no profile applies, or the profile's
 * currency has no rate.
 */
int plan_price(const struct plan_price_env *env, const struct offer *o, enum plan_mode mode,
	       const struct plan_usage *pu, struct plan_cost *out);

#endif
