/*
 * serve.c - a service priced by the month (serve.h): per offer the
 * tensor-parallel degree and replica count from the memory and decode
 * models, a month under each mode through the planner's pricer, egress
 * and storage, the ranking and the checklist. Formulas: docs/serve.md.
 */
#include "core/plan/serve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/i18n.h"

/* A week and the 30-day month (docs/serve.md "A month"). */
#define WEEK_H 168.0
#define MONTH_WEEKS (SERVE_MONTH_HOURS / WEEK_H)

const enum plan_mode serve_modes[SERVE_NMODES] = {
	PLAN_ON_DEMAND, PLAN_MONTHLY, PLAN_RESERVED_1Y, PLAN_RESERVED_3Y,
};

const char *serve_exclusion_name(enum serve_exclusion x)
{
	static const char *const n[SX_COUNT] = {
		"unknown_gpu", "suspect_price", "kept_out", "marketplace", "time_limit",
		"gpu_count", "memory", "too_slow", "no_price", "budget",
	};
	return (unsigned)x < SX_COUNT ? n[x] : "?";
}

const char *serve_check_name(enum serve_check c)
{
	static const char *const n[SC_COUNT] = {
		"budget_alert", "health_check", "load_test", "reserved_term", "scale_to_zero",
		"record_costs",
	};
	return (unsigned)c < SC_COUNT ? n[c] : "?";
}

void serve_opts_default(struct serve_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->top = 5;
}

bool serve_wanted(const struct workload *w)
{
	return w->task == TASK_INFER && workload_is_set(w, "serve");
}

/* KV heads split across tp GPUs; with fewer KV heads than GPUs each GPU
 * keeps a copy of one (docs/serve.md "Memory"). */
static double kv_split(const struct model_spec *arch, int tp)
{
	return arch->kv_heads > 0 && arch->kv_heads < tp ? (double)arch->kv_heads : (double)tp;
}

double serve_mem_per_gpu(const struct workload *w, const struct model_spec *arch,
			 const struct estimate *e, int tp, double batch)
{
	const struct est_mem *m = &e->mem;
	double conc = w->concurrency > 0 ? (double)w->concurrency : 1;
	double alloc = (m->weights + m->quant_consts) / tp +
		       e->kv_per_token * (double)w->context * batch / kv_split(arch, tp) +
		       m->activations + m->logits * batch / conc;

	return alloc * (1 + w->alloc_overhead) + w->cuda_context;
}

/* Per direction, bytes/s, of the link tp GPUs all-reduce over: the
 * estimate's (workload interconnect and link_bw, else the GPU's link). */
static double tp_link_bw(const struct workload *w, const struct gpu_spec *g, int tp)
{
	double bw;

	estimate_link(w, g, tp, NULL, NULL, &bw);
	return bw;
}

double serve_step_seconds(const struct workload *w, const struct model_spec *arch,
			  const struct estimate *e, const struct gpu_spec *gpu, double efficiency,
			  int tp, double batch, double *comm_s)
{
	double ea = w->precision == PREC_FP32 ? 4 : 2;
	double bytes = (e->mem.weights + e->mem.quant_consts) / tp +
		       batch * e->kv_per_token * (double)w->context / 2 / kv_split(arch, tp);
	double t = bytes / (efficiency * gpu->mem_bw), comm = 0;

	if (tp > 1 && arch->layers > 0 && arch->hidden > 0) {
		/* Megatron-LM: two all-reduces of hidden x batch per layer */
		double ring = 2.0 * (tp - 1) / tp * (double)arch->hidden * batch * ea;
		comm = (double)arch->layers * 2 * (ring / tp_link_bw(w, gpu, tp) + SERVE_ALLREDUCE_LATENCY_S);
	}
	if (comm_s)
		*comm_s = comm;
	return t + comm;
}

struct ctx {
	const struct workload *w;
	const struct model_spec *arch;
	const struct estimate *e;
	double eff;          /* decode efficiency */
	double need_seq;     /* tokens/s per sequence */
	double prompt_rate;  /* prompt tokens/s, whole service */
};

struct layout {
	int tp;
	long replicas;
	double batch, mem, step, comm, share, seq_tps;
};

