/*
 * ledger.c - the run ledger in SQLite (ledger.h): opening with the checks
 * that keep gpurent away from files that are not its own (foreign or
 * damaged files, newer schemas), versioned migrations, and the helpers
 * the other parts share (ledger_int.h). Writes: ledger_write.c; reads:
 * ledger_query.c; bench results: ledger_bench.c; probes: ledger_probe.c; summaries: the pure
 * src/core/books/ledger_summary.c. The schema is documented in docs/ledger.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/ledger_int.h"
#include "base/i18n.h"
#include "base/util.h"

/* PRAGMA application_id of a gpurent ledger: "GPRL". */
#define LEDGER_APP_ID 0x4750524C

/*
 * The migrations, in order: migrations[v - 1] takes the schema from v - 1
 * to v. A new ledger runs all of them, so the upgrade path is the path every
 * ledger takes. MUST only be appended to: a released step never changes.
 */
static const struct migration {
	const char *description;
	const char *sql;
} migrations[] = {
	{"runs: one row per run, tags as comma-separated text",
	 "CREATE TABLE gpurent_schema (\n"
	 "  version INTEGER PRIMARY KEY,\n"
	 "  applied_at REAL NOT NULL,\n"
	 "  description TEXT NOT NULL);\n"
	 "CREATE TABLE runs (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  kind TEXT NOT NULL,\n"
	 "  status TEXT NOT NULL,\n"
	 "  started_at REAL NOT NULL,\n"
	 "  ended_at REAL,\n"
	 "  command TEXT, host TEXT, gpu_type TEXT, gpu_count INTEGER,\n"
	 "  price_per_hour REAL, currency TEXT, billing_mode TEXT, cost REAL,\n"
	 "  exit_status INTEGER, restarts INTEGER, stop_reason TEXT, log_path TEXT,\n"
	 "  tags TEXT, notes TEXT);\n"},
	/* Numbers are checked by validate(), not by CHECK constraints, so that
	 * old rows a later rule would reject still migrate. */
	{"runs gain idle_seconds, problems, recorded_at and CHECKs on kind and status; "
	 "tags move to run_tags (one row per tag, in order)",
	 "CREATE TABLE runs_v2 (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  kind TEXT NOT NULL CHECK (kind IN ('guard', 'manual')),\n"
	 "  status TEXT NOT NULL CHECK (status IN ('running', 'finished')),\n"
	 "  started_at REAL NOT NULL,\n"
	 "  ended_at REAL,\n"
	 "  command TEXT, host TEXT, gpu_type TEXT, gpu_count INTEGER,\n"
	 "  price_per_hour REAL, currency TEXT, billing_mode TEXT, cost REAL,\n"
	 "  exit_status INTEGER, restarts INTEGER, idle_seconds REAL,\n"
	 "  stop_reason TEXT, log_path TEXT, notes TEXT, problems TEXT,\n"
	 "  recorded_at REAL NOT NULL);\n"
	 "INSERT INTO runs_v2 (id, kind, status, started_at, ended_at, command, host, gpu_type,\n"
	 "    gpu_count, price_per_hour, currency, billing_mode, cost, exit_status, restarts,\n"
	 "    idle_seconds, stop_reason, log_path, notes, problems, recorded_at)\n"
	 "  SELECT id, kind, status, started_at, ended_at, command, host, gpu_type,\n"
	 "    gpu_count, price_per_hour, currency, billing_mode, cost, exit_status, restarts,\n"
	 "    NULL, stop_reason, log_path, notes, NULL, coalesce(ended_at, started_at)\n"
	 "  FROM runs;\n"
	 "CREATE TEMP TABLE split_tags AS\n"
	 "  WITH RECURSIVE split(run_id, pos, tag, rest) AS (\n"
	 "    SELECT id, 0, '', tags || ',' FROM runs WHERE tags IS NOT NULL AND tags <> ''\n"
	 "    UNION ALL\n"
	 "    SELECT run_id, pos + 1, trim(substr(rest, 1, instr(rest, ',') - 1)),\n"
	 "           substr(rest, instr(rest, ',') + 1)\n"
	 "    FROM split WHERE rest <> '')\n"
	 "  SELECT run_id, pos, tag FROM split WHERE tag <> '';\n"
	 "DROP TABLE runs;\n"
	 "ALTER TABLE runs_v2 RENAME TO runs;\n"
	 /* The key columns come first: SQLite 3.40's integrity_check misreads a
	  * WITHOUT ROWID table with a plain column before a key column. */
	 "CREATE TABLE run_tags (\n"
	 "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	 "  tag TEXT NOT NULL,\n"
	 "  pos INTEGER NOT NULL,\n"
	 "  PRIMARY KEY (run_id, tag)) WITHOUT ROWID;\n"
	 "INSERT OR IGNORE INTO run_tags (run_id, pos, tag)\n"
	 "  SELECT run_id, pos, tag FROM temp.split_tags ORDER BY run_id, pos;\n"
	 "DROP TABLE temp.split_tags;\n"
	 "CREATE INDEX runs_started_at ON runs(started_at);\n"},
	/* gpurent bench: what each box measured, so boxes can be compared */
	{"bench_results: one row per measured figure (host, GPU, test, value, unit, nominal)",
	 "CREATE TABLE bench_results (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  measured_at REAL NOT NULL,\n"
	 "  host TEXT NOT NULL,\n"
	 "  gpu TEXT,\n"
	 "  test TEXT NOT NULL,\n"
	 "  value REAL NOT NULL,\n"
	 "  unit TEXT NOT NULL,\n"
	 "  nominal REAL,\n"
	 "  recorded_at REAL NOT NULL);\n"
	 "CREATE INDEX bench_results_measured_at ON bench_results(measured_at);\n"},
	/* gpurent probe: what the first steps of a real job measured, so that
	 * estimate and plan can be calibrated by it (--calibrate) */
	{"probes: one row per gpurent probe (host, GPU, workload digest, step time, memory, MFU, "
	 "diagnoses)",
	 "CREATE TABLE probes (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  taken_at REAL NOT NULL,\n"
	 "  host TEXT NOT NULL,\n"
	 "  gpu TEXT,\n"
	 "  gpu_count INTEGER,\n"
	 "  workload_digest TEXT,\n"
	 "  model TEXT,\n"
	 "  steps INTEGER NOT NULL,\n"
	 "  warmup INTEGER NOT NULL,\n"
	 "  steady_step_seconds REAL,\n"
	 "  peak_memory_bytes REAL,\n"
	 "  memory_growth_bytes_per_step REAL,\n"
	 "  units_per_step REAL,\n"
	 "  units_per_second REAL,\n"
	 "  units_are_samples INTEGER NOT NULL,\n"
	 "  mfu REAL,\n"
	 "  util_median REAL,\n"
	 "  cpu_median REAL,\n"
	 "  diagnoses TEXT,\n"
	 "  command TEXT,\n"
	 "  recorded_at REAL NOT NULL);\n"
	 "CREATE INDEX probes_taken_at ON probes(taken_at);\n"},
	/* gpurent release: the end of a rental, what it deleted by category and
	 * the platform action's answer (never a path's content or a secret) */
	{"releases: one row per gpurent release (deleted counts by category, the action and its answer)",
	 "CREATE TABLE releases (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  released_at REAL NOT NULL,\n"
	 "  host TEXT NOT NULL,\n"
	 "  verify TEXT NOT NULL,\n"
	 "  credentials INTEGER NOT NULL,\n"
	 "  leftovers INTEGER NOT NULL,\n"
	 "  paths INTEGER NOT NULL,\n"
	 "  histories INTEGER NOT NULL,\n"
	 "  bytes REAL NOT NULL,\n"
	 "  action TEXT,\n"
	 "  action_effect TEXT,\n"
	 "  action_status TEXT NOT NULL,\n"
	 "  action_answer TEXT,\n"
	 "  recorded_at REAL NOT NULL);\n"
	 "CREATE INDEX releases_released_at ON releases(released_at);\n"},
	/* gpurent bill import: the providers' bill lines, read by bill audit
	 * and report; item_key makes an import idempotent */
	{"bill_items: one row per line of an imported billing export",
	 "CREATE TABLE bill_items (\n"
	 "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	 "  item_key TEXT NOT NULL UNIQUE,\n"
	 "  file TEXT NOT NULL,\n"
	 "  line INTEGER NOT NULL,\n"
	 "  format TEXT NOT NULL,\n"
	 "  provider TEXT NOT NULL,\n"
	 "  started_at REAL NOT NULL,\n"
	 "  ended_at REAL NOT NULL,\n"
	 "  service TEXT NOT NULL,\n"
	 "  item TEXT NOT NULL,\n"
	 "  resource TEXT NOT NULL,\n"
	 "  kind TEXT NOT NULL,\n"
	 "  quantity REAL NOT NULL,\n"
	 "  unit TEXT NOT NULL,\n"
	 "  amount REAL NOT NULL,\n"
	 "  currency TEXT NOT NULL,\n"
	 "  imported_at REAL NOT NULL);\n"
	 "CREATE INDEX bill_items_started_at ON bill_items(started_at);\n"},
	/* gpurent run --preset slurm: each attempt of a Slurm job (a requeue
	 * starts a new run), so that the chain of one job can be followed */
	{"slurm_attempts: one row per guarded attempt of a Slurm job (job id, restart count, queue wait, "
	 "time limit, what the guard did at the end)",
	 "CREATE TABLE slurm_attempts (\n"
	 "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,\n"
	 "  job_id TEXT NOT NULL,\n"
	 "  restart_count INTEGER,\n"
	 "  queue_wait_seconds REAL,\n"
	 "  time_limit_seconds REAL,\n"
	 "  action TEXT,\n"
	 "  recorded_at REAL NOT NULL);\n"
	 "CREATE INDEX slurm_attempts_job ON slurm_attempts(job_id);\n"},
	/* gpurent bill import of real exports (issue 28): GCP's credits beside
	 * the cost, and the tags and labels that tie a disk to its instance */
	{"bill_items: credits (GCP's credits field summed) and tags (tags and labels of the line)",
	 "ALTER TABLE bill_items ADD COLUMN credits REAL NOT NULL DEFAULT 0;\n"
	 "ALTER TABLE bill_items ADD COLUMN tags TEXT NOT NULL DEFAULT '';\n"},
};

