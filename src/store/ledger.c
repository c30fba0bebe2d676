/*
 * ledger.c - the run ledger in SQLite (ledger.h): opening with the checks
 * that keep gpurent away from files that are not its own, versioned
 * migrations, writes from many processes at once, reads and summaries.
 * The schema and its history are documented in docs/ledger.md.
 */
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* PRAGMA application_id of a gpurent ledger: "GPRL". */
#define LEDGER_APP_ID 0x4750524C
/* How long a writer waits for the others before giving up (ms). */
#define LEDGER_BUSY_MS 30000

struct ledger {
	sqlite3 *db;
	char *path;
	int version;
};

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
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == LEDGER_SCHEMA_VERSION,
	       "one migration per schema version");

/* The columns every read selects, in the order row_to_entry() reads them. */
#define RUN_COLUMNS \
	"id, status, recorded_at, kind, started_at, ended_at, command, host, gpu_type, " \
	"gpu_count, price_per_hour, currency, billing_mode, cost, exit_status, restarts, " \
	"idle_seconds, stop_reason, log_path, notes, problems, " \
	"(SELECT group_concat(tag, ',') FROM (SELECT tag FROM run_tags " \
	"WHERE run_id = runs.id ORDER BY pos, tag)) "

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "PATH: what: <SQLite's words>", with advice for the errors users meet. */
static int db_error(const struct ledger *l, int rc, const char *what, char *err, size_t errlen)
{
	const char *msg = l->db ? sqlite3_errmsg(l->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		set_err(err, errlen, "%s: not a gpurent ledger: the file is not a SQLite database "
			"(corrupted, or another kind of file)", l->path);
		break;
	case SQLITE_CORRUPT:
		set_err(err, errlen, "%s: the ledger is corrupted (%s); keep a copy and try "
			"'sqlite3 %s .recover'", l->path, msg, l->path);
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		set_err(err, errlen, "%s: %s: the ledger stayed locked by another process for %d s",
			l->path, what, LEDGER_BUSY_MS / 1000);
		break;
	case SQLITE_CANTOPEN:
		set_err(err, errlen, "%s: %s: cannot open the file (%s)", l->path, what, msg);
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		set_err(err, errlen, "%s: %s: cannot write the ledger (%s)", l->path, what, msg);
		break;
	default:
		set_err(err, errlen, "%s: %s: %s", l->path, what, msg);
	}
	return -1;
}

static int exec(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_error(l, rc, what, err, errlen);
}

/*
 * exec(), retried while SQLite answers SQLITE_BUSY, for LEDGER_BUSY_MS in
 * all. The busy timeout covers most waits, but a few paths report BUSY at
 * once without calling the busy handler (changing the journal mode while
 * another process creates the file; a WAL being recovered), and a guard
 * must not lose its record to them. Sleeps 1-16 ms, varied by pid so that
 * racing processes do not retry in step.
 */
static int exec_retry(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen)
{
	struct timespec pause;
	double deadline = 0;
	int rc;

	for (unsigned k = 0;; k++) {
		rc = sqlite3_exec(l->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY)
			break;
		if (!deadline)
			deadline = monotonic_seconds() + LEDGER_BUSY_MS / 1000.0;
		else if (monotonic_seconds() > deadline)
			break;
		pause.tv_sec = 0;
		pause.tv_nsec = (long)(1 + (k + (unsigned)getpid()) % 16) * 1000000L;
		nanosleep(&pause, NULL);
	}
	return rc == SQLITE_OK ? 0 : db_error(l, rc, what, err, errlen);
}