/* Does tp with R replicas serve the load on offer o? Fills *l. */
static bool layout_ok(const struct ctx *c, const struct offer *o, int tp, long R, struct layout *l)
{
	const struct gpu_spec *g = o->gpu;
	double conc = (double)c->w->concurrency, eff_flops;

	l->tp = tp;
	l->replicas = R;
	l->batch = ceil(conc / (double)R);
	l->mem = serve_mem_per_gpu(c->w, c->arch, c->e, tp, l->batch);
	l->step = serve_step_seconds(c->w, c->arch, c->e, g, c->eff, tp, l->batch, &l->comm);
	l->share = 0;
	eff_flops = estimate_peak_flops(g, c->w->precision) *
		    (workload_is_set(c->w, "mfu") ? c->w->mfu : estimate_default_mfu(g->cls));
	if (o->gpus > 0 && o->gpus < 1) {
		/* a slice: its share of the card's bandwidth and compute
		 * (docs/offers.md "Slices") */
		l->step /= o->gpus;
		eff_flops *= o->gpus;
	}
	if (c->prompt_rate > 0 && eff_flops > 0)
		l->share = c->prompt_rate / (double)R * c->e->flops_per_unit / (tp * eff_flops);
	l->seq_tps = l->share < 1 ? (1 - l->share) / l->step : 0;
	return l->mem <= o->gpu_mem * (1 - c->w->headroom) && l->share < 1 &&
	       l->seq_tps >= c->need_seq * (1 - 1e-9);
}

static int tp_max(const struct offer *o)
{
	return o->gpus >= SERVE_MAX_TP ? SERVE_MAX_TP : o->gpus >= 1 ? (int)o->gpus : 1;
}

static bool tp_allowed(const struct model_spec *arch, int tp)
{
	return arch->heads <= 0 || arch->heads % tp == 0;
}

static double boxes(const struct offer *o, int tp, long R)
{
	double per = floor(o->gpus / tp);
	return ceil((double)R / (per >= 1 ? per : 1));
}

/* The layout with the fewest boxes (then the smaller tp); false with the
 * exclusion reason and its facts when none serves the load. */
static bool best_layout(const struct ctx *c, const struct offer *o, struct layout *best,
			enum serve_exclusion *why, double *a, double *b)
{
	long conc = c->w->concurrency, rmax = conc < SERVE_MAX_REPLICAS ? conc : SERVE_MAX_REPLICAS;
	bool found = false;
	double best_boxes = 0, best_seq = 0;
	int tfit = 0;
	struct layout l = {0};

	for (int tp = 1; tp <= SERVE_MAX_TP; tp *= 2) {
		long lo = 1, hi = rmax;
		if (!tp_allowed(c->arch, tp))
			continue;
		if (!tfit && serve_mem_per_gpu(c->w, c->arch, c->e, tp, 1) <= o->gpu_mem * (1 - c->w->headroom))
			tfit = tp;
		if (tp > tp_max(o))
			continue;
		if (!layout_ok(c, o, tp, hi, &l)) {
			if (l.mem <= o->gpu_mem * (1 - c->w->headroom) && l.seq_tps > best_seq)
				best_seq = l.seq_tps;
			continue;
		}
		while (lo < hi) {   /* fewest replicas: the test is monotone in R */
			long mid = lo + (hi - lo) / 2;
			if (layout_ok(c, o, tp, mid, &l))
				hi = mid;
			else
				lo = mid + 1;
		}
		layout_ok(c, o, tp, lo, &l);
		if (!found || boxes(o, tp, lo) < best_boxes) {
			*best = l;
			best_boxes = boxes(o, tp, lo);
			found = true;
		}
	}
	if (found)
		return true;
	if (!tfit) {
		int t = SERVE_MAX_TP;
		while (t > 1 && !tp_allowed(c->arch, t))
			t /= 2;
		*why = SX_MEMORY;
		*a = serve_mem_per_gpu(c->w, c->arch, c->e, t, 1);
		*b = o->gpu_mem;
	} else if (tfit > tp_max(o)) {
		*why = SX_GPU_COUNT;
		*a = tfit;
		*b = o->gpus;
	} else {
		*why = SX_TOO_SLOW;
		*a = best_seq;
		*b = c->need_seq;
	}
	return false;
}

/* The month's usage of one box under mode (docs/serve.md "A month"). */
static void month_usage(const struct serve_result *r, const struct workload *w, enum plan_mode m,
			struct plan_usage *u)
{
	memset(u, 0, sizeof(*u));
	if (m == PLAN_RESERVED_1Y || m == PLAN_RESERVED_3Y || w->serve.hours_per_day >= 24) {
		/* a term bills every hour; 24 h a day is one session all month */
		u->busy_s = (m == PLAN_RESERVED_1Y || m == PLAN_RESERVED_3Y ? SERVE_MONTH_HOURS : r->hours_month) * 3600;
		u->sessions = 1;
	} else {
		u->busy_s = r->hours_month * 3600;
		u->sessions = w->serve.days_per_week * MONTH_WEEKS;
	}
}

