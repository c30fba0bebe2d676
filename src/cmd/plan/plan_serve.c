/*
 * plan_serve.c - `gpurent plan` for a service (plan_serve.h): the service
 * planner (src/core/plan/serve.c) on the loaded offers, its table, why lines,
 * exclusions, advice and checklist in words, or its JSON
 * (gpurent.plan-service/1, docs/serve.md). Money in the facts is USD;
 * every figure printed is divided by fx and labelled with cur.
 */
#include <stddef.h>
#include "cmd/plan/plan_serve.h"
#include "cmd/plan/plan_render.h"
#include "kit/catcache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/plan/serve.h"
#include "core/text/units.h"
#include "kit/common.h"
#include "base/out.h"
#include "cmd/plan/planwords.h"

#define LINE_MAX_ 320

bool plan_serve_wanted(const struct workload *w)
{
	return serve_wanted(w);
}

/* An offer is kept when the user may and wants to rent it: plan's --access
 * (and the workload's access), --exclude and --only (plan.h). */
/* Who may rent it (access, --exclude, --only), where the task lets it
 * run (any of its candidates; a service is on demand: use_spot aside) and
 * --max-price (a dstack file's max_price), per instance-hour on demand. */
static bool access_keep(void *ctx, const struct offer *o)
{
	const struct plan_opts *po = ctx;
	enum plan_exclusion why;
	bool fits = !po->task;

	if (po->max_price_usd > 0 && o->price > po->max_price_usd)
		return false;

	for (size_t i = 0; po->task && i < po->task->ncand && !fits; i++)
		fits = sky_res_fits(&po->task->cand[i], o, true);
	return fits && plan_offer_allowed(po, o, &why);
}

static const char *cs(const struct cat_str *s, char *buf, size_t n)
{
	return out_safe(s->p, s->len, buf, n);
}

static const char *gpu_short(const struct offer *o, char *buf, size_t n)
{
	size_t al = strcspn(o->gpu->aliases, "|");
	return out_safe(o->gpu->aliases, al, buf, n);
}

static const char *exclusion_word(enum serve_exclusion x)
{
	static const char *const t[SX_COUNT] = {
		N_("GPU not in data/gpus.csv (no memory or bandwidth to plan with)"),
		N_("suspect catalog price (spot at or above on-demand: the columns may be swapped)"),
		N_("needs a membership you did not name (--access), or left out by --exclude/--only, the task's "
		   "resources or --max-price"),
		N_("marketplace host: hosts vanish without notice, not for a service that stays up"),
		N_("time-limited queue: a service cannot stay up"),
		N_("too few GPUs on the offer for the tensor-parallel degree the model needs"),
		N_("not enough GPU memory even at tensor parallel 8 and one sequence a replica"),
		N_("decode too slow for the tokens per second each user needs"),
		N_("no billing profile or mode prices it"),
		N_("monthly total above the budget"),
	};
	return (unsigned)x < SX_COUNT ? _(t[x]) : "?";
}

static void example_word(enum serve_exclusion x, const struct serve_result *r, const char *cur,
			 double fx, char *out, size_t n)
{
	char d[160], p[64];
	const struct serve_example *e = &r->example[x];
	const struct offer *o = e->offer;

	out[0] = '\0';
	if (!o)
		return;
	switch (x) {
	case SX_TIME_LIMIT:
		snprintf(d, sizeof(d), _("limit %.0f h a job, the service is up %.0f h a day"), e->a / 3600,
			 e->b / 3600);
		break;
	case SX_GPU_COUNT:
		snprintf(d, sizeof(d), _("needs tensor parallel %g, has %g GPUs"), e->a, e->b);
		break;
	case SX_MEMORY:
		snprintf(d, sizeof(d), _("needs %.1f GB per GPU, has %.1f GB"), e->a / 1e9, e->b / 1e9);
		break;
	case SX_TOO_SLOW:
		snprintf(d, sizeof(d), _("%.1f tokens/s a sequence at best, %.1f needed (with the %.0f%% margin)"),
			 e->a, e->b, r->tps_headroom * 100);
		break;
	case SX_BUDGET:
		snprintf(d, sizeof(d), _("%.2f %s a month, budget %.2f %s"), e->a / fx, cur, e->b / fx, cur);
		break;
	case SX_SUSPECT:
		snprintf(d, sizeof(d), _("spot %.2f, on-demand %.2f %s/h"), o->spot_price / fx, o->price / fx, cur);
		break;
	case SX_KEPT_OUT:
		snprintf(d, sizeof(d), _("for members of %s"), cs(&o->access, p, sizeof(p)));
		break;
	default:
		snprintf(d, sizeof(d), "%s", exclusion_word(x));
		break;
	}
	plan_word_offer(o, d, out, n);
}

