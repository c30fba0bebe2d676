/*
 * esttable.c - the text table `gpurent estimate` prints: memory per GPU by
 * component, the tiers it fits, time, communication, assumptions and warnings.
 */
#include "cmd/estimate/estout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/model/framework.h"
#include "core/text/units.h"
#include "cmd/estimate/estwords.h"
#include "base/i18n.h"
#include "base/out.h"

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

/* The title and the model's line. */
static void table_head(const struct workload *w, const struct model_spec *m, const struct estimate *e)
{
	char a[64], b[64], c[64];
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
}

/* Memory: the model states, by task. */
static void table_states(const struct workload *w, const struct estimate *e)
{
	char a[64], note[200];

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
		if (w->quant_bits < 16 && w->quant_format >= QF_GPTQ)
			/* TRANSLATORS: the format's name (gptq, q4_k, ...), its bits */
			snprintf(note, sizeof(note), _("frozen, %s %ld-bit linear layers, rest 16-bit"),
				 workload_enum_name("quant_format", w->quant_format), w->quant_bits);
		else
			snprintf(note, sizeof(note), _("frozen, %s"), w->quant_bits < 16 ?
				 (w->quant_bits == 4 ? _("NF4 linear layers, rest 16-bit") :
				  _("int8 linear layers, rest 16-bit")) :
				 (w->precision == PREC_FP32 ? "fp32" : _("16-bit")));
		row(N_("base weights"), e->mem.weights, note);
		snprintf(note, sizeof(note), _("r=%ld on %s: %s params + grads + %s"), w->lora_rank,
			 w->lora_targets, units_fmt_count(e->lora_params, a, sizeof(a)),
			 workload_enum_name("optimizer", w->optimizer));
		row(N_("LoRA adapters"), e->mem.adapters, note);
	}
}

/* Memory: what the passes and the sharding hold beside the states. */
static void table_buffers(const struct workload *w, const struct model_spec *m, const struct estimate *e)
{
	char a[64], b[64], note[200];

	row(N_("quantization constants"), e->mem.quant_consts, _("per-block scales"));
	row(N_("DDP gradient buckets"), e->mem.ddp_buckets, _("torch DDP's all-reduce buckets: a copy of every gradient"));
	if (w->task == TASK_INFER)
		snprintf(note, sizeof(note), _("transient, one layer at a time"));
	else if (m->kind == MODEL_RESNET)
		snprintf(note, sizeof(note), _("kept for backward: conv, BN/ReLU outputs, max-pool indices%s"),
			 w->grad_checkpointing ? _(", checkpointed") : "");
	else
		snprintf(note, sizeof(note), _("%s%s%s%s"),
			 w->activation_checkpointing == AC_FULL && e->loss.apart > 0 ?
			 _("layer inputs + what of one layer (recompute) exceeds the loss, freed before it") :
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
	    e->loss.half ? _("logits + 16-bit log-softmax + its gradient") :
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
}

/* Memory: the peaks by phase, what the allocator and CUDA add, the total. */
static void table_totals(const struct workload *w, const struct estimate *e)
{
	char a[64], b[64], note[200];

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
	else if (e->mem.reserve_steps > 0)
		snprintf(note, sizeof(note), _("%.0f%% of allocated: the allocator over %ld steps of %s tokens"),
			 e->mem.allocated > 0 ? e->mem.allocator / e->mem.allocated * 100 : 0, e->mem.reserve_steps,
			 w->seq_spread);
	else if (e->loss.apart > 0 && e->mem.peak_phase == EST_PHASE_TRAIN)
		/* TRANSLATORS: percent, bytes of the loss's segments the recomputed layer splits */
		snprintf(note, sizeof(note), _("%.0f%% of allocated + %s of the loss's segments, split by the "
					       "recomputed layer"), w->alloc_overhead * 100,
			 units_fmt_bytes(e->loss.apart, a, sizeof(a)));
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
}

/* The memory tiers it fits, the recommended one, and the chosen card. */
static void table_fit(const struct workload *w, const struct model_spec *m, const struct gpu_spec *gpu,
		      const struct gpu_db *gdb, const struct estimate *e)
{
	char a[64], mesc[4 * sizeof(m->name)];

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
}

/* Time: FLOPs, the rate, decode, the wall time. */
static void table_time(const struct workload *w, const struct estimate *e)
{
	char a[64], b[64];

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
}

/* Communication: the link, a step's bytes and time, the verdict. */
static void table_comm(const struct workload *w, const struct estimate *e)
{
	char a[64], b[64], c[64], words[EST_WARNING_MAX];

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
}

/* The assumptions (the calibration's last) and the warnings. */
static void table_notes(const struct estimate *e, const struct calib *cal)
{
	char words[EST_WARNING_MAX];

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
	for (int i = 0; i < e->nsensitive; i++) {
		const struct est_sensitive *x = &e->sensitive[i];
		if (e->have_time && x->time_change != 0 && fabs(x->mem_change) < 0.005)
			/* TRANSLATORS: field=value (not translated), time change */
			printf(_("  ? most sensitive: %s=%s (not given) would change the time %+.0f%%\n"),
			       workload_fields[x->field].name, x->value, x->time_change * 100);
		else if (e->have_time && x->time_change != 0)
			/* TRANSLATORS: field=value (not translated), memory change, time change */
			printf(_("  ? most sensitive: %s=%s (not given) would change the memory %+.0f%%, the time "
				 "%+.0f%%\n"), workload_fields[x->field].name, x->value, x->mem_change * 100,
			       x->time_change * 100);
		else
			/* TRANSLATORS: field=value (not translated), memory change */
			printf(_("  ? most sensitive: %s=%s (not given) would change the memory %+.0f%%\n"),
			       workload_fields[x->field].name, x->value, x->mem_change * 100);
	}
	if (e->nwarnings) {
		printf(_("\nWarnings\n"));
		for (int i = 0; i < e->nwarnings; i++) {
			est_word(&e->warnings[i], words, EST_WARNING_MAX);
			printf("  ! %s\n", words);
		}
	}
}

void estout_table(const struct workload *w, const struct model_spec *m,
		  const struct gpu_spec *gpu, const struct gpu_db *gdb,
		  const struct estimate *e, const struct calib *cal)
{
	table_head(w, m, e);
	table_states(w, e);
	table_buffers(w, m, e);
	table_totals(w, e);
	table_fit(w, m, gpu, gdb, e);
	table_time(w, e);
	render_calib(cal, gpu, e);
	table_comm(w, e);
	table_notes(e, cal);
}
