/*
 * test_framework.c - framework profiles (src/core/model/framework.c) and the
 * memory mechanisms they switch (docs/formulas.md "Framework profiles",
 * "Activations", "Optimizer step", "Sharded training", "Inference").
 * Each expected figure is worked from the formula by hand here, not read
 * back from the code.
 */
#include <math.h>

#include "testutil.h"

#include "core/model/framework.h"

#define GB 1e9

/* every framework has a row, a name the field accepts, and sane values */
static void test_every_profile(void **s)
{
	(void)s;
	for (int i = 0; i < FW_COUNT; i++) {
		const struct fw_profile *p = fw_profile(i);
		struct workload w;
		char err[256];
		assert_non_null(p->name);
		assert_string_equal(p->name, fw_names[i]);
		workload_init(&w);
		assert_int_equal(workload_set(&w, "framework", p->name, 0, err, sizeof(err)), 0);
		assert_int_equal(w.framework, i);
		assert_true(p->ac >= AC_NONE && p->ac <= AC_FULL);
		assert_true(p->step >= STEP_FOREACH && p->step <= STEP_FOR_LOOP);
		assert_true(p->gpu_mem_util >= 0 && p->gpu_mem_util <= 1);
		if (p->loss == LOSS_CHUNKED)
			assert_true(p->loss_chunks >= 1 || p->loss_chunk_tokens >= 1);
		if (!p->serving && i != FW_NONE)
			assert_true(p->what && *p->what);
	}
	/* out of range: none's row */
	assert_string_equal(fw_profile(-1)->name, "none");
	assert_string_equal(fw_profile(FW_COUNT)->name, "none");
}

/* the framework's defaults apply unless the field is given */
static void test_defaults_and_overrides(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e;
	char err[256];

	(void)s;
	tu_est("--model llama-3.1-8b --framework torchtune --task lora", &w, &m, &e);
	assert_int_equal(w.activation_checkpointing, AC_FULL);
	assert_true(w.grad_checkpointing);
	assert_int_equal(w.optimizer_step, STEP_FUSED);
	assert_true(w.double_quant);
	tu_est("--model llama-3.1-8b --framework torchtune --task lora --no-grad-checkpointing", &w, &m, &e);
	assert_int_equal(w.activation_checkpointing, AC_NONE);
	tu_est("--model llama-3.1-8b --framework torchtitan", &w, &m, &e);
	assert_int_equal(w.activation_checkpointing, AC_SELECTIVE);
	assert_false(w.grad_checkpointing);
	tu_est("--model llama-3.1-8b --framework torchtitan --activation-checkpointing full", &w, &m, &e);
	assert_true(w.grad_checkpointing);
	/* PEFT's k-bit preparation turns checkpointing on for a quantized base */
	tu_est("--model llama-3.1-8b --framework hf --task qlora", &w, &m, &e);
	assert_int_equal(w.activation_checkpointing, AC_FULL);
	tu_est("--model llama-3.1-8b --framework hf --task lora", &w, &m, &e);
	assert_int_equal(w.activation_checkpointing, AC_NONE);
	/* the two fields disagree: refused, naming grad_checkpointing */
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --grad-checkpointing --activation-checkpointing none",
					  &w, &m, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "grad_checkpointing"));
	/* serving fields belong to inference */
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --prefill-chunk 512", &w, &m, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "prefill_chunk"));
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --task infer --gpu-memory-utilization 0",
					  &w, &m, &e, err, sizeof(err)), -1);
	tu_est("--model llama-3.1-8b --task infer --framework vllm", &w, &m, &e);
	assert_true(w.compile);
	assert_true(w.prefill_chunk > 0);
}

/* optimizer step: foreach keeps a sqrt(v) copy (fp32, 4 B a parameter),
 * fused none, in_bwd frees each gradient: one parameter's (the embedding,
 * 128256 x 4096 for Llama-3.1-8B) at 2 bytes */
static void test_optimizer_step(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e, f, g;

	(void)s;
	tu_est("--model llama-3.1-8b --optimizer-step foreach", &w, &m, &e);
	assert_float_equal(e.mem.step_temp, e.params * 4, 1);
	tu_est("--model llama-3.1-8b --optimizer-step fused", &w, &m, &f);
	assert_float_equal(f.mem.step_temp, 0, 0);
	assert_float_equal(f.mem.step_peak, 0, 0);
	tu_est("--model llama-3.1-8b --optimizer-step in_bwd", &w, &m, &g);
	assert_float_equal(g.mem.gradients, 128256.0 * 4096 * 2, 1);
	assert_true(g.mem.allocated < f.mem.allocated - 15 * GB);
}

/* selective checkpointing: with flash attention Korthikanti's rule frees
 * nothing; without it the s x s scores go. torchtitan's by-op rule keeps,
 * per layer and token, h (input) + q + v + attention output + gate + down
 * outputs: for Llama-3.1-8B 4096 + 4096 + 1024 + 4096 + 14336 + 4096 =
 * 31744 values at 2 bytes, plus the fp32 log-sum-exp of 32 heads. */
