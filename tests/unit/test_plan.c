/* test_plan.c - the planner on hand-made offers with a simple pricer:
 * fit, exclusions and their reasons, ranking, spot with interruptions,
 * chained campus jobs, constraints, advice (issue 3 "The plan"). The
 * result holds codes and facts (the words are test_planwords.c's). */
#include "testutil.h"

#include <math.h>

#include "core/plan/plan.h"
#include "core/market/spot.h"

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
	struct offer *o = tu_offer(&set, provider, instance, gpu, n, price_h, spot_h);

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

/* The first document of a SkyPilot task written here (kept until the next call). */
static const struct sky_doc *task_of(const char *yaml)
{
	static struct sky_task t;
	char err[256];

	sky_task_free(&t);
	if (sky_task_parse(yaml, strlen(yaml), "task.yaml", &t, err, sizeof(err)))
		fail_msg("%s", err);
	return &t.doc[0];
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
	add("d", "mystery", "Z800", 1, 0.50, 0);           /* unknown GPU */
	slice = add("e", "mig-3g", "A100-80GB", 1, 0.30, 0);
	slice->is_slice = true;
	slice->gpu_mem = 40e9;
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 3e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.considered, 7);
	assert_int_equal(r.excluded[EX_UNKNOWN_GPU], 1);
	assert_int_equal(r.excluded[EX_MEMORY], 1);          /* 39 GB does not fit 24 */
	assert_int_equal(r.example[EX_MEMORY].detail, PLAN_D_MEMORY);
	assert_true(r.example[EX_MEMORY].a > 39e9 && r.example[EX_MEMORY].a < 40e9);
	assert_near(r.example[EX_MEMORY].b, 24e9, 1);        /* the RTX 4090's */
	assert_int_equal(r.example[EX_MEMORY].offer->price * 100, 40);
	assert_int_equal(r.example[EX_UNKNOWN_GPU].detail, PLAN_D_NO_SPECS);
	assert_int_equal(r.excluded[EX_SLICE], 1);           /* nor a 40 GB slice with 10% headroom */
	assert_true(r.example[EX_SLICE].offer == slice);
	assert_int_equal(r.example[EX_SLICE].detail, PLAN_D_MEMORY);
	assert_near(r.example[EX_SLICE].b, 40e9, 1);
	assert_null(r.example[EX_DEADLINE].offer);           /* no case of an unused reason */
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
		assert_int_equal(r.ranked[i].why, PLAN_WHY_FITS);
		assert_true(r.ranked[i].queue_s == 0);
	}
	/* over 8 h, not resumable, no data_size, more than one choice: class and checklist */
	assert_int_equal(r.user_class, 'B');
	assert_int_equal(r.class_why, PLAN_CLASS_LONG_RUN);
	assert_true(r.class_run_s == r.ranked[0].compute_s);
	assert_int_equal(r.supply_advice[SUPPLY_AI_CLOUD], PLAN_A_AI_CLOUD_LONG);
	assert_int_equal(r.supply_advice[SUPPLY_MARKETPLACE], PLAN_A_MARKET_VOLATILE);
	assert_false(r.supply_fits[SUPPLY_MARKETPLACE]);
	assert_int_equal(r.supply_advice[SUPPLY_CAMPUS_HPC], PLAN_A_CAMPUS_NEEDS_RESUME);
	assert_false(r.supply_fits[SUPPLY_CAMPUS_HPC]);
	assert_int_equal(r.supply_advice[SUPPLY_SERVERLESS], PLAN_A_SERVERLESS_LONG);
	assert_int_equal(r.supply_advice[SUPPLY_HYPERSCALER], PLAN_A_HYPER_STEADY);
	assert_int_equal(r.supply_advice[SUPPLY_UNKNOWN], PLAN_A_NONE);
	assert_int_equal(r.billing_advice, PLAN_A_BILL_ON_DEMAND);
	assert_int_equal(r.nchecklist, 5);
	assert_int_equal(r.checklist[0].code, PLAN_C_AUTO_STOP);
	assert_near(r.checklist[0].seconds, r.ranked[0].wall_s * 1.2, 1e-9);
	assert_near(r.checklist[0].usd, r.ranked[0].cost.total * 1.2, 1e-9);
	assert_int_equal(r.checklist[1].code, PLAN_C_CKPT_REGULAR);
	assert_int_equal(r.checklist[2].code, PLAN_C_DATA_UNKNOWN);
	assert_int_equal(r.checklist[3].code, PLAN_C_DEBUG_CHEAPEST);
	assert_true(r.checklist[3].offer->price == 0.90);    /* the L40S, cheapest per hour */
	assert_true(r.checklist[3].usd == 0.90);
	assert_int_equal(r.checklist[4].code, PLAN_C_RECORD_COSTS);
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
	assert_int_equal(r.ranked[0].why, PLAN_WHY_FITS);
	assert_int_equal(r.checklist[1].code, PLAN_C_CKPT_REGULAR);
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
	assert_int_equal(r.ranked[0].why, PLAN_WHY_SPOT);
	assert_int_equal(r.billing_advice, PLAN_A_BILL_SPOT);
	assert_int_equal(r.supply_advice[SUPPLY_MARKETPLACE], PLAN_A_MARKET_RESUMABLE);
	assert_int_equal(r.supply_advice[SUPPLY_CAMPUS_HPC], PLAN_A_CAMPUS_CHAINED);
	assert_int_equal(r.checklist[1].code, PLAN_C_CKPT_INTERVAL);
	assert_true(r.checklist[1].seconds == r.ranked[0].ckpt_interval_s);
	assert_true(r.checklist[1].write_s == r.ranked[0].ckpt_write_s);
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
	assert_int_equal(r.example[EX_TIME_LIMIT].detail, PLAN_D_TIME_LIMIT);
	assert_true(r.example[EX_TIME_LIMIT].a > 24 * 3600.0);
	assert_true(r.example[EX_TIME_LIMIT].b == 24 * 3600.0);
	/* nothing fits, yet the class comes from the job: its run time on the
	 * offer it was timed on, more than the 24 h limit */
	assert_int_equal(r.class_why, PLAN_CLASS_LONG_RUN);
	assert_true(r.class_run_s == r.example[EX_TIME_LIMIT].a);
	assert_int_equal(r.nchanges, 1);
	assert_int_equal(r.changes[0].code, PLAN_CH_RESUMABLE);
	assert_true(r.changes[0].a == 1);
	plan_result_free(&r);
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9 --resumable", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.ranked[0].chunks == ceil(r.ranked[0].compute_s / (24 * 3600.0 - po.setup_s)));
	assert_near(r.ranked[0].wall_s, r.ranked[0].compute_s + r.ranked[0].chunks * (6 * 3600.0 + po.setup_s),
		    1e-9);
	assert_true(r.ranked[0].cost.total == 0);
	assert_int_equal(r.ranked[0].why, PLAN_WHY_QUEUE);
	assert_true(r.ranked[0].queue_s == r.ranked[0].chunks * 6 * 3600.0);
	/* and the deadline counts the queue */
	plan_result_free(&r);
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9 --resumable --deadline 3d", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.excluded[EX_DEADLINE], r.ranked ? 1 - (int)r.n : 1);
	if (r.excluded[EX_DEADLINE]) {
		assert_int_equal(r.example[EX_DEADLINE].detail, PLAN_D_DEADLINE);
		assert_true(r.example[EX_DEADLINE].a > r.example[EX_DEADLINE].b);
		assert_true(r.example[EX_DEADLINE].b == 3 * 86400.0);
	}
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
	assert_int_equal(r.example[EX_MAX_PRICE].detail, PLAN_D_MAX_PRICE);
	assert_true(r.example[EX_MAX_PRICE].a == 2.50);   /* the first excluded: the H100 */
	assert_true(r.example[EX_MAX_PRICE].b == 2.0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.user_class, 'A');            /* a few hours: occasional */
	assert_true(r.nchecklist >= 3);
	assert_int_equal(r.checklist[r.nchecklist - 1].code, PLAN_C_RECORD_COSTS);
	plan_result_free(&r);
	/* a SkyPilot resources section: H100:8 only */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	po.task = task_of("resources:\n  accelerators: H100:8\n");
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.ranked[0].offer == big);
	assert_int_equal(r.excluded[EX_CONSTRAINT], 2);
	assert_int_equal(r.example[EX_CONSTRAINT].detail, PLAN_D_OTHER_KIND);
	assert_true(r.example[EX_CONSTRAINT].a == 1);
	plan_result_free(&r);
	/* budget */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e10 --budget 10", &w, &arch);
	opts(&po);
	po.budget_usd = 10;
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 0);
	assert_true(r.excluded[EX_BUDGET] >= 2);
	assert_int_equal(r.example[EX_BUDGET].detail, PLAN_D_BUDGET);
	assert_true(r.example[EX_BUDGET].a > 10 && r.example[EX_BUDGET].b == 10);
	/* nothing feasible: the class from the job's run, and what would have to change */
	assert_int_equal(r.user_class, 'B');
	assert_true(r.class_run_s > 8 * 3600.0);
	{
		bool found = false;
		for (int i = 0; i < r.nchanges; i++)
			if (r.changes[i].code == PLAN_CH_BUDGET) {
				found = true;
				assert_true(r.changes[i].b == 10);
				assert_true(r.changes[i].a > 10 && r.changes[i].a <= r.example[EX_BUDGET].a);
			}
		assert_true(found);
	}
	plan_result_free(&r);
	/* inference is class C */
	workload("--model llama-2-7b --task infer --tokens 1e8", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.user_class, 'C');
	assert_int_equal(r.class_why, PLAN_CLASS_SERVICE);
	assert_int_equal(r.supply_advice[SUPPLY_SERVERLESS], PLAN_A_SERVERLESS_SPIKY);
	assert_int_equal(r.supply_advice[SUPPLY_CAMPUS_HPC], PLAN_A_CAMPUS_NO_SERVICE);
	assert_int_equal(r.billing_advice, PLAN_A_BILL_SERVICE);
	plan_result_free(&r);
}

