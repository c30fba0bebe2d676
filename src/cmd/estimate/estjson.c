/*
 * estjson.c - the JSON `gpurent estimate --json` prints (schema
 * gpurent.estimate/1, docs/json.md): every figure with its unit in its key.
 */
#include "cmd/estimate/estout.h"

#include <stdio.h>
#include <string.h>

#include "core/model/framework.h"
#include "cmd/estimate/estwords.h"
#include "kit/common.h"

/* "calibration": the probe that calibrated the estimate, or null. */
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

/* "model": the architecture and its parameter counts. */
static void json_model(struct json *j, const struct model_spec *m, const struct estimate *e)
{
	json_obj_begin(j, "model");
	json_str(j, "name", m->name);
	json_str(j, "kind", m->kind == MODEL_PARAMS_ONLY ? "params-only" : model_kind_name(m->kind));
	json_num(j, "params", e->params);
	json_num(j, "params_active", e->params_active);
	json_num(j, "params_trainable", e->params_trainable);
	json_num(j, "lora_params", e->lora_params);
	json_str(j, "source", m->source);
	json_obj_end(j);
}

/* "workload": the fields as resolved, the loss in effect, the digest. */
static void json_workload(struct json *j, const struct workload *w, const struct gpu_spec *gpu,
			  const struct estimate *e)
{
	json_obj_begin(j, "workload");
	json_str(j, "task", workload_enum_name("task", w->task));
	json_str(j, "precision", workload_enum_name("precision", w->precision));
	json_str(j, "optimizer", workload_enum_name("optimizer", w->optimizer));
	json_int(j, "zero", w->zero);
	json_int(j, "gpus", w->gpus);
	json_int(j, "micro_batch", w->micro_batch);
	json_int(j, "seq", w->seq);
	json_int(j, "image_size", w->image_size);
	json_int(j, "grad_accum", w->grad_accum);
	json_bool(j, "grad_checkpointing", w->grad_checkpointing);
	json_bool(j, "flash_attention", w->flash_attention);
	json_num(j, "dropout", w->dropout);
	json_int(j, "lora_rank", w->lora_rank);
	json_str(j, "lora_targets", w->lora_targets);
	json_int(j, "quant_bits", w->quant_bits);
	json_int(j, "context", w->context);
	json_int(j, "concurrency", w->concurrency);
	json_str(j, "kv_dtype", workload_enum_name("kv_dtype", w->kv_dtype));
	json_str(j, "framework", workload_enum_name("framework", w->framework));
	json_str(j, "activation_checkpointing", ac_names[w->activation_checkpointing]);
	json_str(j, "optimizer_step", step_names[w->optimizer_step]);
	json_bool(j, "compile", w->compile);
	json_bool(j, "activation_offloading", w->activation_offloading);
	json_num(j, "prefill_chunk", (double)w->prefill_chunk);
	json_num(j, "gpu_memory_utilization_fraction", w->gpu_memory_utilization);
	/* the loss in effect (the framework's when not given); full outside decoder training */
	json_str(j, "loss", workload_enum_name("loss", e->loss.loss));
	json_str(j, "gpu", gpu ? gpu->name : "");
	{
		char dg[32];
		snprintf(dg, sizeof(dg), "%016llx", (unsigned long long)workload_digest(w));
		json_str(j, "digest", dg);   /* what a probe of it records (formulas.md) */
	}
	json_obj_end(j);
}

