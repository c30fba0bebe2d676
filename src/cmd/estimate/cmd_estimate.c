/*
 * cmd_estimate.c - `gpurent estimate [FILE] [--field value]... [--json]`:
 * read a workload, run the estimator, print a table or JSON.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/box/envcheck.h"
#include "core/estimate/estimate.h"
#include "core/model/framework.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "core/model/workload.h"
#include "kit/cmd.h"
#include "cmd/estimate/calib.h"
#include "kit/common.h"
#include "cmd/estimate/estwords.h"
#include "base/out.h"
#include "kit/wlargs.h"
#include "store/ledger.h"

static const char usage[] = N_(
	"usage: gpurent estimate [FILE.yaml] [--FIELD VALUE]... [--json]\n"
	"\n"
	"Estimate what a workload needs: GPU memory by component and which\n"
	"memory tiers it fits, run time from FLOPs, and whether multi-GPU\n"
	"communication dominates. Fields come from FILE (YAML, field: value)\n"
	"and from flags (--micro-batch 4 or --micro-batch=4); flags win.\n"
	"Booleans: --grad-checkpointing, --no-flash-attention.\n"
	"\n"
	"Fields (default in brackets):\n");

static void print_usage(FILE *f)
{
	fputs(_(usage), f);
	wlargs_print_fields(f);
	fputs(_("\nFramework defaults (--framework NAME; each overridable by its own field;\n"
	      "sources: docs/formulas.md \"Framework profiles\"):\n"), f);
	for (int i = 1; i < FW_COUNT; i++) {
		const struct fw_profile *p = fw_profile(i);
		if (p->serving) {
			fprintf(f, _("  %-11s %s: serving, CUDA graphs %s, prefill_chunk %ld%s"), p->name, msg_tr(p->what),
				p->compile ? "on" : "off", p->prefill_chunk,
				p->by_card ? (p->gpu_mem_util > 0 && i == FW_SGLANG ?
					      _(" (it and the share set by the card when one is given)") :
					      _(" (set by the card when one is given)")) : "");
			if (p->gpu_mem_util > 0)
				fprintf(f, _(", gpu_memory_utilization %.0f%% (the KV cache takes the rest)"),
					p->gpu_mem_util * 100);
			else
				fputs(_(", KV cache for the whole context up front"), f);
			if (p->kv_block > 0)
				fprintf(f, _(", KV block %ld token%s"), p->kv_block, p->kv_block == 1 ? "" : "s");
			fputs("\n", f);
			continue;
		}
		fprintf(f, _("  %-11s %s: loss %s"), p->name, msg_tr(p->what), workload_enum_name("loss", p->loss));
		if (p->loss == LOSS_CHUNKED && p->loss_chunk_tokens > 0)
			fprintf(f, _(" (%ld positions a chunk)"), p->loss_chunk_tokens);
		else if (p->loss == LOSS_CHUNKED)
			fprintf(f, _(" (%.0f chunks)"), p->loss_chunks);
		fprintf(f, _(", activation_checkpointing %s, optimizer_step %s, compile %s%s"),
			ac_names[p->ac], step_names[p->step], p->compile ? "on" : "off",
			p->quant_load == QLOAD_PREQUANTIZED ? _(", pre-quantized base (no 16-bit copy loading)") : "");
		if (p->prefetch_params > 0)
			fprintf(f, _(", ZeRO-3 prefetch %.0e and reduce bucket %.0e elements"), p->prefetch_params,
				p->reduce_bucket);
		else if (p->reduce_bytes > 0)
			fprintf(f, _(", sharded: one layer prefetched, gradients reduced in %s"),
				p->reduce_bytes == 4 ? "fp32" : "bf16");
		if (p->root_unsharded)
			fputs(_(", fsdp_root_gathered (zero 3: a decoder's embedding and lm_head held gathered to the end "
				"of backward)"), f);
		if (p->wrap_cache)
			fputs(_(", fsdp_wrap_cache (FSDP1's wrap leaves its unsharded copies cached)"), f);
		fputs("\n", f);
	}
	fputs(_("\n  --calibrate PROBE      use a recorded probe's memory and time (an id from\n"
	      "                         'gpurent ledger probes', or latest; docs/formulas.md\n"
	      "                         \"Calibrated by a probe\")\n"
	      "  --ledger PATH          the ledger --calibrate reads (default $GPURENT_LEDGER)\n"
	      "  --json                 machine-readable output (schema: docs/json.md)\n"
	      "\nExit status: 0 ok, 1 runtime failure, 2 bad input (one line names file:line: field).\n"
	      "Formulas and sources: docs/formulas.md. Accuracy: docs/accuracy.md.\n"), f);
}

/* --- rendering --- */

static const char *task_desc(const struct workload *w)
{
	switch (w->task) {
	case TASK_LORA: return _("LoRA fine-tune");
	case TASK_QLORA: return _("QLoRA fine-tune");
	case TASK_INFER: return _("inference");
	}
	return _("full training");
}

static void tier_examples(const struct gpu_db *gdb, double gb, char *out, size_t n)
{
	size_t used = 0, count = 0;

	out[0] = '\0';
	for (size_t i = 0; i < gdb->n && count < 4; i++) {
		const struct gpu_spec *g = &gdb->v[i];
		const char *name = g->aliases[0] ? g->aliases : g->name;
		size_t len = strcspn(name, "|");
		if (g->memory_bytes / 1e9 > gb + 0.5 || g->memory_bytes / 1e9 <= gb - 0.5 ||
		    g->cls == GPU_TPU)
			continue;
		if (used + len + 3 >= n)
			break;
		used += (size_t)snprintf(out + used, n - used, "%s%.*s", count ? ", " : "", (int)len, name);
		count++;
	}
}

