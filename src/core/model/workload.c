/*
 * workload.c - the workload field table, setting fields from text, and
 * resolving defaults against the model and GPU data (workload.h).
 */
#include "core/model/workload.h"
#include "base/i18n.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/framework.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "core/text/units.h"
#include "base/util.h"

/* F_NUMBER (tflops): effective TFLOPS per GPU, far above any GPU made. */
#define WORKLOAD_NUMBER_MAX 1e6

static const char *const task_names[] = {"train", "lora", "qlora", "infer", NULL};
static const char *const prec_names[] = {"fp32", "amp", "bf16", "fp16", "bf16-true", "fp16-true", NULL};
static const char *const opt_names[] = {"adamw", "adamw-8bit", "sgd", "adafactor", NULL};
static const char *const qf_names[] = {"auto", "nf4", "int8", "gptq", "awq", "q8_0", "q4_0", "q4_k", NULL};
static const char *const kv_names[] = {"auto", "fp32", "fp16", "bf16", "fp8", "int8", "int4",
				       "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", NULL};
/* the order of enum bias_kind (model.h) */
static const char *const bias_names[] = {"none", "qkv", "all", NULL};
/* the order of enum loss_kind (workload.h); fw_names, ac_names and
 * step_names: framework.c */
static const char *const loss_names[] = {"full", "chunked", "fused", NULL};
static const char *const ic_names[] = {"auto", "nvlink", "pcie", "ethernet", "infiniband", NULL};

#define OFF(f) offsetof(struct workload, f)
#define FLD(n, t, f, d, h) {n, t, OFF(f), 0, 0, 0, 0, NULL, d, h}
#define INT(n, f, lo, hi, d, h) {n, F_INT, OFF(f), 0, lo, hi, 0, NULL, d, h}
/* A token length: 4k = 4096, 128k = 131072, as model cards write them. */
#define TOKENS(n, f, lo, hi, d, h) {n, F_INT, OFF(f), 0, lo, hi, UNITS_INT_K1024, NULL, d, h}
#define ENUM(n, f, names, d, h) {n, F_ENUM, OFF(f), 0, 0, 0, 0, names, d, h}
#define STR(n, f, d, h) {n, F_STR, OFF(f), sizeof(((struct workload *)0)->f), 0, 0, 0, NULL, d, h}

