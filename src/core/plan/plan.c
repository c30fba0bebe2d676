/*
 * plan.c - pricing a workload on every offer and ranking them (plan.h).
 * Formulas: docs/formulas.md "Plan" and docs/billing.md.
 */
#include "core/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/names.h"
#include "core/market/spot.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

const char *plan_mode_name(enum plan_mode m)
{
	static const char *const n[] = {"on-demand", "spot", "daily package", "weekly package",
					"monthly package", "reserved 1 year", "reserved 3 years"};
	return (unsigned)m < PLAN_NMODES ? n[m] : "?";
}

/* The stable names of the codes (docs/json.md): append, never rename. */
#define NAME_OF(table, count, i) ((unsigned)(i) < (count) ? (table)[i] : "?")

const char *plan_exclusion_name(enum plan_exclusion e)
{
	static const char *const t[EX_NREASONS] = {
		"unknown_gpu", "constraint", "gpu_count", "memory", "slice", "comm_bound",
		"time_limit", "deadline", "budget", "max_price", "no_throughput",
		"access", "user_filter", "suspect_price", "ordered",
	};
	return NAME_OF(t, EX_NREASONS, e);
}

const char *plan_detail_name(enum plan_detail d)
{
	static const char *const t[PLAN_D_COUNT] = {
		"no_specs", "other_kind_or_place", "gpu_count", "memory", "no_tflops", "comm_ratio",
		"time_limit", "no_billing_mode", "deadline", "budget", "max_price",
		"access", "user_filter", "suspect_price", "ordered",
	};
	return NAME_OF(t, PLAN_D_COUNT, d);
}

const char *plan_why_name(enum plan_why w)
{
	static const char *const t[PLAN_WHY_COUNT] = {"fits", "fits_spot", "fits_queue"};
	return NAME_OF(t, PLAN_WHY_COUNT, w);
}

const char *plan_class_name(enum plan_class_why c)
{
	static const char *const t[PLAN_CLASS_COUNT] = {"service", "long_run", "occasional_run"};
	return NAME_OF(t, PLAN_CLASS_COUNT, c);
}

const char *plan_advice_name(enum plan_advice a)
{
	static const char *const t[PLAN_A_COUNT] = {
		"none", "ai_cloud_short_runs", "ai_cloud_long_runs", "ai_cloud_service",
		"marketplace_resumable", "marketplace_hosts_vanish",
		"campus_chained_jobs", "campus_needs_resumable", "campus_queue_waits",
		"campus_no_service", "serverless_spiky_inference", "serverless_short_runs",
		"serverless_long_training", "hyperscaler_large_data", "hyperscaler_short_runs",
		"hyperscaler_steady_use", "billing_per_second", "billing_spot",
		"billing_on_demand", "billing_service",
	};
	return NAME_OF(t, PLAN_A_COUNT, a);
}

const char *plan_check_name(enum plan_check_code c)
{
	static const char *const t[PLAN_C_COUNT] = {
		"auto_stop", "checkpoint_interval", "checkpoint_regularly", "data_size_unknown",
		"data_rsync", "data_object_storage", "data_mount", "debug_cheapest", "record_costs",
		"checkpoint_time_limit",
	};
	return NAME_OF(t, PLAN_C_COUNT, c);
}

const char *plan_magnitude_name(enum plan_magnitude_code c)
{
	static const char *const t[] = {"none", "slow_cheapest", "slow_all", "over_budget"};
	return NAME_OF(t, ARRAY_SIZE(t), c);
}

const char *plan_change_name(enum plan_change_code c)
{
	static const char *const t[PLAN_CH_COUNT] = {
		"memory", "zero3", "deadline", "budget", "access", "resumable", "work", "no_offers",
	};
	return NAME_OF(t, PLAN_CH_COUNT, c);
}

const char *plan_spot_name(enum plan_spot_code c)
{
	static const char *const t[] = {"none", "spot_dearer", "spot_only_excluded_cheaper"};
	return NAME_OF(t, ARRAY_SIZE(t), c);
}

void plan_opts_default(struct plan_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->by = PLAN_BY_COST;
	o->top = 5;
	o->setup_s = 20 * 60;       /* formulas.md "Plan": environment set-up per start */
	o->upload_bw = 12.5e6;      /* 100 Mbit/s */
	o->ckpt_write_bw = 1e9;     /* local NVMe-class disk */
	o->restart_s = 5 * 60;
	o->fast_margin = 0.10;      /* formulas.md "Plan": fastest within 10% of the cheapest */
	o->stop_multiple = 1.2;     /* the budget stop without a budget */
}

/* An instance-hour's price: on demand, or spot for a catalog row that
 * states only a spot price (offer.spot_only). */
static double hourly(const struct offer *o)
{
	return o->spot_only ? o->spot_price : o->price;
}

