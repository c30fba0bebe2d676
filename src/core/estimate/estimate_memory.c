/*
 * estimate_memory.c - memory per GPU by component: model states (weights,
 * gradients, optimizer, sharding buffers, quantization), LoRA adapters, the
 * KV cache, and their sum by phase; activations are estimate_act.c's.
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/model/framework.h"

/* ---- LoRA adapters (formulas.md "LoRA") ---- */

bool est_target_on(const char *list, const char *name)
{
	char buf[128];
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", +", &save); tok; tok = strtok_r(NULL, ", +", &save)) {
		if (!strcmp(tok, "all") || !strcmp(tok, "all-linear"))
			return true;
		if (!strcmp(tok, name))
			return true;
		/* q_proj, gate_proj ... as PEFT names them */
		if (!strncmp(tok, name, strlen(name)) && !strcmp(tok + strlen(name), "_proj"))
			return true;
	}
	return false;
}

static double lora_params(const struct model_spec *m, long r, const char *targets)
{
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;
	double experts = m->experts ? (double)m->experts : 1;
	double per = 0;

	if (est_target_on(targets, "q")) per += h + q;
	if (est_target_on(targets, "k")) per += h + kv;
	if (est_target_on(targets, "v")) per += h + kv;
	if (est_target_on(targets, "o")) per += q + h;
	if (m->gated_ffn && est_target_on(targets, "gate")) per += experts * (h + f);
	if (est_target_on(targets, "up")) per += experts * (h + f);
	if (est_target_on(targets, "down")) per += experts * (f + h);
	return (double)r * per * (double)m->layers;
}

/* ---- model states (formulas.md "Model states") ---- */

static double opt_bytes_per_param(int opt, int prec, double hidden)
{
	double st = is_pure16(prec) ? 2 : 4;   /* state element size */

	switch (opt) {
	case OPT_ADAMW: return 2 * st;
	case OPT_ADAMW_8BIT: return 2;
	case OPT_SGD: return st;
	case OPT_ADAFACTOR: return 2 * st / (hidden > 0 ? hidden : 1024);
	}
	return 0;
}

/* formulas.md "Quantization": the largest single linear weight (elements),
 * the unit transformers quantizes at a time while loading and the one
 * bitsandbytes dequantizes at a time in forward and backward. */
static double largest_linear(const struct model_spec *m)
{
	double el[EST_LINEARS], big = 0;

	if (!is_transformer(m))
		return 0;
	est_linears(m, el);
	for (int i = 0; i < EST_LINEARS; i++)
		big = fmax(big, el[i]);
	return big;
}

void est_linears(const struct model_spec *m, double el[EST_LINEARS])
{
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;

	el[0] = h * q;
	el[1] = h * kv;
	el[2] = h * kv;
	el[3] = q * h;
	el[4] = m->gated_ffn ? h * f : 0;
	el[5] = h * f;
	el[6] = f * h;
}

/* The largest single parameter tensor (elements): the embedding, or the
 * largest linear weight. */
static double largest_param(const struct model_spec *m, double N)
{
	double emb = (double)m->vocab * (double)m->hidden, big = fmax(largest_linear(m), emb);

	return big > 0 && big < N ? big : N;
}

/* formulas.md "Sharded training": FSDP's root unit counted apart from the
 * layers (a decoder over 2+ GPUs; one GPU is FSDP's NO_SHARD, nothing
 * gathered), and FSDP1's wrap cache under the same conditions. */
static bool root_apart(const struct workload *w, const struct model_spec *m)
{
	return w->fsdp_root_gathered && m->kind == MODEL_DECODER && w->gpus > 1;
}

static bool wrap_cached(const struct workload *w, const struct model_spec *m)
{
	return w->fsdp_wrap_cache && m->kind == MODEL_DECODER && w->gpus > 1;
}

