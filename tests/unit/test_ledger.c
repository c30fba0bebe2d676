/*
 * test_ledger.c - the SQLite ledger (src/store/ledger.c): writes and reads,
 * 8 processes recording at once on one file (issue 4, acceptance 4),
 * corrupted and foreign files, the migration from schema v1, summaries.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "core/books/ledger_import.h"
#include "store/ledger.h"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/gpurent-ledger-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tmp_path(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Run SQL on a database with the plain SQLite API (the test's own hands). */
static void sql(const char *path, const char *text)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", path, msg);
	sqlite3_close(db);
}

static long long sql_int(const char *path, const char *text)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, text, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static char *slurp(const char *path, size_t *len)
{
	return tu_read(path, len);
}

static struct ledger *open_ok(const char *path)
{
	struct ledger *l = NULL;
	char err[512] = "";

	if (ledger_open(path, &l, err, sizeof(err)))
		fail_msg("ledger_open(%s): %s", path, err);
	return l;
}

/* ---- paths and opening ---- */

static void test_default_path(void **state)
{
	char buf[512], err[256], home[512];
	const char *h = getenv("HOME");

	(void)state;
	snprintf(home, sizeof(home), "%s", h ? h : "");
	setenv("GPURENT_LEDGER", "/x/ledger.db", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(ledger_default_path(buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/x/ledger.db");
	setenv("GPURENT_LEDGER", "", 1);   /* empty = unset */
	assert_int_equal(ledger_default_path(buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/xdg/gpurent/ledger.db");
	setenv("XDG_DATA_HOME", "relative", 1);   /* ignored, as the XDG spec says */
	assert_int_equal(ledger_default_path(buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/home/u/.local/share/gpurent/ledger.db");
	unsetenv("XDG_DATA_HOME");
	unsetenv("HOME");
	assert_int_equal(ledger_default_path(buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--ledger"));
	unsetenv("GPURENT_LEDGER");
	if (home[0])
		setenv("HOME", home, 1);
}

static void test_open_creates(void **state)
{
	struct ledger *l;
	struct stat st;
	char dir[512];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/xdg", tmpdir);
	unsetenv("GPURENT_LEDGER");
	setenv("XDG_DATA_HOME", dir, 1);
	l = open_ok(NULL);
	assert_string_equal(ledger_path(l), tmp_path("xdg/gpurent/ledger.db"));
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);
	ledger_close(l);
	unsetenv("XDG_DATA_HOME");

	assert_int_equal(stat(tmp_path("xdg/gpurent/ledger.db"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(tmp_path("xdg/gpurent"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(sql_int(tmp_path("xdg/gpurent/ledger.db"), "PRAGMA user_version"),
			 LEDGER_SCHEMA_VERSION);
	assert_int_equal(sql_int(tmp_path("xdg/gpurent/ledger.db"), "PRAGMA application_id"),
			 0x4750524C);
	assert_int_equal(sql_int(tmp_path("xdg/gpurent/ledger.db"),
				 "SELECT count(*) FROM gpurent_schema"), LEDGER_SCHEMA_VERSION);
	assert_int_equal(sql_int(tmp_path("xdg/gpurent/ledger.db"),
				 "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);

	/* an empty file (touch) becomes a ledger; reopening changes nothing */
	close(open(tmp_path("empty.db"), O_WRONLY | O_CREAT, 0600));
	ledger_close(open_ok(tmp_path("empty.db")));
	ledger_close(open_ok(tmp_path("empty.db")));
	assert_int_equal(sql_int(tmp_path("empty.db"), "SELECT count(*) FROM gpurent_schema"),
			 LEDGER_SCHEMA_VERSION);
}

/* ---- writing and reading ---- */

static void test_begin_update_finish(void **state)
{
	const char *path = tmp_path("runs.db");
	struct ledger *l = open_ok(path);
	struct ledger_run r, u;
	struct ledger_entry e;
	char err[512];
	int64_t id, id2;

	(void)state;
	ledger_run_init(&r);
	r.start = 1709647200.25;
	r.command = "python train.py --bs 8";
	r.host = "box-1";
	r.gpu_type = "RTX4090";
	r.gpu_count = 2;
	r.price_per_hour = 3.76;
	r.currency = "CNY";
	r.billing_mode = "per-second";
	r.log_path = "/data/gpurent-logs/run.log";
	r.tags = " lora , 7b,,lora";
	r.end = 1;   /* ignored by begin_run */
	assert_int_equal(ledger_begin_run(l, &r, &id, err, sizeof(err)), 0);
	assert_true(id >= 1);

	assert_int_equal(ledger_get(l, id, &e, err, sizeof(err)), 0);
	assert_string_equal(e.status, "running");
	assert_string_equal(e.run.kind, "guard");
	assert_true(isnan(e.run.end));
	assert_true(isnan(e.run.cost));
	assert_int_equal(e.run.exit_status, -1);
	assert_string_equal(e.run.tags, "lora,7b");   /* trimmed, in order, once each */
	assert_true(e.run.start == 1709647200.25);
	assert_true(e.recorded_at > 1.6e9);
	ledger_entry_free(&e);

	/* an update sets what it knows and keeps the rest */
	ledger_run_init(&u);
	u.cost = 1.5;
	u.idle_seconds = 30;
	assert_int_equal(ledger_update_run(l, id, &u, err, sizeof(err)), 0);
	assert_int_equal(ledger_get(l, id, &e, err, sizeof(err)), 0);
	assert_string_equal(e.status, "running");
	assert_near(e.run.cost, 1.5, 0);
	assert_string_equal(e.run.command, "python train.py --bs 8");
	assert_string_equal(e.run.currency, "CNY");
	assert_near(e.run.price_per_hour, 3.76, 0);
	ledger_entry_free(&e);

	/* finishing needs the end */
	ledger_run_init(&u);
	assert_int_equal(ledger_finish_run(l, id, &u, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "end"));
	u.end = r.start + 7200;
	u.cost = 7.52;
	u.exit_status = 137;
	u.restarts = 2;
	u.idle_seconds = 600;
	u.stop_reason = "idle";
	assert_int_equal(ledger_finish_run(l, id, &u, err, sizeof(err)), 0);
	assert_int_equal(ledger_get(l, id, &e, err, sizeof(err)), 0);
	assert_string_equal(e.status, "finished");
	assert_near(e.run.end - e.run.start, 7200, 1e-6);
	assert_near(e.run.cost, 7.52, 0);
	assert_near(e.run.price_per_hour, 3.76, 0);   /* the price paid, as recorded */
	assert_int_equal(e.run.exit_status, 137);
	assert_int_equal(e.run.restarts, 2);
	assert_near(e.run.idle_seconds, 600, 0);
	assert_string_equal(e.run.stop_reason, "idle");
	assert_string_equal(e.run.host, "box-1");
	assert_string_equal(e.run.log_path, "/data/gpurent-logs/run.log");
	assert_int_equal(e.run.gpu_count, 2);
	ledger_entry_free(&e);

	/* a finished run is never changed again */
	u.cost = 0;
	assert_int_equal(ledger_finish_run(l, id, &u, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "already finished"));
	assert_int_equal(ledger_update_run(l, id, &u, err, sizeof(err)), LEDGER_INVALID);
	assert_int_equal(ledger_get(l, id, &e, err, sizeof(err)), 0);
	assert_near(e.run.cost, 7.52, 0);
	ledger_entry_free(&e);

	/* unknown ids */
	assert_int_equal(ledger_finish_run(l, id + 100, &u, err, sizeof(err)), LEDGER_NOT_FOUND);
	assert_non_null(strstr(err, "no run"));
	assert_int_equal(ledger_get(l, id + 100, &e, err, sizeof(err)), LEDGER_NOT_FOUND);

	/* a manual entry is finished at once; its end may be unknown */
	ledger_run_init(&r);
	r.start = 1709700000;
	r.cost = 12.5;
	r.currency = "CNY";
	r.problems = "OOM at bs 8, then \"NCCL timeout\"\nretried";
	assert_int_equal(ledger_add(l, &r, &id2, err, sizeof(err)), 0);
	assert_true(id2 > id);
	assert_int_equal(ledger_get(l, id2, &e, err, sizeof(err)), 0);
	assert_string_equal(e.status, "finished");
	assert_string_equal(e.run.kind, "manual");
	assert_string_equal(e.run.problems, r.problems);
	assert_null(e.run.tags);
	assert_null(e.run.command);
	assert_int_equal(e.run.gpu_count, -1);
	ledger_entry_free(&e);
	ledger_close(l);
}

static void test_invalid_runs(void **state)
{
	const char *path = tmp_path("invalid.db");
	struct ledger *l = open_ok(path);
	struct ledger_run r;
	char err[512];
	int64_t id;

	(void)state;
#define EXPECT_INVALID(field, setup) do { \
		ledger_run_init(&r); r.start = 1e9; r.currency = "USD"; r.cost = 1; setup; \
		assert_int_equal(ledger_add(l, &r, &id, err, sizeof(err)), LEDGER_INVALID); \
		if (!strstr(err, field)) fail_msg("expected '%s' in: %s", field, err); \
	} while (0)
	EXPECT_INVALID("start", r.start = NAN);
	EXPECT_INVALID("start", r.start = -5);
	EXPECT_INVALID("end", r.end = r.start - 1);
	EXPECT_INVALID("kind", r.kind = "batch");
	EXPECT_INVALID("currency", r.currency = NULL);       /* a cost needs its currency */
	EXPECT_INVALID("currency", r.currency = "usd");
	EXPECT_INVALID("cost", r.cost = -1);
	EXPECT_INVALID("cost", r.cost = INFINITY);
	EXPECT_INVALID("price_per_hour", r.price_per_hour = -0.5);
	EXPECT_INVALID("gpu_count", r.gpu_count = -7);
	EXPECT_INVALID("tags", r.tags = "a-tag-far-too-long-to-be-a-tag-a-tag-far-too-long-to-be-a-tag-xx");
#undef EXPECT_INVALID
	/* nothing was written */
	assert_int_equal(sql_int(path, "SELECT count(*) FROM runs"), 0);
	/* no money, no currency needed */
	ledger_run_init(&r);
	r.start = 1e9;
	assert_int_equal(ledger_add(l, &r, &id, err, sizeof(err)), 0);
	ledger_close(l);
}

/* ---- acceptance 4: 8 processes at once ---- */

#define WRITERS 8
#define ROUNDS 40

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One guard's life, ROUNDS times: begin, update, finish. Exits 0 or 1. */
static void writer(const char *path, int w, int go)
{
	struct ledger *l = NULL;
	char err[512], cmd[64], c;
	int64_t id;

	/* wait until the parent lets every writer go at once */
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	if (ledger_open(path, &l, err, sizeof(err)))
		goto out_fail;
	for (int round = 0; round < ROUNDS; round++) {
		struct ledger_run r;
		ledger_run_init(&r);
		snprintf(cmd, sizeof(cmd), "writer %d round %d", w, round);
		r.start = 1.7e9 + w * 1000 + round;
		r.command = cmd;
		r.host = "box";
		r.gpu_type = "H100";
		r.gpu_count = 8;
		r.price_per_hour = 20;
		r.currency = "USD";
		r.tags = w % 2 ? "odd" : "even";
		if (ledger_begin_run(l, &r, &id, err, sizeof(err)))
			goto out_fail;
		ledger_run_init(&r);
		r.cost = 0.5;
		if (ledger_update_run(l, id, &r, err, sizeof(err)))
			goto out_fail;
		r.end = 1.7e9 + w * 1000 + round + 60;
		r.cost = 0.01 * (w + 1);
		r.exit_status = round % 3;
		r.restarts = 0;
		r.stop_reason = "exit";
		if (ledger_finish_run(l, id, &r, err, sizeof(err)))
			goto out_fail;
	}
	ledger_close(l);
	_exit(0);
out_fail:
	fprintf(stderr, "writer %d: %s\n", w, err);
	ledger_close(l);
	_exit(1);
}

static void test_concurrent_writers(void **state)
{
	/* A fresh path: the writers also race to create and migrate the file. */
	const char *path = tmp_path("concurrent/ledger.db");
	struct ledger_entries es;
	struct ledger *l;
	bool seen[WRITERS][ROUNDS] = {{false}};
	double t0, cost = 0;
	char err[512];
	int go[2], failed = 0;
	pid_t pids[WRITERS];

	(void)state;
	assert_int_equal(pipe(go), 0);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			close(go[1]);
			writer(path, w, go[0]);
		}
	}
	close(go[0]);
	t0 = now_s();
	close(go[1]);   /* EOF: all start now */
	for (int w = 0; w < WRITERS; w++) {
		int status;
		while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR)
			;
		if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			print_message("writer %d: %s %d\n", w, WIFEXITED(status) ? "exit status" :
				      "killed by signal", WIFEXITED(status) ? WEXITSTATUS(status) :
				      WTERMSIG(status));
			failed++;
		}
	}
	print_message("[ ledger   ] %d writers x %d runs (begin, update, finish: %d transactions) "
		      "in %.2f s\n", WRITERS, ROUNDS, WRITERS * ROUNDS * 3, now_s() - t0);
	assert_int_equal(failed, 0);

	l = open_ok(path);
	assert_int_equal(ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err)), 0);
	assert_int_equal(es.n, WRITERS * ROUNDS);
	for (size_t i = 0; i < es.n; i++) {
		const struct ledger_entry *e = &es.v[i];
		int w, round;
		assert_string_equal(e->status, "finished");
		assert_int_equal(sscanf(e->run.command, "writer %d round %d", &w, &round), 2);
		assert_true(w >= 0 && w < WRITERS && round >= 0 && round < ROUNDS);
		assert_false(seen[w][round]);
		seen[w][round] = true;
		assert_near(e->run.cost, 0.01 * (w + 1), 1e-12);
		assert_near(e->run.end - e->run.start, 60, 1e-6);
		assert_int_equal(e->run.exit_status, round % 3);
		assert_string_equal(e->run.tags, w % 2 ? "odd" : "even");
		cost += e->run.cost;
	}
	assert_near(cost, ROUNDS * 0.01 * (WRITERS * (WRITERS + 1) / 2), 1e-9);
	ledger_entries_free(&es);
	ledger_close(l);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM pragma_integrity_check "
				 "WHERE integrity_check = 'ok'"), 1);
	/* the migration ran once, whoever won the race */
	assert_int_equal(sql_int(path, "SELECT count(*) FROM gpurent_schema"), LEDGER_SCHEMA_VERSION);
}

/* ---- files that are not ledgers ---- */

/* Open must fail with a message containing want, and leave the file as it was. */
static void expect_refused(const char *path, const char *want)
{
	struct ledger *l = (struct ledger *)0x1;
	char err[1024] = "", wal[600];
	size_t n0, n1;
	char *before = slurp(path, &n0), *after;

	assert_non_null(before);
	assert_int_equal(ledger_open(path, &l, err, sizeof(err)), -1);
	assert_null(l);
	if (!strstr(err, want) || !strstr(err, path))
		fail_msg("expected '%s' and the path in: %s", want, err);
	assert_null(strchr(err, '\n'));
	after = slurp(path, &n1);
	assert_non_null(after);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_false(exists(wal));
	free(before);
	free(after);
}

static void fill_random(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static void test_corrupted_file(void **state)
{
	const char *path = tmp_path("random.db");
	unsigned char junk[16384];
	FILE *f;

	(void)state;
	fill_random(junk, sizeof(junk), 4);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	expect_refused(path, "not a SQLite database");

	/* a short file of text */
	path = tmp_path("notes.db");
	assert_non_null(f = fopen(path, "wb"));
	fputs("cost 12.5 CNY\n", f);
	fclose(f);
	expect_refused(path, "not a gpurent ledger");
}

static void test_damaged_ledger(void **state)
{
	const char *path = tmp_path("damaged.db");
	struct ledger *l = open_ok(path);
	struct ledger_entries es;
	struct ledger_run r;
	unsigned char junk[4096 - 100];
	char err[1024] = "";
	int fd, rc;

	(void)state;
	ledger_run_init(&r);
	r.start = 1e9;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), 0);
	ledger_close(l);   /* checkpoints the WAL into the file */
	/* the header survives, the schema page after it does not */
	fill_random(junk, sizeof(junk), 99);
	assert_true((fd = open(path, O_WRONLY)) >= 0);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 100), (ssize_t)sizeof(junk));
	close(fd);
	l = NULL;
	rc = ledger_open(path, &l, err, sizeof(err));
	if (rc == 0) {   /* if SQLite only notices on reading, reading must say so */
		rc = ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err));
		ledger_close(l);
	}
	assert_int_equal(rc, -1);
	if (!strstr(err, "corrupted") && !strstr(err, "not a gpurent ledger"))
		fail_msg("unclear message: %s", err);
	assert_non_null(strstr(err, path));
}

/* ledger-add-writes-into-corrupt-db: damage that only a full read would meet
 * (a cell pointer of the runs table) is refused on open, before any write. */
static void test_damaged_refused_on_open(void **state)
{
	const char *path = tmp_path("damaged-cell.db");
	struct ledger *l = open_ok(path);
	static const unsigned char bad[4] = {0xff, 0x00, 0xff, 0x13};
	struct ledger_run r;
	char err[1024] = "";
	int fd;

	(void)state;
	ledger_run_init(&r);
	r.start = 1e9;
	r.cost = 12.5;
	r.currency = "CNY";
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), 0);
	ledger_close(l);
	/* page 5 of a fresh ledger is the runs table */
	assert_true((fd = open(path, O_WRONLY)) >= 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(pwrite(fd, bad, sizeof(bad), 4 * 4096 + 8 + 4 * i), 4);
	close(fd);
	l = NULL;
	assert_int_equal(ledger_open(path, &l, err, sizeof(err)), -1);
	assert_null(l);
	assert_non_null(strstr(err, "the ledger is corrupted ("));
	assert_non_null(strstr(err, path));
	assert_null(strchr(err, '\n'));
}

