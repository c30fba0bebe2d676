/* test_estimate_phase.c - issue 30 items 2 and 4, worked by hand: the
 * loss's dtype by framework and precision, the loss and the recomputed
 * layer as two moments (formulas.md "Logits", "Peak by phase"), and a
 * decode step's overhead by framework and bandwidth share by card and
 * format (formulas.md "Inference time"). */
#include "testutil.h"

static struct workload w;
static struct model_spec arch;
static struct estimate e;

/* GPT-2 XL (48 layers, h 1600, 25 heads x 64, ffn 6400, V 50257, two
 * LayerNorms a layer, dropout 0.1), micro-batch 40 x 1024: n = 40960
 * positions; the ZeRO-3 fp16 case. */
#define XL "--model gpt2-xl --task train --micro-batch 40 --seq 1024 --gpus 8 --zero 3 "

static void test_loss_dtype(void **s)
{
	double n = 40960, V = 50257;

	(void)s;
	/* DeepSpeed fp16: the engine's module.half(), a plain cross-entropy on
	 * half logits: logits 2 + log-softmax 2 + its gradient 2 = 6 B a logit */
	tu_est(XL "--framework deepspeed --precision fp16", &w, &arch, &e);
	assert_int_equal(arch.vocab, 50257);
	assert_true(e.loss.half);
	assert_true(e.mem.logits == n * V * 6);          /* 12.35 GB */
	/* bf16 under DeepSpeed, and fp16 under autocast (hf): the fp32 upcast,
	 * 2 + 4 + 4 = 10 B a logit */
	tu_est(XL "--framework deepspeed --precision bf16", &w, &arch, &e);
	assert_false(e.loss.half);
	assert_true(e.mem.logits == n * V * 10);         /* 20.59 GB */
	tu_est(XL "--framework hf --precision fp16", &w, &arch, &e);
	assert_false(e.loss.half);
	assert_true(e.mem.logits == n * V * 10);
	/* no framework named: gpurent's default loss (transformers' upcast) */
	tu_est(XL "--precision fp16-true", &w, &arch, &e);
	assert_false(e.loss.half);
	/* a chunked or fused loss keeps its own accounting */
	tu_est(XL "--framework deepspeed --precision fp16 --loss fused", &w, &arch, &e);
	assert_false(e.loss.half);
	assert_true(e.mem.logits == n * V * 2);
}

/* formulas.md "Peak by phase": the recomputed layer's bytes (the layer's
 * activations, in 16 bits under DeepSpeed's cast module): norm inputs
 * and outputs 2 x 2 x h, q k v and attention's output 4h (25 x 64 =
 * 1600 = h), the MLP's input and GELU output 2 x ffn, at 2 B; two 1-byte
 * dropout masks of h; flash attention's fp32 log-sum-exp, 4 x heads. */
static void test_peak_moment(void **s)
{
	double n = 40960, V = 50257, h = 1600, L = 48;
	double per = 2 * n * 2 * 2 * h + 2 * n * 4 * h + 2 * n * 6400 * 2 + 2 * n * h + 4 * 25 * n;
	double kept = L * 2 * n * h + 2 * 2 * n * h;   /* the checkpoints, the embedding and final norm outputs */
	double alloc_sum, reserved_sum;

	(void)s;
	assert_true(per == 2232320000.0);
	/* without checkpointing every layer is live at the loss: the sum */
	tu_est(XL "--framework deepspeed --precision fp16", &w, &arch, &e);
	assert_true(e.loss.apart == 0);
	/* checkpointing: the loss (12.35 GB) is freed before the last layer is
	 * recomputed (2.23 GB), so the larger of the two moments counts */
	tu_est(XL "--framework deepspeed --precision fp16 --grad-checkpointing", &w, &arch, &e);
	assert_true(e.loss.apart == per);
	assert_near(e.mem.activations, kept, 1);
	assert_true(e.mem.activations + e.mem.logits == kept + fmax(per, n * V * 6));
	/* the caching allocator keeps the loss's split segments beside the
	 * recomputed layer: reserved loses only the overhead on apart */
	alloc_sum = e.mem.allocated + per;
	reserved_sum = alloc_sum * (1 + w.alloc_overhead);
	assert_near(e.mem.allocated + e.mem.allocator, reserved_sum - per * w.alloc_overhead, 1);
	/* a loss smaller than the layer: only the loss's bytes come off */
	tu_est("--model gpt2-xl --task train --micro-batch 40 --seq 1024 --framework deepspeed --precision fp16 "
	       "--grad-checkpointing --loss fused", &w, &arch, &e);
	assert_true(e.mem.logits == n * V * 2);
	assert_true(e.loss.apart == fmin(per, n * V * 2));
}

/* formulas.md "Inference time" (issue 30 item 4): llama.cpp's share of
 * the bandwidth by the card's FP32 FLOP:byte ratio R and the format:
 * share = 0.89 x R / (R + c), c = 9 FLOP/B for a block format, 3.5 for f16. */
static void test_decode_share_by_card(void **s)
{
	double a100 = 19.5e12 / 2039e9, rtx4090 = 82.6e12 / 1008e9;   /* 9.56 and 81.9 FLOP/B */
	double q4090;

	(void)s;
	/* an HBM card with few CUDA-core FLOPs a byte: under half the bandwidth */
	tu_est("--model llama-3.1-8b --task infer --context 1024 --tokens 1e6 --gpu A100-80GB "
	       "--framework llama.cpp --quant-bits 4", &w, &arch, &e);
	assert_near(e.decode_bw_efficiency, 0.89 * a100 / (a100 + 9), 1e-12);     /* 0.458 */
	assert_true(e.decode_bw_efficiency < 0.46 && e.decode_bw_efficiency > 0.45);
	tu_est("--model llama-3.1-8b --task infer --context 1024 --tokens 1e6 --gpu A100-80GB "
	       "--framework llama.cpp", &w, &arch, &e);
	assert_near(e.decode_bw_efficiency, 0.89 * a100 / (a100 + 3.5), 1e-12);   /* f16: 0.651 */
	/* the decode note says the ratio it took */
	for (int i = 0; i < e.nassumptions; i++)
		if (e.assumptions[i].code == EST_N_DECODE)
			assert_near(e.assumptions[i].flops, a100, 1e-12);
	/* a GDDR consumer card with many: most of it */
	tu_est("--model llama-3.1-8b --task infer --context 1024 --tokens 1e6 --gpu RTX4090 "
	       "--framework llama.cpp --quant-bits 4", &w, &arch, &e);
	q4090 = e.decode_bw_efficiency;
	assert_near(q4090, 0.89 * rtx4090 / (rtx4090 + 9), 1e-12);                /* 0.802 */
	/* the step: the bytes at that share, no overhead with CUDA graphs */
	assert_near(e.decode_bytes_seconds, (e.mem.weights + e.mem.quant_consts + e.kv_per_token * 512) /
						    (q4090 * 1008e9), 1e-12);
	/* PyTorch frameworks keep their kernels' shares, whatever the card */
	tu_est("--model llama-3.1-8b --task infer --context 1024 --tokens 1e6 --gpu A100-80GB --compile",
	       &w, &arch, &e);
	assert_near(e.decode_bw_efficiency, 0.81, 1e-12);
	for (int i = 0; i < e.nassumptions; i++)
		if (e.assumptions[i].code == EST_N_DECODE)
			assert_true(e.assumptions[i].flops == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss_dtype),
		cmocka_unit_test(test_peak_moment),
		cmocka_unit_test(test_decode_share_by_card),
	};
	return cmocka_run_group_tests_name("estimate_phase", tests, tu_setup, tu_teardown);
}
