/*
 * test_ledger_summary.c - the ledger's pure summaries (src/core/
 * ledger_summary.c) on entries built in memory: groups by month, tag, GPU
 * and all, currencies never added, running runs, tags, and the bounds that
 * keep every total finite (ledger-cost-unbounded).
 */
#include <time.h>

#include "testutil.h"
#include "core/books/ledger_summary.h"
#include "core/text/names.h"

/* 2024-03-05 12:00 UTC and 2024-04-10 12:00 UTC */
#define MAR 1709640000.0
#define APR 1712750400.0

static struct ledger_entry entry(int64_t id, double start, double hours, double cost,
				 const char *cur, const char *gpu, int n, const char *tags)
{
	struct ledger_entry e;

	memset(&e, 0, sizeof(e));
	ledger_run_init(&e.run);
	e.id = id;
	e.status = isnan(hours) ? "running" : "finished";
	e.run.start = start;
	e.run.end = isnan(hours) ? NAN : start + hours * 3600;
	e.run.cost = cost;
	e.run.currency = cur;
	e.run.gpu_type = gpu;
	e.run.gpu_count = n;
	e.run.tags = tags;
	return e;
}

static const struct ledger_total *group(const struct ledger_summary *s, const char *key,
					const char *cur)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key) && !strcmp(s->v[i].currency, cur))
			return &s->v[i];
	fail_msg("no group %s/%s", key, cur);
	return NULL;
}

static void test_groups_and_currencies(void **state)
{
	struct ledger_entry v[] = {
		entry(1, MAR, 2, 12.5, "CNY", "RTX4090", 1, "lora, 7b"),
		entry(2, MAR + 86400, 1, 3, "CNY", "RTX4090", 2, NULL),
		entry(3, APR, 4, 10.5, "USD", "A100", 8, "lora"),
		entry(4, APR, NAN, NAN, "USD", NULL, -1, ""),
	};
	struct ledger_entries es = {v, 4};
	struct ledger_summary s;
	const struct ledger_total *t;
	char err[128];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(ledger_summarize(&es, LEDGER_BY_MONTH, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	t = group(&s, "2024-03", "CNY");
	assert_int_equal(t->runs, 2);
	assert_true(fabs(t->cost - 15.5) < 1e-9);
	assert_true(fabs(t->hours - 3) < 1e-9);
	assert_true(fabs(t->gpu_hours - 4) < 1e-9);
	t = group(&s, "2024-04", "USD");
	assert_int_equal(t->runs, 2);
	assert_int_equal(t->running, 1);
	assert_int_equal(t->runs_without_cost, 1);
	assert_true(fabs(t->gpu_hours - 32) < 1e-9);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_TAG, &s, err, sizeof(err)), 0);
	assert_int_equal(group(&s, "lora", "CNY")->runs, 1);
	assert_int_equal(group(&s, "lora", "USD")->runs, 1);
	assert_int_equal(group(&s, "7b", "CNY")->runs, 1);
	assert_int_equal(group(&s, "(untagged)", "CNY")->runs, 1);
	assert_int_equal(group(&s, "(untagged)", "USD")->runs, 1);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_GPU, &s, err, sizeof(err)), 0);
	assert_int_equal(group(&s, "RTX4090", "CNY")->runs, 2);
	assert_int_equal(group(&s, "(unknown)", "USD")->runs, 1);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_ALL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);   /* one total per currency, never added together */
	assert_true(fabs(group(&s, "all", "USD")->cost - 10.5) < 1e-9);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_WEEK, &s, err, sizeof(err)), 0);
	assert_int_equal(group(&s, "2024-W10", "CNY")->runs, 2);
	ledger_summary_free(&s);
}

/* ledger-cost-unbounded: values beyond the bounds are not summed; totals stay finite */
static void test_bounds_keep_totals_finite(void **state)
{
	struct ledger_entry v[] = {
		entry(1, MAR, 1, 1.7e308, "USD", "A100", 1, NULL),
		entry(2, MAR, 1, 1.7e308, "USD", "A100", 1, NULL),
		entry(3, MAR, 1, LEDGER_MAX_MONEY, "USD", "A100", 1, NULL),
		entry(4, MAR, 1, LEDGER_MAX_MONEY, "USD", "A100", 1, NULL),
		entry(5, MAR, 1, -0.0, "USD", "A100", 1, NULL),
		entry(6, MAR, 1, INFINITY, "USD", "A100", 1, NULL),
	};
	struct ledger_entries es = {v, 6};
	struct ledger_summary s;
	const struct ledger_total *t;

	(void)state;
	v[1].run.end = 1e300;   /* a duration no write accepts */
	assert_int_equal(ledger_summarize(&es, LEDGER_BY_ALL, &s, NULL, 0), 0);
	t = group(&s, "all", "USD");
	assert_true(isfinite(t->cost) && isfinite(t->hours) && isfinite(t->gpu_hours));
	assert_true(t->cost == 2 * LEDGER_MAX_MONEY);
	assert_false(signbit(t->cost));
	assert_int_equal(t->runs_without_cost, 3);
	assert_true(fabs(t->hours - 5) < 1e-9);
	ledger_summary_free(&s);
}

static int count_tag(const char *tag, size_t len, int pos, void *ctx)
{
	(void)tag, (void)len;
	*(int *)ctx += pos + 1;
	return 0;
}

static void test_tags_and_names(void **state)
{
	enum ledger_by by;
	int n = 0;

	(void)state;
	assert_int_equal(names_each(" a ,, b,\tc ", count_tag, &n), 0);
	assert_int_equal(n, 1 + 2 + 3);
	assert_int_equal(ledger_by_parse("week", &by), 0);
	assert_int_equal(by, LEDGER_BY_WEEK);
	assert_string_equal(ledger_by_name(LEDGER_BY_GPU), "gpu");
	assert_int_equal(ledger_by_parse("year", &by), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_and_currencies),
		cmocka_unit_test(test_bounds_keep_totals_finite),
		cmocka_unit_test(test_tags_and_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
