/*
 * test_ledger_probe.c - gpurent probe's measurements in the ledger (schema
 * v4): a probe written and read back field by field, by id and as the
 * newest, the newest N, required fields, a v3 ledger gaining the table on
 * open, a newer ledger refused; and workload_digest()'s stability.
 */
#include "testutil.h"

#include "core/model/workload.h"

#define LEDGERTEST_DIR "/tmp/gpurent-ledger-probe-XXXXXX"
#include "ledgertest.h"

static struct ledger_probe sample(double at, const char *host)
{
	struct ledger_probe p = {
		.at = at, .host = host, .gpu = "NVIDIA H100 80GB HBM3", .gpu_count = 2,
		.workload_digest = 0xfedcba9876543210ULL, .model = "llama-2-7b", .steps = 40,
		.warmup = 3, .steady_step_s = 0.75, .peak_mem = 61.5e9, .mem_growth = 1e6,
		.units_per_step = 8192, .units_per_s = 10922.5, .units_are_samples = false,
		.mfu = 0.31, .util_median = 96, .cpu_median = 35, .diagnoses = "warmup,mem_growing",
		.command = "torchrun --nproc 2 train.py 'a b'",
	};
	return p;
}

static void test_add_get_list(void **state)
{
	struct ledger_probe a = sample(1700000000, "box-a"), b = sample(1700000500, "box-b");
	struct ledger_probe_rows rows;
	struct ledger *l;
	int64_t ida = 0, idb = 0;
	char err[512];

	(void)state;
	l = open_ok();
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);
	assert_true(LEDGER_SCHEMA_VERSION >= 4);   /* probes came in v4 */
	/* none yet: latest is not found, the list is empty */
	assert_int_equal(ledger_probe_get(l, -1, &rows, err, sizeof(err)), LEDGER_NOT_FOUND);
	assert_non_null(strstr(err, "no probe recorded"));
	assert_int_equal(ledger_probe_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 0);
	ledger_probe_rows_free(&rows);

	b.gpu = NULL;
	b.gpu_count = 0;
	b.workload_digest = 0;
	b.mfu = NAN;
	b.diagnoses = "";
	b.units_are_samples = true;
	assert_int_equal(ledger_probe_add(l, &a, &ida, err, sizeof(err)), 0);
	assert_int_equal(ledger_probe_add(l, &b, &idb, err, sizeof(err)), 0);
	assert_true(idb > ida && ida > 0);

	assert_int_equal(ledger_probe_get(l, ida, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 1);
	{
		const struct ledger_probe *r = &rows.v[0];
		assert_true(r->id == ida);
		assert_true(r->at == a.at);
		assert_string_equal(r->host, "box-a");
		assert_string_equal(r->gpu, a.gpu);
		assert_int_equal(r->gpu_count, 2);
		/* all 64 bits, the top one too */
		assert_true(r->workload_digest == 0xfedcba9876543210ULL);
		assert_string_equal(r->model, "llama-2-7b");
		assert_int_equal(r->steps, 40);
		assert_int_equal(r->warmup, 3);
		assert_true(r->steady_step_s == 0.75 && r->peak_mem == 61.5e9 && r->mem_growth == 1e6);
		assert_true(r->units_per_step == 8192 && r->units_per_s == 10922.5);
		assert_false(r->units_are_samples);
		assert_true(r->mfu == 0.31 && r->util_median == 96 && r->cpu_median == 35);
		assert_string_equal(r->diagnoses, "warmup,mem_growing");
		assert_string_equal(r->command, a.command);
		assert_true(r->recorded_at > 1.7e9);
	}
	ledger_probe_rows_free(&rows);

	/* latest: the newest by time taken, unknowns read back as unknown */
	assert_int_equal(ledger_probe_get(l, -1, &rows, err, sizeof(err)), 0);
	assert_true(rows.v[0].id == idb);
	assert_null(rows.v[0].gpu);
	assert_int_equal(rows.v[0].gpu_count, 0);
	assert_true(rows.v[0].workload_digest == 0);
	assert_true(isnan(rows.v[0].mfu));
	assert_null(rows.v[0].diagnoses);
	assert_true(rows.v[0].units_are_samples);
	ledger_probe_rows_free(&rows);

	/* an older probe recorded later is not the latest */
	a.at = 1600000000;
	assert_int_equal(ledger_probe_add(l, &a, NULL, err, sizeof(err)), 0);
	assert_int_equal(ledger_probe_get(l, -1, &rows, err, sizeof(err)), 0);
	assert_true(rows.v[0].id == idb);
	ledger_probe_rows_free(&rows);

	/* newest first; the newest N */
	assert_int_equal(ledger_probe_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 3);
	assert_true(rows.v[0].at >= rows.v[1].at && rows.v[1].at >= rows.v[2].at);
	ledger_probe_rows_free(&rows);
	assert_int_equal(ledger_probe_list(l, 2, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 2);
	assert_true(rows.v[0].id == idb && rows.v[1].id == ida);
	ledger_probe_rows_free(&rows);

	assert_int_equal(ledger_probe_get(l, 999, &rows, err, sizeof(err)), LEDGER_NOT_FOUND);
	assert_non_null(strstr(err, "no probe with id 999"));
	ledger_close(l);

	/* read-only opens read them too */
	assert_int_equal(ledger_open_readonly(path, &l, err, sizeof(err)), 0);
	assert_int_equal(ledger_probe_get(l, ida, &rows, err, sizeof(err)), 0);
	assert_string_equal(rows.v[0].host, "box-a");
	ledger_probe_rows_free(&rows);
	ledger_close(l);
}

static void test_invalid(void **state)
{
	struct ledger_probe p = sample(1700000000, "box");
	struct ledger_probe_rows rows;
	struct ledger *l;
	char err[512];

	(void)state;
	l = open_ok();
	p.host = NULL;
	assert_int_equal(ledger_probe_add(l, &p, NULL, err, sizeof(err)), LEDGER_INVALID);
	p.host = "box";
	p.at = NAN;
	assert_int_equal(ledger_probe_add(l, &p, NULL, err, sizeof(err)), LEDGER_INVALID);
	p.at = 1700000000;
	p.steps = -1;
	assert_int_equal(ledger_probe_add(l, &p, NULL, err, sizeof(err)), LEDGER_INVALID);
	p.steps = 10;
	p.peak_mem = INFINITY;
	assert_int_equal(ledger_probe_add(l, &p, NULL, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "infinite"));
	assert_int_equal(ledger_probe_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 0);
	ledger_probe_rows_free(&rows);
	ledger_close(l);
}

/* A ledger written before probes (schema v3) gains the table; its bench
 * rows stay. A newer one is refused and left as it is. */
static void test_v3_migrates_newer_refused(void **state)
{
	struct ledger_probe p = sample(1700000000, "box");
	struct ledger_bench_rows br;
	struct ledger_probe_rows rows;
	struct ledger_bench b = {1700000000, "box", NULL, "cpu_sort", 95.0, "Melem/s", NAN};
	struct ledger *l;
	char err[512];

	(void)state;
	l = open_ok();
	assert_int_equal(ledger_bench_add(l, &b, 1, err, sizeof(err)), 0);
	ledger_close(l);
	/* back to v3: the tables of v4 and later go (the later steps run again) */
	rewind_to(3);
	/* read-only: not migrated, refused with the versions */
	assert_int_equal(ledger_open_readonly(path, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "schema 3"));
	l = open_ok();
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);
	assert_int_equal(ledger_bench_list(l, 0, &br, err, sizeof(err)), 0);
	assert_int_equal(br.n, 1);
	ledger_bench_rows_free(&br);
	assert_int_equal(ledger_probe_add(l, &p, NULL, err, sizeof(err)), 0);
	assert_int_equal(ledger_probe_list(l, 0, &rows, err, sizeof(err)), 0);
	assert_int_equal(rows.n, 1);
	ledger_probe_rows_free(&rows);
	ledger_close(l);

	{
		char q[64], v[16];
		snprintf(q, sizeof(q), "PRAGMA user_version = %d;", LEDGER_SCHEMA_VERSION + 1);
		snprintf(v, sizeof(v), "v%d", LEDGER_SCHEMA_VERSION + 1);
		sql(q);
		assert_int_equal(ledger_open(path, &l, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "newer gpurent"));
		assert_non_null(strstr(err, v));
	}
}