/*
 * formulas.md "Sharded training": what ZeRO-3 / FSDP hold unsharded. The
 * gathered parameters in flight: the layer running and what is prefetched
 * (FSDP: the next layer; DeepSpeed: stage3_prefetch_bucket_size elements),
 * at ew bytes each; in backward, a layer's gradients unsharded (ew bytes)
 * and, when the reduce dtype differs, their copy for the reduce-scatter
 * (FSDP: one layer; DeepSpeed: reduce_bucket_size elements). Under FSDP
 * the parameters outside the wrapped layers (the embedding, the final
 * norm, an untied lm_head) are the root unit's, which FSDP does not
 * reshard after forward: root_bytes of them stay gathered from the first
 * layer of forward to the end of backward. FSDP1 wrapping a built model
 * leaves each unit's moved originals and flattened copy in the default
 * stream's cache: the root's, and one layer's (reused layer to layer).
 */
static void sharded_buffers(const struct workload *w, const struct model_spec *m, double N, double ew,
			    double root_bytes, struct estimate *e)
{
	const struct fw_profile *fp = fw_profile(w->framework);
	double layer = is_transformer(m) && m->layers ? (N - model_params_embedding(m)) / (double)m->layers : 0;
	double ahead, bucket, rb = fp->reduce_bytes > 0 ? fp->reduce_bytes : ew;

	if (layer <= 0)
		return;
	if (root_apart(w, m)) {
		/* the untied lm_head is the root's, not a layer's */
		if (!m->tied_embeddings)
			layer -= (double)m->vocab * (double)m->hidden / (double)m->layers;
		e->shard_root = root_bytes;
	}
	if (wrap_cached(w, m))
		e->mem.wrap_cache = 2 * (root_bytes + layer * ew);
	ahead = fp->prefetch_params > 0 ? fp->prefetch_params : layer;
	bucket = fp->reduce_bucket > 0 ? fp->reduce_bucket : layer;
	e->shard_gathered = (layer + fmin(ahead, N)) * ew + e->shard_root;
	e->shard_reduce = layer * ew + (rb != ew || fp->reduce_bucket > 0 ? fmin(bucket, N) * rb : 0);
	e->mem.sharding = e->shard_gathered + e->shard_reduce;
}

/* The root unit's bytes (sharded_buffers): the embedding at emb bytes a
 * parameter and an untied lm_head at head bytes. */
static double root_unit_bytes(const struct model_spec *m, double emb, double head)
{
	double Vh = (double)m->vocab * (double)m->hidden;

	return Vh * emb + (m->tied_embeddings ? 0 : Vh * head);
}

/*
 * formulas.md "Sharded training" (memory_efficient_linear: false): without
 * DeepSpeed's ZeRO-3 linear (deepspeed/runtime/zero/linear.py, installed by
 * zero.Init's patch), torch's linear saves weight.t(), a view that holds the
 * gathered storage after ZeRO-3 re-partitions the parameter by swapping
 * .data; so each gathered weight lives until its backward: every layer's
 * linears and the lm_head, one layer's under full checkpointing (the
 * recomputed one), at e bytes a weight, unsharded.
 */
static void zero3_kept_weights(const struct workload *w, const struct model_spec *m, double e_w,
			       struct estimate *e)
{
	double L = (double)m->layers, lin, layers;

	if (w->memory_efficient_linear || w->zero < 3 || !is_transformer(m) || m->layers <= 0)
		return;
	/* a MoE layer counts every expert: over a batch's tokens each runs */
	lin = model_params_linear(m);
	layers = w->activation_checkpointing == AC_FULL ? 1 : L;
	e->shard_kept = (lin / L * layers + (m->kind == MODEL_DECODER ? (double)m->vocab * (double)m->hidden : 0)) *
			e_w;
	e->mem.sharding += e->shard_kept;
}

/* The frozen base's quantized linear weights (elements): the layers'
 * linears, and the lm_head where the framework quantizes every Linear
 * (formulas.md "Framework profiles": LitGPT under Lightning's
 * BitsandbytesPrecision) and it is not the tied embedding. */
static double quantized_linear(const struct workload *w, const struct model_spec *m)
{
	double lin = model_params_linear(m);

	if (fw_profile(w->framework)->quant_lm_head && m->kind == MODEL_DECODER &&
	    !m->tied_embeddings)
		lin += (double)m->vocab * (double)m->hidden;
	return lin;
}

static void quantized_weights(const struct workload *w, const struct model_spec *m, long bits, double N,
			      struct estimate *e, double *weights)
{
	double lin = quantized_linear(w, m);