/* The data item of the checklist by the data's size, with its facts. */
static void test_checklist_data(void **s)
{
	static const struct {
		const char *args;
		enum plan_check_code code;
		double bytes;
	} cases[] = {
		{"--model llama-2-7b --task lora --seq 2048 --tokens 1e8 --data-size 5e9", PLAN_C_DATA_RSYNC, 5e9},
		{"--model llama-2-7b --task lora --seq 2048 --tokens 1e8 --data-size 1e11", PLAN_C_DATA_OBJECT_STORE, 1e11},
		{"--model llama-2-7b --task lora --seq 2048 --tokens 1e8 --data-size 2e12", PLAN_C_DATA_MOUNT, 2e12},
	};
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;

	(void)s;
	set.n = 0;
	add("a", "a100", "A100-80GB", 1, 1.50, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_check *k = NULL;
		workload(cases[i].args, &w, &arch);
		opts(&po);
		run(&w, &arch, &po, &r);
		assert_int_equal(r.n, 1);
		for (int c = 0; c < r.nchecklist; c++)
			if (r.checklist[c].bytes > 0)
				k = &r.checklist[c];
		assert_non_null(k);
		assert_int_equal(k->code, cases[i].code);
		assert_true(k->bytes == cases[i].bytes);
		if (k->code == PLAN_C_DATA_OBJECT_STORE) {
			assert_true(k->bw == po.upload_bw);
			assert_near(k->seconds, 1e11 / po.upload_bw, 1e-9);
		}
		if (cases[i].bytes > 500e9)
			assert_int_equal(r.supply_advice[SUPPLY_HYPERSCALER], PLAN_A_HYPER_LARGE_DATA);
		plan_result_free(&r);
	}
}

