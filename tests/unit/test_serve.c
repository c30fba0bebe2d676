/* test_serve.c - a service priced by the month (src/core/plan/serve.c) on
 * hand-made offers with a hand-made pricer: the tensor-parallel degree,
 * the replica count, exclusions, the monthly arithmetic of each mode with
 * egress and storage, the checklist, and the serve schedule's syntax.
 * Expected values are computed here from the formula's inputs. */
#include "testutil.h"

#include <math.h>

#include "core/plan/serve.h"

/* the test pricer: on-demand at the offer's price for the busy hours; a
 * monthly package 720 h at 20% off; reserved 1y/3y 40%/60% off the busy
 * hours (serve.c passes the whole month); storage 0.10 USD per GB-month
 * and egress 0.05 USD per GB */
#define MONTHLY_OFF 0.20
#define R1_OFF 0.40
#define R3_OFF 0.60
#define STORE_GB 0.10
#define EGRESS_GB 0.05

static bool no_packages;   /* an offer whose profile has none */

static int price(void *ctx, const struct offer *o, enum plan_mode mode, const struct plan_usage *u,
		 struct plan_cost *out)
{
	double h = u->busy_s / 3600;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	switch (mode) {
	case PLAN_ON_DEMAND: out->compute = o->price * h; break;
	case PLAN_MONTHLY: if (no_packages) return -1; out->compute = o->price * 720 * (1 - MONTHLY_OFF); break;
	case PLAN_RESERVED_1Y: if (no_packages) return -1; out->compute = o->price * h * (1 - R1_OFF); break;
	case PLAN_RESERVED_3Y: if (no_packages) return -1; out->compute = o->price * h * (1 - R3_OFF); break;
	default: return -1;
	}
	out->storage = u->data_bytes / 1e9 * STORE_GB;
	out->egress = u->egress_bytes / 1e9 * EGRESS_GB;
	out->total = out->compute + out->storage + out->egress;
	snprintf(out->profile, sizeof(out->profile), "test");
	return 0;
}

static struct offer_set set;

static struct offer *add(const char *provider, const char *gpu, double n, double price_h)
{
	return tu_offer(&set, provider, gpu, gpu, n, price_h, 0);
}

static void workload(const char *args, struct workload *w, struct model_spec *arch)
{
	struct estimate e;

	tu_est(args, w, arch, &e);
}

static void run(const struct workload *w, const struct model_spec *arch, struct serve_opts *so,
		struct serve_result *r)
{
	char err[256];

	if (serve_run(w, arch, &set, so, r, err, sizeof(err)))
		fail_msg("%s", err);
}

static void opts(struct serve_opts *so)
{
	serve_opts_default(so);
	so->pricer.price = price;
	so->top = 10;
}

static const struct serve_choice *find(const struct serve_result *r, const char *provider)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ranked[i].offer->provider.len == strlen(provider) &&
		    !memcmp(r->ranked[i].offer->provider.p, provider, strlen(provider)))
			return &r->ranked[i];
	return NULL;
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

#define FITS(w, arch, r, tp, b, o) \
	(serve_mem_per_gpu(w, arch, &(r)->single, tp, b) <= (o)->gpu_mem * (1 - (w)->headroom))

/* 70B at 8K: one 80 GB card holds neither the weights nor half of them
 * with headroom; four do (tensor parallel 4). */