/* ---- matching constraints ---- */

static bool gpu_is(const struct gpu_spec *g, const char *want)
{
	char fam[64], nw[64];

	if (names_equal(want, g->name) || names_in_list(want, g->aliases))
		return true;
	names_family(g->name, fam, sizeof(fam));
	return !strcmp(fam, names_norm(want, nw, sizeof(nw)));
}

/* The first of the task's candidates offer o fits, its use_spot too
 * (a spot price for use_spot: true); else the first it fits use_spot
 * aside (excluded with the price, where a cheaper on-demand plan it
 * leaves out is worth saying); -1 when none; 0 without a task. */
static int task_match(const struct sky_doc *t, const struct offer *o)
{
	if (!t)
		return 0;
	for (size_t i = 0; i < t->ncand; i++)
		if (sky_res_fits(&t->cand[i], o, false))
			return (int)i;
	for (size_t i = 0; i < t->ncand; i++)
		if (sky_res_fits(&t->cand[i], o, true))
			return (int)i;
	return -1;
}

/* The use_spot of candidate i (-1 unset, 0, 1). */
static int task_spot(const struct sky_doc *t, int i)
{
	return t && i >= 0 && (size_t)i < t->ncand ? t->cand[i].use_spot : -1;
}

static void exclude(struct plan_result *r, enum plan_exclusion e, const struct offer *o,
		    enum plan_detail d, double a, double b)
{
	r->excluded[e]++;
	if (r->example[e].offer)
		return;
	r->example[e] = (struct plan_example){.offer = o, .detail = d, .a = a, .b = b};
}

/* ---- per-GPU-type estimates, cached ---- */

struct est_cache {
	const struct gpu_spec *gpu;
	double gpus;
	int rc;
	struct estimate e;
};

static const struct estimate *estimate_for(struct est_cache **cache, size_t *n, size_t *cap,
					   const struct workload *w, const struct model_spec *arch,
					   const struct gpu_spec *gpu, double gpus)
{
	struct workload w2;
	char err[256];

	for (size_t i = 0; i < *n; i++)
		if ((*cache)[i].gpu == gpu && (*cache)[i].gpus == gpus)
			return (*cache)[i].rc ? NULL : &(*cache)[i].e;
	{
		void *v = *cache;
		if (util_grow(&v, cap, *n + 1, sizeof(**cache)))
			return NULL;
		*cache = v;
	}
	w2 = *w;
	w2.gpus = (long)(gpus < 1 ? 1 : gpus);
	(*cache)[*n].gpu = gpu;
	(*cache)[*n].gpus = gpus;
	(*cache)[*n].rc = estimate_run(&w2, arch, gpu, &(*cache)[*n].e, err, sizeof(err));
	(*n)++;
	return (*cache)[*n - 1].rc ? NULL : &(*cache)[*n - 1].e;
}

static int cmp_cost(const void *a, const void *b)
{
	const struct plan_choice *x = a, *y = b;

	if (x->cost.total != y->cost.total)
		return x->cost.total < y->cost.total ? -1 : 1;
	if (x->wall_s != y->wall_s)
		return x->wall_s < y->wall_s ? -1 : 1;
	return (x->offer > y->offer) - (x->offer < y->offer);
}

static int cmp_time(const void *a, const void *b)
{
	const struct plan_choice *x = a, *y = b;

	if (x->wall_s != y->wall_s)
		return x->wall_s < y->wall_s ? -1 : 1;
	return cmp_cost(a, b);
}

static bool same_offer(const struct plan_choice *a, const struct plan_choice *b)
{
	const struct offer *x = a->offer, *y = b->offer;

	return a->mode == b->mode && x->gpu == y->gpu && x->gpus == y->gpus && x->price == y->price &&
	       x->provider.len == y->provider.len && !memcmp(x->provider.p, y->provider.p, x->provider.len) &&
	       x->instance.len == y->instance.len && !memcmp(x->instance.p, y->instance.p, x->instance.len);
}

/* ---- who may rent it, what the user left out ---- */

static bool in_names(const char *const *v, size_t n, const struct cat_str *s)
{
	for (size_t i = 0; i < n; i++)
		if (cat_str_eq_ci(s, v[i]))
			return true;
	return false;
}

static bool filter_hit(const char *const *v, size_t n, const struct offer *o)
{
	const char *sup = supply_type_name(o->supply);

	for (size_t i = 0; i < n; i++)
		if (cat_str_eq_ci(&o->provider, v[i]) || !strcasecmp(sup, v[i]))
			return true;
	return false;
}