static void set(struct workload *w, const char *k, const char *v)
{
	char err[256];

	if (workload_set(w, k, v, 0, err, sizeof(err)))
		fail_msg("%s=%s: %s", k, v, err);
}

/* The digest: the same fields give the same value, a step-shaping field
 * changes it, where / how long / at what price do not. */
static void test_digest(void **state)
{
	struct workload a, b;
	uint64_t d;

	(void)state;
	workload_init(&a);
	set(&a, "model", "llama-2-7b");
	set(&a, "task", "lora");
	set(&a, "seq", "4096");
	b = a;
	d = workload_digest(&a);
	assert_true(d != 0);
	assert_true(workload_digest(&b) == d);
	set(&b, "gpu", "H100");
	set(&b, "tokens", "3e9");
	set(&b, "budget", "300");
	set(&b, "mfu", "0.3");
	assert_true(workload_digest(&b) == d);
	set(&b, "micro_batch", "2");
	assert_true(workload_digest(&b) != d);
	b = a;
	set(&b, "seq", "2048");
	assert_true(workload_digest(&b) != d);
	b = a;
	set(&b, "lora_targets", "q,v,k");
	assert_true(workload_digest(&b) != d);
	b = a;
	set(&b, "precision", "fp16");
	assert_true(workload_digest(&b) != d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_get_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v3_migrates_newer_refused, setup, teardown),
		cmocka_unit_test(test_digest),
	};
	return cmocka_run_group_tests_name("ledger_probe", tests, NULL, NULL);
}
