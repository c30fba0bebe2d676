/*
 * estimate.c - memory, time and communication of a workload (estimate.h).
 * Section names in comments point into docs/formulas.md.
 */
#include "core/estimate/estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/model/framework.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

const double est_tiers_gb[EST_NTIERS] = {16, 24, 32, 40, 48, 80, 94, 141, 192};

/* formulas.md "Time": default MFU by GPU class. */
double estimate_default_mfu(enum gpu_class c)
{
	switch (c) {
	case GPU_DATACENTER: return 0.40;
	case GPU_WORKSTATION: return 0.35;
	case GPU_CONSUMER: return 0.30;
	case GPU_TPU: return 0.40;
	}
	return 0.30;
}

/* formulas.md "Communication": usable share of a link's peak. */
#define LINK_EFFICIENCY 0.65
/* formulas.md "Communication": gpurent's typical multi-node rental links,
 * per direction (the interconnect field's ethernet and infiniband) */
#define ETHERNET_BW   (100e9 / 8)   /* 100 Gb/s */
#define INFINIBAND_BW (200e9 / 8)   /* 200 Gb/s HDR */
/* formulas.md "Time": QLoRA step slowdown from dequantization, measured
 * (LitGPT resource tables: Llama 2 7B LoRA 2.36 vs NF4 with double
 * quantization 3.83 min/1k iters, the quantization gpurent assumes). */
#define QLORA_SLOWDOWN (3.83 / 2.36)
/* formulas.md "Time": ResNet-50 AMP on A100 runs 2470 img/s x 24.6 GFLOPs
 * = 61 TFLOPS of 312 (NVIDIA DeepLearningExamples): CNNs on tensor cores. */
#define CNN_TENSOR_MFU 0.20
/* formulas.md "Time": a run longer than this gets flagged. */
#define LONG_RUN_SECONDS (7 * 86400.0)
#define ABSURD_RUN_SECONDS (30 * 86400.0)
/* formulas.md "Communication": PyTorch DDP's default bucket_cap_mb = 25
 * (torch/nn/parallel/distributed.py; bucket_bytes_cap = bucket_cap_mb *
 * 1024 * 1024): the last bucket is all-reduced after the backward pass. */
#define EST_DDP_BUCKET_BYTES (25.0 * 1024 * 1024)
/* formulas.md "Communication": compute runs 18.9% slower (average; 40%
 * at most) while a collective runs beside it on the same GPUs (Lee et al.
 * 2025, "Characterizing Compute-Communication Overlap in GPU-Accelerated
 * Distributed Deep Learning", arXiv 2507.03114, 4x A100/H100/MI250/MI210). */
#define EST_OVERLAP_SLOWDOWN 0.189

/* formulas.md "Inference time": compiled PyTorch decode (gpt-fast:
 * torch.compile with CUDA graphs) = bytes / (eff x bandwidth) + L x
 * DECODE_COMPILED_LAYER_S. Fitted to the evidence rows gf-01..gf-05 (the
 * gpt-fast README, Llama-2-7B and 70B on an A100-80GB, 2039 GB/s): the two
 * sizes of int8 and of int4 each give a per-layer overhead and an
 * efficiency (two equations, two unknowns: 47 and 37 us a layer), the
 * overhead is their mean, and each format's efficiency the mean over the
 * two sizes at that overhead (bf16: Llama-2-7B's 104.9 tok/s alone). */
#define DECODE_COMPILED_LAYER_S 41.8e-6
#define DECODE_EFF_BF16 0.81
#define DECODE_EFF_INT8 0.689
#define DECODE_EFF_INT4 0.544
/* formulas.md "Inference time": eager PyTorch pays the CPU's launches on
 * top (PyTorch blog "Accelerating Generative AI with PyTorch II": Llama-7B
 * on an A100, eager 25.5 tok/s, "heavily CPU overhead bound", compiled
 * 107.0): their difference over its 32 layers, added per layer. */
#define DECODE_EAGER_LAYER_S ((1.0 / 25.5 - 1.0 / 107.0) / 32)
/* formulas.md "Inference time": llama.cpp without CUDA graphs launches
 * each kernel from the CPU (ggml-org/llama.cpp PR 6766, LLaMA 2 7B q4_0:
 * 3090 116.31 -> 128.27 t/s, 4090 138.31 -> 146.81 t/s with graphs); the
 * mean per-token saving over its 32 layers, added per layer. */
#define DECODE_NOGRAPH_LAYER_S (((1 / 116.31 - 1 / 128.27) + (1 / 138.31 - 1 / 146.81)) / 2 / 32)
/* formulas.md "Inference time": one small all-reduce of a tensor-parallel
 * decode step (two a layer). vLLM's custom all-reduce over NVLink, tp 8,
 * 512 B on H100: 10.1 us (sgl-project/sglang PR 2904); NCCL inside a CUDA
 * graph over PCIe, 4 KB: 19.4 us (haohervchb/sglang-V100 PR 2). PyTorch's
 * (gpt-fast, torch.distributed): fitted to the evidence rows gf-06 and
 * gf-07 (Llama-2-7B and 70B bf16 on 8 A100s), the step time beyond the
 * compiled step of each GPU's share, over its 64 and 160 all-reduces (50
 * and 46 us), mean of the two. */
#define AR_ENGINE_NVLINK_S 10.1e-6
#define AR_ENGINE_PCIE_S 19.4e-6
#define AR_TORCH_S 48e-6
/* formulas.md "Inference time": llama.cpp's layer split hands each
 * token's activations from one GPU to the next; fitted to the evidence
 * rows xd-09, xd-mg-13, xd-mg-43, xd-mg-49 (Llama 3 8B Q4_K_M on 1, 2, 4, 6
 * RTX 3090): the slowdown per added GPU, mean of the three. */
#define LAYER_HOP_S (((1 / 108.07 - 1 / 111.74) + (1 / 104.94 - 1 / 111.74) / 3 + \
		      (1 / 101.07 - 1 / 111.74) / 5) / 3)
/* formulas.md "Time": the utilization of the FLOPs the hardware executes
 * (recomputation included, as gpurent counts them: llm-foundry's HFU) by
 * model width h: the GEMMs' FLOPs grow as h^2 a token and layer, the
 * memory-bound work beside them (norms, activations, residuals, softmax)
 * as h, so U(h) = U_inf x h / (h + k x peak / bandwidth). U_inf per
 * generation and k are fitted to the single-node rows of llm-foundry's
 * published tables (mosaicml/llm-foundry@8c8dd48f
 * scripts/train/benchmarking/README.md; evidence rows lf-a100-*, lf-h100-*
 * without --nodes), minimizing their median error. */
#define MFU_WIDE_A100 0.67
#define MFU_WIDE_H100 0.55
#define MFU_WIDTH_K 1.8

const char *est_code_name(enum est_code c)
{
	static const char *const t[EST_CODE_COUNT] = {
		"precision", "image_size", "sequence", "framework_overhead", "attention",
		"no_activations", "cnn_checkpointing", "time_mfu_given", "time_mfu_cnn",
		"time_mfu_class", "inference_needs_gpu", "decode_bandwidth", "no_kv_cache",
		"no_tensor_rate", "long_run", "implausible_run", "rope_context",
		"comm_overlap", "loss", "decode_overhead", "decode_tensor_parallel",
		"decode_layer_split", "time_mfu_published", "bench_measured", "fsdp_wrap_cache",
	};
	return (unsigned)c < EST_CODE_COUNT ? t[c] : "?";
}