/* ledger-cost-unbounded: money at most 1e12, times at most 1e11 s, on every write */
static void test_bounds(void **state)
{
	const char *path = tmp_path("bounds.db");
	struct ledger *l = open_ok(path);
	struct ledger_run r;
	char err[1024] = "";
	int64_t id;

	(void)state;
	ledger_run_init(&r);
	r.start = 1e9;
	r.currency = "USD";
	r.cost = 1.7e308;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "cost: expected an amount between 0 and 1e+12"));
	r.cost = 1e12 * (1 + 1e-15) + 1e3;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	r.cost = 1;
	r.price_per_hour = 2e12;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	assert_non_null(strstr(err, "price_per_hour"));
	r.price_per_hour = NAN;
	r.end = 2e11;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	r.end = NAN;
	r.idle_seconds = 1e300;
	assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	r.idle_seconds = NAN;
	r.cost = 1e12;
	assert_int_equal(ledger_add(l, &r, &id, err, sizeof(err)), 0);
	/* updates are bounded too (the guard's record path) */
	ledger_run_init(&r);
	r.start = 1e9;
	r.currency = "USD";
	assert_int_equal(ledger_begin_run(l, &r, &id, err, sizeof(err)), 0);
	ledger_run_init(&r);
	r.cost = 1.7e308;
	assert_int_equal(ledger_update_run(l, id, &r, err, sizeof(err)), LEDGER_INVALID);
	r.cost = 3;
	r.end = 1e9 + 3600;
	assert_int_equal(ledger_finish_run(l, id, &r, err, sizeof(err)), 0);
	ledger_close(l);
}