/* Every code has a stable name, and the names are distinct. */
static void test_code_names(void **s)
{
	(void)s;
	for (int i = 0; i < EX_NREASONS; i++)
		assert_string_not_equal(plan_exclusion_name(i), "?");
	for (int i = 0; i < PLAN_D_COUNT; i++)
		assert_string_not_equal(plan_detail_name(i), "?");
	for (int i = 0; i < PLAN_WHY_COUNT; i++)
		assert_string_not_equal(plan_why_name(i), "?");
	for (int i = 0; i < PLAN_CLASS_COUNT; i++)
		assert_string_not_equal(plan_class_name(i), "?");
	for (int i = 0; i < PLAN_C_COUNT; i++)
		assert_string_not_equal(plan_check_name(i), "?");
	for (int i = 0; i < PLAN_A_COUNT; i++) {
		assert_string_not_equal(plan_advice_name(i), "?");
		for (int k = 0; k < i; k++)
			assert_string_not_equal(plan_advice_name(i), plan_advice_name(k));
	}
	assert_string_equal(plan_exclusion_name(EX_MEMORY), "memory");
	assert_string_equal(plan_exclusion_name(EX_NREASONS), "?");
	assert_string_equal(plan_detail_name(PLAN_D_NO_MODE), "no_billing_mode");
	assert_string_equal(plan_check_name(PLAN_C_AUTO_STOP), "auto_stop");
	assert_string_equal(plan_advice_name(PLAN_A_COUNT), "?");
}