/* label is marked N_(): translated here, padded to 28 columns of a terminal. */
static void row(const char *label, double bytes, const char *note)
{
	char b[32];
	const char *l = _(label);
	size_t w = out_width(l);

	if (bytes <= 0)
		return;
	printf("  %s%*s %12s   %s\n", l, w < 28 ? (int)(28 - w) : 0, "", units_fmt_bytes(bytes, b, sizeof(b)), note);
}

/* The calibration's lines (formulas.md "Calibrated by a probe"). */
static void render_calib(const struct calib *c, const struct gpu_spec *gpu, const struct estimate *e)
{
	char a[64], b[64], word[160], gesc[256];

	if (!c->p)
		return;
	printf(_("Calibrated by %s\n"), calib_word_probe(c, word, sizeof(word)));
	if (c->mem_skip == CALIB_OK || c->mem_skip == CALIB_SMALLER_CARD)
		printf(_("  memory per GPU: %s measured (NVML, CUDA context and allocator cache included); "
		       "the estimate's own %s\n"), units_fmt_bytes(c->mem_total, a, sizeof(a)),
		       units_fmt_bytes(c->est_total, b, sizeof(b)));
	if (c->mem_skip == CALIB_OK)
		printf(_("  fit: from the probe on cards of %.0f GB or more%s\n"),
		       c->probe_gpu->memory_bytes / 1e9, gpu ? _(", this card included") : "");
	else if (c->mem_skip == CALIB_SMALLER_CARD)
		printf(_("  fit on %s: the estimate's, not calibrated: %s\n"),
		       out_safe(gpu->name, strlen(gpu->name), gesc, sizeof(gesc)), calib_why(c->mem_skip));
	else
		printf(_("  memory: the estimate's: %s\n"), calib_why(c->mem_skip));
	if (c->p->mem_growth > 0 && c->mem_skip != CALIB_NO_MEMORY)
		printf(_("  ! memory grew %s a step while probed: the peak of a longer run may be higher\n"),
		       units_fmt_bytes(c->p->mem_growth, a, sizeof(a)));
	if (c->time_skip == CALIB_OK) {
		printf(_("  wall time: %s (the estimate's own %s); "), units_fmt_duration(c->wall_s, a, sizeof(a)),
		       units_fmt_duration(c->est_wall_s, b, sizeof(b)));
		if (c->memory_bound)
			printf(_("decode is bandwidth-bound: the probe's %.0f tokens/s%s"), c->p->units_per_s,
			       c->scale != 1 ? _(" scaled by the ratio of memory bandwidths") : "");
		else
			printf(_("the probe's MFU %.1f%% (the estimate's %.1f%%)%s"), c->mfu * 100, c->est_mfu * 100,
			       c->scale != 1 ? _(" at this card's dense peak: scaled by the ratio of dense TFLOPS") : "");
		if (c->scale != 1)
			printf(", x%.2f", c->scale);
		printf("\n");
	} else {
		printf(_("  time: the estimate's: %s\n"), calib_why(c->time_skip));
	}
	(void)e;
	printf("\n");
}

