/*
 * test_estwords.c - the words of `gpurent estimate` (src/cmd/estimate/estwords.c):
 * every assumption and warning code, and every link, yields a sentence
 * with no printf conversion left over; a few sentences word for word;
 * sentences cut to the buffer. The unit tests link the core alone, so this
 * one compiles the command layer's file into itself.
 */
#include "testutil.h"

#include <ctype.h>

#include "cmd/estimate/estwords.h"

/* A printf conversion that was not expanded: '%' then a flag, digit,
 * length or conversion letter ("65% of" is text). */
static bool unexpanded(const char *s)
{
	for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
		if (p[1] && (isalnum((unsigned char)p[1]) || strchr(".*%#+-", p[1])))
			return true;
	return false;
}

/* A note with every fact set to something a sentence could state. */
static struct est_note full(enum est_code c)
{
	struct est_note n = {.code = c, .precision = PREC_BF16, .kept = EST_KEPT_TRAIN_MIXED, .given = true,
			     .flash = true, .samples = false, .counted = EST_COUNTED_TOKENS, .length = 4096,
			     .micro_batch = 4, .max_positions = 2048, .gpus = 8, .bytes = 500e6,
			     .fraction = 0.1, .dropout = 0.1, .flops = 312e12, .mfu = 0.4, .bw = 2.039e12,
			     .seconds = 10 * 86400.0, .work = 3e12, .per_day = 3e11};
	snprintf(n.name, sizeof(n.name), "NVIDIA A100 80GB SXM");
	return n;
}

static void test_every_code(void **s)
{
	char out[EST_WARNING_MAX];
	struct estimate e;

	(void)s;
	for (int c = 0; c < EST_CODE_COUNT; c++) {
		struct est_note n = full((enum est_code)c);
		for (int k = 0; k <= EST_KEPT_TRAIN_MIXED; k++) {
			n.kept = (enum est_kept)k;
			n.given = k & 1;
			n.counted = (enum est_counted)(k % 3);
			n.fp32 = k & 1;
			est_word(&n, out, sizeof(out));
			if (!out[0] || !strcmp(out, "?"))
				fail_msg("%s: no sentence", est_code_name((enum est_code)c));
			if (unexpanded(out) || strstr(out, "?"))
				fail_msg("%s: '%s'", est_code_name((enum est_code)c), out);
		}
	}
	memset(&e, 0, sizeof(e));
	est_word_link(&e, out, sizeof(out));
	assert_string_equal(out, "");
	for (int l = EST_LINK_NONE + 1; l < EST_LINK_COUNT; l++) {
		e.link = (enum est_link)l;
		e.link_peak = 31.5e9;
		e.link_efficiency = 0.65;
		e.link_given = l & 1;
		e.link_bw = 20e9;
		est_word_link(&e, out, sizeof(out));
		if (!out[0] || unexpanded(out))
			fail_msg("link %s: '%s'", est_link_name(e.link), out);
	}
}

/* Sentences `gpurent estimate` has always printed, word for word. */
static void test_words(void **s)
{
	char out[EST_WARNING_MAX];
	struct est_note n = full(EST_N_TIME_MFU_CLASS);
	struct estimate e;

	(void)s;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "time: NVIDIA A100 80GB SXM bf16 peak 312 TFLOPS x MFU 0.40 (default for its class)");
	n = full(EST_N_PRECISION);
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "precision bf16: 16-bit weights and activations, fp32 master weights and optimizer "
				 "states");
	n = full(EST_N_SEQUENCE);
	n.given = false;
	n.length = 2048;
	n.micro_batch = 1;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "sequence length 2048 (default), micro-batch 1");
	n = full(EST_N_OVERHEAD);
	n.given = false;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "framework overhead: CUDA context 500.0 MB (default) + caching-allocator reserve 10% "
				 "of allocated");
	n = full(EST_N_ATTENTION);
	n.dropout = 0;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "attention: fused (flash), no s x s scores kept; dropout 0; no gradient checkpointing");
	n = full(EST_W_ROPE_CONTEXT);
	snprintf(n.name, sizeof(n.name), "llama-2-7b");
	n.length = 8192;
	n.max_positions = 4096;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "8192 tokens exceed llama-2-7b's trained context of 4096: needs RoPE scaling, and "
				 "quality may drop");
	n = full(EST_W_NO_TENSOR_RATE);
	snprintf(n.name, sizeof(n.name), "NVIDIA V100 SXM2 32GB");
	n.fp32 = true;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "NVIDIA V100 SXM2 32GB has no bf16 tensor throughput in data/gpus.csv; timed at its "
				 "FP32 rate");
	n = full(EST_W_IMPLAUSIBLE);
	n.counted = EST_COUNTED_SAMPLES_SEQ;
	est_word(&n, out, sizeof(out));
	assert_non_null(strstr(out, "implausible plan: "));
	assert_non_null(strstr(out, " on 8 GPU(s) is more than 30 days; it is driven by samples x seq x epochs = 3e+12 "
				    "tokens at 3.12e+14 FLOPs each. One day on this setup covers 3e+11 tokens: "));
	n = full(EST_N_COMM_OVERLAP);
	n.overlap = EST_OVERLAP_DDP;
	n.fraction = 2.0 / 3;
	n.slowdown = 0.189;
	n.seconds = 0.0303;
	n.share = 0.05;
	est_word(&n, out, sizeof(out));
	assert_string_equal(out, "overlap: all-reduce in 25 MiB buckets under the last backward (67% of compute), the "
				 "last bucket unhidden; compute 19% slower beside it; exposed 30 ms a step, 5% of it");
	n.overlap = EST_OVERLAP_ZERO3;
	n.fraction = 1;
	est_word(&n, out, sizeof(out));
	assert_non_null(strstr(out, "ZeRO-3 gathers prefetched under each pass (100% of compute)"));
	assert_true(strlen(out) < EST_NOTE_MAX - 1);
	memset(&e, 0, sizeof(e));
	e.link = EST_LINK_PCIE4;
	e.link_peak = 31.5e9;
	e.link_efficiency = 0.65;
	est_word_link(&e, out, sizeof(out));
	assert_string_equal(out, "PCIe 4.0 x16, 65% of 31.5 GB/s per direction");
	e.link_given = true;
	e.link_bw = 20e9;
	est_word_link(&e, out, sizeof(out));
	assert_string_equal(out, "PCIe 4.0 x16, 20.0 GB/s given");
}

/* Cut to the buffer, NUL-terminated. */
static void test_cut(void **s)
{
	char small[12];
	struct est_note n = full(EST_N_NO_KV_CACHE);

	(void)s;
	est_word(&n, small, sizeof(small));
	assert_string_equal(small, "KV cache no");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_cut),
	};
	return cmocka_run_group_tests_name("estwords", tests, NULL, NULL);
}
