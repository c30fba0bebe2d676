/* test_workload.c - workload fields, the YAML loader and resolve():
 * every bad input names file, line and field. */
#include "testutil.h"

#include <time.h>

static int load(const char *yaml, struct workload *w, char *err, size_t n)
{
	workload_init(w);
	return workload_load_yaml(w, yaml, strlen(yaml), "job.yaml", err, n);
}

static void test_table_sorted_and_documented(void **s)
{
	(void)s;
	for (size_t i = 1; i < workload_nfields; i++)
		if (strcmp(workload_fields[i - 1].name, workload_fields[i].name) >= 0)
			fail_msg("workload_fields not sorted at %s", workload_fields[i].name);
	for (size_t i = 0; i < workload_nfields; i++) {
		assert_true(workload_fields[i].help[0]);
		assert_true(workload_fields[i].dflt[0]);
		assert_int_equal(workload_field_index(workload_fields[i].name), (int)i);
	}
	assert_true(workload_nfields <= WORKLOAD_MAX_FIELDS);  /* the set mask's bits */
	assert_int_equal(workload_field_index("micro-batch"), workload_field_index("micro_batch"));
}

static void test_good_file(void **s)
{
	struct workload w;
	char err[512];
	const char *y = "# comment\nmodel: llama-2-7b\ntask: lora\nseq: 4096\nmicro_batch: 2\n"
			"lora_targets: [q, k, v, o]\ntokens: 3e9\ngpu: A100-80GB\ngrad_checkpointing: yes\n";

	(void)s;
	assert_int_equal(load(y, &w, err, sizeof(err)), 0);
	assert_string_equal(w.model, "llama-2-7b");
	assert_int_equal(w.task, TASK_LORA);
	assert_int_equal(w.seq, 4096);
	assert_int_equal(w.micro_batch, 2);
	assert_string_equal(w.lora_targets, "q,k,v,o");
	assert_true(w.tokens == 3e9);
	assert_int_equal(w.grad_checkpointing, 1);
	assert_int_equal(w.line[workload_field_index("seq")], 4);
}

struct bad_case {
	const char *yaml;
	const char *expect;   /* substring of the one-line error */
};

