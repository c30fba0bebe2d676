/*
 * ledger_int.h - what the parts of the ledger (ledger.c, ledger_write.c,
 * ledger_query.c, ledger_bench.c) share and nothing else includes: the
 * connection, the column list of reads, the error helpers.
 */
#ifndef GPURENT_LEDGER_INT_H
#define GPURENT_LEDGER_INT_H

#include "store/sqlite_dl.h"
#include <stddef.h>

#include "store/ledger.h"

/* How long a writer waits for the others before giving up (ms). */
#define LEDGER_BUSY_MS 30000

struct ledger {
	sqlite3 *db;
	char *path;   /* owned */
	int version;
};

/* The columns every read selects, in the order ldb_row_to_entry() reads them. */
#define RUN_COLUMNS \
	"id, status, recorded_at, kind, started_at, ended_at, command, host, gpu_type, " \
	"gpu_count, price_per_hour, currency, billing_mode, cost, exit_status, restarts, " \
	"idle_seconds, stop_reason, log_path, notes, problems, " \
	"(SELECT group_concat(tag, ',') FROM (SELECT tag FROM run_tags " \
	"WHERE run_id = runs.id ORDER BY pos, tag)) "

/* snprintf into err (NULL or errlen 0: nothing). */
void ldb_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "PATH: what: <SQLite's words>" in err, with advice for the errors users meet; returns -1. */
int ldb_error(const struct ledger *l, int rc, const char *what, char *err, size_t errlen);

/* sqlite3_exec(sql): 0, or -1 with ldb_error()'s message. */
int ldb_exec(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen);

/* ldb_exec(), retried while SQLite answers SQLITE_BUSY, for LEDGER_BUSY_MS in all. */
int ldb_exec_retry(struct ledger *l, const char *sql, const char *what, char *err, size_t errlen);

/* sqlite3_step(st), once more when the busy timeout ran out (SQLITE_BUSY),
 * as the run writes do. Returns the step's code. */
int ldb_step_retry(sqlite3_stmt *st);

/* Run a prepared INSERT (ldb_step_retry), put its rowid in *id (when id is
 * not NULL) and finalize st: 0, or -1 with ldb_error(what)'s message. */
int ldb_insert(struct ledger *l, sqlite3_stmt *st, int64_t *id, const char *what, char *err,
	       size_t errlen);

/* Copy the current row's text columns first..first+n-1 into one allocation
 * (returned, owned by the caller; NULL when out of memory) and point
 * *dest[i] at column first+i's copy, NULL for SQL NULL. */
char *ldb_text_cols(sqlite3_stmt *st, int first, int n, const char **const *dest);

/* Roll back whatever transaction is open; the original error is kept. */
void ldb_rollback(struct ledger *l);

/* The wall clock in unix seconds. */
double ldb_now(void);

/* Bind a string (NULL: SQL NULL; borrowed until the statement runs) or a
 * double (NaN: NULL; -0 as 0) to parameter i. */
void ldb_bind_str(sqlite3_stmt *st, int i, const char *s);
void ldb_bind_real(sqlite3_stmt *st, int i, double v);

/* A REAL column, NaN for NULL. */
double ldb_col_real(sqlite3_stmt *st, int i);

#endif
