/*
 * probe.h - what the first steps of a real job say (`gpurent probe`, issue
 * 13): step times read from the job's output, the GPU memory its processes
 * hold, what they imply (steady step time, throughput, MFU, the whole run
 * at this speed) and the diagnoses of the seed article's troubleshooting
 * table (000 §5.1). Pure: the command (src/cmd/probe/cmd_probe.c) feeds lines
 * and readings in; nothing here reads a clock, a file or a device.
 * docs/probe.md describes each rule.
 */
#ifndef GPURENT_PROBE_H
#define GPURENT_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Which format a step line was read in (built-in patterns, docs/probe.md). */
enum probe_logger {
	PROBE_LOG_NONE,          /* no step line seen yet */
	PROBE_LOG_HF,            /* Hugging Face Trainer's dict lines ({'loss': ..., 'epoch': ...}) */
	PROBE_LOG_TQDM,          /* a tqdm bar: "  12/100 [00:05<00:40, 2.31it/s]" (HF, Lightning, LitGPT) */
	PROBE_LOG_TORCHTUNE,     /* torchtune: "1|12|Loss: 1.23" */
	PROBE_LOG_LIGHTNING,     /* LitGPT: "iter 12 step 3: loss 1.23, iter time: 345.67ms" */
	PROBE_LOG_LLMC,          /* llm.c: "step   12/100 | loss 1.23 ... | 345.67 ms | ..." */
	PROBE_LOG_DEEPSPEED,     /* DeepSpeed: "[Rank 0] step=12, skipped=0, lr=..." */
	PROBE_LOG_STEP,          /* plain "step 12" / "Step 12" / "iteration 12" */
	PROBE_LOG_REGEX,         /* --step-regex (its first group is the step number) */
	PROBE_LOG_PROGRESS,      /* --progress-file (probe_progress()) */
};
/* "hf", "tqdm", ... ; "?" out of range. Static. */
const char *probe_logger_name(enum probe_logger l);

/* A diagnosis; its words are the command layer's, its facts are in
 * struct probe_diag. Append only: probe_diag_name() is stable (JSON). */
enum probe_code {
	PROBE_D_WARMUP,          /* the first steps were slower: excluded (first_s, steady_s, steps) */
	PROBE_D_DATA_STARVED,    /* GPU utilisation < 50% while the job's CPU is busy (util, cpu) */
	PROBE_D_SLOWING,         /* step time rising from the first to the last third (first_s, last_s) */
	PROBE_D_MEM_GROWING,     /* memory growing step after step (bytes per step, first, last) */
	PROBE_D_SLICED,          /* visible memory below the card's nominal (visible, nominal) */
	PROBE_D_NO_STEPS,        /* no step line recognised: give --step-regex or --progress-file */
	PROBE_D_NO_GPU_MEMORY,   /* no per-process GPU memory reading (no NVML, or none reported) */
	PROBE_D_IMPOSSIBLE,      /* MFU above 1: steps faster than the card's peak allows (mfu, peak FLOP/s) */
	PROBE_CODE_COUNT
};
/* "warmup", "data_starved", ...; "?" out of range. Static. */
const char *probe_diag_name(enum probe_code c);

struct probe_diag {
	enum probe_code code;
	double a, b;             /* the facts named beside each code above */
	long steps;
};

#define PROBE_MAX_STEPS 100000
#define PROBE_MAX_SAMPLES 100000
#define PROBE_MAX_DIAGS 8

/* Thresholds (docs/probe.md: each from the seed's table or stated as ours). */
#define PROBE_STARVED_UTIL 50.0      /* GPU %: the seed's "GPU 利用率低于 50%" */
#define PROBE_STARVED_CPU 80.0       /* the job's CPU %, of one core: busy */
#define PROBE_SLOWING_RATIO 1.10     /* last third's median over the first's */
#define PROBE_WARMUP_RATIO 1.5       /* a step this much slower than the steady median is warm-up */
#define PROBE_SLICE_RATIO 0.95       /* visible memory under this share of the nominal */

