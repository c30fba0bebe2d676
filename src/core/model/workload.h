/*
 * workload.h - what the user wants to run, written once: the fields of a
 * workload YAML file and of `gpurent estimate` flags, from one table.
 * Every field has a name (YAML key; the flag is --name with '-' for '_'),
 * a parser, a default and a line of help. workload_resolve() applies the
 * defaults and checks the fields against each other and the model.
 */
#ifndef GPURENT_WORKLOAD_H
#define GPURENT_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "core/model/gpu.h"
#include "core/model/model.h"

enum task { TASK_TRAIN, TASK_LORA, TASK_QLORA, TASK_INFER };
enum precision { PREC_FP32, PREC_AMP, PREC_BF16, PREC_FP16, PREC_BF16_TRUE, PREC_FP16_TRUE };
enum optimizer { OPT_ADAMW, OPT_ADAMW_8BIT, OPT_SGD, OPT_ADAFACTOR };
/* KV_Q*: llama.cpp's block formats (ggml-common.h), appended: the values
 * of the others are stable. Bytes per value: estimate_kv_bytes(). */
enum kv_dtype { KV_AUTO, KV_FP32, KV_FP16, KV_BF16, KV_FP8, KV_INT8, KV_INT4,
		KV_Q8_0, KV_Q4_0, KV_Q4_1, KV_Q5_0, KV_Q5_1 };
/* The quantized weights' format (formulas.md "Quantization formats"):
 * auto is bitsandbytes' (NF4 at 4 bits, LLM.int8 at 8), the rest name a
 * checkpoint format and its per-group or per-block constants. Append only. */
enum quant_format { QF_AUTO, QF_NF4, QF_INT8, QF_GPTQ, QF_AWQ, QF_Q8_0, QF_Q4_0, QF_Q4_K };
/* How the causal-LM loss holds its logits (docs/formulas.md "Logits"):
 * full (logits + an fp32 log-softmax and its gradient), chunked over the
 * tokens, or fused (no fp32 copy, the gradient written in place). */
enum loss_kind { LOSS_FULL, LOSS_CHUNKED, LOSS_FUSED };
/* A training or serving framework: its defaults are its profile
 * (framework.h, cited in formulas.md "Framework profiles"). FW_NONE: none
 * named. Appended only: the values are stable. */
enum framework { FW_NONE, FW_HF, FW_LIGER, FW_LLMC, FW_TORCHTUNE, FW_UNSLOTH, FW_LITGPT,
		 FW_DEEPSPEED, FW_FSDP, FW_TORCHTITAN, FW_MEGATRON, FW_VLLM, FW_LLAMACPP,
		 FW_SGLANG, FW_COUNT };
enum interconnect { IC_AUTO, IC_NVLINK, IC_PCIE, IC_ETHERNET, IC_INFINIBAND };

struct money {
	double amount;
	char code[8];   /* ISO currency code */
	bool code_given; /* written with its currency; else a bare amount (plan: the display currency) */
};

/* serve: a service up hours_per_day, days_per_week (24x7, 8x5, 12h). */
struct serve_sched {
	double hours_per_day;   /* (0, 24] */
	double days_per_week;   /* 1..7 */
};

/* The most fields the table may have (the set mask's bits). */
#define WORKLOAD_MAX_FIELDS 128

struct workload {
	/* model: a preset, and/or an architecture by hand */
	char model[128];
	double params;
	long layers, hidden, heads, kv_heads, ffn, vocab;
	long head_dim;           /* 0 = hidden / heads (or the preset's) */
	int gated_mlp;           /* a three-matrix (SwiGLU/GeGLU) MLP; the preset's gated_ffn */
	int tied_embeddings;     /* the lm_head shares the input embedding */
	int bias;                /* enum bias_kind */
	long norms_per_layer;    /* 0 = 2 (or the preset's) */
	/* method */
	int task, precision, optimizer;
	long zero, gpus, micro_batch, seq, image_size, grad_accum;
	char seq_spread[32];     /* the samples' lengths, "MEAN+-SD" tokens; "" = every step seq long */
	double seq_mean, seq_sd; /* ... parsed (0: none) */
	int grad_checkpointing;      /* full recomputation: activation_checkpointing == AC_FULL */
	int activation_checkpointing; /* enum ac_kind (framework.h); the framework's when not given */
	int activation_offloading; /* full checkpointing: the kept layer inputs wait in host memory */
	int optimizer_step;      /* enum opt_step (framework.h); the framework's when not given */
	int compile;             /* torch.compile / CUDA graphs; the framework's when not given */
	int flash_attention;
	double dropout;
	double lora_dropout;     /* LoRA: dropout on each adapter's input */
	int framework;           /* enum framework; FW_NONE unless given */
	int loss;                /* enum loss_kind; the framework's when not given */
	long lora_rank;
	char lora_targets[128];
	long quant_bits;
	int double_quant;        /* 4-bit: block scales quantized again (formulas.md "Quantization") */
	int quant_saves_input;   /* 4-bit: bitsandbytes <= 0.43.1 keeps each linear's input for backward */
	int fsdp_frozen_grads;   /* LoRA, FSDP1 use_orig_params, a layer one unit: its frozen weights' gradient */
	int fsdp_root_gathered;  /* FSDP: the root unit (embedding, lm_head) gathered to the end of backward */
	int fsdp_wrap_cache;     /* FSDP1 wrapping a built model: its unsharded copies left cached */
	int gradient_as_bucket_view; /* DDP: the gradients are views into the Reducer's buckets (no copy) */
	int memory_efficient_linear; /* DeepSpeed ZeRO-3's linear wrapper in place (default 1); 0: gathered weights kept */
	int autocast_inference_cache; /* serving an fp32 module under autocast: the 16-bit casts cached */
	/* inference */
	long context, concurrency;
	int kv_dtype;
	int quant_format;        /* enum quant_format */
	double prompt_tokens;
	long prefill_chunk;      /* prompt tokens prefilled a pass; 0 = whole (the framework's) */
	double gpu_memory_utilization; /* serving: share of the card reserved (vLLM); 0 = what is needed */
	/* time */
	double tokens, samples, epochs;
	char gpu[64];
	double tflops, mfu, step_time;
	/* communication */
	int interconnect;
	double link_bw;
	long nodes;              /* machines; gpus is the total over them */
	double node_bw;          /* bytes/s between nodes, per node, effective; 0 = default */
	/* overheads */
	double cuda_context, alloc_overhead, headroom;
	/* the job around the compute (plan) */
	struct money budget;
	double data_size, deadline, egress;
	int resumable;
	/* a service (task infer with serve set): docs/serve.md */
	struct serve_sched serve;
	double user_tps, rps, egress_month;
	double tps_headroom;          /* a service: spare tokens/s wanted above the load */
	long prompt_len, output_len;
	char access[256];       /* plan: memberships held, comma-separated */