static const char *check_word(const struct serve_result *r, enum serve_check k, const char *cur,
			      double fx, char *out, size_t n)
{
	const struct serve_choice *b = r->n ? &r->ranked[0] : NULL;

	switch (k) {
	case SC_BUDGET_ALERT:
		if (r->alert_is_budget)
			snprintf(out, n, _("budget alert at %.2f %s a month (your budget)"), r->alert_usd / fx, cur);
		else
			snprintf(out, n, _("budget alert at %.2f %s a month (%.1fx the expected %.2f %s; no budget given)"),
				 r->alert_usd / fx, cur, SERVE_ALERT_MULTIPLE, b ? b->total / fx : 0, cur);
		break;
	case SC_HEALTH:
		snprintf(out, n, "%s", _("health check on the model server (an HTTP probe every 30 s) and a restart "
					 "policy (restart on failure): the service stays up, it is never stopped on idle"));
		break;
	case SC_LOAD_TEST:
		snprintf(out, n, _("load-test one replica at %.0f sequences before committing: the decode model "
				   "expects %.1f tokens/s a sequence, %.1f needed"),
			 b ? b->batch : 0, b ? b->seq_tps : 0, r->needed_seq_tps);
		break;
	case SC_RESERVED_TERM:
		snprintf(out, n, "%s", _("the cheapest is a reserved term: commit for 1 or 3 years only after a "
					 "month on-demand, a term outlives a GPU generation"));
		break;
	case SC_SCALE_TO_ZERO:
		snprintf(out, n, _("up %.0f%% of the week: on serverless, scale to zero between the hours up"),
			 r->duty * 100);
		break;
	case SC_RECORD_COSTS:
		snprintf(out, n, "%s", _("record each month's bill: gpurent ledger"));
		break;
	default:
		snprintf(out, n, "?");
		break;
	}
	return out;
}

static void mode_list(const struct serve_choice *c, const char *cur, double fx, char *out, size_t n)
{
	size_t k = 0;

	out[0] = '\0';
	for (int i = 0; i < SERVE_NMODES && k + 1 < n; i++) {
		int m;
		if (c->mode_total[i] < 0)
			m = snprintf(out + k, n - k, "%s%s -", i ? ", " : "", plan_mode_word(serve_modes[i]));
		else
			m = snprintf(out + k, n - k, "%s%s %.2f", i ? ", " : "", plan_mode_word(serve_modes[i]),
				     c->mode_total[i] / fx);
		if (m < 0)
			break;
		k += (size_t)m < n - k ? (size_t)m : n - k - 1;
	}
	(void)cur;
}

/* The ranked offer whose price is the oldest, its time in *t. */
static const struct offer *oldest(const struct serve_result *r, const struct offers_ctx *c, double *t)
{
	return plan_oldest_in(r->ranked, r->n, sizeof(*r->ranked), offsetof(struct serve_choice, offer), c, t);
}