static bool in_ranked(const struct plan_result *r, const struct offer *o)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ranked[i].offer == o)
			return true;
	return false;
}

/* Issue 10 item 1: offers that need a membership only with --access; a
 * free offer never makes a budget stop of 0; --exclude / --only. */
static void test_access_and_filters(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *hpc, *hpc2, *cloud, *market;
	static const char *const mine[] = {"uni-hpc"};
	static const char *const nomarket[] = {"marketplace"};
	static const char *const onlyb[] = {"B"};

	(void)s;
	set.n = 0;
	hpc = add("uni", "a100-partition", "A100-80GB", 1, 0, 0);
	hpc->supply = SUPPLY_CAMPUS_HPC;
	hpc->access = (struct cat_str){"UNI-HPC", 7};
	hpc2 = add("other", "a100-partition", "A100-80GB", 1, 0, 0);
	hpc2->supply = SUPPLY_CAMPUS_HPC;
	hpc2->access = (struct cat_str){"OTHER-HPC", 9};
	cloud = add("B", "a100", "A100-80GB", 1, 1.5, 0);
	market = add("m", "a100", "A100-80GB", 1, 1.0, 0);
	market->supply = SUPPLY_MARKETPLACE;
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_false(in_ranked(&r, hpc) || in_ranked(&r, hpc2));
	assert_int_equal(r.excluded[EX_ACCESS], 2);
	assert_int_equal(r.access_distinct, 2);
	assert_string_equal(r.access_names, "UNI-HPC,OTHER-HPC");
	assert_int_equal(r.supply[SUPPLY_CAMPUS_HPC].need_access, 2);
	assert_true(r.ranked[0].offer == market);
	/* the budget stop: 1.2x the expected cost without a budget */
	assert_int_equal(r.checklist[0].code, PLAN_C_AUTO_STOP);
	assert_false(r.checklist[0].budget_given);
	assert_near(r.checklist[0].usd, 1.2 * r.ranked[0].cost.total, 1e-9);
	plan_result_free(&r);
	/* named (any case): planned, first at 0; the stop is not a 0 budget */
	po.access = mine;
	po.naccess = 1;
	run(&w, &arch, &po, &r);
	assert_true(r.ranked[0].offer == hpc);
	assert_false(in_ranked(&r, hpc2));
	assert_int_equal(r.excluded[EX_ACCESS], 1);
	assert_true(r.checklist[0].usd == 0 && !r.checklist[0].budget_given);
	plan_result_free(&r);
	/* with a budget, the stop is the budget */
	po.budget_usd = 500;
	run(&w, &arch, &po, &r);
	assert_true(r.checklist[0].budget_given && r.checklist[0].usd == 500);
	plan_result_free(&r);
	po.budget_usd = 0;
	po.access = NULL;
	po.naccess = 0;
	po.exclude = nomarket;
	po.nexclude = 1;
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == cloud);
	assert_int_equal(r.excluded[EX_USER_FILTER], 1);
	plan_result_free(&r);
	po.exclude = NULL;
	po.nexclude = 0;
	po.only = onlyb;
	po.nonly = 1;
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == cloud);
	assert_int_equal(r.excluded[EX_USER_FILTER], 1);   /* the marketplace; campus went on access */
	plan_result_free(&r);
}

