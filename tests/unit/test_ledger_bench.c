/*
 * test_ledger_bench.c - gpurent bench's results in the ledger (schema v3):
 * a batch written and read back, the newest N, required fields, and a
 * v2 ledger gaining the table on open.
 */
#include "testutil.h"


#define LEDGERTEST_DIR "/tmp/gpurent-ledger-bench-XXXXXX"
#include "ledgertest.h"

static void test_add_and_list(void **state)
{
	struct ledger_bench b[3] = {
		{1700000000, "box-a", "NVIDIA H100 80GB HBM3", "gemm_bf16", 712.5, "TFLOP/s", 989.5},
		{1700000000, "box-a", NULL, "disk_write", 1.9, "GB/s", NAN},
		{1700000100, "box-b", "NVIDIA H100 80GB HBM3", "gemm_bf16", 655.0, "TFLOP/s", 989.5},
	};
	struct ledger_bench_rows rows;
	struct ledger *l;
	char err[512];

	(void)state;
	l = open_ok();
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);
	assert_int_equal(ledger_bench_add(l, b, 3, err, sizeof(err)), 0);
	assert_int_equal(ledger_bench_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 3);
	assert_string_equal(rows.v[0].host, "box-a");
	assert_string_equal(rows.v[0].gpu, "NVIDIA H100 80GB HBM3");
	assert_string_equal(rows.v[0].test, "gemm_bf16");
	assert_string_equal(rows.v[0].unit, "TFLOP/s");
	assert_true(rows.v[0].value == 712.5 && rows.v[0].nominal == 989.5);
	assert_null(rows.v[1].gpu);
	assert_true(isnan(rows.v[1].nominal));
	assert_string_equal(rows.v[2].host, "box-b");
	assert_true(rows.v[2].at == 1700000100);
	ledger_bench_rows_free(&rows);

	/* the newest two, still oldest first */
	assert_int_equal(ledger_bench_list(l, 2, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 2);
	assert_string_equal(rows.v[1].host, "box-b");
	ledger_bench_rows_free(&rows);

	/* all or nothing: a bad row refuses the batch */
	b[1].unit = NULL;
	assert_int_equal(ledger_bench_add(l, b, 3, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "benchmark result 2: time, host, test, value and unit"));
	b[1].unit = "GB/s";
	b[1].value = NAN;
	assert_int_equal(ledger_bench_add(l, b, 3, err, sizeof(err)), LEDGER_INVALID);
	assert_int_equal(ledger_bench_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 3);
	ledger_bench_rows_free(&rows);
	ledger_close(l);
}

/* A ledger written by a gpurent before bench (schema v2) gains the table. */
static void test_v2_ledger_migrates(void **state)
{
	struct ledger_bench b = {1700000200, "box-c", NULL, "cpu_sort", 95.0, "Melem/s", NAN};
	struct ledger_bench_rows rows;
	struct ledger *l;
	char err[512];

	(void)state;
	rewind_to(2);
	l = open_ok();
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);
	assert_int_equal(ledger_bench_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 0);
	ledger_bench_rows_free(&rows);
	assert_int_equal(ledger_bench_add(l, &b, 1, err, sizeof(err)), 0);
	assert_int_equal(ledger_bench_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 1);
	assert_string_equal(rows.v[0].test, "cpu_sort");
	ledger_bench_rows_free(&rows);
	ledger_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_list),
		cmocka_unit_test(test_v2_ledger_migrates),
	};
	return cmocka_run_group_tests_name("ledger_bench", tests, setup, teardown);
}
