/*
 * estimate.h - what a workload needs: memory per GPU by component, fit
 * per memory tier, time from FLOPs, and whether gradient/parameter
 * communication dominates a step. Pure computation; every formula is
 * derived in docs/formulas.md under the heading named beside it.
 */
#ifndef GPURENT_ESTIMATE_H
#define GPURENT_ESTIMATE_H

#include <stdbool.h>

#include "core/model/gpu.h"
#include "core/model/model.h"
#include "core/model/workload.h"

/* formulas.md "Inference time": share of peak memory bandwidth decode
 * reaches in the service planner (the estimate's decode step splits it
 * into bytes at a format's efficiency and a per-layer overhead). */
#define EST_DECODE_BW_EFFICIENCY 0.70

#define EST_NTIERS 9
extern const double est_tiers_gb[EST_NTIERS]; /* 16 24 32 40 48 80 94 141 192 */

struct est_mem {            /* bytes per GPU */
	double weights;         /* trainable or frozen weights (16-bit copy in mixed precision) */
	double gradients;
	double optimizer;       /* optimizer states + fp32 master weights */
	double adapters;        /* LoRA weights + gradients + optimizer states */
	double adapters_fsdp;   /* ... of which the weights and gradients (FSDP's shards; part of adapters) */
	double quant_consts;    /* quantization scales (QLoRA / int8) */
	double ddp_buckets;     /* torch DDP's Reducer: its all-reduce buckets, a copy of every gradient */
	double activations;     /* kept for backward (train), or transient (infer) */
	double logits;          /* logits / loss buffer */
	double kv_cache;
	double sharding;        /* ZeRO-3/FSDP: gathered layers in flight + gradient reduce buffers */
	/* formulas.md "Peak by phase": terms live in one phase only */
	double dequant;         /* forward/backward: the 16-bit copy of the largest quantized linear weight */
	double int8_saved;      /* forward/backward, int8 base: each linear's int8 copy of its input (CAt) */
	double quant_saved;     /* forward/backward, 4-bit base, quant_saves_input: each distinct input, 16-bit */
	double step_temp;       /* optimizer step: foreach AdamW's sqrt(v) buffer (activations freed) */
	double load_inflight;   /* loading: the 16-bit weight being quantized (the rest already quantized) */
	double train_peak;      /* model states + sharding + activations + logits + KV + dequant + int8_saved + quant_saved */
	double step_peak;       /* model states + step_temp */
	double load_peak;       /* weights + quant_consts + load_inflight */
	enum est_phase { EST_PHASE_TRAIN, EST_PHASE_STEP, EST_PHASE_LOAD } peak_phase;
	double allocated;       /* the largest of the three peaks: torch.cuda.max_memory_allocated */
	double allocator;       /* caching-allocator reserve: reserved - allocated (wrap_left included) */
	long reserve_steps;     /* allocator replayed over so many steps (seq_spread given); 0: alloc_overhead */
	double wrap_cache;      /* FSDP1 wrap: unsharded copies it frees into the default stream's cache */
	double wrap_left;       /* ... what of it training's default-stream tensors do not take back */
	double context;         /* CUDA context and library workspaces */
	double total;           /* what nvidia-smi shows, what must fit */
	double reserved_share;  /* serving on a chosen card: the share the engine reserves (0: none) */
	double reserved;        /* ... that share of the card, bytes (total, the need, must fit in it) */
	double reserved_free;   /* ... what of it the KV cache may still take (< 0: short, will not start) */
};

struct est_tier {
	double gb;
	bool fits;
	double used;            /* total / capacity */
};

/*
 * What an assumption or a warning says, one code per sentence; the words
 * are the command layer's (src/cmd/estimate/estwords.c), the facts they state are
 * the fields of struct est_note named beside each code (the others are 0,
 * "" or false). est_code_name() gives the stable name `estimate --json`
 * lists: append, never renumber or rename (docs/json.md lists them).
 */