_Static_assert(ARRAY_SIZE(migrations) == LEDGER_SCHEMA_VERSION,
	       "one migration per schema version");

void ldb_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}


double ldb_now(void)
{
	return util_now_wall();
}

/* "PATH: what: <SQLite's words>", with advice for the errors users meet. */
int ldb_error(const struct ledger *l, int rc, const char *what, char *err, size_t errlen)
{
	const char *msg = l->db ? sqlite3_errmsg(l->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		ldb_set_err(err, errlen, _("%s: not a gpurent ledger: the file is not a SQLite database "
			"(corrupted, or another kind of file)"), l->path);
		break;
	case SQLITE_CORRUPT:
		ldb_set_err(err, errlen, _("%s: the ledger is corrupted (%s); keep a copy and try "
			"'sqlite3 %s .recover'"), l->path, msg, l->path);
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		ldb_set_err(err, errlen, _("%s: %s: the ledger stayed locked by another process for %d s"),
			l->path, what, LEDGER_BUSY_MS / 1000);
		break;
	case SQLITE_CANTOPEN:
		ldb_set_err(err, errlen, _("%s: %s: cannot open the file (%s)"), l->path, what, msg);
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		ldb_set_err(err, errlen, _("%s: %s: cannot write the ledger (%s)"), l->path, what, msg);
		break;
	default:
		ldb_set_err(err, errlen, "%s: %s: %s", l->path, what, msg);
	}
	return -1;
}

