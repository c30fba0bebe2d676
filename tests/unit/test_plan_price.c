/*
 * test_plan_price.c - the planner's pricer (src/core/plan/plan_price.h) on the
 * bundled data/billing.csv: which profile an offer gets, its spot MTBF,
 * and bills whose figures are worked out by hand from the profiles' rules
 * in the comments (docs/billing.md).
 */
#include <math.h>

#include "testutil.h"

#include "core/market/billing.h"
#include "core/text/currency.h"
#include "core/plan/plan_price.h"

static struct billing_db db;
static struct currency_table fx;   /* USD 1, CNY 0.125 (8 per USD): round figures */

static int setup(void **s)
{
	static const char cur[] = "code,usd,source\nUSD,1,x\nCNY,0.125,x\n";
	size_t len;
	char *buf = tu_read("data/billing.csv", &len), err[512];

	(void)s;
	if (!buf || billing_db_load(&db, buf, len, "billing.csv", err, sizeof(err))) {
		free(buf);
		return -1;
	}
	free(buf);
	return currency_table_load(&fx, cur, strlen(cur), "cur.csv", err, sizeof(err));
}

static int teardown(void **s)
{
	(void)s;
	billing_db_free(&db);
	currency_table_free(&fx);
	return 0;
}

static const struct plan_price_env env = {&db, plan_price_fx_currency, &fx};

/* An offer billed under `billing` ("" = by its supply type). */
static struct offer offer(const char *billing, enum supply_type supply, double price, double spot)
{
	struct offer o;

	memset(&o, 0, sizeof(o));
	o.billing.p = billing;
	o.billing.len = (uint32_t)strlen(billing);
	o.supply = supply;
	o.price = price;
	o.spot_price = spot;
	o.gpus = 1;
	return o;
}

static struct plan_usage usage(double busy_s, double idle_s, double sessions)
{
	struct plan_usage u;

	memset(&u, 0, sizeof(u));
	u.busy_s = busy_s;
	u.idle_s = idle_s;
	u.sessions = sessions;
	return u;
}

/* Equal to 1e-9 relative: the figures below are exact up to rounding. */
static void near(double got, double want, int line)
{
	if (!(fabs(got - want) < 1e-9 * (1 + fabs(want))))
		fail_msg("line %d: got %.12g, want %.12g", line, got, want);
}
#define NEAR(a, b) near((a), (b), __LINE__)

static void test_profile_choice(void **s)
{
	struct offer o;

	(void)s;
	o = offer("hourly", SUPPLY_HYPERSCALER, 1, 0);           /* the row's own */
	assert_string_equal(plan_price_profile(&db, &o)->name, "hourly");
	o = offer("HOURLY", SUPPLY_HYPERSCALER, 1, 0);           /* case-insensitive */
	assert_string_equal(plan_price_profile(&db, &o)->name, "hourly");
	o = offer("no-such-profile", SUPPLY_SERVERLESS, 1, 0);   /* its supply type's */
	assert_string_equal(plan_price_profile(&db, &o)->name, "serverless");
	o = offer("", SUPPLY_MARKETPLACE, 1, 0);
	assert_string_equal(plan_price_profile(&db, &o)->name, "marketplace");
	o = offer("", SUPPLY_UNKNOWN, 1, 0);                     /* no "unknown" row */
	assert_string_equal(plan_price_profile(&db, &o)->name, "per-second");
}

static void test_spot_mtbf(void **s)
{
	struct offer o;

	(void)s;
	/* aws states 24h */
	o = offer("aws", SUPPLY_HYPERSCALER, 1, 0.5);
	NEAR(plan_price_spot_mtbf(&db, plan_price_profile(&db, &o), &o), 24 * 3600);
	/* "hourly" states none: its supply type's, hyperscaler's 24h */
	o = offer("hourly", SUPPLY_HYPERSCALER, 1, 0.5);
	NEAR(plan_price_spot_mtbf(&db, plan_price_profile(&db, &o), &o), 24 * 3600);
	/* ai-cloud states none, nor does its supply row: the shortest of all, marketplace's 6h */
	o = offer("", SUPPLY_AI_CLOUD, 1, 0.5);
	NEAR(plan_price_spot_mtbf(&db, plan_price_profile(&db, &o), &o), 6 * 3600);
}

