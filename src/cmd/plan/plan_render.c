/*
 * plan_render.c - `gpurent plan`'s answer printed (plan_render.h): the
 * ranked table, why each, spot against on-demand, what was excluded, the
 * advice and the checklist; or the same as JSON (gpurent.plan/1).
 */
#include "cmd/plan/plan_render.h"
#include "kit/catcache.h"
#include <time.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/estimate/estwords.h"
#include "core/box/release.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/config.h"
#include "base/out.h"
#include "base/util.h"

static void print_release_check(const struct plan_result *r);

/* A catalog field in a column: control bytes escaped (out.h), cut to width. */
/* issue 29 item 8, issue 30: the factors the times carry and the defaults
 * taken, as `estimate` words them (the rest of its assumptions: gpurent
 * estimate) */
static void print_assumed(const struct estimate *e)
{
	char words[EST_NOTE_MAX];
	bool any = false;

	for (int i = 0; i < e->nassumptions; i++) {
		if (e->assumptions[i].code != EST_N_QLORA_SLOWDOWN &&
		    e->assumptions[i].code != EST_N_FRAMEWORK_DEFAULTS)
			continue;
		est_word(&e->assumptions[i], words, sizeof(words));
		printf(_("Assumed: %s\n"), words);
		any = true;
	}
	if (any)
		printf("\n");
}

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


const struct offer *plan_oldest_in(const void *v, size_t n, size_t stride, size_t off,
				   const struct offers_ctx *c, double *t)
{
	const struct offer *best = NULL;

	*t = -1;
	for (size_t i = 0; c && i < n; i++) {
		const struct offer *o = *(const struct offer *const *)((const char *)v + i * stride + off);
		double ti = offers_price_time(c, o);
		if (ti >= 0 && (*t < 0 || ti < *t)) {
			*t = ti;
			best = o;
		}
	}
	return best;
}

const struct offer *plan_oldest_price(const struct plan_result *r, const struct offers_ctx *c, double *t)
{
	return plan_oldest_in(r->ranked, r->n, sizeof(*r->ranked), offsetof(struct plan_choice, offer), c, t);
}

char *plan_price_where(const struct offers_ctx *c, const struct offer *o, char *buf, size_t n)
{
	const char *path = o->file < c->set.nreports ? c->set.reports[o->file].path : "?";
	char esc[4 * sizeof(c->set.reports[0].path)];

	out_safe(path, strlen(path), esc, sizeof(esc));
	snprintf(buf, n, _("%s line %u"), esc, o->line);
	return buf;
}

void plan_print_price_age(const struct offers_ctx *c, const struct offer *o, double t, long stale_days)
{
	char day[32], where[2200];
	long days;

	if (!o)
		return;
	days = catcache_days(t, catcache_now());
	printf(Q_("prices: the oldest ranked is %ld day old (%s, %s)",
		  "prices: the oldest ranked is %ld days old (%s, %s)", days),
	       days, catcache_day(t, day, sizeof(day)), plan_price_where(c, o, where, sizeof(where)));
	if (stale_days > 0 && days > stale_days)
		printf(_("; older than %ld days: `gpurent catalog update` fetches current catalogs"), stale_days);
}

void plan_json_prices(struct json *j, const struct offer *o, double t, long stale_days)
{
	char b[32];
	long days = o ? catcache_days(t, catcache_now()) : 0;

	if (o) {
		json_str(j, "prices_oldest_date", catcache_day(t, b, sizeof(b)));
		json_int(j, "prices_oldest_age_days", days);
	} else {
		json_null(j, "prices_oldest_date");
		json_null(j, "prices_oldest_age_days");
	}
	json_int(j, "stale_days", stale_days);
	json_bool(j, "prices_stale", o && stale_days > 0 && days > stale_days);
}

void plan_json_offer_date(struct json *j, const struct offers_ctx *c, const struct offer *o)
{
	char b[32];
	double t = c ? offers_price_time(c, o) : -1;

	if (t >= 0) {
		json_str(j, "price_date", catcache_day(t, b, sizeof(b)));
		json_int(j, "price_age_days", catcache_days(t, catcache_now()));
	} else {
		json_null(j, "price_date");
		json_null(j, "price_age_days");
	}
}

void plan_warn_stale(const struct offers_ctx *c, const struct offer *o, double t, long stale_days)
{
	char day[32], where[2200];
	long days = o ? catcache_days(t, catcache_now()) : 0;

	if (!o || days <= stale_days)
		return;
	msg_warn(_("the prices ranked are up to %ld days old (%s, %s), older than %ld days: "
		   "`gpurent catalog update` fetches SkyPilot's current catalogs; a data/offers.csv row is as "
		   "current as its source"), days, catcache_day(t, day, sizeof(day)),
		 plan_price_where(c, o, where, sizeof(where)), stale_days);
}

