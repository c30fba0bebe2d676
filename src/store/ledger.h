/*
 * ledger.h - the run ledger: one SQLite database (WAL, busy timeout) that
 * records every guarded run and every manual entry with the price actually
 * paid, so that history is never re-priced from today's catalog. Schema,
 * migrations and the reasons for each column: docs/ledger.md.
 *
 * Conventions: functions return 0 on success and a negative value on
 * failure with one line in err (errlen bytes, always terminated). A
 * struct ledger is one connection: use it from one thread, and never
 * across fork() (open a new one in the child). Many processes may write
 * to one ledger at once.
 */
#ifndef GPURENT_LEDGER_H
#define GPURENT_LEDGER_H

#include <stddef.h>
#include <stdint.h>

/* The schema version this build writes (PRAGMA user_version). */
#define LEDGER_SCHEMA_VERSION 3

/* Return values besides 0 and -1. */
#define LEDGER_NOT_FOUND (-2)  /* no run with that id */
#define LEDGER_INVALID   (-3)  /* the run given is inconsistent (bad kind, end < start ...) */

/*
 * Bounds of stored values, checked on every write (LEDGER_INVALID beyond
 * them) and on reading for summaries: money (cost, price_per_hour) at most
 * 1e12 in its currency, times and durations at most 1e11 seconds, so that
 * a sum over any number of runs stays finite.
 */
#define LEDGER_MAX_MONEY 1e12
#define LEDGER_MAX_TIME 1e11

struct ledger;  /* opaque */

/*
 * One run. Every string is borrowed for the duration of the call that
 * receives it. Unknown values: strings NULL, doubles NaN, integers -1.
 * Start from ledger_run_init(), which sets everything unknown.
 */
struct ledger_run {
	const char *kind;          /* "guard" or "manual"; NULL: "guard" for
				      begin_run, "manual" for add */
	double start;              /* unix seconds; required */
	double end;                /* unix seconds; NaN while running */
	const char *command;       /* the command line as the user wrote it */
	const char *host;          /* host name of the rented box */
	const char *gpu_type;      /* "RTX4090", "A100-80GB" ... */
	int gpu_count;
	double price_per_hour;     /* for the whole rental, as paid at the time */
	const char *currency;      /* ISO code: "USD", "CNY" ... */
	const char *billing_mode;  /* "per-second", "hourly", "spot", "package" ... */
	double cost;               /* what the run cost, in currency */
	int exit_status;           /* the command's status (128+signal) */
	int restarts;              /* restarts after abnormal ends */
	double idle_seconds;       /* seconds the GPUs sat idle */
	const char *stop_reason;   /* "exit", "idle", "stall", "budget", "signal" ... */
	const char *log_path;      /* where the guard wrote the log */
	const char *tags;          /* comma-separated: "lora,7b" */
	const char *notes;         /* free text */
	const char *problems;      /* problems met: "OOM at bs 8" */
};

/* Set every field of r to unknown (see above). */
void ledger_run_init(struct ledger_run *r);

/*
 * The default ledger path into buf (n bytes): $GPURENT_LEDGER when set and
 * not empty, else $XDG_DATA_HOME/gpurent/ledger.db, else
 * $HOME/.local/share/gpurent/ledger.db. 0, or -1 with a message in err
 * when neither XDG_DATA_HOME nor HOME is set or the path does not fit.
 */
int ledger_default_path(char *buf, size_t n, char *err, size_t errlen);

/*
 * Open (creating when absent, with its directories, mode 0600) the ledger
 * at path, or at ledger_default_path() when path is NULL. Sets WAL and a
 * busy timeout and applies pending migrations in one transaction. A file
 * that is not SQLite, a SQLite database of another application, or one
 * written by a newer gpurent gets -1 and a message naming the path and
 * the problem; nothing is changed in it. On success *out is the caller's:
 * close it with ledger_close().
 */
int ledger_open(const char *path, struct ledger **out, char *err, size_t errlen);

/* Close l (NULL is fine). */
void ledger_close(struct ledger *l);

/* The path l was opened at; borrowed from l. */
const char *ledger_path(const struct ledger *l);

/* The schema version of the open ledger (after migrations). */
int ledger_schema_version(const struct ledger *l);

/*
 * At the start of a guarded run: insert r as a row marked "running".
 * r->start is required; r->end is ignored. *id receives the run's id.
 * 0, LEDGER_INVALID, or -1 (I/O) with a message in err.
 */
int ledger_begin_run(struct ledger *l, const struct ledger_run *r, int64_t *id,
		     char *err, size_t errlen);

/*
 * While the run goes on (optional, e.g. once a minute): overwrite the row's
 * fields with every known field of r (unknown ones keep their value), the
 * row stays "running". Lets a guard killed with SIGKILL leave its cost so
 * far. 0, LEDGER_NOT_FOUND, LEDGER_INVALID (the run is already finished),
 * or -1.
 */
int ledger_update_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen);

/*
 * At the end: like ledger_update_run(), then mark the row "finished".
 * r->end is required (and not before the start). Typically r carries end,
 * cost, exit_status, restarts, idle_seconds and stop_reason. A finished row
 * is never changed again. 0, LEDGER_NOT_FOUND, LEDGER_INVALID, or -1.
 */