/* "memory": bytes per GPU by component, the peaks by phase, the total. */
static void json_memory(struct json *j, const struct estimate *e)
{
	json_obj_begin(j, "memory");
	json_num(j, "weights_bytes", e->mem.weights);
	json_num(j, "gradients_bytes", e->mem.gradients);
	json_num(j, "optimizer_bytes", e->mem.optimizer);
	json_num(j, "adapters_bytes", e->mem.adapters);
	json_num(j, "quant_consts_bytes", e->mem.quant_consts);
	json_num(j, "ddp_buckets_bytes", e->mem.ddp_buckets);
	json_num(j, "activations_bytes", e->mem.activations);
	json_num(j, "logits_bytes", e->mem.logits);
	json_num(j, "kv_cache_bytes", e->mem.kv_cache);
	json_num(j, "kv_cache_per_token_bytes", e->kv_per_token);
	json_num(j, "sharding_bytes", e->mem.sharding);
	json_num(j, "shard_gathered_bytes", e->shard_gathered);
	json_num(j, "shard_reduce_bytes", e->shard_reduce);
	json_num(j, "shard_kept_bytes", e->shard_kept);
	json_num(j, "shard_root_bytes", e->shard_root);
	json_num(j, "wrap_cache_bytes", e->mem.wrap_cache);
	json_num(j, "wrap_left_bytes", e->mem.wrap_left);
	json_num(j, "dequant_bytes", e->mem.dequant);
	json_num(j, "int8_saved_bytes", e->mem.int8_saved);
	json_num(j, "quant_saved_bytes", e->mem.quant_saved);
	json_num(j, "step_temp_bytes", e->mem.step_temp);
	json_num(j, "train_peak_bytes", e->mem.train_peak);
	json_num(j, "step_peak_bytes", e->mem.step_peak);
	json_num(j, "load_peak_bytes", e->mem.load_peak);
	json_str(j, "peak_phase", e->mem.peak_phase == EST_PHASE_STEP ? "step" :
		 e->mem.peak_phase == EST_PHASE_LOAD ? "load" : "train");
	json_num(j, "allocated_bytes", e->mem.allocated);
	json_num(j, "allocator_reserve_bytes", e->mem.allocator);
	json_num(j, "cuda_context_bytes", e->mem.context);
	json_num(j, "total_bytes", e->mem.total);
	json_num(j, "reserved_fraction", e->mem.reserved_share);
	json_num(j, "reserved_bytes", e->mem.reserved);
	json_num(j, "reserved_free_bytes", e->mem.reserved_free);
	json_obj_end(j);
}