static void test_selective(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate none, sel, nf_none, nf_sel, op;
	double n = 2.0 * 8192, L = 32;

	(void)s;
	tu_est("--model llama-3.1-8b --precision bf16-true --seq 8192 --micro-batch 2", &w, &m, &none);
	tu_est("--model llama-3.1-8b --precision bf16-true --seq 8192 --micro-batch 2 "
	       "--activation-checkpointing selective", &w, &m, &sel);
	assert_float_equal(sel.mem.activations, none.mem.activations, 1);
	tu_est("--model llama-3.1-8b --precision bf16-true --seq 1024 --no-flash-attention", &w, &m, &nf_none);
	tu_est("--model llama-3.1-8b --precision bf16-true --seq 1024 --no-flash-attention "
	       "--activation-checkpointing selective", &w, &m, &nf_sel);
	/* the scores: heads x s^2 x 2 bytes a layer */
	assert_float_equal(nf_none.mem.activations - nf_sel.mem.activations, 32 * 32.0 * 1024 * 1024 * 2, 1e3);
	tu_est("--model llama-3.1-8b --precision bf16-true --seq 8192 --micro-batch 2 --framework torchtitan",
	       &w, &m, &op);
	{
		double kept = n * (31744.0 * 2 + 32 * 4);
		/* L layers kept by op, plus one layer's rest recomputed, plus the
		 * embedding output and final norm (2 x 2 x n x h) */
		assert_true(op.mem.activations > L * kept);
		assert_true(op.mem.activations < L * kept + none.mem.activations / L + 4 * n * 4096 + 1);
	}
}

/* sharded training: FSDP holds this layer and the next (2 bytes), and in
 * backward a layer's gradients (2 bytes) and their fp32 copy for the
 * reduce-scatter (torchtitan reduces in fp32) */
static void test_sharded_buffers(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e, d;
	double layer;

	(void)s;
	tu_est("--model llama-3.1-8b --framework torchtitan --gpus 8 --zero 3", &w, &m, &e);
	/* FSDP2: the untied lm_head is the root unit's, gathered with the
	 * embedding (test_fsdp_root_and_wrap), not a layer's */
	layer = (e.params - 2 * model_params_embedding(&m)) / 32;
	assert_float_equal(e.shard_gathered, 2 * layer * 2 + e.shard_root, 1);
	assert_float_equal(e.shard_reduce, layer * 2 + layer * 4, 1);
	assert_float_equal(e.mem.sharding, e.shard_gathered + e.shard_reduce, 1);
	/* DeepSpeed: a layer + stage3_prefetch_bucket_size (5e7) gathered,
	 * the reduce bucket of 5e8 elements at 2 bytes */
	tu_est("--model llama-3.1-8b --framework deepspeed --gpus 8 --zero 3", &w, &m, &d);
	layer = (d.params - model_params_embedding(&m)) / 32;
	assert_float_equal(d.shard_gathered, (layer + 5e7) * 2, 1);
	assert_float_equal(d.shard_reduce, layer * 2 + 5e8 * 2, 1);
	/* LoRA under ZeRO-3: the adapters' weights and gradients (fp32, 4 B
	 * each) and AdamW's two fp32 states (8 B) sharded over the 8 GPUs */
	tu_est("--model llama-3.1-8b --task lora --gpus 8 --zero 3", &w, &m, &d);
	assert_float_equal(d.mem.adapters, d.lora_params * (4 + 4 + 8) / 8, 1);
	tu_est("--model llama-3.1-8b --task lora --gpus 8 --zero 1", &w, &m, &d);
	assert_float_equal(d.mem.adapters, d.lora_params * (4 + 4 + 8.0 / 8), 1);
	/* not sharded: none */
	tu_est("--model llama-3.1-8b --framework deepspeed --gpus 8 --zero 2", &w, &m, &d);
	assert_float_equal(d.mem.sharding, 0, 0);
}

/* serving: chunked prefill caps the transient activations; vLLM's
 * reservation makes the total 90% of the card */
