/*
 * test_spot.c - Young/Daly checkpoint intervals and Daly's expected wall
 * time, checked by hand-computed values and against a Monte-Carlo
 * simulation of exponential interruptions (issue 3: within 3%).
 */
#include "testutil.h"

#include "core/market/spot.h"

/* splitmix64: small, seeded, reproducible. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
/* Exponential with mean m: -m ln(U), U in (0,1]. */
static double rng_exp(double m)
{
	double u = ((rng_next() >> 11) + 1) * (1.0 / 9007199254740992.0);
	return -m * log(u);
}

/*
 * One run of `segments` segments of tau work + c write each. Failures
 * arrive as a Poisson process in wall time, during work, writes and
 * restarts alike; after one, a restart of r (itself interruptible) and
 * the segment starts over from the last checkpoint. Independent of
 * spot.c: the model the formula claims to describe, simulated directly.
 */
static double simulate(int segments, double tau, double c, double r, double m)
{
	double t = 0;

	for (int k = 0; k < segments; k++) {
		for (;;) {
			double f = rng_exp(m);
			if (f >= tau + c) {
				t += tau + c;
				break;
			}
			t += f;
			for (;;) {   /* restart until one completes */
				double g = rng_exp(m);
				if (g >= r) {
					t += r;
					break;
				}
				t += g;
			}
		}
	}
	return t;
}

static double mc_mean(int trials, int segments, double tau, double c, double r, double m)
{
	double sum = 0;

	for (int i = 0; i < trials; i++)
		sum += simulate(segments, tau, c, r, m);
	return sum / trials;
}

static void test_young_daly_by_hand(void **s)
{
	(void)s;
	/* C = 90 s, M = 6 h: sqrt(2*90*21600) = sqrt(3888000) */
	assert_near(spot_young_interval(90, 21600), 1971.8012, 1e-6);
	/* x = 90/43200; 1971.8012 * (1 + sqrt(x)/3 + x/9) - 90 */
	assert_near(spot_daly_interval(90, 21600), 1912.2576, 1e-6);
	/* C >= 2M: tau = M */
	assert_true(spot_daly_interval(7200, 3600) == 3600);
	assert_true(spot_daly_interval(0, 3600) == 0);
	assert_true(isnan(spot_young_interval(-1, 3600)));
	assert_true(isnan(spot_daly_interval(90, 0)));
	/* Daly's correction shortens the interval, and matters more as C/M grows */
	assert_true(spot_daly_interval(600, 7200) < spot_young_interval(600, 7200));
}

static void test_wall_limits(void **s)
{
	(void)s;
	/* never interrupted: only the writes, T (tau + C) / tau */
	assert_near(spot_daly_wall(86400, 1800, 90, 300, INFINITY), 86400 * 1890.0 / 1800, 1e-12);
	assert_near(spot_daly_wall(86400, 1800, 90, 300, 1e12), 86400 * 1890.0 / 1800, 1e-6);
	/* no checkpoints, R = 0: M (e^{T/M} - 1); 24 h at MTBF 6 h = 6 (e^4 - 1) h */
	assert_near(spot_expected_wall(86400, 0, 0, 21600, 0), 21600 * (exp(4) - 1), 1e-12);
	/* the default interval is Daly's */
	assert_near(spot_expected_wall(86400, 90, 300, 21600, 0),
		    spot_daly_wall(86400, spot_daly_interval(90, 21600), 90, 300, 21600), 1e-12);
	assert_true(spot_expected_wall(0, 90, 300, 21600, 0) == 0);
	assert_true(isnan(spot_daly_wall(86400, 0, 90, 300, 21600)));
}

