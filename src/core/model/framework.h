/*
 * framework.h - what a training or serving stack does by default that
 * changes memory and time: the loss, activation checkpointing, the
 * optimizer step, how a quantized base is loaded, compile / CUDA graphs,
 * sharding buckets, prefill chunks and the KV cache's reservation. One
 * row per framework (framework.c); every value is cited in
 * docs/formulas.md "Framework profiles". Pure data, no I/O.
 */
#ifndef GPURENT_FRAMEWORK_H
#define GPURENT_FRAMEWORK_H

#include <stdbool.h>

/* enum framework (workload.h) indexes the table. */

/* How activations are kept for backward (formulas.md "Activations"). */
enum ac_kind {
	AC_NONE,        /* every layer keeps what backward reads */
	AC_SELECTIVE,   /* Korthikanti et al. 2022: the attention core is recomputed */
	AC_FULL,        /* each layer's input only; the layer recomputed in backward */
};

/* How the optimizer step runs (formulas.md "Optimizer step"). */
enum opt_step {
	STEP_FOREACH,   /* torch.optim foreach: temporaries over a whole group */
	STEP_FUSED,     /* one fused kernel (torch fused=True, apex/DeepSpeed FusedAdam): none */
	STEP_IN_BWD,    /* the step runs in backward per parameter; its gradient freed at once */
	STEP_FOR_LOOP,  /* per parameter, one at a time: one parameter's temporaries */
};

/* How a quantized (4/8-bit) base gets onto the GPU (formulas.md "Peak by phase"). */
enum quant_load {
	QLOAD_PER_WEIGHT,    /* 16-bit weights quantized one at a time on the GPU */
	QLOAD_PREQUANTIZED,  /* a pre-quantized checkpoint: no 16-bit copy in flight */
};

struct fw_profile {
	const char *name;        /* the framework field's word */
	const char *what;        /* a few words: what it is (help) */
	int loss;                /* enum loss_kind */
	double loss_chunks;      /* chunked: pieces the logits are upcast in (0: see loss_chunk_tokens) */
	long loss_chunk_tokens;  /* chunked: positions a piece (LitGPT 128); 0: loss_chunks */
	int ac;                  /* enum ac_kind: the default activation checkpointing */
	int step;                /* enum opt_step: the default optimizer step */
	int quant_load;          /* enum quant_load */
	bool compile;            /* torch.compile / CUDA graphs on by default */
	bool cast_params;        /* mixed precision by casting the parameters to 16 bits (FSDP
				  * MixedPrecision, DeepSpeed bf16, Megatron): activations all
				  * 16-bit; else torch.autocast keeps the residual and norms fp32 */
	bool sac_op;             /* selective checkpointing by op (torchtitan): every other
				  * matmul's output and attention's kept, the rest recomputed */
	bool ac_offload;         /* full checkpointing with the kept layer inputs in host memory */
	bool double_quant;       /* a 4-bit base's block scales quantized again (torchao NF4: always) */
	bool kbit_fp32_rest;     /* a quantized base's other parameters cast to fp32 (PEFT's
				  * prepare_model_for_kbit_training), checkpointing turned on */
	bool quant_lm_head;      /* a quantized base's lm_head quantized too (every Linear replaced) */
	bool mixed_fp32_module;  /* mixed precision keeps the module in fp32 (Lightning bf16-mixed):
				  * a frozen or served model in 4 bytes a parameter */
	bool bnb_quant;          /* a 4/8-bit base is bitsandbytes' (Linear4bit, Linear8bitLt) */
	bool tp_replicates_vocab; /* serving over GPUs (tensor parallel): the embedding and the
				  * lm_head whole on each (LitGPT generate/tp.py) */
	bool quant_fp16_state;   /* a 4-bit base quantized from an fp16 copy (Lightning's
				  * BitsandbytesPrecision): dequantized to fp16, then cast */
	bool untied_lm_head;     /* the lm_head its own tensor even where the checkpoint ties it to
				  * the embedding (LitGPT copies wte into lm_head on conversion) */
	bool lora_fused_qkv;     /* LoRA on q, k, v is one adapter on the fused qkv projection: one
				  * dropout of the layer input for the three (LitGPT LoRAQKVLinear) */
	bool softcap_eager;      /* a model with capped attention logits (models.csv attn_softcap)
				  * runs explicit attention, no fused kernel (LitGPT model.py) */
	bool expandable;         /* sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True */
	bool ddp_reducer;        /* zero 0 on 2+ GPUs runs torch DDP, whose Reducer holds its own
				  * all-reduce buckets (formulas.md "Data parallel (DDP)") */
	double loss_upcast;      /* chunked: bytes a logit of the live chunk (fp32 copy + gradient: 8) */
	bool loss_half_fp16;     /* under fp16 the engine casts the module to half and the loss takes
				  * its logits as they are: log-softmax and gradient in 16 bits
				  * (DeepSpeed engine.py module.half(); formulas.md "Logits") */
	bool serving;            /* an inference engine (vLLM, SGLang, llama.cpp) */
	long prefill_chunk;      /* serving: prompt tokens prefilled a pass (0: the prompt whole) */
	double gpu_mem_util;     /* serving: share of the card reserved up front (0: what is needed) */
	long kv_block;           /* serving: tokens a KV-cache block (0: no paging) */
	bool by_card;            /* serving: the chunk (and SGLang's share) set by the card when one is
				  * given (workload.c serving_by_card()); the values here without one */
	/* ZeRO-3 / FSDP (formulas.md "Sharded training"): parameters gathered
	 * ahead (elements; 0: one layer ahead), gradients reduced a bucket
	 * (elements; 0: one layer) and the reduce dtype's bytes */
	double prefetch_params;
	bool root_unsharded;     /* the root unit (embedding, lm_head) not resharded after forward */
	bool wrap_cache;         /* FSDP1 wraps a built model: each unit's unsharded copies left cached */
	double reduce_bucket;
	double reduce_bytes;
	/* time (formulas.md "Inference time", "Time"): a native (non-PyTorch)
	 * engine, its decode share of the memory bandwidth (0: by weight
	 * format), whether it splits layers across GPUs by default (llama.cpp
	 * split-mode layer), whether it has its own all-reduce for tensor
	 * parallel (vLLM, SGLang), and its published training MFU on A100 and
	 * H100 (0: the generation's default) */
	bool native;
	double decode_bw_eff;    /* decode_by_issue: the share's ceiling, reached as the card's
				  * CUDA-core FLOP:byte ratio grows (formulas.md "Inference time") */
	bool decode_by_issue;    /* the share by the card's FP32 FLOP:byte ratio and the weights'
				  * format (llama.cpp's CUDA-core kernels: estimate_time.c) */
	bool layer_split;
	bool custom_allreduce;
	double mfu_a100, mfu_h100;
};

/* The profile of framework fw (enum framework); FW_NONE's row for an
 * unknown value. Static storage. */
const struct fw_profile *fw_profile(int fw);

/* Names, in enum order, NULL-terminated (the framework field's words). */
extern const char *const fw_names[];
/* "none", "selective", "full"; "foreach", "fused", "in_bwd", "for_loop" */
extern const char *const ac_names[];
extern const char *const step_names[];

#endif
