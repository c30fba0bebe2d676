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

#include "core/text/names.h"
#include "core/plan/plan.h"
#include "core/box/release.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "cmd/estimate/calib.h"
#include "kit/common.h"
#include "cmd/plan/offers_load.h"
#include "base/out.h"
#include "cmd/plan/plan_pricer.h"
#include "cmd/plan/plan_serve.h"
#include "cmd/plan/planwords.h"
#include "kit/config.h"
#include "core/plan/skyemit.h"
#include "cmd/slurm/slurmemit.h"
#include "kit/wlargs.h"
#include "base/util.h"

static void print_release_check(const struct plan_result *r);

static const char usage[] = N_(
	"usage: gpurent plan [WORKLOAD.yaml [TASK.yaml]] [--FIELD VALUE]... [--sky TASK.yaml]\n"
	"                    [--catalog PATH]... [--by cost|time] [--top N] [--max-price PRICE]\n"
	"                    [--currency CODE] [--rate CODE=PER_USD] [--access NAME[,NAME]]\n"
	"                    [--exclude NAME[,NAME]] [--only NAME[,NAME]] [--trust-catalog]\n"
	"                    [--setup DURATION] [--upload-bw BW] [--calibrate PROBE]\n"
	"                    [--ledger PATH] [--progress | --quiet] [--json | --emit sky]\n"
	"\n"
	"Where and how to rent for a workload: estimate it (see 'gpurent help estimate'\n"
	"for its fields), keep the offers whose GPU memory fits with headroom (a sliced\n"
	"card only if the job fits the slice), time the job on each offer's GPUs (more\n"
	"than one GPU only where communication does not dominate; the communication\n"
	"not hidden behind compute is part of the time), price the whole job under\n"
	"each billing mode the offer allows - on-demand at its granularity, packages,\n"
	"spot at its expected cost with interruptions - plus set-up, data upload,\n"
	"storage and egress, then rank by total cost (--by time: by finish time).\n"
	"Constraints: the workload's deadline, budget and gpu/gpus fields,\n"
	"--max-price per instance-hour, and a SkyPilot task (docs/interop.md): the\n"
	"workload says what the job is, the task where it may run. The task is\n"
	"TASK.yaml or --sky TASK.yaml, read as SkyPilot reads it (its resources:\n"
	"accelerators as a name, NAME:COUNT, a list or a set, any_of, ordered,\n"
	"use_spot, cpus, memory, disk_size, infra with region and zone, instance_type;\n"
	"num_nodes: the job spans that many instances), or a resources: section in\n"
	"WORKLOAD.yaml; a pipeline's documents are planned in turn. A task alone\n"
	"works with the workload given as --FIELD options. --emit sky prints a\n"
	"SkyPilot task for the best choice on a SkyPilot cloud: its resources,\n"
	"autostop, job_recovery for spot, and a run: inside 'gpurent run' with the\n"
	"plan's stop limits.\n"
	"The job needs tokens (or samples) to be priced. Catalogs as in 'gpurent\n"
	"offers' (default: the bundled catalog and ~/.sky/catalogs).\n"
	"\n"
	"A service (task: infer with serve: 24x7, 8x5 or 12h, and a load: concurrency\n"
	"and user_tps, or rps with prompt_len and output_len) is priced by the month\n"
	"instead (docs/serve.md): the GPUs per replica (tensor parallel 1-8 when one\n"
	"GPU cannot hold the weights and KV cache), the replicas for the load, and\n"
	"the monthly cost on-demand, as a monthly package and on 1-/3-year reserved\n"
	"terms, plus egress and storage, ranked by the monthly total; no spot, no\n"
	"marketplace hosts, a budget alert instead of an auto-stop.\n"
	"\n"
	"Who you are: an offer that needs a membership (a campus cluster, an\n"
	"institution's pool: the offer format's access column) is planned only when\n"
	"--access names it; --exclude and --only take provider names or supply types\n"
	"(hyperscaler, ai-cloud, campus-hpc, serverless, marketplace). A row whose\n"
	"spot price is at or above its on-demand price is not ranked (the columns may\n"
	"be swapped) unless --trust-catalog; an offer far below the other offers of\n"
	"its GPU is marked '!' (docs/offers.md \"Suspect prices\").\n"
	"\n"
	"Money: one currency per answer: --currency (RMB and ¥ are CNY), else\n"
	"the currency the budget or --max-price was written in, else USD; a bare\n"
	"amount is in that currency; the rate and its source are printed once.\n"
	"\n"
	"Output: the order of magnitude when the cheapest plan runs over 7 days, the\n"
	"fastest over 30 days, or the cheapest costs over 10x the budget (naming the\n"
	"input that drives it); the top N (default 5), the fastest offer within 10%\n"
	"of the cheapest total, why each, spot against on-demand, what was excluded\n"
	"and why, the user class (A occasional runs, B long runs that must not lose\n"
	"progress, C a 24x7 service), what each supply type's offers came to, the\n"
	"billing mode, what would have to change when nothing fits, and a checklist\n"
	"(the budget stop is your budget, else 1.2x the expected cost; checkpoints by\n"
	"the kind of interruption: before each time limit on a queue, Young/Daly on\n"
	"spot, every 15-30 min on-demand).\n"
	"--setup (default 20m) is billed set-up per instance start; --upload-bw\n"
	"(default 100Mb/s) the dataset's upload speed.\n"
	"--calibrate PROBE (an id from 'gpurent ledger probes', or latest; read from\n"
	"--ledger PATH or $GPURENT_LEDGER) times training on every offer's GPUs at the\n"
	"probe's MFU (the ratio of dense TFLOPS carries it to other cards); the memory\n"
	"fit stays the estimate's (docs/formulas.md \"Calibrated by a probe\").\n"
"Exit status: 0 ok, 1 nothing fits, 2 bad input.\n");

