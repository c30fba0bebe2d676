/*
 * test_skyemit.c - `plan --emit sky` (src/core/plan/skyemit.c): the task written
 * for a choice is read back with gpurent's own SkyPilot reader
 * (src/core/task/skytask.c) and every field is checked against the choice and
 * against the values SkyPilot's yaml-spec.rst documents for it.
 */
#include "testutil.h"

#include <ctype.h>

#include "core/plan/skyemit.h"
#include "core/task/skytask.h"

static struct offer_set set;

static int setup(void **s)
{
	if (tu_setup(s))
		return -1;
	memset(&set, 0, sizeof(set));
	return 0;
}

static int teardown(void **s)
{
	free(set.v);
	return tu_teardown(s);
}

/* Write the task for e into a string (owned by the caller). */
static char *emit(const struct sky_emit *e, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		fail_msg("open_memstream");
	assert_int_equal(sky_emit_write(f, e), 0);
	fclose(f);
	return buf;
}

/* Read it back; the file must be a task SkyPilot reads. */
static void reread(const char *buf, size_t len, struct sky_task *t)
{
	char err[512];

	if (sky_task_parse(buf, len, "emitted.yaml", t, err, sizeof(err)))
		fail_msg("the emitted task does not read back: %s\n%s", err, buf);
	assert_int_equal(t->ndoc, 1);
	assert_int_equal(t->doc[0].ncand, 1);
}

static void test_on_demand(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct estimate est;
	struct plan_opts po;
	struct plan_choice c;
	struct offer *o;
	struct sky_emit e;
	struct sky_task t;
	const struct sky_res *r;
	char *buf;
	size_t len;

	(void)s;
	tu_est("--model llama-2-7b --task lora --tokens 1e8 --data-size 300GB", &w, &arch, &est);
	plan_opts_default(&po);
	o = tu_offer(&set, "lambda", "gpu_1x_a100_sxm4", "A100-80GB", 1, 1.29, 0);
	o->region = (struct cat_str){"us-east-1", 9};
	memset(&c, 0, sizeof(c));
	c.offer = o;
	c.mode = PLAN_ON_DEMAND;
	c.gpus = 1;
	c.nodes = 1;
	c.wall_s = 10 * 3600;
	c.cost.total = 13.5;
	c.ckpt_write_s = 30;
	/* from SkyPilot's own catalog (sky_names); no task: use_spot unset */
	e = (struct sky_emit){.w = &w, .po = &po, .c = &c, .rank = 1, .use_spot = -1, .sky_names = true,
			      .code = "USD", .usd_per_unit = 1};
	buf = emit(&e, &len);
	reread(buf, len, &t);
	r = &t.doc[0].cand[0];
	/* accelerators: the catalog's name, the count per node */
	assert_string_equal(r->accel, "A100-80GB");
	assert_true(r->accel_count == 1);
	/* issue 29: no use_spot unless asked: on demand, SkyPilot's default */
	assert_int_equal(r->use_spot, -1);
	/* infra: cloud/region, named as SkyPilot names the cloud */
	assert_string_equal(r->cloud, "lambda");
	assert_string_equal(r->region, "us-east-1");
	assert_string_equal(r->instance_type, "gpu_1x_a100_sxm4");
	/* disk: 300 GB of data, 2 checkpoints of a LoRA job, 50 GB of system */
	assert_true(r->disk_gb >= 300 + SKY_EMIT_DISK_SYSTEM_GB && r->disk_gb >= SKY_EMIT_DISK_DEFAULT_GB);
	/* autostop: the guard's idle minutes, autodown */
	assert_true(r->autostop_given && r->autostop_down);
	assert_true(r->autostop_idle_min == SKY_EMIT_IDLE_MIN_S / 60);
	/* on demand: no job_recovery */
	assert_string_equal(r->job_recovery, "");
	assert_int_equal(t.doc[0].num_nodes, 1);
	/* the run: wraps the command in gpurent run with the plan's limits:
	 * 1.2 x 10 h, the budget stop 1.2 x 13.50 USD */
	assert_non_null(t.doc[0].run);
	assert_non_null(strstr(t.doc[0].run, "gpurent run --max-runtime 720m "));
	assert_non_null(strstr(t.doc[0].run, "--budget 16.20USD"));
	assert_non_null(strstr(t.doc[0].run, "--price 1.29USD"));
	assert_null(strstr(t.doc[0].run, "--ckpt-dir"));   /* not resumable, not spot */
	sky_task_free(&t);
	free(buf);
}