static void test_tp_selection(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct serve_opts so;
	struct serve_result r;
	const struct serve_choice *c;
	struct offer *one, *four, *small;

	(void)s;
	set.n = 0;
	one = add("one", "A100-80GB", 1, 2.0);
	four = add("four", "H100", 4, 10.0);
	small = add("small", "RTX4090", 8, 3.0);
	add("market", "H100", 8, 1.0)->supply = SUPPLY_MARKETPLACE;
	add("suspect", "H100", 8, 1.0)->suspect = OFFER_SPOT_AT_OR_ABOVE;
	add("unknown", "no-such-gpu", 8, 1.0);
	add("queue", "H100", 8, 0.0)->max_runtime = 48 * 3600.0;
	workload("--model llama-3.1-70b --task infer --context 8192 --concurrency 16 --serve 24x7", &w, &arch);
	opts(&so);
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 1);
	c = find(&r, "four");
	assert_non_null(c);
	/* the smallest power of two at which one sequence fits */
	assert_false(FITS(&w, &arch, &r, 1, 1, four));
	assert_false(FITS(&w, &arch, &r, 2, 1, four));
	assert_true(FITS(&w, &arch, &r, 4, c->batch, four));
	assert_int_equal(c->tp, 4);
	assert_true(c->tp >= 2);
	assert_int_equal(c->instances, 1);
	assert_true(c->comm_s > 0);   /* two all-reduces a layer over the link */
	assert_near(c->mem_used, c->mem_per_gpu / four->gpu_mem, 1e-12);
	/* weights split four ways */
	assert_near(serve_mem_per_gpu(&w, &arch, &r.single, 4, 0),
		    ((r.single.mem.weights + r.single.mem.quant_consts) / 4 + r.single.mem.activations) *
		    (1 + w.alloc_overhead) + w.cuda_context, 1e-9);
	/* why the others are out */
	assert_int_equal(r.excluded[SX_GPU_COUNT], 1);
	assert_ptr_equal(r.example[SX_GPU_COUNT].offer, one);
	assert_near(r.example[SX_GPU_COUNT].a, 4, 0);
	assert_int_equal(r.excluded[SX_MEMORY], 1);
	assert_ptr_equal(r.example[SX_MEMORY].offer, small);
	assert_true(r.example[SX_MEMORY].a > small->gpu_mem * (1 - w.headroom));
	assert_int_equal(r.excluded[SX_MARKETPLACE], 1);
	assert_int_equal(r.excluded[SX_SUSPECT], 1);
	assert_int_equal(r.excluded[SX_UNKNOWN_GPU], 1);
	assert_int_equal(r.excluded[SX_TIME_LIMIT], 1);
	serve_result_free(&r);

	/* the marketplace is ranked when the caller allows it */
	so.allow_marketplace = true;
	run(&w, &arch, &so, &r);
	assert_non_null(find(&r, "market"));
	assert_int_equal(r.excluded[SX_MARKETPLACE], 0);
	serve_result_free(&r);
}

/* 8B at 32K for 8 users on 48 GB cards: the KV cache of all 8 does not
 * fit one card, so the sequences are split over the fewest replicas. */