static double to_usd(const struct offers_ctx *c, const struct money *m)
{
	double r = offers_rate(c, m->code);
	return r > 0 ? m->amount * r : -1;
}

/* A catalog field in a column: control bytes escaped (out.h), cut to width. */
static void cs_print(const struct cat_str *s, int width)
{
	char buf[64];
	size_t n = (size_t)width + 1 < sizeof(buf) ? (size_t)width + 1 : sizeof(buf);

	printf("%-*s", width, out_safe(s->p, s->len, buf, n));
}
static bool outlier(const struct offer *o)
{
	return o->peer_ratio > 0 && o->peer_ratio < CATALOG_OUTLIER_RATIO;
}

/* The answer's one currency: its code, USD per unit, and where the rate
 * came from (printed once). */
struct display {
	struct plan_fx fx;
	char code[8];
	const struct currency *cu;   /* the rate's row (borrowed from the offers context) */
};

static void render(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
		   const struct plan_result *r, const struct display *d)
{
	char a[64], b[64], why[PLAN_MAGNITUDE_MAX], rate_note[1600];
	const struct estimate *e = &r->single;
	const struct plan_fx *fx = &d->fx;
	double k = fx->usd_per_unit;
	bool any_outlier = false;

	char aesc[4 * sizeof(arch->name)];

	printf("gpurent plan: %s, %s, %s", out_safe(arch->name, strlen(arch->name), aesc, sizeof(aesc)),
	       workload_enum_name("task", w->task),
	       workload_enum_name("precision", w->precision));
	if (e->work > 0)
		printf(", %s %s", units_fmt_flops(e->work, a, sizeof(a)), e->work_is_samples ? _("samples") : _("tokens"));
	printf(po->by == PLAN_BY_TIME ? _("\n%zu offers considered, %zu feasible; ranked by finish time; money in %s")
				     : _("\n%zu offers considered, %zu feasible; ranked by total cost; money in %s"),
	       r->considered, r->feasible, d->code);
	if (strcmp(d->code, "USD")) {
		offers_rate_note(d->cu, rate_note, sizeof(rate_note));
		if (d->cu->line)
			printf(_(" (1 USD = %.4g %s, %s; --rate %s=N to change)"), 1 / k, d->code, rate_note, d->code);
		else
			printf(_(" (1 USD = %.4g %s, from %s)"), 1 / k, d->code, rate_note);
		if (config_applied("currency"))
			printf(_("; %s from %s"), d->code, msg_tr(config_applied("currency")));
	}
	printf("\n\n");
	plan_word_magnitude(&r->magnitude, fx, why, sizeof(why));
	if (why[0])
		printf("%s\n\n", why);
	if (w->nodes > 1)
		printf(_("Across %ld nodes: each choice rents %ld of its instance; n counts the GPUs of all of them,\n"
		       "the totals bill every node, and any node's interruption stops the job (docs/formulas.md \"Across nodes\").\n\n"),
		       w->nodes, w->nodes);
	if (!r->n) {
		printf("%s", _("No offer fits. See what was excluded below.\n"));
	} else {
		static const int hw[] = {2, -14, -28, -14, 3, 5, -15, 10, 10, 10};
		const char *const hc[] = {"#", _("provider"), _("instance"), "GPU", "n", _("mem"), _("billing"),
					  _("finish"), _("total"), _("on-demand")};
		out_heading(stdout, hw, hc, ARRAY_SIZE(hw));
		for (size_t i = 0; i < r->n; i++) {
			const struct plan_choice *c = &r->ranked[i];
			const struct offer *o = c->offer;
			char gesc[4 * sizeof(o->gpu->aliases)];
			size_t al = strcspn(o->gpu->aliases, "|");
			printf("%2zu ", i + 1);
			cs_print(&o->provider, 14);
			putchar(' ');
			cs_print(&o->instance, 28);
			printf(" %-14s %3g %4.0f%% %-15s %10s %10.2f %10s%s\n",
			       out_safe(o->gpu->aliases, al, gesc, sizeof(gesc)), c->gpus,
			       c->mem_used * 100, plan_mode_word(c->mode),
			       units_fmt_duration_short(c->wall_s, a, sizeof(a)), c->cost.total / k,
			       isfinite(c->on_demand_total) ? (snprintf(b, sizeof(b), "%.2f", c->on_demand_total / k), b) : "-",
			       outlier(o) ? " !" : "");
			any_outlier |= outlier(o);
		}
		if (any_outlier) {
			printf("%s", _(" !  far below the other offers of the same GPU:"));
			for (size_t i = 0; i < r->n; i++)
				if (outlier(r->ranked[i].offer))
					printf(_(" #%zu at %.0f%% of the median"), i + 1, r->ranked[i].offer->peer_ratio * 100);
			printf("%s", _(" (docs/offers.md \"Suspect prices\": check the offer before relying on it)\n"));
		}
		if (r->have_fastest) {
			plan_word_fastest(&r->fastest, &r->ranked[0], po->fast_margin, fx, why, sizeof(why));
			if (po->by == PLAN_BY_COST)
				printf("\n%s\n", why);
		}
		printf("\n%s\n", _("Why"));
		for (size_t i = 0; i < r->n; i++) {
			const struct plan_choice *c = &r->ranked[i];
			plan_word_why(c, why, PLAN_WHY_MAX);
			printf(_(" %zu. %s; compute %.2f + idle %.2f + storage %.2f + egress %.2f %s"),
			       i + 1, why, c->cost.compute / k, c->cost.idle / k, c->cost.storage / k,
			       c->cost.egress / k, d->code);
			if (c->cost.profile[0]) {
				char note[160];
				plan_word_cost_note(&c->cost, note, sizeof(note));
				printf(" (%s)", note);
			}
			if (c->mode == PLAN_SPOT)
				printf(_("; naive spot price x hours would say %.2f"), c->naive_spot / k);
			printf("\n");
		}
	}
	plan_word_spot(&r->spot_note, fx, why, sizeof(why));
	if (why[0])
		printf("\n%s\n %s\n", _("Spot or on-demand"), why);
	printf("\n%s\n", _("Excluded"));
	for (int i = 0; i < EX_NREASONS; i++)
		if (r->excluded[i]) {
			plan_word_example(&r->example[i], fx, why, PLAN_EXAMPLE_MAX);
			printf(_(" %6zu %s\n        e.g. %s\n"), r->excluded[i], plan_exclusion_word(i), why);
			if (i == EX_ACCESS && r->access_names[0]) {
				printf("%s", _("        memberships: "));
				out_puts_safe(stdout, r->access_names);
				printf("%s\n", r->access_distinct > 1 ? " (--access NAME[,NAME])" : "");
			}
		}
	printf("\n%s\n", _("Advice"));
	plan_word_class(r, why, PLAN_CLASS_MAX);
	printf(_(" user class %c: %s\n"), r->user_class, why);
	for (int t = 0; t < SUPPLY_COUNT - 1; t++) {
		char sup[160];
		plan_word_supply(&r->supply[t], fx, sup, sizeof(sup));
		printf(" %-12s %s %s; %s\n", supply_type_name(t), r->supply_fits[t] ? "+" : "-", sup,
		       plan_advice_word(r->supply_advice[t]));
	}
	printf(_(" billing: %s\n"), plan_advice_word(r->billing_advice));
	if (r->nchanges) {
		printf("\n%s\n", _("What would have to change"));
		for (int i = 0; i < r->nchanges; i++) {
			plan_word_change(&r->changes[i], fx, r->access_names, why, sizeof(why));
			printf(" - %s\n", why);
		}
	}
	printf("\n%s\n", _("Checklist"));
	for (int i = 0; i < r->nchecklist; i++) {
		plan_word_check(&r->checklist[i], fx, why, sizeof(why));
		printf(" [ ] %s\n", why);
	}
	print_release_check(r);
}

