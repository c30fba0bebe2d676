/*
 * estwords.c - the sentences of `gpurent estimate` from the codes and
 * facts of src/core/estimate/estimate*.c (estwords.h). Every format string is marked
 * with _() or N_() for translation; the text is exactly what `gpurent
 * estimate` has always printed (tests/cli/estimate.sh).
 */
#include "cmd/estimate/estwords.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/model/framework.h"
#include "core/text/units.h"
#include "core/model/workload.h"
#include "base/util.h"
#include "base/i18n.h"

/* EST_N_PRECISION: what is kept in which precision. */
static const char *kept_word(enum est_kept k)
{
	static const char *const t[] = {
		[EST_KEPT_INFER_FP32] = N_("fp32 weights, activations and KV cache"),
		[EST_KEPT_INFER_16] = N_("16-bit weights (unless quantized), activations and KV cache"),
		[EST_KEPT_ADAPT_FP32] = N_("fp32 frozen weights, adapters and activations"),
		[EST_KEPT_ADAPT_PURE16] = N_("16-bit frozen weights, adapters, their optimizer states and activations"),
		[EST_KEPT_ADAPT_MIXED] = N_("16-bit frozen weights and activations; adapters and their optimizer "
					    "states in fp32"),
		[EST_KEPT_TRAIN_FP32] = N_("fp32 weights, gradients, optimizer states and activations"),
		[EST_KEPT_TRAIN_PURE16] = N_("16-bit weights, gradients, optimizer states and activations"),
		[EST_KEPT_TRAIN_MIXED] = N_("16-bit weights and activations, fp32 master weights and optimizer "
					    "states"),
	};
	return (unsigned)k < sizeof(t) / sizeof(t[0]) ? _(t[k]) : "?";
}

/* EST_N_LOSS: what the loss keeps live, and where that came from. */
static void word_loss(const struct est_note *n, char *out, size_t len)
{
	char b[32], what[160];
	const char *fw = workload_enum_name("framework", n->framework);

	units_fmt_bytes(n->bytes, b, sizeof(b));
	if (n->loss == LOSS_CHUNKED)
		/* TRANSLATORS: chunks */
		snprintf(what, sizeof(what), _("chunked: the logits whole, one of %.0f chunks upcast to an fp32 "
					       "log-softmax and its gradient"), n->chunks);
	else if (n->loss == LOSS_FUSED && n->chunks > 1)
		snprintf(what, sizeof(what), _("fused with the output layer: %.0f chunks of logits, one live"),
			 n->chunks);
	else if (n->loss == LOSS_FUSED)
		snprintf(what, sizeof(what), "%s", _("fused: the logits whole, their gradient written over them, "
						     "no fp32 copy"));
	else if (n->bits == 16)
		snprintf(what, sizeof(what), "%s", _("full: the logits + a 16-bit log-softmax + its gradient (the "
						     "module cast to fp16, no upcast)"));
	else
		snprintf(what, sizeof(what), "%s", _("full: the logits + an fp32 log-softmax + its gradient"));
	if (n->given)
		snprintf(out, len, _("loss %s, %s (given)"), what, b);
	else if (n->framework != FW_NONE)
		/* TRANSLATORS: the loss, its bytes, the framework */
		snprintf(out, len, _("loss %s, %s (%s's)"), what, b, fw);
	else
		snprintf(out, len, _("loss %s, %s (no framework given: give framework or loss)"), what, b);
}

/* EST_N_DECODE: the share of the bandwidth a step reads at, and, where it
 * follows the card (llama.cpp), the FP32 FLOP:byte ratio it came from. */
static void word_decode(const struct est_note *n, char *out, size_t len)
{
	if (n->flops > 0)
		/* TRANSLATORS: share of the bandwidth, GB/s, bits of the weights, FP32 FLOP a byte */
		snprintf(out, len, _("decode: weights + KV cache read once per step at %.0f%% of %.0f GB/s "
				     "(%ld-bit weights; CUDA-core kernels at this card's %.1f FP32 FLOP a "
				     "byte)"), n->fraction * 100, n->bw / 1e9, n->bits, n->flops);
	else
		/* TRANSLATORS: share of the bandwidth, GB/s, bits of the weights */
		snprintf(out, len, _("decode: weights + KV cache read once per step at %.0f%% of %.0f GB/s "
				     "(%ld-bit weights)"), n->fraction * 100, n->bw / 1e9, n->bits);
}