static void test_spot_nodes_task(void **s)
{
	static const char task_yaml[] =
		"name: \"my \\\"job\\\"\"\n"
		"num_nodes: 2\n"
		"envs:\n  MODEL: llama\n  TOKEN:\n"
		"resources:\n  accelerators: H100:8\n  disk_size: 1TB\n  disk_tier: high\n"
		"run: |\n  echo start\n  GPURENT_JOB_EOF\n  torchrun train.py\n";
	struct workload w;
	struct model_spec arch;
	struct estimate est;
	struct plan_opts po;
	struct plan_choice c;
	struct offer *o;
	struct sky_emit e;
	struct sky_task in, t;
	const struct sky_res *r;
	char *buf, err[512];
	size_t len;

	(void)s;
	if (sky_task_parse(task_yaml, strlen(task_yaml), "task.yaml", &in, err, sizeof(err)))
		fail_msg("%s", err);
	tu_est("--model llama-2-7b --tokens 1e9 --resumable --gpus 16 --nodes 2", &w, &arch, &est);
	plan_opts_default(&po);
	po.budget_usd = 500;
	o = tu_offer(&set, "gcp", "a3-highgpu-8g", "H100", 8, 88, 30);
	o->region = (struct cat_str){"us-central1", 11};
	o->zone = (struct cat_str){"us-central1-a", 13};
	o->host = o->instance;
	memset(&c, 0, sizeof(c));
	c.offer = o;
	c.mode = PLAN_SPOT;
	c.gpus = 16;
	c.nodes = 2;
	c.wall_s = 5 * 3600;
	c.cost.total = 320;
	c.ckpt_write_s = 1200;   /* twice 20 min: the idle limit grows to 40 min */
	e = (struct sky_emit){.w = &w, .po = &po, .c = &c, .rank = 3, .doc = &in.doc[0], .src = task_yaml,
			      .src_len = strlen(task_yaml), .use_spot = 1, .sky_names = true, .code = "CNY",
			      .usd_per_unit = 0.125};
	buf = emit(&e, &len);
	reread(buf, len, &t);
	r = &t.doc[0].cand[0];
	assert_string_equal(t.doc[0].name, "my \"job\"");
	assert_int_equal(t.doc[0].num_nodes, 2);
	assert_true(r->accel_count == 8);   /* per node */
	assert_int_equal(r->use_spot, 1);
	assert_string_equal(r->cloud, "gcp");
	assert_string_equal(r->region, "us-central1");
	assert_string_equal(r->zone, "us-central1-a");
	assert_string_equal(r->instance_type, "a3-highgpu-8g");   /* GCP: the host VM the GPUs were joined with */
	assert_true(r->disk_gb == in.doc[0].cand[0].disk_gb);   /* the task's own disk_size */
	assert_true(r->disk_gb >= 1000);
	assert_string_equal(r->disk_tier, "high");
	assert_true(r->autostop_idle_min == 40);
	/* spot: job_recovery with a strategy yaml-spec.rst documents */
	assert_true(!strcmp(r->job_recovery, "FAILOVER") || !strcmp(r->job_recovery, "EAGER_NEXT_REGION"));
	/* envs kept, a null one as empty */
	assert_int_equal(t.doc[0].nenv, 2);
	assert_string_equal(t.doc[0].env[0].key, "MODEL");
	assert_string_equal(t.doc[0].env[0].value, "llama");
	assert_string_equal(t.doc[0].env[1].value, "");
	/* the script inside a heredoc whose delimiter is none of its lines; per
	 * node a half of the 500 USD budget, in CNY (8 per USD) */
	assert_non_null(strstr(t.doc[0].run, "echo start\nGPURENT_JOB_EOF\ntorchrun train.py\n"));
	assert_non_null(strstr(t.doc[0].run, "<<'GPURENT_JOB_EOF_1'"));
	assert_non_null(strstr(t.doc[0].run, "--budget 2000.00CNY"));
	assert_non_null(strstr(t.doc[0].run, "--price 240.00CNY"));
	assert_non_null(strstr(t.doc[0].run, "--ckpt-dir " SKY_EMIT_CKPT_DIR));
	assert_non_null(strstr(buf, "choice #3"));
	sky_task_free(&t);
	sky_task_free(&in);
	free(buf);
}