/* "fit": the tiers, the recommended one, the chosen card. */
static void json_fit(struct json *j, const struct workload *w, const struct gpu_spec *gpu,
		     const struct estimate *e)
{
	json_obj_begin(j, "fit");
	json_arr_begin(j, "tiers");
	for (int i = 0; i < EST_NTIERS; i++) {
		json_obj_begin(j, NULL);
		json_num(j, "tier_gb", e->tiers[i].gb);
		json_num(j, "capacity_bytes", e->tiers[i].gb * 1e9);
		json_bool(j, "fits", e->tiers[i].fits);
		json_num(j, "used_fraction", e->tiers[i].used);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (e->recommended >= 0)
		json_num(j, "recommended_tier_gb", e->tiers[e->recommended].gb);
	else
		json_null(j, "recommended_tier_gb");
	json_num(j, "headroom_fraction", w->headroom);
	json_int(j, "zero3_gpus_for_80gb", e->zero3_gpus_for_80);
	json_bool(j, "zero3_needs_grad_checkpointing", e->zero3_needs_ckpt);
	if (gpu) {
		json_num(j, "gpu_memory_bytes", gpu->memory_bytes);
		json_bool(j, "gpu_fits", e->gpu_fits);
		json_num(j, "gpu_used_fraction", e->gpu_used);
	}
	json_obj_end(j);
}

/* "time": FLOPs, the rate, decode and the wall time. */
static void json_time(struct json *j, const struct estimate *e)
{
	json_obj_begin(j, "time");
	json_bool(j, "computed", e->have_time);
	json_str(j, "unit", e->work_is_samples ? "sample" : "token");
	json_num(j, "work_units", e->work);
	json_num(j, "per_unit_flops", e->flops_per_unit);
	json_num(j, "total_flops", e->flops_total);
	json_num(j, "peak_flops_per_second", e->peak_flops);
	json_num(j, "mfu", e->mfu);
	json_num(j, "effective_flops_per_second", e->eff_flops);
	json_num(j, "step_slowdown", e->step_slowdown);
	json_num(j, "compute_seconds", e->compute_seconds);
	json_num(j, "prefill_seconds", e->prefill_seconds);
	json_num(j, "decode_seconds", e->decode_seconds);
	json_num(j, "decode_tokens_per_second", e->decode_tokens_per_second);
	json_num(j, "decode_step_seconds", e->decode_step_seconds);
	json_num(j, "decode_bytes_seconds", e->decode_bytes_seconds);
	json_num(j, "decode_bandwidth_fraction", e->decode_bw_efficiency);
	json_num(j, "decode_overhead_seconds", e->decode_overhead_seconds);
	json_num(j, "decode_comm_seconds", e->decode_comm_seconds);
	json_bool(j, "decode_layer_split", e->decode_layer_split);
	json_bool(j, "bench_measured", e->bench_used);
	json_num(j, "bench_at_unix_seconds", e->bench_at);
	json_num(j, "bench_gemm_flops_per_second", e->bench_flops);
	json_num(j, "bench_bytes_per_second", e->bench_bw);
	json_num(j, "wall_seconds", e->wall_seconds);
	json_num(j, "comm_exposed_seconds", e->steps * e->comm_exposed_seconds);
	json_num(j, "gpu_hours", e->gpu_hours);
	json_obj_end(j);
}

/* "communication": the link, a step's bytes and seconds, the verdict. */
static void json_comm(struct json *j, const struct estimate *e)
{
	char words[EST_WARNING_MAX];

	json_obj_begin(j, "communication");
	json_bool(j, "computed", e->have_comm);
	json_num(j, "steps", e->steps);
	json_num(j, "per_step_bytes", e->comm_bytes);
	json_num(j, "link_bytes_per_second", e->link_bw);
	json_str(j, "link_code", est_link_name(e->link));
	est_word_link(e, words, EST_LINK_MAX);
	json_str(j, "link", words);
	json_num(j, "nodes", (double)e->nodes);
	json_num(j, "node_bytes_per_second", e->nodes > 1 ? e->node_bw : 0);
	json_str(j, "node_link_code", est_node_link_name(e->node_link));
	json_num(j, "comm_per_step_seconds", e->comm_seconds);
	json_num(j, "compute_per_step_seconds", e->step_compute_seconds);
	json_num(j, "ratio", e->comm_ratio);
	json_str(j, "overlap", est_overlap_name(e->overlap));
	json_num(j, "overlap_fraction", e->overlap_fraction);
	json_num(j, "overlap_slowdown_fraction", e->overlap_slowdown);
	json_num(j, "comm_exposed_seconds", e->comm_exposed_seconds);
	json_num(j, "comm_share_fraction", e->comm_share);
	json_str(j, "verdict", !e->have_comm ? "none" : e->comm_bound ? "communication-bound" : "compute-bound");
	json_obj_end(j);
}

/* A list of notes: their codes under codes_key, their sentences (cut at
 * max bytes) under key. */
static void json_note_list(struct json *j, const char *codes_key, const char *key,
			   const struct est_note *v, int n, size_t max)
{
	char words[EST_WARNING_MAX];

	json_arr_begin(j, codes_key);
	for (int i = 0; i < n; i++)
		json_str(j, NULL, est_code_name(v[i].code));
	json_arr_end(j);
	json_arr_begin(j, key);
	for (int i = 0; i < n; i++) {
		est_word(&v[i], words, max);
		json_str(j, NULL, words);
	}
	json_arr_end(j);
}

/* The unset fields that move the answer most (estimate_sensitivity()). */
static void json_sensitive(struct json *j, const struct estimate *e)
{
	json_arr_begin(j, "sensitive");
	for (int i = 0; i < e->nsensitive; i++) {
		const struct est_sensitive *s = &e->sensitive[i];
		json_obj_begin(j, NULL);
		json_str(j, "field", workload_fields[s->field].name);
		json_str(j, "value", s->value);
		json_num(j, "memory_change_fraction", s->mem_change);
		json_num(j, "time_change_fraction", s->time_change);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void estout_json(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, const struct estimate *e, const struct calib *cal)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.estimate/1");
	json_model(&j, m, e);
	json_workload(&j, w, gpu, e);
	json_memory(&j, e);
	json_fit(&j, w, gpu, e);
	json_time(&j, e);
	json_comm(&j, e);
	json_calib(&j, cal);
	json_note_list(&j, "assumption_codes", "assumptions", e->assumptions, e->nassumptions, EST_NOTE_MAX);
	json_note_list(&j, "warning_codes", "warnings", e->warnings, e->nwarnings, EST_WARNING_MAX);
	json_sensitive(&j, e);
	json_obj_end(&j);
}