/* EST_N_LOSS_MOMENT: the loss and the recomputed layer, never live together. */
static void word_loss_moment(const struct est_note *n, char *out, size_t len)
{
	char b[32], l[32];

	units_fmt_bytes(n->bytes, b, sizeof(b));
	units_fmt_bytes(n->left, l, sizeof(l));
	/* TRANSLATORS: the loss buffers' bytes, the recomputed layer's bytes not counted */
	snprintf(out, len, _("peak: the loss (%s) is freed before the first layer is recomputed: %s of that "
			     "layer not counted beside it (kept in the reserve)"), b, l);
}

/* A long run's warning: the two differ in their verdict only. */
static void word_long_run(const struct est_note *n, char *out, size_t len)
{
	char d[64];
	const char *unit = n->samples ? _("samples") : _("tokens");
	const char *counted = n->counted == EST_COUNTED_SAMPLES ? _("samples x 1 x epochs") :
			      n->counted == EST_COUNTED_SAMPLES_SEQ ? _("samples x seq x epochs") : _("tokens");

	units_fmt_duration(n->seconds, d, sizeof(d));
	if (n->code == EST_W_IMPLAUSIBLE)
		/* TRANSLATORS: wall time, GPUs, what the work is counted from, work, unit, FLOPs per
		 * unit, units one day covers, unit */
		snprintf(out, len, _("implausible plan: %s on %ld GPU(s) is more than 30 days; it is driven by "
				     "%s = %.3g %s at %.3g FLOPs each. One day on this setup covers %.3g %s: cut "
				     "the data or epochs, or add GPUs"),
			 d, n->gpus, counted, n->work, unit, n->flops, n->per_day, unit);
	else
		snprintf(out, len, _("long run: %s on %ld GPU(s) is more than a week; it is driven by %s = %.3g "
				     "%s at %.3g FLOPs each. One day on this setup covers %.3g %s: cut the data or "
				     "epochs, or add GPUs"),
			 d, n->gpus, counted, n->work, unit, n->flops, n->per_day, unit);
}

/* EST_N_TIME_MFU_PUBLISHED: whose runs the MFU comes from. */
static const char *mfu_source_word(int src)
{
	static const char *const t[] = {
		[EST_MFU_FOUNDRY_A100] = N_("llm-foundry's published A100 runs, by model width"),
		[EST_MFU_FOUNDRY_H100] = N_("llm-foundry's published H100 bf16 runs, by model width"),
		[EST_MFU_TITAN_A100] = N_("torchtitan's published A100 runs"),
		[EST_MFU_TITAN_H100] = N_("torchtitan's published H100 runs"),
		[EST_MFU_WIDTH_AMPERE] = N_("llm-foundry's A100 fit by model width, at this card's FLOP:byte ratio"),
		[EST_MFU_WIDTH_HOPPER] = N_("llm-foundry's H100 fit by model width, at this card's FLOP:byte ratio"),
		[EST_MFU_WIDTH_CNN] = N_("a CNN's equivalent width from the A100 ResNet-50 run, at this card's "
					 "FLOP:byte ratio"),
	};
	return src >= 0 && (size_t)src < sizeof(t) / sizeof(t[0]) ? _(t[src]) : "?";
}

/* EST_N_DECODE_OVERHEAD: what bounds a step besides the bytes. */
static void word_decode_overhead(const struct est_note *n, char *out, size_t len)
{
	const char *how = n->given ? _("given") : _("the framework's default");

	switch (n->mech) {
	case EST_DOVER_EAGER:
		/* TRANSLATORS: given or default, ms a token, layers */
		snprintf(out, len, _("decode: eager PyTorch (no compile, %s): %.1f ms a token of CPU launches and "
				     "per-layer overhead over %ld layers; --compile for CUDA graphs"), how,
			 n->seconds * 1e3, n->length);
		break;
	case EST_DOVER_NATIVE_NO_GRAPHS:
		snprintf(out, len, _("decode: no CUDA graphs (%s): %.2f ms a token of kernel launches added over "
				     "%ld layers"), how, n->seconds * 1e3, n->length);
		break;
	case EST_DOVER_NATIVE_GRAPHS:
		snprintf(out, len, _("decode: a native engine with CUDA graphs (%s): no per-layer overhead added"),
			 how);
		break;
	default:
		snprintf(out, len, _("decode: compiled with CUDA graphs (%s): %.2f ms a token of per-layer overhead "
				     "over %ld layers"), how, n->seconds * 1e3, n->length);
		break;
	}
}