static void render_table(const struct workload *w, const struct model_spec *m,
			 const struct gpu_spec *gpu, const struct gpu_db *gdb,
			 const struct estimate *e, const struct calib *cal)
{
	char a[64], b[64], c[64], note[200], words[EST_WARNING_MAX];
	const char *prec = workload_enum_name("precision", w->precision);

	char mesc[4 * sizeof(m->name)];

	printf(_("gpurent estimate: %s, %s, %s"), out_safe(m->name, strlen(m->name), mesc, sizeof(mesc)),
	       task_desc(w), prec);
	if (m->kind == MODEL_RESNET || m->kind == MODEL_VIT)
		printf(_(", micro-batch %ld x %ldx%ld images"), w->micro_batch, w->image_size, w->image_size);
	else if (w->task == TASK_INFER && m->kind == MODEL_DECODER)
		printf(_(", context %ld x %ld sequence(s)"), w->context, w->concurrency);
	else
		printf(_(", micro-batch %ld x seq %ld"), w->micro_batch, w->seq);
	printf(_(", %ld GPU%s\n"), w->gpus, w->gpus > 1 ? "s" : "");
	printf(_("model: %s parameters"), units_fmt_count(e->params, a, sizeof(a)));
	if (e->params_active < e->params)
		printf(_(" (%s active per token)"), units_fmt_count(e->params_active, b, sizeof(b)));
	if (w->task != TASK_INFER)
		printf(_(", %s trainable"), units_fmt_count(e->params_trainable, c, sizeof(c)));
	printf("  [%s]\n\n", m->kind == MODEL_PARAMS_ONLY ? _("given") : model_kind_name(m->kind));

	printf(_("Memory per GPU\n"));
	if (w->task == TASK_TRAIN) {
		snprintf(note, sizeof(note), _("%s B/param%s"), w->precision == PREC_FP32 ? "4" : "2",
			 w->zero >= 3 ? _(", ZeRO-3 sharded") : "");
		row(N_("weights"), e->mem.weights, note);
		if (w->optimizer_step == STEP_IN_BWD)
			snprintf(note, sizeof(note), _("one tensor's at a time: the step runs in backward (in_bwd)"));
		else
			snprintf(note, sizeof(note), _("%s B/param%s"), w->precision == PREC_FP32 ? "4" : "2",
				 w->zero >= 2 ? _(", ZeRO-2 sharded") : "");
		row(N_("gradients"), e->mem.gradients, note);
		snprintf(note, sizeof(note), _("%s%s%s"), workload_enum_name("optimizer", w->optimizer),
			 (w->precision == PREC_AMP || w->precision == PREC_BF16 || w->precision == PREC_FP16) ?
			 _(" + fp32 master weights") : "", w->zero >= 1 ? _(", ZeRO-1 sharded") : "");
		row(N_("optimizer states"), e->mem.optimizer, note);
	} else if (w->task == TASK_INFER) {
		snprintf(note, sizeof(note), _("%ld-bit%s"), w->quant_bits == 16 ?
			 (w->precision == PREC_FP32 ? 32 : 16) : w->quant_bits,
			 w->gpus > 1 ? _(", split over the GPUs") : "");
		row(N_("weights"), e->mem.weights, note);
	} else {
		snprintf(note, sizeof(note), _("frozen, %s"), w->quant_bits < 16 ?
			 (w->quant_bits == 4 ? _("NF4 linear layers, rest 16-bit") : _("int8 linear layers, rest 16-bit")) :
			 (w->precision == PREC_FP32 ? "fp32" : _("16-bit")));
		row(N_("base weights"), e->mem.weights, note);
		snprintf(note, sizeof(note), _("r=%ld on %s: %s params + grads + %s"), w->lora_rank,
			 w->lora_targets, units_fmt_count(e->lora_params, a, sizeof(a)),
			 workload_enum_name("optimizer", w->optimizer));
		row(N_("LoRA adapters"), e->mem.adapters, note);
	}
	row(N_("quantization constants"), e->mem.quant_consts, _("per-block scales"));
	if (w->task == TASK_INFER)
		snprintf(note, sizeof(note), _("transient, one layer at a time"));
	else if (m->kind == MODEL_RESNET)
		snprintf(note, sizeof(note), _("kept for backward: conv, BN/ReLU outputs, max-pool indices%s"),
			 w->grad_checkpointing ? _(", checkpointed") : "");
	else
		snprintf(note, sizeof(note), _("%s%s%s%s"),
			 w->activation_checkpointing == AC_FULL ?
			 (w->activation_offloading ? _("layer inputs in host memory + one layer (recompute)") :
			  _("layer inputs + one layer (recompute)")) :
			 w->activation_checkpointing == AC_SELECTIVE ?
			 (fw_profile(w->framework)->sac_op ? _("selective by op: every other matmul + attention kept") :
			  _("selective: attention core recomputed")) : _("kept for backward"),
			 w->flash_attention ? _(", flash attention") : _(", s x s scores stored"),
			 w->dropout > 0 ? _(", dropout masks") : "", w->compile ? _(", compiled") : "");
	row(N_("activations"), e->mem.activations, note);
	row(N_("logits / loss buffer"), e->mem.logits, w->task == TASK_INFER ? _("last position, fp32") :
	    e->loss.loss == LOSS_CHUNKED ? _("logits + one chunk's fp32 log-softmax + gradient") :
	    e->loss.loss == LOSS_FUSED && e->loss.chunks > 1 ? _("one chunk of logits + the hidden gradient") :
	    e->loss.loss == LOSS_FUSED ? _("logits, gradient in place (fused)") :
	    _("logits + fp32 log-softmax + its gradient"));
	if (e->mem.kv_cache > 0) {
		snprintf(note, sizeof(note), _("%.3g MiB/token x %ld tokens x %ld seq%s"),
			 e->kv_per_token / 1048576.0, w->context, w->concurrency,
			 w->gpus > 1 ? _(", split over the GPUs") : "");
		row(N_("KV cache"), e->mem.kv_cache, note);
	}
	if (e->mem.sharding > 0) {
		char k[32];

		/* whole sentences, each translated as one (shard_kept is
		 * DeepSpeed's, shard_root FSDP's: never both) */
		units_fmt_bytes(e->shard_gathered, a, sizeof(a));
		units_fmt_bytes(e->shard_reduce, b, sizeof(b));
		if (e->shard_kept > 0)
			snprintf(note, sizeof(note),
				 _("unsharded: %s gathered in flight + %s of gradients to reduce + %s of gathered weights "
				   "torch's linear keeps for backward (memory_efficient_linear false)"),
				 a, b, units_fmt_bytes(e->shard_kept, k, sizeof(k)));
		else if (e->shard_root > 0)
			snprintf(note, sizeof(note),
				 _("unsharded: %s gathered (the root unit's embedding and lm_head, %s, held to the end of "
				   "backward, and the layers in flight) + %s of gradients to reduce"),
				 a, units_fmt_bytes(e->shard_root, k, sizeof(k)), b);
		else
			snprintf(note, sizeof(note), _("unsharded: %s gathered in flight + %s of gradients to reduce"), a, b);
		row(N_("sharding buffers"), e->mem.sharding, note);
	}
	if (e->mem.quant_saved > 0)
		row(N_("4-bit input copies"), e->mem.quant_saved,
		    _("kept for backward by bitsandbytes <= 0.43.1: each quantized linear's input, 16-bit"));
	if (e->mem.int8_saved > 0)
		row(N_("int8 input copies"), e->mem.int8_saved, _("kept for backward: each int8 linear's input, 1 B"));
	if (e->mem.dequant > 0)
		row(N_("dequantized weight"), e->mem.dequant, _("forward/backward: 16-bit copy of the largest linear"));
	printf("  %-28s %12s\n", "", "------------");
	if (e->mem.step_peak > 0)
		row(N_("optimizer step peak"), e->mem.step_peak, _("model states + foreach AdamW sqrt(v) copy, activations freed"));
	if (e->mem.load_peak > 0)
		row(N_("loading peak"), e->mem.load_peak, _("quantized weights + the 16-bit weight being quantized"));
	row(N_("allocated (framework peak)"), e->mem.allocated,
	    e->mem.peak_phase == EST_PHASE_STEP ? _("torch.cuda.max_memory_allocated, in the optimizer step") :
	    e->mem.peak_phase == EST_PHASE_LOAD ? _("torch.cuda.max_memory_allocated, while loading") :
	    _("torch.cuda.max_memory_allocated, in forward/backward"));
	if (e->mem.wrap_left > 0)
		snprintf(note, sizeof(note), _("%.0f%% of allocated + %s of the %s FSDP's wrap left cached"),
			 w->alloc_overhead * 100, units_fmt_bytes(e->mem.wrap_left, a, sizeof(a)),
			 units_fmt_bytes(e->mem.wrap_cache, b, sizeof(b)));
	else
		snprintf(note, sizeof(note), _("%.0f%% of allocated"), w->alloc_overhead * 100);
	row(N_("allocator reserve"), e->mem.allocator, note);
	row(N_("CUDA context"), e->mem.context, _("driver, kernels, library workspaces"));
	row(N_("total per GPU"), e->mem.total, e->mem.reserved_share > 0 ?
	    _("what the job needs; must fit in the engine's share below") : _("what nvidia-smi shows; must fit"));
	if (e->mem.reserved_share > 0) {
		if (e->mem.reserved_free >= 0)
			snprintf(note, sizeof(note), _("%s reserves %.0f%% of the card at start (nvidia-smi shows it); "
				 "%s of it left for more KV cache"), fw_profile(w->framework)->name,
				 e->mem.reserved_share * 100, units_fmt_bytes(e->mem.reserved_free, a, sizeof(a)));
		else
			snprintf(note, sizeof(note), _("%s reserves %.0f%% of the card: %s short of the need, it will "
				 "not start (raise gpu_memory_utilization)"), fw_profile(w->framework)->name,
				 e->mem.reserved_share * 100, units_fmt_bytes(-e->mem.reserved_free, a, sizeof(a)));
		row(N_("reserved by the engine"), e->mem.reserved, note);
	}
	printf("\n");

	printf(_("Fits (memory tier: used share)\n  "));
	for (int i = 0; i < EST_NTIERS; i++)
		printf("%s%.0f GB %s %.0f%%", i ? " | " : "", e->tiers[i].gb,
		       e->tiers[i].fits ? _("yes") : _("no"), e->tiers[i].used * 100);
	printf("\n");
	if (e->recommended >= 0) {
		tier_examples(gdb, e->tiers[e->recommended].gb, a, sizeof(a));
		printf(_("Recommended: %.0f GB tier%s%s%s (smallest with %.0f%% headroom)\n"),
		       e->tiers[e->recommended].gb, a[0] ? " (" : "", a, a[0] ? ")" : "",
		       w->headroom * 100);
	} else {
		printf(_("Recommended: none - it does not fit a single %.0f GB card with %.0f%% headroom"),
		       est_tiers_gb[EST_NTIERS - 1], w->headroom * 100);
		if (e->zero3_gpus_for_80)
			printf(_("; with ZeRO-3%s over %d GPUs it fits 80 GB cards (--zero 3 --gpus %d%s)"),
			       e->zero3_needs_ckpt ? _(" and gradient checkpointing") : "",
			       e->zero3_gpus_for_80, e->zero3_gpus_for_80,
			       e->zero3_needs_ckpt ? _(" --grad-checkpointing") : "");
		printf("\n");
	}
	if (gpu)
		printf(_("On %s (%s): %s, %.0f%% used\n"), out_safe(gpu->name, strlen(gpu->name), mesc, sizeof(mesc)),
		       units_fmt_bytes(gpu->memory_bytes, a, sizeof(a)),
		       e->gpu_fits ? _("fits") : _("DOES NOT FIT"), e->gpu_used * 100);
	printf("\n");

	printf(_("Time\n"));
	if (e->flops_per_unit > 0)
		printf(_("  FLOPs per %s: %s\n"), e->work_is_samples ? _("sample") : _("token"),
		       units_fmt_flops(e->flops_per_unit, a, sizeof(a)));
	if (e->have_time) {
		printf(_("  %s: %s, total %s FLOPs\n"), e->work_is_samples ? _("samples") : _("tokens"),
		       units_fmt_flops(e->work, a, sizeof(a)), units_fmt_flops(e->flops_total, b, sizeof(b)));
		if (e->eff_flops > 0)
			printf(_("  effective per GPU: %.1f TFLOPS%s\n"), e->eff_flops / 1e12,
			       e->mfu > 0 ? "" : _(" (given)"));
		if (w->task == TASK_INFER) {
			printf(_("  decode: %.0f tokens/s; prefill %s; decode %s\n"), e->decode_tokens_per_second,
			       units_fmt_duration(e->prefill_seconds, a, sizeof(a)),
			       units_fmt_duration(e->decode_seconds, b, sizeof(b)));
			printf(_("  decode step: %.2f ms = bytes %.2f ms at %.0f%% of bandwidth"), e->decode_step_seconds * 1e3,
			       e->decode_bytes_seconds * 1e3, e->decode_bw_efficiency * 100);
			if (e->decode_comm_seconds > 0)
				printf(" + %s %.2f ms", e->decode_layer_split ? _("hand-overs") : _("all-reduces"),
				       e->decode_comm_seconds * 1e3);
			if (e->decode_overhead_seconds > 0)
				printf(_(" + per-layer overhead %.2f ms"), e->decode_overhead_seconds * 1e3);
			printf("\n");
		}
		if (e->bench_used)
			printf(_("  measured by gpurent bench: %s\n"),
			       e->bench_flops > 0 && e->bench_bw > 0 ? _("GEMM and bandwidth") :
			       e->bench_flops > 0 ? _("GEMM") : _("bandwidth"));
		printf(_("  wall time: %s on %ld GPU%s = %.1f GPU-hours\n"),
		       units_fmt_duration(e->wall_seconds, a, sizeof(a)), w->gpus,
		       w->gpus > 1 ? "s" : "", e->gpu_hours);
		if (e->comm_exposed_seconds > 0)
			printf(_("  of which exposed communication: %s (%.0f%% of each step)\n"),
			       units_fmt_duration(e->steps * e->comm_exposed_seconds, b, sizeof(b)),
			       e->comm_share * 100);
	} else if (e->work <= 0) {
		printf(_("  not computed: give tokens (or samples) and a gpu or tflops\n"));
	} else {
		printf(_("  not computed: give a gpu or tflops\n"));
	}
	printf("\n");

	render_calib(cal, gpu, e);
	printf(_("Communication\n"));
	if (!e->have_comm) {
		printf(_("  none: %s\n"), w->task != TASK_INFER ? _("single GPU") :
		       w->gpus > 1 ? _("no gradients to exchange (a tensor-parallel decode's all-reduces are in "
				     "its step above)") : _("single GPU"));
	} else {
		est_word_link(e, words, EST_LINK_MAX);
		printf(_("  per step: %s over %s -> %s\n"), units_fmt_bytes(e->comm_bytes, a, sizeof(a)),
		       words, units_fmt_duration(e->comm_seconds, b, sizeof(b)));
		if (e->nodes > 1) {
			char nw[EST_NODES_MAX];
			est_word_nodes(e, nw, sizeof(nw));
			printf(_("  across %s\n"), nw);
		}
		if (e->step_compute_seconds > 0) {
			printf(_("  compute per step: %s; communication / compute = %.2f -> %s\n"),
			       units_fmt_duration(e->step_compute_seconds, c, sizeof(c)), e->comm_ratio,
			       !e->comm_bound ? _("compute-bound") : e->overlap == EST_OVERLAP_ZERO3 ?
			       _("COMMUNICATION-BOUND: more GPUs will not help; use fewer GPUs, a faster link, or larger micro-batches (micro_batch)") :
			       _("COMMUNICATION-BOUND: more GPUs will not help; use fewer GPUs, a faster link, or larger steps (grad_accum)"));
			printf(_("  exposed per step: %s, %.0f%% of the step (overlap under %.0f%% of the compute)\n"),
			       units_fmt_duration(e->comm_exposed_seconds, a, sizeof(a)), e->comm_share * 100,
			       e->overlap_fraction * 100);
		}
	}
	printf(_("\nAssumptions\n"));
	for (int i = 0; i < e->nassumptions; i++) {
		est_word(&e->assumptions[i], words, EST_NOTE_MAX);
		printf("  - %s\n", words);
	}
	if (cal->p) {
		char word[160];
		printf(_("  - calibrated by %s: %s%s%s\n"), calib_word_probe(cal, word, sizeof(word)),
		       cal->mem_skip == CALIB_OK ? _("memory fit") : "",
		       cal->mem_skip == CALIB_OK && cal->time_skip == CALIB_OK ? _(" and ") : "",
		       cal->time_skip == CALIB_OK ? _("wall time") :
		       cal->mem_skip == CALIB_OK ? "" : _("no figure (see above)"));
	}
	if (e->nwarnings) {
		printf(_("\nWarnings\n"));
		for (int i = 0; i < e->nwarnings; i++) {
			est_word(&e->warnings[i], words, EST_WARNING_MAX);
			printf("  ! %s\n", words);
		}
	}
}

