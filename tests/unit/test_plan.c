/* test_plan.c - the planner on hand-made offers with a simple pricer:
 * fit, exclusions and their reasons, ranking, spot with interruptions,
 * chained campus jobs, constraints, advice (issue 3 "The plan"). */
#include "testutil.h"

#include <math.h>

#include "../../src/core/plan.h"
#include "../../src/core/spot.h"

#define MTBF (6 * 3600.0)

/* per-second compute at the offer's price; spot at its spot price for
 * Daly's expected time with a 6 h MTBF; no storage */
static int price(void *ctx, const struct offer *o, enum plan_mode mode, const struct plan_usage *u,
		 struct plan_cost *out)
{
	double rate = mode == PLAN_SPOT ? o->spot_price : o->price;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if ((mode != PLAN_ON_DEMAND && mode != PLAN_SPOT) || rate <= 0) {
		if (mode == PLAN_ON_DEMAND && o->price == 0)
			return 0;   /* free campus card */
		return -1;
	}
	out->busy_wall_s = u->busy_s;
	if (mode == PLAN_SPOT) {
		out->busy_wall_s = spot_expected_wall(u->busy_s, u->ckpt_write_s, u->restart_s, MTBF, 0);
		out->interval_s = u->ckpt_write_s > 0 ? spot_daly_interval(u->ckpt_write_s, MTBF) : 0;
	}
	out->compute = rate * out->busy_wall_s / 3600;
	out->idle = rate * u->idle_s / 3600;
	out->total = out->compute + out->idle;
	return 0;
}

static struct offer_set set;

static struct offer *add(const char *provider, const char *instance, const char *gpu, double n,
			 double price_h, double spot_h)
{
	struct offer *o;

	if (set.n == set.cap) {
		set.cap = set.cap ? set.cap * 2 : 32;
		set.v = realloc(set.v, set.cap * sizeof(*set.v));
	}
	o = &set.v[set.n++];
	memset(o, 0, sizeof(*o));
	o->provider.p = provider;
	o->provider.len = (uint32_t)strlen(provider);
	o->instance.p = instance;
	o->instance.len = (uint32_t)strlen(instance);
	o->gpu_name.p = gpu;
	o->gpu_name.len = (uint32_t)strlen(gpu);
	o->gpu = gpu_db_find(&tu_gdb, gpu);
	o->gpus = n;
	o->gpu_mem = o->gpu ? o->gpu->memory_bytes : 80e9;
	o->price = price_h;
	o->spot_price = spot_h;
	o->supply = SUPPLY_AI_CLOUD;
	o->vcpus = 16;
	o->ram_gib = 64;
	return o;
}

static void workload(const char *args, struct workload *w, struct model_spec *arch)
{
	struct estimate e;

	tu_est(args, w, arch, &e);
}

static void run(const struct workload *w, const struct model_spec *arch, struct plan_opts *po,
		struct plan_result *r)
{
	char err[256];

	if (plan_run(w, arch, &set, po, r, err, sizeof(err)))
		fail_msg("%s", err);
}

static void opts(struct plan_opts *po)
{
	plan_opts_default(po);
	po->pricer.price = price;
	po->top = 10;
}

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

static void test_fit_and_reasons(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *slice;

	(void)s;
	set.n = 0;
	add("a", "4090", "RTX4090", 1, 0.40, 0);
	add("a", "a100-80", "A100-80GB", 1, 1.60, 0);
	add("b", "a100-80", "A100-80GB", 1, 1.40, 0);
	add("b", "a100-80", "A100-80GB", 1, 1.40, 0);      /* the same instance in another region */
	add("c", "l40s", "L40S", 1, 0.90, 0);
	add("d", "mystery", "A800", 1, 0.50, 0);           /* unknown GPU */
	slice = add("e", "mig-3g", "A100-80GB", 1, 0.30, 0);
	slice->is_slice = true;
	slice->gpu_mem = 40e9;
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 3e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.considered, 7);
	assert_int_equal(r.excluded[EX_UNKNOWN_GPU], 1);
	assert_int_equal(r.excluded[EX_MEMORY], 1);          /* 39 GB does not fit 24 */
	assert_non_null(strstr(r.example[EX_MEMORY], "needs 39."));
	assert_int_equal(r.excluded[EX_SLICE], 1);           /* nor a 40 GB slice with 10% headroom */
	assert_int_equal(r.feasible, 4);
	assert_int_equal(r.n, 3);                            /* the duplicate region collapsed */
	/* cheapest total first: L40S is slower, but cheaper per job? check the order by cost */
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.ranked[i - 1].cost.total <= r.ranked[i].cost.total);
	for (size_t i = 0; i < r.n; i++) {
		assert_true(r.ranked[i].mem_total <= r.ranked[i].offer->gpu_mem * 0.9);
		/* cost = price x (compute + set-up) */
		assert_near(r.ranked[i].cost.total,
			    r.ranked[i].offer->price * (r.ranked[i].compute_s + po.setup_s) / 3600, 1e-9);
	}
	plan_result_free(&r);
	/* by time: the fastest card first */
	po.by = PLAN_BY_TIME;
	run(&w, &arch, &po, &r);
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.ranked[i - 1].wall_s <= r.ranked[i].wall_s);
	plan_result_free(&r);
}