/* The preset that ends the bill on the best choice (docs/release.md; seed
 * 004 §5.1: stopping is not releasing); NULL when nothing fits or none. */
static const char *release_preset_of(const struct plan_result *r)
{
	const struct offer *o;

	if (!r->n || !(o = r->ranked[0].offer))
		return NULL;
	return release_preset_for(o->provider.p, o->provider.len, o->supply == SUPPLY_CAMPUS_HPC);
}

static void print_release_check(const struct plan_result *r)
{
	const char *p = release_preset_of(r);
	struct rel_action ra;
	const struct rel_action *a = p && release_action(p, &ra) ? &ra : NULL;

	if (!r->n)
		return;
	if (a && a->effect == REL_RELEASES)
		printf(_(" [ ] at the end: gpurent release --verify MANIFEST DIR --preset %s deletes the "
			 "instance and the disks it was made with (or gpurent run --preset %s); its dry run "
			 "lists what the provider keeps billing after (volumes, IPs, snapshots, buckets); "
			 "stopping is not releasing (docs/release.md)\n"), p, p);
	else if (a && a->effect == REL_ENDS_JOB)
		printf(_(" [ ] at the end: gpurent release --preset %s --path DIR runs scancel: it ends the "
			 "job and releases nothing; it deletes only the job's own --path, never the "
			 "credentials of a cluster's home (docs/release.md)\n"), p);
	else if (a)
		printf(_(" [ ] at the end: gpurent release --preset %s only stops it: release the instance "
			 "and its disk in the console, a stopped one keeps billing for them (docs/release.md)\n"),
		       p);
	else
		printf(_(" [ ] at the end: gpurent release --on-release with the platform's delete command: "
			 "stopping is not releasing (docs/release.md)\n"));
}

static void json_money(struct json *j, const char *key, double usd, double k)
{
	json_num(j, key, isfinite(usd) ? (usd / k == 0 ? 0 : usd / k) : NAN);
}

static void render_json_choice(struct json *j, const struct plan_choice *c, double k)
{
	const struct offer *o = c->offer;
	char b[512], why[PLAN_WHY_MAX];

	json_obj_begin(j, NULL);
#define JS(key, cs) (snprintf(b, sizeof(b), "%.*s", (int)(cs).len, (cs).p), json_str(j, key, b))
	JS("provider", o->provider);
	JS("instance", o->instance);
	JS("region", o->region);
	if (o->host.len)
		JS("host", o->host);
	json_str(j, "gpu", o->gpu->name);
	json_num(j, "gpus", c->gpus);
	json_num(j, "nodes", c->nodes);
	json_str(j, "supply", supply_type_name(o->supply));
	json_str(j, "mode", plan_mode_name(c->mode));
	json_num(j, "memory_per_gpu_bytes", c->mem_total);
	json_num(j, "memory_used_fraction", c->mem_used);
	json_num(j, "compute_seconds", c->compute_s);
	json_num(j, "finish_seconds", c->wall_s);
	json_num(j, "checkpoint_interval_seconds", c->ckpt_interval_s);
	json_num(j, "jobs", c->chunks);
	json_num(j, "comm_share_fraction", c->comm_share);
	json_money(j, "compute_cost", c->cost.compute, k);
	json_money(j, "idle_cost", c->cost.idle, k);
	json_money(j, "storage_cost", c->cost.storage, k);
	json_money(j, "egress_cost", c->cost.egress, k);
	json_money(j, "total_cost", c->cost.total, k);
	json_money(j, "on_demand_total_cost", c->on_demand_total, k);
	json_money(j, "naive_spot_cost", c->naive_spot, k);
	json_bool(j, "pareto", c->pareto);
	json_bool(j, "fastest_within_margin", c->fastest_within);
	json_num(j, "peer_price_ratio", o->peer_ratio);
	json_bool(j, "price_outlier", outlier(o));
	plan_word_why(c, why, PLAN_WHY_MAX);
	json_str(j, "why_code", plan_why_name(c->why));
	json_str(j, "why", why);
#undef JS
	json_obj_end(j);
}