const char *est_link_name(enum est_link l)
{
	static const char *const t[EST_LINK_COUNT] = {
		"none", "nvlink_bridge", "nvlink", "infinity_fabric", "ici", "nvlink_assumed",
		"ethernet_100g", "infiniband_hdr", "pcie3", "pcie4", "pcie5",
	};
	return (unsigned)l < EST_LINK_COUNT ? t[l] : "?";
}

const char *est_node_link_name(int l)
{
	static const char *const t[] = {"none", "given", "infiniband", "ethernet", "assumed"};
	return l >= 0 && (size_t)l < sizeof(t) / sizeof(t[0]) ? t[l] : "?";
}

const char *est_overlap_name(enum est_overlap o)
{
	static const char *const t[] = {"none", "ddp", "zero3"};
	return (unsigned)o < sizeof(t) / sizeof(t[0]) ? t[o] : "?";
}

/* Record an assumption (note) or a warning; NULL when the list is full. */
static struct est_note *note(struct estimate *e, struct est_note n)
{
	if (e->nassumptions >= EST_MAX_NOTES)
		return NULL;
	e->assumptions[e->nassumptions] = n;
	return &e->assumptions[e->nassumptions++];
}

static struct est_note *warn(struct estimate *e, struct est_note n)
{
	if (e->nwarnings >= EST_MAX_WARNINGS)
		return NULL;
	e->warnings[e->nwarnings] = n;
	return &e->warnings[e->nwarnings++];
}

static void named(struct est_note *n, const char *name)
{
	if (n)
		snprintf(n->name, sizeof(n->name), "%s", name);
}

static bool is_mixed(int p) { return p == PREC_AMP || p == PREC_BF16 || p == PREC_FP16; }
static bool is_pure16(int p) { return p == PREC_BF16_TRUE || p == PREC_FP16_TRUE; }
/* a frozen base held quantized (qlora, or lora with quant_bits < 16) */
static bool base_quantized(const struct workload *w)
{
	return (w->task == TASK_LORA || w->task == TASK_QLORA) && w->quant_bits < 16;
}
static bool is_transformer(const struct model_spec *m)
{
	return m->kind == MODEL_DECODER || m->kind == MODEL_ENCODER || m->kind == MODEL_VIT;
}

double estimate_peak_flops(const struct gpu_spec *g, int p)
{
	switch (p) {
	case PREC_FP32:
		return g->fp32_flops;
	case PREC_FP16:
	case PREC_FP16_TRUE:
		return g->fp16_flops;
	case PREC_AMP:
		return g->bf16_flops > 0 ? g->bf16_flops : g->fp16_flops;
	default:
		return g->bf16_flops;
	}
}

/* ---- LoRA adapters (formulas.md "LoRA") ---- */

static bool target_on(const char *list, const char *name)
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

static int check_targets(const char *list, char *err, size_t errlen)
{
	static const char *const ok[] = {"q", "k", "v", "o", "gate", "up", "down", "all", "all-linear"};
	char buf[128];
	char *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", +", &save); tok; tok = strtok_r(NULL, ", +", &save)) {
		bool found = false;
		size_t len = strlen(tok);
		if (len > 5 && !strcmp(tok + len - 5, "_proj"))
			tok[len - 5] = '\0';
		for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
			found |= !strcmp(tok, ok[i]);
		if (!found) {
			snprintf(err, errlen, _("lora_targets: expected names from q, k, v, o, gate, up, down or all, got '%s'"), tok);
			return -1;
		}
	}
	return 0;
}

static double lora_params(const struct model_spec *m, long r, const char *targets)
{
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;
	double experts = m->experts ? (double)m->experts : 1;
	double per = 0;

	if (target_on(targets, "q")) per += h + q;
	if (target_on(targets, "k")) per += h + kv;
	if (target_on(targets, "v")) per += h + kv;
	if (target_on(targets, "o")) per += q + h;
	if (m->gated_ffn && target_on(targets, "gate")) per += experts * (h + f);
	if (target_on(targets, "up")) per += experts * (h + f);
	if (target_on(targets, "down")) per += experts * (f + h);
	return (double)r * per * (double)m->layers;
}

/* ---- activations (formulas.md "Activations") ---- */

/* Bytes one transformer layer keeps for backward, every activation kept. */
static double layer_activation_bytes(const struct workload *w, const struct model_spec *m,
				     double s, double b, double e)
{
	const struct fw_profile *fp = fw_profile(w->framework);
	double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
	double k = (double)m->kv_heads;
	double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
	double norms = (double)(m->norms_per_layer < 1 ? 1 : m->norms_per_layer);
	/* torch.autocast runs softmax and the norms in fp32; a framework that
	 * casts the parameters (FSDP MixedPrecision, DeepSpeed, Megatron) runs
	 * every op in 16 bits (formulas.md "Activations") */
	bool autocast = is_mixed(w->precision) && !fp->cast_params;
	double es = autocast ? 4 : e;
	/* formulas.md "Activations": under torch.compile the partitioner
	 * recomputes pointwise ops in backward rather than keep their
	 * outputs: a norm keeps its input only, the MLP its matmul outputs */
	double keep_norm = w->compile ? 1 : 2;
	double keep_mlp = m->gated_ffn ? (w->compile ? 2 : 4) : (w->compile ? 1 : 2);
	bool drop = w->dropout > 0;
	double bytes;

	/* Full training under autocast (or any training of a module kept in
	 * fp32) keeps the residual stream in fp32 and runs LayerNorm in fp32: each norm keeps a 4-byte input and output
	 * plus the 16-bit copy the next matmul reads. */
	if (autocast && (w->task == TASK_TRAIN || fp->mixed_fp32_module))
		bytes = s * b * norms * h * (w->compile ? 4 + 2 : 4 + 4 + 2);
	else
		bytes = e * s * b * keep_norm * norms * h;
	bytes += e * s * b * (a * d + 2 * k * d + a * d);
	bytes += e * s * b * f * keep_mlp;
	if (drop)
		bytes += 2 * s * b * h;  /* two 1-byte dropout masks */
	if ((w->task == TASK_LORA || w->task == TASK_QLORA) && w->lora_dropout > 0) {
		/* formulas.md "Activations": LoRA's dropout on each adapter's
		 * input, x -> dropout(x) @ A @ B: the dropped copy (kept by the
		 * matmul with A) and its 1-byte mask, for every adapted linear;
		 * q, k and v share one where the framework fuses them */
		const char *t = w->lora_targets;
		double qkv = (target_on(t, "q") ? 1 : 0) + (target_on(t, "k") ? 1 : 0) + (target_on(t, "v") ? 1 : 0);
		double in = (fp->lora_fused_qkv ? fmin(qkv, 1) : qkv) * h + (target_on(t, "o") ? a * d : 0) +
			    (m->gated_ffn && target_on(t, "gate") ? h : 0) + (target_on(t, "up") ? h : 0) +
			    (target_on(t, "down") ? f : 0);
		bytes += s * b * in * (e + 1);
	}
	if (w->flash_attention)
		bytes += 4 * a * s * b;  /* softmax log-sum-exp, fp32 */
	else if (w->activation_checkpointing != AC_SELECTIVE)
		/* the score matrix: selective checkpointing recomputes it (Korthikanti
		 * et al. 2022 eq. 6: the 5as^2b term goes, 34sbh stays) */
		bytes += a * s * s * b * (es + (drop ? 1 + es : 0));
	return bytes;
}