	if (lin > N)
		lin = N;
	/* PEFT's prepare_model_for_kbit_training casts every parameter that
	 * is not quantized (embeddings, lm_head, norms) to fp32 */
	*weights = lin * (double)bits / 8 + (N - lin) * (w->task != TASK_INFER && fw_profile(w->framework)->kbit_fp32_rest ? 4 : 2);
	if (w->quant_format >= QF_GPTQ) {
		/* formulas.md "Quantization formats": the constants a weight */
		e->mem.quant_consts = lin * estimate_quant_const_bytes(w->quant_format, bits);
		return;
	}
	if (bits == 4 && w->double_quant)
		/* NF4 blocks of 64 with 8-bit absmax, double-quantized: one fp32
		 * constant a 256 absmax values (Dettmers et al. 2023 §3: 0.127 bits) */
		e->mem.quant_consts = lin * (1.0 / 64 + 4.0 / (64 * 256));
	else if (bits == 4)
		/* one fp32 absmax a block of 64 (0.5 bits a weight) */
		e->mem.quant_consts = lin * 4.0 / 64;
	else
		/* LLM.int8: one fp32 scale per output row */
		e->mem.quant_consts = m->hidden ? lin * 4 / (double)m->hidden : 0;
}

/*
 * formulas.md "Quantization formats": bytes of constants a quantized
 * weight carries beside its bits/8, by format (QF_GPTQ and later):
 * - GPTQ (AutoGPTQ@9f7d3707 auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py
 *   :50-74, the layout transformers' GPTQConfig loads): qzeros int32
 *   (in/g, out x bits/32) and scales fp16 (in/g, out), group g = 128, so
 *   2/128 + (bits/8)/128 a weight (g_idx, one int32 an input row, is
 *   1/out of a byte: left out);
 * - AWQ (GEMM layout, the same qweight/qzeros/scales shapes at 4 bits,
 *   group 128): 2/128 + 0.5/128;
 * - llama.cpp (ggml/src/ggml-common.h, the blocks estimate_kv_block() cites):
 *   block_q8_0 = fp16 d + 32 int8 (2/32 beside 1 byte), block_q4_0 = d +
 *   16 bytes (2/32 beside 0.5), block_q4_K = fp16 d, dmin + 12 bytes of
 *   6-bit scales + 128 bytes (16/256 beside 0.5): 144 B a 256.
 */
double estimate_quant_const_bytes(int format, long bits)
{
	switch (format) {
	case QF_GPTQ:
	case QF_AWQ:
		return 2.0 / 128 + (double)bits / 8 / 128;
	case QF_Q8_0:
	case QF_Q4_0:
		return 2.0 / 32;
	case QF_Q4_K:
		return (2.0 + 2.0 + 12.0) / 256;
	}
	return 0;
}

/* formulas.md "Framework profiles": the weights torch.autocast casts to 16
 * bits for a matmul (elements): every layer's linears and the lm_head
 * (the embedding's lookup is not cast). */
static double autocast_casts(const struct model_spec *m)
{
	return model_params_linear(m) + (m->kind == MODEL_DECODER ? (double)m->vocab * (double)m->hidden : 0);
}

/* Full training: every parameter trained, its states sharded by the ZeRO
 * stage; ew bytes a weight and a gradient. */
static void train_states(const struct workload *w, const struct model_spec *m, struct estimate *e,
			 double ew)
{
	double N = e->params, G = (double)w->gpus;
	double h = (double)m->hidden;

	e->params_trainable = N;
	e->mem.weights = N * ew;
	e->mem.gradients = N * ew;
	e->mem.optimizer = N * (opt_bytes_per_param(w->optimizer, w->precision, h) +
				(is_mixed(w->precision) ? 4 : 0));
	/* formulas.md "Optimizer step": torch's foreach AdamW makes one
	 * state-sized copy, sqrt(exp_avg_sq), of every parameter of the
	 * group; the for-loop one of one parameter; a fused kernel none */
	if (w->optimizer == OPT_ADAMW && w->optimizer_step == STEP_FOREACH)
		e->mem.step_temp = N * (is_pure16(w->precision) ? 2 : 4);
	else if (w->optimizer == OPT_ADAMW && w->optimizer_step == STEP_FOR_LOOP)
		e->mem.step_temp = largest_param(m, N) * (is_pure16(w->precision) ? 2 : 4);
	if (w->optimizer_step == STEP_IN_BWD)
		/* the step runs in backward as each gradient is ready, which
		 * is then freed: one parameter's gradient at a time */
		e->mem.gradients = largest_param(m, N) * ew;
	if (w->zero >= 1) {
		e->mem.optimizer /= G;
		e->mem.step_temp /= G;
	}
	if (w->zero >= 2 && w->optimizer_step != STEP_IN_BWD) e->mem.gradients /= G;
	if (w->zero >= 3) {
		e->mem.weights /= G;
		sharded_buffers(w, m, N, ew, root_unit_bytes(m, ew, ew), e);
		zero3_kept_weights(w, m, ew, e);
	}
}