static void test_foreign_database(void **state)
{
	const char *path = tmp_path("places.sqlite");
	char buf[64];

	(void)state;
	sql(path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);"
		  "CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, fk INTEGER);"
		  "INSERT INTO moz_places (url) VALUES ('https://example.org');");
	expect_refused(path, "another application (tables: moz_bookmarks, moz_places)");
	assert_int_equal(sql_int(path, "SELECT count(*) FROM moz_places"), 1);

	/* an application_id of its own */
	path = tmp_path("fossil.db");
	sql(path, "PRAGMA application_id = 252006673; CREATE TABLE blob (rid INTEGER PRIMARY KEY);");
	snprintf(buf, sizeof(buf), "application_id 0x%08x", 252006673);
	expect_refused(path, buf);

	/* a table called runs does not make a ledger */
	path = tmp_path("other-runs.db");
	sql(path, "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT); PRAGMA user_version = 3;");
	expect_refused(path, "not a gpurent ledger");
}

static void test_newer_schema(void **state)
{
	const char *path = tmp_path("newer.db");

	(void)state;
	ledger_close(open_ok(path));
	sql(path, "PRAGMA user_version = 99");
	expect_refused(path, "newer gpurent (ledger schema v99");
}

/* ---- migrations ---- */

/* Schema v1 as gpurent wrote it (keep in step with migrations[0] in ledger.c). */
static const char v1_schema[] =
	"PRAGMA application_id = 1196446284;"
	"CREATE TABLE gpurent_schema (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL,"
	"  description TEXT NOT NULL);"
	"CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
	"  status TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL,"
	"  command TEXT, host TEXT, gpu_type TEXT, gpu_count INTEGER,"
	"  price_per_hour REAL, currency TEXT, billing_mode TEXT, cost REAL,"
	"  exit_status INTEGER, restarts INTEGER, stop_reason TEXT, log_path TEXT,"
	"  tags TEXT, notes TEXT);"
	"INSERT INTO gpurent_schema VALUES (1, 1700000000, 'runs: one row per run');"
	"INSERT INTO runs VALUES (5, 'guard', 'finished', 1700000000, 1700007200,"
	"  'python train.py', 'box-1', 'RTX4090', 1, 1.88, 'CNY', 'per-second', 3.76,"
	"  0, 1, 'exit', '/logs/5.log', 'lora, 7b ,,lora', 'first try');"
	"INSERT INTO runs VALUES (7, 'manual', 'finished', 1700100000, NULL,"
	"  NULL, NULL, 'A100-80GB', 8, NULL, 'USD', NULL, 120, NULL, NULL, NULL, NULL, '', NULL);"
	"INSERT INTO runs VALUES (9, 'guard', 'running', 1700200000, NULL,"
	"  'sleep 100', 'box-2', NULL, NULL, 0.5, 'USD', 'hourly', NULL, NULL, NULL, NULL,"
	"  NULL, NULL, NULL);"
	"PRAGMA user_version = 1;";