int ldb_exec(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : ldb_error(l, rc, what, err, errlen);
}

/*
 * ldb_exec(), retried while SQLite answers SQLITE_BUSY, for LEDGER_BUSY_MS in
 * all. The busy timeout covers most waits, but a few paths report BUSY at
 * once without calling the busy handler (changing the journal mode while
 * another process creates the file; a WAL being recovered), and a guard
 * must not lose its record to them. Sleeps 1-16 ms, varied by pid so that
 * racing processes do not retry in step.
 */
int ldb_exec_retry(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen)
{
	struct timespec pause;
	double deadline = 0;
	int rc;

	for (unsigned k = 0;; k++) {
		rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY)
			break;
		if (!deadline)
			deadline = util_now_mono() + LEDGER_BUSY_MS / 1000.0;
		else if (util_now_mono() > deadline)
			break;
		pause.tv_sec = 0;
		pause.tv_nsec = (long)(1 + (k + (unsigned)getpid()) % 16) * 1000000L;
		nanosleep(&pause, NULL);
	}
	return rc == SQLITE_OK ? 0 : ldb_error(l, rc, what, err, errlen);
}

int ldb_step_retry(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_BUSY) {
		sqlite3_reset(st);
		rc = sqlite3_step(st);
	}
	return rc;
}