bool plan_offer_allowed(const struct plan_opts *opts, const struct offer *o, enum plan_exclusion *why)
{
	if (o->access.len && !in_names(opts->access, opts->naccess, &o->access)) {
		*why = EX_ACCESS;
		return false;
	}
	if ((opts->nexclude && filter_hit(opts->exclude, opts->nexclude, o)) ||
	    (opts->nonly && !filter_hit(opts->only, opts->nonly, o))) {
		*why = EX_USER_FILTER;
		return false;
	}
	return true;
}

static int same_name(const char *item, size_t len, int pos, void *ctx)
{
	const struct cat_str *want = ctx;

	(void)pos;
	return len == want->len && !strncasecmp(item, want->p, len);
}

/* Count o's membership once in r->access_distinct and name it in
 * r->access_names, while the names fit (one that does not fit is not
 * named, and is counted again for each offer that needs it). */
static void note_access(struct plan_result *r, const struct offer *o)
{
	size_t len = strlen(r->access_names);

	if (names_each(r->access_names, same_name, (void *)&o->access))
		return;
	r->access_distinct++;
	if (len + o->access.len + 2 < sizeof(r->access_names))
		snprintf(r->access_names + len, sizeof(r->access_names) - len, "%s%.*s", len ? "," : "",
			 (int)o->access.len, o->access.p);
}

/* ---- checkpoints by the kind of interruption (docs/formulas.md "Plan: checkpoints") ---- */

/* On-demand: the seed's rule (000 §3.3: no more than the loss one tolerates,
 * 15-30 min), the upper end, unless the write would cost more than 5% of it. */
static double regular_interval(double write_s)
{
	double t = 30 * 60;

	return 20 * write_s > t ? 20 * write_s : t;
}

/* The lead time a scheduler's warning signal needs to write a checkpoint:
 * three writes, at least five minutes (assumption, docs/formulas.md "Plan: checkpoints"). */
static double signal_lead(double write_s)
{
	return 3 * write_s > 300 ? 3 * write_s : 300;
}

/* ---- advice (formulas.md "Plan": the five dimensions) ---- */

static void add_check(struct plan_result *r, struct plan_check c)
{
	if (r->nchecklist < PLAN_MAX_CHECKS)
		r->checklist[r->nchecklist++] = c;
}

static void add_change(struct plan_result *r, enum plan_change_code code, double a, double b)
{
	if (r->nchanges < PLAN_MAX_CHANGES)
		r->changes[r->nchanges++] = (struct plan_change){.code = code, .a = a, .b = b};
}

/* What the loop saw that the advice needs when nothing (or little) fits. */
struct plan_seen {
	double min_compute_s;     /* the job's compute on the fastest GPU it was timed on; -1 none */
	double min_mem_needed;    /* the least memory per GPU an excluded offer needed */
	double max_mem_offered;   /* the most usable memory per GPU of any offer with specs */
	int zero3_gpus;           /* GPUs ZeRO-3 needs to fit 80 GB (estimate), 0 n/a */
	double min_deadline_wall; /* the soonest finish of an offer excluded by the deadline */
	double min_budget_total;  /* the cheapest total of an offer excluded by the budget */
	struct plan_choice cheapest;           /* the cheapest feasible (valid when have_cheapest) */
	bool have_cheapest;
	double fastest_wall;                   /* the soonest finish of the feasible */
	double min_od, min_spot;  /* the cheapest on-demand / spot plan that met the constraints */
	const struct offer *min_od_offer, *min_spot_offer;
};