	unsigned long long set[WORKLOAD_MAX_FIELDS / 64];   /* bit i: field i was given */
	size_t line[WORKLOAD_MAX_FIELDS];   /* where field i was given (0 = flag) */
};

enum field_type {
	F_STR, F_COUNT, F_BYTES, F_DURATION, F_FRACTION, F_INT, F_BOOL,
	F_ENUM, F_NUMBER, F_BANDWIDTH, F_MONEY,
	F_SCHEDULE,   /* struct serve_sched: 24x7, 8x5, 12h */
};

struct workload_field {
	const char *name;       /* YAML key; MUST keep the table sorted by name */
	enum field_type type;
	size_t offset;
	size_t size;            /* F_STR buffer size */
	long min, max;          /* F_INT range */
	unsigned flags;         /* F_INT: UNITS_INT_K1024 for token lengths (4k = 4096) */
	const char *const *enum_names;  /* F_ENUM, NULL-terminated */
	const char *dflt;       /* the default, as documented */
	const char *help;
};

extern const struct workload_field workload_fields[];
extern const size_t workload_nfields;

/* Index of a field by YAML key or flag name ('-' == '_'), or -1. */
int workload_field_index(const char *name);

/* Set every field to its unset state. */
void workload_init(struct workload *w);

/*
 * Set field `key` from text. line is where it came from (0 for a flag).
 * Returns 0; -1 with "expected ..." in err for a bad value; -2 for an
 * unknown key, with "unknown field (did you mean 'x'?)" in err.
 */
int workload_set(struct workload *w, const char *key, const char *value,
		 size_t line, char *err, size_t errlen);

bool workload_is_set(const struct workload *w, const char *key);
/* Field i (an index into workload_fields) was given. */
bool workload_index_set(const struct workload *w, int i);

/*
 * Load a workload YAML document (a mapping of field: value; lists for
 * lora_targets) from buf. Errors come back as "fname:line: field: what",
 * the return value is -1. Fields already set in w are overwritten. A
 * dstack configuration (core/task/dstack.h) sets nothing and returns 0.
 */
int workload_load_yaml(struct workload *w, const char *buf, size_t len,
		       const char *fname, char *err, size_t errlen);

/*
 * Apply defaults and check the fields against each other and the data:
 * picks the model preset (or builds the architecture by hand) into *arch
 * and the GPU into *gpu (NULL when none was named). On error returns -1,
 * writes "field: what" into err and the field's index into *bad_field
 * (-1 when no single field is to blame).
 */
int workload_resolve(struct workload *w, const struct model_db *mdb,
		     const struct gpu_db *gdb, struct model_spec *arch,
		     const struct gpu_spec **gpu, int *bad_field,
		     char *err, size_t errlen);

const char *workload_enum_name(const char *field, int value);

/*
 * Parse a service schedule: "HxD" (hours a day x days a week: 24x7, 8x5)
 * or "Nh" (hours a day, every day: 12h). 0, or -1 with "expected ..." in err.
 */
int workload_parse_serve(const char *s, struct serve_sched *out, char *err, size_t errlen);

/* Hours a week the service is up (0 when serve is not set). */
double workload_serve_hours_week(const struct workload *w);

/*
 * A stable 64-bit digest of what the workload's step is (gpurent probe
 * records it, estimate/plan --calibrate compare it): FNV-1a (64-bit offset
 * basis 14695981039346656037, prime 1099511628211) over "name=value\n"
 * for every field in table order, the value in a fixed text form (strings
 * as they are, numbers "%.17g", integers, booleans and enums as numbers,
 * money "amount code", schedules "hours x days"). Fields that say where,
 * for how long or at what price the job runs, or that are the estimator's
 * own assumptions, are left out (their list: workload.c digest_skip[];
 * docs/formulas.md "Calibrated by a probe"), so that the same job timed
 * on another GPU or for more tokens has the same digest. Call it on a
 * resolved workload. Never 0.
 */
uint64_t workload_digest(const struct workload *w);

#endif