static void json_calib(struct json *j, const struct calib *c)
{
	char buf[32];

	if (!c->p) {
		json_null(j, "calibration");
		return;
	}
	json_obj_begin(j, "calibration");
	json_num(j, "probe_id", (double)c->p->id);
	json_num(j, "probe_taken_unix_seconds", c->p->at);
	json_str(j, "probe_gpu", c->p->gpu ? c->p->gpu : "");
	json_int(j, "probe_gpu_count", c->p->gpu_count);
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)c->p->workload_digest);
	json_str(j, "probe_workload_digest", c->p->workload_digest ? buf : "");
	json_bool(j, "workload_differs", c->digest_differs);
	json_bool(j, "memory_calibrated", c->mem_skip == CALIB_OK);
	json_str(j, "memory_code", calib_code(c->mem_skip));
	json_num(j, "memory_total_bytes", c->mem_total);
	json_num(j, "estimate_total_bytes", c->est_total);
	json_num(j, "probe_memory_growth_bytes_per_step", c->p->mem_growth > 0 ? c->p->mem_growth : 0);
	json_bool(j, "time_calibrated", c->time_skip == CALIB_OK);
	json_str(j, "time_code", calib_code(c->time_skip));
	json_str(j, "time_bound", c->memory_bound ? "memory" : "compute");
	json_num(j, "time_scale", c->time_skip == CALIB_OK ? c->scale : 0);
	json_num(j, "probe_mfu_fraction", c->mfu);
	json_num(j, "estimate_mfu_fraction", c->est_mfu);
	json_num(j, "wall_seconds", c->time_skip == CALIB_OK ? c->wall_s : 0);
	json_num(j, "estimate_wall_seconds", c->est_wall_s);
	json_obj_end(j);
}