enum est_code {
	/* assumptions: the first four every estimate states */
	EST_N_PRECISION,          /* precision, kept */
	EST_N_IMAGE,              /* length (the image side), given, micro_batch */
	EST_N_SEQUENCE,           /* length (seq, inference: context), given, micro_batch */
	EST_N_OVERHEAD,           /* bytes (the CUDA context), given, fraction (allocator reserve) */
	EST_N_ATTENTION,          /* flash, dropout, grad_ckpt */
	EST_N_NO_ACTIVATIONS,     /* only a parameter count: activations not computed */
	EST_N_CNN_CHECKPOINTING,  /* gradient checkpointing on a CNN halves kept activations */
	EST_N_TIME_MFU_GIVEN,     /* name (the GPU), precision, flops (its peak), mfu (given) */
	EST_N_TIME_MFU_CNN,       /* same, the CNN-on-tensor-cores MFU */
	EST_N_TIME_MFU_CLASS,     /* same, the default MFU for its class */
	EST_N_INFER_NEEDS_GPU,    /* inference time needs a GPU */
	EST_N_DECODE,             /* fraction (of the memory bandwidth reached), bw */
	EST_N_NO_KV_CACHE,        /* only a parameter count: KV cache not computed */
	/* warnings */
	EST_W_NO_TENSOR_RATE,     /* name (the GPU), precision, fp32 (timed at FP32, else FP16) */
	EST_W_LONG_RUN,           /* seconds (wall), gpus, counted, work, samples, flops (per unit), per_day */
	EST_W_IMPLAUSIBLE,        /* same, more than 30 days */
	EST_W_ROPE_CONTEXT,       /* length (tokens), name (the model), max_positions */
	/* assumptions (appended): G > 1 training */
	EST_N_COMM_OVERLAP,       /* overlap (the mechanism), fraction (overlap_fraction), slowdown,
				   * seconds (exposed per step), share (comm_share), gpus */
	/* assumptions (appended): a decoder's training loss */
	EST_N_LOSS,               /* loss (enum loss_kind), framework, given (loss given), chunks, bytes */
	/* assumptions (appended): time from how fast real stacks run (formulas.md "Inference time", "Time") */
	EST_N_DECODE_OVERHEAD,    /* mech (enum est_decode_over), framework, given (compile given),
				   * seconds (per token: the overhead added to the bytes), length (layers) */
	EST_N_DECODE_TP,          /* gpus, seconds (one all-reduce), link (enum est_link), share (of a token),
				   * mech (enum est_ar_kind) */
	EST_N_DECODE_LAYER_SPLIT, /* gpus, seconds (one hand-over between GPUs), framework */
	EST_N_TIME_MFU_PUBLISHED, /* name (the GPU), precision, flops (its peak), mfu, mech (enum est_mfu_src) */
	EST_N_BENCH_MEASURED,     /* name (the GPU), flops (measured GEMM FLOP/s, 0: none), bw (measured
				   * bytes/s, 0: none), at (unix seconds of the newest record), fraction (MFU scale) */
	/* assumptions (appended): sharded training under FSDP (formulas.md "Sharded training") */
	EST_N_FSDP_WRAP_CACHE,    /* bytes (the wrap's cache), taken (what training's own tensors take
				   * back of it), left (what stays reserved) */
	/* assumptions (appended, issue 30): every factor a figure was multiplied by,
	 * and the framework defaults taken */
	EST_N_QLORA_SLOWDOWN,     /* slowdown (the step time's factor for the quantized base) */
	EST_N_FRAMEWORK_DEFAULTS, /* framework, name ("field=value ..." of the fields not given that
				   * the framework or gpurent set) */
	/* assumptions (appended, issue 30): checkpointing, the loss and the
	 * recomputed layer two moments (formulas.md "Peak by phase") */
	EST_N_LOSS_MOMENT,        /* bytes (the loss buffers), left (the recomputed layer's bytes not
				   * counted beside them) */
	EST_CODE_COUNT
};

/* EST_N_PRECISION: what is kept in which precision. */
enum est_kept {
	EST_KEPT_INFER_FP32, EST_KEPT_INFER_16,
	EST_KEPT_ADAPT_FP32, EST_KEPT_ADAPT_PURE16, EST_KEPT_ADAPT_MIXED,   /* LoRA, QLoRA */
	EST_KEPT_TRAIN_FP32, EST_KEPT_TRAIN_PURE16, EST_KEPT_TRAIN_MIXED,
};

/* EST_W_LONG_RUN, EST_W_IMPLAUSIBLE: what the work was counted from. */
enum est_counted { EST_COUNTED_TOKENS, EST_COUNTED_SAMPLES, EST_COUNTED_SAMPLES_SEQ };