static void render(const struct workload *w, const struct model_spec *arch, const struct serve_result *r,
		   const char *cur, double fx, const struct offers_ctx *oc, long stale_days)
{
	char a[64], b[64], g[64], line[LINE_MAX_];
	double hidden = 0;

	printf(_("gpurent plan: %s, %s, %s, a service up %g h a day, %g days a week (%.0f h a month of %.0f)\n"),
	       arch->name, workload_enum_name("task", w->task), workload_enum_name("precision", w->precision),
	       w->serve.hours_per_day, w->serve.days_per_week, r->hours_month, SERVE_MONTH_HOURS);
	printf(_("load: %ld sequences at %ld tokens of context, %.1f output tokens/s needed (%.1f a sequence); "
		 "served with a margin of at least %.0f%% (tps_headroom)\n"),
	       r->concurrency, w->context, r->needed_tps, r->needed_seq_tps, r->tps_headroom * 100);
	printf(_("egress %s a month (%s), storage %s a box (the weights + data_size)\n"),
	       units_fmt_bytes(r->egress_bytes, a, sizeof(a)),
	       r->egress_given ? _("given") : _("from the responses: 4 bytes a token + 500 a response"),
	       units_fmt_bytes(r->storage_bytes, b, sizeof(b)));
	{
		double t;
		const struct offer *o = oldest(r, oc, &t);
		if (o) {
			plan_print_price_age(oc, o, t, stale_days);
			putchar('\n');
		}
	}
	printf(_("%zu offers considered, %zu feasible; ranked by monthly total cost; prices in %s a month\n\n"),
	       r->considered, r->feasible, cur);
	if (!r->n) {
		printf("%s\n", _("No offer serves the load. See what was excluded below."));
	} else {
		static const int cw[] = {2, -14, -24, -12, 7, 5, 4, 13, 6, -16, 10, 8, 8, 10};
		const char *const h[] = {"#", _("provider"), _("instance"), _("GPU"), _("TPxrep"), _("boxes"),
					 _("mem"), _("tok/s srv/nd"), _("margin"), _("billing"), _("compute"), _("egress"),
					 _("storage"), _("total")};
		out_heading(stdout, cw, h, sizeof(cw) / sizeof(cw[0]));   /* by terminal columns */
		for (size_t i = 0; i < r->n; i++) {
			const struct serve_choice *c = &r->ranked[i];
			char p[64], in[64], lay[32], tps[32];
			snprintf(lay, sizeof(lay), "%dx%ld", c->tp, c->replicas);
			snprintf(tps, sizeof(tps), "%.0f/%.0f", c->served_tps, r->needed_tps);
			printf("%2zu %-14.14s %-24.24s %-12.12s %7s %5g %3.0f%% %13s %+5.0f%% %-16s %10.2f %8.2f %8.2f "
			       "%10.2f\n",
			       i + 1, cs(&c->offer->provider, p, sizeof(p)), cs(&c->offer->instance, in, sizeof(in)),
			       gpu_short(c->offer, g, sizeof(g)), lay, c->instances, c->mem_used * 100, tps,
			       c->tps_margin * 100,
			       plan_mode_word(c->mode), c->compute / fx, c->egress / fx, c->storage / fx, c->total / fx);
		}
		printf("\n%s\n", _("Why"));
		for (size_t i = 0; i < r->n; i++) {
			const struct serve_choice *c = &r->ranked[i];
			mode_list(c, cur, fx, line, sizeof(line));
			printf(_(" %zu. tensor parallel %d x %ld %s on %g %s of %g x %s: %.0f %s a "
				 "replica, %.1f of %.1f GB per GPU; decode step %.1f ms (all-reduce %.1f ms) -> %.1f "
				 "tokens/s a sequence; per month %s %s (%s billing)\n"),
			       i + 1, c->tp, c->replicas, Q_("replica", "replicas", c->replicas), c->instances,
			       Q_("box", "boxes", c->instances), c->offer->gpus, c->offer->gpu->name, c->batch,
			       Q_("sequence", "sequences", c->batch),
			       c->mem_per_gpu / 1e9, c->offer->gpu_mem / 1e9, c->step_s * 1e3, c->comm_s * 1e3,
			       c->seq_tps, line, cur, c->profile);
		}
		hidden = r->ranked[0].total > 0 ? (r->ranked[0].egress + r->ranked[0].storage) / r->ranked[0].total : 0;
	}
	printf("\n%s\n", _("Excluded"));
	for (int i = 0; i < SX_COUNT; i++)
		if (r->excluded[i]) {
			example_word((enum serve_exclusion)i, r, cur, fx, line, sizeof(line));
			printf(_(" %6zu %s\n        e.g. %s\n"), r->excluded[i], exclusion_word((enum serve_exclusion)i), line);
		}
	printf("\n%s\n", _("Advice"));
	printf(" %s\n", _("user class C: a service that stays up, priced by the month, not by the job"));
	printf(" %s\n", _("spot: not offered for a service (an interruption drops the users' requests)"));
	printf(" %s\n", _("marketplace: not for production, hosts vanish without notice"));
	printf(" %s\n", _("billing: monthly packages and 1-/3-year reserved terms pay off with steady use; "
			  "a term cannot be left when a GPU generation passes"));
	if (r->spiky)
		printf(_(" serverless: up %.0f%% of the week, below %.0f%%: per-second serverless that scales to "
			 "zero between the hours up%s\n"), r->duty * 100, SERVE_SPIKY_DUTY * 100,
		       r->serverless_ranked ? "" : _(" (no serverless offer ranked)"));
	else
		printf(_(" serverless: up %.0f%% of the week: a box that stays up costs less than per-second billing\n"),
		       r->duty * 100);
	if (r->n)
		printf(_(" hidden costs: egress + storage are %.1f%% of the best monthly total (the seed: a service's "
			 "traffic and storage bills are often above the card hours)\n"), hidden * 100);
	printf("\n%s\n", _("Checklist"));
	for (int i = 0; i < r->nchecklist; i++)
		printf(" [ ] %s\n", check_word(r, r->checklist[i], cur, fx, line, sizeof(line)));
}