/* Roll back whatever transaction is open; the original error is kept. */
static void rollback(struct ledger *l)
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
		return db_error(l, rc, "reading the schema", err, errlen);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_error(l, rc, "reading the schema", err, errlen);
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
		set_err(err, errlen, "no ledger path: set GPURENT_LEDGER, XDG_DATA_HOME or HOME, "
			"or give --ledger PATH");
		return -1;
	}
	if (len < 0 || (size_t)len >= n) {
		set_err(err, errlen, "the ledger path is too long");
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
		set_err(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			set_err(err, errlen, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
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
		set_err(err, errlen, "%s: is a directory; the ledger is a file (e.g. %s/ledger.db)",
			path, path);
		return -1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		set_err(err, errlen, "%s: not a regular file; the ledger is a file", path);
		return -1;
	}
	if (make_parents(path, err, errlen))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EEXIST) {
		set_err(err, errlen, "%s: cannot create the ledger: %s", path, strerror(errno));
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
	if (exec(l, "BEGIN", "reading the schema", err, errlen))
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
		set_err(err, errlen, "%s: the ledger is corrupted (%s); keep a copy and try "
			"'sqlite3 %s .recover'", l->path, first, l->path);
		sqlite3_finalize(st);
		return -1;
	}
	db_error(l, rc, "checking the ledger", err, errlen);
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
			set_err(err, errlen, "%s: written by a newer gpurent (ledger schema v%lld; this "
				"one reads up to v%d): upgrade gpurent", l->path, user_version,
				LEDGER_SCHEMA_VERSION);
			return -1;
		}
		if (user_version < 1) {
			set_err(err, errlen, "%s: a gpurent ledger with no schema version; it was not "
				"written by gpurent", l->path);
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
		set_err(err, errlen, "%s: not a gpurent ledger: a SQLite database of another "
			"application (application_id 0x%08llx%s%s); give --ledger another path",
			l->path, (unsigned long long)app_id & 0xffffffffULL, names[0] ? ", tables: " : "",
			names);
	else
		set_err(err, errlen, "%s: not a gpurent ledger: a SQLite database of another "
			"application (tables: %s); give --ledger another path", l->path,
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
	if (exec(l, "PRAGMA foreign_keys = OFF", "migrating", err, errlen) ||
	    exec_retry(l, "BEGIN IMMEDIATE", "migrating", err, errlen))
		return -1;
	if (query_int(l, "PRAGMA user_version", &current, err, errlen))
		goto out_rollback;
	if (current > LEDGER_SCHEMA_VERSION) {
		set_err(err, errlen, "%s: written by a newer gpurent (ledger schema v%lld; this one "
			"reads up to v%d): upgrade gpurent", l->path, current, LEDGER_SCHEMA_VERSION);
		goto out_rollback;
	}
	from = (int)current;
	if (from == 0) {
		long long tables;
		if (query_int(l, "SELECT count(*) FROM sqlite_master", &tables, err, errlen))
			goto out_rollback;
		if (tables) {
			set_err(err, errlen, "%s: not a gpurent ledger: another program created "
				"tables in it while gpurent was opening it", l->path);
			goto out_rollback;
		}
	}
	for (int v = from + 1; v <= LEDGER_SCHEMA_VERSION; v++) {
		snprintf(what, sizeof(what), "migrating the ledger from schema v%d to v%d", v - 1, v);
		if (exec(l, migrations[v - 1].sql, what, err, errlen))
			goto out_rollback;
		snprintf(sql, sizeof(sql), "INSERT INTO gpurent_schema (version, applied_at, "
			 "description) VALUES (%d, %.6f, ?)", v, now_seconds());
		{
			sqlite3_stmt *st = NULL;
			int rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL);
			if (rc == SQLITE_OK) {
				sqlite3_bind_text(st, 1, migrations[v - 1].description, -1, SQLITE_STATIC);
				rc = sqlite3_step(st);
			}
			sqlite3_finalize(st);
			if (rc != SQLITE_DONE) {
				db_error(l, rc, what, err, errlen);
				goto out_rollback;
			}
		}
	}
	if (from < LEDGER_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d",
			 LEDGER_SCHEMA_VERSION, LEDGER_APP_ID);
		if (exec(l, sql, "migrating", err, errlen))
			goto out_rollback;
	}
	if (exec(l, "COMMIT", "migrating", err, errlen))
		goto out_rollback;
	l->version = LEDGER_SCHEMA_VERSION;
	return exec(l, "PRAGMA foreign_keys = ON", "opening", err, errlen);
out_rollback:
	rollback(l);
	return -1;
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
		set_err(err, errlen, "the ledger path is empty");
		return -1;
	}
	if (!(l = calloc(1, sizeof(*l))) || !(l->path = strdup(path))) {
		set_err(err, errlen, "%s: out of memory", path);
		goto out_free;
	}
	if (create_private(path, err, errlen))
		goto out_free;
	rc = sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		db_error(l, rc, "opening", err, errlen);
		goto out_close;
	}
	sqlite3_extended_result_codes(l->db, 1);
	sqlite3_busy_timeout(l->db, LEDGER_BUSY_MS);
	if (classify(l, &version, err, errlen))
		goto out_close;
	/* WAL lets readers and the one writer proceed together; FULL makes every
	 * committed run survive a power cut. The mode is stored in the file. */
	if (exec_retry(l, "PRAGMA journal_mode = WAL", "setting WAL mode", err, errlen) ||
	    exec(l, "PRAGMA synchronous = FULL", "opening", err, errlen))
		goto out_close;
	l->version = version;
	if (migrate(l, err, errlen))
		goto out_close;
	*out = l;
	return 0;
