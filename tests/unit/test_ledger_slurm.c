/*
 * test_ledger_slurm.c - the Slurm attempts of guarded runs in the ledger
 * (slurm_attempts, issue 14): a row per run, replaced at the attempt's end,
 * unknown figures stored as NULL, bad ones refused, the row gone with its run.
 */
#include "testutil.h"

#define LEDGERTEST_DIR "/tmp/gpurent-ledger-slurm-XXXXXX"
#include "ledgertest.h"

static int64_t begin(struct ledger *l)
{
	struct ledger_run r;
	int64_t id = 0;
	char err[512];

	ledger_run_init(&r);
	r.start = 1700000000;
	r.command = "slurmjob";
	if (ledger_begin_run(l, &r, &id, err, sizeof(err)))
		fail_msg("%s", err);
	return id;
}

static long long q(struct ledger *l, const char *s)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -99;

	(void)l;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, s, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void test_put(void **state)
{
	struct ledger *l = open_ok();
	int64_t a = begin(l), b = begin(l);
	struct ledger_slurm s = {.run_id = a, .job_id = "42", .restart_count = 0, .queue_wait_s = 3,
				 .time_limit_s = 60, .action = NULL};
	char err[512];

	(void)state;
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), 0);
	s.action = "requeue";
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), 0);   /* replaced, not added */
	s = (struct ledger_slurm){.run_id = b, .job_id = "42", .restart_count = 1, .queue_wait_s = NAN,
				  .time_limit_s = NAN, .action = "end"};
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), 0);
	assert_int_equal(q(l, "SELECT count(*) FROM slurm_attempts WHERE job_id = '42'"), 2);
	assert_int_equal(q(l, "SELECT count(*) FROM slurm_attempts WHERE action = 'requeue' AND queue_wait_seconds = 3"), 1);
	assert_int_equal(q(l, "SELECT queue_wait_seconds FROM slurm_attempts WHERE restart_count = 1"), -1);
	/* bad input: nothing stored */
	s.job_id = "";
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), LEDGER_INVALID);
	s.job_id = "43";
	s.queue_wait_s = -5;
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), LEDGER_INVALID);
	s.queue_wait_s = INFINITY;
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), LEDGER_INVALID);
	s.queue_wait_s = 1;
	s.run_id = 0;
	assert_int_equal(ledger_slurm_put(l, &s, err, sizeof(err)), LEDGER_INVALID);
	assert_int_equal(q(l, "SELECT count(*) FROM slurm_attempts WHERE job_id = '43'"), 0);
	ledger_close(l);
	/* the attempt goes with its run */
	sql("PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 1;");
	assert_int_equal(q(NULL, "SELECT count(*) FROM slurm_attempts"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