static void test_migrate_v1(void **state)
{
	const char *path = tmp_path("v1.db");
	struct ledger *l;
	struct ledger_entry e;
	struct ledger_run r;
	char err[512];
	int64_t id;

	(void)state;
	sql(path, v1_schema);
	l = open_ok(path);
	assert_int_equal(ledger_schema_version(l), LEDGER_SCHEMA_VERSION);

	assert_int_equal(ledger_get(l, 5, &e, err, sizeof(err)), 0);
	assert_string_equal(e.status, "finished");
	assert_string_equal(e.run.kind, "guard");
	assert_true(e.run.start == 1700000000 && e.run.end == 1700007200);
	assert_string_equal(e.run.command, "python train.py");
	assert_string_equal(e.run.host, "box-1");
	assert_string_equal(e.run.gpu_type, "RTX4090");
	assert_int_equal(e.run.gpu_count, 1);
	assert_near(e.run.price_per_hour, 1.88, 0);
	assert_string_equal(e.run.currency, "CNY");
	assert_string_equal(e.run.billing_mode, "per-second");
	assert_near(e.run.cost, 3.76, 0);
	assert_int_equal(e.run.exit_status, 0);
	assert_int_equal(e.run.restarts, 1);
	assert_string_equal(e.run.stop_reason, "exit");
	assert_string_equal(e.run.log_path, "/logs/5.log");
	assert_string_equal(e.run.tags, "lora,7b");   /* split into run_tags, in order */
	assert_string_equal(e.run.notes, "first try");
	assert_null(e.run.problems);                  /* new in v2: unknown */
	assert_true(isnan(e.run.idle_seconds));
	assert_true(e.recorded_at == 1700007200);     /* v1 had none: the end */
	ledger_entry_free(&e);

	assert_int_equal(ledger_get(l, 7, &e, err, sizeof(err)), 0);
	assert_null(e.run.tags);
	assert_int_equal(e.run.gpu_count, 8);
	assert_true(e.recorded_at == 1700100000);
	ledger_entry_free(&e);

	/* the run left running under v1 can be finished under v2 */
	ledger_run_init(&r);
	r.end = 1700203600;
	r.cost = 0.5;
	r.stop_reason = "exit";
	assert_int_equal(ledger_finish_run(l, 9, &r, err, sizeof(err)), 0);
	/* ids go on after the old ones */
	ledger_run_init(&r);
	r.start = 1700300000;
	assert_int_equal(ledger_add(l, &r, &id, err, sizeof(err)), 0);
	assert_true(id > 9);
	ledger_close(l);

	assert_int_equal(sql_int(path, "SELECT count(*) FROM runs"), 4);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM run_tags"), 2);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM gpurent_schema"), LEDGER_SCHEMA_VERSION);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM pragma_table_info('runs') "
				 "WHERE name = 'tags'"), 0);
	assert_int_equal(sql_int(path, "PRAGMA user_version"), LEDGER_SCHEMA_VERSION);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* opening again migrates nothing */
	ledger_close(open_ok(path));
	assert_int_equal(sql_int(path, "SELECT count(*) FROM gpurent_schema"), LEDGER_SCHEMA_VERSION);
}