/* hourly (1h increments, no minimum): a 20-minute session is billed a whole hour. */
static void test_hourly_rounding(void **s)
{
	struct offer o = offer("hourly", SUPPLY_AI_CLOUD, 2.0, 0);
	struct plan_usage u = usage(20 * 60, 0, 1);
	struct plan_cost c;

	(void)s;
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.compute, 2.0);      /* 1 h x $2 */
	NEAR(c.idle, 0);
	NEAR(c.total, 2.0);
	NEAR(c.busy_wall_s, 1200);
	assert_int_equal(c.note, PLAN_NOTE_ROUNDED);
	assert_string_equal(c.profile, "hourly");
	assert_true(fabs(c.hours_billed - 1.00) < 0.005 && fabs(c.hours_used - 0.33) < 0.005);

	/* three 20-minute sessions: three hours, for one hour of work */
	u = usage(3 * 20 * 60, 0, 3);
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.total, 6.0);
	assert_int_equal(c.note, PLAN_NOTE_ROUNDED);
	assert_string_equal(c.profile, "hourly");
	assert_true(fabs(c.hours_billed - 3.00) < 0.005 && fabs(c.hours_used - 1.00) < 0.005);

	/* 20 min of work + 10 min idle: still one hour, shared 2:1 between work and idle */
	u = usage(20 * 60, 10 * 60, 1);
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.compute, 2.0 * 2 / 3);
	NEAR(c.idle, 2.0 / 3);
	NEAR(c.total, 2.0);
	assert_int_equal(c.note, PLAN_NOTE_ROUNDED);
	assert_string_equal(c.profile, "hourly");
	assert_true(fabs(c.hours_billed - 1.00) < 0.005 && fabs(c.hours_used - 0.50) < 0.005);

	/* no daily package in the hourly profile, no spot price on the offer */
	assert_int_equal(plan_price(&env, &o, PLAN_DAILY, &u, &c), -1);
	assert_int_equal(plan_price(&env, &o, PLAN_SPOT, &u, &c), -1);
	NEAR(c.total, 0);   /* zeroed */
}

/*
 * ai-cloud (per second, monthly package 30% off, storage 0.10 USD/GB-month
 * billed for its whole life): 100 h of work at $1/h with 50 GB of data.
 */
static void test_monthly_package(void **s)
{
	struct offer o = offer("", SUPPLY_AI_CLOUD, 1.0, 0);
	struct plan_usage u = usage(100 * 3600, 0, 1);
	struct plan_cost c;
	/* the data lives as long as the job: 100 h = 4.1667 days = 50 GB x 0.10 x 4.1667 / 30 */
	double storage = 50 * 0.10 * (100.0 / 24) / 30;

	(void)s;
	u.data_bytes = 50e9;
	/* one 720 h package at 0.7 $/h = $504, though only 100 h are used */
	assert_int_equal(plan_price(&env, &o, PLAN_MONTHLY, &u, &c), 0);
	NEAR(c.compute, 504);
	NEAR(c.storage, storage);
	NEAR(storage, 0.69444444444444444);
	NEAR(c.total, 504 + storage);
	assert_int_equal(c.note, PLAN_NOTE_ROUNDED);
	assert_string_equal(c.profile, "ai-cloud");
	assert_true(fabs(c.hours_billed - 720.00) < 0.005 && fabs(c.hours_used - 100.00) < 0.005);
	/* on demand: 100 h x $1, per second so no rounding */
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.compute, 100);
	NEAR(c.total, 100 + storage);
	assert_int_equal(c.note, PLAN_NOTE_BILLING);
	assert_string_equal(c.profile, "ai-cloud");
	/* daily: ceil(100 / 24) = 5 packages of 24 h at 0.95 $/h = $114 */
	assert_int_equal(plan_price(&env, &o, PLAN_DAILY, &u, &c), 0);
	NEAR(c.compute, 5 * 24 * 0.95);
}

/* The profile's money is converted: cn-container-per-second's storage is
 * 0.3 CNY/GB-month; at 8 CNY per USD, 10 GB for 10 h cost
 * 10 x 0.3 x 0.125 x (10/24) / 30 USD. The offer's price is already USD. */