/* Inference: the weights (quantized, or at ef bytes a parameter) split
 * over the GPUs, and what dequantization holds. */
static void infer_states(const struct workload *w, const struct model_spec *m, struct estimate *e,
			 double ew, double ef)
{
	double N = e->params, G = (double)w->gpus;
	double h = (double)m->hidden;
	const struct fw_profile *fp = fw_profile(w->framework);
	bool lm_q = w->quant_bits < 16 && quantized_linear(w, m) > model_params_linear(m);
	double vocab = 0;

	if (w->quant_bits < 16)
		quantized_weights(w, m, w->quant_bits, N, e, &e->mem.weights);
	else
		e->mem.weights = N * ef + (ef > ew && w->autocast_inference_cache ? autocast_casts(m) * ew : 0);
	if (G > 1 && fp->tp_replicates_vocab && m->kind == MODEL_DECODER) {
		/* formulas.md "Framework profiles": tensor parallel over the layers
		 * linears only; the embedding and the lm_head whole on
		 * every GPU (LitGPT generate/tp.py) */
		double Vh = (double)m->vocab * h;
		vocab = Vh * ef + (m->tied_embeddings ? 0 : Vh * (lm_q ? (double)w->quant_bits / 8 : ef));
	}
	e->mem.weights = (e->mem.weights - vocab) / G + vocab;
	e->mem.quant_consts /= G;
	if (w->quant_bits == 4 && fp->bnb_quant) {
		/* formulas.md "Peak by phase": bitsandbytes' MatMul4Bit
		 * dequantizes each weight whole for a prompt of more than one
		 * token (prefill); the largest is the lm_head where it is
		 * quantized, whole on every GPU */
		double big = lm_q ? fmax(largest_linear(m) / G, (double)m->vocab * h) : largest_linear(m) / G;
		e->mem.dequant = big * (fp->quant_fp16_state && w->precision != PREC_FP16_TRUE &&
					w->precision != PREC_FP16 ? 2 + ew : 2);
	}
}

/* LoRA / QLoRA: the frozen base; LoRA on an int8 or 4-bit base (PEFT on
 * load_in_8bit) is quantized as QLoRA's is. */
static void frozen_base(const struct workload *w, const struct model_spec *m, struct estimate *e,
			double ew, double ef)
{
	double N = e->params;

	if (w->quant_bits < 16) {
		double big = largest_linear(m);
		if (quantized_linear(w, m) > model_params_linear(m))
			/* the quantized lm_head is dequantized whole for each chunk of
			 * the loss, forward and backward */
			big = fmax(big, (double)m->vocab * (double)m->hidden);
		quantized_weights(w, m, w->quant_bits, N, e, &e->mem.weights);
		/* formulas.md "Quantization": loading quantizes one 16-bit weight
		 * at a time; forward and backward dequantize one at a time */
		e->mem.load_inflight = fw_profile(w->framework)->quant_load == QLOAD_PREQUANTIZED ||
				       w->quant_format >= QF_GPTQ ? 0 : big * 2;  /* a named format: a quantized checkpoint */
		e->mem.dequant = big * 2;
		if (fw_profile(w->framework)->quant_fp16_state && w->quant_bits == 4 && w->precision != PREC_FP16_TRUE &&
		    w->precision != PREC_FP16)
			/* formulas.md "Peak by phase": the base was quantized from
			 * fp16, so bitsandbytes dequantizes to fp16 and then casts
			 * to the compute dtype: the fp16 copy and the cast one (4 bytes
			 * under fp32) at once */
			e->mem.dequant = big * (2 + ew);
	} else {
		e->mem.weights = N * ef;
	}
}

