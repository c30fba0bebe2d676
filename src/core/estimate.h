/*
 * estimate.h - what a workload needs: memory per GPU by component, fit
 * per memory tier, time from FLOPs, and whether gradient/parameter
 * communication dominates a step. Pure computation; every formula is
 * derived in docs/formulas.md under the heading named beside it.
 */
#ifndef GPURENT_ESTIMATE_H
#define GPURENT_ESTIMATE_H

#include <stdbool.h>

#include "gpu.h"
#include "model.h"
#include "workload.h"

#define EST_NTIERS 9
extern const double est_tiers_gb[EST_NTIERS]; /* 16 24 32 40 48 80 94 141 192 */

struct est_mem {            /* bytes per GPU */
	double weights;         /* trainable or frozen weights (16-bit copy in mixed precision) */
	double gradients;
	double optimizer;       /* optimizer states + fp32 master weights */
	double adapters;        /* LoRA weights + gradients + optimizer states */
	double quant_consts;    /* quantization scales (QLoRA / int8) */
	double activations;     /* kept for backward (train), or transient (infer) */
	double logits;          /* logits / loss buffer */
	double kv_cache;
	double allocated;       /* sum of the above: torch.cuda.max_memory_allocated */
	double allocator;       /* caching-allocator reserve: reserved - allocated */
	double context;         /* CUDA context and library workspaces */
	double total;           /* what nvidia-smi shows, what must fit */
};

struct est_tier {
	double gb;
	bool fits;
	double used;            /* total / capacity */
};

#define EST_MAX_NOTES 24

struct estimate {
	/* model */
	double params, params_active, params_trainable, lora_params;
	/* memory */
	struct est_mem mem;
	double kv_per_token;    /* bytes per token per sequence (all layers) */
	struct est_tier tiers[EST_NTIERS];
	int recommended;        /* index into tiers, -1 when none fits */
	int zero3_gpus_for_80;  /* with ZeRO-3, GPUs needed to fit 80 GB; 0 = n/a */
	bool zero3_needs_ckpt;  /* ... and only with gradient checkpointing */
	bool gpu_fits;
	double gpu_used;
	/* time */
	bool have_time;
	double work;            /* tokens (LMs) or samples (images) */
	bool work_is_samples;
	double flops_per_unit;  /* per token or per sample */
	double flops_total;
	double peak_flops;      /* per GPU, the precision's dense peak; 0 when --tflops given */
	double mfu;
	double eff_flops;       /* per GPU, FLOP/s */
	double compute_seconds;
	double prefill_seconds, decode_seconds, decode_tokens_per_second;
	double wall_seconds;
	double gpu_hours;
	/* communication */
	bool have_comm;
	double steps;
	double comm_bytes;      /* per GPU per optimizer step */
	double link_bw;         /* bytes/s, effective, per direction */
	char link_desc[96];
	double comm_seconds, step_compute_seconds, comm_ratio;
	bool comm_bound;
	/* what was assumed, what looks wrong */
	char assumptions[EST_MAX_NOTES][200];
	int nassumptions;
	char warnings[8][320];
	int nwarnings;
};

/*
 * Compute the estimate for a resolved workload (workload_resolve() done):
 * m is the architecture, gpu may be NULL. Returns 0, or -1 with a message
 * in err (only for combinations the formulas cannot price).
 */
int estimate_run(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, struct estimate *e,
		 char *err, size_t errlen);

/* Default MFU for a GPU class (docs/formulas.md "Time"). */
double estimate_default_mfu(enum gpu_class c);

/* Peak dense FLOP/s of gpu at the workload's precision; 0 if none. */
double estimate_peak_flops(const struct gpu_spec *gpu, int precision);

#endif