/* The probe a plan was calibrated by: its line (table) or object (JSON). */
static const struct calib *plan_cal;

/* The probe's peak per GPU sizes the fit on cards at least its card's size. */
static bool plan_mem_calibrated(const struct calib *c)
{
	return c && c->p && c->probe_gpu && c->mem_total > 0 && c->mem_skip != CALIB_NO_MEMORY &&
	       c->mem_skip != CALIB_SERVING;
}

static void json_plan_calib(struct json *j)
{
	const struct calib *c = plan_cal;
	bool timed;

	if (!c || !c->p) {
		json_null(j, "calibration");
		return;
	}
	timed = c->p->mfu > 0 && c->p->mfu <= 1 && c->time_skip == CALIB_OK;
	json_obj_begin(j, "calibration");
	json_num(j, "probe_id", (double)c->p->id);
	json_num(j, "probe_taken_unix_seconds", c->p->at);
	json_str(j, "probe_gpu", c->p->gpu ? c->p->gpu : "");
	json_bool(j, "workload_differs", c->digest_differs);
	json_bool(j, "time_calibrated", timed);
	json_num(j, "probe_mfu_fraction", timed ? c->p->mfu : 0);
	json_bool(j, "memory_calibrated", plan_mem_calibrated(c));
	json_obj_end(j);
}

static void render_plan_calib(const struct workload *w)
{
	const struct calib *c = plan_cal;
	char word[160];

	if (!c || !c->p)
		return;
	calib_word_probe(c, word, sizeof(word));
	if (c->time_skip == CALIB_OK && c->p->mfu > 0 && c->p->mfu <= 1)
		printf(_("Calibrated by %s: every offer's GPUs timed at its MFU %.1f%% of the dense %s peak "
			 "(scaled to each card by its dense TFLOPS) instead of the estimate's; memory fit: %s\n\n"),
		       word, c->p->mfu * 100, workload_enum_name("precision", w->precision),
		       plan_mem_calibrated(c) ? _("the probe's peak per GPU on cards at least the probed one's "
						  "size, the estimate's on smaller ones") : _("the estimate's"));
	else
		printf(_("Calibrated by %s: not applied: %s; time and memory fit are the estimate's\n\n"), word,
		       w->task == TASK_INFER ? _("plan cannot time decoding from a probe yet") :
		       calib_why(c->time_skip == CALIB_OK ? CALIB_NO_RATE : c->time_skip));
}

