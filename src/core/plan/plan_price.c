/*
 * plan_price.c - one offer's price for the planner (plan_price.h): the
 * billing profile chosen for the offer, its spot MTBF, and the bill of the
 * planned usage under one mode, through billing_price(). Pure.
 */
#include "core/plan/plan_price.h"

#include <stdio.h>
#include <string.h>

#include "core/text/currency.h"

double plan_price_fx_currency(const void *currency_table, const char *code)
{
	return currency_to_usd(currency_table, code);
}

const struct billing_profile *plan_price_profile(const struct billing_db *db,
						 const struct offer *o)
{
	const struct billing_profile *p = NULL;
	char name[64];

	if (o->billing.len && o->billing.len < sizeof(name)) {
		snprintf(name, sizeof(name), "%.*s", (int)o->billing.len, o->billing.p);
		p = billing_find(db, name);
	}
	if (!p)
		p = billing_find(db, supply_type_name(o->supply));
	if (!p)
		p = billing_find(db, "per-second");
	return p;
}

double plan_price_spot_mtbf(const struct billing_db *db, const struct billing_profile *p,
			    const struct offer *o)
{
	const struct billing_profile *s;
	double m = 0;

	if (p->spot_mtbf_s > 0)
		return p->spot_mtbf_s;
	if ((s = billing_find(db, supply_type_name(o->supply))) && s->spot_mtbf_s > 0)
		return s->spot_mtbf_s;
	for (size_t i = 0; i < db->n; i++)
		if (db->v[i].spot_mtbf_s > 0 && (m == 0 || db->v[i].spot_mtbf_s < m))
			m = db->v[i].spot_mtbf_s;
	return m;
}

int plan_price(const struct plan_price_env *env, const struct offer *o, enum plan_mode mode,
	       const struct plan_usage *pu, struct plan_cost *out)
{
	const struct billing_db *db = env->billing;
	const struct billing_profile *p = plan_price_profile(db, o);
	struct billing_profile q;
	struct usage u;
	struct bill b;
	enum billing_mode bm;
	double rate = o->price, up, n, sessions = pu->sessions >= 1 ? pu->sessions : 1;
	char err[256];

	memset(out, 0, sizeof(*out));
	if (!p)
		return -1;
	if (o->spot_only && mode != PLAN_SPOT)   /* a catalog row with a spot price alone */
		return -1;
	q = *p;
	switch (mode) {
	case PLAN_ON_DEMAND: bm = BILLING_ON_DEMAND; break;
	case PLAN_DAILY: bm = BILLING_DAILY; break;
	case PLAN_WEEKLY: bm = BILLING_WEEKLY; break;
	case PLAN_MONTHLY: bm = BILLING_MONTHLY; break;
	/* every hour of the span at the discounted rate: a service's month
	 * (src/core/plan/serve.c) passes the whole month as busy time */
	case PLAN_RESERVED_1Y: bm = BILLING_RESERVED_1Y; break;
	case PLAN_RESERVED_3Y: bm = BILLING_RESERVED_3Y; break;
	case PLAN_SPOT:
		if (o->spot_price <= 0)
			return -1;
		/* the catalog's own spot price, under the profile's rules */
		bm = BILLING_SPOT;
		rate = o->spot_price;
		q.spot_discount = 0;
		q.spot_mtbf_s = plan_price_spot_mtbf(db, p, o);
		if (q.spot_mtbf_s <= 0)
			return -1;
		if (pu->nodes > 1)   /* any node's interruption stops the job */
			q.spot_mtbf_s /= pu->nodes;
		break;
	default:
		return -1;
	}
	if (rate <= 0 && mode != PLAN_ON_DEMAND)
		return -1;
	billing_usage_init(&u);
	u.sessions[0].count = sessions;
	u.sessions[0].seconds = pu->busy_s / sessions;
	u.nsessions = 1;
	up = pu->busy_s + pu->idle_s;
	u.idle_fraction = up > 0 ? pu->idle_s / up : 0;
	u.data_gb = pu->data_bytes / 1e9;
	u.storage_days = up / 86400;   /* the data lives as long as the job */
	u.egress_gb = pu->egress_bytes / 1e9;
	u.fx = env->usd_per_unit(env->fx_ctx, p->currency);   /* profile money -> USD */
	if (!(u.fx > 0))
		return -1;
	u.ckpt_write_s = pu->ckpt_write_s;
	u.restart_s = pu->restart_s;
	if (billing_price(&q, bm, rate, &u, &b, err, sizeof(err)))
		return -1;
	n = pu->nodes > 1 ? pu->nodes : 1;   /* every node billed alike; egress once */
	out->compute = b.compute * n;
	out->idle = b.idle * n;
	out->storage = (b.storage + b.image + b.stopped) * n;
	out->egress = b.egress;
	out->total = (b.total - b.egress) * n + b.egress;
	out->busy_wall_s = mode == PLAN_SPOT ? b.spot_wall_hours * 3600 : pu->busy_s;
	out->interval_s = b.spot_interval_s;
	out->interruptions = b.spot_interruptions;
	snprintf(out->profile, sizeof(out->profile), "%s", p->name);
	out->hours_billed = b.hours_billed;
	out->hours_used = b.hours_used;
	if (b.rounding > 0.01 * b.rate_per_hour)   /* more than 36 s of rounding */
		out->note = PLAN_NOTE_ROUNDED;
	else if (mode == PLAN_SPOT)
		out->note = PLAN_NOTE_SPOT;
	else
		out->note = PLAN_NOTE_BILLING;
	return 0;
}
