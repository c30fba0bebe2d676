/*
 * serve.h - a model served to users (task infer with serve set), priced
 * by the month: for each offer the tensor-parallel degree and replicas
 * that hold the weights and KV cache and serve the load from the decode
 * model, then a month under on-demand, the monthly package and 1-/3-year
 * reserved terms, plus egress and storage; ranked by the monthly total.
 * Every formula is in docs/serve.md. Pure: no I/O, no printing; prices
 * come from the planner's pricer (plan.h), facts and codes come back, the
 * words are src/cmd/plan/plan_serve.c's.
 */
#ifndef GPURENT_SERVE_H
#define GPURENT_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/plan/plan.h"
#include "core/model/workload.h"

/* docs/serve.md "A month": 30 days, as billing.csv's monthly package and
 * per-GB-month storage. */
#define SERVE_MONTH_HOURS 720.0
#define SERVE_MAX_TP 8
/* Replicas searched per offer (beyond this the service is a cluster). */
#define SERVE_MAX_REPLICAS 4096
/* docs/serve.md "Egress": bytes of text per token (OpenAI) and of the
 * JSON envelope per response (assumption). */
#define SERVE_BYTES_PER_TOKEN 4.0
#define SERVE_ENVELOPE_BYTES 500.0
/* docs/serve.md "Tensor parallel": one all-reduce's latency (assumption). */
#define SERVE_ALLREDUCE_LATENCY_S 10e-6
/* docs/serve.md "Checklist": the budget alert without a budget. */
#define SERVE_ALERT_MULTIPLE 1.2
/* Below this share of the week up, serverless scale-to-zero is advised. */
#define SERVE_SPIKY_DUTY 0.5

/* The modes a month is priced under (spot is not offered: a service
 * cannot lose its box at any moment). */
#define SERVE_NMODES 4
extern const enum plan_mode serve_modes[SERVE_NMODES];

/* Why an offer was not ranked; serve_exclusion_name() gives the stable
 * JSON code: append, never renumber. Facts a, b of struct serve_example. */
enum serve_exclusion {
	SX_UNKNOWN_GPU,     /* no specs for the GPU */
	SX_SUSPECT,         /* the catalog's prices look swapped (offer.suspect) */
	SX_KEPT_OUT,        /* the caller's keep() refused it (access, --exclude) */
	SX_MARKETPLACE,     /* hosts vanish: not for a service */
	SX_TIME_LIMIT,      /* a = the queue's time limit, b = a day's hours up, seconds */
	SX_GPU_COUNT,       /* a = the TP degree that would fit, b = the offer's GPUs */
	SX_MEMORY,          /* a = bytes per GPU needed at TP 8 and one sequence, b = the offer's */
	SX_TOO_SLOW,        /* a = best tokens/s per sequence, b = tokens/s each needs */
	SX_NO_PRICE,        /* no billing profile or mode prices it */
	SX_BUDGET,          /* a = the monthly total, b = the budget, USD */
	SX_COUNT
};
const char *serve_exclusion_name(enum serve_exclusion x);

struct serve_example {
	const struct offer *offer;   /* borrowed; NULL: no case */
	double a, b;
};

struct serve_choice {
	const struct offer *offer;   /* borrowed from the offer set */
	int tp;                      /* GPUs per replica (tensor parallel) */
	long replicas;
	double instances;            /* boxes rented: ceil(replicas / replicas per box) */
	double batch;                /* sequences per replica */
	double mem_per_gpu;          /* bytes */
	double mem_used;             /* of the offer's per-GPU memory */
	double step_s;               /* one decode step */
	double comm_s;               /* of which tensor-parallel all-reduces */
	double prefill_share;        /* of each replica's time spent on prompts */
	double seq_tps;              /* tokens/s per sequence */
	double served_tps;           /* replicas x batch x seq_tps */
	double tps_margin;           /* seq_tps / needed_seq_tps - 1: at least the workload's tps_headroom */
	enum plan_mode mode;         /* the cheapest of serve_modes */
	double compute, storage, egress, total;   /* USD per month, in mode */
	double mode_total[SERVE_NMODES];          /* USD per month; < 0: not offered */
	char profile[48];
};

/* Checklist items, worded by src/cmd/plan/plan_serve.c. */
enum serve_check {
	SC_BUDGET_ALERT,     /* usd: the alert; given: the user's budget, else SERVE_ALERT_MULTIPLE x */
	SC_HEALTH,           /* a health check and a restart policy */
	SC_LOAD_TEST,        /* measure tokens/s at the batch before committing */
	SC_RESERVED_TERM,    /* the cheapest is a reserved term: a 1- or 3-year commitment */
	SC_SCALE_TO_ZERO,    /* duty below SERVE_SPIKY_DUTY: serverless, scale to zero */
	SC_RECORD_COSTS,
	SC_COUNT
};
const char *serve_check_name(enum serve_check c);

struct serve_opts {
	int top;
	double budget_usd;           /* per month; 0 = none */
	bool allow_marketplace;      /* rank marketplace hosts (default false) */
	/* optional: keep only offers the user can rent (access); NULL = all */
	bool (*keep)(void *ctx, const struct offer *o);
	void *keep_ctx;
	struct plan_pricer pricer;
};
void serve_opts_default(struct serve_opts *o);

struct serve_result {
	struct serve_choice *ranked; /* owned; cheapest first; n <= top */
	size_t n;
	size_t considered, feasible;
	size_t excluded[SX_COUNT];
	struct serve_example example[SX_COUNT];
	/* the load */
	double hours_week, hours_month, duty;  /* duty = hours_week / 168 */
	long concurrency;
	double needed_tps;           /* output tokens/s the whole service must serve */
	double needed_seq_tps;       /* per sequence */
	double tps_headroom;         /* the margin asked above it (workload tps_headroom) */
	double egress_bytes;         /* per month */
	bool egress_given;
	double storage_bytes;        /* per box: the weights + data_size */
	double decode_efficiency;    /* share of memory bandwidth decode reaches (EST_DECODE_BW_EFFICIENCY) */
	struct estimate single;      /* the estimate on one GPU (memory by component) */
	/* advice and checklist */
	bool spiky;                  /* duty < SERVE_SPIKY_DUTY */
	bool serverless_ranked;
	double alert_usd;            /* budget alert, USD per month */
	bool alert_is_budget;
	enum serve_check checklist[SC_COUNT];
	int nchecklist;
};

/* true when w (resolved) is a service: task infer with serve set. */
bool serve_wanted(const struct workload *w);

/* Memory per GPU (bytes) of one replica at tensor-parallel degree tp
 * holding batch sequences, from the one-GPU estimate e (docs/serve.md
 * "Memory"). */
double serve_mem_per_gpu(const struct workload *w, const struct model_spec *arch,
			 const struct estimate *e, int tp, double batch);

/* One decode step's seconds at tp and batch on gpu (docs/serve.md
 * "Decode"); the all-reduce share goes to *comm_s when non-NULL. */
double serve_step_seconds(const struct workload *w, const struct model_spec *arch,
			  const struct estimate *e, const struct gpu_spec *gpu, double efficiency,
			  int tp, double batch, double *comm_s);

/*
 * Plan the service w (resolved; arch its architecture) on every offer of
 * set. Returns 0 (r filled; free with serve_result_free()), or -1 with
 * "field: what" in err.
 */
int serve_run(const struct workload *w, const struct model_spec *arch,
	      const struct offer_set *set, const struct serve_opts *opts,
	      struct serve_result *r, char *err, size_t errlen);
void serve_result_free(struct serve_result *r);

#endif