/* Item 3: a row with spot at or above on-demand is not ranked. */
static void test_suspect_price(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *sus;

	(void)s;
	set.n = 0;
	sus = add("rp", "l40s", "L40S", 1, 0.43, 0.86);
	sus->suspect = OFFER_SPOT_AT_OR_ABOVE;
	add("rp", "l40", "L40", 1, 1.14, 0);
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_false(in_ranked(&r, sus));
	assert_int_equal(r.excluded[EX_SUSPECT_PRICE], 1);
	assert_true(r.example[EX_SUSPECT_PRICE].a == 0.86 && r.example[EX_SUSPECT_PRICE].b == 0.43);
	plan_result_free(&r);
}

/* Item 8: the fastest within 10% of the cheapest, and the Pareto front. */
static void test_fastest_and_pareto(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *one, *eight, *dear;

	(void)s;
	set.n = 0;
	one = add("x", "1xa100", "A100-80GB", 1, 1.00, 0);
	eight = add("y", "8xa100", "A100-80GB", 8, 8.10, 0);   /* 8x the speed, about the same total */
	dear = add("z", "1xa100-dear", "A100-80GB", 1, 3.00, 0);   /* dearer and no faster */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 3e9", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_true(r.ranked[0].offer == one);
	assert_true(r.have_fastest);
	assert_true(r.fastest.offer == eight);
	assert_true(r.fastest.cost.total <= r.ranked[0].cost.total * 1.1);
	assert_true(r.fastest.wall_s < r.ranked[0].wall_s);
	for (size_t i = 0; i < r.n; i++) {
		const struct plan_choice *c = &r.ranked[i];
		bool dominated = false;
		for (size_t k = 0; k < r.n; k++)
			dominated |= k != i && r.ranked[k].cost.total <= c->cost.total &&
				     r.ranked[k].wall_s <= c->wall_s &&
				     (r.ranked[k].cost.total < c->cost.total || r.ranked[k].wall_s < c->wall_s);
		assert_true(c->pareto == !dominated);
		if (c->offer == dear)
			assert_false(c->pareto);
	}
	assert_int_equal(r.pareto, 2);
	plan_result_free(&r);
	/* a margin of 0: only the cheapest itself */
	po.fast_margin = 0;
	run(&w, &arch, &po, &r);
	assert_false(r.have_fastest);
	plan_result_free(&r);
}

/* Item 7: the order of magnitude names the work and the figure in range. */
static void test_magnitude(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;

	(void)s;
	set.n = 0;
	add("x", "1xa100", "A100-80GB", 1, 1.00, 0);
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.magnitude.code, PLAN_M_NONE);
	plan_result_free(&r);
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 5e9", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_true(r.ranked[0].wall_s > PLAN_LONG_RUN_S);
	assert_int_equal(r.magnitude.code,
			 r.ranked[0].wall_s > PLAN_ABSURD_RUN_S ? PLAN_M_SLOW_ALL : PLAN_M_SLOW_CHEAPEST);
	assert_true(r.magnitude.work == 5e9);
	assert_near(r.magnitude.work_in_range, 5e9 * r.magnitude.limit_s / r.magnitude.finish_s, 1);
	plan_result_free(&r);
	/* samples x seq x epochs is the input named */
	workload("--model llama-2-7b --task lora --seq 512 --samples 2e6 --epochs 30", &w, &arch);
	run(&w, &arch, &po, &r);
	assert_int_not_equal(r.magnitude.code, PLAN_M_NONE);
	assert_true(r.magnitude.from_samples);
	assert_true(r.magnitude.samples == 2e6 && r.magnitude.seq == 512 && r.magnitude.epochs == 30);
	plan_result_free(&r);
	/* a budget more than tenfold short */
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	po.budget_usd = 0.01;
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.magnitude.code, PLAN_M_OVER_BUDGET);
	assert_near(r.magnitude.work_in_range, 1e8 * 0.01 / r.magnitude.total_usd, 1e-3);
	plan_result_free(&r);
}

/* Item 9: the checkpoint rule by the kind of interruption; item 11: spot
 * against on-demand. */