/* MUST stay sorted by name: workload_field_index() bisects it. */
const struct workload_field workload_fields[] = {
	STR("access", access, "none",
	    N_("plan: memberships you hold (campus clusters, institution pools), e.g. SJTU-HPC")),
	ENUM("activation_checkpointing", activation_checkpointing, ac_names,
	     N_("the framework's (none without one)"),
	     N_("keep activations for backward: none, selective (recompute attention, Megatron), "
	     "full (recompute each layer; = grad_checkpointing)")),
	FLD("activation_offloading", F_BOOL, activation_offloading, N_("the framework's (unsloth true; else false)"),
	    N_("with full checkpointing, keep the saved layer inputs in host memory (torchtune, unsloth)")),
	FLD("alloc_overhead", F_FRACTION, alloc_overhead, "10%",
	    N_("PyTorch caching-allocator reserve on top of allocated memory")),
	FLD("autocast_inference_cache", F_BOOL, autocast_inference_cache,
	    N_("false (PyTorch with the #158232 fix: nothing cached under inference_mode)"),
	    N_("serving an fp32 module under autocast (LitGPT bf16-mixed): each weight's 16-bit cast cached "
	    "beside it (PyTorch up to 2.1 and later releases without the fix)")),
	ENUM("bias", bias, bias_names, N_("the preset's (none by hand)"),
	     N_("linear-layer biases: none, qkv (Qwen 2.5) or all (GPT-2, BERT, ViT)")),
	FLD("budget", F_MONEY, budget, "none",
	    N_("plan: the most the whole job may cost, e.g. 300, $300 or 2000CNY")),
	FLD("compile", F_BOOL, compile, N_("the framework's (false; serving engines: true)"),
	    N_("torch.compile or CUDA graphs: fewer kernel launches a decoded token, fewer activations kept in training")),
	INT("concurrency", concurrency, 1, 1000000, "1", N_("inference: sequences served at once")),
	TOKENS("context", context, 1, 100000000, N_("4096 (capped at the model's maximum)"),
	    N_("inference: tokens held per sequence (prompt + generated); 4k = 4096, 128k = 131072")),
	FLD("cuda_context", F_BYTES, cuda_context, "0.5GB",
	    N_("CUDA context and library workspaces per GPU")),
	FLD("data_size", F_BYTES, data_size, "0",
	    N_("plan: dataset size to upload and keep in storage, e.g. 50GB")),
	FLD("deadline", F_DURATION, deadline, "none",
	    N_("plan: latest acceptable finish, from now (queue wait included), e.g. 2d")),
	FLD("double_quant", F_BOOL, double_quant, N_("false (transformers' BitsAndBytesConfig)"),
	    N_("4-bit base: quantize the block scales again (QLoRA's double quantization)")),
	FLD("dropout", F_FRACTION, dropout, N_("the model's (0.1 BERT/GPT-2, 0 others)"),
	    N_("dropout probability; >0 keeps dropout masks for backward")),
	FLD("egress", F_BYTES, egress, "0", N_("plan: data downloaded from the box at the end, e.g. 20GB")),
	FLD("egress_month", F_BYTES, egress_month, N_("from the responses (docs/serve.md)"),
	    N_("service: data sent to users per month, e.g. 50GB")),
	FLD("epochs", F_COUNT, epochs, "1", N_("passes over the samples")),
	INT("ffn", ffn, 1, 10000000, N_("4 x hidden"), N_("MLP inner size (by-hand architecture)")),
	FLD("flash_attention", F_BOOL, flash_attention, N_("true (false: a softcapped model under litgpt)"),
	    N_("fused attention that never stores the s x s score matrix")),
	ENUM("framework", framework, fw_names, N_("none (stated: the loss full, no checkpointing, foreach step)"),
	     N_("training or serving stack: hf, torchtune, litgpt, deepspeed, fsdp, torchtitan, megatron, "
	     "llm.c, unsloth, liger, vllm, llama.cpp, sglang; sets the defaults listed below")),
	FLD("fsdp_frozen_grads", F_BOOL, fsdp_frozen_grads, N_("false (LitGPT 0.5.8 and later, PEFT, torchtune)"),
	    N_("LoRA under FSDP1 with use_orig_params and each layer one unit (lit-gpt and LitGPT before "
	    "0.5.8): every layer's frozen weights get a gradient")),
	FLD("fsdp_root_gathered", F_BOOL, fsdp_root_gathered,
	    N_("the framework's (true for fsdp, torchtune, torchtitan, litgpt)"),
	    N_("zero 3 under FSDP: the parameters outside the wrapped layers (a decoder's embedding and "
	    "lm_head) are the root unit's, which FSDP does not reshard after forward; false when they are "
	    "sharded as units of their own (torchtune custom_sharded_layers)")),
	FLD("fsdp_wrap_cache", F_BOOL, fsdp_wrap_cache, N_("the framework's (true for fsdp)"),
	    N_("zero 3 under FSDP1 wrapping a built model: each unit's moved and flattened copies stay in "
	    "the allocator's cache; false when the model is built on the meta device")),
	FLD("gated_mlp", F_BOOL, gated_mlp, N_("the preset's (false by hand)"),
	    N_("three-matrix gated MLP (SwiGLU/GeGLU: gate, up, down), as Llama, Mistral, Qwen")),
	STR("gpu", gpu, N_("none (memory only)"), N_("GPU type for time and fit, e.g. A100-80GB, RTX4090")),
	FLD("gpu_memory_utilization", F_FRACTION, gpu_memory_utilization,
	    N_("the framework's (vLLM 90%, SGLang 88%; else what is needed)"),
	    N_("serving: share of the card the engine reserves up front, the KV cache taking the rest")),
	INT("gpus", gpus, 1, 1000000, "1", N_("data-parallel GPUs")),
	INT("grad_accum", grad_accum, 1, 1000000, "1", N_("micro-batches per optimizer step")),
	FLD("grad_checkpointing", F_BOOL, grad_checkpointing, "false",
	    N_("recompute activations in backward, keeping only each layer's input")),
	FLD("gradient_as_bucket_view", F_BOOL, gradient_as_bucket_view, N_("false (torch DDP's)"),
	    N_("data parallel (gpus > 1, zero 0) under torch DDP: the gradients are views into the "
	    "Reducer's all-reduce buckets; false: the buckets are a second copy of every gradient")),
	INT("head_dim", head_dim, 1, 100000, N_("hidden / heads (the preset's)"),
	    N_("width of one attention head (Gemma, Qwen3: heads x head_dim != hidden)")),
	FLD("headroom", F_FRACTION, headroom, "10%",
	    N_("spare memory wanted on the recommended card")),
	INT("heads", heads, 1, 100000, "-", N_("attention heads (by-hand architecture)")),
	INT("hidden", hidden, 1, 10000000, "-", N_("hidden size (by-hand architecture)")),
	INT("image_size", image_size, 1, 100000, N_("the model's (224, 32 for CIFAR)"), N_("image side in pixels")),
	ENUM("interconnect", interconnect, ic_names, N_("auto (the GPU's)"),
	    N_("GPU-to-GPU link: auto, nvlink, pcie, ethernet, infiniband")),
	ENUM("kv_dtype", kv_dtype, kv_names, N_("auto (activation dtype)"),
	     N_("KV-cache element type: auto, fp32, fp16, bf16, fp8, int8, int4, "
	     "or llama.cpp's q8_0, q4_0, q4_1, q5_0, q5_1 (block scales counted)")),
	INT("kv_heads", kv_heads, 1, 100000, "heads", N_("key/value heads, grouped-query attention")),
	INT("layers", layers, 1, 100000, "-", N_("transformer layers (by-hand architecture)")),
	FLD("link_bw", F_BANDWIDTH, link_bw, /* xgettext:no-c-format */ N_("65% of the link's peak"),
	    N_("effective GPU-to-GPU bandwidth per direction, e.g. 20GB/s")),
	FLD("lora_dropout", F_FRACTION, lora_dropout, "0",
	    N_("LoRA: dropout on each adapter's input; >0 keeps the dropped input and its mask for backward")),
	INT("lora_rank", lora_rank, 1, 65536, "8", N_("LoRA rank r")),
	STR("lora_targets", lora_targets, "q,v",
	    N_("LoRA target modules: q,k,v,o,gate,up,down or all")),
	ENUM("loss", loss, loss_names, N_("the framework's (full without one)"),
	     N_("causal-LM loss: full (logits + fp32 log-softmax + gradient), chunked, fused")),
	FLD("memory_efficient_linear", F_BOOL, memory_efficient_linear,
	    N_("true (DeepSpeed's default under zero.Init)"),
	    N_("DeepSpeed ZeRO-3 replaces torch's linear so that gathered weights are freed after use; false "
	    "(the config key set so, or a model built outside zero.Init and passed to deepspeed.initialize): "
	    "each gathered weight is kept until its backward")),
	FLD("mfu", F_FRACTION, mfu, N_("by GPU class (docs/formulas.md)"),
	    N_("model FLOPs utilisation: achieved / peak")),
	INT("micro_batch", micro_batch, 1, 100000000, "1", N_("samples per GPU per forward pass")),
	STR("model", model, "-", N_("model preset (gpurent models) or a name for a by-hand architecture")),
	FLD("node_bw", F_BANDWIDTH, node_bw, /* xgettext:no-c-format */ N_("65% of 100 Gb/s (assumption, docs/formulas.md)"),
	    N_("effective bandwidth between nodes per node and direction, e.g. 400Gbit/s")),
	INT("nodes", nodes, 1, 100000, N_("1 (a task's num_nodes)"),
	    N_("machines the job spans; gpus is the total over them (SkyPilot num_nodes)")),
	INT("norms_per_layer", norms_per_layer, 1, 8, N_("the preset's (2 by hand)"),
	    N_("normalisations per transformer layer (2; Gemma 2 and 3: 4)")),
	ENUM("optimizer", optimizer, opt_names, "adamw", N_("adamw, adamw-8bit, sgd (momentum), adafactor")),
	ENUM("optimizer_step", optimizer_step, step_names, N_("the framework's (foreach without one)"),
	     N_("how the step runs: foreach (torch default), fused, in_bwd (in backward, gradients "
	     "freed at once), for_loop")),
	TOKENS("output_len", output_len, 1, 100000000, N_("256 (assumption, docs/serve.md)"),
	       N_("service: output tokens per request (with rps)")),
	FLD("params", F_COUNT, params, N_("from the architecture"), N_("parameter count, e.g. 7e9 or 7B")),
	ENUM("precision", precision, prec_names, "bf16",
	     N_("fp32; amp/bf16/fp16 = mixed precision with fp32 master weights; bf16-true/fp16-true = pure 16-bit")),
	TOKENS("prefill_chunk", prefill_chunk, 1, 100000000,
	       N_("the framework's (vLLM 2048, SGLang 8192, llama.cpp 512; else the prompt whole)"),
	       N_("inference: prompt tokens prefilled a pass (chunked prefill)")),
	TOKENS("prompt_len", prompt_len, 1, 100000000, N_("0 (no prefill load)"),
	       N_("service: prompt tokens per request, prefilled (with rps)")),
	FLD("prompt_tokens", F_COUNT, prompt_tokens, "0", N_("inference: prompt tokens to prefill in total")),
	INT("quant_bits", quant_bits, 2, 16, N_("4 for qlora, else 16 (none)"),
	    N_("weight quantization of the frozen/served linear layers: 4, 8 or 16 (lora: a quantized base)")),
	ENUM("quant_format", quant_format, qf_names, N_("auto (bitsandbytes: nf4 at 4 bits, int8 at 8)"),
	     N_("the quantized weights' format, its constants counted: nf4, int8 (bitsandbytes), gptq, awq "
	     "(group 128), llama.cpp's q8_0, q4_0, q4_k; sets quant_bits")),
	FLD("quant_saves_input", F_BOOL, quant_saves_input, N_("false (bitsandbytes 0.43.2 and later)"),
	    N_("4-bit base: each quantized linear keeps its input for backward (bitsandbytes up to 0.43.1)")),
	FLD("resumable", F_BOOL, resumable, "false",
	    N_("plan: the job checkpoints and can resume (spot and time-limited queues)")),
	FLD("rps", F_NUMBER, rps, N_("none (the load is concurrency x user_tps)"),
	    N_("service: requests per second at peak (with output_len)")),
	FLD("samples", F_COUNT, samples, "-", N_("training samples per epoch (tokens = samples x seq x epochs)")),
	TOKENS("seq", seq, 1, 100000000, N_("2048 (capped at the model's maximum)"),
	       N_("sequence length in tokens; 4k = 4096, 128k = 131072")),
	STR("seq_spread", seq_spread, N_("none (every step seq tokens long)"),
	    N_("training: the samples' lengths in tokens as MEAN+-SD (e.g. 3234.4+-2547.5), samples above seq "
	    "left out; sets the caching allocator's reserve over steps of varying length")),
	FLD("serve", F_SCHEDULE, serve, N_("none (a batch job of tokens)"),
	    N_("inference: a service up 24x7, 8x5 (hours a day x days a week) or 12h (a day, every day)")),
	FLD("step_time", F_DURATION, step_time, N_("from FLOPs"),
	    N_("measured compute time of one step, overrides the FLOPs estimate")),
	ENUM("task", task, task_names, "train", N_("train (full), lora, qlora, infer")),
	FLD("tflops", F_NUMBER, tflops, N_("GPU peak x MFU"), N_("effective TFLOPS per GPU, e.g. 100")),
	FLD("tied_embeddings", F_BOOL, tied_embeddings, N_("the preset's (false by hand)"),
	    N_("the output layer shares the input embedding matrix (GPT-2, Gemma, Llama-3.2 1B/3B)")),
	FLD("tokens", F_COUNT, tokens, "-", N_("training tokens, or tokens to generate for infer")),
	FLD("tps_headroom", F_FRACTION, tps_headroom, N_("20% (assumption, docs/serve.md)"),
	    N_("service: spare output tokens/s wanted above the load (as headroom is for memory)")),
	FLD("user_tps", F_NUMBER, user_tps, N_("20 (assumption, docs/serve.md)"),
	    N_("service: output tokens per second each user needs")),
	INT("vocab", vocab, 1, 100000000, "32000", N_("vocabulary size (by-hand architecture)")),
	INT("zero", zero, 0, 3, "0", N_("ZeRO/FSDP stage: 1 optimizer, 2 +gradients, 3 +weights")),
};
const size_t workload_nfields = ARRAY_SIZE(workload_fields);
_Static_assert(ARRAY_SIZE(workload_fields) <= WORKLOAD_MAX_FIELDS, "the set mask holds every field");

