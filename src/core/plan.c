/*
 * plan.c - pricing a workload on every offer and ranking them (plan.h).
 * Formulas: docs/formulas.md "Plan" and docs/billing.md.
 */
#include "plan.h"

#include <math.h>
#include <stdarg.h>
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
					"monthly package"};
	return (unsigned)m < PLAN_NMODES ? n[m] : "?";
}

const char *plan_exclusion_text(enum plan_exclusion e)
{
	static const char *const t[] = {
		"GPU not in data/gpus.csv (no memory or throughput to plan with)",
		"does not meet the resources asked for (GPU type, count, CPUs, memory, cloud, region, spot)",
		"GPU count differs from the workload's gpus",
		"not enough GPU memory (with headroom)",
		"a GPU slice too small for the job",
		"multi-GPU step would be communication-bound",
		"job longer than the queue's time limit and not resumable",
		"finishes after the deadline",
		"costs more than the budget",
		"instance price above --max-price",
		"no throughput figure for this GPU at this precision",
	};
	return (unsigned)e < EX_NREASONS ? t[e] : "?";
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
		    const char *fmt, double a, double b)
{
	char detail[128];

	r->excluded[e]++;
	if (r->example[e][0])
		return;
	snprintf(detail, sizeof(detail), fmt, a, b);
	snprintf(r->example[e], sizeof(r->example[0]), "%.*s %.*s (%.*s): %s",
		 (int)(o->provider.len > 24 ? 24 : o->provider.len), o->provider.p,
		 (int)(o->instance.len > 40 ? 40 : o->instance.len), o->instance.p,
		 (int)(o->gpu_name.len > 24 ? 24 : o->gpu_name.len), o->gpu_name.p, detail);
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

static void add_check(struct plan_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_check(struct plan_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nchecklist >= 10)
		return;
	va_start(ap, fmt);
	vsnprintf(r->checklist[r->nchecklist++], sizeof(r->checklist[0]), fmt, ap);
	va_end(ap);
}

static void advise(const struct workload *w, const struct plan_opts *opts, struct plan_result *r)
{
	const struct plan_choice *best = r->n ? &r->ranked[0] : NULL;
	double hours = best ? best->compute_s / 3600 : 0;
	char a[64], b[64];

	if (w->task == TASK_INFER) {
		r->user_class = 'C';
		snprintf(r->class_why, sizeof(r->class_why),
			 "inference: a service that stays up, priced by the month, not by the job");
	} else if (hours > 8) {
		r->user_class = 'B';
		snprintf(r->class_why, sizeof(r->class_why),
			 "a continuous run of %s: it must survive interruptions without losing progress",
			 units_fmt_duration(best->compute_s, a, sizeof(a)));
	} else {
		r->user_class = 'A';
		snprintf(r->class_why, sizeof(r->class_why),
			 "an occasional run of %s: pay only while it runs, stop the box at once",
			 best ? units_fmt_duration(best->compute_s, a, sizeof(a)) : "a few hours");
	}

#define FIT(t, yes, ...) (r->supply_fits[t] = (yes), \
	snprintf(r->supply_advice[t], sizeof(r->supply_advice[0]), __VA_ARGS__))
	FIT(SUPPLY_AI_CLOUD, true,
	    "%s", r->user_class == 'A' ? "fits: per-second or hourly container billing, ready images, stop and go" :
	    r->user_class == 'B' ? "fits with persistent storage and checkpoints; compare a weekly/monthly package" :
	    "fits for a small service on a monthly package");
	FIT(SUPPLY_MARKETPLACE, w->resumable || r->user_class == 'A',
	    "%s", w->resumable ? "cheapest per hour; hosts vanish, so keep checkpoints off the box" :
	    "cheapest per hour, but hosts can vanish: only for short runs or a resumable job");
	FIT(SUPPLY_CAMPUS_HPC, r->user_class == 'B' && w->resumable,
	    "%s", r->user_class == 'B' ? (w->resumable ? "fits: free or subsidised, jobs chained across the time limit; queue waits count against the deadline" :
					  "needs a resumable job: partitions cap a job at 24-168 h") :
	    r->user_class == 'A' ? "queue waits cost more than short runs save" : "not for a 24x7 service");
	FIT(SUPPLY_SERVERLESS, r->user_class == 'C' || hours < 1,
	    "%s", r->user_class == 'C' ? "fits spiky inference: per-second, scales to zero when idle" :
	    hours < 1 ? "fits runs under an hour: per-second, nothing to stop" :
	    "per-second premium and no persistent box: poor for long training");
	FIT(SUPPLY_HYPERSCALER, r->user_class != 'A' || w->data_size > 500e9,
	    "%s", w->data_size > 500e9 ? "fits large data next to its object storage; reserved/committed prices for long use" :
	    r->user_class == 'A' ? "dearest per hour for short runs; quota requests take days" :
	    "stable capacity, reserved 1y/3y discounts pay off only with steady use");
#undef FIT

	if (r->user_class == 'A')
		snprintf(r->billing_advice, sizeof(r->billing_advice),
			 "on-demand with per-second (or per-minute) billing; hourly rounding and packages waste money on short, broken-up sessions");
	else if (r->user_class == 'B')
		snprintf(r->billing_advice, sizeof(r->billing_advice),
			 "%s; a package only if the run fills it (see the on-demand vs package totals above)",
			 w->resumable ? "spot/interruptible if its expected cost (with restarts) stays lower" :
			 "on-demand (make the job resumable to use spot and chained HPC jobs)");
	else
		snprintf(r->billing_advice, sizeof(r->billing_advice),
			 "monthly package or reserved capacity for a service that stays up; serverless if traffic is spiky");

	if (best) {
		double stop = best->wall_s * 1.2;
		add_check(r, "auto-stop: stop the instance when the job ends, idles or stalls, with a max runtime of %s "
			  "(1.2x the estimate) and a budget stop at %.0f USD",
			  units_fmt_duration(stop, a, sizeof(a)), best->cost.total * 1.2);
		if (best->ckpt_interval_s > 0)
			add_check(r, "checkpoint every %s (Young/Daly for a %s write and the expected interruption rate), "
				  "atomically: temp file, fsync, rename",
				  units_fmt_duration(best->ckpt_interval_s, a, sizeof(a)),
				  units_fmt_duration(best->ckpt_write_s, b, sizeof(b)));
		else if (r->user_class == 'B')
			add_check(r, "checkpoint at least every 15-30 minutes, atomically, to persistent storage");
	}
	if (w->data_size <= 0)
		add_check(r, "data: give data_size to price its storage and upload; verify it arrived (count and sizes)");
	else if (w->data_size < 10e9)
		add_check(r, "data (%s): rsync with resume (rsync -P); then verify file count and sizes",
			  units_fmt_bytes(w->data_size, a, sizeof(a)));
	else if (w->data_size < 1e12)
		add_check(r, "data (%s): upload once to object storage, pull it from there (about %s at %.0f MB/s); "
			  "verify count and sizes after the copy",
			  units_fmt_bytes(w->data_size, a, sizeof(a)),
			  units_fmt_duration(w->data_size / opts->upload_bw, b, sizeof(b)), opts->upload_bw / 1e6);
	else
		add_check(r, "data (%s): mount object storage with a local cache rather than copying; verify a manifest",
			  units_fmt_bytes(w->data_size, a, sizeof(a)));
	if (r->n > 1) {
		const struct plan_choice *cheap = &r->ranked[0];
		for (size_t i = 1; i < r->n; i++)
			if (r->ranked[i].offer->price < cheap->offer->price)
				cheap = &r->ranked[i];
		add_check(r, "debug the script end to end for a few steps on the cheapest fitting box first (%.*s %.*s at %.2f USD/h)",
			  (int)cheap->offer->provider.len, cheap->offer->provider.p,
			  (int)cheap->offer->instance.len, cheap->offer->instance.p, cheap->offer->price);
	}
	add_check(r, "record what each run cost (price paid, hours, problems met) so the next estimate is your own");
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
			exclude(r, EX_UNKNOWN_GPU, o, "no specs for this GPU", 0, 0);
			continue;
		}
		if (!sky_ok(&w->sky, o) || (w->gpu[0] && !gpu_is(o->gpu, w->gpu))) {
			exclude(r, EX_CONSTRAINT, o, "%g GPU(s) of another kind or place", o->gpus, 0);
			continue;
		}
		if (workload_is_set(w, "gpus") && fabs((double)w->gpus - o->gpus) > 1e-9) {
			exclude(r, EX_GPU_COUNT, o, "has %g GPUs, the job uses %g", o->gpus, (double)w->gpus);
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
			exclude(r, o->is_slice ? EX_SLICE : EX_MEMORY, o, "needs %.1f GB per GPU, has %.1f GB",
				e->mem.total / 1e9, o->gpu_mem / 1e9);
			continue;
		}
		if (!e->have_time) {
			exclude(r, EX_NO_THROUGHPUT, o, "no TFLOPS at this precision", 0, 0);
			continue;
		}
		if (G > 1 && e->comm_bound) {
			exclude(r, EX_COMM_BOUND, o, "communication %.1fx the compute per step", e->comm_ratio, 0);
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
				exclude(r, EX_TIME_LIMIT, o, "%.0f h of compute, the limit is %.0f h",
					c.compute_s / 3600, o->max_runtime / 3600);
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
			exclude(r, EX_CONSTRAINT, o, "no billing mode allowed", 0, 0);
			continue;
		}
		if (deadline > 0 && c.wall_s > deadline) {
			exclude(r, EX_DEADLINE, o, "done in %.1f h, deadline %.1f h", c.wall_s / 3600, deadline / 3600);
			continue;
		}
		if (opts->budget_usd > 0 && c.cost.total > opts->budget_usd) {
			exclude(r, EX_BUDGET, o, "%.0f USD, budget %.0f USD", c.cost.total, opts->budget_usd);
			continue;
		}
		if (opts->max_price_usd > 0 && o->price > opts->max_price_usd) {
			exclude(r, EX_MAX_PRICE, o, "%.2f USD/h, cap %.2f USD/h", o->price, opts->max_price_usd);
			continue;
		}
		{
			char t1[48], t2[32];
			snprintf(c.why, sizeof(c.why), "%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s%s",
				 c.mem_used * 100, o->gpu_mem / 1e9, units_fmt_duration(c.compute_s, t1, sizeof(t1)),
				 G, o->gpu->name, plan_mode_name(c.mode),
				 c.mode == PLAN_SPOT ? " (expected, with restarts)" :
				 o->queue_wait > 0 ? (snprintf(t2, sizeof(t2), ", queue %.0f h", o->queue_wait * chunks / 3600), t2) : "");
		}
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