out_close:
	sqlite3_close(l->db);
out_free:
	if (l)
		free(l->path);
	free(l);
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

/* ---- writing ---- */

void ledger_run_init(struct ledger_run *r)
{
	memset(r, 0, sizeof(*r));
	r->start = r->end = NAN;
	r->price_per_hour = r->cost = r->idle_seconds = NAN;
	r->gpu_count = r->exit_status = r->restarts = -1;
}

static bool known(double v)
{
	return !isnan(v);
}

static bool currency_ok(const char *c)
{
	size_t n = strlen(c);

	if (n < 3 || n > 7)
		return false;
	for (size_t i = 0; i < n; i++)
		if (c[i] < 'A' || c[i] > 'Z')
			return false;
	return true;
}

/* Each tag of a comma-separated list, trimmed, empty ones skipped: calls
 * fn(tag, len, pos, ctx) and stops at the first non-zero return. */
static int each_tag(const char *tags, int (*fn)(const char *, size_t, int, void *), void *ctx)
{
	int pos = 0, rc;

	while (tags && *tags) {
		size_t len = strcspn(tags, ","), a = 0, b = len;
		while (a < b && (tags[a] == ' ' || tags[a] == '\t'))
			a++;
		while (b > a && (tags[b - 1] == ' ' || tags[b - 1] == '\t'))
			b--;
		if (b > a && (rc = fn(tags + a, b - a, pos++, ctx)))
			return rc;
		tags += len + (tags[len] == ',');
	}
	return 0;
}

static int tag_too_long(const char *tag, size_t len, int pos, void *ctx)
{
	(void)tag, (void)pos, (void)ctx;
	return len >= sizeof(((struct ledger_total *)0)->key);
}

/*
 * Check a run as it will be stored: start/end/currency are the merged
 * values (the row's, overridden by r's known ones). LEDGER_INVALID with a
 * message naming the field, or 0.
 */
static int validate(const struct ledger_run *r, double start, double end, const char *currency,
		    bool has_money, char *err, size_t errlen)
{
#define BAD(...) do { set_err(err, errlen, __VA_ARGS__); return LEDGER_INVALID; } while (0)
	if (r->kind && strcmp(r->kind, "guard") && strcmp(r->kind, "manual"))
		BAD("kind: expected 'guard' or 'manual', got '%s'", r->kind);
	/* Bounded so that no sum of stored values can overflow (ledger-cost-unbounded). */
	if (!(start >= 0 && start <= LEDGER_MAX_TIME))
		BAD("start: expected unix seconds between 0 and %.0e", LEDGER_MAX_TIME);
	if (known(end) && !(end >= start && end <= LEDGER_MAX_TIME))
		BAD("end: expected unix seconds not before the start (%.0f) and at most %.0e, got %.0f",
		    start, LEDGER_MAX_TIME, end);
	if (known(r->price_per_hour) && !(r->price_per_hour >= 0 && r->price_per_hour <= LEDGER_MAX_MONEY))
		BAD("price_per_hour: expected an amount between 0 and %.0e, got %g", LEDGER_MAX_MONEY,
		    r->price_per_hour);
	if (known(r->cost) && !(r->cost >= 0 && r->cost <= LEDGER_MAX_MONEY))
		BAD("cost: expected an amount between 0 and %.0e, got %g", LEDGER_MAX_MONEY, r->cost);
	if (known(r->idle_seconds) && !(r->idle_seconds >= 0 && r->idle_seconds <= LEDGER_MAX_TIME))
		BAD("idle_seconds: expected a number of seconds between 0 and %.0e", LEDGER_MAX_TIME);
	if (r->gpu_count < -1 || r->exit_status < -1 || r->restarts < -1)
		BAD("%s: expected a count >= 0 (-1 for unknown)", r->gpu_count < -1 ? "gpu_count" :
		    r->exit_status < -1 ? "exit_status" : "restarts");
	if (currency && !currency_ok(currency))
		BAD("currency: expected an ISO code in capitals such as USD or CNY, got '%s'", currency);
	if (has_money && !currency)
		BAD("currency: a price or a cost needs its currency (never mixed up with another)");
	if (r->gpu_type && strlen(r->gpu_type) >= sizeof(((struct ledger_total *)0)->key))
		BAD("gpu_type: expected at most %zu characters",
		    sizeof(((struct ledger_total *)0)->key) - 1);
	if (each_tag(r->tags, tag_too_long, NULL))
		BAD("tags: expected tags of at most %zu characters each",
		    sizeof(((struct ledger_total *)0)->key) - 1);
#undef BAD
	return 0;
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (known(v))
		sqlite3_bind_double(st, i, v + 0.0);   /* -0 is stored as 0 */
	else
		sqlite3_bind_null(st, i);
}