static void test_serving(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate whole, chunk, v;

	(void)s;
	tu_est("--model llama-3.1-8b --task infer --context 32768", &w, &m, &whole);
	tu_est("--model llama-3.1-8b --task infer --context 32768 --prefill-chunk 2048", &w, &m, &chunk);
	assert_float_equal(chunk.mem.activations * 16, whole.mem.activations, whole.mem.activations * 1e-9);
	tu_est("--model llama-3.1-8b --task infer --framework vllm --gpu H100", &w, &m, &v);
	assert_float_equal(v.mem.reserved_share, 0.9, 1e-12);
	assert_float_equal(v.mem.reserved, 0.9 * 80e9, 1e3);
	assert_float_equal(v.mem.reserved_free, 0.9 * 80e9 - v.mem.total, 1e3);
	assert_true(v.mem.reserved_free > 40 * GB);
	assert_true(v.gpu_fits);
	/* the tiers are judged by the need, not the reservation: 24 GB fits */
	assert_true(v.tiers[1].fits);
	/* a share smaller than the need: it does not fit (vLLM will not start) */
	tu_est("--model llama-3.1-8b --task infer --framework vllm --gpu RTX4090 --gpu-memory-utilization 50%",
	       &w, &m, &v);
	assert_true(v.mem.reserved_free < 0);
	assert_false(v.gpu_fits);
	/* sized by the card: vLLM's server chunk is 8192 on an H100, 2048 on an
	 * A100; SGLang on an H100 (76294 MiB): 512 + 1.5 x 8192 + 2 x 256 +
	 * 1024 / 8 = 13440 MiB reserved, the share (76294 - 13440) / 76294 */
	tu_est("--model llama-3.1-8b --task infer --framework vllm --gpu H100", &w, &m, &v);
	assert_int_equal(w.prefill_chunk, 8192);
	tu_est("--model llama-3.1-8b --task infer --framework vllm --gpu A100-80GB", &w, &m, &v);
	assert_int_equal(w.prefill_chunk, 2048);
	tu_est("--model llama-3.1-8b --task infer --framework sglang --gpu H100", &w, &m, &v);
	assert_int_equal(w.prefill_chunk, 8192);
	assert_float_equal(w.gpu_memory_utilization, round((80e9 / 1048576 - 13440) / (80e9 / 1048576) * 1000) / 1000,
			   1e-12);
	tu_est("--model llama-3.1-8b --task infer --framework sglang --gpu L4", &w, &m, &v);
	assert_int_equal(w.prefill_chunk, 2048);
	/* given, it stays */
	tu_est("--model llama-3.1-8b --task infer --framework sglang --gpu H100 --gpu-memory-utilization 70%",
	       &w, &m, &v);
	assert_float_equal(w.gpu_memory_utilization, 0.7, 1e-12);
	/* without a GPU nothing is reserved: the need is shown */
	tu_est("--model llama-3.1-8b --task infer --framework vllm", &w, &m, &v);
	assert_float_equal(v.mem.reserved_share, 0, 0);
}

/* quantized bases: PEFT casts the rest to fp32 (hf); unsloth loads a
 * pre-quantized checkpoint (no 16-bit weight in flight); torchao's NF4
 * always double-quantizes (torchtune) */
static void test_quantized_loading(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate none, hf, un, tt;
	double rest;

	(void)s;
	tu_est("--model llama-3.1-8b --task qlora", &w, &m, &none);
	tu_est("--model llama-3.1-8b --task qlora --framework hf", &w, &m, &hf);
	rest = none.params - model_params_linear(&m);
	assert_float_equal(hf.mem.weights - none.mem.weights, rest * 2, 1);
	tu_est("--model llama-3.1-8b --task qlora --framework unsloth", &w, &m, &un);
	assert_float_equal(un.mem.load_inflight, 0, 0);
	assert_true(none.mem.load_inflight > 0);
	tu_est("--model llama-3.1-8b --task qlora --framework torchtune", &w, &m, &tt);
	assert_true(tt.mem.quant_consts < none.mem.quant_consts / 3);
}

/* bitsandbytes <= 0.43.1 kept each 4-bit linear's input: per layer and
 * token the two norm outputs (2 x 4096), attention's output (4096) and the
 * MLP's product (14336) at 2 bytes, in each of 32 layers (one under
 * recomputation); LitGPT quantizes the lm_head too: its 128256 x 4096
 * weight at NF4, dequantized whole, and its input kept */
static void test_quant_saves_input(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate off, on, ck, lit, lit16;
	char err[256];
	double tokens = 2048, per = 2 * 4096.0 + 4096 + 14336;

	(void)s;
	tu_est("--model llama-3.1-8b --task qlora --no-grad-checkpointing", &w, &m, &off);
	assert_float_equal(off.mem.quant_saved, 0, 0);
	tu_est("--model llama-3.1-8b --task qlora --no-grad-checkpointing --quant-saves-input", &w, &m, &on);
	assert_float_equal(on.mem.quant_saved, 32 * per * tokens * 2, 1);
	assert_float_equal(on.mem.train_peak - off.mem.train_peak, on.mem.quant_saved, 1);
	tu_est("--model llama-3.1-8b --task qlora --grad-checkpointing --quant-saves-input", &w, &m, &ck);
	assert_float_equal(ck.mem.quant_saved, per * tokens * 2, 1);
	tu_est("--model llama-3.1-8b --task qlora --framework litgpt --no-grad-checkpointing --quant-saves-input",
	       &w, &m, &lit);
	assert_float_equal(lit.mem.quant_saved, (32 * per + 4096) * tokens * 2, 1);
	/* Lightning quantized it from fp16: dequantized to fp16, then cast to bf16 */
	assert_float_equal(lit.mem.dequant, 128256.0 * 4096 * 4, 1);
	tu_est("--model llama-3.1-8b --task qlora --no-grad-checkpointing --loss full", &w, &m, &lit16);
	/* the lm_head at 0.5625 bytes instead of 2 */
	assert_true(lit.mem.weights < lit16.mem.weights - 128256.0 * 4096 * 1.4);
	/* only a 4-bit base can say it */
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --task lora --quant-saves-input", &w, &m, &on,
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "quant_saves_input"));
}