/* The frozen base sharded (ZeRO-3 / FSDP): its layers gathered as in
 * training, at their stored size; no gradients of it to reduce. */
static void frozen_sharded(const struct workload *w, const struct model_spec *m, struct estimate *e,
			   double ef)
{
	double N = e->params, G = (double)w->gpus;
	double h = (double)m->hidden;
	double per = (e->mem.weights + e->mem.quant_consts) / (N > 0 ? N : 1);

	e->mem.weights /= G;
	e->mem.quant_consts /= G;
	{
		/* the root stored as the base is: 16-bit (fp32 under PEFT's
		 * kbit preparation), an lm_head quantized with the layers */
		double rest = w->quant_bits >= 16 ? ef :
			      fw_profile(w->framework)->kbit_fp32_rest ? 4 : 2;
		double head = w->quant_bits < 16 && quantized_linear(w, m) > model_params_linear(m) ?
			      (double)w->quant_bits / 8 : rest;
		double root = root_unit_bytes(m, rest, head), rootn = root_unit_bytes(m, 1, 1);

		/* with the root apart, the layers gather at their own bytes
		 * a parameter, not the average with the 16-bit root */
		if (root_apart(w, m) && N > rootn)
			per = ((e->mem.weights + e->mem.quant_consts) * G - root) / (N - rootn);
		sharded_buffers(w, m, N, per, root, e);
	}
	e->mem.sharding -= e->shard_reduce;
	e->shard_reduce = 0;
	zero3_kept_weights(w, m, per, e);
	if (w->fsdp_frozen_grads && w->quant_bits == 16 && is_transformer(m) && m->layers > 0) {
		/* formulas.md "Sharded training" (fsdp_frozen_grads: lit-gpt and
		 * LitGPT before 0.5.8): FSDP1 with use_orig_params flattens each layer's frozen weights and its adapters into one
		 * FlatParameter, which requires grad when any of them does; so
		 * backward computes the whole layer's weight gradient. Under
		 * no_sync (gradient accumulation) every layer's gradient stays
		 * unsharded until the step; without it the gradient is
		 * reduce-scattered to a shard, one layer's unsharded at a time. */
		double L = (double)m->layers;
		double blocks = N - model_params_embedding(m) -
				(m->kind == MODEL_DECODER && !m->tied_embeddings ? (double)m->vocab * h : 0);
		double g = w->grad_accum > 1 ? blocks * per : blocks * per / G + blocks / L * per;
		e->shard_reduce = g;
		e->mem.sharding += g;
	}
}

/* The trainable adapters: their weights, gradients and optimizer states. */
static void adapter_states(const struct workload *w, const struct model_spec *m, struct estimate *e)
{
	double G = (double)w->gpus, h = (double)m->hidden;

	e->lora_params = lora_params(m, w->lora_rank, w->lora_targets);
	e->params_trainable = e->lora_params;
	{
		double aw = is_pure16(w->precision) ? 2 : 4;  /* PEFT keeps adapters in fp32 */
		/* ZeRO / FSDP shard the adapters' optimizer states (stage 1),
		 * gradients (2) and weights (3) as they do a full model's */
		double opt = opt_bytes_per_param(w->optimizer, w->precision, h) / (w->zero >= 1 ? G : 1);
		double grad = aw / (w->zero >= 2 ? G : 1), wt = aw / (w->zero >= 3 ? G : 1);
		e->mem.adapters = e->lora_params * (wt + grad + opt);
		/* FSDP's: shards made at the wrap, gradients reduced on its stream */
		e->mem.adapters_fsdp = e->lora_params * (wt + grad);
	}
}

/* The model states by task: full training, inference, or a frozen base with
 * adapters (ew bytes a 16-bit or fp32 weight, ef as the framework holds it). */
static void model_states(const struct workload *w, const struct model_spec *m,
			 struct estimate *e)
{
	double ew = w->precision == PREC_FP32 ? 4 : 2;
	/* formulas.md "Framework profiles": Lightning's bf16-mixed keeps the
	 * module in fp32 and autocasts each op, so a frozen or served model
	 * is held in 4 bytes a parameter (LitGPT) */
	double ef = is_mixed(w->precision) && fw_profile(w->framework)->mixed_fp32_module ? 4 : ew;

