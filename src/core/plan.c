/*
 * plan.c - pricing a workload on every offer and ranking them (plan.h).
 * Formulas: docs/formulas.md "Plan" and docs/billing.md.
 */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"
#include "spot.h"
#include "units.h"

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
	};
	return NAME_OF(t, EX_NREASONS, e);
}

const char *plan_detail_name(enum plan_detail d)
{
	static const char *const t[PLAN_D_COUNT] = {
		"no_specs", "other_kind_or_place", "gpu_count", "memory", "no_tflops", "comm_ratio",
		"time_limit", "no_billing_mode", "deadline", "budget", "max_price",
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
	};
	return NAME_OF(t, PLAN_C_COUNT, c);
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

static bool contains_ci(const struct cat_str *s, const char *want)
{
	size_t n = strlen(want);

	if (!n)
		return true;
	for (size_t i = 0; i + n <= s->len; i++)
		if (!strncasecmp(s->p + i, want, n))
			return true;
	return false;
}

static bool sky_ok(const struct sky_resources *k, const struct offer *o)
{
	if (!k->given)
		return true;
	if (k->naccel) {
		bool any = false;
		for (int i = 0; i < k->naccel && !any; i++)
			any = gpu_is(o->gpu, k->accel[i]) &&
			      (k->accel_count[i] <= 0 || fabs(k->accel_count[i] - o->gpus) < 1e-9);
		if (!any)
			return false;
	}
	if (k->use_spot == 1 && o->spot_price <= 0)
		return false;
	/* a catalog that does not state the host (0) is not held against it */
	if (k->cpus > 0 && o->vcpus > 0 && (k->cpus_exact ? o->vcpus != k->cpus : o->vcpus < k->cpus))
		return false;
	if (k->memory_gib > 0 && o->ram_gib > 0 &&
	    (k->memory_exact ? o->ram_gib != k->memory_gib : o->ram_gib < k->memory_gib))
		return false;
	if (k->disk_gb > 0 && o->disk_gb > 0 && o->disk_gb < k->disk_gb)
		return false;
	if (k->cloud[0] && !contains_ci(&o->provider, k->cloud))
		return false;
	if (k->infra[0]) {
		char cloud[64];
		const char *slash = strchr(k->infra, '/');
		snprintf(cloud, sizeof(cloud), "%.*s", (int)(slash ? (size_t)(slash - k->infra) : strlen(k->infra)),
			 k->infra);
		if (strcmp(cloud, "*") && !contains_ci(&o->provider, cloud))
			return false;
		if (slash && slash[1] && strcmp(slash + 1, "*") && !contains_ci(&o->region, slash + 1))
			return false;
	}
	if (k->region[0] && !contains_ci(&o->region, k->region))
		return false;
	return true;
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
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct est_cache *nc = realloc(*cache, ncap * sizeof(*nc));
		if (!nc)
			return NULL;
		*cache = nc;
		*cap = ncap;
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

/* ---- advice (formulas.md "Plan": the five dimensions) ---- */

static void add_check(struct plan_result *r, struct plan_check c)
{
	if (r->nchecklist < PLAN_MAX_CHECKS)
		r->checklist[r->nchecklist++] = c;
}

static void advise(const struct workload *w, const struct plan_opts *opts, struct plan_result *r)
{
	const struct plan_choice *best = r->n ? &r->ranked[0] : NULL;
	double hours = best ? best->compute_s / 3600 : 0;
	char cls;

	r->class_run_s = best ? best->compute_s : -1;
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

#define FIT(t, yes, code) (r->supply_fits[t] = (yes), r->supply_advice[t] = (code))
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

	if (best) {
		add_check(r, (struct plan_check){.code = PLAN_C_AUTO_STOP, .seconds = best->wall_s * 1.2,
						 .usd = best->cost.total * 1.2});
		if (best->ckpt_interval_s > 0)
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_INTERVAL,
							 .seconds = best->ckpt_interval_s,
							 .write_s = best->ckpt_write_s});
		else if (cls == 'B')
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_REGULAR});
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
			if (r->ranked[i].offer->price < cheap->offer->price)
				cheap = &r->ranked[i];
		add_check(r, (struct plan_check){.code = PLAN_C_DEBUG_CHEAPEST, .offer = cheap->offer,
						 .usd = cheap->offer->price});
	}
	add_check(r, (struct plan_check){.code = PLAN_C_RECORD_COSTS});
}

