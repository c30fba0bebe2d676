/*
 * plan.h - from a workload to a ranked, priced, explained plan: the
 * estimate on each offer's GPUs, fit with headroom, time, the whole job's
 * cost under each allowed billing mode (spot at its expected cost with
 * interruptions), constraints (deadline, budget, price cap, SkyPilot
 * resources), the ranking, what was excluded and why, and the advice,
 * all as codes and facts (the sentences are src/cmd/plan/planwords.c's).
 * Pure computation: prices come from a pricer the caller supplies
 * (src/cmd/plan/plan_setup.c binds it to data/billing.csv).
 */
#ifndef GPURENT_PLAN_H
#define GPURENT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"
#include "core/task/skytask.h"
#include "core/task/slurm.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/workload.h"

enum plan_mode {
	PLAN_ON_DEMAND, PLAN_SPOT, PLAN_DAILY, PLAN_WEEKLY, PLAN_MONTHLY,
	PLAN_RESERVED_1Y, PLAN_RESERVED_3Y,   /* services: every hour of a 1-/3-year term */
	PLAN_NMODES
};
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
	/* instances rented together (a task's num_nodes); 0 or 1 = one. Each
	 * is billed for the whole usage; egress is the job's, once; any one
	 * interrupted stops the job (spot: MTBF / nodes) */
	double nodes;
};

struct plan_cost {
	double compute, idle, storage, egress, total;   /* USD */
	double busy_wall_s;   /* computing time: spot's expected time with interruptions */
	double interval_s;    /* spot: the checkpoint interval used */
	double interruptions; /* spot: expected count */
	/* what the bill's rule did, worded by the command layer (planwords.h) */
	enum plan_cost_note {
		PLAN_NOTE_BILLING,    /* "<profile> billing" */
		PLAN_NOTE_ROUNDED,    /* rounding billed hours_billed for hours_used */
		PLAN_NOTE_SPOT,       /* spot: interruptions expected */
	} note;
	char profile[48];     /* the billing profile's name */
	double hours_billed, hours_used;
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
	/* who the user is (docs/offers.md "Access"): offers that need a
	 * membership are planned only when it is named here (case-insensitive) */
	const char *const *access;
	size_t naccess;
	/* --exclude / --only: provider names or supply types ("campus-hpc"),
	 * case-insensitive; an offer matching any exclude, or none of a
	 * non-empty only, is excluded as EX_USER_FILTER */
	const char *const *exclude;
	size_t nexclude;
	const char *const *only;
	size_t nonly;
	double fast_margin;    /* "fastest within": a share of the cheapest total (0.10) */
	double stop_multiple;  /* the budget stop without a budget: this x the expected cost (1.2) */
	/* the GPU the job is timed on when no offer could time it (an empty
	 * catalog, nothing with specs): the user class still comes from the
	 * job; NULL = none */
	const struct gpu_spec *reference_gpu;
	struct plan_pricer pricer;
	/* where the job may run: a SkyPilot task document's candidate
	 * resources (skytask.h), borrowed; NULL = no constraints */
	const struct sky_doc *task;
	/* a probe's measured peak per GPU (bytes; 0 = none, formulas.md
	 * "Calibrated by a probe"): it replaces the estimate's memory on
	 * cards of at least probe_card_mem bytes (the probed card's); a
	 * smaller card keeps the estimate's */
	double probe_mem_per_gpu;
	double probe_card_mem;
};
void plan_opts_default(struct plan_opts *o);

/*
 * Why offers were excluded, one code per reason, counted in
 * plan_result.excluded[]. The words are the command layer's
 * (src/cmd/plan/planwords.c); plan_exclusion_name() gives the stable "code" of
 * `plan --json`: append, never renumber or rename (docs/json.md lists
 * them).
 */
