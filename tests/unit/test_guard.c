/*
 * test_guard.c - the stop rules of `gpurent run` (src/core/box/guard.c) on
 * hand-made reading sequences: idle, stall, max-runtime, budget, back-off.
 */
#include "testutil.h"

#include "core/box/guard.h"

static const struct guard_limits idle5 = {.idle_s = 10, .idle_util = 5};

static void test_idle(void **s)
{
	struct guard_state g = {0};
	double t;
	(void)s;
	guard_start(&g, 100);
	/* busy for 5 s, then idle: stops 10 s after the first idle reading */
	for (t = 100; t <= 105; t += 1)
		assert_int_equal(guard_poll(&idle5, &g, t, t - 100, 90, true), GUARD_NONE);
	for (t = 106; t < 116; t += 1)
		assert_int_equal(guard_poll(&idle5, &g, t, t - 100, 2, true), GUARD_NONE);
	assert_int_equal(guard_poll(&idle5, &g, 116, 16, 2, true), GUARD_IDLE);
	assert_near(guard_idle_for(&g, 116), 10, 1e-9);
	assert_near(g.idle_total_s, 10, 1e-9);
}

static void test_idle_reset_and_unknown(void **s)
{
	struct guard_state g = {0};
	(void)s;
	guard_start(&g, 0);
	assert_int_equal(guard_poll(&idle5, &g, 1, 1, 0, true), GUARD_NONE);
	assert_int_equal(guard_poll(&idle5, &g, 9, 9, 4.9, true), GUARD_NONE);
	/* one busy reading starts the count over */
	assert_int_equal(guard_poll(&idle5, &g, 10, 10, 5, true), GUARD_NONE);
	assert_int_equal(guard_poll(&idle5, &g, 15, 15, 0, true), GUARD_NONE);
	assert_int_equal(guard_poll(&idle5, &g, 24, 24, 0, true), GUARD_NONE);
	assert_int_equal(guard_poll(&idle5, &g, 25, 25, 0, true), GUARD_IDLE);
	/* an unknown reading is never idle; nor is back-off (not running) */
	guard_start(&g, 0);
	for (double t = 0; t < 100; t += 5)
		assert_int_equal(guard_poll(&idle5, &g, t, t, -1, true), GUARD_NONE);
	for (double t = 100; t < 200; t += 5)
		assert_int_equal(guard_poll(&idle5, &g, t, t, 0, false), GUARD_NONE);
	/* idle off */
	{
		struct guard_limits off = {.idle_util = 5};
		guard_start(&g, 0);
		for (double t = 0; t < 100; t += 5)
			assert_int_equal(guard_poll(&off, &g, t, t, 0, true), GUARD_NONE);
	}
}

static void test_stall(void **s)
{
	struct guard_limits l = {.stall_s = 30};
	struct guard_state g = {0};
	(void)s;
	guard_start(&g, 0);
	assert_int_equal(guard_poll(&l, &g, 29, 29, -1, true), GUARD_NONE);
	guard_activity(&g, 29);   /* a line of output */
	assert_int_equal(guard_poll(&l, &g, 58, 58, -1, true), GUARD_NONE);
	assert_int_equal(guard_poll(&l, &g, 59, 59, -1, true), GUARD_STALL);
	/* a restart starts the clock over */
	guard_start(&g, 100);
	assert_int_equal(guard_poll(&l, &g, 120, 120, -1, true), GUARD_NONE);
}