/* torch.compile: a norm keeps its input only and the gated MLP its two
 * matmul outputs: 2 norms x h + 2 x ffn fewer values a token a layer */
static void test_compile_activations(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate eager, comp;
	double tokens = 2048;

	(void)s;
	tu_est("--model llama-3.1-8b --precision bf16-true", &w, &m, &eager);
	tu_est("--model llama-3.1-8b --precision bf16-true --compile", &w, &m, &comp);
	assert_float_equal(eager.mem.activations - comp.mem.activations,
			   32 * tokens * 2 * (2 * 4096.0 + 2 * 14336.0), 1e3);
}

/* FSDP1 with use_orig_params and each layer one unit (lit-gpt 8641822's
 * Block wrap under Lightning Fabric; fsdp_frozen_grads): a layer's frozen
 * weights and its LoRA adapters are one FlatParameter that requires grad,
 * so backward computes the layer's whole gradient: under no_sync (gradient
 * accumulation) every layer's, unsharded, at 2 bytes; without accumulation
 * a shard of them plus one layer unsharded. Llama-2-7B: 32 layers of
 * 202,383,360 parameters, and the final norm's 4096 (N - 2 x 32000 x 4096
 * for the embedding and the lm_head; the norm is counted with the layers,
 * 8 kB). Off unless said: LitGPT wraps nn.Linear since 281510ab and uses
 * FSDP2 since 5ac69b06; PEFT, torchtune and answer.ai wrap adapters apart. */
