/*
 * estimate_time.c - time from FLOPs: FLOPs per unit of work, the MFU and
 * rate (published, by class, measured by gpurent bench), decode, wall time.
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <string.h>

#include "core/model/framework.h"

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

/* formulas.md "Time": QLoRA step slowdown from dequantization, measured
 * (LitGPT resource tables: Llama 2 7B LoRA 2.36 vs NF4 with double
 * quantization 3.83 min/1k iters, the quantization gpurent assumes). */
#define QLORA_SLOWDOWN (3.83 / 2.36)
/* formulas.md "Time": ResNet-50 AMP on A100 runs 2470 img/s x 24.6 GFLOPs
 * = 61 TFLOPS of 312 (NVIDIA DeepLearningExamples): CNNs on tensor cores,
 * the class figure where the card's bandwidth is unknown. */
#define CNN_TENSOR_MFU 0.20
/* formulas.md "Time": a run longer than this gets flagged. */
#define LONG_RUN_SECONDS (7 * 86400.0)
#define ABSURD_RUN_SECONDS (30 * 86400.0)

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
/* formulas.md "Inference time" (issue 30 item 4): llama.cpp's decode
 * kernels (mul_mat_vec_q for block formats, dequantizing with dp4a; the
 * f16 vector kernel) run on the CUDA cores, so the share of the bandwidth
 * they reach grows with what the card can issue per byte it streams: its
 * FP32 FLOP rate over its bandwidth, R, the ratio U(h) uses for training:
 * share = S x R / (R + c_f), c_f the format's FLOP-equivalents a byte
 * costs (a block format's dequantization more than f16's). S, c_q and c_f16
 * fitted to the evidence rows already fitted for llama.cpp's 0.80 (xd-01..12,
 * xd-mg-13, xd-19..30, xd-mg-43, xd-mg-49, lcpp-cg-01..04: consumer and
 * workstation cards, R 37..106 FLOP/B), minimizing their median error
 * (grid 0.01 and 0.5 FLOP/B): S 0.89, c_q 9.0, c_f16 3.5. The HBM cards
 * (A100 R 9.6, H100 PCIe R 25.5) are outside that fit and land lower. */
#define LCPP_ISSUE_QUANT 9.0
#define LCPP_ISSUE_F16 3.5

/* formulas.md "Inference time": a native engine's share by the card's
 * FP32 FLOP:byte ratio and the weights' format (decode_by_issue), that
 * ratio in *ratio; its plain decode_bw_eff where the card's FP32 rate is
 * unknown (*ratio 0). */
static double issue_share(const struct fw_profile *fp, const struct gpu_spec *gpu, long bits, double *ratio)
{
	double c = bits < 16 ? LCPP_ISSUE_QUANT : LCPP_ISSUE_F16;

	*ratio = 0;
	if (!fp->decode_by_issue || !(gpu->fp32_flops > 0) || !(gpu->mem_bw > 0))
		return fp->decode_bw_eff;
	*ratio = gpu->fp32_flops / gpu->mem_bw;
	return fp->decode_bw_eff * *ratio / (*ratio + c);
}

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
/* formulas.md "Time" (issue 30): a CNN has no one width; its equivalent
 * width is the h at which U(h) on the A100 (312 TFLOPS, 2039 GB/s) gives
 * the ResNet-50 row above (0.195 = 2470 x 24.6e9 / 312e12): h = k x
 * (peak/bw) x u / (1 - u), u = 0.195 / U_inf = 0.291, so h = 113. The same
 * U(h) then puts it on any card at that card's FLOP:byte ratio. */
#define CNN_A100_U (2470 * 24.6e9 / 312e12 / MFU_WIDE_A100)
#define CNN_EQUIV_WIDTH (MFU_WIDTH_K * (312e12 / 2039e9) * CNN_A100_U / (1 - CNN_A100_U))

/* formulas.md "Time": U(h) = U_inf x h / (h + k x peak / bandwidth) on an
 * NVIDIA card; U_inf of the A100 fit for the generations before Hopper
 * (Volta, Turing, Ampere, Ada: synchronous mma tensor cores), of the H100
 * fit for Hopper and Blackwell (wgmma/TMA); 0 for another vendor or a card
 * whose peak or bandwidth is unknown. *src: which. */
static double width_utilization(const struct gpu_spec *gpu, int precision, double h, int *src)
{
	double peak = estimate_peak_flops(gpu, precision);
	bool hopper = !strncmp(gpu->arch, "Hopper", 6) || !strncmp(gpu->arch, "Blackwell", 9);

	if (strcmp(gpu->vendor, "NVIDIA") || !(peak > 0) || !(gpu->mem_bw > 0) || !(h > 0))
		return 0;
	if (src)
		*src = hopper ? EST_MFU_WIDTH_HOPPER : EST_MFU_WIDTH_AMPERE;
	return (hopper ? MFU_WIDE_H100 : MFU_WIDE_A100) * h / (h + MFU_WIDTH_K * peak / gpu->mem_bw);
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
	if (w->task != TASK_TRAIN || w->precision == PREC_FP32)
		return 0;
	if (m->kind == MODEL_RESNET) {
		double u = width_utilization(gpu, w->precision, CNN_EQUIV_WIDTH, NULL);
		*src = EST_MFU_WIDTH_CNN;
		return u;
	}
	if (!is_transformer(m))
		return 0;
	if (!a100 && !hopper)
		return m->hidden > 0 ? width_utilization(gpu, w->precision, (double)m->hidden, src) : 0;
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
	double ratio = 0;   /* the card's FP32 FLOP:byte ratio where the share follows it */
	double eff = fp->decode_bw_eff > 0 ? issue_share(fp, gpu, bits, &ratio) :
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
				  .bits = bits, .flops = ratio});
	note(e, (struct est_note){.code = EST_N_DECODE_OVERHEAD, .mech = mech, .framework = w->framework,
				  .given = workload_is_set(w, "compile"),
				  .seconds = e->decode_overhead_seconds,
				  .length = (long)L});
	if (e->decode_layer_split)
		note(e, (struct est_note){.code = EST_N_DECODE_LAYER_SPLIT, .gpus = w->gpus, .seconds = LAYER_HOP_S,
					  .framework = w->framework});
}