/* ---- the plan ---- */

int plan_run(const struct workload *w, const struct model_spec *arch,
	     const struct offer_set *set, const struct plan_opts *opts,
	     struct plan_result *r, char *err, size_t errlen)
{
	struct est_cache *cache = NULL;
	size_t ncache = 0, capcache = 0, kept = 0;
	double deadline = opts->deadline_s > 0 ? opts->deadline_s : w->deadline;
	struct plan_choice *all;

	memset(r, 0, sizeof(*r));
	all = calloc(set->n ? set->n : 1, sizeof(*all));
	if (!all) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct offer *o = &set->v[i];
		const struct estimate *e;
		struct plan_choice c;
		struct plan_usage u;
		double G, usable, ckpt_bytes, chunks = 1;
		bool spot_ok;

		r->considered++;
		if (!o->gpu) {
			exclude(r, EX_UNKNOWN_GPU, o, PLAN_D_NO_SPECS, 0, 0);
			continue;
		}
		if (!sky_ok(&w->sky, o) || (w->gpu[0] && !gpu_is(o->gpu, w->gpu))) {
			exclude(r, EX_CONSTRAINT, o, PLAN_D_OTHER_KIND, o->gpus, 0);
			continue;
		}
		if (workload_is_set(w, "gpus") && fabs((double)w->gpus - o->gpus) > 1e-9) {
			exclude(r, EX_GPU_COUNT, o, PLAN_D_GPU_COUNT, o->gpus, (double)w->gpus);
			continue;
		}
		G = o->gpus < 1 ? 1 : o->gpus;
		e = estimate_for(&cache, &ncache, &capcache, w, arch, o->gpu, G);
		if (!e) {
			snprintf(err, errlen, "estimate failed for %s", o->gpu->name);
			goto out_fail;
		}
		usable = o->gpu_mem * (1 - w->headroom);
		if (e->mem.total > usable) {
			exclude(r, o->is_slice ? EX_SLICE : EX_MEMORY, o, PLAN_D_MEMORY, e->mem.total,
				o->gpu_mem);
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
		c.mem_total = e->mem.total;
		c.mem_used = e->mem.total / o->gpu_mem;
		c.compute_s = e->wall_seconds;
		c.comm_bound = e->comm_bound;
		c.comm_ratio = e->comm_ratio;

		/* checkpoint size: what a resume needs, per GPU (shards write in parallel) */
		ckpt_bytes = w->task == TASK_TRAIN ? e->mem.weights + e->mem.optimizer : e->mem.adapters;
		if (o->max_runtime > 0 && c.compute_s > o->max_runtime - opts->setup_s) {
			double per = o->max_runtime - opts->setup_s;
			if (!w->resumable || per <= 0) {
				exclude(r, EX_TIME_LIMIT, o, PLAN_D_TIME_LIMIT, c.compute_s, o->max_runtime);
				continue;
			}
			chunks = ceil(c.compute_s / per);
			/* a job limit is a certain interruption every `per` seconds */
			c.ckpt_interval_s = spot_daly_interval(ckpt_bytes / opts->ckpt_write_bw, per);
		}
		c.chunks = chunks;
		c.ckpt_write_s = ckpt_bytes / opts->ckpt_write_bw;
		memset(&u, 0, sizeof(u));
		u.busy_s = c.compute_s;
		u.idle_s = opts->setup_s * chunks + w->data_size / opts->upload_bw;
		u.sessions = chunks;
		u.data_bytes = w->data_size;
		u.egress_bytes = w->egress;
		u.ckpt_write_s = w->resumable ? c.ckpt_write_s : 0;
		u.restart_s = opts->restart_s;
		c.mode = PLAN_ON_DEMAND;
		c.cost.total = INFINITY;
		c.on_demand_total = INFINITY;
		if (w->sky.use_spot != 1) {
			if (!opts->pricer.price(opts->pricer.ctx, o, PLAN_ON_DEMAND, &u, &c.cost))
				c.on_demand_total = c.cost.total;
			else
				c.cost.total = INFINITY;
			for (int m = PLAN_DAILY; m <= PLAN_MONTHLY; m++) {
				struct plan_cost pc;
				if (!opts->pricer.price(opts->pricer.ctx, o, (enum plan_mode)m, &u, &pc) &&
				    pc.total < c.cost.total) {
					c.cost = pc;
					c.mode = (enum plan_mode)m;
				}
			}
		}
		c.wall_s = o->queue_wait * chunks + u.idle_s + c.compute_s;

		/* spot: the pricer's expected time and cost with interruptions
		 * (Daly 2006); without checkpoints an interruption restarts the job */
		spot_ok = o->spot_price > 0 && w->sky.use_spot != 0 && w->task != TASK_INFER;
		if (spot_ok) {
			struct plan_cost sc;
			c.naive_spot = o->spot_price * c.compute_s / 3600;
			if (!opts->pricer.price(opts->pricer.ctx, o, PLAN_SPOT, &u, &sc) && isfinite(sc.total) &&
			    (opts->by == PLAN_BY_COST ? sc.total < c.cost.total : !isfinite(c.cost.total))) {
				c.cost = sc;
				c.mode = PLAN_SPOT;
				c.wall_s = o->queue_wait * chunks + u.idle_s + sc.busy_wall_s;
				c.ckpt_interval_s = sc.interval_s;
			}
		}
		if (!isfinite(c.cost.total)) {
			exclude(r, EX_CONSTRAINT, o, PLAN_D_NO_MODE, 0, 0);
			continue;
		}
		if (deadline > 0 && c.wall_s > deadline) {
			exclude(r, EX_DEADLINE, o, PLAN_D_DEADLINE, c.wall_s, deadline);
			continue;
		}
		if (opts->budget_usd > 0 && c.cost.total > opts->budget_usd) {
			exclude(r, EX_BUDGET, o, PLAN_D_BUDGET, c.cost.total, opts->budget_usd);
			continue;
		}
		if (opts->max_price_usd > 0 && o->price > opts->max_price_usd) {
			exclude(r, EX_MAX_PRICE, o, PLAN_D_MAX_PRICE, o->price, opts->max_price_usd);
			continue;
		}
		c.queue_s = o->queue_wait * chunks;
		c.why = c.mode == PLAN_SPOT ? PLAN_WHY_SPOT : o->queue_wait > 0 ? PLAN_WHY_QUEUE : PLAN_WHY_FITS;
		all[kept++] = c;
		r->feasible++;
	}
	qsort(all, kept, sizeof(*all), opts->by == PLAN_BY_TIME ? cmp_time : cmp_cost);
	/* the same instance in many regions is one choice */
	r->ranked = calloc((size_t)(opts->top > 0 ? opts->top : 1), sizeof(*r->ranked));
	if (!r->ranked) {
		snprintf(err, errlen, "out of memory");
		goto out_fail;
	}
	for (size_t i = 0; i < kept && r->n < (size_t)opts->top; i++) {
		bool dup = false;
		for (size_t k = 0; k < r->n && !dup; k++)
			dup = same_offer(&r->ranked[k], &all[i]);
		if (!dup)
			r->ranked[r->n++] = all[i];
	}
	if (r->n) {
		const struct estimate *e = estimate_for(&cache, &ncache, &capcache, w, arch,
							r->ranked[0].offer->gpu, r->ranked[0].gpus);
		if (e)
			r->single = *e;
	}
	advise(w, opts, r);
	free(all);
	free(cache);
	return 0;
out_fail:
	free(all);
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