/* formulas.md "Activations": torchtitan's selective checkpointing by op
 * (pytorch/torchtitan@b5bcd76c: torchtitan/distributed/activation_checkpoint.py,
 * "Save all compute/comm ops, except every second mm/linear"): of the
 * layer's matmuls, in forward order, the 1st, 3rd, ... keep their outputs,
 * as do attention (its output and log-sum-exp); the layer's input is kept
 * as the checkpoint's; everything else is recomputed in backward. */
static double layer_sac_op_bytes(const struct model_spec *m, double s, double b, double e)
{
	double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
	double k = (double)m->kv_heads;
	double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
	double mm[7];
	int n = 0;
	double kept = h + a * d;   /* the layer's input, attention's output */

	mm[n++] = a * d; mm[n++] = k * d; mm[n++] = k * d; mm[n++] = h;   /* q, k, v, o */
	if (m->gated_ffn)
		mm[n++] = f;                                              /* gate */
	mm[n++] = f; mm[n++] = h;                                         /* up, down */
	for (int i = 0; i < n; i += 2)
		kept += mm[i];
	return e * s * b * kept + 4 * a * s * b;
}

/* Bytes one layer needs while it runs forward only (inference). */
static double layer_transient_bytes(const struct model_spec *m, double s, double b, double e,
				    bool flash)
{
	double h = (double)m->hidden, f = (double)m->ffn;
	double bytes = e * s * b * (4 * h + (m->gated_ffn ? 3 : 2) * f);

	if (!flash)
		bytes += 2 * e * (double)m->heads * s * s * b;
	return bytes;
}

/* ---- the loss buffer (formulas.md "Logits") ---- */

static double next_pow2(double x)
{
	double p = 1;

	while (p < x)
		p *= 2;
	return p;
}

void estimate_loss(const struct workload *w, const struct model_spec *m, double s, double b,
		   double ea, struct est_loss *out)
{
	/* each framework's own loss (formulas.md "Logits", with the code cited) */
	const struct fw_profile *fp = fw_profile(w->framework);
	double n = s * b, V = (double)m->vocab, H = (double)m->hidden;

	memset(out, 0, sizeof(*out));
	out->framework = w->framework >= 0 && w->framework < FW_COUNT ? w->framework : FW_NONE;
	out->given = workload_is_set(w, "loss");
	out->loss = out->given ? w->loss : fp->loss;
	out->chunks = 1;
	switch (out->loss) {
	case LOSS_CHUNKED:
		/* the model's logits whole in the compute dtype, one chunk of
		 * ceil(s / C) positions upcast: fp32 log-softmax + its gradient;
		 * C is the framework's chunk count, or s / its chunk length */
		out->chunks = out->framework != FW_NONE && fp->loss == LOSS_CHUNKED ?
			      (fp->loss_chunk_tokens > 0 ? ceil(s / (double)fp->loss_chunk_tokens) : fp->loss_chunks) :
			      EST_LOSS_CHUNKS_TORCHTUNE;
		if (out->chunks < 1)
			out->chunks = 1;
		out->bytes = n * V * ea + ceil(s / out->chunks) * b * V * (fp->loss_upcast > 0 ? fp->loss_upcast : 8);
		break;
	case LOSS_FUSED:
		if (out->framework == FW_LIGER && H > 0) {
			/* Liger: chunk_size = next_pow2(ceil(BT / ceil(V / H))) rows of
			 * logits live, plus grad_input (BT x H) held from forward */
			double chunk = fmin(next_pow2(ceil(n / ceil(V / H))), n);
			out->chunks = ceil(n / chunk);
			out->bytes = ea * (chunk * V + n * H);
		} else {
			/* the logits whole in the compute dtype, the gradient written over them */
			out->bytes = n * V * ea;
		}
		break;
	default:
		/* the logits, and an fp32 copy with its gradient (8 B a logit);
		 * Megatron's vocab-parallel loss reuses one fp32 buffer (4 B) */
		out->bytes = n * V * (ea + (out->framework != FW_NONE && fp->loss_upcast > 0 ? fp->loss_upcast : 8));
		break;
	}
}

static void activations(const struct workload *w, const struct model_spec *m,
			struct estimate *e, double ea)
{
	double s = (double)w->seq, b = (double)w->micro_batch;
	struct cnn_cost cc;