static void advise(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		   struct plan_result *r)
{
	const struct plan_choice *best = r->n ? &r->ranked[0] : NULL;
	double run_s = best ? best->compute_s : seen->min_compute_s;
	double hours = run_s / 3600;
	char cls;

	r->class_run_s = run_s;
	if (w->task == TASK_INFER) {
		r->user_class = 'C';
		r->class_why = PLAN_CLASS_SERVICE;
	} else if (hours > 8) {
		r->user_class = 'B';
		r->class_why = PLAN_CLASS_LONG_RUN;
	} else {
		r->user_class = 'A';
		r->class_why = PLAN_CLASS_OCCASIONAL;
	}
	cls = r->user_class;

	/* a type fits when something of it was feasible and the job's class suits it */
#define FIT(t, yes, code) \
	(r->supply_fits[t] = r->supply[t].feasible > 0 && (yes), r->supply_advice[t] = (code))
	FIT(SUPPLY_AI_CLOUD, true,
	    cls == 'A' ? PLAN_A_AI_CLOUD_SHORT : cls == 'B' ? PLAN_A_AI_CLOUD_LONG : PLAN_A_AI_CLOUD_SERVICE);
	FIT(SUPPLY_MARKETPLACE, w->resumable || cls == 'A',
	    w->resumable ? PLAN_A_MARKET_RESUMABLE : PLAN_A_MARKET_VOLATILE);
	FIT(SUPPLY_CAMPUS_HPC, cls == 'B' && w->resumable,
	    cls == 'B' ? (w->resumable ? PLAN_A_CAMPUS_CHAINED : PLAN_A_CAMPUS_NEEDS_RESUME) :
	    cls == 'A' ? PLAN_A_CAMPUS_QUEUE : PLAN_A_CAMPUS_NO_SERVICE);
	FIT(SUPPLY_SERVERLESS, cls == 'C' || hours < 1,
	    cls == 'C' ? PLAN_A_SERVERLESS_SPIKY : hours < 1 ? PLAN_A_SERVERLESS_SHORT : PLAN_A_SERVERLESS_LONG);
	FIT(SUPPLY_HYPERSCALER, cls != 'A' || w->data_size > 500e9,
	    w->data_size > 500e9 ? PLAN_A_HYPER_LARGE_DATA : cls == 'A' ? PLAN_A_HYPER_SHORT : PLAN_A_HYPER_STEADY);
#undef FIT

	r->billing_advice = cls == 'A' ? PLAN_A_BILL_PER_SECOND :
			    cls == 'B' ? (w->resumable ? PLAN_A_BILL_SPOT : PLAN_A_BILL_ON_DEMAND) :
			    PLAN_A_BILL_SERVICE;

	/* nothing fits: what would have to change */
	if (!best && !r->considered)
		add_change(r, PLAN_CH_NO_OFFERS, 0, 0);
	if (!best) {
		if (r->excluded[EX_MEMORY] + r->excluded[EX_SLICE] && seen->min_mem_needed > 0) {
			add_change(r, PLAN_CH_MEMORY, seen->min_mem_needed, seen->max_mem_offered);
			if (seen->zero3_gpus > 0 && w->task == TASK_TRAIN && w->zero < 3)
				add_change(r, PLAN_CH_ZERO3, seen->zero3_gpus, 0);
		}
		if (r->excluded[EX_DEADLINE] && seen->min_deadline_wall > 0) {
			double dl = opts->deadline_s > 0 ? opts->deadline_s : w->deadline;
			add_change(r, PLAN_CH_DEADLINE, seen->min_deadline_wall, dl);
		}
		if (r->excluded[EX_BUDGET] && seen->min_budget_total > 0)
			add_change(r, PLAN_CH_BUDGET, seen->min_budget_total, opts->budget_usd);
		if (r->excluded[EX_TIME_LIMIT] && !w->resumable)
			add_change(r, PLAN_CH_RESUMABLE, (double)r->excluded[EX_TIME_LIMIT], 0);
		if (r->excluded[EX_ACCESS])
			add_change(r, PLAN_CH_ACCESS, (double)r->excluded[EX_ACCESS], 0);
	}

	if (best) {
		const struct offer *o = best->offer;
		struct plan_check st = {.code = PLAN_C_AUTO_STOP, .seconds = best->wall_s * 1.2};
		if (opts->budget_usd > 0) {
			st.usd = opts->budget_usd;
			st.budget_given = true;
		} else {
			st.multiple = opts->stop_multiple;
			st.usd = best->cost.total * opts->stop_multiple;   /* 0: a free offer, no stop */
		}
		add_check(r, st);
		if (o->max_runtime > 0 && best->mode != PLAN_SPOT && (w->resumable || best->chunks > 1))
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_TIME_LIMIT,
							 .seconds = o->max_runtime - opts->setup_s,
							 .write_s = best->ckpt_write_s,
							 .lead_s = signal_lead(best->ckpt_write_s),
							 .regular_s = regular_interval(best->ckpt_write_s)});
		else if (best->mode == PLAN_SPOT && best->ckpt_interval_s > 0)
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_INTERVAL,
							 .seconds = best->ckpt_interval_s,
							 .write_s = best->ckpt_write_s,
							 .mtbf_s = best->cost.interruptions > 0 ?
								   best->cost.busy_wall_s / best->cost.interruptions : 0});
		else if (cls == 'B' || w->resumable)
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_REGULAR,
							 .seconds = regular_interval(best->ckpt_write_s),
							 .write_s = best->ckpt_write_s});
	}
	if (w->data_size <= 0)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_UNKNOWN});
	else if (w->data_size < 10e9)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_RSYNC, .bytes = w->data_size});
	else if (w->data_size < 1e12)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_OBJECT_STORE, .bytes = w->data_size,
						 .seconds = w->data_size / opts->upload_bw,
						 .bw = opts->upload_bw});
	else
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_MOUNT, .bytes = w->data_size});
	if (r->n > 1) {
		const struct plan_choice *cheap = &r->ranked[0];
		for (size_t i = 1; i < r->n; i++)
			if (hourly(r->ranked[i].offer) < hourly(cheap->offer))
				cheap = &r->ranked[i];
		add_check(r, (struct plan_check){.code = PLAN_C_DEBUG_CHEAPEST, .offer = cheap->offer,
						 .usd = hourly(cheap->offer)});
	}
	add_check(r, (struct plan_check){.code = PLAN_C_RECORD_COSTS});
}