static void test_bad_files(void **s)
{
	static const struct bad_case cases[] = {
		{"model: llama-2-7b\nmicro_batch: 0\n", "job.yaml:2: micro_batch: expected a positive whole number, got '0'"},
		{"model: llama-2-7b\nmicro_batch: -4\n", "job.yaml:2: micro_batch: expected a positive whole number, got '-4'"},
		{"model: llama-2-7b\nmicro_bach: 4\n", "job.yaml:2: micro_bach: unknown field (did you mean 'micro_batch'?)"},
		{"model: llama-2-7b\ntask: finetune\n", "job.yaml:2: task: expected train, lora, qlora or infer, got 'finetune'"},
		{"model: llama-2-7b\nprecision: bf61\n", "job.yaml:2: precision: expected fp32,"},
		{"model: llama-2-7b\nseq: [1, 2]\n", "job.yaml:2: seq: expected a positive whole number"},
		/* a service's schedule and load (docs/serve.md) */
		{"model: llama-2-7b\nserve: 25x7\n", "job.yaml:2: serve: expected HOURSxDAYS (24x7, 8x5"},
		{"model: llama-2-7b\nserve: always\n", "job.yaml:2: serve: expected HOURSxDAYS"},
		{"model: llama-2-7b\nuser_tps: 0\n", "job.yaml:2: user_tps: expected a number above 0"},
		{"model: llama-2-7b\nrps: 0x10\n", "job.yaml:2: rps: expected a number above 0"},
		{"model: llama-2-7b\naccess: \"" "0123456789012345678901234567890123456789012345678901234567890123"
		 "0123456789012345678901234567890123456789012345678901234567890123"
		 "0123456789012345678901234567890123456789012345678901234567890123"
		 "0123456789012345678901234567890123456789012345678901234567890123\"\n",
		 "job.yaml:2: access: expected at most 255 characters"},
		{"model: llama-2-7b\nseq:\n  a: 1\n", "job.yaml:3: seq: expected a single value, got a nested mapping"},
		{"model: llama-2-7b\nseq: ~\n", "job.yaml:2: seq: expected a value, got nothing"},
		{"model: llama-2-7b\nseq: 512\nseq: 1024\n", "job.yaml:3: seq: duplicate field (first given on line 2)"},
		{"model: llama-2-7b\n  seq: 512\n", "job.yaml:2: YAML syntax error"},
		{"model: [llama\n", "YAML syntax error"},
		{"- a\n- b\n", "job.yaml:1: expected a mapping of field: value, got a list"},
		{"just text\n", "job.yaml:1: expected a mapping of field: value, got a plain value"},
		{"model: x\ntokens: lots\n", "job.yaml:2: tokens: expected a count such as"},
		{"model: x\nstep_time: 5 minutes\n", "job.yaml:2: step_time: expected a duration"},
		{"model: x\nlink_bw: 20\n", "job.yaml:2: link_bw: expected a bandwidth"},
		{"model: x\nmfu: 0\n", "job.yaml:2: mfu: expected a utilisation in (0, 1] (above 0, at most 100%"},
		{"model: x\nzero: 4\n", "job.yaml:2: zero: expected a whole number from 0 to 3, got '4'"},
		{"model: x\n\"micro\\nbatch\": 4\n", "job.yaml:2: micro\\x0abatch: unknown field"},
		{"model: x\n\"seq\": \"4\\e[31m\"\n", "job.yaml:2: seq: expected a positive whole number, got '4\\x1b[31m'"},
		/* integer fields: count suffixes, never saturated (csv-long-erange) */
		{"model: x\nlayers: 99999999999999999999\n", "job.yaml:2: layers: expected a positive whole number, got '99999999999999999999' (at most 100000)"},
		{"model: x\nseq: 4.1k\n", "job.yaml:2: seq: expected a positive whole number"},
		{"model: x\ntflops: inf\n", "job.yaml:2: tflops: expected a number above 0 and at most 1e6, got 'inf'"},
		{"model: x\ntflops: 0x2d\n", "job.yaml:2: tflops: expected a number"},
		{"model: x\nstep_time: 3\n", "job.yaml:2: step_time: expected a duration with a unit, e.g. 3d"},
		{"model: x\ndeadline: 1e305d\n", "job.yaml:2: deadline: expected a duration of at most 100 years"},
		{"model: x\nparams: 1e300B\n", "job.yaml:2: params: expected a count of at most 1e18"},
		{"model: x\nbudget: 1e308\n", "job.yaml:2: budget: expected an amount of at most 1e12"},
		/* yaml-multidoc-ignored: a later document's workload field is refused, not dropped */
		{"model: llama-2-7b\n---\ntask: lora\nseq: 5\n",
		 "job.yaml:3: task: a workload field in YAML document 2; gpurent reads the workload from the first"},
		{"model: llama-2-7b\n---\nname: b\nrun: x\n---\ntokens: 1e9\n", "job.yaml:6: tokens: a workload field in YAML document 3"},
		/* no workload field and no task key: what the file looks like */
		{"admin_policy: x.y.Z\n", "job.yaml:1: looks like a SkyPilot admin policy, not a SkyPilot task"},
		{"apiVersion: v1\nkind: Service\n", "job.yaml:1: looks like a Kubernetes manifest, not a SkyPilot task"},
		{"base_model: x\nmodel:\n  a: 1\n", "job.yaml:1: looks like a tool's configuration"},
		/* a workload file's typo stays an error */
		{"model: llama-2-7b\nmicro_bach: 4\nrun: x\n", "job.yaml:2: micro_bach: unknown field"},
	};
	struct workload w;
	char err[512];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (load(cases[i].yaml, &w, err, sizeof(err)) != -1)
			fail_msg("case %zu loaded: %s", i, cases[i].yaml);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err, cases[i].expect);
		assert_null(strchr(err, '\n'));  /* one line */
	}
}

struct resolve_case {
	const char *yaml;
	const char *field;   /* the field blamed */
	const char *expect;
};

/* yaml-deep-flow-quadratic: a skipped node has a depth limit, and the
 * reader stops at it at once (40,000 '[' took 12 s, 1M over 30 s). */