	if (m->kind == MODEL_PARAMS_ONLY) {
		note(e, (struct est_note){.code = EST_N_NO_ACTIVATIONS});
		return;
	}
	if (m->kind == MODEL_RESNET) {
		model_cnn_cost(m, w->image_size, &cc);
		if (w->task == TASK_INFER) {
			e->mem.activations = 2 * cc.peak_layer_elems * b * ea;
			return;
		}
		e->mem.activations = b * (cc.saved_elems * ea + cc.saved_index_elems * 8);
		if (w->grad_checkpointing) {
			/* keep stage boundaries, recompute one stage at a time */
			e->mem.activations *= 0.5;
			note(e, (struct est_note){.code = EST_N_CNN_CHECKPOINTING});
		}
		return;
	}
	if (w->task == TASK_INFER) {
		/* one sequence's prompt is prefilled at a time */
		double sp = m->kind == MODEL_DECODER ? (double)w->context : s;
		/* formulas.md "Inference": chunked prefill runs prefill_chunk tokens a pass */
		if (m->kind == MODEL_DECODER && w->prefill_chunk > 0 && (double)w->prefill_chunk < sp)
			sp = (double)w->prefill_chunk;
		double bp = m->kind == MODEL_DECODER ? 1 : b;
		e->mem.activations = layer_transient_bytes(m, sp, bp, ea, w->flash_attention);
		if (m->kind == MODEL_DECODER)
			e->mem.logits = (double)w->concurrency * (double)m->vocab * 4;
		return;
	}
	{
		const struct fw_profile *fp = fw_profile(w->framework);
		double per = layer_activation_bytes(w, m, s, b, ea);
		double L = (double)m->layers, h = (double)m->hidden;
		if (w->activation_checkpointing == AC_FULL && w->activation_offloading)
			/* formulas.md "Activations": the layer inputs wait in host
			 * memory; one comes back at a time for its recomputation */
			e->mem.activations = ea * s * b * h + per;
		else if (w->activation_checkpointing == AC_FULL)
			e->mem.activations = L * ea * s * b * h + per;
		else if (w->activation_checkpointing == AC_SELECTIVE && fp->sac_op && m->kind == MODEL_DECODER) {
			/* kept by op in every layer; one layer's rest recomputed at a time */
			double kept = layer_sac_op_bytes(m, s, b, ea);
			e->mem.activations = L * kept + fmax(per - kept, 0);
		} else
			e->mem.activations = L * per;
		e->mem.activations += 2 * ea * s * b * h;  /* embedding output, final norm */
		if (m->kind == MODEL_VIT)
			e->mem.activations += 3.0 * (double)w->image_size * (double)w->image_size * b * ea;
		if (m->kind == MODEL_DECODER) {
			estimate_loss(w, m, s, b, ea, &e->loss);
			e->mem.logits = e->loss.bytes;
			note(e, (struct est_note){.code = EST_N_LOSS, .loss = e->loss.loss,
						  .framework = e->loss.framework, .given = e->loss.given,
						  .chunks = e->loss.chunks, .bytes = e->loss.bytes});
		}
		if (w->task == TASK_LORA && w->quant_bits == 16 && is_mixed(w->precision) &&
		    fp->mixed_fp32_module && m->kind == MODEL_DECODER) {
			/* formulas.md "Framework profiles": autocast over an fp32
			 * module casts each frozen weight to 16 bits for its matmul
			 * and, the weight not requiring grad, caches none: the matmul
			 * keeps its copy for backward, a layer's linears in every
			 * layer kept (one under recomputation), and the lm_head's for
			 * every chunk of the loss that calls it */
			double lin = model_params_linear(m) / L;
			e->mem.activations += ea * ((w->grad_checkpointing ? 1 : L) * lin +
						    (double)e->loss.chunks * (double)m->vocab * h);
		}
		if (base_quantized(w) && w->quant_bits == 8) {
			/* formulas.md "Peak by phase": bitsandbytes' MatMul8bitLt
			 * keeps CAt, an int8 copy of each linear's input, for
			 * backward: q, k, v and gate/up read h, o reads heads x
			 * head_dim, down reads ffn; one layer under recomputation */
			double q = (double)(m->heads * m->head_dim);
			double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
			double in = 3 * h + q + (m->gated_ffn ? 2 : 1) * h + f;
			e->mem.int8_saved = (w->grad_checkpointing ? 1 : L) * s * b * in;
		}
		if (base_quantized(w) && w->quant_bits == 4 && w->quant_saves_input) {
			/* formulas.md "Peak by phase": bitsandbytes up to 0.43.1
			 * kept each 4-bit linear's input for backward, which never
			 * reads it (ctx.tensors = (A, B); fixed by bitsandbytes
			 * #1270): the distinct inputs, the attention's and the MLP's
			 * norm outputs, attention's output and the MLP's product,
			 * 16-bit; one layer under recomputation, and the lm_head's
			 * input when it is quantized too */
			double q = (double)(m->heads * m->head_dim);
			double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
			e->mem.quant_saved = ((w->grad_checkpointing ? 1 : L) * (2 * h + q + f) +
					      (fw_profile(w->framework)->quant_lm_head ? h : 0)) * s * b * ea;
		}
	}
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
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;

	if (!is_transformer(m))
		return 0;
	return fmax(h * q, fmax(h * kv, h * f));
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

/* formulas.md "Framework profiles": the weights torch.autocast casts to 16
 * bits for a matmul (elements): every layer's linears and the lm_head
 * (the embedding's lookup is not cast). */
static double autocast_casts(const struct model_spec *m)
{
	return model_params_linear(m) + (m->kind == MODEL_DECODER ? (double)m->vocab * (double)m->hidden : 0);
}

static void model_states(const struct workload *w, const struct model_spec *m,
			 struct estimate *e)
{
	double N = e->params, G = (double)w->gpus;
	double ew = w->precision == PREC_FP32 ? 4 : 2;
	double h = (double)m->hidden;
	/* formulas.md "Framework profiles": Lightning's bf16-mixed keeps the
	 * module in fp32 and autocasts each op, so a frozen or served model
	 * is held in 4 bytes a parameter (LitGPT) */
	double ef = is_mixed(w->precision) && fw_profile(w->framework)->mixed_fp32_module ? 4 : ew;