/* EST_N_COMM_OVERLAP and struct estimate: how communication overlaps the
 * compute (docs/formulas.md "Communication"). */
enum est_overlap {
	EST_OVERLAP_NONE,         /* no communication */
	EST_OVERLAP_DDP,          /* one all-reduce per step in buckets under the last backward pass (ZeRO 0-2) */
	EST_OVERLAP_ZERO3,        /* per-layer gathers (and reduce-scatters) prefetched under every pass */
};

/* EST_N_DECODE_OVERHEAD: what bounds a decode step besides the bytes
 * (formulas.md "Inference time"). */
enum est_decode_over {
	EST_DOVER_COMPILED,       /* torch.compile / CUDA graphs: the compiled per-layer overhead */
	EST_DOVER_EAGER,          /* eager PyTorch: that and the CPU's per-layer launches */
	EST_DOVER_NATIVE_GRAPHS,  /* a native engine (llama.cpp) with CUDA graphs: none added */
	EST_DOVER_NATIVE_NO_GRAPHS, /* llama.cpp without CUDA graphs: per-layer launch time added */
};

/* EST_N_DECODE_TP: whose all-reduce a tensor-parallel decode step waits on. */
enum est_ar_kind {
	EST_AR_ENGINE_NVLINK,     /* vLLM / SGLang custom all-reduce over NVLink */
	EST_AR_ENGINE_PCIE,       /* NCCL inside a CUDA graph over PCIe */
	EST_AR_TORCH,             /* torch.distributed (gpt-fast), fitted */
};

/* EST_N_TIME_MFU_PUBLISHED: which published runs the MFU comes from. */
enum est_mfu_src {
	EST_MFU_FOUNDRY_A100,     /* llm-foundry A100 tables, HFU by model width */
	EST_MFU_FOUNDRY_H100,     /* llm-foundry H100 bf16 tables, HFU by model width */
	EST_MFU_TITAN_A100,       /* torchtitan docs/performance.md, A100 */
	EST_MFU_TITAN_H100,       /* torchtitan docs/performance.md, H100 */
	/* appended (issue 30): the same width mechanism on any other NVIDIA
	 * card, at that card's own FLOP:byte ratio */
	EST_MFU_WIDTH_AMPERE,     /* U_inf of the A100 fit: Volta, Turing, Ampere, Ada */
	EST_MFU_WIDTH_HOPPER,     /* U_inf of the H100 fit: Hopper, Blackwell */
	EST_MFU_WIDTH_CNN,        /* a CNN: its equivalent width from the A100 ResNet-50 row */
};

/* One assumption or warning: its code and facts. No words: est_word()
 * (src/cmd/estimate/estwords.c) makes the sentence. */
struct est_note {
	enum est_code code;
	char name[128];         /* the GPU, or the model (rope_context) */
	int precision;          /* enum precision */
	enum est_kept kept;
	bool given;             /* the value was given, not a default */
	bool flash, grad_ckpt;  /* attention */
	int ac;                 /* attention: enum ac_kind (framework.h) */
	bool fp32;              /* no_tensor_rate: timed at the FP32 rate (else FP16) */
	bool samples;           /* long_run: the unit is samples (else tokens) */
	enum est_counted counted;
	long length;            /* image side (px), sequence or context (tokens) */
	long micro_batch;
	long max_positions;     /* the model's trained context */
	long gpus;
	double bytes;           /* the CUDA context; fsdp_wrap_cache: the cache */
	double taken, left;     /* fsdp_wrap_cache: bytes of it taken back, bytes left reserved;
				 * loss_moment: bytes of the recomputed layer never live beside it */
	double fraction;        /* allocator reserve of allocated; decode: share of bw reached */
	double dropout;
	double flops;           /* time_*: peak FLOP/s; long_run: FLOPs per unit; decode: the card's
				 * FP32 FLOP a byte where the share follows it (0: a fixed share) */
	double mfu;
	double bw;              /* memory bandwidth, bytes/s */
	double seconds;         /* wall time */
	double work, per_day;   /* units of work; units one day covers */
	enum est_overlap overlap;
	double share;           /* comm_overlap: exposed communication / step wall time */
	double slowdown;        /* comm_overlap: compute slowdown while communication runs */
	int loss;               /* loss: enum loss_kind in effect */
	int framework;          /* loss: enum framework (FW_NONE: none named) */
	double chunks;          /* loss: pieces the logits are upcast or computed in (1: whole) */
	int mech;               /* decode_overhead: enum est_decode_over; decode_tp: enum est_ar_kind;
				 * time_mfu_published: enum est_mfu_src */
	int link;               /* decode_tp: enum est_link */
	long bits;              /* decode: the weights' bits (16, 8, 4); loss: the log-softmax's (16, 32) */
	double at;              /* bench_measured: unix seconds of the newest measurement */
};

