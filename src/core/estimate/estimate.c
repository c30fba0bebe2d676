/*
 * estimate.c - the estimate of a workload (estimate.h): its notes, memory
 * (estimate_memory.c), fit, time (estimate_time.c) and communication
 * (estimate_comm.c). Section names in comments point into docs/formulas.md.
 */
#include "core/estimate/estimate_int.h"

#include <stdio.h>
#include <string.h>

#include "core/model/framework.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

const double est_tiers_gb[EST_NTIERS] = {16, 24, 32, 40, 48, 80, 94, 141, 192};

const char *est_code_name(enum est_code c)
{
	static const char *const t[EST_CODE_COUNT] = {
		"precision", "image_size", "sequence", "framework_overhead", "attention",
		"no_activations", "cnn_checkpointing", "time_mfu_given", "time_mfu_cnn",
		"time_mfu_class", "inference_needs_gpu", "decode_bandwidth", "no_kv_cache",
		"no_tensor_rate", "long_run", "implausible_run", "rope_context",
		"comm_overlap", "loss", "decode_overhead", "decode_tensor_parallel",
		"decode_layer_split", "time_mfu_published", "bench_measured", "fsdp_wrap_cache",
		"qlora_slowdown", "framework_defaults", "loss_moment",
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

/* A training run that fits no card: how many GPUs ZeRO-3 (then also
 * recomputation) needs under 80 GB, into e->zero3_gpus_for_80. */
static void zero3_gpus(const struct workload *w, const struct model_spec *m, struct estimate *e)
{
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
			est_memory(&z, m, &t, 0);
			if (t.mem.total <= 80e9 * (1 - w->headroom)) {
				e->zero3_gpus_for_80 = (int)g;
				e->zero3_needs_ckpt = z.grad_checkpointing && !w->grad_checkpointing;
				break;
			}
		}
	}
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
	e->bad_field = -1;
	if ((w->task == TASK_LORA || w->task == TASK_QLORA)) {
		if (!is_transformer(m)) {
			snprintf(err, errlen, _("task: LoRA needs a transformer architecture (a preset or layers/hidden/heads)"));
			e->bad_field = workload_field_index("task");
			return -1;
		}
		if (check_targets(w->lora_targets, err, errlen)) {
			e->bad_field = workload_field_index("lora_targets");
			return -1;
		}
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
	est_memory(w, m, e, gpu ? gpu->memory_bytes : 0);
	fit(w, gpu, e);

	if (e->recommended < 0 && w->task == TASK_TRAIN)
		zero3_gpus(w, m, e);
	est_time(w, m, gpu, bench, e);
	est_defaults_note(w, m, e);
	return 0;
}