enum plan_exclusion {
	EX_UNKNOWN_GPU, EX_CONSTRAINT, EX_GPU_COUNT, EX_MEMORY, EX_SLICE, EX_COMM_BOUND,
	EX_TIME_LIMIT, EX_DEADLINE, EX_BUDGET, EX_MAX_PRICE, EX_NO_THROUGHPUT,
	EX_ACCESS,          /* needs a membership the user did not name (--access) */
	EX_USER_FILTER,     /* --exclude / --only */
	EX_SUSPECT_PRICE,   /* spot at or above on-demand: the columns may be swapped */
	EX_ORDERED,         /* resources.ordered: an earlier choice has a feasible offer */
	EX_NREASONS,
};
/* "unknown_gpu", "constraint", ...; "?" out of range. Static. */
const char *plan_exclusion_name(enum plan_exclusion e);

/* What the first offer excluded for a reason showed: the facts a and b of
 * struct plan_example (money in USD, before any --currency). */
enum plan_detail {
	PLAN_D_NO_SPECS,      /* unknown_gpu: no memory or throughput figures */
	PLAN_D_OTHER_KIND,    /* constraint: a = the offer's GPUs, of another kind or place */
	PLAN_D_GPU_COUNT,     /* a = the offer's GPUs, b = the workload's */
	PLAN_D_MEMORY,        /* memory, slice: a = bytes needed per GPU, b = bytes the offer has */
	PLAN_D_NO_TFLOPS,     /* no_throughput: no TFLOPS at the workload's precision */
	PLAN_D_COMM,          /* comm_bound: a = communication / compute per step */
	PLAN_D_TIME_LIMIT,    /* a = compute seconds, b = the queue's time limit, seconds */
	PLAN_D_NO_MODE,       /* constraint: no billing mode the constraints allow */
	PLAN_D_DEADLINE,      /* a = seconds until done, b = the deadline, seconds */
	PLAN_D_BUDGET,        /* a = the job's cost, b = the budget, USD */
	PLAN_D_MAX_PRICE,     /* a = the instance price, b = --max-price, USD per hour */
	PLAN_D_ACCESS,        /* access: the offer's membership (offer->access) */
	PLAN_D_USER_FILTER,   /* --exclude/--only: the offer's provider or supply type */
	PLAN_D_SUSPECT,       /* a = the spot price, b = the on-demand price, USD per hour */
	PLAN_D_ORDERED,       /* ordered: a = the offer's choice, b = the chosen one (1 = first) */
	PLAN_D_COUNT
};
/* "no_specs", "other_kind_or_place", ...; "?" out of range. Static. */
const char *plan_detail_name(enum plan_detail d);

/* One concrete case of an exclusion reason. */
struct plan_example {
	const struct offer *offer;   /* borrowed from the offer set; NULL: no case */
	enum plan_detail detail;
	double a, b;                 /* see enum plan_detail */
};

/* The shape of a ranked choice's why (its facts are the choice's fields:
 * mem_used, offer->gpu_mem, compute_s, gpus, offer->gpu, mode, queue_s). */
enum plan_why {
	PLAN_WHY_FITS,        /* on-demand or a package, no queue */
	PLAN_WHY_SPOT,        /* spot: its expected time and cost, with restarts */
	PLAN_WHY_QUEUE,       /* on-demand or a package behind a queue of queue_s */
	PLAN_WHY_COUNT
};
/* "fits", "fits_spot", "fits_queue"; "?" out of range. Static. */
const char *plan_why_name(enum plan_why w);

/* Why the user class (plan_result.user_class): its fact is class_run_s. */
enum plan_class_why {
	PLAN_CLASS_SERVICE,     /* C: inference, a service that stays up */
	PLAN_CLASS_LONG_RUN,    /* B: more than 8 h of compute */
	PLAN_CLASS_OCCASIONAL,  /* A: an occasional run */
	PLAN_CLASS_COUNT
};
/* "service", "long_run", "occasional_run"; "?" out of range. Static. */
const char *plan_class_name(enum plan_class_why c);

/* The advice on a supply type, then on billing (no facts: the sentence is
 * fixed for each code). */
