/*
 * plan.c - pricing a workload on every offer (plan.h): each offer screened
 * (access, filters, GPU, constraints, memory, throughput), priced under each
 * billing mode, held to the deadline, budget and price cap; the feasible go
 * to plan_rank.c, the advice is plan_advice.c's.
 * Formulas: docs/formulas.md "Plan" and docs/billing.md.
 */
#include "core/plan/plan_int.h"

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

void plan_exclude(struct plan_result *r, enum plan_exclusion e, const struct offer *o,
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

/* ---- the plan ---- */

/* One plan_run(): its inputs, what the offers showed, the estimates. */
struct run {
	const struct workload *w;
	const struct model_spec *arch;
	const struct plan_opts *opts;
	struct plan_result *r;
	struct plan_seen seen;
	struct est_cache *cache;
	size_t ncache, capcache;
	double deadline;          /* seconds, 0 = none: --deadline, else the workload's */
	double nodes;             /* instances rented together */
};

static const struct estimate *run_estimate(struct run *x, const struct gpu_spec *gpu, double gpus)
{
	return estimate_for(&x->cache, &x->ncache, &x->capcache, x->w, x->arch, gpu, gpus);
}

/* What an offer is priced under each mode: the best that is not spot, and spot. */
struct priced {
	struct plan_cost od, sc;   /* total INFINITY: no such plan */
	enum plan_mode od_mode;
	double od_wall, spot_wall;
};

/*
 * Whether offer o can run the job at all: who may rent it, its price
 * columns, its GPU, the task's and the workload's constraints, memory,
 * throughput, communication. 0 (c holds the fit, *match the task's
 * candidate, *ep the estimate), 1 excluded (counted), or -1 with a
 * message in err when the estimate failed.
 */
static int screen(struct run *x, const struct offer *o, struct plan_choice *c, int *match,
		  const struct estimate **ep, char *err, size_t errlen)
{
	const struct workload *w = x->w;
	const struct plan_opts *opts = x->opts;
	struct plan_result *r = x->r;
	struct plan_seen *seen = &x->seen;
	const struct estimate *e;
	double G, usable, need, share, nodes = x->nodes;
	enum plan_exclusion why;

	r->considered++;
	if (!plan_offer_allowed(opts, o, &why)) {
		if (why == EX_ACCESS) {
			plan_exclude(r, EX_ACCESS, o, PLAN_D_ACCESS, 0, 0);
			note_access(r, o);
			if ((unsigned)o->supply < SUPPLY_COUNT)
				r->supply[o->supply].need_access++;
		} else {
			plan_exclude(r, EX_USER_FILTER, o, PLAN_D_USER_FILTER, 0, 0);
		}
		return 1;
	}
	if (o->suspect != OFFER_PRICE_OK) {
		plan_exclude(r, EX_SUSPECT_PRICE, o, PLAN_D_SUSPECT, o->spot_price, o->price);
		return 1;
	}
	if (!o->gpu) {
		plan_exclude(r, EX_UNKNOWN_GPU, o, PLAN_D_NO_SPECS, 0, 0);
		return 1;
	}
	/* use_spot: true is checked below, after the on-demand price is
	 * known: a cheaper on-demand plan it excludes is worth saying */
	*match = task_match(opts->task, o);
	if (*match < 0 || (w->gpu[0] && !gpu_is(o->gpu, w->gpu))) {
		plan_exclude(r, EX_CONSTRAINT, o, PLAN_D_OTHER_KIND, o->gpus, 0);
		return 1;
	}
	if (workload_is_set(w, "gpus") && fabs((double)w->gpus - o->gpus * nodes) > 1e-9) {
		plan_exclude(r, EX_GPU_COUNT, o, PLAN_D_GPU_COUNT, o->gpus * nodes, (double)w->gpus);
		return 1;
	}
	/* a job over nodes: nodes of this instance, GPUs over them all */
	G = (o->gpus < 1 ? 1 : o->gpus) * nodes;
	*ep = e = run_estimate(x, o->gpu, G);
	if (!e) {
		snprintf(err, errlen, _("estimate failed for %s"), o->gpu->name);
		return -1;
	}
	usable = o->gpu_mem * (1 - w->headroom);
	if (usable > seen->max_mem_offered)
		seen->max_mem_offered = usable;
	/* a slice (a SkyPilot row with AcceleratorCount below 1) computes at
	 * its share of the card: the whole card's time over the share
	 * (docs/offers.md "Slices") */
	share = o->gpus > 0 && o->gpus < 1 ? o->gpus : 1;
	if (e->have_time && (seen->min_compute_s < 0 || e->wall_seconds / share < seen->min_compute_s))
		seen->min_compute_s = e->wall_seconds / share;
	/* a probe's measured peak on cards at least the probed one's size */
	need = opts->probe_mem_per_gpu > 0 && o->gpu_mem >= opts->probe_card_mem ?
	       opts->probe_mem_per_gpu : e->mem.total;
	if (need > usable) {
		if (seen->min_mem_needed <= 0 || need < seen->min_mem_needed)
			seen->min_mem_needed = need;
		if (e->zero3_gpus_for_80 > 0)
			seen->zero3_gpus = e->zero3_gpus_for_80;
		plan_exclude(r, o->is_slice ? EX_SLICE : EX_MEMORY, o, PLAN_D_MEMORY, need, o->gpu_mem);
		return 1;
	}
	if (!e->have_time) {
		plan_exclude(r, EX_NO_THROUGHPUT, o, PLAN_D_NO_TFLOPS, 0, 0);
		return 1;
	}
	if (G > 1 && e->comm_bound) {
		plan_exclude(r, EX_COMM_BOUND, o, PLAN_D_COMM, e->comm_ratio, 0);
		return 1;
	}
	memset(c, 0, sizeof(*c));
	c->offer = o;
	c->gpus = G;
	c->nodes = nodes;
	c->mem_total = need;
	c->mem_used = need / o->gpu_mem;
	c->compute_s = e->wall_seconds / share;
	c->comm_bound = e->comm_bound;
	c->comm_ratio = e->comm_ratio;
	c->comm_share = e->comm_share;
	return 0;
}

/*
 * Offer o's usage (set-up, upload, chained jobs across a time limit,
 * checkpoints) priced under each billing mode into p; the cheapest of
 * each mode that alone meets the constraints noted in the run. 0, or 1
 * excluded by a time limit the job cannot be chained across.
 */
static int price_modes(struct run *x, const struct offer *o, const struct estimate *e, int match,
		       struct plan_choice *c, struct priced *p)
{
	const struct workload *w = x->w;
	const struct plan_opts *opts = x->opts;
	struct plan_seen *seen = &x->seen;
	double deadline = x->deadline, nodes = x->nodes;
	double ckpt_bytes, chunks = 1;
	struct plan_usage u;
	bool spot_ok;

	p->od = (struct plan_cost){.total = INFINITY};
	p->sc = (struct plan_cost){.total = INFINITY};
	p->od_mode = PLAN_ON_DEMAND;
	p->spot_wall = INFINITY;
	/* checkpoint size: what a resume needs, per GPU (shards write in parallel) */
	ckpt_bytes = w->task == TASK_TRAIN ? e->mem.weights + e->mem.optimizer : e->mem.adapters;
	c->ckpt_write_s = ckpt_bytes / opts->ckpt_write_bw;
	if (o->max_runtime > 0 && c->compute_s > o->max_runtime - opts->setup_s) {
		double per = o->max_runtime - opts->setup_s;
		if (!w->resumable || per <= 0) {
			plan_exclude(x->r, EX_TIME_LIMIT, o, PLAN_D_TIME_LIMIT, c->compute_s, o->max_runtime);
			return 1;
		}
		/* a job limit is a known end, not a random failure: a
		 * checkpoint before each limit (at the scheduler's signal),
		 * the on-demand rule within each job */
		chunks = ceil(c->compute_s / per);
		c->ckpt_interval_s = plan_regular_interval(c->ckpt_write_s);
	}
	c->chunks = chunks;
	memset(&u, 0, sizeof(u));
	u.busy_s = c->compute_s;
	u.idle_s = opts->setup_s * chunks + w->data_size / opts->upload_bw;
	u.sessions = chunks;
	u.data_bytes = w->data_size;
	u.egress_bytes = w->egress;
	u.ckpt_write_s = w->resumable ? c->ckpt_write_s : 0;
	u.restart_s = opts->restart_s;
	u.nodes = nodes;
	/* the best plan that is not spot: on-demand or a package */
	if (o->spot_only || opts->pricer.price(opts->pricer.ctx, o, PLAN_ON_DEMAND, &u, &p->od) ||
	    !isfinite(p->od.total))
		p->od.total = INFINITY;
	c->on_demand_total = p->od.total;
	for (int m = PLAN_DAILY; m <= PLAN_MONTHLY && !o->spot_only; m++) {
		struct plan_cost pc;
		if (!opts->pricer.price(opts->pricer.ctx, o, (enum plan_mode)m, &u, &pc) && isfinite(pc.total) &&
		    pc.total < p->od.total) {
			p->od = pc;
			p->od_mode = (enum plan_mode)m;
		}
	}
	p->od_wall = o->queue_wait * chunks + u.idle_s + c->compute_s;

	/* spot: the pricer's expected time and cost with interruptions
	 * (Daly 2006); without checkpoints an interruption restarts the job */
	spot_ok = o->spot_price > 0 && task_spot(opts->task, match) != 0 && w->task != TASK_INFER;
	if (spot_ok) {
		c->naive_spot = o->spot_price * nodes * c->compute_s / 3600;
		if (opts->pricer.price(opts->pricer.ctx, o, PLAN_SPOT, &u, &p->sc) || !isfinite(p->sc.total))
			p->sc.total = INFINITY;
		else
			p->spot_wall = o->queue_wait * chunks + u.idle_s + p->sc.busy_wall_s;
	}
	/* what each mode alone would have met: the spot-vs-on-demand note */
#define MEETS(total, wall) (isfinite(total) && !(deadline > 0 && (wall) > deadline) && \
		    !(opts->budget_usd > 0 && (total) > opts->budget_usd) && \
		    !(opts->max_price_usd > 0 && plan_hourly(o) > opts->max_price_usd))
	if (MEETS(p->od.total, p->od_wall) && p->od.total < seen->min_od) {
		seen->min_od = p->od.total;
		seen->min_od_offer = o;
	}
	if (MEETS(p->sc.total, p->spot_wall) && p->sc.total < seen->min_spot) {
		seen->min_spot = p->sc.total;
		seen->min_spot_offer = o;
	}
#undef MEETS
	return 0;
}