int ldb_insert(struct ledger *l, sqlite3_stmt *st, int64_t *id, const char *what, char *err,
	       size_t errlen)
{
	int rc = ldb_step_retry(st);

	if (rc != SQLITE_DONE) {
		ldb_error(l, rc, what, err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(l->db);
	sqlite3_finalize(st);
	return 0;
}

char *ldb_text_cols(sqlite3_stmt *st, int first, int n, const char **const *dest)
{
	size_t total = 0, used = 0;
	char *mem;

	for (int c = first; c < first + n; c++)
		total += (size_t)sqlite3_column_bytes(st, c) + 1;
	if (!(mem = malloc(total)))
		return NULL;
	for (int c = first; c < first + n; c++) {
		const unsigned char *s = sqlite3_column_text(st, c);
		size_t len = (size_t)sqlite3_column_bytes(st, c);
		if (sqlite3_column_type(st, c) == SQLITE_NULL) {
			*dest[c - first] = NULL;
			continue;
		}
		memcpy(mem + used, s ? (const char *)s : "", len);
		mem[used + len] = '\0';
		*dest[c - first] = mem + used;
		used += len + 1;
	}
	return mem;
}

/* Roll back whatever transaction is open; the original error is kept. */
void ldb_rollback(struct ledger *l)
{
	if (!sqlite3_get_autocommit(l->db))
		sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
}

/* One integer from a one-row query; 0 or -1. */
static int query_int(struct ledger *l, const char *sql, long long *out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return ldb_error(l, rc, _("reading the schema"), err, errlen);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ldb_error(l, rc, _("reading the schema"), err, errlen);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* ---- paths ---- */

int ledger_default_path(char *buf, size_t n, char *err, size_t errlen)
{
	const char *env = getenv("GPURENT_LEDGER"), *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int len;

	if (env && *env)
		len = snprintf(buf, n, "%s", env);
	else if (xdg && xdg[0] == '/')   /* the XDG spec: relative values are ignored */
		len = snprintf(buf, n, "%s/gpurent/ledger.db", xdg);
	else if (home && *home)
		len = snprintf(buf, n, "%s/.local/share/gpurent/ledger.db", home);
	else {
		ldb_set_err(err, errlen, _("no ledger path: set GPURENT_LEDGER, XDG_DATA_HOME or HOME, "
			"or give --ledger PATH"));
		return -1;
	}
	if (len < 0 || (size_t)len >= n) {
		ldb_set_err(err, errlen, _("the ledger path is too long"));
		return -1;
	}
	return 0;
}

/* mkdir -p of the directories above path (mode 0700 for new ones). */
static int make_parents(const char *path, char *err, size_t errlen)
{
	char *dir = strdup(path), *p;
	int ret = -1;

	if (!dir) {
		ldb_set_err(err, errlen, _("%s: out of memory"), path);
		return -1;
	}
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			ldb_set_err(err, errlen, _("%s: cannot create directory %s: %s"), path, dir, strerror(errno));
			goto out_free_dir;
		}
		*p = '/';
	}
	ret = 0;
out_free_dir:
	free(dir);
	return ret;
}

/* Create an absent ledger file readable by its owner only (commands and
 * notes may say more than the user wants to share); SQLite gives its -wal
 * and -shm files the same mode. An existing file is left as it is. */
static int create_private(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		ldb_set_err(err, errlen, _("%s: is a directory; the ledger is a file (e.g. %s/ledger.db)"),
			path, path);
		return -1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		ldb_set_err(err, errlen, _("%s: not a regular file; the ledger is a file"), path);
		return -1;
	}
	if (make_parents(path, err, errlen))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST) {
		ldb_set_err(err, errlen, _("%s: cannot create the ledger: %s"), path, strerror(errno));
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* ---- opening and migrations ---- */

/*
 * Decide whether the open file is a gpurent ledger, a new empty file, or
 * something else, reading only (SQLite reads the header under a shared
 * lock, so a half-written header is never seen). *version gets the schema
 * version (0 for a new file).
 */
static int classify_snapshot(struct ledger *l, int *version, char *err, size_t errlen);

static int classify(struct ledger *l, int *version, char *err, size_t errlen)
{
	int rc;

	/* One read transaction: all four answers from one snapshot, even while
	 * another process creates the ledger. */
	if (ldb_exec(l, "BEGIN", _("reading the schema"), err, errlen))
		return -1;
	rc = classify_snapshot(l, version, err, errlen);
	sqlite3_exec(l->db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	return rc;
}

/*
 * PRAGMA quick_check on the ledger: every page, cell and record is
 * looked at (not the indexes' contents), so a damaged file is refused on
 * open by every command (add and the guard's record too, not only the
 * reads that stumble on the damage) and never written further. 0, or -1
 * with "PATH: the ledger is corrupted (...)".
 */
static int check_integrity(struct ledger *l, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(l->db, "PRAGMA quick_check(1)", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *what = (const char *)sqlite3_column_text(st, 0);
		if (what && !strcmp(what, "ok")) {
			sqlite3_finalize(st);
			return 0;
		}
		char first[200];
		const char *nl;
		/* one line: SQLite's "*** in database main ***" heading dropped, lines joined */
		if (what && (nl = strchr(what, '\n')) && !strncmp(what, "***", 3))
			what = nl + 1;
		snprintf(first, sizeof(first), "%s", what ? what : "?");
		for (char *c = first; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		ldb_set_err(err, errlen, _("%s: the ledger is corrupted (%s); keep a copy and try "
			"'sqlite3 %s .recover'"), l->path, first, l->path);
		sqlite3_finalize(st);
		return -1;
	}
	ldb_error(l, rc, _("checking the ledger"), err, errlen);
	sqlite3_finalize(st);
	return -1;
}

static int classify_snapshot(struct ledger *l, int *version, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	long long app_id, user_version, tables, ours;
	char names[256] = "";
	size_t used = 0;
	int rc;

	if (query_int(l, "PRAGMA application_id", &app_id, err, errlen) ||
	    query_int(l, "PRAGMA user_version", &user_version, err, errlen) ||
	    query_int(l, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'",
		      &tables, err, errlen) ||
	    query_int(l, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
		      "name = 'gpurent_schema'", &ours, err, errlen))
		return -1;
	if (app_id == LEDGER_APP_ID || (app_id == 0 && ours && user_version > 0)) {
		if (user_version > LEDGER_SCHEMA_VERSION) {
			ldb_set_err(err, errlen, _("%s: written by a newer gpurent (ledger schema v%lld; this "
				"one reads up to v%d): upgrade gpurent"), l->path, user_version,
				LEDGER_SCHEMA_VERSION);
			return -1;
		}
		if (user_version < 1) {
			ldb_set_err(err, errlen, _("%s: a gpurent ledger with no schema version; it was not "
				"written by gpurent"), l->path);
			return -1;
		}
		*version = (int)user_version;
		return check_integrity(l, err, errlen);
	}
	if (app_id == 0 && user_version == 0 && tables == 0) {
		*version = 0;
		return 0;
	}
	/* Someone else's database: name a few of its tables so the user knows whose. */
	rc = sqlite3_prepare_v2(l->db, "SELECT name FROM sqlite_master WHERE type = 'table' AND "
				"name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 6", -1, &st, NULL);
	while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && used < sizeof(names) - 1) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int w = snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
				 name ? name : "?");
		if (w < 0)
			break;
		used += (size_t)w;
	}
	sqlite3_finalize(st);
	if (app_id != 0)
		ldb_set_err(err, errlen, _("%s: not a gpurent ledger: a SQLite database of another "
			"application (application_id 0x%08llx%s%s); give --ledger another path"),
			l->path, (unsigned long long)app_id & 0xffffffffULL, names[0] ? ", tables: " : "",
			names);
	else
		ldb_set_err(err, errlen, _("%s: not a gpurent ledger: a SQLite database of another "
			"application (tables: %s); give --ledger another path"), l->path,
			names[0] ? names : "none");
	return -1;
}