static void test_fsdp_frozen_grads(void **s)
{
	static const char *const fws[] = {"litgpt", "torchtune", "hf", "fsdp", "none"};
	struct workload w;
	struct model_spec m;
	struct estimate acc, one, off, q;
	char args[256], err[256];
	double blocks = 32 * 202383360.0 + 4096;

	(void)s;
	tu_est("--model llama-2-7b --task lora --precision bf16-true --gpus 2 --zero 3 --framework litgpt "
	       "--grad-accum 32 --fsdp-frozen-grads", &w, &m, &acc);
	assert_float_equal(model_params(&m) - 2 * 32000.0 * 4096, blocks, 1);
	assert_float_equal(acc.shard_reduce, blocks * 2, 1);
	tu_est("--model llama-2-7b --task lora --precision bf16-true --gpus 2 --zero 3 --framework litgpt "
	       "--grad-accum 32", &w, &m, &off);
	assert_float_equal(off.shard_reduce, 0, 0);
	assert_float_equal(acc.mem.sharding - off.mem.sharding, blocks * 2, 1);
	tu_est("--model llama-2-7b --task lora --precision bf16-true --gpus 2 --zero 3 --framework litgpt "
	       "--fsdp-frozen-grads", &w, &m, &one);
	assert_float_equal(one.shard_reduce, blocks * 2 / 2 + blocks / 32 * 2, 1);
	/* off by default whatever the framework */
	for (size_t i = 0; i < sizeof(fws) / sizeof(fws[0]); i++) {
		snprintf(args, sizeof(args), "--model llama-2-7b --task lora --precision bf16-true --gpus 2 "
			 "--zero 3 --grad-accum 32 --framework %s", fws[i]);
		tu_est(args, &w, &m, &off);
		assert_float_equal(off.shard_reduce, 0, 0);
	}
	/* QLoRA: off by default, and the field refused (no 16-bit frozen weights) */
	tu_est("--model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework litgpt "
	       "--grad-accum 32", &w, &m, &q);
	assert_float_equal(q.shard_reduce, 0, 0);
	assert_int_equal(tu_estimate_args("--model llama-2-7b --task qlora --gpus 2 --zero 3 --fsdp-frozen-grads",
					  &w, &m, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fsdp_frozen_grads"));
	assert_int_equal(tu_estimate_args("--model llama-2-7b --task lora --gpus 2 --fsdp-frozen-grads",
					  &w, &m, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fsdp_frozen_grads"));
}

/*
 * formulas.md "Sharded training": FSDP's root unit (the embedding and the
 * untied lm_head) stays gathered to the end of backward; FSDP1's wrap
 * (framework fsdp) leaves two copies of the root and of one layer cached,
 * of which training's default-stream tensors take back what they need.
 * The expected bytes are worked from the architecture, not the code.
 */
static void test_fsdp_root_and_wrap(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate fs, none, ds, q512, q4k, hfq, titan, off, one, f32, tied, enc;
	double Vh = 32000.0 * 4096;
	double layer7b = 4 * 4096.0 * 4096 + 3 * 4096.0 * 11008;   /* Llama-2-7B's linears a layer */

	(void)s;
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework fsdp --micro-batch 1 --seq 2048", &w, &m, &fs);
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --micro-batch 1 --seq 2048", &w, &m, &none);
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --micro-batch 1 --seq 2048", &w, &m, &ds);
	/* training: the root at the weights' 2 bytes (524 MB), the lm_head
	 * no layer's: a layer is its linears and two norms, plus the final
	 * norm spread over the 32 */
	assert_near(fs.shard_root, 524288000, 1e-12);
	assert_near(fs.shard_gathered, 2 * (layer7b + 2 * 4096 + 4096 / 32.0) * 2 + 524288000, 1e-9);
	assert_near(none.shard_root, 0, 0);
	assert_near(ds.shard_root, 0, 0);
	/* backward gathers all but the root again: 7/8 of it less traffic */
	assert_near(none.comm_bytes - fs.comm_bytes, 7.0 / 8 * 524288000, 1e-6);
	/* said off (torchtune's custom_sharded_layers): as before the root */
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework fsdp --micro-batch 1 --seq 2048 "
	       "--no-fsdp-root-gathered --no-fsdp-wrap-cache", &w, &m, &off);
	assert_near(off.shard_root, 0, 0);
	assert_near(off.shard_gathered, none.shard_gathered, 1e-12);
	/* one GPU is FSDP's NO_SHARD: nothing gathered, nothing cached */
	tu_est("--model llama-2-7b --gpus 1 --zero 3 --framework fsdp", &w, &m, &one);
	assert_near(one.shard_root, 0, 0);
	assert_near(one.mem.wrap_cache, 0, 0);
	/* fp32: 4 bytes; a tied embedding once (gemma-3-1b: 262144 x 1152) */
	tu_est("--model llama-2-7b --precision fp32 --gpus 8 --zero 3 --framework fsdp", &w, &m, &f32);
	assert_near(f32.shard_root, 2 * Vh * 4, 1e-12);
	tu_est("--model gemma-3-1b --gpus 8 --zero 3 --framework torchtitan", &w, &m, &tied);
	assert_true(m.tied_embeddings);
	assert_near(tied.shard_root, 262144.0 * 1152 * 2, 1e-12);
	/* an encoder has no lm_head root in the model */
	tu_est("--model bert-base --gpus 8 --zero 3 --framework fsdp", &w, &m, &enc);
	assert_near(enc.shard_root, 0, 0);
	/* QLoRA over two GPUs (answer.ai's run): the root stays 16-bit; the
	 * cache is two copies of it and of an NF4 layer (0.5 B a weight + one
	 * fp32 absmax a block of 64, double_quant off, and the 16-bit norms) */
	tu_est("--model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework fsdp "
	       "--grad-checkpointing --micro-batch 1 --seq 512 --lora-rank 64 --lora-targets q+k+v+gate+up+down",
	       &w, &m, &q512);
	assert_near(q512.shard_root, 524288000, 1e-12);
	assert_near(q512.mem.wrap_cache, 2 * (524288000 + layer7b * (0.5 + 4.0 / 64) + (2 * 4096 + 4096 / 32.0) * 2),
		    1e-9);
	/* 512 tokens: training's own tensors fill part of the cache, the rest stays reserved */
	assert_true(q512.mem.wrap_left > 0.1 * q512.mem.wrap_cache && q512.mem.wrap_left < q512.mem.wrap_cache);
	assert_true(q512.mem.allocator > q512.mem.allocated * w.alloc_overhead + 0.99 * q512.mem.wrap_left);
	/* 4096 tokens: they need more than the cache holds, nothing is left */
	tu_est("--model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework fsdp "
	       "--grad-checkpointing --micro-batch 1 --seq 4096 --lora-rank 64 --lora-targets q+k+v+gate+up+down",
	       &w, &m, &q4k);
	assert_near(q4k.mem.wrap_cache, q512.mem.wrap_cache, 1e-12);
	assert_near(q4k.mem.wrap_left, 0, 0);
	/* the reserve: the overhead, and the loss's segments the recomputed
	 * layer split (formulas.md "Peak by phase") */
	assert_true(q4k.loss.apart > 0);
	assert_near(q4k.mem.allocator, q4k.mem.allocated * w.alloc_overhead + q4k.loss.apart, 1e-12);
	/* Transformers' ZeRO-3 names no FSDP root; FSDP2 builds on meta, no wrap cache */
	tu_est("--model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework hf "
	       "--micro-batch 1 --seq 512", &w, &m, &hfq);
	assert_near(hfq.shard_root, 0, 0);
	assert_near(hfq.mem.wrap_cache, 0, 0);
	tu_est("--model llama-3.1-8b --gpus 8 --zero 3 --framework torchtitan --micro-batch 1 --seq 2048", &w, &m,
	       &titan);
	assert_near(titan.shard_root, 2 * 128256.0 * 4096 * 2, 1e-12);
	assert_near(titan.mem.wrap_cache, 0, 0);
	/* DeepSpeed gathers module by module: no root to keep */
	tu_est_refused("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --fsdp-root-gathered",
		       "fsdp_root_gathered");
	tu_est_refused("--model llama-2-7b --gpus 8 --zero 2 --framework fsdp --fsdp-wrap-cache", "fsdp_wrap_cache");
}

/* DeepSpeed ZeRO-3 without its linear wrapper (memory_efficient_linear
 * false): torch's linear saves weight.t(), which keeps each gathered
 * weight until its backward. Llama-2-7B: 32 layers of 4h^2 + 3hf =
 * 202,375,168 linear weights (h 4096, f 11008) and the lm_head's 32000 x
 * 4096, at 2 bytes: 13.21 GB without checkpointing; one layer and the
 * lm_head with it. Nothing by default, nothing under FSDP (refused), and
 * refused below zero 3. */
static void test_memory_efficient_linear(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate on, off, ck, lora, lora_on;
	double layer = 4 * 4096.0 * 4096 + 3 * 4096.0 * 11008, lm = 32000.0 * 4096;

	(void)s;
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --micro-batch 2 --seq 4096", &w, &m, &on);
	assert_near(on.shard_kept, 0, 0);
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --micro-batch 2 --seq 4096 "
	       "--no-memory-efficient-linear", &w, &m, &off);
	assert_near(off.shard_kept, (32 * layer + lm) * 2, 1e-12);
	assert_near(off.shard_kept, 13.21e9, 1e-3);
	assert_near(off.mem.sharding - on.mem.sharding, off.shard_kept, 1e-12);
	assert_near(off.mem.allocated - on.mem.allocated, off.shard_kept, 1e-12);
	tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --micro-batch 2 --seq 4096 "
	       "--grad-checkpointing --no-memory-efficient-linear", &w, &m, &ck);
	assert_near(ck.shard_kept, (layer + lm) * 2, 1e-12);
	/* a frozen 16-bit base keeps them too (its input gradient needs the weight) */
	tu_est("--model llama-2-7b --task lora --precision bf16-true --gpus 8 --zero 3 --framework deepspeed "
	       "--no-memory-efficient-linear", &w, &m, &lora);
	tu_est("--model llama-2-7b --task lora --precision bf16-true --gpus 8 --zero 3 --framework deepspeed",
	       &w, &m, &lora_on);
	assert_near(lora.shard_kept, (32 * layer + lm) * 2, 1e-12);
	assert_near(lora_on.shard_kept, 0, 0);
	/* the digest a probe records: the default hashes as before the field
	 * existed (workload.c digest_new_bools), false differs */
	{
		struct workload d0, d1, d2;

		tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed", &d0, &m, &on);
		tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --memory-efficient-linear", &d1, &m,
		       &on);
		tu_est("--model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --no-memory-efficient-linear", &d2,
		       &m, &on);
		assert_true(workload_digest(&d0) == workload_digest(&d1));
		assert_true(workload_digest(&d0) != workload_digest(&d2));
	}
	/* refused where it cannot hold: FSDP frees the storage itself, ZeRO-2 keeps whole weights anyway */
	tu_est_refused("--model llama-2-7b --gpus 8 --zero 3 --framework fsdp --no-memory-efficient-linear",
		       "memory_efficient_linear");
	tu_est_refused("--model llama-2-7b --gpus 8 --zero 2 --framework deepspeed --no-memory-efficient-linear",
		       "memory_efficient_linear");
	tu_est_refused("--model llama-2-7b --task qlora --gpus 8 --zero 3 --framework deepspeed "
		       "--no-memory-efficient-linear", "memory_efficient_linear");
}