/* formulas.md "Measured by gpurent bench": the card as gpurent bench
 * measured it, into *measured and noted in e (gpu itself when nothing was
 * measured); *mfu_scale and *bw_scale what the measurement implies. */
static const struct gpu_spec *measured_gpu(const struct gpu_spec *gpu, const struct est_bench *bench,
					   struct gpu_spec *measured, double *mfu_scale, double *bw_scale,
					   struct estimate *e)
{
	if (!(gpu && bench && (bench->gemm_flops > 0 || bench->bw > 0)))
		return gpu;
	bench_gpu(gpu, bench, measured);
	e->bench_used = true;
	e->bench_at = bench->at;
	e->bench_flops = bench->gemm_flops;
	e->bench_bw = bench->bw;
	if (bench->gemm_flops > 0)
		*mfu_scale = 1 / EST_BENCH_GEMM_SHARE;
	if (bench->bw > 0)
		*bw_scale = 1 / EST_BENCH_COPY_SHARE;
	e->bench_mfu_scale = *mfu_scale;
	named(note(e, (struct est_note){.code = EST_N_BENCH_MEASURED, .flops = bench->gemm_flops,
					.bw = bench->bw, .at = bench->at, .fraction = *mfu_scale}),
	      gpu->name);
	return measured;
}

/* formulas.md "Time": the effective FLOP rate per GPU: the given TFLOPS, or
 * the peak at the precision x the MFU (given, CNN, published or the class
 * default; mfu_scale where gpurent bench measured the GEMM). gpu is the
 * card as measured, gpu_in as the catalog has it. */
static void flop_rate(const struct workload *w, const struct model_spec *m, const struct gpu_spec *gpu,
		      const struct gpu_spec *gpu_in, double mfu_scale, struct estimate *e)
{
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
		if (pub > 0)
			cnn16 = false;  /* the CNN's equivalent width on this card */
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
}

void est_time(const struct workload *w, const struct model_spec *m,
	      const struct gpu_spec *gpu_in, const struct est_bench *bench, struct estimate *e)
{
	double attn = 0, fwd = 1, per_step_units, G = (double)w->gpus;
	double mfu_scale = 1, bw_scale = 1;
	struct comm_plan cp;
	struct gpu_spec measured;
	const struct gpu_spec *gpu;

	gpu = measured_gpu(gpu_in, bench, &measured, &mfu_scale, &bw_scale, e);
	e->step_slowdown = base_quantized(w) && w->task != TASK_INFER ? QLORA_SLOWDOWN : 1;
	e->flops_per_unit = flops_per_unit(w, m, e, &attn, &fwd);
	e->work_is_samples = m->kind == MODEL_RESNET || m->kind == MODEL_VIT;
	if (workload_is_set(w, "tokens"))
		e->work = w->tokens;
	else if (workload_is_set(w, "samples"))
		e->work = w->samples * w->epochs * (e->work_is_samples ? 1 : (double)w->seq);
	if (e->work_is_samples && workload_is_set(w, "tokens"))
		e->work = w->tokens / (double)w->seq;  /* ViT tokens -> images */

	flop_rate(w, m, gpu, gpu_in, mfu_scale, e);

	/* per optimizer step */
	per_step_units = (double)w->micro_batch * (double)w->grad_accum *
			 (e->work_is_samples ? 1 : (double)w->seq);
	if (w->task != TASK_INFER) {
		if (w->step_time > 0)
			e->step_compute_seconds = w->step_time;
		else if (e->eff_flops > 0)
			e->step_compute_seconds = e->flops_per_unit * per_step_units / e->eff_flops *
						  (base_quantized(w) ? QLORA_SLOWDOWN : 1);
		/* issue 30: a factor applied is a factor said */
		if (w->step_time <= 0 && e->eff_flops > 0 && base_quantized(w))
			note(e, (struct est_note){.code = EST_N_QLORA_SLOWDOWN, .slowdown = QLORA_SLOWDOWN});
		est_comm(w, m, gpu, e, &cp);
		if (e->have_comm && e->step_compute_seconds > 0) {
			e->comm_ratio = e->comm_seconds / e->step_compute_seconds;
			e->comm_bound = e->comm_ratio > 1;
		}
		est_comm_overlap(w, &cp, fwd, e);
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
					     e->step_slowdown;
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