#define EST_MAX_NOTES 24
#define EST_MAX_WARNINGS 8

/*
 * The fields a user left unset that move the answer most (issue 30,
 * estimate_sensitivity()): the field, the value tried in place of the
 * default taken, and the relative change of the memory (total per GPU)
 * and of the wall time (0 where no time was computed).
 */
#define EST_MAX_SENSITIVE 2
struct est_sensitive {
	int field;              /* index into workload_fields */
	char value[32];         /* the value tried */
	double mem_change;      /* (total tried - total) / total */
	double time_change;     /* (wall tried - wall) / wall; 0: no time */
};

/* The stable snake_case name of a code ("long_run"); "?" out of range. Static. */
const char *est_code_name(enum est_code c);

/* Between nodes when nothing says (node_bw, interconnect): 100 Gb/s per
 * node, gpurent's assumption for a rented multi-node job (formulas.md
 * "Across nodes"); 65% of it is used, as for every link. */
#define EST_NODE_BW_ASSUMED (100e9 / 8)

/* The link the communication is timed over (its facts: link_peak,
 * link_given, link_efficiency of struct estimate). */
enum est_link {
	EST_LINK_NONE,            /* no communication */
	EST_LINK_NVLINK_BRIDGE, EST_LINK_NVLINK, EST_LINK_INFINITY_FABRIC, EST_LINK_ICI,
	EST_LINK_NVLINK_ASSUMED,  /* NVLink asked for, no GPU given: A100-class */
	EST_LINK_ETHERNET,        /* 100 Gb/s */
	EST_LINK_INFINIBAND,      /* 200 Gb/s HDR */
	EST_LINK_PCIE3, EST_LINK_PCIE4, EST_LINK_PCIE5,   /* x16 */
	EST_LINK_COUNT
};
/* "none", "nvlink_bridge", ..., "pcie5"; "?" out of range. Static. */
const char *est_link_name(enum est_link l);
/* "none", "given", "infiniband", "ethernet", "assumed"; "?" out of range. Static. */
const char *est_node_link_name(int l);
/* "none", "ddp", "zero3"; "?" out of range. Static. */
const char *est_overlap_name(enum est_overlap o);

/* torchtune's CEWithChunkedOutputLoss default num_output_chunks: the chunk
 * count of a chunked loss (formulas.md "Logits": torchtune
 * torchtune/modules/loss/ce_chunked_output_loss.py). */
#define EST_LOSS_CHUNKS_TORCHTUNE 8

/* A decoder's training loss buffer: what is live at the peak
 * (formulas.md "Logits"). */
struct est_loss {
	int loss;               /* enum loss_kind in effect */
	int framework;          /* enum framework, as given */
	bool given;             /* loss was given; else the framework's (or full) */
	double chunks;          /* chunked: upcast pieces; fused: computed pieces (1: the logits whole) */
	bool half;              /* full: the log-softmax and its gradient in the module's 16 bits, no
				 * fp32 upcast (a module the engine cast to fp16: estimate_loss_half()) */
	double bytes;
	double apart;           /* bytes of the recomputed layer never live with the loss buffers
				 * (checkpointing: the peak is the larger moment, formulas.md
				 * "Peak by phase"); taken off mem.activations */
};

/*
 * The loss buffer of a decoder trained on s tokens x b sequences with
 * activations of ea bytes: the loss from w->loss when given, else from
 * w->framework (full without either). Pure; fills *out.
 */
void estimate_loss(const struct workload *w, const struct model_spec *m, double s, double b,
		   double ea, struct est_loss *out);

/* Whether a full loss of w runs in the module's 16 bits (formulas.md
 * "Logits", "The loss's dtype"): the framework casts the module to fp16
 * (DeepSpeed's fp16 mode) and its loss takes the logits as they are. */