/* LoRA dropout, x -> dropout(x) @ A @ B: each adapted linear keeps the
 * dropped input (2 B) and its mask (1 B). On q and v of Llama-2-7B at
 * 1 x 512 without checkpointing: PEFT (hf) drops x for each, two copies of
 * 4096 values a token a layer; LitGPT's fused qkv adapter one. */
static void test_lora_dropout(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate hf0, hf1, lit0, lit1, all0, all1;
	char err[256];
	double tok = 512, L = 32, h = 4096;

	(void)s;
	tu_est("--model llama-2-7b --task lora --seq 512 --framework hf", &w, &m, &hf0);
	tu_est("--model llama-2-7b --task lora --seq 512 --framework hf --lora-dropout 0.1", &w, &m, &hf1);
	assert_float_equal(hf1.mem.activations - hf0.mem.activations, L * tok * 2 * h * 3, 1);
	tu_est("--model llama-2-7b --task lora --seq 512 --framework litgpt", &w, &m, &lit0);
	tu_est("--model llama-2-7b --task lora --seq 512 --framework litgpt --lora-dropout 0.05", &w, &m, &lit1);
	assert_float_equal(lit1.mem.activations - lit0.mem.activations, L * tok * h * 3, 1);
	/* every linear: qkv once, o, gate, up (4096 each) and down (11008) */
	tu_est("--model llama-2-7b --task lora --seq 512 --framework litgpt --lora-targets all", &w, &m, &all0);
	tu_est("--model llama-2-7b --task lora --seq 512 --framework litgpt --lora-targets all --lora-dropout 0.05",
	       &w, &m, &all1);
	assert_float_equal(all1.mem.activations - all0.mem.activations, L * tok * (4 * h + 11008) * 3, 1);
	/* a LoRA field: refused for full training */
	assert_int_equal(tu_estimate_args("--model llama-2-7b --task train --lora-dropout 0.1", &w, &m, &hf0,
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lora_dropout"));
}

/* LitGPT keeps its lm_head a tensor of its own even where the checkpoint
 * ties it (convert_hf_checkpoint copies wte into lm_head): Llama-3.2-1B
 * carries 128256 x 2048 parameters more than under Transformers. */
static void test_untied_lm_head(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate hf, lit;

	(void)s;
	tu_est("--model llama-3.2-1b --task lora --precision bf16-true --framework hf", &w, &m, &hf);
	tu_est("--model llama-3.2-1b --task lora --precision bf16-true --framework litgpt", &w, &m, &lit);
	assert_float_equal(lit.params - hf.params, 128256.0 * 2048, 1);
	assert_float_equal(lit.mem.weights - hf.mem.weights, 128256.0 * 2048 * 2, 1);
}

/* Lightning bf16-mixed: fp32 module under torch.autocast. Serving under
 * a PyTorch that caches casts in inference_mode (2.1; the #158232 fix stops
 * it: autocast_inference_cache), the 16-bit casts of the linears and the
 * lm_head stay cached for the forward (parameters that require grad):
 * Llama-2-7B holds N x 4 + (32 layers x 4 x 4096^2 + 3 x 4096 x 11008,
 * + 32000 x 4096) x 2 bytes; by default N x 4. */
static void test_autocast_casts(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e, t16;
	double lin = 32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008), head = 32000.0 * 4096;
	char err[256];

	(void)s;

	tu_est("--model llama-2-7b --task infer --precision bf16 --framework litgpt --context 56 "
	       "--autocast-inference-cache", &w, &m, &e);
	assert_float_equal(e.mem.weights, model_params(&m) * 4 + (lin + head) * 2, 1);
	tu_est("--model llama-2-7b --task infer --precision bf16 --framework litgpt --context 56", &w, &m, &e);
	assert_float_equal(e.mem.weights, model_params(&m) * 4, 1);
	assert_int_equal(tu_estimate_args("--model llama-2-7b --task infer --precision bf16-true "
					  "--autocast-inference-cache", &w, &m, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "autocast_inference_cache"));
	/* bf16-true: the module is 16-bit, nothing cast */
	tu_est("--model llama-2-7b --task infer --precision bf16-true --framework litgpt --context 56", &w, &m, &t16);
	assert_float_equal(t16.mem.weights, model_params(&m) * 2, 1);
}

/* LitGPT serving a 4-bit base: the lm_head is quantized too and MatMul4Bit
 * dequantizes it whole for the prompt (fp16, then cast to bf16: 4 B an
 * element); Transformers' 4-bit model dequantizes its largest linear (the
 * MLP's 4096 x 11008) once. */
static void test_serving_4bit(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate lit, hf;

	(void)s;
	tu_est("--model llama-2-7b --task infer --precision bf16-true --quant-bits 4 --framework litgpt", &w, &m, &lit);
	assert_float_equal(lit.mem.dequant, 32000.0 * 4096 * 4, 1);
	tu_est("--model llama-2-7b --task infer --precision bf16-true --quant-bits 4 --framework hf", &w, &m, &hf);
	assert_float_equal(hf.mem.dequant, 4096.0 * 11008 * 2, 1);
	/* the lm_head at 4 bits instead of 16 */
	assert_float_equal(hf.mem.weights - lit.mem.weights, 32000.0 * 4096 * (2 - 0.5), 1);
}

/* LitGPT's tensor parallel (generate/tp.py) shards the layers' linears
 * only: the embedding and the lm_head whole on each GPU. Llama-2-70B
 * bf16-true over 8: (N - 2 x 32000 x 8192) x 2 / 8 + 2 x 32000 x 8192 x 2. */
static void test_tp_vocab(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate lit, none;
	double vh = 32000.0 * 8192;

	(void)s;
	tu_est("--model llama-2-70b --task infer --precision bf16-true --gpus 8 --framework litgpt", &w, &m, &lit);
	assert_float_equal(lit.mem.weights, (model_params(&m) - 2 * vh) * 2 / 8 + 2 * vh * 2, 1);
	tu_est("--model llama-2-70b --task infer --precision bf16-true --gpus 8", &w, &m, &none);
	assert_float_equal(none.mem.weights, model_params(&m) * 2 / 8, 1);
}

/* LoRA under Lightning bf16-mixed: a frozen fp32 weight is not cached
 * (it does not require grad), so every matmul keeps its own 16-bit copy
 * for backward: all 32 layers' linears, and the lm_head's for each of the
 * ceil(512 / 128) = 4 chunks LitGPT's loss calls it. These copies do not
 * grow with the micro-batch, so twice the one-sample activations less the
 * two-sample ones leave them: (lin + 4 x 32000 x 4096) x 2 bytes. */
static void test_lora_autocast_copies(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate b1, b2, t1, t2;
	double lin = 32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008), head = 32000.0 * 4096;

	(void)s;
	tu_est("--model llama-2-7b --task lora --precision bf16 --framework litgpt --seq 512", &w, &m, &b1);
	tu_est("--model llama-2-7b --task lora --precision bf16 --framework litgpt --seq 512 --micro-batch 2",
	       &w, &m, &b2);
	assert_float_equal(2 * b1.mem.activations - b2.mem.activations, (lin + 4 * head) * 2, 1e3);
	/* bf16-true: a 16-bit module, nothing cast */
	tu_est("--model llama-2-7b --task lora --precision bf16-true --framework litgpt --seq 512", &w, &m, &t1);
	tu_est("--model llama-2-7b --task lora --precision bf16-true --framework litgpt --seq 512 --micro-batch 2",
	       &w, &m, &t2);
	assert_float_equal(2 * t1.mem.activations - t2.mem.activations, 0, 1e3);
}