/* EST_N_BENCH_MEASURED: what gpurent bench measured, and when. */
static void word_bench(const struct est_note *n, char *out, size_t len)
{
	char date[32] = "", what[128] = "";
	time_t t = (time_t)n->at;
	struct tm tm;

	if (!(n->at > 0 && gmtime_r(&t, &tm) && strftime(date, sizeof(date), "%Y-%m-%d", &tm)))
		snprintf(date, sizeof(date), "%s", _("an unknown date"));
	if (n->flops > 0 && n->bw > 0)
		snprintf(what, sizeof(what), _("GEMM %.0f TFLOPS and %.0f GB/s"), n->flops / 1e12, n->bw / 1e9);
	else if (n->flops > 0)
		snprintf(what, sizeof(what), _("GEMM %.0f TFLOPS"), n->flops / 1e12);
	else
		snprintf(what, sizeof(what), _("%.0f GB/s"), n->bw / 1e9);
	/* TRANSLATORS: GPU, what was measured, date */
	snprintf(out, len, _("time: %s measured by gpurent bench on %s: %s, not the datasheet's (MFU / %.2f, "
			     "decode share / %.2f)"), n->name, date, what, EST_BENCH_GEMM_SHARE, EST_BENCH_COPY_SHARE);
}

void est_word(const struct est_note *n, char *out, size_t len)
{
	const char *prec = workload_enum_name("precision", n->precision);
	char b[32];

	switch (n->code) {
	case EST_N_PRECISION:
		snprintf(out, len, _("precision %s: %s"), prec, kept_word(n->kept));
		break;
	case EST_N_IMAGE:
		if (n->given)
			snprintf(out, len, _("image %ldx%ld, micro-batch %ld"), n->length, n->length, n->micro_batch);
		else
			snprintf(out, len, _("image %ldx%ld (the model's), micro-batch %ld"), n->length, n->length,
				 n->micro_batch);
		break;
	case EST_N_SEQUENCE:
		if (n->given)
			snprintf(out, len, _("sequence length %ld, micro-batch %ld"), n->length, n->micro_batch);
		else
			snprintf(out, len, _("sequence length %ld (default), micro-batch %ld"), n->length,
				 n->micro_batch);
		break;
	case EST_N_OVERHEAD:
		units_fmt_bytes(n->bytes, b, sizeof(b));
		if (n->mech)
			/* formulas.md "The caching allocator's reserve" */
			snprintf(out, len, n->given ?
				 _("framework overhead: CUDA context %s (given) + caching-allocator reserve %.0f%% of "
				   "allocated, PyTorch's allocator replayed over %ld steps of %s tokens") :
				 _("framework overhead: CUDA context %s (default) + caching-allocator reserve %.0f%% of "
				   "allocated, PyTorch's allocator replayed over %ld steps of %s tokens"),
				 b, n->fraction * 100, n->length, n->name);
		else if (n->given)
			snprintf(out, len, _("framework overhead: CUDA context %s (given) + caching-allocator reserve "
					     "%.0f%% of allocated"), b, n->fraction * 100);
		else
			snprintf(out, len, _("framework overhead: CUDA context %s (default) + caching-allocator reserve "
					     "%.0f%% of allocated"), b, n->fraction * 100);
		break;
	case EST_N_ATTENTION:
		snprintf(out, len, _("attention: %s; dropout %.2g; %s"),
			 n->flash ? _("fused (flash), no s x s scores kept") : _("eager, s x s scores kept"),
			 n->dropout, n->ac == AC_SELECTIVE ? _("selective activation checkpointing") :
			 n->grad_ckpt ? _("gradient checkpointing on") : _("no gradient checkpointing"));
		break;
	case EST_N_NO_ACTIVATIONS:
		snprintf(out, len, "%s", _("activations not computed: only a parameter count is known (give a "
					   "preset or layers/hidden/heads)"));
		break;
	case EST_N_CNN_CHECKPOINTING:
		snprintf(out, len, "%s", _("gradient checkpointing on a CNN: assumed to halve kept activations"));
		break;
	case EST_N_TIME_MFU_GIVEN:
		/* TRANSLATORS: GPU, precision, peak TFLOPS, MFU */
		snprintf(out, len, _("time: %s %s peak %.0f TFLOPS x MFU %.2f (given)"), n->name, prec,
			 n->flops / 1e12, n->mfu);
		break;
	case EST_N_TIME_MFU_CNN:
		snprintf(out, len, _("time: %s %s peak %.0f TFLOPS x MFU %.2f (CNN on tensor cores: normalisation "
				     "and memory-bound layers dominate)"), n->name, prec, n->flops / 1e12, n->mfu);
		break;
	case EST_N_TIME_MFU_CLASS:
		snprintf(out, len, _("time: %s %s peak %.0f TFLOPS x MFU %.2f (default for its class)"), n->name,
			 prec, n->flops / 1e12, n->mfu);
		break;
	case EST_N_INFER_NEEDS_GPU:
		snprintf(out, len, "%s", _("inference time needs --gpu (decode is bound by memory bandwidth)"));
		break;
	case EST_N_DECODE:
		word_decode(n, out, len);
		break;
	case EST_N_DECODE_OVERHEAD:
		word_decode_overhead(n, out, len);
		break;
	case EST_N_DECODE_TP:
		/* TRANSLATORS: GPUs, microseconds, whose all-reduce, share of a token */
		snprintf(out, len, _("decode: tensor parallel over %ld GPUs waits on 2 all-reduces a layer, %.1f us "
				     "each (%s), %.0f%% of a token"), n->gpus, n->seconds * 1e6,
			 n->mech == EST_AR_TORCH ? _("torch.distributed, fitted to gpt-fast") :
			 n->mech == EST_AR_ENGINE_NVLINK ? _("the engine's custom all-reduce over NVLink") :
			 _("NCCL in a CUDA graph over PCIe"), n->share * 100);
		break;
	case EST_N_DECODE_LAYER_SPLIT:
		snprintf(out, len, _("decode: %s splits layers across the %ld GPUs (split-mode layer): they take "
				     "turns, no faster than one GPU, plus %.2f ms a token per hand-over"),
			 workload_enum_name("framework", n->framework), n->gpus, n->seconds * 1e3);
		break;
	case EST_N_TIME_MFU_PUBLISHED:
		snprintf(out, len, _("time: %s %s peak %.0f TFLOPS x MFU %.2f (%s)"), n->name, prec, n->flops / 1e12,
			 n->mfu, mfu_source_word(n->mech));
		break;
	case EST_N_BENCH_MEASURED:
		word_bench(n, out, len);
		break;
	case EST_N_FSDP_WRAP_CACHE: {
		char t[32], l[32];

		units_fmt_bytes(n->bytes, b, sizeof(b));
		units_fmt_bytes(n->taken, t, sizeof(t));
		units_fmt_bytes(n->left, l, sizeof(l));
		/* TRANSLATORS: the cache, what training takes back of it, what stays reserved */
		snprintf(out, len, _("FSDP1's wrap leaves %s of unsharded copies cached (two of the root unit and "
				     "of one layer); training's own tensors take back %s, %s stays reserved"), b, t, l);
		break;
	}
	case EST_N_QLORA_SLOWDOWN:
		/* TRANSLATORS: the factor */
		snprintf(out, len, _("time: x%.2f a step for the quantized base's dequantization (LitGPT's "
				     "published LoRA vs QLoRA step times)"), n->slowdown);
		break;
	case EST_N_FRAMEWORK_DEFAULTS:
		/* TRANSLATORS: the framework's name, then field=value pairs (not translated) */
		snprintf(out, len, _("defaults taken (%s; set a field to change it): %s"),
			 n->framework ? workload_enum_name("framework", n->framework) : _("no framework given"),
			 n->name);
		break;
		case EST_N_NO_KV_CACHE:
		snprintf(out, len, "%s", _("KV cache not computed: give a preset or layers/hidden/heads"));
		break;
	case EST_W_NO_TENSOR_RATE:
		snprintf(out, len, n->fp32 ? _("%s has no %s tensor throughput in data/gpus.csv; timed at its FP32 rate") :
			 _("%s has no %s tensor throughput in data/gpus.csv; timed at its FP16 rate"), n->name, prec);
		break;
	case EST_W_LONG_RUN:
	case EST_W_IMPLAUSIBLE:
		word_long_run(n, out, len);
		break;
	case EST_N_COMM_OVERLAP:
		units_fmt_duration(n->seconds, b, sizeof(b));
		if (n->overlap == EST_OVERLAP_ZERO3)
			/* TRANSLATORS: share of compute, slowdown, exposed time per step, its share */
			snprintf(out, len, _("overlap: ZeRO-3 gathers prefetched under each pass (%.0f%% of compute), "
					     "the first unhidden; compute %.0f%% slower beside them; exposed %s a step, "
					     "%.0f%% of it"), n->fraction * 100, n->slowdown * 100, b, n->share * 100);
		else
			snprintf(out, len, _("overlap: all-reduce in 25 MiB buckets under the last backward (%.0f%% of "
					     "compute), the last bucket unhidden; compute %.0f%% slower beside it; exposed "
					     "%s a step, %.0f%% of it"), n->fraction * 100, n->slowdown * 100, b,
				 n->share * 100);
		break;
	case EST_N_LOSS:
		word_loss(n, out, len);
		break;
	case EST_N_LOSS_MOMENT:
		word_loss_moment(n, out, len);
		break;
	case EST_W_ROPE_CONTEXT:
		snprintf(out, len, _("%ld tokens exceed %s's trained context of %ld: needs RoPE scaling, and "
				     "quality may drop"), n->length, n->name, n->max_positions);
		break;
	default:
		snprintf(out, len, "?");
		break;
	}
}