/* The order of magnitude (formulas.md "Order of magnitude"): the seed's
 * 000 §3.5 check that a plan is in range before comparing prices. */
static void magnitude(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		      const struct estimate *e, struct plan_result *r)
{
	struct plan_magnitude *m = &r->magnitude;
	double finish = 0, limit = 0, total = -1, ratio = 0;

	memset(m, 0, sizeof(*m));
	if (seen->have_cheapest) {
		total = seen->cheapest.cost.total;
		if (seen->fastest_wall > PLAN_ABSURD_RUN_S) {
			m->code = PLAN_M_SLOW_ALL;
			finish = seen->fastest_wall;
			limit = PLAN_ABSURD_RUN_S;
		} else if (opts->budget_usd > 0 && total > PLAN_BUDGET_FACTOR * opts->budget_usd) {
			m->code = PLAN_M_OVER_BUDGET;
		} else if (seen->cheapest.wall_s > PLAN_LONG_RUN_S) {
			m->code = PLAN_M_SLOW_CHEAPEST;
			finish = seen->cheapest.wall_s;
			limit = PLAN_LONG_RUN_S;
		}
	} else if (r->excluded[EX_BUDGET] && seen->min_budget_total > PLAN_BUDGET_FACTOR * opts->budget_usd) {
		m->code = PLAN_M_OVER_BUDGET;
		total = seen->min_budget_total;
	} else if (r->excluded[EX_DEADLINE] && seen->min_deadline_wall > PLAN_ABSURD_RUN_S) {
		m->code = PLAN_M_SLOW_ALL;
		finish = seen->min_deadline_wall;
		limit = PLAN_ABSURD_RUN_S;
	} else if (seen->min_compute_s > PLAN_ABSURD_RUN_S) {
		m->code = PLAN_M_SLOW_ALL;   /* timed on the fastest GPU seen, or the reference GPU */
		finish = seen->min_compute_s;
		limit = PLAN_ABSURD_RUN_S;
	}
	if (m->code == PLAN_M_NONE)
		return;
	m->finish_s = finish;
	m->limit_s = limit;
	m->total_usd = total > 0 ? total : 0;
	m->budget_usd = opts->budget_usd;
	m->work = e->work > 0 ? e->work : (w->tokens > 0 ? w->tokens : w->samples);
	m->work_is_samples = e->work_is_samples;
	m->from_samples = !workload_is_set(w, "tokens") && workload_is_set(w, "samples") && !e->work_is_samples;
	m->samples = w->samples;
	m->seq = (double)w->seq;
	m->epochs = w->epochs;
	/* compute scales with the work; set-up and upload do not, so this is
	 * a bound from above on what fits */
	if (m->code == PLAN_M_OVER_BUDGET)
		ratio = total > 0 ? opts->budget_usd / total : 0;
	else
		ratio = finish > 0 ? limit / finish : 0;
	m->work_in_range = m->work * ratio;
}

/* ---- the plan ---- */

int plan_run(const struct workload *w, const struct model_spec *arch,
	     const struct offer_set *set, const struct plan_opts *opts,
	     struct plan_result *r, char *err, size_t errlen)
{
	struct est_cache *cache = NULL;
	size_t ncache = 0, capcache = 0, kept = 0;
	double deadline = opts->deadline_s > 0 ? opts->deadline_s : w->deadline;
	const struct sky_doc *task = opts->task;
	bool spot_only = task && task->ncand;   /* every candidate says use_spot: true */
	double nodes = w->nodes > 1 ? (double)w->nodes : 1;
	struct plan_seen seen = {.min_compute_s = -1, .min_od = INFINITY, .min_spot = INFINITY};
	struct plan_choice *all;
	int *cand;   /* the task candidate each kept choice matched */