/* Issue 3: the formula against the simulation, within 3%, in four regimes. */
static void test_monte_carlo(void **s)
{
	static const struct {
		double c, r, m, tau;  /* tau 0 = Daly's optimum */
		int segments;
	} cases[] = {
		{90, 300, 6 * 3600.0, 0, 40},      /* the command's example */
		{600, 120, 2 * 3600.0, 0, 20},     /* heavy: C/M = 1/12 */
		{60, 0, 3600, 600, 60},            /* a fixed 10-minute interval */
		{0, 300, 6 * 3600.0, 4 * 3600.0, 1},  /* no checkpoints: 4 h in one piece */
	};

	(void)s;
	rng_state = 20061001;   /* fixed seed: the test is reproducible */
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double tau = cases[i].tau > 0 ? cases[i].tau : spot_daly_interval(cases[i].c, cases[i].m);
		double work = tau * cases[i].segments;
		double formula = spot_daly_wall(work, tau, cases[i].c, cases[i].r, cases[i].m);
		double sim = mc_mean(20000, cases[i].segments, tau, cases[i].c, cases[i].r, cases[i].m);

		fprintf(stderr, "  monte-carlo case %zu: formula %.1f s, simulated %.1f s (%+.2f%%)\n",
			i, formula, sim, 100 * (sim - formula) / formula);
		assert_near(sim, formula, 0.03);
		/* and the interruptions matter: the wall time is well above the work */
		assert_true(formula > work * 1.01);
	}
}

/* Daly's optimum is a minimum: the simulated wall time is larger at half and double. */
static void test_optimum_is_minimum(void **s)
{
	double c = 300, r = 60, m = 3 * 3600.0, tau = spot_daly_interval(c, m);
	double work = 24 * tau;   /* the same work for every interval */

	(void)s;
	rng_state = 1974;
	{
		double at = mc_mean(20000, 24, tau, c, r, m);
		double half = mc_mean(20000, 48, tau / 2, c, r, m);
		double twice = mc_mean(20000, 12, tau * 2, c, r, m);
		fprintf(stderr, "  optimum %.0f s: wall %.0f, at half %.0f, at double %.0f (work %.0f)\n",
			tau, at, half, twice, work);
		assert_true(at < half);
		assert_true(at < twice);
	}
	/* the formula agrees: a minimum of T_w over tau */
	assert_true(spot_daly_wall(work, tau, c, r, m) < spot_daly_wall(work, tau * 0.8, c, r, m));
	assert_true(spot_daly_wall(work, tau, c, r, m) < spot_daly_wall(work, tau * 1.25, c, r, m));
}

static void test_evaluate(void **s)
{
	struct spot_params p = {.write_s = 90, .mtbf_s = 21600, .restart_s = 300, .work_s = 86400};
	struct spot_result res;
	char err[128];

	(void)s;
	assert_int_equal(spot_evaluate(&p, &res, err, sizeof(err)), 0);
	assert_near(res.interval_s, 1912.2576, 1e-6);
	assert_near(res.wall_s, spot_daly_wall(86400, res.interval_s, 90, 300, 21600), 1e-12);
	assert_near(res.overhead, res.wall_s / 86400 - 1, 1e-9);
	assert_near(res.interruptions, res.wall_s / 21600, 1e-12);
	assert_near(res.lost_s, res.wall_s - 86400, 1e-9);
	/* 24 h without checkpoints at MTBF 6 h: 6 h e^{5/360} (e^4 - 1) */
	assert_near(res.wall_no_ckpt_s, 21600 * exp(300.0 / 21600) * (exp(4) - 1), 1e-9);
	/* about 11% overhead for this case; Young's interval is within 0.1 point */
	assert_between(res.overhead, 0.10, 0.12);
	assert_true(res.overhead <= res.overhead_young);
	assert_true(res.overhead_young - res.overhead < 0.001);

	p.write_s = 0;
	assert_int_equal(spot_evaluate(&p, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "write"));
	p.write_s = 90;
	p.mtbf_s = -1;
	assert_int_equal(spot_evaluate(&p, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "mtbf"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_young_daly_by_hand),
		cmocka_unit_test(test_wall_limits),
		cmocka_unit_test(test_monte_carlo),
		cmocka_unit_test(test_optimum_is_minimum),
		cmocka_unit_test(test_evaluate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