static void test_replicas(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct serve_opts so;
	struct serve_result r;
	const struct serve_choice *c;
	struct offer *o;
	long want = 0;

	(void)s;
	set.n = 0;
	o = add("l40s", "L40S", 1, 1.0);
	workload("--model llama-3.1-8b --task infer --context 32768 --concurrency 8 --serve 24x7", &w, &arch);
	opts(&so);
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 1);
	c = &r.ranked[0];
	assert_near(r.needed_tps, 8 * 20.0, 1e-12);   /* the default 20 tokens/s a user */
	for (long R = 1; R <= 8 && !want; R++) {
		double b = ceil(8.0 / R);
		if (FITS(&w, &arch, &r, 1, b, o) &&
		    1 / serve_step_seconds(&w, &arch, &r.single, o->gpu, r.decode_efficiency, 1, b, NULL) >= 20 * 1.2)
			want = R;   /* docs/serve.md "Headroom": 20% above the load by default */
	}
	assert_true(want > 1);
	assert_int_equal(c->tp, 1);
	assert_int_equal(c->replicas, want);
	assert_near(c->batch, ceil(8.0 / want), 0);
	assert_near(c->instances, want, 0);            /* one GPU a box, one replica a box */
	assert_near(c->served_tps, c->replicas * c->batch * c->seq_tps, 1e-12);
	assert_true(c->seq_tps >= 20 * 1.2);
	assert_near(r.tps_headroom, 0.2, 1e-12);
	assert_true(c->tps_margin >= 0.2 - 1e-12);
	assert_near(c->tps_margin, c->seq_tps / 20 - 1, 1e-12);
	/* the decode step: bytes read per GPU over the reached bandwidth */
	assert_near(c->step_s, (r.single.mem.weights + r.single.mem.quant_consts +
				c->batch * r.single.kv_per_token * 32768 / 2) /
		    (r.decode_efficiency * o->gpu->mem_bw), 1e-9);
	assert_near(r.decode_efficiency, 0.70, 1e-12);   /* docs/formulas.md "Inference time" */
	serve_result_free(&r);

	/* 60 tokens/s a user: beyond what the card's bandwidth can decode */
	workload("--model llama-3.1-8b --task infer --context 32768 --concurrency 8 --serve 24x7 --user_tps 60",
		 &w, &arch);
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.excluded[SX_TOO_SLOW], 1);
	assert_true(r.example[SX_TOO_SLOW].a < 60);
	assert_near(r.example[SX_TOO_SLOW].b, 60 * 1.2, 1e-12);   /* the need with its margin */
	serve_result_free(&r);

	/* requests per second: Little's law gives the sequences in flight */
	workload("--model llama-3.1-8b --task infer --context 4096 --serve 24x7 --rps 2 --output_len 256", &w, &arch);
	assert_int_equal(w.concurrency, (long)ceil(2 * 256 / 20.0));
	run(&w, &arch, &so, &r);
	assert_near(r.needed_tps, fmax(w.concurrency * 20.0, 2 * 256.0), 1e-12);
	serve_result_free(&r);
}

/* The month: on-demand for the hours up, the package and the reserved
 * terms, storage of the weights per box, egress of the responses. */