static void test_yaml_deep_flow_quadratic(void **s)
{
	static const char head[] = "model: llama-2-7b\nenvs: ";
	size_t n = 1000000, hl = strlen(head);
	char *y = malloc(hl + n + 2), err[512];
	struct workload w;
	clock_t t0;

	(void)s;
	assert_non_null(y);
	memcpy(y, head, hl);
	memset(y + hl, '[', n);
	memcpy(y + hl + n, "\n", 2);
	t0 = clock();
	assert_int_equal(load(y, &w, err, sizeof(err)), -1);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5);
	assert_string_equal(err, "job.yaml:2: envs: nesting deeper than 64 levels");
	/* 63 levels under envs: read and skipped */
	memset(y + hl, ' ', n);
	memset(y + hl, '[', 62);
	memset(y + hl + 62, ']', 62);
	assert_int_equal(load(y, &w, err, sizeof(err)), 0);
	/* and under resources: (an any_of list of mappings), skipped here too */
	assert_int_equal(load("resources:\n  any_of: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
			      &w, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job.yaml:2: resources: nesting deeper than 64 levels"));
	free(y);
}

/* A SkyPilot task file is a workload file too: its task keys are skipped
 * at any length and nesting (skytask.c reads them), its documents after
 * the first may hold task keys only. */
static void test_task_keys_skipped(void **s)
{
	struct workload w;
	char err[512], *y, run[2048];

	(void)s;
	memset(run, 'x', sizeof(run) - 1);
	run[sizeof(run) - 1] = '\0';
	y = malloc(8192);
	assert_non_null(y);
	/* run: of 2047 characters (the old reader said "value too long" at 512) */
	snprintf(y, 8192, "model: llama-2-7b\nrun: %s\nsetup: |\n  %s\n", run, run);
	assert_int_equal(load(y, &w, err, sizeof(err)), 0);
	free(y);
	assert_string_equal(w.model, "llama-2-7b");
	assert_int_equal(load("resources:\n  accelerators: {L4: 0.5, A100: 8, H100: null}\n  cpus: 8+\n"
			      "  memory: 32GB+\n  disk_size: 1TB\n  any_of:\n    - infra: aws/*/us-east-1a\n"
			      "pool:\n  workers: 2\nexecution: parallel\nnum_nodes: 2\nmodel: llama-2-7b\n"
			      "envs: {A: *x}\n---\nname: second\nresources: {accelerators: H100:8}\n---\n",
			      &w, err, sizeof(err)), 0);
	assert_string_equal(w.model, "llama-2-7b");
	/* a job group's header keys (not task keys) are skipped in a task file */
	assert_int_equal(load("---\nname: g\nexecution: parallel\nprimary_tasks: [a]\ntermination_delay: 10s\n"
			      "---\nname: a\nrun: x\n", &w, err, sizeof(err)), 0);
	assert_int_equal(load("---\nmodel: llama-2-7b\nseq: 4k\ncontext: 128k\nsamples: 200k\n...\n", &w, err, sizeof(err)), 0);
	assert_int_equal(w.seq, 4096);
	assert_int_equal(w.context, 131072);
	assert_true(w.samples == 200000);
	assert_int_equal(load("---\nmodel: llama-2-7b\n---\n", &w, err, sizeof(err)), 0);
}

static void test_resolve_errors(void **s)
{
	static const struct resolve_case cases[] = {
		{"task: lora\n", "model", "model: missing required field"},
		{"model: llama-2-7\n", "model", "model: unknown model 'llama-2-7' (did you mean"},
		{"model: qwerty-zz\n", "model", "model: unknown model 'qwerty-zz' (see 'gpurent models'"},
		{"model: llama-2-7b\ngpu: A1000\n", "gpu", "gpu: unknown GPU 'A1000' (did you mean"},
		{"model: gpt2\nseq: 2048\n", "seq", "seq: model 'gpt2-124m' has learned positions up to 1024 tokens"},
		{"model: llama-2-7b\nkv_heads: 5\n", "kv_heads", "kv_heads: expected a divisor of heads"},
		{"layers: 32\nhidden: 4096\n", "heads", "heads: missing required field"},
		{"model: resnet-50\nseq: 128\n", "seq", "seq: does not apply to the image model"},
		{"model: llama-2-7b\nimage_size: 224\n", "image_size", "image_size: applies to image models"},
		{"model: llama-2-7b\nlora_rank: 16\n", "lora_rank", "lora_rank: applies to task lora or qlora, not train"},
		{"model: llama-2-7b\ntask: train\nquant_bits: 4\n", "quant_bits", "quant_bits: full training keeps"},
		{"model: llama-2-7b\ntask: qlora\nquant_bits: 3\n", "quant_bits", "quant_bits: expected 4, 8 or 16"},
		{"model: llama-2-7b\ntask: infer\nzero: 3\n", "zero", "zero: applies to training"},
		{"model: resnet-50\ntask: lora\n", "task", "task: LoRA applies to transformer models"},
		{"model: vit-b-16\nimage_size: 100\n", "image_size", "image_size: expected a multiple of the patch size"},
		{"model: llama-2-7b\nparams: 7e9\n", "params", "params: give either params or an architecture"},
	};
	struct workload w;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	char err[512];
	int bad;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(load(cases[i].yaml, &w, err, sizeof(err)), 0);
		if (workload_resolve(&w, &tu_mdb, &tu_gdb, &arch, &gpu, &bad, err, sizeof(err)) != -1)
			fail_msg("case %zu resolved: %s", i, cases[i].yaml);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err, cases[i].expect);
		assert_int_equal(bad, workload_field_index(cases[i].field));
	}
}