static void render_json(const struct workload *w, const struct model_spec *m,
			const struct gpu_spec *gpu, const struct estimate *e, const struct calib *cal)
{
	struct json j;
	char words[EST_WARNING_MAX];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.estimate/1");
	json_obj_begin(&j, "model");
	json_str(&j, "name", m->name);
	json_str(&j, "kind", m->kind == MODEL_PARAMS_ONLY ? "params-only" : model_kind_name(m->kind));
	json_num(&j, "params", e->params);
	json_num(&j, "params_active", e->params_active);
	json_num(&j, "params_trainable", e->params_trainable);
	json_num(&j, "lora_params", e->lora_params);
	json_str(&j, "source", m->source);
	json_obj_end(&j);

	json_obj_begin(&j, "workload");
	json_str(&j, "task", workload_enum_name("task", w->task));
	json_str(&j, "precision", workload_enum_name("precision", w->precision));
	json_str(&j, "optimizer", workload_enum_name("optimizer", w->optimizer));
	json_int(&j, "zero", w->zero);
	json_int(&j, "gpus", w->gpus);
	json_int(&j, "micro_batch", w->micro_batch);
	json_int(&j, "seq", w->seq);
	json_int(&j, "image_size", w->image_size);
	json_int(&j, "grad_accum", w->grad_accum);
	json_bool(&j, "grad_checkpointing", w->grad_checkpointing);
	json_bool(&j, "flash_attention", w->flash_attention);
	json_num(&j, "dropout", w->dropout);
	json_int(&j, "lora_rank", w->lora_rank);
	json_str(&j, "lora_targets", w->lora_targets);
	json_int(&j, "quant_bits", w->quant_bits);
	json_int(&j, "context", w->context);
	json_int(&j, "concurrency", w->concurrency);
	json_str(&j, "kv_dtype", workload_enum_name("kv_dtype", w->kv_dtype));
	json_str(&j, "framework", workload_enum_name("framework", w->framework));
	json_str(&j, "activation_checkpointing", ac_names[w->activation_checkpointing]);
	json_str(&j, "optimizer_step", step_names[w->optimizer_step]);
	json_bool(&j, "compile", w->compile);
	json_bool(&j, "activation_offloading", w->activation_offloading);
	json_num(&j, "prefill_chunk", (double)w->prefill_chunk);
	json_num(&j, "gpu_memory_utilization_fraction", w->gpu_memory_utilization);
	/* the loss in effect (the framework's when not given); full outside decoder training */
	json_str(&j, "loss", workload_enum_name("loss", e->loss.loss));
	json_str(&j, "gpu", gpu ? gpu->name : "");
	{
		char dg[32];
		snprintf(dg, sizeof(dg), "%016llx", (unsigned long long)workload_digest(w));
		json_str(&j, "digest", dg);   /* what a probe of it records (formulas.md) */
	}
	json_obj_end(&j);

	json_obj_begin(&j, "memory");
	json_num(&j, "weights_bytes", e->mem.weights);
	json_num(&j, "gradients_bytes", e->mem.gradients);
	json_num(&j, "optimizer_bytes", e->mem.optimizer);
	json_num(&j, "adapters_bytes", e->mem.adapters);
	json_num(&j, "quant_consts_bytes", e->mem.quant_consts);
	json_num(&j, "activations_bytes", e->mem.activations);
	json_num(&j, "logits_bytes", e->mem.logits);
	json_num(&j, "kv_cache_bytes", e->mem.kv_cache);
	json_num(&j, "kv_cache_per_token_bytes", e->kv_per_token);
	json_num(&j, "sharding_bytes", e->mem.sharding);
	json_num(&j, "shard_gathered_bytes", e->shard_gathered);
	json_num(&j, "shard_reduce_bytes", e->shard_reduce);
	json_num(&j, "shard_kept_bytes", e->shard_kept);
	json_num(&j, "shard_root_bytes", e->shard_root);
	json_num(&j, "wrap_cache_bytes", e->mem.wrap_cache);
	json_num(&j, "wrap_left_bytes", e->mem.wrap_left);
	json_num(&j, "dequant_bytes", e->mem.dequant);
	json_num(&j, "int8_saved_bytes", e->mem.int8_saved);
	json_num(&j, "quant_saved_bytes", e->mem.quant_saved);
	json_num(&j, "step_temp_bytes", e->mem.step_temp);
	json_num(&j, "train_peak_bytes", e->mem.train_peak);
	json_num(&j, "step_peak_bytes", e->mem.step_peak);
	json_num(&j, "load_peak_bytes", e->mem.load_peak);
	json_str(&j, "peak_phase", e->mem.peak_phase == EST_PHASE_STEP ? "step" :
		 e->mem.peak_phase == EST_PHASE_LOAD ? "load" : "train");
	json_num(&j, "allocated_bytes", e->mem.allocated);
	json_num(&j, "allocator_reserve_bytes", e->mem.allocator);
	json_num(&j, "cuda_context_bytes", e->mem.context);
	json_num(&j, "total_bytes", e->mem.total);
	json_num(&j, "reserved_fraction", e->mem.reserved_share);
	json_num(&j, "reserved_bytes", e->mem.reserved);
	json_num(&j, "reserved_free_bytes", e->mem.reserved_free);
	json_obj_end(&j);

	json_obj_begin(&j, "fit");
	json_arr_begin(&j, "tiers");
	for (int i = 0; i < EST_NTIERS; i++) {
		json_obj_begin(&j, NULL);
		json_num(&j, "tier_gb", e->tiers[i].gb);
		json_num(&j, "capacity_bytes", e->tiers[i].gb * 1e9);
		json_bool(&j, "fits", e->tiers[i].fits);
		json_num(&j, "used_fraction", e->tiers[i].used);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (e->recommended >= 0)
		json_num(&j, "recommended_tier_gb", e->tiers[e->recommended].gb);
	else
		json_null(&j, "recommended_tier_gb");
	json_num(&j, "headroom_fraction", w->headroom);
	json_int(&j, "zero3_gpus_for_80gb", e->zero3_gpus_for_80);
	json_bool(&j, "zero3_needs_grad_checkpointing", e->zero3_needs_ckpt);
	if (gpu) {
		json_num(&j, "gpu_memory_bytes", gpu->memory_bytes);
		json_bool(&j, "gpu_fits", e->gpu_fits);
		json_num(&j, "gpu_used_fraction", e->gpu_used);
	}
	json_obj_end(&j);

	json_obj_begin(&j, "time");
	json_bool(&j, "computed", e->have_time);
	json_str(&j, "unit", e->work_is_samples ? "sample" : "token");
	json_num(&j, "work_units", e->work);
	json_num(&j, "per_unit_flops", e->flops_per_unit);
	json_num(&j, "total_flops", e->flops_total);
	json_num(&j, "peak_flops_per_second", e->peak_flops);
	json_num(&j, "mfu", e->mfu);
	json_num(&j, "effective_flops_per_second", e->eff_flops);
	json_num(&j, "compute_seconds", e->compute_seconds);
	json_num(&j, "prefill_seconds", e->prefill_seconds);
	json_num(&j, "decode_seconds", e->decode_seconds);
	json_num(&j, "decode_tokens_per_second", e->decode_tokens_per_second);
	json_num(&j, "decode_step_seconds", e->decode_step_seconds);
	json_num(&j, "decode_bytes_seconds", e->decode_bytes_seconds);
	json_num(&j, "decode_bandwidth_fraction", e->decode_bw_efficiency);
	json_num(&j, "decode_overhead_seconds", e->decode_overhead_seconds);
	json_num(&j, "decode_comm_seconds", e->decode_comm_seconds);
	json_bool(&j, "decode_layer_split", e->decode_layer_split);
	json_bool(&j, "bench_measured", e->bench_used);
	json_num(&j, "bench_at_unix_seconds", e->bench_at);
	json_num(&j, "bench_gemm_flops_per_second", e->bench_flops);
	json_num(&j, "bench_bytes_per_second", e->bench_bw);
	json_num(&j, "wall_seconds", e->wall_seconds);
	json_num(&j, "comm_exposed_seconds", e->steps * e->comm_exposed_seconds);
	json_num(&j, "gpu_hours", e->gpu_hours);
	json_obj_end(&j);

	json_obj_begin(&j, "communication");
	json_bool(&j, "computed", e->have_comm);
	json_num(&j, "steps", e->steps);
	json_num(&j, "per_step_bytes", e->comm_bytes);
	json_num(&j, "link_bytes_per_second", e->link_bw);
	json_str(&j, "link_code", est_link_name(e->link));
	est_word_link(e, words, EST_LINK_MAX);
	json_str(&j, "link", words);
	json_num(&j, "nodes", (double)e->nodes);
	json_num(&j, "node_bytes_per_second", e->nodes > 1 ? e->node_bw : 0);
	json_str(&j, "node_link_code", est_node_link_name(e->node_link));
	json_num(&j, "comm_per_step_seconds", e->comm_seconds);
	json_num(&j, "compute_per_step_seconds", e->step_compute_seconds);
	json_num(&j, "ratio", e->comm_ratio);
	json_str(&j, "overlap", est_overlap_name(e->overlap));
	json_num(&j, "overlap_fraction", e->overlap_fraction);
	json_num(&j, "overlap_slowdown_fraction", e->overlap_slowdown);
	json_num(&j, "comm_exposed_seconds", e->comm_exposed_seconds);
	json_num(&j, "comm_share_fraction", e->comm_share);
	json_str(&j, "verdict", !e->have_comm ? "none" : e->comm_bound ? "communication-bound" : "compute-bound");
	json_obj_end(&j);

	json_calib(&j, cal);
	json_arr_begin(&j, "assumption_codes");
	for (int i = 0; i < e->nassumptions; i++)
		json_str(&j, NULL, est_code_name(e->assumptions[i].code));
	json_arr_end(&j);
	json_arr_begin(&j, "assumptions");
	for (int i = 0; i < e->nassumptions; i++) {
		est_word(&e->assumptions[i], words, EST_NOTE_MAX);
		json_str(&j, NULL, words);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "warning_codes");
	for (int i = 0; i < e->nwarnings; i++)
		json_str(&j, NULL, est_code_name(e->warnings[i].code));
	json_arr_end(&j);
	json_arr_begin(&j, "warnings");
	for (int i = 0; i < e->nwarnings; i++) {
		est_word(&e->warnings[i], words, EST_WARNING_MAX);
		json_str(&j, NULL, words);
	}
	json_arr_end(&j);
	json_obj_end(&j);
}

/*
 * formulas.md "Measured by gpurent bench": the newest 16-bit GEMM
 * (gemm_bf16, else gemm_fp16; none for fp32 work) and device-copy
 * (d2d_copy) records of gpu in the default ledger ($GPURENT_LEDGER, read
 * only when it exists: none is created) into *b. False when there are none.
 */
static bool bench_figures(const struct gpu_db *gdb, const struct gpu_spec *gpu, int precision,
			  struct est_bench *b)
{
	char path[4096], err[256];
	struct ledger *l = NULL;
	struct ledger_bench_rows rows = {0};
	double bf16 = 0, fp16 = 0, at_bf16 = 0, at_fp16 = 0, at_copy = 0;

	memset(b, 0, sizeof(*b));
	if (!gpu || ledger_default_path(path, sizeof(path), err, sizeof(err)) || access(path, R_OK))
		return false;
	if (ledger_open_readonly(path, &l, err, sizeof(err)))
		goto out;
	if (ledger_bench_list(l, 0, &rows, err, sizeof(err)))
		goto out;
	/* oldest first: the last record of each test wins */
	for (size_t i = 0; i < rows.n; i++) {
		const struct ledger_bench *r = &rows.v[i];
		const struct gpu_spec *s = r->gpu ? envcheck_find_gpu(gdb, r->gpu, 0) : NULL;
		if (!s || strcmp(s->name, gpu->name) || !(r->value > 0) || !isfinite(r->value))
			continue;
		/* a figure beyond the datasheet's (or under 1% of it) is not a
		 * measurement of this card: skipped */
		{
			bool copy = !strcmp(r->test, "d2d_copy");
			double v = r->value * (copy ? 1e9 : 1e12);
			double sheet = copy ? gpu->mem_bw : fmax(gpu->bf16_flops, gpu->fp16_flops);
			if (sheet > 0 && !(v <= 1.2 * sheet && v >= 0.01 * sheet))
				continue;
		}
		if (!strcmp(r->test, "gemm_bf16") && !strcmp(r->unit, "TFLOP/s")) {
			bf16 = r->value * 1e12;
			at_bf16 = r->at;
		} else if (!strcmp(r->test, "gemm_fp16") && !strcmp(r->unit, "TFLOP/s")) {
			fp16 = r->value * 1e12;
			at_fp16 = r->at;
		} else if (!strcmp(r->test, "d2d_copy") && !strcmp(r->unit, "GB/s")) {
			b->bw = r->value * 1e9;
			at_copy = r->at;
		}
	}
	if (precision != PREC_FP32) {
		b->gemm_flops = bf16 > 0 ? bf16 : fp16;
		b->at = bf16 > 0 ? at_bf16 : at_fp16;
	}
	if (b->bw > 0 && at_copy > b->at)
		b->at = at_copy;
	if (!(b->gemm_flops > 0))
		b->gemm_flops = 0;
out:
	ledger_bench_rows_free(&rows);
	ledger_close(l);
	return b->gemm_flops > 0 || b->bw > 0;
}

int cmd_estimate(int argc, char **argv)
{
	struct workload w;
	struct gpu_db gdb;
	struct model_db mdb;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct estimate e;
	struct est_bench bench;
	struct calib cal = {0};
	const char *file = NULL, *calibrate = NULL, *ledger = NULL;
	char err[512], key[64];
	bool json = false;
	int rc, bad;
	const struct opt own[] = {
		{.name = "calibrate", .type = OPT_STRING, .dest = &calibrate, .arg = "PROBE",
		 .help = N_("use a recorded probe's memory and time (an id, or latest)"), .example = "latest"},
		OPT_BOOL("json", &json, N_("print JSON")),
		{.name = "ledger", .type = OPT_FILE, .dest = &ledger, .arg = "PATH",
		 .help = N_("the ledger --calibrate reads"), .example = "/dev/null"},
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "estimate", .max_operands = -1,
				   .usage_fn = print_usage};

	workload_init(&w);
	if ((rc = wlargs_parse(&oc, own, argc, argv, &w, &file, NULL)) != OPT_GO)
		return rc;

	if ((rc = common_load_data(&gdb, &mdb)))
		return rc;
	if (workload_resolve(&w, &mdb, &gdb, &arch, &gpu, &bad, err, sizeof(err))) {
		rc = wlargs_field_error(file, &w, bad, err);
		goto out;
	}
	bench_figures(&gdb, gpu, w.precision, &bench);
	if (estimate_run_bench(&w, &arch, gpu, &bench, &e, err, sizeof(err))) {
		/* the message starts with the field to blame: "field: ..." */
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(err, ":"), err);
		bad = workload_field_index(key);
		rc = wlargs_field_error(file, &w, bad, err);
		goto out;
	}
	if (calibrate) {
		if ((rc = calib_load(ledger, calibrate, &gdb, &w, &cal)))
			goto out;
		calib_apply(&cal, &w, gpu, &e);
	}
	if (json)
		render_json(&w, &arch, gpu, &e, &cal);
	else
		render_table(&w, &arch, gpu, &gdb, &e, &cal);
	rc = msg_finish(EXIT_OK);
out:
	calib_free(&cal);
	gpu_db_free(&gdb);
	model_db_free(&mdb);
	return rc;
}