	for (size_t i = 0; task && i < task->ncand; i++)
		spot_only = spot_only && task->cand[i].use_spot == 1;
	memset(r, 0, sizeof(*r));
	all = calloc(set->n ? set->n : 1, sizeof(*all));
	cand = calloc(set->n ? set->n : 1, sizeof(*cand));
	if (!all || !cand) {
		free(all);
		free(cand);
		snprintf(err, errlen, _("out of memory"));
		return -1;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct offer *o = &set->v[i];
		const struct estimate *e;
		struct plan_choice c;
		struct plan_usage u;
		struct plan_cost od = {.total = INFINITY}, sc = {.total = INFINITY};
		enum plan_mode od_mode = PLAN_ON_DEMAND;
		double G, usable, need, ckpt_bytes, chunks = 1, od_wall, spot_wall = INFINITY;
		bool spot_ok, offer_spot_only;
		enum plan_exclusion why;
		int match;

		r->considered++;
		if (!plan_offer_allowed(opts, o, &why)) {
			if (why == EX_ACCESS) {
				exclude(r, EX_ACCESS, o, PLAN_D_ACCESS, 0, 0);
				note_access(r, o);
				if ((unsigned)o->supply < SUPPLY_COUNT)
					r->supply[o->supply].need_access++;
			} else {
				exclude(r, EX_USER_FILTER, o, PLAN_D_USER_FILTER, 0, 0);
			}
			continue;
		}
		if (o->suspect != OFFER_PRICE_OK) {
			exclude(r, EX_SUSPECT_PRICE, o, PLAN_D_SUSPECT, o->spot_price, o->price);
			continue;
		}
		if (!o->gpu) {
			exclude(r, EX_UNKNOWN_GPU, o, PLAN_D_NO_SPECS, 0, 0);
			continue;
		}
		/* use_spot: true is checked below, after the on-demand price is
		 * known: a cheaper on-demand plan it excludes is worth saying */
		match = task_match(task, o);
		offer_spot_only = task_spot(task, match) == 1;
		if (match < 0 || (w->gpu[0] && !gpu_is(o->gpu, w->gpu))) {
			exclude(r, EX_CONSTRAINT, o, PLAN_D_OTHER_KIND, o->gpus, 0);
			continue;
		}
		if (workload_is_set(w, "gpus") && fabs((double)w->gpus - o->gpus * nodes) > 1e-9) {
			exclude(r, EX_GPU_COUNT, o, PLAN_D_GPU_COUNT, o->gpus * nodes, (double)w->gpus);
			continue;
		}
		/* a job over nodes: nodes of this instance, GPUs over them all */
		G = (o->gpus < 1 ? 1 : o->gpus) * nodes;
		e = estimate_for(&cache, &ncache, &capcache, w, arch, o->gpu, G);
		if (!e) {
			snprintf(err, errlen, _("estimate failed for %s"), o->gpu->name);
			goto out_fail;
		}
		usable = o->gpu_mem * (1 - w->headroom);
		if (usable > seen.max_mem_offered)
			seen.max_mem_offered = usable;
		if (e->have_time && (seen.min_compute_s < 0 || e->wall_seconds < seen.min_compute_s))
			seen.min_compute_s = e->wall_seconds;
		/* a probe's measured peak on cards at least the probed one's size */
		need = opts->probe_mem_per_gpu > 0 && o->gpu_mem >= opts->probe_card_mem ?
		       opts->probe_mem_per_gpu : e->mem.total;
		if (need > usable) {
			if (seen.min_mem_needed <= 0 || need < seen.min_mem_needed)
				seen.min_mem_needed = need;
			if (e->zero3_gpus_for_80 > 0)
				seen.zero3_gpus = e->zero3_gpus_for_80;
			exclude(r, o->is_slice ? EX_SLICE : EX_MEMORY, o, PLAN_D_MEMORY, need, o->gpu_mem);
			continue;
		}
		if (!e->have_time) {
			exclude(r, EX_NO_THROUGHPUT, o, PLAN_D_NO_TFLOPS, 0, 0);
			continue;
		}
		if (G > 1 && e->comm_bound) {
			exclude(r, EX_COMM_BOUND, o, PLAN_D_COMM, e->comm_ratio, 0);
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.offer = o;
		c.gpus = G;
		c.nodes = nodes;
		c.mem_total = need;
		c.mem_used = need / o->gpu_mem;
		c.compute_s = e->wall_seconds;
		c.comm_bound = e->comm_bound;
		c.comm_ratio = e->comm_ratio;
		c.comm_share = e->comm_share;

		/* checkpoint size: what a resume needs, per GPU (shards write in parallel) */
		ckpt_bytes = w->task == TASK_TRAIN ? e->mem.weights + e->mem.optimizer : e->mem.adapters;
		c.ckpt_write_s = ckpt_bytes / opts->ckpt_write_bw;
		if (o->max_runtime > 0 && c.compute_s > o->max_runtime - opts->setup_s) {
			double per = o->max_runtime - opts->setup_s;
			if (!w->resumable || per <= 0) {
				exclude(r, EX_TIME_LIMIT, o, PLAN_D_TIME_LIMIT, c.compute_s, o->max_runtime);
				continue;
			}
			/* a job limit is a known end, not a random failure: a
			 * checkpoint before each limit (at the scheduler's signal),
			 * the on-demand rule within each job */
			chunks = ceil(c.compute_s / per);
			c.ckpt_interval_s = regular_interval(c.ckpt_write_s);
		}
		c.chunks = chunks;
		memset(&u, 0, sizeof(u));
		u.busy_s = c.compute_s;
		u.idle_s = opts->setup_s * chunks + w->data_size / opts->upload_bw;
		u.sessions = chunks;
		u.data_bytes = w->data_size;
		u.egress_bytes = w->egress;
		u.ckpt_write_s = w->resumable ? c.ckpt_write_s : 0;
		u.restart_s = opts->restart_s;
		u.nodes = nodes;
		/* the best plan that is not spot: on-demand or a package */
		if (o->spot_only || opts->pricer.price(opts->pricer.ctx, o, PLAN_ON_DEMAND, &u, &od) ||
		    !isfinite(od.total))
			od.total = INFINITY;
		c.on_demand_total = od.total;
		for (int m = PLAN_DAILY; m <= PLAN_MONTHLY && !o->spot_only; m++) {
			struct plan_cost pc;
			if (!opts->pricer.price(opts->pricer.ctx, o, (enum plan_mode)m, &u, &pc) && isfinite(pc.total) &&
			    pc.total < od.total) {
				od = pc;
				od_mode = (enum plan_mode)m;
			}
		}
		od_wall = o->queue_wait * chunks + u.idle_s + c.compute_s;

		/* spot: the pricer's expected time and cost with interruptions
		 * (Daly 2006); without checkpoints an interruption restarts the job */
		spot_ok = o->spot_price > 0 && task_spot(task, match) != 0 && w->task != TASK_INFER;
		if (spot_ok) {
			c.naive_spot = o->spot_price * nodes * c.compute_s / 3600;
			if (opts->pricer.price(opts->pricer.ctx, o, PLAN_SPOT, &u, &sc) || !isfinite(sc.total))
				sc.total = INFINITY;
			else
				spot_wall = o->queue_wait * chunks + u.idle_s + sc.busy_wall_s;
		}
		/* what each mode alone would have met: the spot-vs-on-demand note */
#define MEETS(total, wall) (isfinite(total) && !(deadline > 0 && (wall) > deadline) && \
			    !(opts->budget_usd > 0 && (total) > opts->budget_usd) && \
			    !(opts->max_price_usd > 0 && hourly(o) > opts->max_price_usd))
		if (MEETS(od.total, od_wall) && od.total < seen.min_od) {
			seen.min_od = od.total;
			seen.min_od_offer = o;
		}
		if (MEETS(sc.total, spot_wall) && sc.total < seen.min_spot) {
			seen.min_spot = sc.total;
			seen.min_spot_offer = o;
		}
#undef MEETS
		c.mode = od_mode;
		c.cost = od;
		c.wall_s = od_wall;
		if (offer_spot_only) {
			c.cost.total = INFINITY;
			c.wall_s = INFINITY;
		}
		if (isfinite(sc.total) &&
		    (offer_spot_only || (opts->by == PLAN_BY_COST ? sc.total < c.cost.total : !isfinite(c.cost.total)))) {
			c.cost = sc;
			c.mode = PLAN_SPOT;
			c.wall_s = spot_wall;
			c.ckpt_interval_s = sc.interval_s;
		}
		if (!isfinite(c.cost.total)) {
			if (offer_spot_only && o->spot_price <= 0)
				exclude(r, EX_CONSTRAINT, o, PLAN_D_OTHER_KIND, o->gpus, 0);
			else
				exclude(r, EX_CONSTRAINT, o, PLAN_D_NO_MODE, 0, 0);
			continue;
		}
		if (deadline > 0 && c.wall_s > deadline) {
			if (seen.min_deadline_wall <= 0 || c.wall_s < seen.min_deadline_wall)
				seen.min_deadline_wall = c.wall_s;
			exclude(r, EX_DEADLINE, o, PLAN_D_DEADLINE, c.wall_s, deadline);
			continue;
		}
		if (opts->budget_usd > 0 && c.cost.total > opts->budget_usd) {
			if (seen.min_budget_total <= 0 || c.cost.total < seen.min_budget_total)
				seen.min_budget_total = c.cost.total;
			exclude(r, EX_BUDGET, o, PLAN_D_BUDGET, c.cost.total, opts->budget_usd);
			continue;
		}
		if (opts->max_price_usd > 0 && hourly(o) > opts->max_price_usd) {
			exclude(r, EX_MAX_PRICE, o, PLAN_D_MAX_PRICE, hourly(o), opts->max_price_usd);
			continue;
		}
		c.queue_s = o->queue_wait * chunks;
		c.why = c.mode == PLAN_SPOT ? PLAN_WHY_SPOT : o->queue_wait > 0 ? PLAN_WHY_QUEUE : PLAN_WHY_FITS;
		cand[kept] = match;
		all[kept++] = c;
	}
	/* resources.ordered (or accelerators as a list): SkyPilot fails over
	 * in the order written, so only the first candidate with a feasible
	 * offer is ranked */
	if (task && task->pref == SKY_PREF_ORDERED && kept) {
		int best = cand[0];
		size_t k = 0;
		for (size_t i = 1; i < kept; i++)
			if (cand[i] < best)
				best = cand[i];
		for (size_t i = 0; i < kept; i++) {
			if (cand[i] == best)
				all[k++] = all[i];
			else
				exclude(r, EX_ORDERED, all[i].offer, PLAN_D_ORDERED, cand[i] + 1, best + 1);
		}
		kept = k;
	}
	for (size_t i = 0; i < kept; i++) {
		const struct offer *o = all[i].offer;
		if ((unsigned)o->supply < SUPPLY_COUNT) {
			struct plan_supply *sp = &r->supply[o->supply];
			if (!sp->feasible || all[i].cost.total < sp->best_total) {
				sp->best_total = all[i].cost.total;
				sp->best_finish_s = all[i].wall_s;
			}
			sp->feasible++;
		}
		r->feasible++;
	}
	free(cand);
	cand = NULL;