static void test_monthly_arithmetic(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct serve_opts so;
	struct serve_result r;
	const struct serve_choice *c;
	double hours, egress, store, od, m, r1, r3;

	(void)s;
	set.n = 0;
	add("h100", "H100", 1, 3.0);
	workload("--model llama-3.1-8b --task infer --context 8192 --concurrency 4 --serve 24x7 --data_size 10GB",
		 &w, &arch);
	opts(&so);
	no_packages = false;
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 1);
	c = &r.ranked[0];
	hours = 24 * 7 * 720 / 168.0;
	assert_near(r.hours_month, 720, 1e-12);
	assert_near(r.hours_month, hours, 1e-12);
	egress = 4 * 20.0 * 720 * 3600 * (4 + 500 / 256.0);
	assert_near(r.egress_bytes, egress, 1e-9);
	assert_near(r.storage_bytes, r.single.mem.weights + r.single.mem.quant_consts + 10e9, 1e-12);
	store = r.storage_bytes * c->instances / 1e9 * STORE_GB;
	od = 3.0 * 720 * c->instances;
	m = 3.0 * 720 * (1 - MONTHLY_OFF) * c->instances;
	r1 = 3.0 * 720 * (1 - R1_OFF) * c->instances;
	r3 = 3.0 * 720 * (1 - R3_OFF) * c->instances;
	assert_near(c->storage, store, 1e-9);
	assert_near(c->egress, egress / 1e9 * EGRESS_GB, 1e-9);
	assert_near(c->mode_total[0], od + store + c->egress, 1e-9);
	assert_near(c->mode_total[1], m + store + c->egress, 1e-9);
	assert_near(c->mode_total[2], r1 + store + c->egress, 1e-9);
	assert_near(c->mode_total[3], r3 + store + c->egress, 1e-9);
	assert_int_equal(c->mode, PLAN_RESERVED_3Y);
	assert_near(c->total, c->compute + c->storage + c->egress, 1e-9);
	assert_near(c->compute, r3, 1e-9);
	/* checklist: an alert at 1.2x, no scale-to-zero at 100% duty, the term's warning */
	assert_false(r.spiky);
	assert_false(r.alert_is_budget);
	assert_near(r.alert_usd, SERVE_ALERT_MULTIPLE * c->total, 1e-12);
	{
		bool alert = false, zero = false, term = false;
		for (int i = 0; i < r.nchecklist; i++) {
			alert |= r.checklist[i] == SC_BUDGET_ALERT;
			zero |= r.checklist[i] == SC_SCALE_TO_ZERO;
			term |= r.checklist[i] == SC_RESERVED_TERM;
		}
		assert_true(alert);
		assert_false(zero);
		assert_true(term);
	}
	serve_result_free(&r);

	/* 8 h a day, 5 days a week: on-demand for 40 h a week beats a term
	 * that bills every hour; the egress follows the hours up */
	workload("--model llama-3.1-8b --task infer --context 8192 --concurrency 4 --serve 8x5", &w, &arch);
	run(&w, &arch, &so, &r);
	c = &r.ranked[0];
	hours = 40 * 720 / 168.0;
	assert_near(r.hours_month, hours, 1e-12);
	assert_near(r.duty, 40 / 168.0, 1e-12);
	assert_true(r.spiky);
	assert_near(c->mode_total[0], 3.0 * hours * c->instances + c->storage + c->egress, 1e-9);
	assert_near(c->mode_total[3], 3.0 * 720 * (1 - R3_OFF) * c->instances + c->storage + c->egress, 1e-9);
	assert_int_equal(c->mode, PLAN_ON_DEMAND);
	assert_near(c->egress, 4 * 20.0 * hours * 3600 * (4 + 500 / 256.0) / 1e9 * EGRESS_GB, 1e-9);
	{
		bool zero = false;
		for (int i = 0; i < r.nchecklist; i++)
			zero |= r.checklist[i] == SC_SCALE_TO_ZERO;
		assert_true(zero);
	}
	serve_result_free(&r);

	/* a budget per month below the total excludes it; a profile without
	 * packages or terms is priced on-demand; a given egress is used as is */
	workload("--model llama-3.1-8b --task infer --context 8192 --concurrency 4 --serve 24x7 --egress_month 1TB",
		 &w, &arch);
	no_packages = true;
	so.budget_usd = 100;
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.excluded[SX_BUDGET], 1);
	assert_near(r.example[SX_BUDGET].a, 3.0 * 720 + r.storage_bytes / 1e9 * STORE_GB + 1e12 / 1e9 * EGRESS_GB, 1e-9);
	assert_near(r.egress_bytes, 1e12, 0);
	assert_true(r.alert_is_budget);
	assert_near(r.alert_usd, 100, 0);
	serve_result_free(&r);
	so.budget_usd = 0;
	run(&w, &arch, &so, &r);
	assert_int_equal(r.ranked[0].mode, PLAN_ON_DEMAND);
	assert_true(r.ranked[0].mode_total[1] < 0 && r.ranked[0].mode_total[3] < 0);
	serve_result_free(&r);
	no_packages = false;
}

/* Ranked cheapest first; the same box at the same total shown once. */
static void test_ranking(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct serve_opts so;
	struct serve_result r;

	(void)s;
	set.n = 0;
	add("c", "H100", 1, 3.0);
	add("a", "A100-80GB", 1, 1.5);
	add("a", "A100-80GB", 1, 1.5);   /* another region */
	add("b", "L40S", 1, 0.9);
	workload("--model llama-3.1-8b --task infer --context 4096 --concurrency 4 --serve 24x7", &w, &arch);
	opts(&so);
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.feasible, 4);
	for (size_t i = 1; i < r.n; i++)
		assert_true(r.ranked[i - 1].total <= r.ranked[i].total);
	serve_result_free(&r);
	so.top = 1;
	run(&w, &arch, &so, &r);
	assert_int_equal(r.n, 1);
	serve_result_free(&r);
}