static void test_ckpt_kind_and_spot(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *hpc, *spot, *od;
	const struct plan_check *k = NULL;

	(void)s;
	set.n = 0;
	hpc = add("uni", "a100-partition", "A100-80GB", 1, 0, 0);
	hpc->supply = SUPPLY_CAMPUS_HPC;
	hpc->max_runtime = 24 * 3600.0;
	workload("--model llama-2-7b --task lora --seq 4096 --tokens 1e9 --resumable", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_true(r.ranked[0].offer == hpc && r.ranked[0].chunks > 1);
	for (int i = 0; i < r.nchecklist; i++)
		if (r.checklist[i].code == PLAN_C_CKPT_TIME_LIMIT)
			k = &r.checklist[i];
	assert_non_null(k);
	assert_true(k->seconds == 24 * 3600.0 - po.setup_s);
	{
		/* the lead the Slurm script asks for (docs/slurm.md "Lead time"): the same generator */
		struct slurm_gen_in in;
		struct slurm_gen g;
		char err[128];
		plan_slurm_in(&r.ranked[0], &in);
		assert_int_equal(slurm_gen_plan(&in, &g, err, sizeof(err)), 0);
		assert_true(k->lead_s == g.lead_s);
		assert_true(k->lead_s >= SLURM_GEN_LEAD_S && k->lead_s >= 2 * k->write_s);
		assert_true(in.limit_s == 24 * 3600.0 && in.gpus_per_node == 1 && in.nodes == 1);
	}
	assert_true(k->regular_s >= 1800 && k->regular_s >= 20 * k->write_s);
	plan_result_free(&r);
	/* spot: Young/Daly with the MTBF */
	set.n = 0;
	spot = add("s", "a100", "A100-80GB", 1, 2.0, 0.5);
	run(&w, &arch, &po, &r);
	assert_true(r.ranked[0].mode == PLAN_SPOT);
	k = NULL;
	for (int i = 0; i < r.nchecklist; i++)
		if (r.checklist[i].code == PLAN_C_CKPT_INTERVAL)
			k = &r.checklist[i];
	assert_non_null(k);
	assert_near(k->seconds, spot_daly_interval(r.ranked[0].ckpt_write_s, MTBF), 1e-6);
	assert_near(k->mtbf_s, MTBF, MTBF * 0.2);
	plan_result_free(&r);
	/* use_spot: true, while an on-demand offer elsewhere is cheaper */
	od = add("o", "a100", "A100-80GB", 1, 0.4, 0);
	po.task = task_of("resources:\n  use_spot: true\n");
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == spot);
	assert_int_equal(r.spot_note.code, PLAN_SPOT_ONLY_EXCLUDED);
	assert_true(r.spot_note.on_demand == od && r.spot_note.spot == spot);
	assert_true(r.spot_note.on_demand_total < r.spot_note.spot_total);
	plan_result_free(&r);
	/* on-demand only: the seed's 15-30 min rule */
	set.n = 0;
	add("o", "a100", "A100-80GB", 1, 0.4, 0);
	po.task = NULL;
	run(&w, &arch, &po, &r);
	k = NULL;
	for (int i = 0; i < r.nchecklist; i++)
		if (r.checklist[i].code == PLAN_C_CKPT_REGULAR)
			k = &r.checklist[i];
	assert_non_null(k);
	assert_true(k->seconds == 1800);
	plan_result_free(&r);
}

/* A SkyPilot task's candidates: ordered ranks only the first with a
 * feasible offer; any_of ranks them all; use_spot is the matched one's. */
