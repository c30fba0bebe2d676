/*
 * test_accuracy.c - issue 2 item 7: estimate every row of the published,
 * measured figures in ../shared/reference/measured-memory.csv and print
 * the relative errors. The median memory error must stay under 15%.
 * How each row is written as a workload: tests/data/measured-cases.csv.
 * Skips (with a line saying so) where ../shared is absent.
 */
#include "testutil.h"

#include "core/text/csv.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const struct csv_row *find_row(const struct csv *c, int idcol, const char *id)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(csv_get(&c->rows[i], idcol), id))
			return &c->rows[i];
	return NULL;
}

static void test_measured_memory(void **s)
{
	const char *shared = getenv("GPURENT_SHARED");
	char path[4096], err[512], args[1024];
	size_t len = 0, n = 0, nthr = 0;
	char *mbuf, *cbuf;
	struct csv meas, cases;
	double errs[128], worst = 0;
	const char *worst_id = "";
	int idc, memc, mid, mmetric, margs, mmeasured;

	(void)s;
	if (shared)
		snprintf(path, sizeof(path), "%s/reference/measured-memory.csv", shared);
	else
		snprintf(path, sizeof(path), "%s/../shared/reference/measured-memory.csv",
			 getenv("GPURENT_ROOT") ? getenv("GPURENT_ROOT") : ".");
	mbuf = tu_read(path, &len);
	if (!mbuf) {
		printf("SKIP accuracy: %s not found (../shared is absent; set GPURENT_SHARED)\n", path);
		skip();
	}
	assert_int_equal(csv_parse(mbuf, len, &meas, err, sizeof(err)), 0);
	cbuf = tu_read("tests/data/measured-cases.csv", &len);
	assert_non_null(cbuf);
	assert_int_equal(csv_parse(cbuf, len, &cases, err, sizeof(err)), 0);
	idc = csv_col(&meas, "id");
	memc = csv_col(&meas, "peak_mem_gib_norm");
	mid = csv_col(&cases, "id");
	mmetric = csv_col(&cases, "metric");
	margs = csv_col(&cases, "args");
	mmeasured = csv_col(&cases, "measured");
	assert_true(idc >= 0 && memc >= 0 && mid >= 0 && mmetric >= 0 && margs >= 0 && mmeasured >= 0);

	/* every measured row is covered by at least one case */
	for (size_t i = 0; i < meas.nrows; i++) {
		const char *id = csv_get(&meas.rows[i], idc);
		if (!find_row(&cases, mid, id))
			fail_msg("measured-memory.csv row %s has no case in tests/data/measured-cases.csv", id);
	}

	printf("%-8s %-10s %10s %10s %8s\n", "row", "metric", "measured", "estimate", "error");
	for (size_t i = 0; i < cases.nrows; i++) {
		const struct csv_row *cr = &cases.rows[i];
		const char *id = csv_get(cr, mid), *metric = csv_get(cr, mmetric);
		const struct csv_row *mr = find_row(&meas, idc, id);
		struct workload w;
		struct model_spec arch;
		struct estimate e;
		double est = 0, m;

		assert_non_null(mr);
		snprintf(args, sizeof(args), "%s", csv_get(cr, margs));
		if (tu_estimate_args(args, &w, &arch, &e, err, sizeof(err)))
			fail_msg("%s: %s", id, err);
		if (!strcmp(metric, "throughput")) {
			m = strtod(csv_get(cr, mmeasured), NULL);
			est = e.eff_flops / e.flops_per_unit;
			printf("%-8s %-10s %10.0f %10.0f %7.2fx  (per GPU per second, default MFU %.2f)\n",
			       id, metric, m, est, est / m, e.mfu);
			/* the defaults are meant to be conservative, not wild */
			assert_between(est / m, 0.25, 2.0);
			nthr++;
			continue;
		}
		if (!strcmp(metric, "oom_above") || !strcmp(metric, "fits_below")) {
			m = strtod(csv_get(cr, mmeasured), NULL);
			printf("%-8s %-10s %9.2fG %9.2fG  %s\n", id, metric, m / 1e9, e.mem.total / 1e9,
			       !strcmp(metric, "oom_above") ? "must exceed" : "must fit");
			if (!strcmp(metric, "oom_above"))
				assert_true(e.mem.total > m);
			else
				assert_true(e.mem.total <= m);
			continue;
		}
		m = strtod(csv_get(mr, memc), NULL) * 1073741824.0;
		if (!strcmp(metric, "allocated"))
			est = e.mem.allocated;
		else if (!strcmp(metric, "reserved"))
			est = e.mem.allocated + e.mem.allocator;
		else if (!strcmp(metric, "device"))
			est = e.mem.total;
		else
			fail_msg("%s: unknown metric %s", id, metric);
		assert_true(m > 0);
		errs[n] = fabs(est - m) / m;
		if (errs[n] > worst) {
			worst = errs[n];
			worst_id = id;
		}
		printf("%-8s %-10s %9.2fG %9.2fG %+7.1f%%\n", id, metric, m / 1073741824.0,
		       est / 1073741824.0, 100 * (est - m) / m);
		n++;
	}
	qsort(errs, n, sizeof(errs[0]), cmp_double);
	{
		double median = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
		printf("memory rows: %zu, median |error| %.1f%%, worst %.1f%% (%s); throughput rows: %zu\n",
		       n, 100 * median, 100 * worst, worst_id, nthr);
		assert_true(n >= 20);
		assert_true(median < 0.15);
	}
	csv_free(&meas);
	csv_free(&cases);
	free(mbuf);
	free(cbuf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measured_memory),
	};
	return cmocka_run_group_tests_name("accuracy", tests, tu_setup, tu_teardown);
}