static void render_json(const struct workload *w, const struct model_spec *arch, const struct serve_result *r,
			const char *cur, double fx, const struct offers_ctx *oc, long stale_days)
{
	struct json j;
	char b[512], line[LINE_MAX_];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.plan-service/1");
	json_str(&j, "model", arch->name);
	json_str(&j, "task", workload_enum_name("task", w->task));
	json_str(&j, "currency", cur);
	json_num(&j, "hours_per_day", w->serve.hours_per_day);
	json_num(&j, "days_per_week", w->serve.days_per_week);
	json_num(&j, "hours_per_month", r->hours_month);
	json_num(&j, "duty_fraction", r->duty);
	json_num(&j, "concurrency", (double)r->concurrency);
	json_num(&j, "context_tokens", (double)w->context);
	json_num(&j, "needed_tokens_per_second", r->needed_tps);
	json_num(&j, "needed_tokens_per_second_per_sequence", r->needed_seq_tps);
	json_num(&j, "tokens_per_second_headroom", r->tps_headroom);
	json_num(&j, "egress_bytes_per_month", r->egress_bytes);
	json_bool(&j, "egress_given", r->egress_given);
	json_num(&j, "storage_bytes_per_box", r->storage_bytes);
	json_num(&j, "decode_bandwidth_fraction", r->decode_efficiency);
	json_num(&j, "considered", (double)r->considered);
	json_num(&j, "feasible", (double)r->feasible);
	{
		double t;
		const struct offer *o = oldest(r, oc, &t);
		plan_json_prices(&j, o, t, stale_days);
	}
	json_arr_begin(&j, "ranked");
	for (size_t i = 0; i < r->n; i++) {
		const struct serve_choice *c = &r->ranked[i];
		const struct offer *o = c->offer;
		json_obj_begin(&j, NULL);
#define JS(k, s) (snprintf(b, sizeof(b), "%.*s", (int)(s).len, (s).p), json_str(&j, k, b))
		JS("provider", o->provider);
		JS("instance", o->instance);
		plan_json_offer_date(&j, oc, o);
		JS("region", o->region);
#undef JS
		json_str(&j, "gpu", o->gpu->name);
		json_num(&j, "gpus_per_box", o->gpus);
		json_str(&j, "supply", supply_type_name(o->supply));
		json_num(&j, "gpus_per_replica", c->tp);
		json_num(&j, "replicas", (double)c->replicas);
		json_num(&j, "boxes", c->instances);
		json_num(&j, "sequences_per_replica", c->batch);
		json_num(&j, "memory_per_gpu_bytes", c->mem_per_gpu);
		json_num(&j, "memory_used_fraction", c->mem_used);
		json_num(&j, "decode_step_seconds", c->step_s);
		json_num(&j, "allreduce_seconds", c->comm_s);
		json_num(&j, "prefill_fraction", c->prefill_share);
		json_num(&j, "tokens_per_second_per_sequence", c->seq_tps);
		json_num(&j, "tokens_per_second", c->served_tps);
		json_num(&j, "tokens_per_second_margin", c->tps_margin);
		json_str(&j, "mode", plan_mode_name(c->mode));
		json_str(&j, "billing_profile", c->profile);
		json_num(&j, "monthly_compute_cost", c->compute / fx);
		json_num(&j, "monthly_egress_cost", c->egress / fx);
		json_num(&j, "monthly_storage_cost", c->storage / fx);
		json_num(&j, "monthly_total_cost", c->total / fx);
		json_obj_begin(&j, "monthly_total_cost_by_mode");
		for (int m = 0; m < SERVE_NMODES; m++) {
			if (c->mode_total[m] < 0)
				json_null(&j, plan_mode_name(serve_modes[m]));
			else
				json_num(&j, plan_mode_name(serve_modes[m]), c->mode_total[m] / fx);
		}
		json_obj_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "excluded");
	for (int i = 0; i < SX_COUNT; i++) {
		if (!r->excluded[i])
			continue;
		json_obj_begin(&j, NULL);
		json_str(&j, "code", serve_exclusion_name((enum serve_exclusion)i));
		json_str(&j, "reason", exclusion_word((enum serve_exclusion)i));
		json_num(&j, "count", (double)r->excluded[i]);
		example_word((enum serve_exclusion)i, r, cur, fx, line, sizeof(line));
		json_str(&j, "example", line);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_begin(&j, "advice");
	json_str(&j, "user_class", "C");
	json_bool(&j, "spot_offered", false);
	json_bool(&j, "marketplace_ranked", false);
	json_bool(&j, "scale_to_zero", r->spiky);
	json_num(&j, "budget_alert_cost", r->alert_usd / fx);
	json_bool(&j, "budget_alert_is_budget", r->alert_is_budget);
	json_arr_begin(&j, "checklist_codes");
	for (int i = 0; i < r->nchecklist; i++)
		json_str(&j, NULL, serve_check_name(r->checklist[i]));
	json_arr_end(&j);
	json_arr_begin(&j, "checklist");
	for (int i = 0; i < r->nchecklist; i++)
		json_str(&j, NULL, check_word(r, r->checklist[i], cur, fx, line, sizeof(line)));
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj_end(&j);
}

int plan_serve_plan(const struct workload *w, const struct model_spec *arch,
		    const struct offers_ctx *c, const struct plan_opts *po, struct serve_result *r)
{
	struct serve_opts so;
	char err[512];

	serve_opts_default(&so);
	so.top = po->top;
	so.budget_usd = po->budget_usd;
	so.pricer = po->pricer;
	so.keep = access_keep;
	so.keep_ctx = (void *)po;
	if (serve_run(w, arch, &c->set, &so, r, err, sizeof(err)))
		return msg_usage("%s", err);
	return 0;
}

int plan_serve_cmd(const struct workload *w, const struct model_spec *arch,
		   const struct offers_ctx *c, const struct plan_opts *po,
		   const char *cur, double fx, bool json, long stale_days)
{
	struct serve_result r;
	int rc;

	if ((rc = plan_serve_plan(w, arch, c, po, &r)))
		return rc;
	{
		double t;
		const struct offer *o = oldest(&r, c, &t);
		plan_warn_stale(c, o, t, stale_days);
	}
	if (json) {
		render_json(w, arch, &r, cur, fx, c, stale_days);
	} else {
		render(w, arch, &r, cur, fx, c, stale_days);
		printf("\n%s\n", _("Catalogs"));
		offers_report(stdout, c);
	}
	rc = msg_finish(c->bad_rows ? EXIT_USAGE : r.n ? EXIT_OK : EXIT_RUNTIME);
	serve_result_free(&r);
	return rc;
}