static void test_failed_migration_changes_nothing(void **state)
{
	const char *path = tmp_path("v1-bad.db");
	struct ledger *l = NULL;
	char err[512];

	(void)state;
	sql(path, v1_schema);
	/* v2 allows only guard and manual runs: this row stops the migration */
	sql(path, "INSERT INTO runs (kind, status, started_at) VALUES ('batch', 'finished', 1)");
	assert_int_equal(ledger_open(path, &l, err, sizeof(err)), -1);
	assert_null(l);
	if (!strstr(err, "from schema v1 to v2") || !strstr(err, "CHECK"))
		fail_msg("unclear message: %s", err);
	assert_int_equal(sql_int(path, "PRAGMA user_version"), 1);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM runs"), 4);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM pragma_table_info('runs') "
				 "WHERE name = 'tags'"), 1);
	assert_int_equal(sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
				 "('runs_v2', 'run_tags')"), 0);
}

/* ---- summaries ---- */

static void entry(struct ledger_entry *e, int64_t id, const char *start_utc, double hours,
		  double cost, const char *currency, const char *tags, const char *gpu, int count)
{
	struct tm tm = {0};

	memset(e, 0, sizeof(*e));
	ledger_run_init(&e->run);
	e->id = id;
	e->status = isnan(hours) ? "running" : "finished";
	assert_int_equal(sscanf(start_utc, "%d-%d-%dT%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
				&tm.tm_hour), 4);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	e->run.start = (double)timegm(&tm);
	e->run.end = e->run.start + hours * 3600;
	e->run.cost = cost;
	e->run.currency = currency;
	e->run.tags = tags;
	e->run.gpu_type = gpu;
	e->run.gpu_count = count;
}