bool estimate_loss_half(const struct workload *w);

struct estimate {
	/* model */
	double params, params_active, params_trainable, lora_params;
	/* memory */
	struct est_mem mem;
	struct est_loss loss;   /* how mem.logits was counted (training a decoder; else zero) */
	double shard_gathered;  /* mem.sharding: the parameters gathered in flight */
	double shard_root;      /* mem.sharding: the root unit (embedding, lm_head) unsharded */
	double shard_kept;      /* mem.sharding: gathered weights kept for backward (memory_efficient_linear false) */
	double shard_reduce;    /* mem.sharding: the gradients unsharded for the reduce-scatter */
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
	/* a decode step (formulas.md "Inference time"): the bytes read at
	 * decode_bw_efficiency of the bandwidth (per GPU, x gpus when llama.cpp
	 * splits layers), the per-layer overhead of the engine (compiled, eager,
	 * launches without graphs) and the tensor-parallel all-reduces (or
	 * layer hand-overs); seconds each, step = their sum */
	double decode_bw_efficiency;
	double decode_step_seconds, decode_bytes_seconds;
	double decode_overhead_seconds, decode_comm_seconds;
	bool decode_layer_split; /* llama.cpp's default split-mode layer: GPUs take turns */
	/* when gpurent bench measured this GPU (estimate_apply_bench()) */
	bool bench_used;
	double bench_at, bench_flops, bench_bw, bench_mfu_scale;
	double step_slowdown;   /* the factor a step's compute time was multiplied by (the quantized
				 * base's dequantization, EST_N_QLORA_SLOWDOWN); 1: none */
	double wall_seconds;
	double gpu_hours;
	/* communication */
	bool have_comm;
	double steps;
	double comm_bytes;      /* per GPU per optimizer step */
	double link_bw;         /* bytes/s, effective, per direction */
	enum est_link link;     /* the words: est_word_link() (src/cmd/estimate/estwords.c) */
	double link_peak;       /* bytes/s per direction, before link_efficiency */
	double link_efficiency; /* the usable share of link_peak (when not given) */
	bool link_given;        /* link_bw was given (--link-bw) */
	/* across nodes (nodes > 1, formulas.md "Across nodes"): the link between
	 * machines, per node and direction; link_bw is then the effective
	 * bandwidth of the whole two-level collective (intra-node link, then
	 * node_bw), so comm_seconds = comm_bytes / link_bw still holds */
	long nodes;             /* machines (1: one box) */
	double node_bw;         /* bytes/s, effective */
	enum est_node_link {
		EST_NODE_NONE,        /* one node */
		EST_NODE_GIVEN,       /* node_bw given */
		EST_NODE_INFINIBAND,  /* interconnect: infiniband, 200 Gb/s */
		EST_NODE_ETHERNET,    /* interconnect: ethernet, 100 Gb/s */
		EST_NODE_ASSUMED,     /* nothing stated: 100 Gb/s (assumption) */
	} node_link;
	double intra_bw;        /* bytes/s: the link inside a node (0: one GPU a node) */
	/* comm_seconds: the raw communication per step; comm_ratio =
	 * comm_seconds / step_compute_seconds, comm_bound = ratio > 1 (neither
	 * says how much of it is hidden). */
	double comm_seconds, step_compute_seconds, comm_ratio;
	bool comm_bound;
	/* What overlap leaves on the critical path (formulas.md "Communication"):
	 * comm_exposed_seconds per step is added to the step's compute in
	 * wall_seconds (so in gpu_hours and every price of the plan);
	 * comm_share = exposed / (step compute + exposed), 0..1; overlap_fraction
	 * = the share of the step's compute that communication can run under
	 * (DDP: the last micro-batch's backward; ZeRO-3: all of it);
	 * overlap_slowdown = how much slower compute runs while it does. All 0
	 * without communication or without a step time. */
	enum est_overlap overlap;
	double comm_exposed_seconds, comm_share, overlap_fraction, overlap_slowdown;
	/* what was assumed, what looks wrong: codes and facts */
	struct est_note assumptions[EST_MAX_NOTES];
	int nassumptions;
	struct est_note warnings[EST_MAX_WARNINGS];
	int nwarnings;
	/* the unset fields that would move the answer most, largest first
	 * (filled by estimate_sensitivity(); none after estimate_run()) */
	struct est_sensitive sensitive[EST_MAX_SENSITIVE];
	int nsensitive;
	/* After estimate_run() returned -1: the workload field the error is
	 * about (workload_field_index()), -1 when none. */
	int bad_field;
};

