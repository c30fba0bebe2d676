/*
 * ledger_summary.h - the ledger's records as data, and the pure part of
 * the ledger: the run and entry types, the bounds every stored value
 * keeps, tags, and summaries (grouping by day, week, month, tag or GPU,
 * one total per currency). No SQLite and no I/O here: src/store/ledger.h
 * reads and writes these records.
 */
#ifndef GPURENT_LEDGER_SUMMARY_H
#define GPURENT_LEDGER_SUMMARY_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Bounds of stored values, checked on every write (LEDGER_INVALID beyond
 * them) and on reading for summaries: money (cost, price_per_hour) at most
 * 1e12 in its currency, times and durations at most 1e11 seconds, so that
 * a sum over any number of runs stays finite.
 */
#define LEDGER_MAX_MONEY 1e12
#define LEDGER_MAX_TIME 1e11

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

/* A double field is known (not NaN). */
static inline bool ledger_known(double v)
{
	return !isnan(v);
}

/* Tags are a comma-separated list: names_each() (names.h) walks them. */

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

/* ---- summaries (pure computation on entries) ---- */

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

#endif