enum plan_advice {
	PLAN_A_NONE,                  /* no advice (the unknown supply type) */
	PLAN_A_AI_CLOUD_SHORT,        /* fits A: per-second billing, stop and go */
	PLAN_A_AI_CLOUD_LONG,         /* fits B with persistent storage */
	PLAN_A_AI_CLOUD_SERVICE,      /* fits C on a monthly package */
	PLAN_A_MARKET_RESUMABLE,      /* cheapest; keep checkpoints off the box */
	PLAN_A_MARKET_VOLATILE,       /* cheapest, hosts vanish: short or resumable runs only */
	PLAN_A_CAMPUS_CHAINED,        /* fits B resumable: jobs chained across the limit */
	PLAN_A_CAMPUS_NEEDS_RESUME,   /* B, not resumable: time limits */
	PLAN_A_CAMPUS_QUEUE,          /* A: queue waits cost more than they save */
	PLAN_A_CAMPUS_NO_SERVICE,     /* C: not for a 24x7 service */
	PLAN_A_SERVERLESS_SPIKY,      /* C: spiky inference */
	PLAN_A_SERVERLESS_SHORT,      /* runs under an hour */
	PLAN_A_SERVERLESS_LONG,       /* poor for long training */
	PLAN_A_HYPER_LARGE_DATA,      /* data over 500 GB: next to its object storage */
	PLAN_A_HYPER_SHORT,           /* A: dearest per hour, quotas take days */
	PLAN_A_HYPER_STEADY,          /* B, C: reserved discounts with steady use */
	PLAN_A_BILL_PER_SECOND,       /* billing for A */
	PLAN_A_BILL_SPOT,             /* billing for B, resumable */
	PLAN_A_BILL_ON_DEMAND,        /* billing for B, not resumable */
	PLAN_A_BILL_SERVICE,          /* billing for C */
	PLAN_A_COUNT
};
/* "none", "ai_cloud_short_runs", ...; "?" out of range. Static. */
const char *plan_advice_name(enum plan_advice a);

/* A checklist item; its facts are the fields of struct plan_check named
 * beside each code (money in USD, before any --currency). */
enum plan_check_code {
	PLAN_C_AUTO_STOP,         /* seconds: the max runtime (1.2x the finish); usd: the budget stop
				   * (budget_given: the user's budget, else multiple x the expected
				   * cost; usd 0 and !budget_given: a free offer, no stop to set) */
	PLAN_C_CKPT_INTERVAL,     /* spot/marketplace: seconds = the Young/Daly interval; write_s: one
				   * checkpoint's write; mtbf_s: the provider's MTBF */
	PLAN_C_CKPT_REGULAR,      /* on-demand: the seed's 15-30 min rule; seconds: the interval chosen,
				   * write_s: the write (the interval is at least 20x the write) */
	PLAN_C_DATA_UNKNOWN,      /* no data_size given */
	PLAN_C_DATA_RSYNC,        /* bytes: under 10 GB */
	PLAN_C_DATA_OBJECT_STORE, /* bytes: under 1 TB; seconds: the upload; bw: its bytes/s */
	PLAN_C_DATA_MOUNT,        /* bytes: 1 TB or more */
	PLAN_C_DEBUG_CHEAPEST,    /* offer: the cheapest ranked box; usd: its price per hour */
	PLAN_C_RECORD_COSTS,      /* keep the ledger */
	PLAN_C_CKPT_TIME_LIMIT,   /* time-limited queue: seconds = the job's time limit less set-up,
				   * write_s: the write, lead_s: the signal's lead time, regular_s:
				   * the on-demand interval within each job */
	PLAN_C_COUNT
};
/* "auto_stop", "checkpoint_interval", ...; "?" out of range. Static. */
const char *plan_check_name(enum plan_check_code c);