void est_word_link(const struct estimate *e, char *out, size_t len)
{
	static const char *const t[EST_LINK_COUNT] = {
		[EST_LINK_NONE] = "",
		[EST_LINK_NVLINK_BRIDGE] = N_("NVLink bridge"),
		[EST_LINK_NVLINK] = N_("NVLink"),
		[EST_LINK_INFINITY_FABRIC] = N_("Infinity Fabric"),
		[EST_LINK_ICI] = N_("ICI"),
		[EST_LINK_NVLINK_ASSUMED] = N_("NVLink (A100-class, no GPU given)"),
		[EST_LINK_ETHERNET] = N_("100 Gb/s Ethernet"),
		[EST_LINK_INFINIBAND] = N_("200 Gb/s InfiniBand HDR"),
		[EST_LINK_PCIE3] = N_("PCIe 3.0 x16"),
		[EST_LINK_PCIE4] = N_("PCIe 4.0 x16"),
		[EST_LINK_PCIE5] = N_("PCIe 5.0 x16"),
	};
	const char *what;

	if (!len)
		return;
	out[0] = '\0';
	if ((unsigned)e->link >= EST_LINK_COUNT || e->link == EST_LINK_NONE)
		return;
	what = _(t[e->link]);
	if (e->link_given)
		/* TRANSLATORS: the link, its bandwidth as given */
		snprintf(out, len, _("%s, %.1f GB/s given"), what,
			 (e->nodes > 1 ? e->intra_bw : e->link_bw) / 1e9);
	else
		/* TRANSLATORS: the link, the usable share, its peak per direction */
		snprintf(out, len, _("%s, %.0f%% of %.1f GB/s per direction"), what, e->link_efficiency * 100,
			 e->link_peak / 1e9);
}

void est_word_nodes(const struct estimate *e, char *out, size_t len)
{
	static const char *const t[] = {
		[EST_NODE_NONE] = "",
		[EST_NODE_GIVEN] = N_("node_bw given"),
		[EST_NODE_INFINIBAND] = N_("200 Gb/s InfiniBand HDR (interconnect), 65%"),
		[EST_NODE_ETHERNET] = N_("100 Gb/s Ethernet (interconnect), 65%"),
		[EST_NODE_ASSUMED] = N_("100 Gb/s, 65% (assumption: give node_bw)"),
	};

	if (!len)
		return;
	out[0] = '\0';
	if (e->nodes <= 1 || (unsigned)e->node_link >= ARRAY_SIZE(t))
		return;
	/* TRANSLATORS: nodes, the bandwidth between them and where it came
	 * from, the effective bandwidth of the two-level collective */
	snprintf(out, len, _("%ld nodes, %.1f GB/s between nodes (%s); %.1f GB/s for the whole collective"),
		 e->nodes, e->node_bw / 1e9, _(t[e->node_link]), e->link_bw / 1e9);
}