/* The line under the heading: how old the ranked prices are. */
static void print_price_age(const struct plan_result *r, const struct display *d)
{
	double t;
	const struct offer *o = plan_oldest_price(r, d->oc, &t);

	if (!o)
		return;
	putchar('\n');
	plan_print_price_age(d->oc, o, t, d->stale_days);
}

void plan_render_table(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
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
	print_price_age(r, d);
	printf("\n\n");
	plan_word_magnitude(&r->magnitude, fx, why, sizeof(why));
	if (why[0])
		printf("%s\n\n", why);
	print_assumed(e);
	if (w->nodes > 1)
		printf(_("Across %ld nodes: each choice rents %ld of its instance; n counts the GPUs of all of them,\n"
		       "the totals bill every node, and any node's interruption stops the job (docs/formulas.md \"Across nodes\").\n\n"),
		       w->nodes, w->nodes);
	if (!r->n) {
		printf("%s", _("No offer fits. See what was excluded below.\n"));
	} else {
		/* the region beside the instance: one instance type in five regions is five
		 * rows that differ there (issue 29; docs/plan.md "The table") */
		static const int hw[] = {2, -14, -28, -12, -14, 3, 5, -15, 10, 10, 10};
		const char *const hc[] = {"#", _("provider"), _("instance"), _("region"), "GPU", "n", _("mem"),
					  _("billing"), _("finish"), _("total"), _("on-demand")};
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
			putchar(' ');
			if (o->region.len)
				cs_print(&o->region, 12);
			else
				printf("%-12s", "-");
			/* a slice: its share of one card (0.17), a place taken from the GPU column */
			printf(o->gpus > 0 && o->gpus < 1 ? " %-13s %4.2g %4.0f%% %-15s %10s %10.2f %10s%s\n" :
			       " %-14s %3g %4.0f%% %-15s %10s %10.2f %10s%s\n",
			       out_safe(o->gpu->aliases, al, gesc, sizeof(gesc)),
			       o->gpus > 0 && o->gpus < 1 ? o->gpus * (c->nodes > 1 ? c->nodes : 1) : c->gpus,
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
		printf(_(" %-12s %s %s; %s\n"), supply_type_name(t), r->supply_fits[t] ? "+" : "-", sup,
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

static void render_json_choice(struct json *j, const struct plan_choice *c, double k, const struct display *d)
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
	plan_json_offer_date(j, d->oc, o);
	plan_word_why(c, why, PLAN_WHY_MAX);
	json_str(j, "why_code", plan_why_name(c->why));
	json_str(j, "why", why);
#undef JS
	json_obj_end(j);
}

/* The probe's peak per GPU sizes the fit on cards at least its card's size. */
static bool plan_mem_calibrated(const struct calib *c)
{
	return c && c->p && c->probe_gpu && c->mem_total > 0 && c->mem_skip != CALIB_NO_MEMORY &&
	       c->mem_skip != CALIB_SERVING;
}

static void json_plan_calib(struct json *j, const struct calib *c)
{
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

void plan_render_calib(const struct workload *w, const struct display *d)
{
	const struct calib *c = d->cal;
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

void plan_render_json(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
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
	json_plan_calib(&j, d->cal);
	/* the single-GPU estimate's assumptions, every factor applied among them */
	json_num(&j, "step_slowdown", r->single.step_slowdown);
	json_arr_begin(&j, "assumption_codes");
	for (int i = 0; i < r->single.nassumptions; i++)
		json_str(&j, NULL, est_code_name(r->single.assumptions[i].code));
	json_arr_end(&j);
	json_arr_begin(&j, "assumptions");
	for (int i = 0; i < r->single.nassumptions; i++) {
		est_word(&r->single.assumptions[i], b, sizeof(b) < EST_NOTE_MAX ? sizeof(b) : EST_NOTE_MAX);
		json_str(&j, NULL, b);
	}
	json_arr_end(&j);
	json_num(&j, "considered", (double)r->considered);
	json_num(&j, "feasible", (double)r->feasible);
	json_num(&j, "pareto_count", (double)r->pareto);
	{
		double t;
		const struct offer *o = plan_oldest_price(r, d->oc, &t);
		plan_json_prices(&j, o, t, d->stale_days);
	}
	json_arr_begin(&j, "ranked");
	for (size_t i = 0; i < r->n; i++)
		render_json_choice(&j, &r->ranked[i], k, d);
	json_arr_end(&j);
	if (r->have_fastest) {
		json_obj_begin(&j, "fastest_within");
		json_num(&j, "margin_fraction", po->fast_margin);
		json_obj_end(&j);
		json_arr_begin(&j, "fastest_within_choice");
		render_json_choice(&j, &r->fastest, k, d);
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