static void bind_count(sqlite3_stmt *st, int i, int v)
{
	if (v >= 0)
		sqlite3_bind_int(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Bind r's fields to ?2..?20 in the order of the INSERT and UPDATE below. */
static void bind_run(sqlite3_stmt *st, const struct ledger_run *r)
{
	bind_str(st, 2, r->kind);
	bind_real(st, 3, r->start);
	bind_real(st, 4, r->end);
	bind_str(st, 5, r->command);
	bind_str(st, 6, r->host);
	bind_str(st, 7, r->gpu_type);
	bind_count(st, 8, r->gpu_count);
	bind_real(st, 9, r->price_per_hour);
	bind_str(st, 10, r->currency);
	bind_str(st, 11, r->billing_mode);
	bind_real(st, 12, r->cost);
	bind_count(st, 13, r->exit_status);
	bind_count(st, 14, r->restarts);
	bind_real(st, 15, r->idle_seconds);
	bind_str(st, 16, r->stop_reason);
	bind_str(st, 17, r->log_path);
	bind_str(st, 18, r->notes);
	bind_str(st, 19, r->problems);
}

struct tag_ctx {
	sqlite3_stmt *st;
	int rc;
};

static int insert_tag(const char *tag, size_t len, int pos, void *ctx)
{
	struct tag_ctx *c = ctx;

	sqlite3_reset(c->st);
	sqlite3_bind_int(c->st, 2, pos);
	sqlite3_bind_text(c->st, 3, tag, (int)len, SQLITE_TRANSIENT);
	c->rc = sqlite3_step(c->st);
	return c->rc != SQLITE_DONE;
}

/* Replace the tags of run id with r->tags (nothing when r->tags is NULL). */
static int write_tags(struct ledger *l, int64_t id, const char *tags, char *err, size_t errlen)
{
	struct tag_ctx c = {NULL, SQLITE_DONE};
	sqlite3_stmt *del = NULL;
	int rc;

	if (!tags)
		return 0;
	rc = sqlite3_prepare_v2(l->db, "DELETE FROM run_tags WHERE run_id = ?", -1, &del, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(del, 1, id);
		rc = sqlite3_step(del);
	}
	sqlite3_finalize(del);
	if (rc != SQLITE_DONE)
		return db_error(l, rc, "writing tags", err, errlen);
	rc = sqlite3_prepare_v2(l->db, "INSERT OR IGNORE INTO run_tags (run_id, pos, tag) "
				"VALUES (?1, ?2, ?3)", -1, &c.st, NULL);
	if (rc != SQLITE_OK)
		return db_error(l, rc, "writing tags", err, errlen);
	sqlite3_bind_int64(c.st, 1, id);
	each_tag(tags, insert_tag, &c);
	sqlite3_finalize(c.st);
	return c.rc == SQLITE_DONE ? 0 : db_error(l, c.rc, "writing tags", err, errlen);
}

static int insert_run(struct ledger *l, const struct ledger_run *r, const char *kind,
		      const char *status, int64_t *id, char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO runs (kind, started_at, ended_at, command, host, gpu_type, gpu_count, "
		"price_per_hour, currency, billing_mode, cost, exit_status, restarts, idle_seconds, "
		"stop_reason, log_path, notes, problems, status, recorded_at) VALUES "
		"(?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
		"?20, ?21)";
	struct ledger_run k = *r;
	sqlite3_stmt *st = NULL;
	int64_t newid;
	int rc;

	k.kind = kind;
	if ((rc = validate(&k, k.start, k.end, k.currency,
			   known(k.cost) || known(k.price_per_hour), err, errlen)))
		return rc;
	if (exec_retry(l, "BEGIN IMMEDIATE", "recording a run", err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	bind_run(st, &k);
	sqlite3_bind_text(st, 20, status, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 21, now_seconds());
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	st = NULL;
	newid = sqlite3_last_insert_rowid(l->db);
	if (write_tags(l, newid, k.tags, err, errlen))
		goto out_rollback;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	if (id)
		*id = newid;
	return 0;
out_db_error:
	db_error(l, rc, "recording a run", err, errlen);
	sqlite3_finalize(st);
out_rollback:
	rollback(l);
	return -1;
}

int ledger_begin_run(struct ledger *l, const struct ledger_run *r, int64_t *id,
		     char *err, size_t errlen)
{
	struct ledger_run k = *r;

	k.end = NAN;
	return insert_run(l, &k, r->kind ? r->kind : "guard", "running", id, err, errlen);
}

int ledger_add(struct ledger *l, const struct ledger_run *r, int64_t *id, char *err, size_t errlen)
{
	return insert_run(l, r, r->kind ? r->kind : "manual", "finished", id, err, errlen);
}

/* Update run id with r's known fields; finish marks it finished. */
static int update_run(struct ledger *l, int64_t id, const struct ledger_run *r, bool finish,
		      char *err, size_t errlen)
{
	static const char sql[] =
		"UPDATE runs SET kind = coalesce(?2, kind), started_at = coalesce(?3, started_at), "
		"ended_at = coalesce(?4, ended_at), command = coalesce(?5, command), "
		"host = coalesce(?6, host), gpu_type = coalesce(?7, gpu_type), "
		"gpu_count = coalesce(?8, gpu_count), price_per_hour = coalesce(?9, price_per_hour), "
		"currency = coalesce(?10, currency), billing_mode = coalesce(?11, billing_mode), "
		"cost = coalesce(?12, cost), exit_status = coalesce(?13, exit_status), "
		"restarts = coalesce(?14, restarts), idle_seconds = coalesce(?15, idle_seconds), "
		"stop_reason = coalesce(?16, stop_reason), log_path = coalesce(?17, log_path), "
		"notes = coalesce(?18, notes), problems = coalesce(?19, problems), status = ?20 "
		"WHERE id = ?1";
	sqlite3_stmt *st = NULL;
	char status[16] = "", currency[8] = "";
	double start = NAN, end = NAN;
	bool has_money;
	int rc, ret = -1;

	if (finish && !known(r->end)) {
		set_err(err, errlen, "end: finishing run %lld needs its end time", (long long)id);
		return LEDGER_INVALID;
	}
	if (exec_retry(l, "BEGIN IMMEDIATE", "updating a run", err, errlen))
		return -1;
	rc = sqlite3_prepare_v2(l->db, "SELECT status, started_at, ended_at, currency, "
				"cost IS NOT NULL OR price_per_hour IS NOT NULL FROM runs WHERE id = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		set_err(err, errlen, "%s: no run %lld in the ledger", l->path, (long long)id);
		ret = LEDGER_NOT_FOUND;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW)
		goto out_db_error;
	snprintf(status, sizeof(status), "%s", (const char *)sqlite3_column_text(st, 0));
	start = sqlite3_column_double(st, 1);
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		end = sqlite3_column_double(st, 2);
	if (sqlite3_column_type(st, 3) != SQLITE_NULL)
		snprintf(currency, sizeof(currency), "%s", (const char *)sqlite3_column_text(st, 3));
	has_money = sqlite3_column_int(st, 4) || known(r->cost) || known(r->price_per_hour);
	sqlite3_finalize(st);
	st = NULL;
	if (strcmp(status, "running")) {
		set_err(err, errlen, "%s: run %lld is already finished; a finished run is never "
			"changed", l->path, (long long)id);
		ret = LEDGER_INVALID;
		goto out_rollback;
	}
	if ((ret = validate(r, known(r->start) ? r->start : start, known(r->end) ? r->end : end,
			    r->currency ? r->currency : currency[0] ? currency : NULL, has_money,
			    err, errlen)))
		goto out_rollback;
	ret = -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	bind_run(st, r);
	sqlite3_bind_text(st, 20, finish ? "finished" : "running", -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	st = NULL;
	if (write_tags(l, id, r->tags, err, errlen))
		goto out_rollback;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	return 0;
out_db_error:
	db_error(l, rc, finish ? "finishing a run" : "updating a run", err, errlen);
out_finalize:
	sqlite3_finalize(st);
out_rollback:
	rollback(l);
	return ret;
}

int ledger_update_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen)
{
	return update_run(l, id, r, false, err, errlen);
}

int ledger_finish_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen)
{
	return update_run(l, id, r, true, err, errlen);
}

/* ---- reading ---- */

/* Column indexes of RUN_COLUMNS. */
enum {
	C_ID, C_STATUS, C_RECORDED, C_KIND, C_START, C_END, C_COMMAND, C_HOST, C_GPU_TYPE,
	C_GPU_COUNT, C_PRICE, C_CURRENCY, C_BILLING, C_COST, C_EXIT, C_RESTARTS, C_IDLE,
	C_STOP, C_LOG, C_NOTES, C_PROBLEMS, C_TAGS, C_NCOLS
};

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int col_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}

/* Fill e from the current row; every string is copied into e->storage_. */
static int row_to_entry(sqlite3_stmt *st, struct ledger_entry *e)
{
	static const int text_cols[] = {C_STATUS, C_KIND, C_COMMAND, C_HOST, C_GPU_TYPE,
					C_CURRENCY, C_BILLING, C_STOP, C_LOG, C_NOTES,
					C_PROBLEMS, C_TAGS};
	const char **dest[C_NCOLS] = {0};
	size_t total = 0, used = 0;

	memset(e, 0, sizeof(*e));
	ledger_run_init(&e->run);
	dest[C_STATUS] = &e->status;
	dest[C_KIND] = &e->run.kind;
	dest[C_COMMAND] = &e->run.command;
	dest[C_HOST] = &e->run.host;
	dest[C_GPU_TYPE] = &e->run.gpu_type;
	dest[C_CURRENCY] = &e->run.currency;
	dest[C_BILLING] = &e->run.billing_mode;
	dest[C_STOP] = &e->run.stop_reason;
	dest[C_LOG] = &e->run.log_path;
	dest[C_NOTES] = &e->run.notes;
	dest[C_PROBLEMS] = &e->run.problems;
	dest[C_TAGS] = &e->run.tags;
	for (size_t i = 0; i < sizeof(text_cols) / sizeof(text_cols[0]); i++)
		if (sqlite3_column_type(st, text_cols[i]) != SQLITE_NULL)
			total += (size_t)sqlite3_column_bytes(st, text_cols[i]) + 1;
	if (total && !(e->storage_ = malloc(total)))
		return -1;
	for (size_t i = 0; i < sizeof(text_cols) / sizeof(text_cols[0]); i++) {
		int c = text_cols[i];
		const unsigned char *s;
		size_t n;
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		s = sqlite3_column_text(st, c);
		n = (size_t)sqlite3_column_bytes(st, c);
		memcpy(e->storage_ + used, s ? (const char *)s : "", n);
		e->storage_[used + n] = '\0';
		*dest[c] = e->storage_ + used;
		used += n + 1;
	}
	e->id = sqlite3_column_int64(st, C_ID);
	e->recorded_at = sqlite3_column_double(st, C_RECORDED);
	e->run.start = col_real(st, C_START);
	e->run.end = col_real(st, C_END);
	e->run.gpu_count = col_count(st, C_GPU_COUNT);
	e->run.price_per_hour = col_real(st, C_PRICE);
	e->run.cost = col_real(st, C_COST);
	e->run.exit_status = col_count(st, C_EXIT);
	e->run.restarts = col_count(st, C_RESTARTS);
	e->run.idle_seconds = col_real(st, C_IDLE);
	return 0;
}

void ledger_entry_free(struct ledger_entry *e)
{
	if (!e)
		return;
	free(e->storage_);
	memset(e, 0, sizeof(*e));
}

int ledger_get(struct ledger *l, int64_t id, struct ledger_entry *out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(l->db, "SELECT " RUN_COLUMNS "FROM runs WHERE id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		set_err(err, errlen, "%s: no run %lld in the ledger", l->path, (long long)id);
		ret = LEDGER_NOT_FOUND;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW)
		goto out_db_error;
	if (row_to_entry(st, out)) {
		set_err(err, errlen, "%s: out of memory", l->path);
		goto out_finalize;
	}
	ret = 0;
	goto out_finalize;
out_db_error:
	db_error(l, rc, "reading a run", err, errlen);
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

int ledger_list(struct ledger *l, enum ledger_order order, size_t limit,
		struct ledger_entries *out, char *err, size_t errlen)
{
	const char *sql = order == LEDGER_NEWEST_FIRST ?
		"SELECT " RUN_COLUMNS "FROM runs ORDER BY started_at DESC, id DESC LIMIT ?" :
		"SELECT " RUN_COLUMNS "FROM runs ORDER BY started_at, id LIMIT ?";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	/* One read transaction, so the list is one consistent snapshot. */
	if (exec(l, "BEGIN", "listing runs", err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct ledger_entry *nv = realloc(out->v, ncap * sizeof(*nv));
			if (!nv)
				goto out_nomem;
			out->v = nv;
			cap = ncap;
		}
		if (row_to_entry(st, &out->v[out->n]))
			goto out_nomem;
		out->n++;
	}
	if (rc != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL);
	return 0;
out_nomem:
	set_err(err, errlen, "%s: out of memory", l->path);
	goto out_free;
out_db_error:
	db_error(l, rc, "listing runs", err, errlen);
out_free:
	sqlite3_finalize(st);
	rollback(l);
	ledger_entries_free(out);
	return -1;
}

void ledger_entries_free(struct ledger_entries *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		ledger_entry_free(&e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/* ---- summaries ---- */

static const char *const by_names[] = {"day", "week", "month", "tag", "gpu", "all"};

int ledger_by_parse(const char *s, enum ledger_by *by)
{
	for (size_t i = 0; i < sizeof(by_names) / sizeof(by_names[0]); i++)
		if (!strcmp(s, by_names[i])) {
			*by = (enum ledger_by)i;
			return 0;
		}
	return -1;
}

const char *ledger_by_name(enum ledger_by by)
{
	return (size_t)by < sizeof(by_names) / sizeof(by_names[0]) ? by_names[by] : "?";
}

/* One (group key, run) pair; a run with three tags gives three. */
struct item {
	char key[64];
	char currency[8];
	const struct ledger_entry *e;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static int push(struct items *it, const char *key, size_t keylen, const struct ledger_entry *e)
{
	struct item *x;

	if (it->n == it->cap) {
		size_t ncap = it->cap ? it->cap * 2 : 64;
		struct item *nv = realloc(it->v, ncap * sizeof(*nv));
		if (!nv)
			return -1;
		it->v = nv;
		it->cap = ncap;
	}
	x = &it->v[it->n++];
	snprintf(x->key, sizeof(x->key), "%.*s", (int)keylen, key);
	snprintf(x->currency, sizeof(x->currency), "%s", e->run.currency ? e->run.currency : "");
	x->e = e;
	return 0;
}

struct push_ctx {
	struct items *it;
	const struct ledger_entry *e;
};

static int push_tag(const char *tag, size_t len, int pos, void *ctx)
{
	struct push_ctx *c = ctx;

	(void)pos;
	return push(c->it, tag, len, c->e);
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if ((c = strcmp(x->currency, y->currency)))
		return c;
	return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

int ledger_summarize(const struct ledger_entries *e, enum ledger_by by,
		     struct ledger_summary *out, char *err, size_t errlen)
{
	struct items it = {NULL, 0, 0};
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < e->n; i++) {
		const struct ledger_entry *x = &e->v[i];
		char key[64];
		int rc = 0;
		if (by == LEDGER_BY_TAG) {
			struct push_ctx c = {&it, x};
			size_t before = it.n;
			rc = each_tag(x->run.tags, push_tag, &c);
			if (!rc && it.n == before)
				rc = push(&it, "(untagged)", 10, x);
		} else if (by == LEDGER_BY_ALL) {
			rc = push(&it, "all", 3, x);
		} else if (by == LEDGER_BY_GPU) {
			const char *g = x->run.gpu_type && *x->run.gpu_type ? x->run.gpu_type : "(unknown)";
			rc = push(&it, g, strlen(g), x);
		} else {
			time_t t = (time_t)floor(x->run.start);
			struct tm tm;
			const char *fmt = by == LEDGER_BY_DAY ? "%Y-%m-%d" :
					  by == LEDGER_BY_WEEK ? "%G-W%V" : "%Y-%m";
			if (!localtime_r(&t, &tm) || !strftime(key, sizeof(key), fmt, &tm))
				snprintf(key, sizeof(key), "(no date)");
			rc = push(&it, key, strlen(key), x);
		}
		if (rc)
			goto out_nomem;
	}
	if (it.n)
		qsort(it.v, it.n, sizeof(*it.v), item_cmp);
	for (size_t i = 0; i < it.n; i++) {
		const struct ledger_run *r = &it.v[i].e->run;
		struct ledger_total *t;
		if (!out->n || strcmp(out->v[out->n - 1].key, it.v[i].key) ||
		    strcmp(out->v[out->n - 1].currency, it.v[i].currency)) {
			if (out->n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct ledger_total *nv = realloc(out->v, ncap * sizeof(*nv));
				if (!nv)
					goto out_nomem;
				out->v = nv;
				cap = ncap;
			}
			t = &out->v[out->n++];
			memset(t, 0, sizeof(*t));
			memcpy(t->key, it.v[i].key, sizeof(t->key));
			memcpy(t->currency, it.v[i].currency, sizeof(t->currency));
		}
		t = &out->v[out->n - 1];
		t->runs++;
		if (it.v[i].e->status && !strcmp(it.v[i].e->status, "running"))
			t->running++;
		/* Only values within the bounds writes enforce are summed: a row stored
		 * by hand or by an older gpurent (1.7e308) counts as without a cost,
		 * so no total overflows to inf. */
		if (r->cost >= 0 && r->cost <= LEDGER_MAX_MONEY)
			t->cost += r->cost;
		else
			t->runs_without_cost++;
		if (r->start >= 0 && r->end >= r->start && r->end <= LEDGER_MAX_TIME) {
			double h = (r->end - r->start) / 3600.0;
			t->hours += h;
			if (r->gpu_count >= 0)
				t->gpu_hours += h * r->gpu_count;
		}
	}
	free(it.v);
	return 0;
out_nomem:
	set_err(err, errlen, "out of memory");
	free(it.v);
	ledger_summary_free(out);
	return -1;
}

void ledger_summary_free(struct ledger_summary *s)
{
	if (!s)
		return;
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* ---- benchmark results ---- */

int ledger_bench_add(struct ledger *l, const struct ledger_bench *b, size_t n,
		     char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, "
		"recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	sqlite3_stmt *st = NULL;
	double now = now_seconds();
	int rc;

	for (size_t i = 0; i < n; i++)
		if (!known(b[i].at) || !known(b[i].value) || !b[i].host || !*b[i].host ||
		    !b[i].test || !*b[i].test || !b[i].unit || !*b[i].unit) {
			set_err(err, errlen, "benchmark result %zu: time, host, test, value and unit "
				"are required", i + 1);
			return LEDGER_INVALID;
		}
	if (exec_retry(l, "BEGIN IMMEDIATE", "recording benchmark results", err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_double(st, 1, b[i].at);
		bind_str(st, 2, b[i].host);
		bind_str(st, 3, b[i].gpu && *b[i].gpu ? b[i].gpu : NULL);
		bind_str(st, 4, b[i].test);
		sqlite3_bind_double(st, 5, b[i].value);
		bind_str(st, 6, b[i].unit);
		bind_real(st, 7, b[i].nominal);
		sqlite3_bind_double(st, 8, now);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			goto out_db_error;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	return 0;
out_db_error:
	db_error(l, rc, "recording benchmark results", err, errlen);
	sqlite3_finalize(st);
	rollback(l);
	return -1;
}

/* Copy the current row's text columns 1..4 (host, gpu, test, unit) into one
 * allocation and point r's strings at it. */
static char *bench_row(sqlite3_stmt *st, struct ledger_bench *r)
{
	const char **dest[4] = {&r->host, &r->gpu, &r->test, &r->unit};
	size_t total = 0, used = 0;
	char *mem;

	for (int c = 1; c <= 4; c++)
		total += (size_t)sqlite3_column_bytes(st, c) + 1;
	if (!(mem = malloc(total)))
		return NULL;
	for (int c = 1; c <= 4; c++) {
		const unsigned char *s = sqlite3_column_text(st, c);
		size_t len = (size_t)sqlite3_column_bytes(st, c);
		if (sqlite3_column_type(st, c) == SQLITE_NULL) {
			*dest[c - 1] = NULL;
			continue;
		}
		memcpy(mem + used, s ? (const char *)s : "", len);
		mem[used + len] = '\0';
		*dest[c - 1] = mem + used;
		used += len + 1;
	}
	r->at = sqlite3_column_double(st, 0);
	r->value = sqlite3_column_double(st, 5);
	r->nominal = col_real(st, 6);
	return mem;
}

int ledger_bench_list(struct ledger *l, size_t limit, struct ledger_bench_rows *out,
		      char *err, size_t errlen)
{
	/* the `limit` newest, returned oldest first */
	static const char sql[] =
		"SELECT measured_at, host, gpu, test, unit, value, nominal FROM "
		"(SELECT * FROM bench_results ORDER BY measured_at DESC, id DESC LIMIT ?) "
		"ORDER BY measured_at, id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct ledger_bench *nv = realloc(out->v, ncap * sizeof(*nv));
			char **ns;
			if (!nv)
				goto out_nomem;
			out->v = nv;
			if (!(ns = realloc(out->storage_, ncap * sizeof(*ns))))
				goto out_nomem;
			out->storage_ = ns;
			cap = ncap;
		}
		if (!(out->storage_[out->n] = bench_row(st, &out->v[out->n])))
			goto out_nomem;
		out->n++;
	}
	if (rc != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	return 0;
out_nomem:
	set_err(err, errlen, "%s: out of memory", l->path);
	goto out_free;
out_db_error:
	db_error(l, rc, "reading benchmark results", err, errlen);
out_free:
	sqlite3_finalize(st);
	ledger_bench_rows_free(out);
	return -1;
}

void ledger_bench_rows_free(struct ledger_bench_rows *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->storage_[i]);
	free(r->storage_);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
