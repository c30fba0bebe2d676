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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* struct ledger_run, ledger_entry(ies), the bounds and the summaries */
#include "core/books/ledger_summary.h"

/* The schema version this build writes (PRAGMA user_version). */
#define LEDGER_SCHEMA_VERSION 8

/* Return values besides 0 and -1. */
#define LEDGER_NOT_FOUND (-2)  /* no run with that id */
#define LEDGER_INVALID   (-3)  /* the run given is inconsistent (bad kind, end < start ...) */

struct ledger;  /* opaque */

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

/*
 * Open an existing ledger at path to read only: nothing is created,
 * converted or migrated, and no lock is waited for. -1 with the reason in
 * err when it is missing, not a ledger, of another schema version, or busy.
 * Only the read functions may be called on it.
 */
int ledger_open_readonly(const char *path, struct ledger **out, char *err, size_t errlen);

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

/*
 * Import n runs (from ledger_import_parse(), src/core/books/ledger_import.h) in
 * one transaction, all or none: a run the same as one stored before the
 * import began (start, end, cost, currency, command, host, GPU) is skipped
 * and counted in *known, the others are added (kind "manual" unless they
 * say) and counted in *added (either may be NULL). The check and the
 * inserts hold the ledger's write lock together, so imports of one file at
 * once store each run once. 0, LEDGER_INVALID, or -1 with a message in err
 * and *bad the index of the run at fault (n when none); nothing stored.
 */
int ledger_import_runs(struct ledger *l, const struct ledger_run *runs, size_t n, size_t *added,
		       size_t *known, size_t *bad, char *err, size_t errlen);

/* ---- reading ---- */

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

/* ---- probes (gpurent probe; schema v4) ---- */

/*
 * What one `gpurent probe` measured (src/core/estimate/probe.h's struct
 * probe_result, plus where and on what). Strings are borrowed for the call
 * that receives them; in rows read back they point into the rows'
 * storage. A double that is NaN is stored as unknown (NULL) and read back
 * as NaN; probe_result's "0 = unknown" figures may be stored as they are.
 */
struct ledger_probe {
	int64_t id;                /* read back: the row's id (ignored by add) */
	double at;                 /* unix seconds the probe was taken; required */
	const char *host;          /* the box; required */
	const char *gpu;           /* the GPU's name ("NVIDIA H100 80GB HBM3"); NULL unknown */
	int gpu_count;             /* GPUs the job used; 0 unknown */
	uint64_t workload_digest;  /* workload_digest() of the resolved workload; 0 none */
	const char *model;         /* the workload's model name; NULL none */
	long steps, warmup;        /* steps seen, and excluded as warm-up (>= 0) */
	double steady_step_s;      /* median step after warm-up (s) */
	double peak_mem;           /* bytes, the job's processes summed over its GPUs (NVML) */
	double mem_growth;         /* bytes a step over the steady part */
	double units_per_step;     /* tokens (or samples) a step, all GPUs */
	double units_per_s;        /* tokens (or samples) a second, all GPUs */
	bool units_are_samples;
	double mfu;                /* fraction of the dense peak at the precision; 0 unknown */
	double util_median;        /* GPU %, < 0 unknown */
	double cpu_median;         /* the job's CPU % of one core, < 0 unknown */
	const char *diagnoses;     /* probe_diag_name()s joined by ','; NULL or "" none */
	const char *command;       /* the job's command line, escaped as runs' are; NULL none */
	double recorded_at;        /* read back: when the row was written (unix s) */
};

/* Record p; *id (may be NULL) receives its id. 0, LEDGER_INVALID (no
 * time, no host, negative steps, a figure that is infinite), or -1. */
int ledger_probe_add(struct ledger *l, const struct ledger_probe *p, int64_t *id,
		     char *err, size_t errlen);

struct ledger_probe_rows {
	struct ledger_probe *v;
	size_t n;
	char **storage_;           /* private: storage_[i] owns the strings of v[i] */
};

/*
 * Read probe id (id < 0: the newest, by time taken then id) into *out as
 * one row (out->n == 1; ledger_probe_rows_free()). 0, LEDGER_NOT_FOUND
 * (no such probe, or none at all), or -1.
 */
int ledger_probe_get(struct ledger *l, int64_t id, struct ledger_probe_rows *out,
		     char *err, size_t errlen);

/* Read stored probes newest first (time taken, then id); limit 0 means all.
 * *out is the caller's (ledger_probe_rows_free()). 0 or -1. */
int ledger_probe_list(struct ledger *l, size_t limit, struct ledger_probe_rows *out,
		      char *err, size_t errlen);

void ledger_probe_rows_free(struct ledger_probe_rows *r);

/* ---- releases (gpurent release; schema v5) ---- */

/*
 * One release: when, what it deleted by category (counts, bytes), the
 * platform action and what it answered. Strings are borrowed for the
 * call; none may hold a secret (the command of --on-release is not
 * stored, only "command").
 */
struct ledger_release {
	double at;                /* unix seconds; required */
	const char *host;         /* required */
	const char *verify;       /* "ok", "skipped"; required */
	long credentials, leftovers, paths, histories;   /* files deleted of each (>= 0) */
	double bytes;             /* their bytes */
	const char *action;       /* the preset's name, "command", or NULL: none */
	const char *effect;       /* "release", "stop", NULL unknown */
	const char *status;       /* "done", "failed", "none"; required */
	const char *answer;       /* one line of what it said; NULL none */
};

/* Record r; *id (may be NULL) its id. 0, LEDGER_INVALID (a required field
 * missing, a negative count, bytes not finite) or -1. */
int ledger_release_add(struct ledger *l, const struct ledger_release *r, int64_t *id,
		       char *err, size_t errlen);
/* ---- bill items (gpurent bill import; schema v6) ---- */

#include "core/books/bill.h"

/*
 * Store the n items of one parsed export in one transaction: each keyed
 * by the file's digest and its line (so importing the same file again adds
 * nothing), file naming it. *added (may be NULL) gets the rows new to the
 * ledger. 0, or -1 with a message in err and nothing stored.
 */
int ledger_bill_import(struct ledger *l, const struct bill_export *b, const char *file,
		       size_t *added, char *err, size_t errlen);

/* Every stored item, oldest first (start, then id), into *out (caller frees
 * with bill_free(); out->format is meaningless). 0 or -1. */
int ledger_bill_list(struct ledger *l, struct bill_export *out, char *err, size_t errlen);
/* ---- Slurm attempts (gpurent run --preset slurm; schema v7) ---- */

/* One attempt of a Slurm job under the guard. Strings borrowed for the call. */
struct ledger_slurm {
	int64_t run_id;            /* the attempt's run (ledger_begin_run()); required */
	const char *job_id;        /* SLURM_JOB_ID; required */
	long restart_count;        /* SLURM_RESTART_COUNT (0 the first time); -1 unknown */
	double queue_wait_s;       /* StartTime - SubmitTime of this attempt; NaN unknown */
	double time_limit_s;       /* the job's TimeLimit; NaN unknown */
	const char *action;        /* "requeue", "end", "scancel", ...; NULL while it runs */
};

/*
 * Record (or replace) the Slurm facts of run s->run_id. 0, LEDGER_INVALID
 * (no job id, a negative or infinite figure), or -1 with a message in err.
 */
int ledger_slurm_put(struct ledger *l, const struct ledger_slurm *s, char *err, size_t errlen);

#endif