/*
 * Compute the estimate for a resolved workload (workload_resolve() done):
 * m is the architecture, gpu may be NULL. Returns 0, or -1 with a message
 * in err (only for combinations the formulas cannot price).
 */
int estimate_run(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, struct estimate *e,
		 char *err, size_t errlen);

/*
 * What `gpurent bench` measured on this GPU (the newest ledger record of
 * each test; 0: not measured): formulas.md "Measured by gpurent bench".
 */
struct est_bench {
	double at;              /* unix seconds of the newest of the records used */
	double gemm_flops;      /* the 16-bit (bf16, else fp16) GEMM, FLOP/s; 0: none */
	double bw;              /* device-to-device copy, bytes/s; 0: none */
};

/* formulas.md "Measured by gpurent bench": the shares of the datasheet a
 * healthy card's large GEMM and device copy reach; the MFU and the decode
 * efficiency (shares of the datasheet) are divided by them when the
 * measured figures replace the datasheet's. */
#define EST_BENCH_GEMM_SHARE 0.80   /* assumption */
#define EST_BENCH_COPY_SHARE 0.85   /* PyTorch gpt-fast blog: "even just copying memory struggles to break 85%" */

/*
 * estimate_run() with the figures gpurent bench measured on gpu (b NULL,
 * or both figures 0: the datasheet alone). The time uses a copy of gpu
 * with the measured GEMM rate and bandwidth in place of the datasheet's,
 * and says so in an assumption (EST_N_BENCH_MEASURED).
 */
int estimate_run_bench(const struct workload *w, const struct model_spec *m,
		       const struct gpu_spec *gpu, const struct est_bench *b, struct estimate *e,
		       char *err, size_t errlen);

/*
 * Fill e->sensitive (e: estimate_run_bench() of `given` once resolved)
 * with the one or two fields `given` leaves unset whose other value moves
 * the total memory or the wall time most (formulas.md "What moves the
 * answer"): each candidate is set on a copy of given, resolved against
 * mdb and gdb and estimated with bench (NULL: none); a change under 1% is
 * not listed. given is the workload as read, before workload_resolve().
 */
void estimate_sensitivity(const struct workload *given, const struct model_db *mdb, const struct gpu_db *gdb,
			  const struct est_bench *bench, struct estimate *e);

/*
 * The link `gpus` GPUs of gpu (NULL: none given) communicate over, by w's
 * interconnect (auto: the GPU's own) and link_bw (formulas.md
 * "Communication"): *kind and *peak (bytes/s per direction; either may be
 * NULL) and *bw, the effective bytes/s (link_bw, else 65% of the peak).
 * The estimate's communication and the service planner's tensor parallel.
 */
void estimate_link(const struct workload *w, const struct gpu_spec *gpu, long gpus, enum est_link *kind,
		   double *peak, double *bw);

/*
 * formulas.md "KV cache": bytes the cache holds per K or V value for a
 * kv_dtype (enum kv_dtype); ea is the activation element size `auto`
 * means. A block format (llama.cpp's q8_0, q4_0, q4_1, q5_0, q5_1) counts
 * its block scales: block bytes / values a block (q8_0: 34 / 32 = 1.0625).
 */
double estimate_kv_bytes(int kv_dtype, double ea);
/* formulas.md "Quantization formats": bytes of per-group or per-block
 * constants a weight of a named format carries beside its bits/8 (format:
 * enum quant_format, QF_GPTQ and later; 0 for the others). */
double estimate_quant_const_bytes(int format, long bits);

/* True for a block format, with *qk values a block and *block_bytes its
 * size (either may be NULL); false (outputs untouched) for the others. */
bool estimate_kv_block(int kv_dtype, long *qk, long *block_bytes);

/* Default MFU for a GPU class (docs/formulas.md "Time"). */
double estimate_default_mfu(enum gpu_class c);

/* Peak dense FLOP/s of gpu at the workload's precision; 0 if none. */
double estimate_peak_flops(const struct gpu_spec *gpu, int precision);

#endif
