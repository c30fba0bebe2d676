/*
 * cmd_plan.c - `gpurent plan [job.yaml] [--FIELD VALUE]... [--catalog P]...`:
 * estimate the job, price it on every offer under each billing mode, rank,
 * explain, advise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/plan.h"
#include "../core/units.h"
#include "cmd.h"
#include "../cli/common.h"
#include "../cli/offers_load.h"
#include "../cli/plan_pricer.h"
#include "../cli/plan_serve.h"
#include "../cli/planwords.h"
#include "../cli/wlargs.h"

static const char usage[] =
	"usage: gpurent plan [FILE.yaml] [--FIELD VALUE]... [--catalog PATH]... [--by cost|time]\n"
	"                    [--top N] [--max-price USD_PER_H] [--currency CODE] [--rate CODE=PER_USD]\n"
	"                    [--setup DURATION] [--upload-bw BW] [--json]\n"
	"\n"
	"Where and how to rent for a workload: estimate it (see 'gpurent help estimate'\n"
	"for its fields), keep the offers whose GPU memory fits with headroom (a sliced\n"
	"card only if the job fits the slice), time the job on each offer's GPUs (more\n"
	"than one GPU only where communication does not dominate), price the whole job\n"
	"under each billing mode the offer allows - on-demand at its granularity,\n"
	"packages, spot at its expected cost with interruptions - plus set-up, data\n"
	"upload, storage and egress, then rank by total cost (--by time: by finish\n"
	"time). Constraints: the workload's deadline, budget and gpu/gpus fields,\n"
	"--max-price per instance-hour, and a SkyPilot task's resources: section in\n"
	"FILE (accelerators, use_spot, cpus, memory, disk_size, infra/cloud/region).\n"
	"The job needs tokens (or samples) to be priced. Catalogs as in 'gpurent\n"
	"offers' (default: the bundled catalog and ~/.sky/catalogs).\n"
	"\n"
	"Output: the top N (default 5) with why, what was excluded and why, the user\n"
	"class (A occasional runs, B long runs that must not lose progress, C a\n"
	"24x7 service), which supply types fit, the billing mode, and a checklist.\n"
	"--setup (default 20m) is billed set-up per instance start; --upload-bw\n"
	"(default 100Mb/s) the dataset's upload speed.\n"
	"Exit status: 0 ok, 1 nothing fits, 2 bad input.\n";

static double to_usd(const struct offers_ctx *c, const struct money *m)
{
	double r = offers_rate(c, m->code);
	return r > 0 ? m->amount * r : -1;
}

static void cs_print(const struct cat_str *s, int width)
{
	printf("%-*.*s", width, (int)((int)s->len > width ? width : (int)s->len), s->p);
}

static void render(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
		   const struct plan_result *r, const char *cur, double fx)
{
	char a[64], b[64], why[PLAN_CHECK_MAX];
	const struct estimate *e = &r->single;

	printf("gpurent plan: %s, %s, %s", arch->name, workload_enum_name("task", w->task),
	       workload_enum_name("precision", w->precision));
	if (e->work > 0)
		printf(", %s %s", units_fmt_flops(e->work, a, sizeof(a)), e->work_is_samples ? "samples" : "tokens");
	printf("\n%zu offers considered, %zu feasible; ranked by %s; prices in %s\n\n", r->considered, r->feasible,
	       po->by == PLAN_BY_TIME ? "finish time" : "total cost", cur);
	if (!r->n) {
		printf("No offer fits. See what was excluded below.\n");
	} else {
		printf(" # %-14s %-28s %-14s %3s %5s %-15s %10s %10s %10s\n", "provider", "instance", "GPU", "n",
		       "mem", "billing", "finish", "total", "on-demand");
		for (size_t i = 0; i < r->n; i++) {
			const struct plan_choice *c = &r->ranked[i];
			const struct offer *o = c->offer;
			size_t al = strcspn(o->gpu->aliases, "|");
			printf("%2zu ", i + 1);
			cs_print(&o->provider, 14);
			putchar(' ');
			cs_print(&o->instance, 28);
			printf(" %-14.*s %3g %4.0f%% %-15s %10s %10.2f %10s\n", (int)al, o->gpu->aliases, c->gpus,
			       c->mem_used * 100, plan_mode_word(c->mode),
			       units_fmt_duration_short(c->wall_s, a, sizeof(a)), c->cost.total / fx,
			       isfinite(c->on_demand_total) ? (snprintf(b, sizeof(b), "%.2f", c->on_demand_total / fx), b) : "-");
		}
		printf("\nWhy\n");
		for (size_t i = 0; i < r->n; i++) {
			const struct plan_choice *c = &r->ranked[i];
			plan_word_why(c, why, PLAN_WHY_MAX);
			printf(" %zu. %s; compute %.2f + idle %.2f + storage %.2f + egress %.2f %s",
			       i + 1, why, c->cost.compute / fx, c->cost.idle / fx, c->cost.storage / fx,
			       c->cost.egress / fx, cur);
			if (c->cost.profile[0]) {
				char note[160];
				plan_word_cost_note(&c->cost, note, sizeof(note));
				printf(" (%s)", note);
			}
			if (c->mode == PLAN_SPOT)
				printf("; naive spot price x hours would say %.2f", c->naive_spot / fx);
			printf("\n");
		}
	}
	printf("\nExcluded\n");
	for (int i = 0; i < EX_NREASONS; i++)
		if (r->excluded[i]) {
			plan_word_example(&r->example[i], why, PLAN_EXAMPLE_MAX);
			printf(" %6zu %s\n        e.g. %s\n", r->excluded[i], plan_exclusion_word(i), why);
		}
	printf("\nAdvice\n");
	plan_word_class(r, why, PLAN_CLASS_MAX);
	printf(" user class %c: %s\n", r->user_class, why);
	for (int t = 0; t < SUPPLY_COUNT - 1; t++)
		printf(" %-12s %s %s\n", supply_type_name(t), r->supply_fits[t] ? "+" : "-",
		       plan_advice_word(r->supply_advice[t]));
	printf(" billing: %s\n", plan_advice_word(r->billing_advice));
	printf("\nChecklist\n");
	for (int i = 0; i < r->nchecklist; i++) {
		plan_word_check(&r->checklist[i], why, PLAN_CHECK_MAX);
		printf(" [ ] %s\n", why);
	}
}

static void render_json(const struct workload *w, const struct model_spec *arch, const struct plan_result *r,
			const char *cur, double fx)
{
	struct json j;
	char b[512], why[PLAN_CHECK_MAX];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.plan/1");
	json_str(&j, "model", arch->name);
	json_str(&j, "task", workload_enum_name("task", w->task));
	json_str(&j, "currency", cur);
	json_num(&j, "considered", (double)r->considered);
	json_num(&j, "feasible", (double)r->feasible);
	json_arr_begin(&j, "ranked");
	for (size_t i = 0; i < r->n; i++) {
		const struct plan_choice *c = &r->ranked[i];
		const struct offer *o = c->offer;
		json_obj_begin(&j, NULL);
#define JS(k, cs) (snprintf(b, sizeof(b), "%.*s", (int)(cs).len, (cs).p), json_str(&j, k, b))
		JS("provider", o->provider);
		JS("instance", o->instance);
		JS("region", o->region);
		json_str(&j, "gpu", o->gpu->name);
		json_num(&j, "gpus", c->gpus);
		json_str(&j, "supply", supply_type_name(o->supply));
		json_str(&j, "mode", plan_mode_name(c->mode));
		json_num(&j, "memory_per_gpu_bytes", c->mem_total);
		json_num(&j, "memory_used_fraction", c->mem_used);
		json_num(&j, "compute_seconds", c->compute_s);
		json_num(&j, "finish_seconds", c->wall_s);
		json_num(&j, "checkpoint_interval_seconds", c->ckpt_interval_s);
		json_num(&j, "jobs", c->chunks);
		json_num(&j, "compute_cost", c->cost.compute / fx);
		json_num(&j, "idle_cost", c->cost.idle / fx);
		json_num(&j, "storage_cost", c->cost.storage / fx);
		json_num(&j, "egress_cost", c->cost.egress / fx);
		json_num(&j, "total_cost", c->cost.total / fx);
		json_num(&j, "on_demand_total_cost", isfinite(c->on_demand_total) ? c->on_demand_total / fx : NAN);
		json_num(&j, "naive_spot_cost", c->naive_spot / fx);
		plan_word_why(c, why, PLAN_WHY_MAX);
		json_str(&j, "why_code", plan_why_name(c->why));
		json_str(&j, "why", why);
#undef JS
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "excluded");
	for (int i = 0; i < EX_NREASONS; i++) {
		if (!r->excluded[i])
			continue;
		json_obj_begin(&j, NULL);
		json_str(&j, "code", plan_exclusion_name(i));
		json_str(&j, "reason", plan_exclusion_word(i));
		json_num(&j, "count", (double)r->excluded[i]);
		plan_word_example(&r->example[i], why, PLAN_EXAMPLE_MAX);
		json_str(&j, "example_code", plan_detail_name(r->example[i].detail));
		json_str(&j, "example", why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_begin(&j, "advice");
	snprintf(b, sizeof(b), "%c", r->user_class);
	json_str(&j, "user_class", b);
	plan_word_class(r, why, PLAN_CLASS_MAX);
	json_str(&j, "why_code", plan_class_name(r->class_why));
	json_str(&j, "why", why);
	json_obj_begin(&j, "supply");
	for (int t = 0; t < SUPPLY_COUNT - 1; t++) {
		json_obj_begin(&j, supply_type_name(t));
		json_bool(&j, "fits", r->supply_fits[t]);
		json_str(&j, "why_code", plan_advice_name(r->supply_advice[t]));
		json_str(&j, "why", plan_advice_word(r->supply_advice[t]));
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_str(&j, "billing_code", plan_advice_name(r->billing_advice));
	json_str(&j, "billing", plan_advice_word(r->billing_advice));
	json_arr_begin(&j, "checklist_codes");
	for (int i = 0; i < r->nchecklist; i++)
		json_str(&j, NULL, plan_check_name(r->checklist[i].code));
	json_arr_end(&j);
	json_arr_begin(&j, "checklist");
	for (int i = 0; i < r->nchecklist; i++) {
		plan_word_check(&r->checklist[i], why, PLAN_CHECK_MAX);
		json_str(&j, NULL, why);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj_end(&j);
}

int cmd_plan(int argc, char **argv)
{
	static const char *const by_names[] = {"cost", "time", NULL};
	struct workload w;
	struct model_db mdb;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct offers_ctx c;
	struct plan_opts po;
	struct plan_result r;
	struct plan_pricer_ctx pc;
	const char *file, *currency = "USD";
	char err[512], cur[8] = "USD", key[64];
	struct opt_list catalogs = {0}, rates = {0};
	struct opt_money max_price = {0};
	bool json = false, have_max_price = false;
	long top;
	int rc, bad, by;
	double fx;

	workload_init(&w);
	plan_opts_default(&po);
	top = po.top;
	by = po.by == PLAN_BY_TIME;
	{
		struct opt own[] = {
			OPT_MANY("catalog", &catalogs, "PATH", N_("a SkyPilot catalog file or folder, or an offers CSV")),
			OPT_ONEOF("by", &by, by_names, "cost|time", N_("rank by total cost or by finish time")),
			OPT_STR("currency", &currency, "CODE", N_("show money in this currency")),
			OPT_BOOL("json", &json, N_("print JSON")),
			OPT_VAL(OPT_MONEY, "max-price", &max_price, "PRICE", N_("the most an offer may cost per GPU-hour")),
			OPT_MANY("rate", &rates, "CODE=N", N_("units of CODE per USD")),
			OPT_VAL(OPT_DURATION, "setup", &po.setup_s, "DUR", N_("set-up time on each new box")),
			OPT_LONG("top", &top, 1, 1000, "N", N_("how many offers to show")),
			OPT_VAL(OPT_BANDWIDTH, "upload-bw", &po.upload_bw, "BW", N_("upload bandwidth to the box")),
			OPT_TABLE_END,
		};
		const struct opt_cmd oc = {.name = "plan", .usage = usage, .max_operands = -1,
					   .operands = NULL};
		own[4].seen = &have_max_price;
		own[5].example = "CNY=7.2";
		own[0].example = "tests/data/offers-mixed.csv";
		if ((rc = wlargs_parse(&oc, own, argc, argv, &w, &file)) != OPT_GO) {
			opt_list_free(&catalogs);
			opt_list_free(&rates);
			return rc;
		}
	}
	po.top = (int)top;
	po.by = by ? PLAN_BY_TIME : PLAN_BY_COST;
	snprintf(cur, sizeof(cur), "%s", currency);
	if ((rc = offers_init(&c, "plan"))) {
		opt_list_free(&catalogs);
		opt_list_free(&rates);
		return rc;
	}
	if (common_load_data(NULL, &mdb)) {
		opt_list_free(&catalogs);
		opt_list_free(&rates);
		offers_free(&c);
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < rates.n; i++)
		if ((rc = offers_set_rate(&c, rates.v[i])))
			goto out;
	if (have_max_price) {
		struct money m = {.amount = max_price.amount};
		snprintf(m.code, sizeof(m.code), "%s", max_price.code);
		po.max_price_usd = to_usd(&c, &m);
	}
	fx = offers_rate(&c, cur);
	if (fx <= 0) {
		msg_error(_("--currency: unknown currency '%s' (see data/currencies.csv, or --rate %s=N)"), cur, cur);
		rc = EXIT_USAGE;
		goto out;
	}
	if (po.max_price_usd < 0) {
		msg_error(_("--max-price: unknown currency (see data/currencies.csv, or --rate)"));
		rc = EXIT_USAGE;
		goto out;
	}
	if (workload_resolve(&w, &mdb, &c.gdb, &arch, &gpu, &bad, err, sizeof(err))) {
		rc = wlargs_field_error(file, &w, bad, err);
		goto out;
	}
	if (!plan_serve_wanted(&w) && !workload_is_set(&w, "tokens") && !workload_is_set(&w, "samples")) {
		rc = wlargs_field_error(file, &w, -1,
					"tokens: missing required field (plan prices the whole job: give tokens or samples)");
		goto out;
	}
	if (workload_is_set(&w, "budget")) {
		po.budget_usd = to_usd(&c, &w.budget);
		if (po.budget_usd < 0) {
			rc = wlargs_field_error(file, &w, workload_field_index("budget"),
						"budget: unknown currency (see data/currencies.csv, or --rate CODE=N)");
			goto out;
		}
	}
	if ((rc = plan_pricer_init(&pc, &c, &po.pricer)))
		goto out;
	if ((rc = offers_load(&c, (char **)catalogs.v, catalogs.n, NULL, NULL, NULL)))
		goto out_pricer;
	if (plan_serve_wanted(&w)) {
		rc = plan_serve_cmd(&w, &arch, &c, &po, cur, fx, json);
		goto out_pricer;
	}
	if (plan_run(&w, &arch, &c.set, &po, &r, err, sizeof(err))) {
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(err, ":"), err);
		rc = wlargs_field_error(file, &w, workload_field_index(key), err);
		goto out_pricer;
	}
	if (json) {
		render_json(&w, &arch, &r, cur, fx);
	} else {
		render(&w, &arch, &po, &r, cur, fx);
		printf("\nCatalogs\n");
		offers_report(stdout, &c);
	}
	rc = msg_finish(c.bad_rows ? EXIT_USAGE : r.n ? EXIT_OK : EXIT_RUNTIME);
	plan_result_free(&r);
out_pricer:
	plan_pricer_free(&pc);
out:
	model_db_free(&mdb);
	opt_list_free(&catalogs);
	opt_list_free(&rates);
	offers_free(&c);
	return rc;
}