	/* the cost-finish front: sorted by cost, a choice is on it when it
	 * finishes sooner than every cheaper one */
	qsort(all, kept, sizeof(*all), cmp_cost);
	{
		double best_wall = INFINITY;
		for (size_t i = 0; i < kept; i++)
			if (all[i].wall_s < best_wall) {
				best_wall = all[i].wall_s;
				all[i].pareto = true;
				r->pareto++;
			}
	}
	if (kept) {
		/* the fastest within the margin of the cheapest total */
		size_t f = 0;
		double cap = all[0].cost.total * (1 + opts->fast_margin);
		seen.cheapest = all[0];   /* sorted by cost */
		seen.have_cheapest = true;
		seen.fastest_wall = all[0].wall_s;
		for (size_t i = 1; i < kept; i++) {
			if (all[i].wall_s < seen.fastest_wall)
				seen.fastest_wall = all[i].wall_s;
			if (all[i].cost.total <= cap && all[i].wall_s < all[f].wall_s)
				f = i;
		}
		if (f) {
			all[f].fastest_within = true;
			r->fastest = all[f];
			r->have_fastest = true;
		}
	}
	if (opts->by == PLAN_BY_TIME)
		qsort(all, kept, sizeof(*all), cmp_time);
	/* the same instance in many regions is one choice */
	r->ranked = calloc((size_t)(opts->top > 0 ? opts->top : 1), sizeof(*r->ranked));
	if (!r->ranked) {
		snprintf(err, errlen, _("out of memory"));
		goto out_fail;
	}
	for (size_t i = 0; i < kept && r->n < (size_t)opts->top; i++) {
		bool dup = false;
		for (size_t k = 0; k < r->n && !dup; k++)
			dup = same_offer(&r->ranked[k], &all[i]);
		if (!dup)
			r->ranked[r->n++] = all[i];
	}
	/* spot against on-demand */
	if (spot_only && seen.min_od_offer && seen.min_od < seen.min_spot)
		r->spot_note = (struct plan_spot_note){.code = PLAN_SPOT_ONLY_EXCLUDED, .spot = seen.min_spot_offer,
						       .on_demand = seen.min_od_offer,
						       .spot_total = seen.min_spot, .on_demand_total = seen.min_od};
	else if (!spot_only && seen.min_spot_offer && seen.min_od_offer && seen.min_spot > seen.min_od)
		r->spot_note = (struct plan_spot_note){.code = PLAN_SPOT_DEARER, .spot = seen.min_spot_offer,
						       .on_demand = seen.min_od_offer,
						       .spot_total = seen.min_spot, .on_demand_total = seen.min_od};
	if (r->n) {
		const struct estimate *e = estimate_for(&cache, &ncache, &capcache, w, arch,
							r->ranked[0].offer->gpu, r->ranked[0].gpus);
		if (e)
			r->single = *e;
	} else if (seen.min_compute_s < 0 && opts->reference_gpu) {
		const struct estimate *e = estimate_for(&cache, &ncache, &capcache, w, arch, opts->reference_gpu,
							w->gpus > 1 ? (double)w->gpus : 1);
		if (e && e->have_time)
			seen.min_compute_s = e->wall_seconds;
	}
	magnitude(w, opts, &seen, &r->single, r);
	advise(w, opts, &seen, r);
	free(all);
	free(cache);
	return 0;
out_fail:
	free(all);
	free(cand);
	free(cache);
	free(r->ranked);
	r->ranked = NULL;
	return -1;
}

void plan_result_free(struct plan_result *r)
{
	free(r->ranked);
	r->ranked = NULL;
	r->n = 0;
}