/* The mode the ranking wants (cost or time; use_spot: true takes spot),
 * then the deadline, the budget and the price cap. 0 kept, 1 excluded. */
static int choose(struct run *x, const struct offer *o, int match, struct plan_choice *c, const struct priced *p)
{
	const struct plan_opts *opts = x->opts;
	struct plan_result *r = x->r;
	struct plan_seen *seen = &x->seen;
	double deadline = x->deadline;
	bool offer_spot_only = task_spot(opts->task, match) == 1;

	c->mode = p->od_mode;
	c->cost = p->od;
	c->wall_s = p->od_wall;
	if (offer_spot_only) {
		c->cost.total = INFINITY;
		c->wall_s = INFINITY;
	}
	if (isfinite(p->sc.total) &&
	    (offer_spot_only || (opts->by == PLAN_BY_COST ? p->sc.total < c->cost.total : !isfinite(c->cost.total)))) {
		c->cost = p->sc;
		c->mode = PLAN_SPOT;
		c->wall_s = p->spot_wall;
		c->ckpt_interval_s = p->sc.interval_s;
	}
	if (!isfinite(c->cost.total)) {
		if (offer_spot_only && o->spot_price <= 0)
			plan_exclude(r, EX_CONSTRAINT, o, PLAN_D_OTHER_KIND, o->gpus, 0);
		else
			plan_exclude(r, EX_CONSTRAINT, o, PLAN_D_NO_MODE, 0, 0);
		return 1;
	}
	if (deadline > 0 && c->wall_s > deadline) {
		if (seen->min_deadline_wall <= 0 || c->wall_s < seen->min_deadline_wall)
			seen->min_deadline_wall = c->wall_s;
		plan_exclude(r, EX_DEADLINE, o, PLAN_D_DEADLINE, c->wall_s, deadline);
		return 1;
	}
	if (opts->budget_usd > 0 && c->cost.total > opts->budget_usd) {
		if (seen->min_budget_total <= 0 || c->cost.total < seen->min_budget_total)
			seen->min_budget_total = c->cost.total;
		plan_exclude(r, EX_BUDGET, o, PLAN_D_BUDGET, c->cost.total, opts->budget_usd);
		return 1;
	}
	if (opts->max_price_usd > 0 && plan_hourly(o) > opts->max_price_usd) {
		plan_exclude(r, EX_MAX_PRICE, o, PLAN_D_MAX_PRICE, plan_hourly(o), opts->max_price_usd);
		return 1;
	}
	c->queue_s = o->queue_wait * c->chunks;
	c->why = c->mode == PLAN_SPOT ? PLAN_WHY_SPOT : o->queue_wait > 0 ? PLAN_WHY_QUEUE : PLAN_WHY_FITS;
	return 0;
}