static void test_runtime_budget_deadline(void **s)
{
	struct guard_limits l = {.max_runtime_s = 3600, .budget = 10, .price_per_hour = 4};
	struct guard_limits d = {.deadline_s = 60, .max_runtime_s = 60};
	struct guard_state g = {0};
	(void)s;
	guard_start(&g, 0);
	/* 10 / 4 per hour = 2.5 h, after max-runtime 1 h */
	assert_int_equal(guard_poll(&l, &g, 3599, 3599, -1, true), GUARD_NONE);
	assert_int_equal(guard_poll(&l, &g, 3600, 3600, -1, false), GUARD_MAX_RUNTIME);
	l.max_runtime_s = 0;
	assert_int_equal(guard_poll(&l, &g, 8999, 8999, -1, true), GUARD_NONE);
	assert_int_equal(guard_poll(&l, &g, 9000, 9000, -1, true), GUARD_BUDGET);
	assert_near(guard_cost(&l, 9000), 10, 1e-12);
	/* budget without a price never fires */
	l.price_per_hour = 0;
	assert_int_equal(guard_poll(&l, &g, 1e6, 1e6, -1, true), GUARD_NONE);
	assert_true(guard_cost(&l, 100) == 0);
	/* the hard deadline names itself before max-runtime */
	assert_int_equal(guard_poll(&d, &g, 60, 60, -1, true), GUARD_DEADLINE);
}

/* When the next limit falls due, and that guard_poll() then fires it. */
static void test_next_due(void **s)
{
	struct guard_limits l = {.max_runtime_s = 3600, .deadline_s = 7200, .budget = 1, .price_per_hour = 2,
				 .stall_s = 600, .idle_s = 300, .idle_util = 5};
	struct guard_limits none = {0};
	struct guard_state g = {0};
	double due;
	(void)s;
	guard_start(&g, 1000);
	assert_near(guard_next_due(&none, &g, 1000, true), 0, 0);
	/* t0 1000: budget 1 at 2/h is due at 1000 + 1800 before max-runtime's 4600; stall at 1600 */
	assert_near(guard_next_due(&l, &g, 1000, true), 1600, 1e-9);
	assert_near(guard_next_due(&l, &g, 1000, false), 2800, 1e-9);   /* no stall in back-off */
	guard_activity(&g, 1500);
	assert_near(guard_next_due(&l, &g, 1000, true), 2100, 1e-9);
	/* idle from 1550: due at 1850, and guard_poll() fires it then, not later */
	assert_int_equal(guard_poll(&l, &g, 1550, 550, 1, true), GUARD_NONE);
	due = guard_next_due(&l, &g, 1000, true);
	assert_near(due, 1850, 1e-9);
	assert_int_equal(guard_poll(&l, &g, due, due - 1000, 1, true), GUARD_IDLE);
	/* a budget due time is one guard_poll() agrees with */
	l.idle_s = l.stall_s = 0;
	guard_start(&g, 1000);
	due = guard_next_due(&l, &g, 1000, true);
	assert_near(due, 2800, 1e-9);
	assert_int_equal(guard_poll(&l, &g, due - 0.01, due - 0.01 - 1000, 90, true), GUARD_NONE);
	assert_int_equal(guard_poll(&l, &g, due + 1e-6, due + 1e-6 - 1000, 90, true), GUARD_BUDGET);
}

static void test_backoff(void **s)
{
	(void)s;
	assert_near(guard_backoff(10, 1), 10, 1e-12);
	assert_near(guard_backoff(10, 2), 20, 1e-12);
	assert_near(guard_backoff(10, 4), 80, 1e-12);
	assert_near(guard_backoff(10, 5), 160, 1e-12);
	assert_near(guard_backoff(10, 50), 160, 1e-12);   /* 16x at most */
	assert_true(guard_backoff(0, 3) == 0);
	assert_true(guard_backoff(10, 0) == 0);
}

static void test_names(void **s)
{
	(void)s;
	assert_string_equal(guard_reason_name(GUARD_NONE), "");
	assert_string_equal(guard_reason_name(GUARD_EXIT), "exit");
	assert_string_equal(guard_reason_name(GUARD_MAX_RUNTIME), "max-runtime");
	assert_string_equal(guard_reason_name(GUARD_DEADLINE), "hard-deadline");
	assert_string_equal(guard_reason_name((enum guard_reason)99), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_idle_reset_and_unknown),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_runtime_budget_deadline),
		cmocka_unit_test(test_next_due),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