/*
 * The probe's state. probe_init() sets it up; it owns its arrays (freed by
 * probe_free()). Fill it with probe_line() / probe_progress() and
 * probe_sample(); read it with probe_finish().
 */
struct probe {
	enum probe_logger logger;    /* the format the steps were read in */
	void *regex;                 /* compiled --step-regex (regex_t), NULL when none */
	long last_step;              /* the last step number seen, -1 none */
	size_t nsteps;
	long *step;                  /* step numbers, in order seen */
	double *t;                   /* when each was seen (monotonic s) */
	double *reported_s;          /* the step time the line itself gave (s), 0 when none */
	size_t nsamples;
	double *st, *mem, *util, *cpu;  /* reading times, job GPU bytes, GPU %, job CPU % */
	double mem_visible;          /* the card's memory as the process sees it (bytes), 0 unknown */
	double t0;                   /* when the job started (monotonic s) */
};

/* Set p up; step_regex may be NULL (built-in patterns). 0, or -1 with
 * "--step-regex: ..." in err (a bad pattern, or one without a group). */
int probe_init(struct probe *p, const char *step_regex, double t0, char *err, size_t errlen);
void probe_free(struct probe *p);

/*
 * One line of the job's output (stdout or stderr, without the newline) at
 * time t: the step number it reports (and its own step time, when the
 * format gives one), recorded; -1 when the line is no step line or repeats
 * the last step. Lines in other formats than the first recognised are
 * ignored (a job logs one way).
 */
long probe_line(struct probe *p, const char *line, double t);

/* The progress file's content changed at time t: its first number is the
 * step (docs/guard.md "Progress file"). Same return as probe_line(). */
long probe_progress(struct probe *p, const char *content, double t);

/* One reading at time t: the job's GPU memory (bytes, its processes summed
 * over its GPUs; < 0 unknown), the busiest GPU's utilisation and the job's
 * CPU use (percent; < 0 unknown). */
void probe_sample(struct probe *p, double t, double mem, double util, double cpu);

/* What the figures are measured against (all optional: 0 = unknown). */
struct probe_inputs {
	long warmup;                 /* steps to skip; < 0: detect (PROBE_WARMUP_RATIO) */
	double units_per_step;       /* tokens (or samples) a step over all GPUs: micro x seq x accum x gpus */
	bool units_are_samples;
	double flops_per_unit;       /* estimate's FLOPs a token (or sample) */
	double peak_flops;           /* the GPU's dense peak at the precision, per GPU */
	long gpus;
	double nominal_mem;          /* the card's datasheet memory (bytes) */
	double work;                 /* the whole run's tokens (or samples) */
	double price_per_hour;       /* the whole job (all GPUs) */
	double est_mem;              /* estimate's total per GPU (bytes) */
	double est_step_s;           /* estimate's step time (s) */
};

struct probe_result {
	enum probe_logger logger;
	long steps;                  /* steps seen */
	long warmup;                 /* steps excluded as warm-up */
	double first_step_s;         /* the first step's time */
	double steady_step_s;        /* median of the steps after warm-up */
	double first_third_s, last_third_s;  /* medians of the first and last third of them */
	double peak_mem;             /* bytes, the job's GPU memory at its highest; 0 unknown */
	double mem_growth;           /* bytes a step, least squares over the steady part */
	double util_median, cpu_median;  /* percent; < 0 unknown */
	double units_per_s;          /* tokens (or samples) a second, all GPUs; 0 unknown */
	double mfu;                  /* units_per_s x flops_per_unit / (peak x gpus); 0 unknown */
	double full_run_s, full_run_cost;    /* the whole run at this speed; 0 unknown */
	double mem_error, step_error;        /* estimate / measured - 1; 0 when either unknown */
	struct probe_diag diags[PROBE_MAX_DIAGS];
	int ndiags;
};

/* Summarise p against in into *r. Pure; 0 always (unknown figures are 0). */
int probe_finish(const struct probe *p, const struct probe_inputs *in, struct probe_result *r);

#endif