int ledger_finish_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen);

/*
 * A complete entry at once (kind "manual" unless r says otherwise): r->start
 * is required; r->end may be NaN when unknown. The row is "finished".
 * *id (may be NULL) receives its id. 0, LEDGER_INVALID, or -1.
 */
int ledger_add(struct ledger *l, const struct ledger_run *r, int64_t *id,
	       char *err, size_t errlen);

/* ---- reading ---- */

/* One stored row. The strings of run point into storage owned by the entry. */
struct ledger_entry {
	int64_t id;
	const char *status;   /* "running" or "finished" */
	double recorded_at;   /* unix seconds when the row was written first */
	struct ledger_run run;
	char *storage_;       /* private: owns every string above */
};

struct ledger_entries {
	struct ledger_entry *v;
	size_t n;
};

/*
 * Read run id into *out (caller frees with ledger_entry_free()).
 * 0, LEDGER_NOT_FOUND, or -1.
 */
int ledger_get(struct ledger *l, int64_t id, struct ledger_entry *out, char *err, size_t errlen);

void ledger_entry_free(struct ledger_entry *e);

enum ledger_order { LEDGER_OLDEST_FIRST, LEDGER_NEWEST_FIRST };

/*
 * Read runs ordered by start time (then id); limit 0 means all: with
 * LEDGER_NEWEST_FIRST and limit N, the N most recent. *out is the caller's
 * (ledger_entries_free()). 0 or -1.
 */
int ledger_list(struct ledger *l, enum ledger_order order, size_t limit,
		struct ledger_entries *out, char *err, size_t errlen);

void ledger_entries_free(struct ledger_entries *e);

/* ---- summaries (pure computation on entries read above) ---- */

/* LEDGER_BY_ALL: one group per currency, key "all" (the grand totals). */
enum ledger_by { LEDGER_BY_DAY, LEDGER_BY_WEEK, LEDGER_BY_MONTH, LEDGER_BY_TAG, LEDGER_BY_GPU,
		 LEDGER_BY_ALL };

/* "day", "week", "month", "tag", "gpu", "all" -> *by; 0 or -1. */
int ledger_by_parse(const char *s, enum ledger_by *by);
const char *ledger_by_name(enum ledger_by by);

/*
 * One group of a summary. Totals are kept per currency: two currencies
 * under one key are two groups, never added together.
 */
struct ledger_total {
	char key[64];        /* "2024-03-05", "2024-W10", "2024-03", a tag, a GPU;
				"(untagged)", "(unknown)" when absent */
	char currency[8];    /* "" when the runs recorded no currency */
	size_t runs;
	size_t running;      /* runs not finished yet (no hours counted) */
	size_t runs_without_cost;
	double cost;         /* sum of known costs */
	double hours;        /* sum of (end - start) of runs with an end */
	double gpu_hours;    /* hours x gpu_count, where the count is known */
};

struct ledger_summary {
	struct ledger_total *v;  /* sorted by key, then currency */
	size_t n;
};

/*
 * Group e by `by` (day/week/month of the start in local time; week is the
 * ISO week, "2024-W10"; a run with several tags counts under each).
 * *out is the caller's (ledger_summary_free()). 0 or -1 (out of memory).
 */
int ledger_summarize(const struct ledger_entries *e, enum ledger_by by,
		     struct ledger_summary *out, char *err, size_t errlen);

void ledger_summary_free(struct ledger_summary *s);

/* ---- benchmark results (gpurent bench; schema v3) ---- */

/*
 * One measured figure of one box. Strings are borrowed for the call that
 * receives them; in rows read back they point into the rows' storage.
 */
struct ledger_bench {
	double at;            /* unix seconds of the measurement; required */
	const char *host;     /* the box (host name); required */
	const char *gpu;      /* the GPU measured ("NVIDIA H100 80GB HBM3"); NULL for host tests */
	const char *test;     /* "gemm_bf16", "d2d_copy", "disk_write" ...; required */
	double value;         /* in unit; required */
	const char *unit;     /* "TFLOP/s", "GB/s" ...; required */
	double nominal;       /* the datasheet figure in the same unit; NaN when none */
};

/*
 * Record n results in one transaction (all or none). 0, LEDGER_INVALID
 * (a required field missing or not finite), or -1 with a message in err.
 */
int ledger_bench_add(struct ledger *l, const struct ledger_bench *b, size_t n,
		     char *err, size_t errlen);

struct ledger_bench_rows {
	struct ledger_bench *v;   /* oldest first */
	size_t n;
	char **storage_;          /* private: storage_[i] owns the strings of v[i] */
};

/*
 * Read stored results oldest first (by measurement time, then id); limit
 * 0 means all, else the `limit` most recent ones. *out is the caller's
 * (ledger_bench_rows_free()). 0 or -1.
 */
int ledger_bench_list(struct ledger *l, size_t limit, struct ledger_bench_rows *out,
		      char *err, size_t errlen);

void ledger_bench_rows_free(struct ledger_bench_rows *r);

#endif