/* Gemma 2 caps its attention logits (models.csv attn_softcap 50), and
 * LitGPT then runs q @ k.mT, tanh and softmax itself ("with softcapping we
 * cannot use SDPA", litgpt model.py): explicit attention unless the user
 * says --flash-attention; Llama under LitGPT and Gemma 2 under the other
 * frameworks keep the fused kernel. */
static void test_softcap_attention(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e;

	(void)s;
	tu_est("--model gemma-2-9b --task qlora --framework litgpt --seq 512", &w, &m, &e);
	assert_true(m.attn_softcap == 50);
	assert_int_equal(w.flash_attention, 0);
	tu_est("--model gemma-2-9b --task qlora --framework litgpt --seq 512 --flash-attention", &w, &m, &e);
	assert_int_equal(w.flash_attention, 1);
	tu_est("--model gemma-2-9b --task qlora --framework hf --seq 512", &w, &m, &e);
	assert_int_equal(w.flash_attention, 1);
	tu_est("--model llama-2-7b --task qlora --framework litgpt --seq 512", &w, &m, &e);
	assert_float_equal(m.attn_softcap, 0, 0);
	assert_int_equal(w.flash_attention, 1);
}

/* A 4-bit base Lightning quantized from fp16, trained in fp32: the fp16
 * dequantized copy and its fp32 cast at once, 2 + 4 bytes an element of
 * the largest weight (the 4-bit lm_head, 32000 x 4096). */