static void test_spot_and_resume(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;

	(void)s;
	set.n = 0;
	add("s", "a100-spot", "A100-80GB", 1, 2.00, 0.60);
	/* not resumable: an interruption loses the whole 20 h run; spot loses */
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 3e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.ranked[0].mode, PLAN_ON_DEMAND);
	plan_result_free(&r);
	/* resumable: checkpoints at Daly's interval, spot wins, and its
	 * expected cost exceeds the naive spot price x hours */
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 3e8 --resumable", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.ranked[0].mode, PLAN_SPOT);
	assert_true(r.ranked[0].cost.total > r.ranked[0].naive_spot);
	assert_true(r.ranked[0].cost.total < r.ranked[0].on_demand_total);
	assert_true(r.ranked[0].wall_s > r.ranked[0].compute_s);
	assert_true(r.ranked[0].ckpt_interval_s > 0);
	assert_near(r.ranked[0].ckpt_interval_s, spot_daly_interval(r.ranked[0].ckpt_write_s, MTBF), 1e-9);
	plan_result_free(&r);
}

static void test_campus_chain(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *hpc;

	(void)s;
	set.n = 0;
	hpc = add("uni", "a100-partition", "A100-80GB", 1, 0, 0);
	hpc->supply = SUPPLY_CAMPUS_HPC;
	hpc->max_runtime = 24 * 3600.0;
	hpc->queue_wait = 6 * 3600.0;
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.excluded[EX_TIME_LIMIT], 1);
	plan_result_free(&r);
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9 --resumable", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.ranked[0].chunks == ceil(r.ranked[0].compute_s / (24 * 3600.0 - po.setup_s)));
	assert_near(r.ranked[0].wall_s, r.ranked[0].compute_s + r.ranked[0].chunks * (6 * 3600.0 + po.setup_s),
		    1e-9);
	assert_true(r.ranked[0].cost.total == 0);
	/* and the deadline counts the queue */
	plan_result_free(&r);
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9 --resumable --deadline 3d", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.excluded[EX_DEADLINE], r.ranked ? 1 - (int)r.n : 1);
	plan_result_free(&r);
}

static void test_constraints_and_advice(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *big;

	(void)s;
	set.n = 0;
	add("a", "h100", "H100", 1, 2.50, 0);
	add("a", "a100", "A100-80GB", 1, 1.50, 0);
	big = add("a", "8xh100", "H100", 8, 20.0, 0);
	big->vcpus = 128;
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	po.max_price_usd = 2.0;
	run(&w, &arch, &po, &r);
	assert_int_equal(r.excluded[EX_MAX_PRICE], 2);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.user_class, 'A');            /* a few hours: occasional */
	assert_true(r.nchecklist >= 3);
	plan_result_free(&r);
	/* a SkyPilot resources section: H100:8 only */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	w.sky.given = true;
	w.sky.naccel = 1;
	w.sky.use_spot = -1;
	snprintf(w.sky.accel[0], sizeof(w.sky.accel[0]), "H100");
	w.sky.accel_count[0] = 8;
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.ranked[0].offer == big);
	assert_int_equal(r.excluded[EX_CONSTRAINT], 2);
	plan_result_free(&r);
	/* budget */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e10 --budget 10", &w, &arch);
	opts(&po);
	po.budget_usd = 10;
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 0);
	assert_true(r.excluded[EX_BUDGET] >= 2);
	assert_int_equal(r.user_class, 'A');   /* nothing feasible: no run to classify */
	plan_result_free(&r);
	/* inference is class C */
	workload("--model llama-2-7b --task infer --tokens 1e8", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.user_class, 'C');
	plan_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_and_reasons),
		cmocka_unit_test(test_spot_and_resume),
		cmocka_unit_test(test_campus_chain),
		cmocka_unit_test(test_constraints_and_advice),
	};
	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