static void render_json(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
			const struct plan_result *r, const struct display *d)
{
	struct json j;
	char b[512], why[PLAN_MAGNITUDE_MAX];
	const struct plan_fx *fx = &d->fx;
	double k = fx->usd_per_unit;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.plan/1");
	json_str(&j, "model", arch->name);
	json_str(&j, "task", workload_enum_name("task", w->task));
	json_str(&j, "currency", d->code);
	json_num(&j, "usd_per_unit", k);
	if (d->cu->line) {
		snprintf(b, sizeof(b), "data/currencies.csv line %zu", d->cu->line);
		json_str(&j, "rate_source", b);
		if (d->cu->date[0])
			json_str(&j, "rate_date", d->cu->date);
	} else {
		json_str(&j, "rate_source", !strcmp(d->code, "USD") ? "identity" :
			 config_applied("rate") ? config_rate_note(b, sizeof(b)) : "--rate");
	}
	json_plan_calib(&j);
	json_num(&j, "considered", (double)r->considered);
	json_num(&j, "feasible", (double)r->feasible);
	json_num(&j, "pareto_count", (double)r->pareto);
	json_arr_begin(&j, "ranked");
	for (size_t i = 0; i < r->n; i++)
		render_json_choice(&j, &r->ranked[i], k);
	json_arr_end(&j);
	if (r->have_fastest) {
		json_obj_begin(&j, "fastest_within");
		json_num(&j, "margin_fraction", po->fast_margin);
		json_obj_end(&j);
		json_arr_begin(&j, "fastest_within_choice");
		render_json_choice(&j, &r->fastest, k);
		json_arr_end(&j);
	}
	json_obj_begin(&j, "magnitude");
	json_str(&j, "code", plan_magnitude_name(r->magnitude.code));
	plan_word_magnitude(&r->magnitude, fx, why, sizeof(why));
	json_str(&j, "message", why);
	json_num(&j, "finish_seconds", r->magnitude.finish_s);
	json_num(&j, "limit_seconds", r->magnitude.limit_s);
	json_money(&j, "total_cost", r->magnitude.total_usd, k);
	json_num(&j, "work", r->magnitude.work);
	json_num(&j, "work_in_range", r->magnitude.work_in_range);
	json_obj_end(&j);
	json_obj_begin(&j, "spot_note");
	json_str(&j, "code", plan_spot_name(r->spot_note.code));
	plan_word_spot(&r->spot_note, fx, why, sizeof(why));
	json_str(&j, "message", why);
	json_money(&j, "spot_total_cost", r->spot_note.spot ? r->spot_note.spot_total : NAN, k);
	json_money(&j, "on_demand_total_cost", r->spot_note.on_demand ? r->spot_note.on_demand_total : NAN, k);
	json_obj_end(&j);
	json_arr_begin(&j, "excluded");
	for (int i = 0; i < EX_NREASONS; i++) {
		if (!r->excluded[i])
			continue;
		json_obj_begin(&j, NULL);
		json_str(&j, "code", plan_exclusion_name(i));
		json_str(&j, "reason", plan_exclusion_word(i));
		json_num(&j, "count", (double)r->excluded[i]);
		plan_word_example(&r->example[i], fx, why, PLAN_EXAMPLE_MAX);
		json_str(&j, "example_code", plan_detail_name(r->example[i].detail));
		json_str(&j, "example", why);
		if (i == EX_ACCESS)
			json_str(&j, "memberships", r->access_names);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "changes");
	for (int i = 0; i < r->nchanges; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "code", plan_change_name(r->changes[i].code));
		plan_word_change(&r->changes[i], fx, r->access_names, why, sizeof(why));
		json_str(&j, "message", why);
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
		json_num(&j, "feasible_count", (double)r->supply[t].feasible);
		json_money(&j, "best_total_cost", r->supply[t].feasible ? r->supply[t].best_total : NAN, k);
		json_num(&j, "best_finish_seconds", r->supply[t].feasible ? r->supply[t].best_finish_s : NAN);
		json_num(&j, "need_access_count", (double)r->supply[t].need_access);
		json_str(&j, "why_code", plan_advice_name(r->supply_advice[t]));
		json_str(&j, "why", plan_advice_word(r->supply_advice[t]));
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_str(&j, "billing_code", plan_advice_name(r->billing_advice));
	json_str(&j, "billing", plan_advice_word(r->billing_advice));
	{
		const char *rp = release_preset_of(r);
		if (rp)
			json_str(&j, "release_preset", rp);
		else
			json_null(&j, "release_preset");
	}
	json_arr_begin(&j, "checklist_codes");
	for (int i = 0; i < r->nchecklist; i++)
		json_str(&j, NULL, plan_check_name(r->checklist[i].code));
	json_arr_end(&j);
	json_arr_begin(&j, "checklist");
	for (int i = 0; i < r->nchecklist; i++) {
		plan_word_check(&r->checklist[i], fx, why, sizeof(why));
		json_str(&j, NULL, why);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj_end(&j);
}

/* The items of NAME[,NAME] values (--access, --exclude, --only and the
 * workload's access), each an owned copy; free with names_free(). */
struct names {
	char **v;
	size_t n, cap;
};

static int name_push(const char *item, size_t len, int pos, void *ctx)
{
	struct names *s = ctx;
	void *v = s->v;

	(void)pos;
	if (util_grow(&v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -1;
	s->v = v;
	if (!(s->v[s->n] = strndup(item, len)))
		return -1;
	s->n++;
	return 0;
}

/* Add the items of list. 0, or -1 out of memory. */
static int names_add(struct names *s, const char *list)
{
	return names_each(list, name_push, s);
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * The SkyPilot task: the task file (a second operand or --sky), read as a
 * task only, which must be one; else the workload file, when it holds
 * task keys (a workload file with a resources: section). t owns what it
 * reads (sky_task_free()). Returns 0, or 2 after the message.
 */
static int read_task(const char *file, bool must, struct sky_task *t)
{
	char *buf = NULL, err[512];
	size_t len = 0;

	memset(t, 0, sizeof(*t));
	if (!file)
		return 0;
	if (common_read_file(file, &buf, &len, err, sizeof(err)))
		return msg_usage("%s", err);
	if (sky_task_parse(buf, len, file, t, err, sizeof(err))) {
		bool plain = t->not_a_task != NULL;
		free(buf);
		sky_task_free(t);
		return plain && !must ? 0 : msg_usage("%s", err);
	}
	free(buf);
	return 0;
}

/* The notes on a document's keys that change what runs where but are not
 * planned (skytask.h enum sky_note). */
static void doc_notes(const struct sky_doc *d)
{
	static const struct {
		unsigned bit;
		const char *words;
	} t[] = {
		{SKY_NOTE_POOL, N_("pool: a pool of workers, not one job; each worker is planned as this job")},
		{SKY_NOTE_EXECUTION, N_("execution: a job group's placement is not planned; each job is, in turn")},
		{SKY_NOTE_SERVICE, N_("service: SkyServe replicas; plan prices one replica (a service by the month: "
				      "task infer, serve)")},
		{SKY_NOTE_IMAGE, N_("image_id: the image is not priced")},
		{SKY_NOTE_VOLUMES, N_("volumes: not priced")},
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (d->notes & t[i].bit)
			printf("note: %s\n", _(t[i].words));
}

/* Whether a document is a job to plan: one with resources or a run. */
static bool doc_is_job(const struct sky_doc *d)
{
	return d->has_resources || d->has_run || d->ncand > 1;
}

/* --emit sky: the task for the best ranked choice SkyPilot can launch. */
static int emit_sky(const struct workload *w, const struct plan_opts *po, const struct plan_result *r,
		    const struct sky_doc *doc, const struct display *disp, bool more)
{
	struct sky_emit e = {.w = w, .po = po, .doc = doc, .code = disp->code,
			     .usd_per_unit = disp->fx.usd_per_unit};

	for (size_t i = 0; i < r->n; i++)
		if (sky_emit_cloud(r->ranked[i].offer)) {
			e.c = &r->ranked[i];
			e.rank = (int)i + 1;
			break;
		}
	if (!e.c) {
		msg_error(_("--emit sky: none of the %zu ranked offers is on a cloud SkyPilot launches on "
			    "(give --catalog with SkyPilot catalogs, or --top more)"), r->n);
		return EXIT_RUNTIME;
	}
	if (e.rank > 1)
		msg_warn(_("--emit sky: choice #%d, the best ranked on a cloud SkyPilot launches on"), e.rank);
	e.run_text = doc ? doc->run : NULL;
	e.setup_text = doc ? doc->setup : NULL;
	if (sky_emit_write(stdout, &e))
		return msg_fail("%s", _("--emit sky: could not write the task"));
	if (more)
		printf("---\n");
	return EXIT_OK;
}

/*
 * --emit slurm: the sbatch script for the best ranked campus-HPC choice,
 * written by the generator of `gpurent slurm script` (slurmemit.h) from
 * the plan's figures: its compute time, the queue's time limit, one
 * checkpoint's write, the GPUs of the offer. CMD: the words after --.
 */
static int emit_slurm(const struct plan_result *r, char **cmd)
{
	struct slurm_emit e = {0};
	const struct plan_choice *c = NULL;
	char err[256];

	for (size_t i = 0; i < r->n && !c; i++)
		if (r->ranked[i].offer->supply == SUPPLY_CAMPUS_HPC)
			c = &r->ranked[i];
	if (!c) {
		msg_error(_("--emit slurm: none of the %zu ranked offers is a campus cluster (give --access NAME "
			    "for the clusters you may use)"), r->n);
		return EXIT_RUNTIME;
	}
	e.nodes = c->nodes > 1 ? (long)c->nodes : 1;
	e.gpus_per_node = c->offer->gpus >= 1 ? (long)c->offer->gpus : 1;
	e.in.nodes = e.nodes;
	e.in.gpus_per_node = e.gpus_per_node;
	e.in.wall_s = round(c->compute_s);
	e.in.limit_s = round(c->offer->max_runtime);
	e.in.ckpt_write_s = round(c->ckpt_write_s);
	e.requeues = SLURM_EMIT_REQUEUES;
	e.cmd = cmd;
	if (slurm_script_check(&e, err, sizeof(err)))
		return msg_usage(_("--emit slurm: %s"), err);
	if (slurm_gen_plan(&e.in, &e.g, err, sizeof(err)))
		return msg_fail(_("--emit slurm: %s"), err);
	if (slurm_emit_mkdirs(&e, err, sizeof(err)))
		return msg_fail(_("--emit slurm: the log directory: %s"), err);
	if (slurm_emit_write(stdout, &e))
		return msg_fail("%s", _("--emit slurm: could not write the script"));
	msg_note(_("--emit slurm: %.0f chained jobs, %.1f h of queue waits assumed (the offer's queue_wait "
		   "each)"), c->chunks > 1 ? c->chunks : 1, c->queue_s / 3600);
	return EXIT_OK;
}

int cmd_plan(int argc, char **argv)
{
	static const char *const by_names[] = {"cost", "time", NULL};
	static const char *const emit_names[] = {"none", "sky", "slurm", NULL};
	struct workload w, wd;
	struct model_db mdb;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct offers_ctx c;
	struct plan_opts po;
	struct plan_result r;
	struct plan_pricer_ctx pc;
	struct sky_task task = {0};
	struct display disp = {0};
	const char *file, *task_file = NULL, *sky_opt = NULL, *currency = NULL;
	const char *calibrate = NULL, *ledger = NULL;
	struct calib cal = {0};
	char err[512], key[64];
	struct opt_list catalogs = {0}, rates = {0}, access = {0}, excl = {0}, only = {0};
	struct names acc = {0}, exn = {0}, onn = {0};
	struct opt_money max_price = {0};
	bool json = false, have_max_price = false, trust = false;
	const struct currency *cu;
	long top;
	int rc, bad, by, emit = 0, worst = EXIT_OK;
	size_t ndoc, njobs = 0;
	bool served = false;   /* a service plan reports its catalogs itself */

	char **slurm_cmd = NULL;

	/* --emit slurm: the job's command after -- (the script runs it) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			slurm_cmd = argv + i + 1;
			argc = i;
			break;
		}
	workload_init(&w);
	plan_opts_default(&po);
	top = po.top;
	by = po.by == PLAN_BY_TIME;
	{
		struct opt own[] = {
			{.name = "access", .type = OPT_LIST, .dest = &access, .arg = "NAME[,NAME]",
			 .help = N_("memberships you hold (campus clusters, institution pools)"), .example = "SJTU-HPC"},
			OPT_ONEOF("by", &by, by_names, "cost|time", N_("rank by total cost or by finish time")),
			{.name = "calibrate", .type = OPT_STRING, .dest = &calibrate, .arg = "PROBE",
			 .help = N_("time training at a recorded probe's MFU (an id, or latest)"), .example = "latest"},
			{.name = "catalog", .type = OPT_LIST, .dest = &catalogs, .arg = "PATH",
			 .help = N_("a SkyPilot catalog file or folder, or an offers CSV"),
			 .example = "tests/data/offers-mixed.csv"},
			OPT_STR("currency", &currency, "CODE", N_("show money in this currency (RMB and ¥ are CNY)")),
			OPT_ONEOF("emit", &emit, emit_names, "sky|slurm",
				  N_("print a SkyPilot task (or a Slurm script) for the best choice instead of the plan")),
			{.name = "exclude", .type = OPT_LIST, .dest = &excl, .arg = "NAME[,NAME]",
			 .help = N_("leave out these providers or supply types"), .example = "marketplace"},
			OPT_BOOL("json", &json, N_("print JSON")),
			{.name = "ledger", .type = OPT_FILE, .dest = &ledger, .arg = "PATH",
			 .help = N_("the ledger --calibrate reads"), .example = "/dev/null"},
			{.name = "max-price", .type = OPT_MONEY, .dest = &max_price, .arg = "PRICE",
			 .help = N_("the most an instance may cost per hour"), .seen = &have_max_price},
			{.name = "only", .type = OPT_LIST, .dest = &only, .arg = "NAME[,NAME]",
			 .help = N_("plan only these providers or supply types"), .example = "ai-cloud"},
			{.name = "rate", .type = OPT_LIST, .dest = &rates, .arg = "CODE=N",
			 .help = N_("units of CODE per USD"), .example = "CNY=7.2"},
			OPT_VAL(OPT_DURATION, "setup", &po.setup_s, "DUR", N_("set-up time on each new box")),
			{.name = "sky", .type = OPT_STRING, .dest = &sky_opt, .arg = "TASK.yaml",
			 .help = N_("a SkyPilot task: where the job may run"), .example = "tests/data/sky-a100.yaml"},
			OPT_LONG("top", &top, 1, 1000, "N", N_("how many offers to show")),
			OPT_BOOL("trust-catalog", &trust,
				 N_("rank rows whose spot price is at or above on-demand (on their on-demand price)")),
			OPT_VAL(OPT_BANDWIDTH, "upload-bw", &po.upload_bw, "BW", N_("upload bandwidth to the box")),
			OPT_PROGRESS_FLAGS,
			OPT_TABLE_END,
		};
		const struct opt_cmd oc = {.name = "plan", .usage = usage, .max_operands = -1, .operands = NULL};
		if ((rc = wlargs_parse(&oc, own, argc, argv, &w, &file, &task_file)) != OPT_GO)
			goto out_opts;
	}
	if (sky_opt && task_file) {
		rc = msg_usage(_("--sky %s: a task file was also given as '%s': give one"), sky_opt, task_file);
		goto out_opts;
	}
	if (sky_opt)
		task_file = sky_opt;
	if (emit && json) {
		rc = msg_usage("%s", _("--emit sky prints a task, --json a plan: give one"));
		goto out_opts;
	}
	if ((emit == 2) != (slurm_cmd && *slurm_cmd)) {
		rc = msg_usage("%s", emit == 2 ? _("--emit slurm: give the job's command after --") :
				 _("a command after --: only with --emit slurm"));
		goto out_opts;
	}
	if ((rc = task_file ? read_task(task_file, true, &task) : read_task(file, false, &task)))
		goto out_opts;
	po.top = (int)top;
	po.by = by ? PLAN_BY_TIME : PLAN_BY_COST;
	for (size_t i = 0; i < access.n; i++)
		if (names_add(&acc, access.v[i]))
			goto out_nomem;
	for (size_t i = 0; i < excl.n; i++)
		if (names_add(&exn, excl.v[i]))
			goto out_nomem;
	for (size_t i = 0; i < only.n; i++)
		if (names_add(&onn, only.v[i]))
			goto out_nomem;
	if (w.access[0] && names_add(&acc, w.access))   /* the workload's access: too */
		goto out_nomem;
	po.access = (const char *const *)acc.v;
	po.naccess = acc.n;
	po.exclude = (const char *const *)exn.v;
	po.nexclude = exn.n;
	po.only = (const char *const *)onn.v;
	po.nonly = onn.n;
	if ((rc = offers_init(&c, "plan")))
		goto out_opts;
	if (common_load_data(NULL, &mdb)) {
		rc = EXIT_RUNTIME;
		offers_free(&c);
		goto out_opts;
	}
	for (size_t i = 0; i < rates.n; i++)
		if ((rc = offers_set_rate(&c, rates.v[i])))
			goto out;
	/* the workload as given, checked once before any catalog is read */
	wd = w;
	if (workload_resolve(&wd, &mdb, &c.gdb, &arch, &gpu, &bad, err, sizeof(err))) {
		rc = wlargs_field_error(file, &wd, bad, err);
		goto out;
	}
	if (calibrate) {
		struct estimate ce;
		if ((rc = calib_load(ledger, calibrate, &c.gdb, &wd, &cal)))
			goto out;
		/* what the probe can give: timed on the workload's GPU or the probed one */
		if (!estimate_run(&wd, &arch, gpu ? gpu : cal.probe_gpu, &ce, err, sizeof(err)))
			calib_apply(&cal, &wd, gpu ? gpu : cal.probe_gpu, &ce);
		if (cal.time_skip == CALIB_OK && !calib_plan_workload(&cal, &w))
			cal.time_skip = CALIB_NO_RATE;
		/* the memory fit: the probe's peak per GPU on cards of at least
		 * the probed one's memory (calib.h; not for serving engines) */
		if (cal.probe_gpu && cal.mem_total > 0 && cal.mem_skip != CALIB_NO_MEMORY &&
		    cal.mem_skip != CALIB_SERVING) {
			po.probe_mem_per_gpu = cal.mem_total;
			po.probe_card_mem = cal.probe_gpu->memory_bytes;
		}
		plan_cal = &cal;
	}
	/* one currency per answer: --currency, else the one a money value
	 * was written in (the budget, then --max-price), else USD */
	if (!currency && workload_is_set(&w, "budget") && w.budget.code_given)
		currency = w.budget.code;
	if (!currency && have_max_price && max_price.has_code)
		currency = max_price.code;
	if (!currency)
		currency = "USD";
	cu = currency_find(&c.currencies, currency);
	if (!cu || cu->usd <= 0) {
		msg_error(_("--currency: unknown currency '%s' (see data/currencies.csv, or --rate %s=N)"), currency,
			  currency);
		rc = EXIT_USAGE;
		goto out;
	}
	snprintf(disp.code, sizeof(disp.code), "%s", cu->code);
	disp.fx.code = disp.code;
	disp.fx.usd_per_unit = cu->usd;
	disp.cu = cu;
	/* a bare amount is in the display currency */
	if (have_max_price) {
		struct money m = {.amount = max_price.amount};
		snprintf(m.code, sizeof(m.code), "%s", max_price.has_code ? max_price.code : disp.code);
		po.max_price_usd = to_usd(&c, &m);
		if (po.max_price_usd < 0) {
			msg_error(_("--max-price: unknown currency '%s' (see data/currencies.csv, or --rate)"), m.code);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (!plan_serve_wanted(&wd) && !workload_is_set(&w, "tokens") && !workload_is_set(&w, "samples")) {
		rc = wlargs_field_error(file, &w, -1,
					_("tokens: missing required field (plan prices the whole job: give tokens or samples)"));
		goto out;
	}
	if (workload_is_set(&w, "budget")) {
		struct money m = w.budget;
		if (!m.code_given)
			snprintf(m.code, sizeof(m.code), "%s", disp.code);
		po.budget_usd = to_usd(&c, &m);
		if (po.budget_usd < 0) {
			rc = wlargs_field_error(file, &w, workload_field_index("budget"),
						_("budget: unknown currency (see data/currencies.csv, or --rate CODE=N)"));
			goto out;
		}
	}
	c.trust_catalog = trust;
	if ((rc = plan_pricer_init(&pc, &c, &po.pricer)))
		goto out;
	if ((rc = offers_load(&c, (char **)catalogs.v, catalogs.n, NULL, NULL, NULL)))
		goto out_pricer;
	/* every document of a pipeline in order; one plan without a task */
	ndoc = task.ndoc ? task.ndoc : 1;
	if (json && ndoc > 1)
		printf("[\n");
	for (size_t d = 0; d < ndoc; d++) {
		const struct sky_doc *doc = task.ndoc ? &task.doc[d] : NULL;
		int one;
		if (doc && ndoc > 1 && !json && !emit) {
			/* the task's name and file are the user's text: escaped (out.h) */
			const char *tf = task_file ? task_file : file;
			char fesc[8192], nesc[4 * sizeof(doc->name)];
			printf(_("%sTask document %zu of %zu (%s line %zu)%s%s\n"), d ? "\n\n" : "", d + 1, ndoc,
			       out_safe(tf, strlen(tf), fesc, sizeof(fesc)), doc->line, doc->name[0] ? ": " : "",
			       out_safe(doc->name, strlen(doc->name), nesc, sizeof(nesc)));
		}
		if (doc && !json && !emit)
			doc_notes(doc);
		if (doc && ndoc > 1 && !doc_is_job(doc)) {
			if (!json && !emit)
				printf("%s", _("no resources and no run: not a job, not planned\n"));
			continue;
		}
		wd = w;
		/* the task's num_nodes, unless the workload says nodes */
		if (doc && doc->num_nodes > 1 && !workload_is_set(&w, "nodes")) {
			char n[32];
			snprintf(n, sizeof(n), "%ld", doc->num_nodes);
			if (workload_set(&wd, "nodes", n, 0, err, sizeof(err))) {
				rc = msg_usage(_("%s:%zu: num_nodes: %s"), task_file ? task_file : file, doc->line, err);
				goto out_pricer;
			}
		}
		if (workload_resolve(&wd, &mdb, &c.gdb, &arch, &gpu, &bad, err, sizeof(err))) {
			rc = doc && doc->num_nodes > 1 && bad == workload_field_index("nodes") ?
				msg_usage(_("%s:%zu: num_nodes: %s"), task_file ? task_file : file, doc->line, err) :
				wlargs_field_error(file, &wd, bad, err);
			goto out_pricer;
		}
		po.task = doc;
		/* nothing timed on an offer: the class still comes from the job, timed
		 * on the workload's GPU or the most rented training card */
		po.reference_gpu = gpu ? gpu : gpu_db_find(&c.gdb, "A100-80GB");
		if (json && njobs)
			printf(",\n");
		if (plan_serve_wanted(&wd)) {
			one = plan_serve_cmd(&wd, &arch, &c, &po, disp.code, disp.fx.usd_per_unit, json);
			worst = one > worst ? one : worst;
			njobs++;
			served = true;
			continue;
		}
		if (plan_run(&wd, &arch, &c.set, &po, &r, err, sizeof(err))) {
			snprintf(key, sizeof(key), "%.*s", (int)strcspn(err, ":"), err);
			rc = wlargs_field_error(file, &wd, workload_field_index(key), err);
			goto out_pricer;
		}
		njobs++;
		if (emit == 2) {
			one = r.n ? emit_slurm(&r, slurm_cmd) : EXIT_RUNTIME;
			if (!r.n)
				msg_error(_("--emit slurm: no offer fits; run without --emit for what was excluded"));
		} else if (emit) {
			one = r.n ? emit_sky(&wd, &po, &r, doc, &disp, d + 1 < ndoc) : EXIT_RUNTIME;
			if (!r.n)
				msg_error(_("--emit sky: no offer fits; run without --emit for what was excluded"));
		} else if (json) {
			render_json(&wd, &arch, &po, &r, &disp);
			one = r.n ? EXIT_OK : EXIT_RUNTIME;
		} else {
			render_plan_calib(&wd);
			render(&wd, &arch, &po, &r, &disp);
			one = r.n ? EXIT_OK : EXIT_RUNTIME;
		}
		worst = one > worst ? one : worst;
		plan_result_free(&r);
	}
	if (json && ndoc > 1)
		printf("]\n");
	if (!json && !emit && !served) {
		printf("\n%s\n", _("Catalogs"));
		offers_report(stdout, &c);
	}
	rc = served ? worst : msg_finish(c.bad_rows ? EXIT_USAGE : worst);
out_pricer:
	plan_pricer_free(&pc);
out:
	plan_cal = NULL;
	calib_free(&cal);
	model_db_free(&mdb);
	offers_free(&c);
out_opts:
	opt_list_free(&catalogs);
	opt_list_free(&rates);
	opt_list_free(&access);
	opt_list_free(&excl);
	opt_list_free(&only);
	names_free(&acc);
	names_free(&exn);
	names_free(&onn);
	sky_task_free(&task);
	return rc;
out_nomem:
	msg_error(_("out of memory"));
	rc = EXIT_RUNTIME;
	goto out_opts;
}