	if (w->task == TASK_TRAIN) {
		train_states(w, m, e, ew);
		return;
	}
	if (w->task == TASK_INFER) {
		infer_states(w, m, e, ew, ef);
		return;
	}
	frozen_base(w, m, e, ew, ef);
	if (w->zero >= 3)
		frozen_sharded(w, m, e, ef);
	adapter_states(w, m, e);
}

/*
 * formulas.md "Data parallel (DDP)": plain data parallel (zero 0, 2+ GPUs)
 * under torch DDP. Its Reducer flattens the gradients into all-reduce
 * buckets (25 MiB each, the first 1 MiB) allocated once at construction
 * and kept; with gradient_as_bucket_view off, torch's default, param.grad
 * stays its own tensor and is copied into the bucket, so the buckets are a
 * second copy of every trainable gradient, in the gradient's dtype
 * (pytorch/pytorch@0028a164b2c0 torch/nn/parallel/distributed.py:
 * DistributedDataParallel(bucket_cap_mb=25, gradient_as_bucket_view=False),
 * whose docstring: with views "the saved memory size will be equal to the
 * total gradients size"). Frameworks with their own buffer (DeepSpeed,
 * Megatron, llm.c) or sharding (FSDP) hold none.
 */
static void ddp_buckets(const struct workload *w, struct estimate *e)
{
	/* the parameters' dtype: fp32 under autocast (torch.amp, the Trainer's
	 * bf16/fp16 mixed) and fp32 training; 16-bit only in pure 16-bit.
	 * PEFT's adapters likewise (adapter_states()) */
	double gb = is_pure16(w->precision) ? 2 : 4;

	if (w->gpus < 2 || w->zero != 0 || w->task == TASK_INFER || w->gradient_as_bucket_view ||
	    !fw_profile(w->framework)->ddp_reducer)
		return;
	e->mem.ddp_buckets = (w->task == TASK_TRAIN ? e->params_trainable : e->lora_params) * gb;
}

/* formulas.md "KV cache": llama.cpp's block formats, QK values a block
 * and the block's bytes (ggml/src/ggml-common.h: block_q8_0 = fp16 d +
 * 32 int8; block_q4_0 = d + 16 bytes of nibbles; block_q4_1 = d, m + 16;
 * block_q5_0 = d + 4 bytes of fifth bits + 16; block_q5_1 = d, m + 4 + 16). */
bool estimate_kv_block(int kv_dtype, long *qk, long *block_bytes)
{
	long b;

	switch (kv_dtype) {
	case KV_Q8_0: b = 2 + 32; break;
	case KV_Q4_0: b = 2 + 16; break;
	case KV_Q4_1: b = 2 + 2 + 16; break;
	case KV_Q5_0: b = 2 + 4 + 16; break;
	case KV_Q5_1: b = 2 + 2 + 4 + 16; break;
	default: return false;
	}
	if (qk)
		*qk = 32;
	if (block_bytes)
		*block_bytes = b;
	return true;
}

double estimate_kv_bytes(int kv_dtype, double ea)
{
	long qk, bb;

	if (estimate_kv_block(kv_dtype, &qk, &bb))
		return (double)bb / (double)qk;
	switch (kv_dtype) {
	case KV_FP32: return 4;
	case KV_FP16: case KV_BF16: return 2;
	/* one scale per tensor (vLLM fp8, TensorRT-LLM int8): nothing per value */
	case KV_FP8: case KV_INT8: return 1;
	case KV_INT4: return 0.5;
	}
	return ea;
}

static void kv_cache(const struct workload *w, const struct model_spec *m,
		     struct estimate *e, double ea)
{
	double row = (double)(m->kv_heads * m->head_dim);   /* K (or V) values per token per layer */
	double bytes;

	long qk, bb;