/* Apply migrations from the version found to LEDGER_SCHEMA_VERSION, all in
 * one IMMEDIATE transaction: another process migrating at the same time
 * waits, then finds nothing left to do. */
static int migrate(struct ledger *l, char *err, size_t errlen)
{
	long long current;
	char sql[256], what[96];
	int from;

	/* The table rebuild of a migration needs foreign keys off (a no-op
	 * inside a transaction, so set before BEGIN). */
	if (ldb_exec(l, "PRAGMA foreign_keys = OFF", _("migrating"), err, errlen) ||
	    ldb_exec_retry(l, "BEGIN IMMEDIATE", _("migrating"), err, errlen))
		return -1;
	if (query_int(l, "PRAGMA user_version", &current, err, errlen))
		goto out_rollback;
	if (current > LEDGER_SCHEMA_VERSION) {
		ldb_set_err(err, errlen, _("%s: written by a newer gpurent (ledger schema v%lld; this one "
			"reads up to v%d): upgrade gpurent"), l->path, current, LEDGER_SCHEMA_VERSION);
		goto out_rollback;
	}
	from = (int)current;
	if (from == 0) {
		long long tables;
		if (query_int(l, "SELECT count(*) FROM sqlite_master", &tables, err, errlen))
			goto out_rollback;
		if (tables) {
			ldb_set_err(err, errlen, _("%s: not a gpurent ledger: another program created "
				"tables in it while gpurent was opening it"), l->path);
			goto out_rollback;
		}
	}
	for (int v = from + 1; v <= LEDGER_SCHEMA_VERSION; v++) {
		snprintf(what, sizeof(what), _("migrating the ledger from schema v%d to v%d"), v - 1, v);
		if (ldb_exec(l, migrations[v - 1].sql, what, err, errlen))
			goto out_rollback;
		snprintf(sql, sizeof(sql), "INSERT INTO gpurent_schema (version, applied_at, "
			 "description) VALUES (%d, %.6f, ?)", v, ldb_now());
		{
			sqlite3_stmt *st = NULL;
			int rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL);
			if (rc == SQLITE_OK) {
				sqlite3_bind_text(st, 1, migrations[v - 1].description, -1, SQLITE_STATIC);
				rc = sqlite3_step(st);
			}
			sqlite3_finalize(st);
			if (rc != SQLITE_DONE) {
				ldb_error(l, rc, what, err, errlen);
				goto out_rollback;
			}
		}
	}
	if (from < LEDGER_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d",
			 LEDGER_SCHEMA_VERSION, LEDGER_APP_ID);
		if (ldb_exec(l, sql, "migrating", err, errlen))
			goto out_rollback;
	}
	if (ldb_exec(l, "COMMIT", _("migrating"), err, errlen))
		goto out_rollback;
	l->version = LEDGER_SCHEMA_VERSION;
	return ldb_exec(l, "PRAGMA foreign_keys = ON", _("opening"), err, errlen);