static void test_task_candidates(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *a100, *h100, *a80;

	(void)s;
	set.n = 0;
	a100 = add("aws", "p4d", "A100", 8, 20.0, 8.0);
	h100 = add("aws", "p5", "H100", 8, 60.0, 25.0);
	a80 = add("aws", "p4de", "A100-80GB", 8, 25.0, 0);
	workload("--model llama-2-7b --task lora --seq 2048 --tokens 1e8", &w, &arch);
	opts(&po);
	/* ordered: the dearer H100 first, and it has a feasible offer */
	po.task = task_of("resources:\n  ordered:\n    - accelerators: H100:8\n    - accelerators: A100:8\n");
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 1);
	assert_true(r.ranked[0].offer == h100);
	assert_int_equal(r.excluded[EX_ORDERED], 1);
	assert_true(r.example[EX_ORDERED].offer == a100);
	assert_int_equal(r.example[EX_ORDERED].detail, PLAN_D_ORDERED);
	assert_true(r.example[EX_ORDERED].a == 2 && r.example[EX_ORDERED].b == 1);
	assert_int_equal(r.excluded[EX_CONSTRAINT], 1);   /* the 80 GB card is not an A100 */
	assert_int_equal((int)r.feasible, 1);
	plan_result_free(&r);
	/* the same as an accelerators list: ordered too */
	po.task = task_of("resources:\n  accelerators: [H100:8, A100:8]\n");
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == h100);
	plan_result_free(&r);
	/* the first choice has no offer: the second is ranked */
	po.task = task_of("resources:\n  accelerators: [H200:8, A100:8]\n");
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == a100);
	assert_int_equal(r.excluded[EX_ORDERED], 0);
	plan_result_free(&r);
	/* any_of (and a set): both ranked, the cheaper first */
	po.task = task_of("resources:\n  accelerators: {H100:8, A100:8}\n");
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 2);
	assert_true(r.ranked[0].offer == a100 && r.ranked[1].offer == h100);
	assert_int_equal(r.excluded[EX_ORDERED], 0);
	plan_result_free(&r);
	/* use_spot per candidate: spot for the A100s only */
	po.task = task_of("resources:\n  any_of:\n    - {accelerators: A100:8, use_spot: true}\n"
			  "    - {accelerators: A100-80GB:8, use_spot: false}\n");
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 2);
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(r.ranked[i].mode == PLAN_SPOT, r.ranked[i].offer == a100);
	plan_result_free(&r);
	/* an offer with no spot price fits the on-demand candidate, not the spot-only one */
	po.task = task_of("resources:\n  any_of:\n    - {accelerators: A100-80GB:8, use_spot: true}\n"
			  "    - {accelerators: A100-80GB:8, infra: aws}\n");
	run(&w, &arch, &po, &r);
	assert_true(r.n == 1 && r.ranked[0].offer == a80 && r.ranked[0].mode != PLAN_SPOT);
	plan_result_free(&r);
	po.task = NULL;
}

/* Issue 11: a catalog row with a spot price and no on-demand price is a
 * spot offer, never a free one. */
static void test_spot_only_row(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct plan_opts po;
	struct plan_result r;
	struct offer *so, *od;

	(void)s;
	set.n = 0;
	so = add("v8", "spot-a100", "A100-80GB", 1, 0, 0.9);
	so->spot_only = true;
	od = add("o", "a100", "A100-80GB", 1, 2.0, 0);
	workload("--model llama-2-7b --task lora --tokens 1e8 --resumable", &w, &arch);
	opts(&po);
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 2);
	for (size_t i = 0; i < r.n; i++) {
		if (r.ranked[i].offer == so) {
			assert_int_equal(r.ranked[i].mode, PLAN_SPOT);
			assert_true(r.ranked[i].cost.total > 0);
			assert_false(isfinite(r.ranked[i].on_demand_total));
		}
	}
	plan_result_free(&r);
	/* a price cap is held against its spot price */
	po.max_price_usd = 0.5;
	run(&w, &arch, &po, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.excluded[EX_MAX_PRICE], 2);
	plan_result_free(&r);
	(void)od;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fit_and_reasons),
		cmocka_unit_test(test_task_candidates),
		cmocka_unit_test(test_spot_and_resume),
		cmocka_unit_test(test_campus_chain),
		cmocka_unit_test(test_constraints_and_advice),
		cmocka_unit_test(test_checklist_data),
		cmocka_unit_test(test_code_names),
		cmocka_unit_test(test_access_and_filters),
		cmocka_unit_test(test_suspect_price),
		cmocka_unit_test(test_fastest_and_pareto),
		cmocka_unit_test(test_magnitude),
		cmocka_unit_test(test_ckpt_kind_and_spot),
		cmocka_unit_test(test_spot_only_row),
	};
	return cmocka_run_group_tests_name("plan", tests, setup, teardown);
}