	if (estimate_kv_block(w->kv_dtype, &qk, &bb)) {
		/* a block format quantizes each row in blocks of qk values,
		 * each block carrying its scale (and min) */
		bytes = ceil(row / (double)qk) * (double)bb;
	} else {
		bytes = row * estimate_kv_bytes(w->kv_dtype, ea);
	}
	/* formulas.md "KV cache": K and V for every layer and KV head */
	e->kv_per_token = 2 * (double)m->layers * bytes;
	e->mem.kv_cache = e->kv_per_token * (double)w->context * (double)w->concurrency / (double)w->gpus;
}

static void sum_memory(const struct workload *w, const struct model_spec *m, struct estimate *e,
		       double gpu_bytes)
{
	struct est_mem *M = &e->mem;

	double states = M->weights + M->gradients + M->optimizer + M->adapters + M->quant_consts +
			M->ddp_buckets;

	/* formulas.md "Peak by phase": loading, forward/backward, the step */
	M->train_peak = states + M->sharding + M->activations + M->logits + M->kv_cache + M->dequant +
			M->int8_saved + M->quant_saved;
	M->step_peak = M->step_temp > 0 ? states + M->step_temp : 0;
	M->load_peak = M->load_inflight > 0 ? M->weights + M->quant_consts + M->load_inflight : 0;
	M->peak_phase = EST_PHASE_TRAIN;
	M->allocated = M->train_peak;
	if (M->step_peak > M->allocated) {
		M->allocated = M->step_peak;
		M->peak_phase = EST_PHASE_STEP;
	}
	if (M->load_peak > M->allocated) {
		M->allocated = M->load_peak;
		M->peak_phase = EST_PHASE_LOAD;
	}
	/* formulas.md "The caching allocator's reserve": replayed (the loss's
	 * segments split by the recomputed layer are in the replay), or flat
	 * plus those segments (formulas.md "Peak by phase") */
	if (!est_reserve(w, m, e, gpu_bytes)) {
		M->allocator = M->allocated * w->alloc_overhead;
		if (M->peak_phase == EST_PHASE_TRAIN)
			M->allocator += e->loss.apart;
	}
	if (M->wrap_cache > 0) {
		/* formulas.md "Sharded training": FSDP1's wrap cache is the
		 * default stream's; FSDP gathers and reduces on its own streams
		 * and made the shards at the wrap, so only training's own
		 * tensors take it back; reserved is the larger of the phases' */
		double side = M->weights + M->quant_consts + M->sharding + M->adapters_fsdp +
			      (w->zero >= 2 ? M->gradients : 0);
		double own = M->train_peak - side;
		M->wrap_left = fmax(0, M->wrap_cache - fmax(0, own));
		M->allocator = fmax(M->allocator,
				    M->train_peak * (1 + w->alloc_overhead) + M->wrap_left - M->allocated);
		note(e, (struct est_note){.code = EST_N_FSDP_WRAP_CACHE, .bytes = M->wrap_cache,
					  .taken = M->wrap_cache - M->wrap_left, .left = M->wrap_left});
	}
	M->context = w->cuda_context;
	M->total = M->allocated + M->allocator + M->context;
	if (w->task == TASK_INFER && w->gpu_memory_utilization > 0 && gpu_bytes > 0) {
		/* formulas.md "The reserved share (vLLM, SGLang)": vLLM / SGLang reserve their share of
		 * the chosen card at start, the KV cache pool taking what the
		 * need leaves; the need must fit inside the share. The tiers
		 * are judged by the need. */
		M->reserved_share = w->gpu_memory_utilization;
		M->reserved = w->gpu_memory_utilization * gpu_bytes;
		M->reserved_free = M->reserved - M->total;
	}
}

/* ---- memory, component by component, and the sum ---- */

void est_memory(const struct workload *w, const struct model_spec *m, struct estimate *e,
		double gpu_bytes)
{
	double ea = w->precision == PREC_FP32 ? 4 : 2;

	memset(&e->mem, 0, sizeof(e->mem));
	model_states(w, m, e);
	ddp_buckets(w, e);
	est_activations(w, m, e, ea);
	if (w->task == TASK_INFER && m->kind == MODEL_DECODER)
		kv_cache(w, m, e, ea);
	else if (w->task == TASK_INFER && m->kind == MODEL_PARAMS_ONLY)
		note(e, (struct est_note){.code = EST_N_NO_KV_CACHE});
	sum_memory(w, m, e, gpu_bytes);
}