/* Price choice c on its offer: 0, or -1 when nothing prices it. */
static int price_month(const struct serve_opts *opts, const struct serve_result *r,
		       const struct workload *w, struct serve_choice *c)
{
	const struct offer *o = c->offer;
	struct plan_usage u;
	struct plan_cost pc;
	int best = -1;

	/* storage and egress: the volumes live all month, egress is the service's */
	memset(&u, 0, sizeof(u));
	u.busy_s = SERVE_MONTH_HOURS * 3600;
	u.sessions = 1;
	u.data_bytes = r->storage_bytes * c->instances;
	u.egress_bytes = r->egress_bytes;
	if (opts->pricer.price(opts->pricer.ctx, o, PLAN_ON_DEMAND, &u, &pc))
		return -1;
	c->storage = pc.storage;
	c->egress = pc.egress;
	snprintf(c->profile, sizeof(c->profile), "%s", pc.profile);
	for (int i = 0; i < SERVE_NMODES; i++) {
		month_usage(r, w, serve_modes[i], &u);
		c->mode_total[i] = -1;
		if (opts->pricer.price(opts->pricer.ctx, o, serve_modes[i], &u, &pc))
			continue;
		c->mode_total[i] = (pc.compute + pc.idle) * c->instances + c->storage + c->egress;
		if (best < 0 || c->mode_total[i] < c->mode_total[best])
			best = i;
	}
	if (best < 0)
		return -1;
	c->mode = serve_modes[best];
	c->total = c->mode_total[best];
	c->compute = c->total - c->storage - c->egress;
	return 0;
}

static void exclude(struct serve_result *r, enum serve_exclusion x, const struct offer *o,
		    double a, double b)
{
	if (!r->excluded[x]++)
		r->example[x] = (struct serve_example){o, a, b};
}

static int cs_cmp(const struct cat_str *a, const struct cat_str *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->p, b->p, n) : 0;

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int by_total(const void *pa, const void *pb)
{
	const struct serve_choice *a = pa, *b = pb;
	int c;

	if (a->total != b->total)
		return a->total < b->total ? -1 : 1;
	if ((c = cs_cmp(&a->offer->provider, &b->offer->provider)))
		return c;
	if ((c = cs_cmp(&a->offer->instance, &b->offer->instance)))
		return c;
	return cs_cmp(&a->offer->region, &b->offer->region);
}

/* The same box at the same total in another region: shown once. */
static bool same(const struct serve_choice *a, const struct serve_choice *b)
{
	return a->total == b->total && a->mode == b->mode && a->tp == b->tp &&
	       a->replicas == b->replicas && !cs_cmp(&a->offer->provider, &b->offer->provider) &&
	       !cs_cmp(&a->offer->instance, &b->offer->instance);
}