static void test_profile_currency(void **s)
{
	struct offer o = offer("cn-container-per-second", SUPPLY_AI_CLOUD, 1.0, 0);
	struct plan_usage u = usage(10 * 3600, 0, 1);
	struct plan_cost c;
	struct currency_table usd_only;
	static const char cur[] = "code,usd,source\nUSD,1,x\n";
	const struct plan_price_env no_cny = {&db, plan_price_fx_currency, &usd_only};
	char err[256];

	(void)s;
	u.data_bytes = 10e9;
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.compute, 10);
	NEAR(c.storage, 0.005208333333333333);
	NEAR(c.total, 10.005208333333333);
	/* no rate for the profile's currency: not priced */
	assert_int_equal(currency_table_load(&usd_only, cur, strlen(cur), "c", err, sizeof(err)), 0);
	assert_int_equal(plan_price(&no_cny, &o, PLAN_ON_DEMAND, &u, &c), -1);
	currency_table_free(&usd_only);
}

/*
 * Spot on aws at the catalog's own spot price ($0.5/h, not 70% off the
 * on-demand price), MTBF 24 h, no checkpoints, no restart time: 10 h of
 * work take M (e^{T/M} - 1) = 86400 (e^{36000/86400} - 1) = 44659.88 s
 * (docs/billing.md "Expected wall time" with one segment), billed per
 * second: 44660 s x 0.5 / 3600 = $6.2027777; 44659.88 / 86400 = 0.517
 * interruptions.
 */
static void test_spot_expected(void **s)
{
	struct offer o = offer("aws", SUPPLY_HYPERSCALER, 2.0, 0.5);
	struct plan_usage u = usage(10 * 3600, 0, 1);
	struct plan_cost c;

	(void)s;
	assert_int_equal(plan_price(&env, &o, PLAN_SPOT, &u, &c), 0);
	NEAR(c.compute, 44660 * 0.5 / 3600);
	NEAR(c.compute, 6.2027777777777775);
	NEAR(c.total, c.compute);
	assert_true(fabs(c.busy_wall_s - 44659.88320794164) < 1e-6);
	assert_true(fabs(c.interruptions - 0.5168967963882134) < 1e-9);
	NEAR(c.interval_s, 0);   /* no checkpoints */
	assert_int_equal(c.note, PLAN_NOTE_SPOT);
	assert_string_equal(c.profile, "aws");
	assert_true(fabs(c.interruptions - 0.5) < 0.05);
	/* on demand for comparison: 10 h x $2 */
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &c), 0);
	NEAR(c.total, 20);
}

/* Issue 11: a job over nodes rents that many instances: each is billed
 * the whole usage, egress is the job's once, and spot interruptions come
 * nodes times as often (any node's stops the job). */
static void test_nodes(void **s)
{
	struct offer o = offer("hourly", SUPPLY_AI_CLOUD, 2.0, 0.8);
	struct plan_usage u = usage(3 * 3600, 0, 1), u2;
	struct plan_cost one, two, sp1, sp2;

	(void)s;
	u.egress_bytes = 100e9;
	u.ckpt_write_s = 60;
	u.restart_s = 300;
	u2 = u;
	u2.nodes = 2;
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u, &one), 0);
	assert_int_equal(plan_price(&env, &o, PLAN_ON_DEMAND, &u2, &two), 0);
	NEAR(two.compute, 2 * one.compute);
	NEAR(two.egress, one.egress);
	NEAR(two.total, 2 * (one.total - one.egress) + one.egress);
	/* spot, billed by the second: more interruptions over two nodes, so
	 * more than twice one node's compute */
	o = offer("per-second", SUPPLY_AI_CLOUD, 2.0, 0.8);
	assert_int_equal(plan_price(&env, &o, PLAN_SPOT, &u, &sp1), 0);
	assert_int_equal(plan_price(&env, &o, PLAN_SPOT, &u2, &sp2), 0);
	assert_true(sp2.interruptions > sp1.interruptions);
	assert_true(sp2.busy_wall_s > sp1.busy_wall_s);
	assert_true(sp2.compute > 2 * sp1.compute);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_choice),
		cmocka_unit_test(test_spot_mtbf),
		cmocka_unit_test(test_hourly_rounding),
		cmocka_unit_test(test_monthly_package),
		cmocka_unit_test(test_profile_currency),
		cmocka_unit_test(test_spot_expected),
		cmocka_unit_test(test_nodes),
	};
	return cmocka_run_group_tests_name("plan_price", tests, setup, teardown);
}