static void key_norm(const char *in, char *out, size_t n)
{
	size_t j = 0;

	for (; *in && j + 1 < n; in++)
		out[j++] = *in == '-' ? '_' : *in;
	out[j] = '\0';
}

int workload_field_index(const char *name)
{
	char key[64];
	size_t lo = 0, hi = workload_nfields;

	key_norm(name, key, sizeof(key));
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(key, workload_fields[mid].name);
		if (!c)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

void workload_init(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->dropout = -1;
}

bool workload_is_set(const struct workload *w, const char *key)
{
	int i = workload_field_index(key);
	return workload_index_set(w, i);
}

bool workload_index_set(const struct workload *w, int i)
{
	return i >= 0 && i < WORKLOAD_MAX_FIELDS && (w->set[i / 64] >> (i % 64)) & 1;
}

const char *workload_enum_name(const char *field, int value)
{
	int i = workload_field_index(field);

	if (i < 0 || !workload_fields[i].enum_names)
		return "?";
	return workload_fields[i].enum_names[value];
}

int workload_parse_serve(const char *s, struct serve_sched *out, char *err, size_t errlen)
{
	char q[QUOTE_KEEP * 4 + 8], *end;
	double h, d = 7;

	quote_value(s, q, sizeof(q));
	/* digits and one '.', as units.h reads numbers: no hex, inf or signs */
	if (!(*s >= '0' && *s <= '9'))
		goto bad;
	h = strtod(s, &end);
	if (end == s || strspn(s, "0123456789.") != (size_t)(end - s))
		goto bad;
	if (!strcmp(end, "h")) {
		d = 7;
	} else if (*end == 'x' && end[1] >= '1' && end[1] <= '7' && !end[2]) {
		d = end[1] - '0';
	} else {
		goto bad;
	}
	if (!(h > 0 && h <= 24))
		goto bad;
	out->hours_per_day = h;
	out->days_per_week = d;
	return 0;
bad:
	snprintf(err, errlen, _("expected HOURSxDAYS (24x7, 8x5: hours a day up to 24, days a week 1 to 7) "
		 "or hours a day (12h), got '%s'"), q);
	return -1;
}

double workload_serve_hours_week(const struct workload *w)
{
	return workload_is_set(w, "serve") ? w->serve.hours_per_day * w->serve.days_per_week : 0;
}

static int parse_enum(const char *s, const char *const *names, int *out)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

static void enum_expect(const char *const *names, const char *s, char *err, size_t errlen)
{
	char list[256] = "";
	struct names_suggest sg;

	names_suggest_init(&sg, s);
	for (int i = 0; names[i]; i++) {
		if (i)
			strncat(list, names[i + 1] ? ", " : " or ", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
		names_suggest_add(&sg, names[i]);
	}
	if (sg.best[0])
		snprintf(err, errlen, _("expected %s, got '%s' (did you mean '%s'?)"), list, s, sg.best);
	else
		snprintf(err, errlen, _("expected %s, got '%s'"), list, s);
}

int workload_set(struct workload *w, const char *key, const char *value,
		 size_t line, char *err, size_t errlen)
{
	int idx = workload_field_index(key);
	const struct workload_field *f;
	char *p, q[QUOTE_KEEP * 4 + 8];
	double d;
	long l;
	int b;

	if (idx < 0) {
		struct names_suggest sg;
		names_suggest_init(&sg, key);
		for (size_t i = 0; i < workload_nfields; i++)
			names_suggest_add(&sg, workload_fields[i].name);
		if (sg.best[0])
			snprintf(err, errlen, _("unknown field (did you mean '%s'?)"), sg.best);
		else
			snprintf(err, errlen, _("unknown field (see 'gpurent help estimate')"));
		return -2;
	}
	f = &workload_fields[idx];
	p = (char *)w + f->offset;
	quote_value(value, q, sizeof(q));
	if (!value || !*value) {
		snprintf(err, errlen, _("expected a value, got nothing"));
		return -1;
	}
	switch (f->type) {
	case F_STR:
		if (strlen(value) >= f->size) {
			snprintf(err, errlen, _("expected at most %zu characters"), f->size - 1);
			return -1;
		}
		memcpy(p, value, strlen(value) + 1);
		break;
	case F_COUNT:
		if (units_parse_count(value, &d, err, errlen))
			return -1;
		if (d <= 0) {
			snprintf(err, errlen, _("expected a positive count, got '%s'"), q);
			return -1;
		}
		memcpy(p, &d, sizeof(d));
		break;
	case F_NUMBER:
		/* a plain decimal (no hex, inf, nan), as units.h reads them */
		if (units_parse_count(value, &d, err, errlen) || !(d > 0) || d > WORKLOAD_NUMBER_MAX) {
			snprintf(err, errlen, _("expected a number above 0 and at most 1e6, got '%s'"), q);
			return -1;
		}
		memcpy(p, &d, sizeof(d));
		break;
	case F_BYTES:
		if (units_parse_bytes(value, &d, err, errlen))
			return -1;
		memcpy(p, &d, sizeof(d));
		break;
	case F_DURATION:
		if (units_parse_duration(value, &d, err, errlen))
			return -1;
		if (d <= 0) {
			snprintf(err, errlen, _("expected a positive duration, got '%s'"), q);
			return -1;
		}
		memcpy(p, &d, sizeof(d));
		break;
	case F_BANDWIDTH:
		if (units_parse_bandwidth(value, &d, err, errlen))
			return -1;
		memcpy(p, &d, sizeof(d));
		break;
	case F_MONEY: {
		struct money m = {0};
		if (units_parse_money(value, &m.amount, m.code, err, errlen))
			return -1;
		m.code_given = units_money_has_code(value);
		if (m.amount <= 0) {
			snprintf(err, errlen, _("expected an amount above 0, got '%s'"), q);
			return -1;
		}
		memcpy(p, &m, sizeof(m));
		break;
	}
	case F_FRACTION:
		if (!strcmp(f->name, "mfu")) {
			/* (0, 1]: above 1 the card would compute faster than its peak (docs/probe.md) */
			char *end;
			double m = strtod(value, &end);
			bool num = end != value && (!*end || !strcmp(end, "%"));
			if (num && *end == '%')
				m /= 100;
			if (num && !(m > 0 && m <= 1)) {
				snprintf(err, errlen, _("expected a utilisation in (0, 1] (above 0, at most 100%%: "
					 "more would be the GPU computing faster than its peak), got '%s'"), q);
				return -1;
			}
		}
		if (units_parse_fraction(value, &d, err, errlen))
			return -1;
		memcpy(p, &d, sizeof(d));
		break;
	case F_INT:
		if (units_parse_int_ex(value, f->min, f->max, f->flags, &l, err, errlen))
			return -1;
		memcpy(p, &l, sizeof(l));
		break;
	case F_BOOL:
		if (units_parse_bool(value, &b, err, errlen))
			return -1;
		memcpy(p, &b, sizeof(b));
		break;
	case F_SCHEDULE: {
		struct serve_sched sc;
		if (workload_parse_serve(value, &sc, err, errlen))
			return -1;
		memcpy(p, &sc, sizeof(sc));
		break;
	}
	case F_ENUM: {
		if (parse_enum(value, f->enum_names, &b)) {
			enum_expect(f->enum_names, q, err, errlen);
			return -1;
		}
		memcpy(p, &b, sizeof(b));
		break;
	}
	}
	w->set[idx / 64] |= 1ULL << (idx % 64);
	w->line[idx] = line;
	return 0;
}

/* --- resolve --- */

#define SET(w, name) workload_is_set(w, name)

static int fail_field(const char *field, int *bad, char *err, size_t errlen,
		      const char *fmt, const char *a, long x)
{
	char msg[384];

	*bad = workload_field_index(field);
	snprintf(msg, sizeof(msg), fmt, a, x);
	snprintf(err, errlen, "%s: %s", field, msg);
	return -1;
}

static int build_arch(struct workload *w, const struct model_db *mdb,
		      struct model_spec *arch, int *bad, char *err, size_t errlen)
{
	const struct model_spec *preset = NULL;
	bool by_hand = SET(w, "layers") || SET(w, "hidden") || SET(w, "heads");

	if (w->model[0]) {
		preset = model_db_find(mdb, w->model);
		if (!preset && !by_hand && !SET(w, "params")) {
			char sug[128];
			if (!model_db_suggest(mdb, w->model, sug, sizeof(sug))) {
				*bad = workload_field_index("model");
				snprintf(err, errlen, _("model: unknown model '%s' (did you mean '%s'?)"),
					 w->model, sug);
				return -1;
			}
			return fail_field("model", bad, err, errlen,
					  _("unknown model '%s' (see 'gpurent models', or give params or layers/hidden/heads)"),
					  w->model, 0);
		}
	}
	if (preset) {
		*arch = *preset;
	} else if (by_hand) {
		memset(arch, 0, sizeof(*arch));
		snprintf(arch->name, sizeof(arch->name), "%s", w->model[0] ? w->model : "custom");
		arch->kind = MODEL_DECODER;
		if (!SET(w, "layers"))
			return fail_field("layers", bad, err, errlen,
					  _("missing required field%s (a by-hand architecture needs layers, hidden and heads)"), "", 0);
		if (!SET(w, "hidden"))
			return fail_field("hidden", bad, err, errlen,
					  _("missing required field%s (a by-hand architecture needs layers, hidden and heads)"), "", 0);
		if (!SET(w, "heads"))
			return fail_field("heads", bad, err, errlen,
					  _("missing required field%s (a by-hand architecture needs layers, hidden and heads)"), "", 0);
		arch->kv_heads = w->heads;
		arch->ffn = 4 * w->hidden;
		arch->vocab = 32000;
		arch->pos = POS_ROPE;
		arch->norm = NORM_RMS;
		arch->norms_per_layer = 2;
		snprintf(arch->source, sizeof(arch->source), "architecture given by hand");
	} else if (SET(w, "params")) {
		static const char *const arch_only[] = {"bias", "gated_mlp", "head_dim", "norms_per_layer",
							"tied_embeddings"};
		for (size_t i = 0; i < ARRAY_SIZE(arch_only); i++)
			if (SET(w, arch_only[i]))
				return fail_field(arch_only[i], bad, err, errlen,
						  _("describes an architecture%s: give a preset or layers/hidden/heads, not only params"),
						  "", 0);
		memset(arch, 0, sizeof(*arch));
		snprintf(arch->name, sizeof(arch->name), "%s", w->model[0] ? w->model : "custom");
		arch->kind = MODEL_PARAMS_ONLY;
		arch->params_given = w->params;
		snprintf(arch->source, sizeof(arch->source), "parameter count given by hand");
		return 0;
	} else {
		*bad = workload_field_index("model");
		snprintf(err, errlen, _("model: missing required field (a preset from 'gpurent models', params, or layers/hidden/heads)"));
		return -1;
	}
	if (arch->kind == MODEL_RESNET) {
		static const char *const tf_only[] = {"layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "params",
						      "bias", "gated_mlp", "head_dim", "norms_per_layer",
						      "tied_embeddings"};
		for (size_t i = 0; i < ARRAY_SIZE(tf_only); i++)
			if (SET(w, tf_only[i]))
				return fail_field(tf_only[i], bad, err, errlen,
						  _("does not apply to the CNN preset '%s'"), arch->name, 0);
		return 0;
	}
	if (SET(w, "params"))
		return fail_field("params", bad, err, errlen,
				  _("give either params or an architecture, not both (model '%s' has one)"),
				  arch->name, 0);
	if (SET(w, "layers")) arch->layers = w->layers;
	if (SET(w, "hidden")) arch->hidden = w->hidden;
	if (SET(w, "heads")) arch->heads = w->heads;
	if (SET(w, "kv_heads")) arch->kv_heads = w->kv_heads;
	else if (!preset) arch->kv_heads = arch->heads;
	if (SET(w, "ffn")) arch->ffn = w->ffn;
	else if (!preset) arch->ffn = 4 * arch->hidden;
	if (SET(w, "vocab")) arch->vocab = w->vocab;
	/* formulas.md "Parameters": the architecture switches a preset row has */
	if (SET(w, "gated_mlp")) arch->gated_ffn = w->gated_mlp;
	if (SET(w, "tied_embeddings")) arch->tied_embeddings = w->tied_embeddings;
	if (SET(w, "bias")) arch->bias = (enum bias_kind)w->bias;
	if (SET(w, "norms_per_layer")) arch->norms_per_layer = w->norms_per_layer;
	if (SET(w, "head_dim"))
		arch->head_dim = w->head_dim;
	else if (!preset || SET(w, "hidden") || SET(w, "heads"))
		arch->head_dim = arch->hidden / arch->heads;
	if (arch->hidden % arch->heads && !preset && !SET(w, "head_dim"))
		return fail_field("heads", bad, err, errlen,
				  _("expected a divisor of hidden%s (%ld), or give head_dim"), "", arch->hidden);
	if (arch->kv_heads > arch->heads || arch->heads % arch->kv_heads)
		return fail_field("kv_heads", bad, err, errlen,
				  _("expected a divisor of heads%s (%ld)"), "", arch->heads);
	return 0;
}

/*
 * formulas.md "Framework profiles": the serving engines that size their
 * prefill chunk and their share of the card by the card (only where the
 * fields were not given). vLLM's server batches 8192 tokens a step on
 * cards of 70 GiB or more other than the A100, else 2048
 * (vllm/engine/arg_utils.py get_batch_defaults). SGLang takes its chunk
 * and CUDA-graph batch by GPU memory and reserves the rest of the card
 * after 512 MiB + 1.5 x max(chunk, 2048) + 2 x graph batch + tp / 8 x
 * 1024 MiB (at least 10 GiB on cards over 60 GiB): mem_fraction_static
 * (python/sglang/srt/server_args.py _handle_gpu_memory_settings).
 */
static void serving_by_card(struct workload *w, const struct gpu_spec *g)
{
	double mib = g->memory_bytes / 1048576.0;

	if (w->framework == FW_VLLM && !SET(w, "prefill_chunk"))
		w->prefill_chunk = mib >= 70 * 1024 && !strstr(g->name, "A100") ? 8192 : 2048;
	if (w->framework == FW_SGLANG) {
		long chunk = mib < 35 * 1024 ? 2048 : mib < 60 * 1024 ? 4096 : mib < 160 * 1024 ? 8192 : 16384;
		double graph_bs = mib < 20 * 1024 ? 8 : mib < 35 * 1024 ? 24 : mib < 60 * 1024 ? 32 :
				  mib < 160 * 1024 ? 256 : 512;
		double reserved;
		if (!SET(w, "prefill_chunk"))
			w->prefill_chunk = chunk;
		reserved = 512 + 1.5 * (double)(w->prefill_chunk > 2048 ? w->prefill_chunk : 2048) +
			   2 * graph_bs + (double)w->gpus / 8 * 1024;
		if (mib > 60 * 1024 && reserved < 10 * 1024)
			reserved = 10 * 1024;
		if (!SET(w, "gpu_memory_utilization") && reserved < mib)
			w->gpu_memory_utilization = round((mib - reserved) / mib * 1000) / 1000;
	}
}

/* The defaults that depend on no other field. */
static void resolve_defaults(struct workload *w, const struct model_spec *arch)
{
	if (!SET(w, "precision")) w->precision = PREC_BF16;
	if (!SET(w, "nodes")) w->nodes = 1;
	if (!SET(w, "gpus")) w->gpus = w->nodes;
	if (!SET(w, "micro_batch")) w->micro_batch = 1;
	if (!SET(w, "grad_accum")) w->grad_accum = 1;
	if (!SET(w, "epochs")) w->epochs = 1;
	if (!SET(w, "concurrency")) w->concurrency = 1;   /* a service's rps may raise it below */
	if (!SET(w, "cuda_context")) w->cuda_context = 0.5e9;
	if (!SET(w, "alloc_overhead")) w->alloc_overhead = 0.10;
	if (!SET(w, "headroom")) w->headroom = 0.10;
	if (w->dropout < 0) w->dropout = arch->dropout;
}

/* What the framework does unless told (checkpointing, offloading, the
 * optimizer step, serving shares), and the fields that apply to training
 * or to inference only. */
static int resolve_framework(struct workload *w, const struct model_spec *arch, int *bad, char *err,
			     size_t errlen)
{
	/* formulas.md "Framework profiles": what the framework does unless told */
	const struct fw_profile *fp = fw_profile(w->framework);
	if (SET(w, "activation_checkpointing") && SET(w, "grad_checkpointing") &&
	    (w->activation_checkpointing == AC_FULL) != (w->grad_checkpointing != 0))
		return fail_field("grad_checkpointing", bad, err, errlen,
				  _("says %s, activation_checkpointing says otherwise: give one of them"),
				  w->grad_checkpointing ? "true" : "false", 0);
	/* PEFT's prepare_model_for_kbit_training turns checkpointing on */
	bool kbit = (w->task == TASK_QLORA || (w->task == TASK_LORA && SET(w, "quant_bits") &&
					       w->quant_bits < 16));
	if (!SET(w, "activation_checkpointing"))
		w->activation_checkpointing = SET(w, "grad_checkpointing") ?
					      (w->grad_checkpointing ? AC_FULL : AC_NONE) :
					      kbit && fp->kbit_fp32_rest ? AC_FULL : fp->ac;
	if (!SET(w, "double_quant")) w->double_quant = fp->double_quant;
	if (!SET(w, "memory_efficient_linear")) w->memory_efficient_linear = 1;
	if (!SET(w, "fsdp_root_gathered")) w->fsdp_root_gathered = fp->root_unsharded;
	if (!SET(w, "fsdp_wrap_cache")) w->fsdp_wrap_cache = fp->wrap_cache;
	/* formulas.md "Framework profiles": capped attention logits
	 * (Gemma 2) keep the framework off its fused attention */
	if (!SET(w, "flash_attention")) w->flash_attention = !(arch->attn_softcap > 0 && fp->softcap_eager);
	w->grad_checkpointing = w->activation_checkpointing == AC_FULL;
	if (!SET(w, "activation_offloading"))
		w->activation_offloading = fp->ac_offload && w->activation_checkpointing == AC_FULL;
	if (w->activation_offloading && w->activation_checkpointing != AC_FULL && w->task != TASK_INFER)
		return fail_field("activation_offloading", bad, err, errlen,
				  _("offloads the inputs full checkpointing keeps: give activation_checkpointing full%s"),
				  "", 0);
	if (!SET(w, "optimizer_step")) w->optimizer_step = fp->step;
	if (!SET(w, "compile")) w->compile = fp->compile;
	if (!SET(w, "prefill_chunk")) w->prefill_chunk = fp->prefill_chunk;
	if (!SET(w, "gpu_memory_utilization")) w->gpu_memory_utilization = fp->gpu_mem_util;
	if (SET(w, "gpu_memory_utilization") && !(w->gpu_memory_utilization > 0))
		return fail_field("gpu_memory_utilization", bad, err, errlen,
				  _("expected a share of the card above 0%s, up to 100%%"), "", 0);
	if (fp->serving && w->task != TASK_INFER && SET(w, "framework"))
		return fail_field("framework", bad, err, errlen,
				  _("%s is a serving engine: it applies to task infer (train with another "
				  "framework)"), fp->name, 0);
	if (w->optimizer_step == STEP_IN_BWD && w->grad_accum > 1)
		return fail_field(SET(w, "optimizer_step") ? "optimizer_step" : "grad_accum", bad, err, errlen,
				  _("in_bwd steps as each gradient is ready, so it cannot accumulate gradients%s: "
				  "expected grad_accum 1, got %ld"), "", w->grad_accum);
	if (w->task == TASK_INFER) {
		static const char *const trn[] = {"activation_checkpointing", "activation_offloading",
						  "grad_checkpointing", "optimizer_step"};
		for (size_t i = 0; i < ARRAY_SIZE(trn); i++)
			if (SET(w, trn[i]))
				return fail_field(trn[i], bad, err, errlen,
						  _("applies to training, not task infer%s"), "", 0);
		w->activation_checkpointing = AC_NONE;
		w->grad_checkpointing = 0;
		w->activation_offloading = 0;
	}
	if (SET(w, "gpu_memory_utilization") && !w->gpu[0])
		return fail_field("gpu_memory_utilization", bad, err, errlen,
				  _("is a share of a card: give gpu too%s"), "", 0);
	if (w->task != TASK_INFER) {
		static const char *const inf[] = {"prefill_chunk", "gpu_memory_utilization"};
		for (size_t i = 0; i < ARRAY_SIZE(inf); i++)
			if (SET(w, inf[i]))
				return fail_field(inf[i], bad, err, errlen,
						  _("applies to task infer, not %s"), task_names[w->task], 0);
	}
	return 0;
}

/* formulas.md "Quantization formats": a named format fixes its bits (GPTQ
 * 4 or 8, the others one); quant_bits given must agree, else it is set. */
static int resolve_quant_format(struct workload *w, int *bad, char *err, size_t errlen)
{
	long bits = w->quant_format == QF_INT8 || w->quant_format == QF_Q8_0 ? 8 :
		    w->quant_format == QF_GPTQ && SET(w, "quant_bits") && w->quant_bits == 8 ? 8 : 4;

	if (w->task == TASK_TRAIN)
		return fail_field("quant_format", bad, err, errlen,
				  _("applies to a quantized model (task qlora, lora with quant_bits, or infer)%s"), "", 0);
	if (SET(w, "quant_bits") && w->quant_bits != bits)
		return fail_field("quant_bits", bad, err, errlen,
				  _("quant_format %s stores %ld-bit weights"), qf_names[w->quant_format], bits);
	w->quant_bits = bits;
	w->set[workload_field_index("quant_bits") / 64] |= 1ULL << (workload_field_index("quant_bits") % 64);
	return 0;
}

/* The GPUs over the nodes, LoRA's fields, the quantized base and what
 * FSDP, DeepSpeed and autocast options apply to. */
static int resolve_quant(struct workload *w, int *bad, char *err, size_t errlen)
{
	if (w->gpus % w->nodes)
		return fail_field(SET(w, "gpus") ? "gpus" : "nodes", bad, err, errlen,
				  _("expected the GPUs over all nodes: gpus a multiple of nodes%s (%ld)"), "",
				  w->nodes);
	if (w->task == TASK_LORA || w->task == TASK_QLORA) {
		if (!SET(w, "lora_rank")) w->lora_rank = 8;
		if (!SET(w, "lora_targets")) snprintf(w->lora_targets, sizeof(w->lora_targets), "q,v");
	} else if (SET(w, "lora_rank") || SET(w, "lora_targets") || SET(w, "lora_dropout")) {
		return fail_field(SET(w, "lora_rank") ? "lora_rank" : SET(w, "lora_targets") ? "lora_targets" : "lora_dropout",
				  bad, err, errlen,
				  _("applies to task lora or qlora, not %s"), task_names[w->task], 0);
	}
	if (!SET(w, "quant_bits"))
		w->quant_bits = w->task == TASK_QLORA ? 4 : 16;
	if (w->quant_bits != 4 && w->quant_bits != 8 && w->quant_bits != 16)
		return fail_field("quant_bits", bad, err, errlen,
				  _("expected 4, 8 or 16%s, got %ld"), "", w->quant_bits);
	if (w->task == TASK_TRAIN && w->quant_bits != 16)
		return fail_field("quant_bits", bad, err, errlen,
				  _("full training keeps trainable weights unquantized%s; use task qlora (got %ld bits)"),
				  "", w->quant_bits);
	if (w->task == TASK_QLORA && w->quant_bits == 16)
		return fail_field("quant_bits", bad, err, errlen,
				  _("qlora needs 4 or 8 bit base weights%s, got %ld"), "", w->quant_bits);
	if (SET(w, "quant_saves_input") && w->quant_saves_input &&
	    !((w->task == TASK_LORA || w->task == TASK_QLORA) && w->quant_bits == 4))
		return fail_field("quant_saves_input", bad, err, errlen,
				  _("applies to training on a 4-bit base (task qlora, or lora with quant_bits 4)%s"), "", 0);
	if (SET(w, "fsdp_frozen_grads") && w->fsdp_frozen_grads &&
	    !(w->task == TASK_LORA && w->quant_bits == 16 && w->zero == 3))
		return fail_field("fsdp_frozen_grads", bad, err, errlen,
				  _("applies to LoRA on a 16-bit base sharded with zero 3 (FSDP)%s"), "", 0);
	{
		/* FSDP's root unit and FSDP1's wrap cache: said true, FSDP's */
		const struct {
			const char *name;
			int on;
		} fsdp[] = {{"fsdp_root_gathered", w->fsdp_root_gathered}, {"fsdp_wrap_cache", w->fsdp_wrap_cache}};
		for (size_t i = 0; i < sizeof(fsdp) / sizeof(fsdp[0]); i++)
			if (SET(w, fsdp[i].name) && fsdp[i].on &&
			    !(w->zero == 3 && w->task != TASK_INFER && w->framework != FW_DEEPSPEED))
				return fail_field(fsdp[i].name, bad, err, errlen,
						  _("applies to training sharded with zero 3 by FSDP (not DeepSpeed, "
						      "which gathers each module apart)%s"), "", 0);
	}
	if (SET(w, "memory_efficient_linear") && !w->memory_efficient_linear &&
	    !(w->zero == 3 && w->task != TASK_INFER && w->quant_bits == 16 &&
	      (w->framework == FW_DEEPSPEED || w->framework == FW_HF || w->framework == FW_NONE)))
		return fail_field("memory_efficient_linear", bad, err, errlen,
				  _("applies to training an unquantized model under DeepSpeed ZeRO-3 (zero 3, framework "
				      "deepspeed, hf or none)%s"), "", 0);
	if (SET(w, "autocast_inference_cache") && w->autocast_inference_cache &&
	    !(w->task == TASK_INFER && (w->precision == PREC_AMP || w->precision == PREC_BF16 || w->precision == PREC_FP16)))
		return fail_field("autocast_inference_cache", bad, err, errlen,
				  _("applies to task infer in mixed precision (amp, bf16 or fp16)%s"), "", 0);
	return 0;
}

/* A service's fields (serve, rps, user_tps, ...) and their defaults. */
static int resolve_service(struct workload *w, int *bad, char *err, size_t errlen)
{
	if (SET(w, "serve") && w->task != TASK_INFER)
		return fail_field("serve", bad, err, errlen,
				  _("applies to task infer (a model served to users), not %s"), task_names[w->task], 0);
	{
		static const char *const svc[] = {"user_tps", "rps", "prompt_len", "output_len", "egress_month",
						  "tps_headroom"};
		for (size_t i = 0; i < ARRAY_SIZE(svc); i++)
			if (SET(w, svc[i]) && !SET(w, "serve"))
				return fail_field(svc[i], bad, err, errlen,
						  _("applies to a service (give serve: 24x7, 8x5 or 12h)%s"), "", 0);
	}
	if (!SET(w, "user_tps")) w->user_tps = 20;
	if (!SET(w, "tps_headroom")) w->tps_headroom = 0.20;   /* docs/serve.md "Headroom" */
	if (!SET(w, "output_len")) w->output_len = 256;
	if (!SET(w, "prompt_len")) w->prompt_len = 0;
	if (SET(w, "rps") && !SET(w, "concurrency")) {
		/* Little's law: sequences in flight = arrivals x time each is decoded */
		double n = ceil(w->rps * (double)w->output_len / w->user_tps);
		w->concurrency = n < 1 ? 1 : n > 1000000 ? 1000000 : (long)n;
	}
	if (SET(w, "serve") && SET(w, "prompt_len") && !SET(w, "context"))
		w->context = w->prompt_len + w->output_len;
	if (w->zero > 0 && w->task == TASK_INFER)
		return fail_field("zero", bad, err, errlen,
				  _("applies to training, not inference%s (got %ld)"), "", w->zero);
	return 0;
}

/* What the model's kind allows: image sizes or sequence lengths, tensor
 * parallel degrees, the KV cache's blocks. */
static int resolve_shape(struct workload *w, const struct model_spec *arch, int *bad, char *err, size_t errlen)
{
	long maxpos;

	if (arch->kind == MODEL_RESNET && w->activation_checkpointing == AC_SELECTIVE)
		return fail_field("activation_checkpointing", bad, err, errlen,
				  _("selective recomputes a transformer's attention, not the CNN '%s' (give full or none)"),
				  arch->name, 0);
	/* formulas.md "Inference time": tensor parallel splits the heads (vLLM
	 * refuses a degree that does not divide them); llama.cpp splits layers */
	if (w->task == TASK_INFER && w->gpus > 1 && arch->kind == MODEL_DECODER && arch->heads > 0 &&
	    !fw_profile(w->framework)->layer_split && arch->heads % w->gpus)
		return fail_field("gpus", bad, err, errlen,
				  _("tensor parallel splits the attention heads%s: expected a divisor of %ld"),
				  "", arch->heads);
	if (arch->kind == MODEL_RESNET || arch->kind == MODEL_VIT) {
		if (SET(w, "seq"))
			return fail_field("seq", bad, err, errlen,
					  _("does not apply to the image model '%s' (use image_size)"), arch->name, 0);
		if (!SET(w, "image_size")) w->image_size = arch->image_size;
		if (arch->kind == MODEL_VIT && w->image_size % arch->patch_size)
			return fail_field("image_size", bad, err, errlen,
					  _("expected a multiple of the patch size%s (%ld)"), "", arch->patch_size);
		if (arch->kind == MODEL_RESNET && w->image_size < 8)
			return fail_field("image_size", bad, err, errlen,
					  _("expected at least 8 pixels%s, got %ld"), "", w->image_size);
		if (w->task == TASK_LORA || w->task == TASK_QLORA)
			if (arch->kind == MODEL_RESNET)
				return fail_field("task", bad, err, errlen,
						  _("LoRA applies to transformer models, not the CNN '%s'"), arch->name, 0);
		w->seq = arch->kind == MODEL_VIT ? model_vit_tokens(arch, w->image_size) : 0;
	} else {
		if (SET(w, "image_size"))
			return fail_field("image_size", bad, err, errlen,
					  _("applies to image models, not '%s' (use seq)"), arch->name, 0);
		maxpos = arch->max_positions;
		if (!SET(w, "seq"))
			w->seq = (maxpos && maxpos < 2048) ? maxpos : 2048;
		if (!SET(w, "context") && !(SET(w, "serve") && SET(w, "prompt_len")))
			w->context = (maxpos && maxpos < 4096) ? maxpos : 4096;
		if (arch->pos == POS_LEARNED && maxpos && w->seq > maxpos)
			return fail_field("seq", bad, err, errlen,
					  _("model '%s' has learned positions up to %ld tokens"),
					  arch->name, maxpos);
		if (arch->pos == POS_LEARNED && maxpos && w->context > maxpos)
			return fail_field("context", bad, err, errlen,
					  _("model '%s' has learned positions up to %ld tokens"),
					  arch->name, maxpos);
	}
	/* formulas.md "KV cache": llama.cpp quantizes each head's row in blocks
	 * of 32 and refuses a head width the block does not divide */
	if (w->kv_dtype >= KV_Q8_0 && arch->kind == MODEL_DECODER && arch->head_dim % 32)
		return fail_field("kv_dtype", bad, err, errlen,
				  _("%s stores blocks of 32 values: expected a head_dim divisible by 32, got %ld"),
				  kv_names[w->kv_dtype], arch->head_dim);
	if (SET(w, "seq_spread") && (units_parse_spread(w->seq_spread, &w->seq_mean, &w->seq_sd) ||
				     w->task == TASK_INFER || arch->kind == MODEL_RESNET || arch->kind == MODEL_VIT)) {
		char q[160];
		return fail_field("seq_spread", bad, err, errlen, _("expected MEAN+-SD in tokens (a mean of at least 1, "
				  "an sd of 0 or more, e.g. 3234.4+-2547.5) for training a text model, got '%s'"),
				  quote_value(w->seq_spread, q, sizeof(q)), 0);
	}
	if (w->task == TASK_INFER && arch->kind != MODEL_DECODER && arch->kind != MODEL_PARAMS_ONLY &&
	    (SET(w, "context") || SET(w, "concurrency")))
		return fail_field(SET(w, "context") ? "context" : "concurrency", bad, err, errlen,
				  _("KV-cache inference applies to decoder models, not '%s'"), arch->name, 0);
	return 0;
}

int workload_resolve(struct workload *w, const struct model_db *mdb,
		     const struct gpu_db *gdb, struct model_spec *arch,
		     const struct gpu_spec **gpu, int *bad, char *err, size_t errlen)
{
	*bad = -1;
	*gpu = NULL;
	if (build_arch(w, mdb, arch, bad, err, errlen))
		return -1;
	resolve_defaults(w, arch);
	if ((SET(w, "quant_format") && w->quant_format != QF_AUTO && resolve_quant_format(w, bad, err, errlen)) ||
	    resolve_framework(w, arch, bad, err, errlen) || resolve_quant(w, bad, err, errlen) ||
	    resolve_service(w, bad, err, errlen) || resolve_shape(w, arch, bad, err, errlen))
		return -1;
	if (w->gpu[0]) {
		*gpu = gpu_db_find(gdb, w->gpu);
		if (!*gpu) {
			char sug[128];
			if (!gpu_db_suggest(gdb, w->gpu, sug, sizeof(sug))) {
				*bad = workload_field_index("gpu");
				snprintf(err, errlen, _("gpu: unknown GPU '%s' (did you mean '%s'?)"), w->gpu, sug);
				return -1;
			}
			return fail_field("gpu", bad, err, errlen,
					  _("unknown GPU '%s' (see 'gpurent gpus')"), w->gpu, 0);
		}
	}
	if (*gpu && w->task == TASK_INFER)
		serving_by_card(w, *gpu);
	return 0;
}

/* ---- digest (workload.h) ---- */

/* Fields that do not change what a step does: where, how long, the price,
 * and the estimator's assumptions (fsdp_*: what the framework is taken to
 * do, defaulted by it). Sorted. */
static const char *const digest_skip[] = {
	"access", "alloc_overhead", "budget", "cuda_context", "data_size", "deadline", "egress",
	"egress_month", "epochs", "fsdp_root_gathered", "fsdp_wrap_cache", "gpu", "headroom",
	"interconnect", "link_bw", "mfu", "node_bw", "prompt_tokens", "resumable", "rps", "samples",
	"serve", "step_time", "tflops", "tokens", "tps_headroom", "user_tps",
};

/* Fields added after probes were first recorded, with their default: hashed
 * only off it, so that a probe taken before the field existed still matches
 * the same workload. Sorted. */
static const struct {
	const char *name;
	int dflt;
} digest_new_bools[] = {
	{"gradient_as_bucket_view", 0},
	{"memory_efficient_linear", 1},
	{"quant_format", 0},
};

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t workload_digest(const struct workload *w)
{
	uint64_t h = 14695981039346656037ULL;
	char text[320];

	for (size_t i = 0; i < workload_nfields; i++) {
		const struct workload_field *f = &workload_fields[i];
		const char *p = (const char *)w + f->offset;
		bool skip = false;
		double d;
		long l;
		int k;

		for (size_t j = 0; j < sizeof(digest_skip) / sizeof(digest_skip[0]) && !skip; j++)
			skip = !strcmp(f->name, digest_skip[j]);
		if (skip)
			continue;
		if (!strcmp(f->name, "seq_spread") && !*p)   /* added later: hashed only when given */
			continue;
		switch (f->type) {
		case F_STR:
			snprintf(text, sizeof(text), "%s=%.*s\n", f->name, (int)strnlen(p, f->size), p);
			break;
		case F_INT:
			memcpy(&l, p, sizeof(l));
			snprintf(text, sizeof(text), "%s=%ld\n", f->name, l);
			break;
		case F_BOOL:
		case F_ENUM:
			memcpy(&k, p, sizeof(k));
			for (size_t j = 0; j < sizeof(digest_new_bools) / sizeof(digest_new_bools[0]) && !skip; j++)
				skip = !strcmp(f->name, digest_new_bools[j].name) && k == digest_new_bools[j].dflt;
			if (skip)
				continue;
			snprintf(text, sizeof(text), "%s=%d\n", f->name, k);
			break;
		case F_MONEY: {
			struct money m;
			memcpy(&m, p, sizeof(m));
			snprintf(text, sizeof(text), "%s=%.17g %.*s\n", f->name, m.amount,
				 (int)strnlen(m.code, sizeof(m.code)), m.code);
			break;
		}
		case F_SCHEDULE: {
			struct serve_sched sc;
			memcpy(&sc, p, sizeof(sc));
			snprintf(text, sizeof(text), "%s=%.17g x %.17g\n", f->name, sc.hours_per_day,
				 sc.days_per_week);
			break;
		}
		default:
			memcpy(&d, p, sizeof(d));
			snprintf(text, sizeof(text), "%s=%.17g\n", f->name, d == 0 ? 0.0 : d);
			break;
		}
		h = fnv1a(h, text);
	}
	return h ? h : 1;
}