struct plan_check {
	enum plan_check_code code;
	double seconds, write_s, usd, bytes, bw;
	double multiple;             /* auto_stop without a budget: usd = multiple x the cost */
	bool budget_given;
	double mtbf_s;               /* checkpoint_interval: the interruption rate's MTBF */
	double lead_s;               /* checkpoint_time_limit: the signal's lead time */
	double regular_s;            /* checkpoint_time_limit: the interval within each job */
	const struct offer *offer;   /* borrowed from the offer set */
};

#define PLAN_MAX_CHECKS 10

struct plan_choice {
	const struct offer *offer;   /* borrowed from the offer set */
	enum plan_mode mode;
	double gpus;                 /* over all nodes */
	double nodes;                /* instances rented together (1: one box) */
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
	double comm_share;           /* exposed communication / step time, 0..1 (estimate.h) */
	bool pareto;                 /* on the cost-finish Pareto front of the feasible set */
	bool fastest_within;         /* the fastest within opts.fast_margin of the cheapest total */
	enum plan_why why;           /* the words: plan_word_why() (src/cmd/plan/planwords.c) */
	double queue_s;              /* queue waits before the job is done (queue_wait x chunks) */
};

/* The order-of-magnitude check (docs/formulas.md "Order of magnitude"). */
enum plan_magnitude_code {
	PLAN_M_NONE,
	PLAN_M_SLOW_CHEAPEST,   /* the cheapest plan runs longer than PLAN_LONG_RUN_S */
	PLAN_M_SLOW_ALL,        /* even the fastest plan runs longer than PLAN_ABSURD_RUN_S */
	PLAN_M_OVER_BUDGET,     /* the cheapest total is more than PLAN_BUDGET_FACTOR x the budget */
};
#define PLAN_LONG_RUN_S (7 * 86400.0)    /* estimate.c's long-run warning; seed 000 §3.5 */
#define PLAN_ABSURD_RUN_S (30 * 86400.0)
#define PLAN_BUDGET_FACTOR 10.0
const char *plan_magnitude_name(enum plan_magnitude_code c);

struct plan_magnitude {
	enum plan_magnitude_code code;
	double finish_s;        /* the finish that tripped it (cheapest, or fastest for SLOW_ALL) */
	double limit_s;         /* the threshold it exceeded */
	double total_usd, budget_usd;
	double work;            /* tokens or samples the job counts */
	bool work_is_samples;
	bool from_samples;      /* tokens were counted as samples x seq x epochs */
	double samples, seq, epochs;
	double work_in_range;   /* work that would bring it under the threshold */
};

/* What would have to change when nothing fits (codes and facts). */
enum plan_change_code {
	PLAN_CH_MEMORY,         /* a: memory needed per GPU (least), b: the most on offer, bytes */
	PLAN_CH_ZERO3,          /* a: GPUs ZeRO-3 needs to fit 80 GB */
	PLAN_CH_DEADLINE,       /* a: the soonest finish, b: the deadline, seconds */
	PLAN_CH_BUDGET,         /* a: the cheapest total, b: the budget, USD */
	PLAN_CH_ACCESS,         /* a: offers needing a membership */
	PLAN_CH_RESUMABLE,      /* a: offers lost to a time limit */
	PLAN_CH_WORK,           /* a: work that would fit the deadline on the fastest offer */
	PLAN_CH_NO_OFFERS,      /* no offer was loaded at all */
	PLAN_CH_COUNT
};
const char *plan_change_name(enum plan_change_code c);
struct plan_change {
	enum plan_change_code code;
	double a, b;
	unsigned fixes;      /* PLAN_CH_MEMORY: the PLAN_FIX_* the job does not have yet */
};
/* What could shrink a job's memory, each only where the job lacks it (the
 * advice never asks for what the job already has: LoRA for a LoRA job). */