int plan_run(const struct workload *w, const struct model_spec *arch,
	     const struct offer_set *set, const struct plan_opts *opts,
	     struct plan_result *r, char *err, size_t errlen)
{
	struct run x = {.w = w, .arch = arch, .opts = opts, .r = r,
			.seen = {.min_compute_s = -1, .min_od = INFINITY, .min_spot = INFINITY},
			.deadline = opts->deadline_s > 0 ? opts->deadline_s : w->deadline,
			.nodes = w->nodes > 1 ? (double)w->nodes : 1};
	const struct sky_doc *task = opts->task;
	bool spot_only = task && task->ncand;   /* every candidate says use_spot: true */
	size_t kept = 0;
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
		struct priced p;
		int match, rc = screen(&x, o, &c, &match, &e, err, errlen);

		if (rc < 0)
			goto out_fail;
		if (rc || price_modes(&x, o, e, match, &c, &p) || choose(&x, o, match, &c, &p))
			continue;
		cand[kept] = match;
		all[kept++] = c;
	}
	if (plan_rank(opts, spot_only, all, cand, &kept, &x.seen, r)) {
		snprintf(err, errlen, _("out of memory"));
		goto out_fail;
	}
	free(cand);
	cand = NULL;
	if (r->n) {
		const struct estimate *e = run_estimate(&x, r->ranked[0].offer->gpu, r->ranked[0].gpus);
		if (e)
			r->single = *e;
	} else if (x.seen.min_compute_s < 0 && opts->reference_gpu) {
		const struct estimate *e = run_estimate(&x, opts->reference_gpu, w->gpus > 1 ? (double)w->gpus : 1);
		if (e && e->have_time)
			x.seen.min_compute_s = e->wall_seconds;
	}
	plan_magnitude(w, opts, &x.seen, &r->single, r);
	plan_advise(w, opts, &x.seen, r);
	free(all);
	free(x.cache);
	return 0;
out_fail:
	free(all);
	free(cand);
	free(x.cache);
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
