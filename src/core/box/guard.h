/*
 * guard.h - the decisions of `gpurent run`, without the processes: when a
 * supervised job is idle, stalled, over its run time or over its budget,
 * what it has cost, and how long to back off before a restart. The
 * command layer feeds it readings once per poll; everything here is pure
 * arithmetic on those readings (docs/guard.md describes each rule).
 */
#ifndef GPURENT_GUARD_H
#define GPURENT_GUARD_H

#include <stdbool.h>

/* Why the guard stops. MUST stay in step with guard_reason_name(). */
enum guard_reason {
	GUARD_NONE = 0,
	GUARD_EXIT,          /* CMD ended on its own (any way) */
	GUARD_IDLE,          /* the GPUs (or CMD's CPU) below --idle-util for --idle */
	GUARD_STALL,         /* no output and no progress-file update for --stall */
	GUARD_MAX_RUNTIME,   /* --max-runtime reached */
	GUARD_BUDGET,        /* --price x elapsed reached --budget */
	GUARD_SIGNAL,        /* the guard got SIGTERM, SIGINT or SIGHUP */
	GUARD_DEADLINE,      /* --hard-deadline reached while the guard still ran */
	GUARD_PROBE_DONE,    /* `gpurent probe` has its steps (guard_opts.should_stop) */
	GUARD_TIME_LIMIT,    /* --preset slurm: the job's time limit is near (USR1, or SIGTERM at it) */
};

/* The limits, all in seconds and currency units; 0 means "off". */
struct guard_limits {
	double idle_s;          /* --idle */
	double idle_util;       /* --idle-util, percent (of a GPU, or of one CPU core) */
	double stall_s;         /* --stall */
	double max_runtime_s;   /* --max-runtime */
	double deadline_s;      /* --hard-deadline */
	double budget;          /* --budget */
	double price_per_hour;  /* --price (0: cost unknown) */
};

/* What the guard remembers between polls. Start with guard_start(). */
struct guard_state {
	double job_start;       /* when the current attempt started (monotonic s) */
	double idle_since;      /* start of the current idle stretch, < 0 when busy */
	double last_activity;   /* last output or progress-file change */
	double last_poll;       /* time of the previous guard_poll() */
	double idle_total_s;    /* seconds judged idle so far, for the ledger */
	double util;            /* the last reading given (percent, < 0 unknown) */
};

/* Reset s at the start of an attempt at time now (monotonic seconds). */
void guard_start(struct guard_state *s, double now);

/* Output arrived or the progress file changed at time now. */
void guard_activity(struct guard_state *s, double now);

/*
 * One poll at time now, elapsed seconds since the guard started (all
 * attempts, back-off included). util is the busiest reading of the GPUs
 * the job uses, or its CPU use, in percent; < 0 when unknown (never idle).
 * running is false during back-off (no idle or stall judged then).
 * Returns the reason to stop, or GUARD_NONE.
 */
enum guard_reason guard_poll(const struct guard_limits *l, struct guard_state *s,
			     double now, double elapsed, double util, bool running);

/*
 * The earliest moment (monotonic seconds, as now) at which guard_poll()
 * can next stop on a limit: --hard-deadline, --max-runtime and --budget
 * counted from t0 (the guard's start), --stall from the last activity and
 * --idle from the start of the current idle stretch (those two only while
 * running). 0 when no limit applies. The guard polls then as well as every
 * --poll, so a limit fires on time whatever --poll is.
 */
double guard_next_due(const struct guard_limits *l, const struct guard_state *s, double t0, bool running);

/* Cost of `elapsed` seconds at l->price_per_hour (0 when no price). */
double guard_cost(const struct guard_limits *l, double elapsed);

/* Seconds idle so far in the current stretch (0 when busy). */
double guard_idle_for(const struct guard_state *s, double now);

/*
 * Back-off before restart number n (1, 2, ...): base * 2^(n-1), at most
 * 16 * base. base >= 0. (docs/guard.md: restarts)
 */
double guard_backoff(double base, int n);

/* "exit", "idle", "stall", "max-runtime", "budget", "signal", "hard-deadline"; "" for NONE. */
const char *guard_reason_name(enum guard_reason r);

#endif