out_rollback:
	ldb_rollback(l);
	return -1;
}

/* A ledger handle for path, not yet open; NULL with the reason in err. */
static struct ledger *ledger_new(const char *path, char *err, size_t errlen)
{
	struct ledger *l = calloc(1, sizeof(*l));

	if (!l || !(l->path = strdup(path))) {
		free(l);
		ldb_set_err(err, errlen, _("%s: out of memory"), path);
		return NULL;
	}
	return l;
}

/* Close and free a handle that failed to open (NULL: nothing). */
static void ledger_discard(struct ledger *l)
{
	if (!l)
		return;
	sqlite3_close(l->db);   /* a no-op on NULL */
	free(l->path);
	free(l);
}

int ledger_open(const char *path, struct ledger **out, char *err, size_t errlen)
{
	char defpath[4096];
	struct ledger *l;
	int rc, version;

	*out = NULL;
	if (!path) {
		if (ledger_default_path(defpath, sizeof(defpath), err, errlen))
			return -1;
		path = defpath;
	}
	if (!*path) {
		ldb_set_err(err, errlen, _("the ledger path is empty"));
		return -1;
	}
	if (sq_load(err, errlen))
		return -1;
	if (!(l = ledger_new(path, err, errlen)))
		return -1;
	if (create_private(path, err, errlen))
		goto out_close;
	rc = sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		ldb_error(l, rc, _("opening"), err, errlen);
		goto out_close;
	}
	sqlite3_extended_result_codes(l->db, 1);
	sqlite3_busy_timeout(l->db, LEDGER_BUSY_MS);
	if (classify(l, &version, err, errlen))
		goto out_close;
	/* WAL lets readers and the one writer proceed together; FULL makes every
	 * committed run survive a power cut. The mode is stored in the file. */
	if (ldb_exec_retry(l, "PRAGMA journal_mode = WAL", _("setting WAL mode"), err, errlen) ||
	    ldb_exec(l, "PRAGMA synchronous = FULL", _("opening"), err, errlen))
		goto out_close;
	l->version = version;
	if (migrate(l, err, errlen))
		goto out_close;
	*out = l;
	return 0;
