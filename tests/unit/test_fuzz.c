/*
 * test_fuzz.c - issue 2 item 8: truncated, mutated and garbage workload
 * files never crash the loader or the estimator (run under ASan+UBSan by
 * `make check`), and whatever loads produces finite numbers.
 */
#include "testutil.h"

#include <math.h>

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static size_t loaded, resolved;

static void run_one(const char *buf, size_t len)
{
	struct workload w;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct estimate e;
	char err[512];
	int bad;

	workload_init(&w);
	if (workload_load_yaml(&w, buf, len, "fuzz.yaml", err, sizeof(err))) {
		assert_non_null(strstr(err, "fuzz.yaml"));   /* errors name the file */
		assert_null(strchr(err, '\n'));
		return;
	}
	loaded++;
	if (workload_resolve(&w, &tu_mdb, &tu_gdb, &arch, &gpu, &bad, err, sizeof(err)))
		return;
	if (estimate_run(&w, &arch, gpu, &e, err, sizeof(err)))
		return;
	resolved++;
	if (!isfinite(e.mem.total) || e.mem.total < 0 || !isfinite(e.wall_seconds) || e.wall_seconds < 0)
		fail_msg("non-finite estimate for input: %.*s", (int)len, buf);
}

static const char *const seeds[] = {
	"model: llama-2-7b\ntask: lora\nprecision: bf16\nlora_targets: [q, v]\nmicro_batch: 1\nseq: 4096\ntokens: 3e9\ngpu: A100-80GB\n",
	"model: resnet-50\nprecision: fp32\noptimizer: sgd\nmicro_batch: 32\nsamples: 1.28M\nepochs: 90\ngpu: V100\n",
	"layers: 32\nhidden: 4096\nheads: 32\ntask: infer\ncontext: 32768\nconcurrency: 8\nkv_dtype: fp16\n",
	"params: 7e9\nzero: 3\ngpus: 8\ntokens: 3e9\ntflops: 100\nlink_bw: 20GB/s\nstep_time: 0.5s\n",
	"{model: \"mixtral\", task: qlora, seq: 8192, \"grad_checkpointing\": true}\n",
};

static void test_truncations(void **s)
{
	(void)s;
	for (size_t k = 0; k < ARRAY_SIZE(seeds); k++)
		for (size_t n = 0; n <= strlen(seeds[k]); n++)
			run_one(seeds[k], n);
}

static void test_mutations(void **s)
{
	static const char special[] = ":-[]{}#&*!|>'\"%@`,?\n\t \\0123456789e.";
	char buf[512];

	(void)s;
	for (int i = 0; i < 20000; i++) {
		const char *src = seeds[next() % (ARRAY_SIZE(seeds))];
		size_t len = strlen(src);
		int edits = 1 + (int)(next() % 4);

		memcpy(buf, src, len);
		for (int k = 0; k < edits && len > 1; k++) {
			size_t at = next() % len;
			switch (next() % 4) {
			case 0: buf[at] = special[next() % (sizeof(special) - 1)]; break;
			case 1: buf[at] = (char)(next() & 0xff); break;
			case 2: /* delete */
				memmove(buf + at, buf + at + 1, len - at - 1);
				len--;
				break;
			default: /* insert */
				if (len + 1 < sizeof(buf)) {
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = special[next() % (sizeof(special) - 1)];
					len++;
				}
			}
		}
		run_one(buf, len);
	}
}

static void test_garbage(void **s)
{
	char buf[256];

	(void)s;
	for (int i = 0; i < 5000; i++) {
		size_t len = next() % sizeof(buf);
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)(next() & 0xff);
		run_one(buf, len);
	}
	printf("fuzz: %zu inputs loaded, %zu estimated without error\n", loaded, resolved);
	assert_true(loaded > 100 && resolved > 50);   /* the mutations also reach the estimator */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests_name("fuzz", tests, tu_setup, tu_teardown);
}