static const struct ledger_total *group(const struct ledger_summary *s, const char *key,
					const char *currency)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key) && !strcmp(s->v[i].currency, currency))
			return &s->v[i];
	fail_msg("no group %s/%s", key, currency);
	return NULL;
}

static void test_summary(void **state)
{
	struct ledger_entry v[4];
	struct ledger_entries es = {v, 4};
	struct ledger_summary s;
	const struct ledger_total *t;
	enum ledger_by by;
	char err[128];

	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	entry(&v[0], 1, "2024-03-04T23", 2, 10, "CNY", "lora,7b", "RTX4090", 2);
	entry(&v[1], 2, "2024-03-10T12", 1, 5, "USD", NULL, "A100", 1);
	entry(&v[2], 3, "2024-03-11T00", NAN, NAN, "CNY", NULL, "RTX4090", -1);
	entry(&v[3], 4, "2024-12-30T00", 0.5, 1, "CNY", "lora", NULL, 1);

	assert_int_equal(ledger_by_parse("week", &by), 0);
	assert_int_equal(by, LEDGER_BY_WEEK);
	assert_int_equal(ledger_by_parse("year", &by), -1);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_WEEK, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	t = group(&s, "2024-W10", "CNY");   /* Monday 4 March */
	assert_int_equal(t->runs, 1);
	assert_near(t->cost, 10, 1e-12);
	assert_near(t->hours, 2, 1e-12);
	assert_near(t->gpu_hours, 4, 1e-12);
	t = group(&s, "2024-W10", "USD");   /* Sunday 10 March: same ISO week, other currency */
	assert_near(t->cost, 5, 1e-12);
	t = group(&s, "2024-W11", "CNY");
	assert_int_equal(t->running, 1);
	assert_int_equal(t->runs_without_cost, 1);
	assert_near(t->hours, 0, 0);
	t = group(&s, "2025-W01", "CNY");   /* 30 December 2024 is in ISO week 1 of 2025 */
	assert_near(t->hours, 0.5, 1e-12);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_MONTH, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].key, "2024-03");   /* sorted by key, then currency */
	assert_string_equal(s.v[0].currency, "CNY");
	assert_int_equal(s.v[0].runs, 2);
	assert_near(s.v[0].cost, 10, 1e-12);
	assert_string_equal(s.v[1].currency, "USD");
	assert_string_equal(s.v[2].key, "2024-12");
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_DAY, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.v[0].key, "2024-03-04");
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_TAG, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	t = group(&s, "lora", "CNY");   /* runs 1 and 4 */
	assert_int_equal(t->runs, 2);
	assert_near(t->cost, 11, 1e-12);
	t = group(&s, "7b", "CNY");
	assert_int_equal(t->runs, 1);
	assert_int_equal(group(&s, "(untagged)", "CNY")->runs, 1);
	assert_int_equal(group(&s, "(untagged)", "USD")->runs, 1);
	ledger_summary_free(&s);

	assert_int_equal(ledger_summarize(&es, LEDGER_BY_GPU, &s, err, sizeof(err)), 0);
	assert_int_equal(group(&s, "RTX4090", "CNY")->runs, 2);
	assert_int_equal(group(&s, "(unknown)", "CNY")->runs, 1);
	assert_near(group(&s, "A100", "USD")->gpu_hours, 1, 1e-12);
	ledger_summary_free(&s);

	/* the totals: one line per currency, never added across */
	assert_int_equal(ledger_summarize(&es, LEDGER_BY_ALL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	t = group(&s, "all", "CNY");
	assert_int_equal(t->runs, 3);
	assert_near(t->cost, 11, 1e-12);
	assert_near(t->hours, 2.5, 1e-12);
	t = group(&s, "all", "USD");
	assert_int_equal(t->runs, 1);
	assert_near(t->cost, 5, 1e-12);
	ledger_summary_free(&s);

	es.n = 0;
	assert_int_equal(ledger_summarize(&es, LEDGER_BY_ALL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	ledger_summary_free(&s);
}

static void test_list_order(void **state)
{
	const char *path = tmp_path("order.db");
	struct ledger *l = open_ok(path);
	struct ledger_entries es;
	struct ledger_run r;
	char err[512];
	double starts[] = {300, 100, 200, 400};

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		ledger_run_init(&r);
		r.start = 1.7e9 + starts[i];
		assert_int_equal(ledger_add(l, &r, NULL, err, sizeof(err)), 0);
	}
	assert_int_equal(ledger_list(l, LEDGER_NEWEST_FIRST, 2, &es, err, sizeof(err)), 0);
	assert_int_equal(es.n, 2);
	assert_true(es.v[0].run.start == 1.7e9 + 400 && es.v[1].run.start == 1.7e9 + 300);
	ledger_entries_free(&es);
	assert_int_equal(ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err)), 0);
	assert_int_equal(es.n, 4);
	assert_true(es.v[0].run.start == 1.7e9 + 100 && es.v[3].run.start == 1.7e9 + 400);
	ledger_entries_free(&es);
	ledger_close(l);
}