int serve_run(const struct workload *w0, const struct model_spec *arch,
	      const struct offer_set *set, const struct serve_opts *opts,
	      struct serve_result *r, char *err, size_t errlen)
{
	struct workload *w = malloc(sizeof(*w));
	struct serve_choice *v = NULL;
	size_t nv = 0;
	struct ctx c;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!w) {
		snprintf(err, errlen, _("serve: out of memory"));
		return -1;
	}
	if (!serve_wanted(w0)) {
		snprintf(err, errlen, _("serve: a service needs task infer and serve (24x7, 8x5 or 12h)"));
		goto out;
	}
	/* the one-GPU estimate: memory by component, the prefill FLOPs per token */
	*w = *w0;
	w->gpus = 1;
	if (!workload_is_set(w, "tokens") && workload_set(w, "tokens", "1000000", 0, err, errlen))
		goto out;
	if (estimate_run(w, arch, NULL, &r->single, err, errlen))
		goto out;

	r->hours_week = workload_serve_hours_week(w);
	r->hours_month = r->hours_week * MONTH_WEEKS;
	r->duty = r->hours_week / WEEK_H;
	r->spiky = r->duty < SERVE_SPIKY_DUTY;
	r->concurrency = w->concurrency;
	r->needed_tps = (double)w->concurrency * w->user_tps;
	if (workload_is_set(w, "rps") && w->rps * (double)w->output_len > r->needed_tps)
		r->needed_tps = w->rps * (double)w->output_len;
	r->needed_seq_tps = r->needed_tps / (double)w->concurrency;
	r->egress_given = workload_is_set(w, "egress_month");
	r->egress_bytes = r->egress_given ? w->egress_month :
		r->needed_tps * r->hours_month * 3600 *
		(SERVE_BYTES_PER_TOKEN + SERVE_ENVELOPE_BYTES / (double)w->output_len);
	r->storage_bytes = r->single.mem.weights + r->single.mem.quant_consts + w->data_size;
	r->decode_efficiency = EST_DECODE_BW_EFFICIENCY;

	/* docs/serve.md "Headroom": each sequence served tps_headroom faster than it needs */
	r->tps_headroom = w->tps_headroom;
	c = (struct ctx){w, arch, &r->single, r->decode_efficiency, r->needed_seq_tps * (1 + w->tps_headroom),
			 workload_is_set(w, "rps") ? w->rps * (double)w->prompt_len : 0};
	r->considered = set->n;
	v = calloc(set->n ? set->n : 1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, _("serve: out of memory"));
		goto out;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct offer *o = &set->v[i];
		struct serve_choice *ch = &v[nv];
		enum serve_exclusion why = SX_MEMORY;
		struct layout l = {0};
		double a = 0, b = 0;

		if (!o->gpu || !(o->gpu->mem_bw > 0) || !(o->gpu_mem > 0)) {
			exclude(r, SX_UNKNOWN_GPU, o, 0, 0);
			continue;
		}
		if (o->suspect != OFFER_PRICE_OK) {
			exclude(r, SX_SUSPECT, o, 0, 0);
			continue;
		}
		if (opts->keep && !opts->keep(opts->keep_ctx, o)) {
			exclude(r, SX_KEPT_OUT, o, 0, 0);
			continue;
		}
		if (o->supply == SUPPLY_MARKETPLACE && !opts->allow_marketplace) {
			exclude(r, SX_MARKETPLACE, o, 0, 0);
			continue;
		}
		if (o->max_runtime > 0 && (w->serve.hours_per_day >= 24 ||
					   o->max_runtime < w->serve.hours_per_day * 3600)) {
			exclude(r, SX_TIME_LIMIT, o, o->max_runtime, w->serve.hours_per_day * 3600);
			continue;
		}
		if (!best_layout(&c, o, &l, &why, &a, &b)) {
			exclude(r, why, o, a, b);
			continue;
		}
		memset(ch, 0, sizeof(*ch));
		ch->offer = o;
		ch->tp = l.tp;
		ch->replicas = l.replicas;
		ch->instances = boxes(o, l.tp, l.replicas);
		ch->batch = l.batch;
		ch->mem_per_gpu = l.mem;
		ch->mem_used = l.mem / o->gpu_mem;
		ch->step_s = l.step;
		ch->comm_s = l.comm;
		ch->prefill_share = l.share;
		ch->seq_tps = l.seq_tps;
		ch->served_tps = (double)l.replicas * l.batch * l.seq_tps;
		ch->tps_margin = r->needed_seq_tps > 0 ? l.seq_tps / r->needed_seq_tps - 1 : 0;
		if (price_month(opts, r, w, ch)) {
			exclude(r, SX_NO_PRICE, o, 0, 0);
			continue;
		}
		if (opts->budget_usd > 0 && ch->total > opts->budget_usd) {
			exclude(r, SX_BUDGET, o, ch->total, opts->budget_usd);
			continue;
		}
		nv++;
	}
	r->feasible = nv;
	qsort(v, nv, sizeof(*v), by_total);
	{
		size_t k = 0;
		for (size_t i = 0; i < nv; i++)
			if (!k || !same(&v[k - 1], &v[i]))
				v[k++] = v[i];
		nv = k;
	}
	r->n = nv < (size_t)(opts->top > 0 ? opts->top : 5) ? nv : (size_t)(opts->top > 0 ? opts->top : 5);
	r->ranked = v;
	v = NULL;
	for (size_t i = 0; i < r->n; i++)
		r->serverless_ranked |= r->ranked[i].offer->supply == SUPPLY_SERVERLESS;

	/* the checklist (docs/serve.md "Checklist") */
	r->alert_is_budget = opts->budget_usd > 0;
	r->alert_usd = r->alert_is_budget ? opts->budget_usd :
		       r->n ? SERVE_ALERT_MULTIPLE * r->ranked[0].total : 0;
	if (r->alert_usd > 0)
		r->checklist[r->nchecklist++] = SC_BUDGET_ALERT;
	r->checklist[r->nchecklist++] = SC_HEALTH;
	if (r->n)
		r->checklist[r->nchecklist++] = SC_LOAD_TEST;
	if (r->n && (r->ranked[0].mode == PLAN_RESERVED_1Y || r->ranked[0].mode == PLAN_RESERVED_3Y))
		r->checklist[r->nchecklist++] = SC_RESERVED_TERM;
	if (r->spiky)
		r->checklist[r->nchecklist++] = SC_SCALE_TO_ZERO;
	r->checklist[r->nchecklist++] = SC_RECORD_COSTS;
	rc = 0;
out:
	if (rc)
		serve_result_free(r);
	free(v);
	free(w);
	return rc;
}

void serve_result_free(struct serve_result *r)
{
	free(r->ranked);
	r->ranked = NULL;
	r->n = 0;
}
