/*
 * plan.h - from a workload to a ranked, priced, explained plan: the
 * estimate on each offer's GPUs, fit with headroom, time, the whole job's
 * cost under each allowed billing mode (spot at its expected cost with
 * interruptions), constraints (deadline, budget, price cap, SkyPilot
 * resources), the ranking, what was excluded and why, and the advice.
 * Pure computation: prices come from a pricer the caller supplies
 * (src/cmd/cmd_plan.c binds it to data/billing.csv).
 */
#ifndef GPURENT_PLAN_H
#define GPURENT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "estimate.h"
#include "model.h"
#include "workload.h"

enum plan_mode { PLAN_ON_DEMAND, PLAN_SPOT, PLAN_DAILY, PLAN_WEEKLY, PLAN_MONTHLY, PLAN_NMODES };
const char *plan_mode_name(enum plan_mode m);

/* What the job uses of an instance, for the pricer. */
struct plan_usage {
	double busy_s;        /* the job's computation */
	double idle_s;        /* instance up but not computing: set-up, data upload */
	double sessions;      /* instance starts (jobs chained across a time limit) */
	double data_bytes;    /* stored for the job's lifetime */
	double egress_bytes;
	/* spot: interruptions (docs/billing.md "Spot") */
	double ckpt_write_s;  /* 0: no checkpoints, an interruption restarts the job */
	double restart_s;     /* from an interruption to computing again */
};

struct plan_cost {
	double compute, idle, storage, egress, total;   /* USD */
	double busy_wall_s;   /* computing time: spot's expected time with interruptions */
	double interval_s;    /* spot: the checkpoint interval used */
	double interruptions; /* spot: expected count */
	char note[96];        /* e.g. "hourly: 3 h billed" */
};

/*
 * The pricer: returns 0 and fills *out with the USD cost of usage `u` of
 * offer `o` under `mode` (spot: its expected cost and time with
 * interruptions), or -1 when the offer has no such mode.
 */
struct plan_pricer {
	int (*price)(void *ctx, const struct offer *o, enum plan_mode mode,
		     const struct plan_usage *u, struct plan_cost *out);
	void *ctx;
};

enum plan_by { PLAN_BY_COST, PLAN_BY_TIME };

struct plan_opts {
	enum plan_by by;
	double deadline_s;     /* 0 = none (the workload's deadline is used when set) */
	double budget_usd;     /* 0 = none */
	double max_price_usd;  /* per instance-hour, 0 = none */
	int top;               /* how many to return */
	double setup_s;        /* billed set-up per instance start */
	double upload_bw;      /* bytes/s for the dataset upload */
	double ckpt_write_bw;  /* bytes/s a checkpoint is written at */
	double restart_s;      /* spot: time to get a new instance and resume */
	struct plan_pricer pricer;
};
void plan_opts_default(struct plan_opts *o);

enum plan_exclusion {
	EX_UNKNOWN_GPU, EX_CONSTRAINT, EX_GPU_COUNT, EX_MEMORY, EX_SLICE, EX_COMM_BOUND,
	EX_TIME_LIMIT, EX_DEADLINE, EX_BUDGET, EX_MAX_PRICE, EX_NO_THROUGHPUT, EX_NREASONS,
};
const char *plan_exclusion_text(enum plan_exclusion e);

struct plan_choice {
	const struct offer *offer;   /* borrowed from the offer set */
	enum plan_mode mode;
	double gpus;
	double mem_total;            /* estimate per GPU, bytes */
	double mem_used;             /* of the offer's per-GPU memory */
	double compute_s;            /* the job's compute on this offer */
	double wall_s;               /* until done: queue + set-up + compute (+ interruptions) */
	double ckpt_interval_s;      /* spot / chained jobs: the optimal interval */
	double ckpt_write_s;         /* one checkpoint's write time */
	double chunks;               /* campus HPC: jobs chained to fit the time limit */
	struct plan_cost cost;
	double on_demand_total;      /* for comparison when spot or a package won */
	double naive_spot;           /* spot price x compute hours, no interruptions */
	bool comm_bound;
	double comm_ratio;
	char why[200];
};

struct plan_result {
	struct plan_choice *ranked;  /* owned; best first; n entries (<= top) */
	size_t n;
	size_t considered, feasible;
	size_t excluded[EX_NREASONS];
	char example[EX_NREASONS][200];   /* one concrete case per reason */
	struct estimate single;      /* the estimate on one GPU of the cheapest feasible type */
	/* advice */
	char user_class;             /* 'A', 'B' or 'C' */
	char class_why[200];
	char supply_advice[SUPPLY_COUNT][200];
	bool supply_fits[SUPPLY_COUNT];
	char billing_advice[240];
	char checklist[10][240];
	int nchecklist;
};

/*
 * Price the workload (resolved; arch its architecture) on every offer of
 * set. Returns 0 (r filled; free with plan_result_free()), or -1 with a
 * message in err.
 */
int plan_run(const struct workload *w, const struct model_spec *arch,
	     const struct offer_set *set, const struct plan_opts *opts,
	     struct plan_result *r, char *err, size_t errlen);
void plan_result_free(struct plan_result *r);

#endif