enum {
	PLAN_FIX_ZERO = 1u << 0,     /* full training without ZeRO-3: more GPUs with ZeRO/FSDP */
	PLAN_FIX_LORA = 1u << 1,     /* full training: LoRA or QLoRA */
	PLAN_FIX_QLORA = 1u << 2,    /* LoRA on a 16-bit base: QLoRA (a 4-bit base) */
	PLAN_FIX_CKPT = 1u << 3,     /* training without gradient checkpointing */
	PLAN_FIX_MICRO = 1u << 4,    /* micro_batch above 1 */
	PLAN_FIX_SEQ = 1u << 5,      /* a shorter seq (always) */
};
#define PLAN_MAX_CHANGES 6

/* Spot against on-demand (item: say so when spot is not the saving). */
enum plan_spot_code {
	PLAN_SPOT_NONE,
	PLAN_SPOT_DEARER,        /* the cheapest spot plan costs more than an on-demand plan */
	PLAN_SPOT_ONLY_EXCLUDED, /* use_spot: true excluded a cheaper on-demand plan */
};
const char *plan_spot_name(enum plan_spot_code c);
struct plan_spot_note {
	enum plan_spot_code code;
	const struct offer *spot, *on_demand;   /* borrowed */
	double spot_total, on_demand_total;      /* USD */
};

/* Per supply type: what the answer held (advice from what is feasible). */
struct plan_supply {
	size_t feasible;
	double best_total;      /* USD, the cheapest feasible of this type */
	double best_finish_s;   /* its finish */
	size_t need_access;     /* offers of this type excluded for access */
};

struct plan_result {
	struct plan_choice *ranked;  /* owned; best first; n entries (<= top) */
	size_t n;
	struct plan_choice fastest;  /* the fastest within fast_margin of the cheapest total */
	bool have_fastest;           /* ... and it is not the cheapest itself */
	size_t pareto;               /* feasible choices on the cost-finish front */
	struct plan_magnitude magnitude;
	struct plan_change changes[PLAN_MAX_CHANGES];
	int nchanges;
	struct plan_spot_note spot_note;
	struct plan_supply supply[SUPPLY_COUNT];
	char access_names[256];      /* the memberships excluded offers need, comma-separated */
	size_t access_distinct;

	size_t considered, feasible;
	size_t excluded[EX_NREASONS];
	struct plan_example example[EX_NREASONS];   /* one concrete case per reason */
	struct estimate single;      /* the estimate on one GPU of the cheapest feasible type */
	/* advice */
	/* advice: codes and facts, worded by src/cmd/plan/planwords.c */
	char user_class;             /* 'A', 'B' or 'C' */
	enum plan_class_why class_why;
	double class_run_s;          /* the best choice's compute seconds; -1 when nothing fits */
	enum plan_advice supply_advice[SUPPLY_COUNT];
	bool supply_fits[SUPPLY_COUNT];
	enum plan_advice billing_advice;
	struct plan_check checklist[PLAN_MAX_CHECKS];
	int nchecklist;
};

/*
 * Price the workload (resolved; arch its architecture) on every offer of
 * set. Returns 0 (r filled; free with plan_result_free()), or -1 with a
 * message in err: out of memory, or an estimate that failed, neither of
 * them one workload field's (the workload was resolved and estimated
 * before).
 */
int plan_run(const struct workload *w, const struct model_spec *arch,
	     const struct offer_set *set, const struct plan_opts *opts,
	     struct plan_result *r, char *err, size_t errlen);
void plan_result_free(struct plan_result *r);

/* Whether the user may and wants to rent o under opts' access, exclude and
 * only lists: true, or false with *why set to EX_ACCESS or EX_USER_FILTER
 * (the service planner shares it). */
bool plan_offer_allowed(const struct plan_opts *opts, const struct offer *o, enum plan_exclusion *why);

/* What a Slurm job script for choice c is sized by (its GPUs and nodes, its
 * compute, the queue's limit, one checkpoint's write, the offer's CPUs):
 * the one input of both `plan --emit slurm` and the checklist's lead, so
 * the two say the same USR1@LEAD (docs/slurm.md "From a plan"). */
void plan_slurm_in(const struct plan_choice *c, struct slurm_gen_in *in);

#endif