static void test_fp16_state_fp32(void **s)
{
	struct workload w;
	struct model_spec m;
	struct estimate e;

	(void)s;
	tu_est("--model llama-2-7b --task qlora --precision fp32 --framework litgpt --seq 512", &w, &m, &e);
	assert_float_equal(e.mem.dequant, 32000.0 * 4096 * 6, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_profile),
		cmocka_unit_test(test_defaults_and_overrides),
		cmocka_unit_test(test_optimizer_step),
		cmocka_unit_test(test_selective),
		cmocka_unit_test(test_sharded_buffers),
		cmocka_unit_test(test_serving),
		cmocka_unit_test(test_quantized_loading),
		cmocka_unit_test(test_compile_activations),
		cmocka_unit_test(test_quant_saves_input),
		cmocka_unit_test(test_fsdp_frozen_grads),
		cmocka_unit_test(test_memory_efficient_linear),
		cmocka_unit_test(test_fsdp_root_and_wrap),
		cmocka_unit_test(test_lora_dropout),
		cmocka_unit_test(test_untied_lm_head),
		cmocka_unit_test(test_autocast_casts),
		cmocka_unit_test(test_serving_4bit),
		cmocka_unit_test(test_tp_vocab),
		cmocka_unit_test(test_lora_autocast_copies),
		cmocka_unit_test(test_softcap_attention),
		cmocka_unit_test(test_fp16_state_fp32),
	};
	return cmocka_run_group_tests_name("framework", tests, tu_setup, tu_teardown);
}