	if (w->task == TASK_TRAIN) {
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
		return;
	}
	if (w->task == TASK_INFER) {
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
		return;
	}
	/* LoRA / QLoRA: frozen base, trainable adapters; LoRA on an int8 or
	 * 4-bit base (PEFT on load_in_8bit) is quantized as QLoRA's is */
	if (w->quant_bits < 16) {
		double big = largest_linear(m);
		if (quantized_linear(w, m) > model_params_linear(m))
			/* the quantized lm_head is dequantized whole for each chunk of
			 * the loss, forward and backward */
			big = fmax(big, (double)m->vocab * (double)m->hidden);
		quantized_weights(w, m, w->quant_bits, N, e, &e->mem.weights);
		/* formulas.md "Quantization": loading quantizes one 16-bit weight
		 * at a time; forward and backward dequantize one at a time */
		e->mem.load_inflight = fw_profile(w->framework)->quant_load == QLOAD_PREQUANTIZED ? 0 : big * 2;
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
	if (w->zero >= 3) {
		/* the frozen base sharded: its layers gathered as in training,
		 * at their stored size; no gradients of it to reduce */
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

/* ---- fit (formulas.md "Fit") ---- */

static void fit(const struct workload *w, const struct gpu_spec *gpu, struct estimate *e)
{
	e->recommended = -1;
	for (int i = 0; i < EST_NTIERS; i++) {
		double cap = est_tiers_gb[i] * 1e9;
		e->tiers[i].gb = est_tiers_gb[i];
		e->tiers[i].used = e->mem.total / cap;
		e->tiers[i].fits = e->mem.total <= cap;
		if (e->recommended < 0 && e->mem.total <= cap * (1 - w->headroom))
			e->recommended = i;
	}
	if (gpu) {
		e->gpu_used = e->mem.total / gpu->memory_bytes;
		/* a serving engine's need must fit in the share it reserves */
		e->gpu_fits = e->mem.total <= (e->mem.reserved_share > 0 ? e->mem.reserved : gpu->memory_bytes);
	}
}

static void sum_memory(const struct workload *w, struct estimate *e, double gpu_bytes)
{
	struct est_mem *M = &e->mem;

	double states = M->weights + M->gradients + M->optimizer + M->adapters + M->quant_consts;

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
	M->allocator = M->allocated * w->alloc_overhead;
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
		/* formulas.md "Inference": vLLM / SGLang reserve their share of
		 * the chosen card at start, the KV cache pool taking what the
		 * need leaves; the need must fit inside the share. The tiers
		 * are judged by the need. */
		M->reserved_share = w->gpu_memory_utilization;
		M->reserved = w->gpu_memory_utilization * gpu_bytes;
		M->reserved_free = M->reserved - M->total;
	}
}

/* ---- time (formulas.md "Time") ---- */

/* formulas.md "Time": what activation checkpointing recomputes in the
 * backward pass, per token: full, the layer's forward again (2N + the
 * attention core); selective (Korthikanti et al. 2022), the attention
 * core's forward only (the s x s scores and their softmax). */
static double recompute_flops(const struct workload *w, double Nc, double attn)
{
	if (w->grad_checkpointing || w->activation_checkpointing == AC_FULL)
		return 2 * Nc + attn;
	if (w->activation_checkpointing == AC_SELECTIVE)
		return attn;
	return 0;
}

/* FLOPs per unit of work; *fwd_out the forward pass's share of them (the
 * rest, recomputation included, runs in the backward pass). */
static double flops_per_unit(const struct workload *w, const struct model_spec *m,
			     const struct estimate *e, double *attn_out, double *fwd_out)
{
	double Nc, per, fwd, attn = 0, s = (double)w->seq;
	struct cnn_cost cc;

	*fwd_out = 1;
	if (m->kind == MODEL_RESNET) {
		model_cnn_cost(m, w->image_size, &cc);
		if (w->task == TASK_INFER)
			return cc.fwd_flops;
		*fwd_out = 1.0 / (w->grad_checkpointing ? 4 : 3);
		return (w->grad_checkpointing ? 4 : 3) * cc.fwd_flops;
	}
	Nc = e->params_active - model_params_embedding(m);
	if (m->kind == MODEL_DECODER && m->tied_embeddings)
		Nc += (double)m->vocab * (double)m->hidden;  /* the shared matrix is the lm_head */
	if (is_transformer(m))
		attn = 4 * (double)m->layers * s * (double)(m->heads * m->head_dim);
	*attn_out = attn;
	if (w->task == TASK_INFER) {
		/* causal prefill: a token attends to half the context on average */
		if (m->kind == MODEL_DECODER)
			attn = 2 * (double)m->layers * (double)w->context * (double)(m->heads * m->head_dim);
		per = fwd = 2 * Nc + attn;
	} else if (w->task == TASK_TRAIN) {
		per = 6 * Nc + 3 * attn + recompute_flops(w, Nc, attn);
		fwd = 2 * Nc + attn;
	} else {
		/* LoRA: no weight gradients for the frozen base */
		per = 4 * Nc + 3 * attn + 6 * e->lora_params + recompute_flops(w, Nc, attn);
		fwd = 2 * Nc + attn + 2 * e->lora_params;
	}
	*fwd_out = per > 0 ? fwd / per : 1;
	/* a vision transformer's unit of work is an image of s tokens */
	return m->kind == MODEL_VIT ? per * s : per;
}

void estimate_link(const struct workload *w, const struct gpu_spec *gpu, long gpus, enum est_link *kind,
		   double *peak_out, double *bw)
{
	int ic = w->interconnect;
	enum est_link what;
	double peak;

	if (ic == IC_AUTO) {
		if (!gpu)
			ic = IC_PCIE;
		else if (gpu->link == LINK_NVLINK || gpu->link == LINK_INFINITY || gpu->link == LINK_ICI)
			ic = IC_NVLINK;
		else if (gpu->link == LINK_NVLINK_BRIDGE && gpus == 2)
			ic = IC_NVLINK;
		else
			ic = IC_PCIE;
	}
	switch (ic) {
	case IC_NVLINK:
		if (gpu && gpu->link_bw > 0) {
			peak = gpu->link_bw / 2;
			what = gpu->link == LINK_NVLINK_BRIDGE ? EST_LINK_NVLINK_BRIDGE :
			       gpu->link == LINK_NVLINK ? EST_LINK_NVLINK :
			       gpu->link == LINK_INFINITY ? EST_LINK_INFINITY_FABRIC : EST_LINK_ICI;
		} else {
			peak = 300e9;
			what = EST_LINK_NVLINK_ASSUMED;
		}
		break;
	case IC_ETHERNET:
		peak = ETHERNET_BW;
		what = EST_LINK_ETHERNET;
		break;
	case IC_INFINIBAND:
		peak = INFINIBAND_BW;
		what = EST_LINK_INFINIBAND;
		break;
	default: {
		long gen = gpu && gpu->pcie_gen ? gpu->pcie_gen : 4;
		peak = gen <= 3 ? 15.75e9 : gen == 4 ? 31.5e9 : 63e9;
		what = gen <= 3 ? EST_LINK_PCIE3 : gen == 4 ? EST_LINK_PCIE4 : EST_LINK_PCIE5;
		break;
	}
	}
	if (kind)
		*kind = what;
	if (peak_out)
		*peak_out = peak;
	*bw = w->link_bw > 0 ? w->link_bw : peak * LINK_EFFICIENCY;
}

/*
 * formulas.md "Across nodes": a collective over N nodes of g GPUs each
 * runs in two levels (NCCL's and Horovod's hierarchical all-reduce):
 * inside each node over its link, then between nodes, where the g GPUs of
 * a node share its network. Moving a share k(G-1)/G of D bytes per GPU
 * takes k[(g-1)/g D / intra + (N-1)/N D / node_bw], so the one effective
 * bandwidth is ((G-1)/G) / ((g-1)/g / intra + (N-1)/N / node_bw).
 */
static void across_nodes(const struct workload *w, struct estimate *e)
{
	double N = (double)e->nodes, G = (double)w->gpus, g = G / N, per_byte;

	if (w->node_bw > 0) {
		e->node_bw = w->node_bw;
		e->node_link = EST_NODE_GIVEN;
	} else if (w->interconnect == IC_INFINIBAND) {
		e->node_bw = INFINIBAND_BW * LINK_EFFICIENCY;
		e->node_link = EST_NODE_INFINIBAND;
	} else if (w->interconnect == IC_ETHERNET) {
		e->node_bw = ETHERNET_BW * LINK_EFFICIENCY;
		e->node_link = EST_NODE_ETHERNET;
	} else {
		e->node_bw = EST_NODE_BW_ASSUMED * LINK_EFFICIENCY;
		e->node_link = EST_NODE_ASSUMED;
	}
	e->intra_bw = g > 1 ? e->link_bw : 0;
	per_byte = (N - 1) / N / e->node_bw + (g > 1 ? (g - 1) / g / e->intra_bw : 0);
	e->link_bw = (G - 1) / G / per_byte;
}

/* Where a step's communication runs (bytes per GPU, formulas.md
 * "Communication"): in every micro-batch's forward and backward pass, and
 * once a step under the last micro-batch's backward; *_tail is the part of
 * each that nothing can hide. */
struct comm_plan {
	double fwd, bwd, last;
	double fwd_tail, bwd_tail, last_tail;
};

static void comm(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, struct estimate *e, struct comm_plan *cp)
{
	double G = (double)w->gpus, ring = 2 * (G - 1) / G, A = (double)w->grad_accum;
	double eg = w->precision == PREC_FP32 ? 4 : 2;
	double ew = eg;
	/* a unit FSDP / ZeRO-3 gathers at a time: one transformer block */
	double L = is_transformer(m) && m->layers > 0 ? (double)m->layers : 0;

	memset(cp, 0, sizeof(*cp));
	if (w->gpus < 2 || w->task == TASK_INFER)
		return;
	e->have_comm = true;
	if (w->task != TASK_TRAIN && !is_pure16(w->precision))
		eg = 4;   /* LoRA adapters and their gradients are fp32 (as in memory) */
	/* formulas.md "Communication": ring all-reduce of the gradients, in
	 * buckets, once a step (DDP skips it in the other micro-batches) */
	if (!(w->zero >= 3 && w->task == TASK_TRAIN)) {
		cp->last = ring * e->params_trainable * eg;
		cp->last_tail = fmin(cp->last, ring * EST_DDP_BUCKET_BYTES);
	}
	if (w->zero >= 3 && w->task == TASK_TRAIN) {
		/* every micro-batch: all-gather in forward, all-gather and
		 * reduce-scatter in backward, each (G-1)/G of the weights */
		double v = (G - 1) / G * e->params * ew;
		cp->fwd = v;
		/* FSDP's root unit stays gathered: backward does not gather it again */
		cp->bwd = 2 * v - (G - 1) / G * e->shard_root;
		cp->fwd_tail = cp->bwd_tail = L > 0 ? v / L : 0;
	} else if (w->zero >= 3) {
		/* sharded frozen base: gathered in forward and again in backward */
		double v = (G - 1) / G * (e->mem.weights + e->mem.quant_consts) * G;
		cp->fwd = v;
		cp->bwd = v - (G - 1) / G * e->shard_root;
		cp->fwd_tail = cp->bwd_tail = L > 0 ? v / L : 0;
	}
	e->comm_bytes = A * (cp->fwd + cp->bwd) + cp->last;
	e->overlap = w->zero >= 3 ? EST_OVERLAP_ZERO3 : EST_OVERLAP_DDP;
	e->nodes = w->nodes > 1 ? w->nodes : 1;
	{
		/* across nodes, ethernet / infiniband name the network between
		 * them; inside a node the GPUs use their own link */
		struct workload in = *w;
		if (e->nodes > 1 && (in.interconnect == IC_ETHERNET || in.interconnect == IC_INFINIBAND))
			in.interconnect = IC_AUTO;
		estimate_link(&in, gpu, w->gpus / e->nodes, &e->link, &e->link_peak, &e->link_bw);
	}
	e->link_efficiency = LINK_EFFICIENCY;
	e->link_given = w->link_bw > 0;
	if (e->nodes > 1)
		across_nodes(w, e);
	e->comm_seconds = e->comm_bytes / e->link_bw;
}

/* The exposed time of t seconds of communication beside p seconds of
 * compute, of which u cannot overlap anything: the rest runs beside the
 * compute, which is slowed meanwhile, or outlasts it. */
static double exposed(double t, double u, double p)
{
	double s = EST_OVERLAP_SLOWDOWN, o = t - u;

	if (t <= 0)
		return 0;
	return u + fmax(o - p, o * s / (1 + s));
}

/* formulas.md "Communication": what the step's compute (split into
 * micro-batches and passes, fwd its forward share) leaves exposed. */
static void overlap(const struct workload *w, const struct comm_plan *cp, double fwd,
		    struct estimate *e)
{
	double A = (double)w->grad_accum, C = e->step_compute_seconds, bw = e->link_bw;
	double F = fwd * C / A, B = (1 - fwd) * C / A;
	double ef, mid, last, hidden = 0;

	if (!e->have_comm || C <= 0 || bw <= 0)
		return;
	ef = exposed(cp->fwd / bw, cp->fwd_tail / bw, F);
	mid = ef + exposed(cp->bwd / bw, cp->bwd_tail / bw, B);
	last = ef + exposed((cp->bwd + cp->last) / bw, (cp->bwd_tail + cp->last_tail) / bw, B);
	e->comm_exposed_seconds = (A - 1) * mid + last;
	/* the compute communication can run under */
	if (cp->fwd > 0)
		hidden += A * F;
	if (cp->bwd > 0)
		hidden += A * B;
	else if (cp->last > 0)
		hidden += B;
	e->overlap_fraction = hidden / C;
	e->overlap_slowdown = EST_OVERLAP_SLOWDOWN;
	e->comm_share = e->comm_exposed_seconds / (C + e->comm_exposed_seconds);
	note(e, (struct est_note){.code = EST_N_COMM_OVERLAP, .overlap = e->overlap,
				  .fraction = e->overlap_fraction, .slowdown = e->overlap_slowdown,
				  .seconds = e->comm_exposed_seconds, .share = e->comm_share,
				  .gpus = w->gpus});
}

/* formulas.md "Time": the MFU published runs reached on this GPU
 * generation (A100; Hopper) for full training, the framework's own where
 * it publishes one; 0 where none applies (the class default then). */
static double published_mfu(const struct workload *w, const struct model_spec *m,
			    const struct gpu_spec *gpu, int *src)
{
	const struct fw_profile *fp = fw_profile(w->framework);
	bool a100 = strstr(gpu->name, "A100") != NULL, hopper = !strncmp(gpu->arch, "Hopper", 6);
	double peak, h;

	/* the published runs are full training of transformers in 16-bit:
	 * LoRA, inference prefill and fp32 keep the class default */
	if (w->task != TASK_TRAIN || !is_transformer(m) || w->precision == PREC_FP32)
		return 0;
	if (!a100 && !hopper)
		return 0;
	if (a100 && fp->mfu_a100 > 0) {
		*src = EST_MFU_TITAN_A100;
		return fp->mfu_a100;
	}
	if (hopper && fp->mfu_h100 > 0) {
		*src = EST_MFU_TITAN_H100;
		return fp->mfu_h100;
	}
	*src = a100 ? EST_MFU_FOUNDRY_A100 : EST_MFU_FOUNDRY_H100;
	peak = estimate_peak_flops(gpu, w->precision);
	if (!(peak > 0) || !(gpu->mem_bw > 0) || m->hidden <= 0)
		return 0;
	h = (double)m->hidden;
	return (a100 ? MFU_WIDE_A100 : MFU_WIDE_H100) * h / (h + MFU_WIDTH_K * peak / gpu->mem_bw);
}

/* formulas.md "Measured by gpurent bench": a copy of gpu with what was
 * measured in place of the datasheet's 16-bit GEMM rate and bandwidth. */
static void bench_gpu(const struct gpu_spec *gpu, const struct est_bench *b, struct gpu_spec *out)
{
	*out = *gpu;
	if (b->gemm_flops > 0) {
		if (out->fp16_flops > 0)
			out->fp16_flops = b->gemm_flops;
		if (out->bf16_flops > 0)
			out->bf16_flops = b->gemm_flops;
	}
	if (b->bw > 0)
		out->mem_bw = b->bw;
}

/* formulas.md "Inference time": one decode step of w->concurrency
 * sequences; sets e's decode_* and notes how it was counted. */
static void decode_rate(const struct workload *w, const struct model_spec *m,
			const struct gpu_spec *gpu, double bw_scale, struct estimate *e)
{
	const struct fw_profile *fp = fw_profile(w->framework);
	double G = (double)w->gpus, L = m->layers > 0 ? (double)m->layers : 0;
	double kv_seq = e->kv_per_token * (double)w->context / 2;  /* cache half full on average */
	double bytes = (e->mem.weights + e->mem.quant_consts) + (double)w->concurrency * kv_seq / G;
	long bits = w->quant_bits > 0 && w->quant_bits < 16 ? w->quant_bits : 16;
	double eff = fp->decode_bw_eff > 0 ? fp->decode_bw_eff :
		     bits <= 4 ? DECODE_EFF_INT4 : bits <= 8 ? DECODE_EFF_INT8 : DECODE_EFF_BF16;
	enum est_decode_over mech;

	e->decode_bw_efficiency = fmin(1, eff * bw_scale);
	e->decode_layer_split = fp->layer_split && w->gpus > 1;
	/* layer split: the GPUs take turns, each reading its share */
	e->decode_bytes_seconds = bytes * (e->decode_layer_split ? G : 1) /
				  (e->decode_bw_efficiency * gpu->mem_bw);
	if (fp->native)
		mech = w->compile ? EST_DOVER_NATIVE_GRAPHS : EST_DOVER_NATIVE_NO_GRAPHS;
	else
		mech = w->compile ? EST_DOVER_COMPILED : EST_DOVER_EAGER;
	e->decode_overhead_seconds = L * (mech == EST_DOVER_NATIVE_NO_GRAPHS ? DECODE_NOGRAPH_LAYER_S :
					  mech == EST_DOVER_NATIVE_GRAPHS ? 0 :
					  mech == EST_DOVER_COMPILED ? DECODE_COMPILED_LAYER_S :
					  DECODE_COMPILED_LAYER_S + DECODE_EAGER_LAYER_S);
	if (e->decode_layer_split) {
		e->decode_comm_seconds = (G - 1) * LAYER_HOP_S;
	} else if (w->gpus > 1) {
		enum est_link link;
		double peak, lbw, ar;
		estimate_link(w, gpu, w->gpus, &link, &peak, &lbw);
		bool nvlink = link != EST_LINK_PCIE3 && link != EST_LINK_PCIE4 && link != EST_LINK_PCIE5 &&
			      link != EST_LINK_ETHERNET && link != EST_LINK_INFINIBAND;
		int kind = !fp->custom_allreduce ? EST_AR_TORCH : nvlink ? EST_AR_ENGINE_NVLINK : EST_AR_ENGINE_PCIE;
		ar = kind == EST_AR_TORCH ? AR_TORCH_S : kind == EST_AR_ENGINE_NVLINK ? AR_ENGINE_NVLINK_S :
		     AR_ENGINE_PCIE_S;
		e->decode_comm_seconds = 2 * L * ar;
		note(e, (struct est_note){.code = EST_N_DECODE_TP, .gpus = w->gpus, .seconds = ar, .link = (int)link,
					  .mech = kind,
					  .share = e->decode_comm_seconds / (e->decode_bytes_seconds +
									     e->decode_comm_seconds +
									     e->decode_overhead_seconds)});
	}
	e->decode_step_seconds = e->decode_bytes_seconds + e->decode_comm_seconds + e->decode_overhead_seconds;
	e->decode_tokens_per_second = (double)w->concurrency / e->decode_step_seconds;
	note(e, (struct est_note){.code = EST_N_DECODE, .fraction = e->decode_bw_efficiency, .bw = gpu->mem_bw,
				  .bits = bits});
	note(e, (struct est_note){.code = EST_N_DECODE_OVERHEAD, .mech = mech, .framework = w->framework,
				  .given = workload_is_set(w, "compile"),
				  .seconds = e->decode_overhead_seconds,
				  .length = (long)L});
	if (e->decode_layer_split)
		note(e, (struct est_note){.code = EST_N_DECODE_LAYER_SPLIT, .gpus = w->gpus, .seconds = LAYER_HOP_S,
					  .framework = w->framework});
}

static void time_estimate(const struct workload *w, const struct model_spec *m,
			  const struct gpu_spec *gpu_in, const struct est_bench *bench, struct estimate *e)
{
	double attn = 0, fwd = 1, per_step_units, G = (double)w->gpus;
	double mfu_scale = 1, bw_scale = 1;
	struct comm_plan cp;
	struct gpu_spec measured;
	const struct gpu_spec *gpu = gpu_in;

	if (gpu && bench && (bench->gemm_flops > 0 || bench->bw > 0)) {
		bench_gpu(gpu_in, bench, &measured);
		gpu = &measured;
		e->bench_used = true;
		e->bench_at = bench->at;
		e->bench_flops = bench->gemm_flops;
		e->bench_bw = bench->bw;
		if (bench->gemm_flops > 0)
			mfu_scale = 1 / EST_BENCH_GEMM_SHARE;
		if (bench->bw > 0)
			bw_scale = 1 / EST_BENCH_COPY_SHARE;
		e->bench_mfu_scale = mfu_scale;
		named(note(e, (struct est_note){.code = EST_N_BENCH_MEASURED, .flops = bench->gemm_flops,
						.bw = bench->bw, .at = bench->at, .fraction = mfu_scale}),
		      gpu_in->name);
	}
	e->flops_per_unit = flops_per_unit(w, m, e, &attn, &fwd);
	e->work_is_samples = m->kind == MODEL_RESNET || m->kind == MODEL_VIT;
	if (workload_is_set(w, "tokens"))
		e->work = w->tokens;
	else if (workload_is_set(w, "samples"))
		e->work = w->samples * w->epochs * (e->work_is_samples ? 1 : (double)w->seq);
	if (e->work_is_samples && workload_is_set(w, "tokens"))
		e->work = w->tokens / (double)w->seq;  /* ViT tokens -> images */

	if (w->tflops > 0) {
		e->eff_flops = w->tflops * 1e12;
		e->mfu = 0;
	} else if (gpu) {
		int src = 0;
		double pub;
		e->peak_flops = estimate_peak_flops(gpu, w->precision);
		if (e->peak_flops <= 0) {
			e->peak_flops = gpu->fp32_flops > 0 ? gpu->fp32_flops : gpu->fp16_flops;
			named(warn(e, (struct est_note){.code = EST_W_NO_TENSOR_RATE, .precision = w->precision,
							.fp32 = gpu->fp32_flops > 0}), gpu_in->name);
		}
		bool cnn16 = m->kind == MODEL_RESNET && w->precision != PREC_FP32;
		pub = published_mfu(w, m, gpu_in, &src);
		e->mfu = workload_is_set(w, "mfu") ? w->mfu :
			 cnn16 ? CNN_TENSOR_MFU : pub > 0 ? pub : estimate_default_mfu(gpu->cls);
		/* measured GEMM: the MFU relative to what a healthy card's GEMM reaches */
		if (!workload_is_set(w, "mfu"))
			e->mfu = fmin(1, e->mfu * mfu_scale);
		e->eff_flops = e->peak_flops * e->mfu;
		named(note(e, (struct est_note){.code = workload_is_set(w, "mfu") ? EST_N_TIME_MFU_GIVEN :
							cnn16 ? EST_N_TIME_MFU_CNN :
							pub > 0 ? EST_N_TIME_MFU_PUBLISHED : EST_N_TIME_MFU_CLASS,
						.precision = w->precision, .flops = e->peak_flops,
						.mfu = e->mfu, .mech = src}), gpu_in->name);
	}

	/* per optimizer step */
	per_step_units = (double)w->micro_batch * (double)w->grad_accum *
			 (e->work_is_samples ? 1 : (double)w->seq);
	if (w->task != TASK_INFER) {
		if (w->step_time > 0)
			e->step_compute_seconds = w->step_time;
		else if (e->eff_flops > 0)
			e->step_compute_seconds = e->flops_per_unit * per_step_units / e->eff_flops *
						  (base_quantized(w) ? QLORA_SLOWDOWN : 1);
		comm(w, m, gpu, e, &cp);
		if (e->have_comm && e->step_compute_seconds > 0) {
			e->comm_ratio = e->comm_seconds / e->step_compute_seconds;
			e->comm_bound = e->comm_ratio > 1;
		}
		overlap(w, &cp, fwd, e);
	}

	if (e->work <= 0)
		return;
	e->flops_total = e->flops_per_unit * e->work;
	if (w->task == TASK_INFER) {
		if (!gpu) {
			note(e, (struct est_note){.code = EST_N_INFER_NEEDS_GPU});
			return;
		}
		decode_rate(w, m, gpu, bw_scale, e);
		e->decode_seconds = e->work / e->decode_tokens_per_second;
		if (w->prompt_tokens > 0 && e->eff_flops > 0)
			e->prefill_seconds = e->flops_per_unit * w->prompt_tokens / (e->eff_flops * G);
		e->wall_seconds = e->decode_seconds + e->prefill_seconds;
		e->have_time = true;
	} else {
		double step_wall;
		if (e->eff_flops <= 0 && w->step_time <= 0)
			return;
		e->steps = e->work / (per_step_units * G);
		if (w->step_time > 0)
			e->compute_seconds = e->steps * w->step_time;
		else
			e->compute_seconds = e->flops_total / (e->eff_flops * G) *
					     (base_quantized(w) ? QLORA_SLOWDOWN : 1);
		/* the communication overlap does not hide (formulas.md "Communication") */
		step_wall = e->compute_seconds / e->steps + e->comm_exposed_seconds;
		e->wall_seconds = e->steps * step_wall;
		e->have_time = true;
	}
	e->gpu_hours = e->wall_seconds * G / 3600;

	if (e->wall_seconds > LONG_RUN_SECONDS)
		warn(e, (struct est_note){
			.code = e->wall_seconds > ABSURD_RUN_SECONDS ? EST_W_IMPLAUSIBLE : EST_W_LONG_RUN,
			.seconds = e->wall_seconds, .gpus = w->gpus,
			.counted = !(workload_is_set(w, "samples") && !workload_is_set(w, "tokens")) ?
				   EST_COUNTED_TOKENS :
				   e->work_is_samples ? EST_COUNTED_SAMPLES : EST_COUNTED_SAMPLES_SEQ,
			.work = e->work, .samples = e->work_is_samples, .flops = e->flops_per_unit,
			.per_day = e->work / e->wall_seconds * 86400});
}

/* ---- the whole estimate ---- */

/* The four assumptions every estimate states first: precision, size,
 * framework overhead, attention. */
static void standard_notes(const struct workload *w, const struct model_spec *m, struct estimate *e)
{
	bool fp32 = w->precision == PREC_FP32, pure = is_pure16(w->precision);
	enum est_kept kept;

	if (w->task == TASK_INFER)
		kept = fp32 ? EST_KEPT_INFER_FP32 : EST_KEPT_INFER_16;
	else if (w->task != TASK_TRAIN)
		kept = fp32 ? EST_KEPT_ADAPT_FP32 : pure ? EST_KEPT_ADAPT_PURE16 : EST_KEPT_ADAPT_MIXED;
	else
		kept = fp32 ? EST_KEPT_TRAIN_FP32 : pure ? EST_KEPT_TRAIN_PURE16 : EST_KEPT_TRAIN_MIXED;
	note(e, (struct est_note){.code = EST_N_PRECISION, .precision = w->precision, .kept = kept});
	if (m->kind == MODEL_RESNET || m->kind == MODEL_VIT)
		note(e, (struct est_note){.code = EST_N_IMAGE, .length = w->image_size,
					  .given = workload_is_set(w, "image_size"),
					  .micro_batch = w->micro_batch});
	else
		note(e, (struct est_note){.code = EST_N_SEQUENCE,
					  .length = w->task == TASK_INFER ? w->context : w->seq,
					  .given = workload_is_set(w, w->task == TASK_INFER ? "context" : "seq"),
					  .micro_batch = w->micro_batch});
	note(e, (struct est_note){.code = EST_N_OVERHEAD, .bytes = w->cuda_context,
				  .given = workload_is_set(w, "cuda_context"), .fraction = w->alloc_overhead});
	note(e, (struct est_note){.code = EST_N_ATTENTION, .flash = w->flash_attention, .dropout = w->dropout,
				  .grad_ckpt = w->grad_checkpointing,
				  .ac = w->activation_checkpointing});
}

static void memory(const struct workload *w, const struct model_spec *m, struct estimate *e,
		   double gpu_bytes)
{
	double ea = w->precision == PREC_FP32 ? 4 : 2;

	memset(&e->mem, 0, sizeof(e->mem));
	model_states(w, m, e);
	activations(w, m, e, ea);
	if (w->task == TASK_INFER && m->kind == MODEL_DECODER)
		kv_cache(w, m, e, ea);
	else if (w->task == TASK_INFER && m->kind == MODEL_PARAMS_ONLY)
		note(e, (struct est_note){.code = EST_N_NO_KV_CACHE});
	sum_memory(w, e, gpu_bytes);
}

int estimate_run(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, struct estimate *e,
		 char *err, size_t errlen)
{
	return estimate_run_bench(w, m, gpu, NULL, e, err, errlen);
}

int estimate_run_bench(const struct workload *w, const struct model_spec *m,
		       const struct gpu_spec *gpu, const struct est_bench *bench, struct estimate *e,
		       char *err, size_t errlen)
{
	struct model_spec untied;

	memset(e, 0, sizeof(*e));
	if ((w->task == TASK_LORA || w->task == TASK_QLORA)) {
		if (!is_transformer(m)) {
			snprintf(err, errlen, _("task: LoRA needs a transformer architecture (a preset or layers/hidden/heads)"));
			return -1;
		}
		if (check_targets(w->lora_targets, err, errlen))
			return -1;
	}
	if (fw_profile(w->framework)->untied_lm_head && m->kind == MODEL_DECODER && m->tied_embeddings) {
		/* formulas.md "Framework profiles": the framework keeps the
		 * lm_head apart from the embedding (LitGPT) */
		untied = *m;
		untied.tied_embeddings = false;
		m = &untied;
	}
	standard_notes(w, m, e);
	e->params = model_params(m);
	e->params_active = model_params_active(m);
	if (m->pos == POS_ROPE && m->max_positions) {
		long len = w->task == TASK_INFER ? w->context : w->seq;
		if (len > m->max_positions)
			named(warn(e, (struct est_note){.code = EST_W_ROPE_CONTEXT, .length = len,
							.max_positions = m->max_positions}), m->name);
	}
	memory(w, m, e, gpu ? gpu->memory_bytes : 0);
	fit(w, gpu, e);

	if (e->recommended < 0 && w->task == TASK_TRAIN) {
		/* how many GPUs ZeRO-3 (then also recomputation) needs under 80 GB */
		struct workload z = *w;
		struct estimate t;
		z.zero = 3;
		for (int pass = 0; pass < 2 && !e->zero3_gpus_for_80; pass++) {
			z.grad_checkpointing = pass ? 1 : w->grad_checkpointing;
			z.activation_checkpointing = pass ? AC_FULL : w->activation_checkpointing;
			for (long g = w->gpus * 2; g <= 4096; g *= 2) {
				z.gpus = g;
				memset(&t, 0, sizeof(t));
				t.params = e->params;
				t.params_active = e->params_active;
				memory(&z, m, &t, 0);
				if (t.mem.total <= 80e9 * (1 - w->headroom)) {
					e->zero3_gpus_for_80 = (int)g;
					e->zero3_needs_ckpt = z.grad_checkpointing && !w->grad_checkpointing;
					break;
				}
			}
		}
	}
	time_estimate(w, m, gpu, bench, e);
	return 0;
}