static void test_defaults_applied(void **s)
{
	struct workload w;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	char err[512];
	int bad;

	(void)s;
	assert_int_equal(load("model: gpt2\ntask: lora\n", &w, err, sizeof(err)), 0);
	assert_int_equal(workload_resolve(&w, &tu_mdb, &tu_gdb, &arch, &gpu, &bad, err, sizeof(err)), 0);
	assert_int_equal(w.seq, 1024);        /* capped at GPT-2's learned positions */
	assert_int_equal(w.lora_rank, 8);
	assert_string_equal(w.lora_targets, "q,v");
	assert_true(w.dropout == 0.1);        /* GPT-2's own */
	assert_int_equal(w.precision, PREC_BF16);
	assert_null(gpu);
	assert_int_equal(load("model: llama-2-7b\ntask: qlora\ngpu: rtx4090\n", &w, err, sizeof(err)), 0);
	assert_int_equal(workload_resolve(&w, &tu_mdb, &tu_gdb, &arch, &gpu, &bad, err, sizeof(err)), 0);
	assert_int_equal(w.quant_bits, 4);
	assert_non_null(gpu);
	assert_string_equal(gpu->name, "NVIDIA GeForce RTX 4090");
}

/* Issue 12: the architecture switches of a preset row, by flags. By hand,
 * Llama-2-7B (L 32, h 4096, f 11008 gated, V 32000, RMSNorm x 2, untied):
 * L(4h^2 + 3hf + 2h) + 2Vh + h = 6,738,415,616, the preset's count. */
static void test_architecture_switches(void **s)
{
	double L = 32, h = 4096, f = 11008, V = 32000;
	const char *err_case[][2] = {
		{"--params 7e9 --gated-mlp", "gated_mlp: describes an architecture"},
		{"--params 7e9 --head-dim 128", "head_dim: describes an architecture"},
		{"--model resnet-50 --tied-embeddings", "tied_embeddings: does not apply to the CNN preset"},
		{"--model resnet-50 --bias qkv", "bias: does not apply to the CNN preset"},
	};
	struct workload w;
	struct model_spec arch;
	struct estimate e;
	char err[512];

	(void)s;
	tu_est("--layers 32 --hidden 4096 --heads 32 --ffn 11008 --gated-mlp", &w, &arch, &e);
	assert_true(arch.gated_ffn);
	assert_true(e.params == L * (4 * h * h + 3 * h * f + 2 * h) + 2 * V * h + h);
	assert_true(e.params == 6738415616.0);
	tu_est("--layers 32 --hidden 4096 --heads 32 --ffn 11008", &w, &arch, &e);
	assert_false(arch.gated_ffn);
	assert_true(e.params == L * (4 * h * h + 2 * h * f + 2 * h) + 2 * V * h + h);
	/* a preset keeps its own switch unless told; --no-gated-mlp removes the gate */
	tu_est("--model llama-2-7b", &w, &arch, &e);
	assert_true(arch.gated_ffn);
	tu_est("--model llama-2-7b --no-gated-mlp", &w, &arch, &e);
	assert_false(arch.gated_ffn);
	assert_true(e.params == 6738415616.0 - L * h * f);
	/* tied: one V x h matrix fewer */
	tu_est("--layers 32 --hidden 4096 --heads 32 --ffn 11008 --gated-mlp --tied-embeddings", &w, &arch, &e);
	assert_true(e.params == 6738415616.0 - V * h);
	/* head_dim: 16 heads of 256 on a 3584-wide model (Gemma 2's shape), no
	 * divisibility needed; attention 2h(16 x 256) + 2h(8 x 256) per layer */
	tu_est("--layers 2 --hidden 3584 --heads 16 --kv-heads 8 --head-dim 256 --ffn 14336 --gated-mlp "
	       "--vocab 256000 --tied-embeddings --norms-per-layer 4", &w, &arch, &e);
	assert_int_equal(arch.head_dim, 256);
	assert_true(e.params == 2 * (2 * 3584.0 * 4096 + 2 * 3584.0 * 2048 + 3 * 3584.0 * 14336 + 4 * 3584.0) +
				256000.0 * 3584 + 3584);
	/* bias qkv (Qwen 2.5): + q + 2 kv per layer */
	tu_est("--layers 32 --hidden 4096 --heads 32 --ffn 11008 --gated-mlp --bias qkv", &w, &arch, &e);
	assert_true(e.params == 6738415616.0 + L * 3 * h);
	for (size_t i = 0; i < ARRAY_SIZE(err_case); i++) {
		assert_int_equal(tu_estimate_args(err_case[i][0], &w, &arch, &e, err, sizeof(err)), -1);
		if (!strstr(err, err_case[i][1]))
			fail_msg("%s: got '%s'", err_case[i][0], err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_documented),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_yaml_deep_flow_quadratic),
		cmocka_unit_test(test_task_keys_skipped),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_defaults_applied),
		cmocka_unit_test(test_architecture_switches),
	};
	return cmocka_run_group_tests_name("workload", tests, tu_setup, tu_teardown);
}