/* ledger import: every row checked as ledger_add() checks it before
 * anything is stored, and one transaction (issue 26: ledger-import-partial) */
static void test_import_all_or_nothing(void **state)
{
	static const char good[] =
		"start_unix,end_unix,cost,currency,command,tags\n"
		"1709632800,1709640000,5,USD,a,x\n"
		"1709640000,1709650000,5,USD,b,y\n"
		"1709640000,1709650000,5,USD,b,y\n";
	static const char bad_start[] =
		"start,cost,currency,tags\n"
		"2024-03-05T10:00:00Z,1,USD,good\n"
		"1969-12-31T23:00:00Z,1,USD,bad\n";
	const char *path = tmp_path("import.db");
	struct ledger *l = open_ok(path);
	struct ledger_import im;
	struct ledger_entries es = {0};
	struct ledger_run bad[2];
	char err[1024] = "", tag[80];
	size_t added = 9, known = 9, at = 9;

	(void)state;
	assert_int_equal(ledger_import_parse(bad_start, sizeof(bad_start) - 1, "b.csv", &im, err, sizeof(err)), -1);
	assert_string_equal(err, "b.csv:3: start: expected unix seconds between 0 and 1e+11");
	assert_null(im.runs);
	assert_int_equal(ledger_import_parse(good, sizeof(good) - 1, "g.csv", &im, err, sizeof(err)), 0);
	assert_int_equal(im.n, 3);
	assert_int_equal(im.lines[2], 4);
	/* the two equal rows of one file are both new: only what was stored
	 * before the import began is "already in the ledger" */
	assert_int_equal(ledger_import_runs(l, im.runs, im.n, &added, &known, &at, err, sizeof(err)), 0);
	assert_true(added == 3 && known == 0 && at == 3);
	assert_int_equal(ledger_import_runs(l, im.runs, im.n, &added, &known, &at, err, sizeof(err)), 0);
	assert_true(added == 0 && known == 3);
	ledger_import_free(&im);
	/* a run the store refuses, second of two: nothing stored */
	memset(tag, 'T', 70);
	tag[70] = '\0';
	ledger_run_init(&bad[0]);
	bad[0].start = 1e9;
	bad[0].cost = 1;
	bad[0].currency = "USD";
	bad[1] = bad[0];
	bad[1].start = 2e9;
	bad[1].tags = tag;
	assert_int_equal(ledger_import_runs(l, bad, 2, &added, &known, &at, err, sizeof(err)), LEDGER_INVALID);
	assert_int_equal(at, 1);
	assert_string_equal(err, "tags: expected tags of at most 63 characters each");
	assert_int_equal(ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err)), 0);
	assert_int_equal(es.n, 3);
	ledger_entries_free(&es);
	ledger_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_open_creates),
		cmocka_unit_test(test_begin_update_finish),
		cmocka_unit_test(test_invalid_runs),
		cmocka_unit_test(test_concurrent_writers),
		cmocka_unit_test(test_corrupted_file),
		cmocka_unit_test(test_damaged_refused_on_open),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_damaged_ledger),
		cmocka_unit_test(test_foreign_database),
		cmocka_unit_test(test_newer_schema),
		cmocka_unit_test(test_migrate_v1),
		cmocka_unit_test(test_failed_migration_changes_nothing),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_list_order),
		cmocka_unit_test(test_import_all_or_nothing),
	};
	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