static void test_schedule(void **s)
{
	static const char *const bad[] = {"25x7", "8x8", "0x5", "x7", "24", "0x10", "-1h", "24x7x", "8x0",
					  "12", "h", "", "1e1h", "inf"};
	struct serve_sched sc;
	char err[256];
	struct workload w;
	struct model_spec arch;
	struct estimate e;

	(void)s;
	assert_int_equal(workload_parse_serve("24x7", &sc, err, sizeof(err)), 0);
	assert_near(sc.hours_per_day * sc.days_per_week, 168, 0);
	assert_int_equal(workload_parse_serve("8x5", &sc, err, sizeof(err)), 0);
	assert_near(sc.hours_per_day, 8, 0);
	assert_near(sc.days_per_week, 5, 0);
	assert_int_equal(workload_parse_serve("12h", &sc, err, sizeof(err)), 0);
	assert_near(sc.hours_per_day * sc.days_per_week, 84, 0);
	assert_int_equal(workload_parse_serve("7.5x5", &sc, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!workload_parse_serve(bad[i], &sc, err, sizeof(err)))
			fail_msg("'%s' parsed", bad[i]);
		assert_non_null(strstr(err, "expected HOURSxDAYS"));
	}
	/* a service is inference; the service fields need serve */
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --task lora --serve 24x7", &w, &arch, &e,
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "serve: applies to task infer"));
	assert_int_equal(tu_estimate_args("--model llama-3.1-8b --task infer --user_tps 30", &w, &arch, &e,
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "user_tps: applies to a service"));
	/* prompt and output lengths set the context when it is not given */
	tu_est("--model llama-3.1-8b --task infer --serve 24x7 --rps 1 --prompt_len 1000 --output_len 200",
	       &w, &arch, &e);
	assert_int_equal(w.context, 1200);
	assert_true(serve_wanted(&w));
	tu_est("--model llama-3.1-8b --task infer", &w, &arch, &e);
	assert_false(serve_wanted(&w));
}

/* The all-reduce of tensor parallel runs over the estimate's link: the
 * workload's interconnect overrides the card's NVLink. */
static void test_tp_link(void **s)
{
	struct workload w;
	struct model_spec arch;
	struct serve_result r;
	struct serve_opts so;
	const struct gpu_spec *h100 = gpu_db_find(&tu_gdb, "H100");
	double nv, pcie, bw;

	(void)s;
	set.n = 0;
	add("h", "H100", 8, 20.0);
	workload("--model llama-3.1-70b --task infer --context 8192 --concurrency 8 --serve 24x7", &w, &arch);
	opts(&so);
	run(&w, &arch, &so, &r);
	serve_step_seconds(&w, &arch, &r.single, h100, r.decode_efficiency, 4, 2, &nv);
	w.interconnect = IC_PCIE;
	serve_step_seconds(&w, &arch, &r.single, h100, r.decode_efficiency, 4, 2, &pcie);
	estimate_link(&w, h100, 4, NULL, NULL, &bw);
	assert_near(bw, 63e9 * 0.65, 1e-12);   /* PCIe 5.0 x16, 65% (formulas.md "Communication") */
	assert_true(pcie > nv && nv > 0);
	/* two all-reduces of hidden x batch per layer, ring over 4, plus the latency */
	assert_near(pcie, (double)arch.layers * 2 * (2.0 * 3 / 4 * (double)arch.hidden * 2 * 2 / bw +
						    SERVE_ALLREDUCE_LATENCY_S), 1e-9);
	serve_result_free(&r);
}

static void test_names(void **s)
{
	(void)s;
	assert_string_equal(serve_exclusion_name(SX_MEMORY), "memory");
	assert_string_equal(serve_exclusion_name(SX_COUNT), "?");
	assert_string_equal(serve_check_name(SC_BUDGET_ALERT), "budget_alert");
	assert_string_equal(serve_check_name(SC_COUNT), "?");
	assert_int_equal(serve_modes[0], PLAN_ON_DEMAND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tp_selection),
		cmocka_unit_test(test_replicas),
		cmocka_unit_test(test_monthly_arithmetic),
		cmocka_unit_test(test_ranking),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_tp_link),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("serve", tests, setup, teardown);
}