out_close:
	ledger_discard(l);
	return -1;
}

int ledger_open_readonly(const char *path, struct ledger **out, char *err, size_t errlen)
{
	struct ledger *l;
	int rc, version;

	*out = NULL;
	if (!path || !*path) {
		ldb_set_err(err, errlen, _("the ledger path is empty"));
		return -1;
	}
	if (sq_load(err, errlen))
		return -1;
	if (!(l = ledger_new(path, err, errlen)))
		return -1;
	/* never created, converted, migrated or waited on: a writer holding
	 * it makes the read fail at once (the caller goes on without it) */
	rc = sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		ldb_error(l, rc, _("opening"), err, errlen);
		goto out_close;
	}
	sqlite3_extended_result_codes(l->db, 1);
	if (classify(l, &version, err, errlen))
		goto out_close;
	if (version != LEDGER_SCHEMA_VERSION) {
		ldb_set_err(err, errlen, _("%s: ledger schema %d, this gpurent reads %d"), path, version,
			    LEDGER_SCHEMA_VERSION);
		goto out_close;
	}
	l->version = version;
	*out = l;
	return 0;
out_close:
	ledger_discard(l);
	return -1;
}

void ledger_close(struct ledger *l)
{
	if (!l)
		return;
	sqlite3_close(l->db);
	free(l->path);
	free(l);
}

const char *ledger_path(const struct ledger *l)
{
	return l->path;
}

int ledger_schema_version(const struct ledger *l)
{
	return l->version;
}