/* A GPU slice: the plan counts one GPU, the task asks for the slice. */
static void test_slice(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct estimate est;
	struct plan_opts po;
	struct plan_choice c;
	struct offer *o;
	struct sky_emit e;
	struct sky_task t;
	char *buf;
	size_t len;

	(void)s;
	tu_est("--model gpt2-124m --tokens 1e8", &w, &arch, &est);
	plan_opts_default(&po);
	o = tu_offer(&set, "runpod", "L4 half", "L4", 0.5, 0.2, 0);
	o->is_slice = true;
	memset(&c, 0, sizeof(c));
	c.offer = o;
	c.gpus = 1;   /* plan.c: at least one GPU's work */
	c.nodes = 1;
	c.wall_s = 3600;
	c.cost.total = 0.2;
	e = (struct sky_emit){.w = &w, .po = &po, .c = &c, .rank = 1, .use_spot = -1, .sky_names = true,
			      .code = "USD", .usd_per_unit = 1};
	buf = emit(&e, &len);
	reread(buf, len, &t);
	assert_string_equal(t.doc[0].cand[0].accel, "L4");
	assert_true(t.doc[0].cand[0].accel_count == 0.5);
	sky_task_free(&t);
	free(buf);
}

/* A run: script no literal block can hold is double-quoted with escapes. */
static void test_unprintable_run(void **s)
{
	static const char run[] = " python a.py\r\n\x1b[0m";
	struct workload w;
	struct model_spec arch;
	struct estimate est;
	struct plan_opts po;
	struct plan_choice c;
	struct offer *o;
	struct sky_emit e;
	struct sky_doc d;
	struct sky_task t;
	char *buf;
	size_t len;

	(void)s;
	tu_est("--model llama-2-7b --tokens 1e8", &w, &arch, &est);
	plan_opts_default(&po);
	o = tu_offer(&set, "Gongji", "L40S x1", "L40S", 1, 2, 0);
	memset(&c, 0, sizeof(c));
	c.offer = o;
	c.gpus = c.nodes = 1;
	c.wall_s = 3600;
	c.cost.total = 2;
	memset(&d, 0, sizeof(d));
	d.run = (char *)run;
	d.has_run = true;
	e = (struct sky_emit){.w = &w, .po = &po, .c = &c, .rank = 1, .doc = &d, .use_spot = -1,
			      .code = "USD", .usd_per_unit = 1};
	buf = emit(&e, &len);
	for (size_t i = 0; i < len; i++)   /* no raw control byte but newlines */
		assert_true(buf[i] == '\n' || !iscntrl((unsigned char)buf[i]));
	reread(buf, len, &t);
	assert_string_equal(t.doc[0].cand[0].cloud, "");   /* not a SkyPilot cloud: no infra */
	assert_int_equal(t.doc[0].nenv, 0);
	assert_non_null(strstr(t.doc[0].run, run));
	sky_task_free(&t);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_demand),
		cmocka_unit_test(test_spot_nodes_task),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_unprintable_run),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
