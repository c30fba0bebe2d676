/*
 * audit.c - the bill against the ledger (audit.h): the split by kind and
 * resource, and the findings. Every formula is in docs/bill.md "Audit".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "../util/util.h"

static const char *const audit_code_names[AUDIT_NCODES] = {
	"rounding", "storage-outlived", "egress-over-gpu", "stopped-not-released",
	"unguarded-gpu", "run-cost-mismatch", "over-budget", "balance-runout",
};

const char *audit_code_name(enum audit_code c)
{
	return (unsigned)c < AUDIT_NCODES ? audit_code_names[c] : "unknown";
}

void audit_result_free(struct audit_result *r)
{
	if (!r)
		return;
	free(r->res);
	free(r->f);
	r->res = NULL;
	r->f = NULL;
	r->nres = r->nf = 0;
}

/* The share of item it inside [from, to): its overlap over its length; an
 * instant counts whole when it falls inside. */
static double share(const struct bill_item *it, double from, double to)
{
	double lo = it->start > from ? it->start : from;
	double hi = it->end < to ? it->end : to;

	if (it->end <= it->start)
		return it->start >= from && it->start < to ? 1.0 : 0.0;
	if (hi <= lo)
		return 0.0;
	return (hi - lo) / (it->end - it->start);
}

struct ctx {
	struct audit_result *r;
	size_t fcap, rcap;
};

static struct audit_finding *add_finding(struct ctx *c, enum audit_code code, const char *res)
{
	struct audit_result *r = c->r;
	struct audit_finding *f;

	for (size_t i = 0; i < r->nf; i++)
		if (r->f[i].code == code && !strcmp(r->f[i].resource, res))
			return &r->f[i];
	if (util_grow((void **)&r->f, &c->fcap, r->nf + 1, sizeof(*r->f)))
		return NULL;
	f = &r->f[r->nf++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->from = INFINITY;
	f->to = -INFINITY;
	snprintf(f->resource, sizeof(f->resource), "%s", res);
	return f;
}

static void span(struct audit_finding *f, double from, double to)
{
	if (from < f->from)
		f->from = from;
	if (to > f->to)
		f->to = to;
}

static struct audit_resource *resource_of(struct ctx *c, const char *res)
{
	struct audit_result *r = c->r;

	for (size_t i = 0; i < r->nres; i++)
		if (!strcmp(r->res[i].resource, res))
			return &r->res[i];
	if (util_grow((void **)&r->res, &c->rcap, r->nres + 1, sizeof(*r->res)))
		return NULL;
	memset(&r->res[r->nres], 0, sizeof(r->res[0]));
	snprintf(r->res[r->nres].resource, sizeof(r->res[0].resource), "%s", res);
	return &r->res[r->nres++];
}

static int by_amount(const void *a, const void *b)
{
	const struct audit_finding *x = a, *y = b;

	if (x->amount != y->amount)
		return x->amount < y->amount ? 1 : -1;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return strcmp(x->resource, y->resource);
}

static int by_total(const void *a, const void *b)
{
	const struct audit_resource *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->resource, y->resource);
}

static bool overlaps(const struct audit_run *ru, double s, double e)
{
	double end = isnan(ru->end) ? INFINITY : ru->end;

	if (e <= s)
		return ru->start <= s && s <= end;
	return ru->start < e && end > s;
}

int audit_bill(const struct bill_item *items, size_t n, const struct audit_run *runs,
	       size_t nruns, const struct audit_opts *o, struct audit_result *out,
	       char *err, size_t errlen)
{
	struct ctx c = {.r = out};
	double from = o->from, to = o->to, last_gpu = -INFINITY;
	double ip_after = 0, storage_after = 0;
	size_t ip_lines = 0, first_ip = SIZE_MAX, runs_in_period = 0;
	struct audit_finding *f;

	memset(out, 0, sizeof(*out));
	snprintf(out->currency, sizeof(out->currency), "%s", o->currency ? o->currency : "");
	/* the period: as given, else the span of the bill's lines in this currency */
	if (isnan(from) || isnan(to)) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(items[i].currency, out->currency))
				continue;
			if (items[i].start < lo)
				lo = items[i].start;
			if (items[i].end > hi)
				hi = items[i].end;
		}
		if (isnan(from))
			from = isfinite(lo) ? lo : 0;
		if (isnan(to))
			to = isfinite(hi) ? (hi > from ? hi : from + 1) : from + 1;
	}
	out->from = from;
	out->to = to;

	/* the split, and the end of the last GPU line */
	for (size_t i = 0; i < n; i++) {
		const struct bill_item *it = &items[i];
		struct audit_resource *res;
		double a;
		if (strcmp(it->currency, out->currency))
			continue;
		/* over the whole bill: the instance's end does not depend on the period */
		if (it->kind == BILL_GPU && it->end > last_gpu)
			last_gpu = it->end;
		if (!(share(it, from, to) > 0))
			continue;
		a = it->amount * share(it, from, to);
		out->lines++;
		out->by_kind[it->kind] += a;
		out->total += a;
		if (!(res = resource_of(&c, it->resource)))
			goto out_nomem;
		res->by_kind[it->kind] += a;
		res->total += a;
	}
	for (size_t k = 0; k < nruns; k++)
		if (overlaps(&runs[k], from, to))
			runs_in_period++;

	for (size_t i = 0; i < n; i++) {
		const struct bill_item *it = &items[i];
		double sh, unit_s;
		if (strcmp(it->currency, out->currency) || !((sh = share(it, from, to)) > 0))
			continue;
		/* rounding: a GPU line whose billed time (quantity x unit) exceeds
		 * its own span, the session it billed */
		unit_s = bill_unit_seconds(it->unit);
		if (it->kind == BILL_GPU && unit_s > 0 && it->end > it->start && it->quantity > 0) {
			double billed = it->quantity * unit_s, used = it->end - it->start;
			/* a line that sums a day (Azure) or an hour: the time used is
			 * the ledger's runs inside it, when there are any */
			if (billed <= used + 0.5 && runs_in_period) {
				double in_runs = 0;
				for (size_t k = 0; k < nruns; k++) {
					double e = isnan(runs[k].end) ? it->end : runs[k].end;
					double lo = runs[k].start > it->start ? runs[k].start : it->start;
					double hi = e < it->end ? e : it->end;
					if (hi > lo)
						in_runs += hi - lo;
				}
				if (in_runs > 0)
					used = in_runs;
			}
			if (billed > used + 0.5) {
				if (!(f = add_finding(&c, AUDIT_ROUNDING, it->resource)))
					goto out_nomem;
				f->amount += it->amount * sh * (billed - used) / billed;
				f->billed += billed / 3600.0;
				f->used += used / 3600.0;
				f->count++;
				span(f, it->start, it->end);
			}
		}
		/* after the last GPU line: IP lines mean a stopped box, storage
		 * lines alone a disk that outlived it (whole lines only) */
		if (isfinite(last_gpu) && it->start >= last_gpu) {
			if (it->kind == BILL_IP) {
				ip_after += it->amount * sh;
				ip_lines++;
				if (first_ip == SIZE_MAX)
					first_ip = i;
			} else if (it->kind == BILL_STORAGE) {
				storage_after += it->amount * sh;
			}
		}
		/* GPU lines no run overlaps, once the ledger has runs in the period */
		if (it->kind == BILL_GPU && runs_in_period) {
			bool seen = false;
			for (size_t k = 0; k < nruns && !seen; k++)
				seen = overlaps(&runs[k], it->start, it->end);
			if (!seen) {
				if (!(f = add_finding(&c, AUDIT_UNGUARDED_GPU, it->resource)))
					goto out_nomem;
				f->amount += it->amount * sh;
				f->billed += it->amount * sh;
				f->count++;
				span(f, it->start, it->end);
			}
		}
	}
	if (ip_lines) {
		const struct bill_item *ip = &items[first_ip];
		if (!(f = add_finding(&c, AUDIT_STOPPED_NOT_RELEASED, ip->resource)))
			goto out_nomem;
		f->amount = ip_after + storage_after;
		f->billed = ip_after;
		f->used = storage_after;
		for (size_t i = 0; i < n; i++) {
			const struct bill_item *it = &items[i];
			if (!strcmp(it->currency, out->currency) && it->start >= last_gpu &&
			    (it->kind == BILL_IP || it->kind == BILL_STORAGE) && share(it, from, to) > 0) {
				f->count++;
				span(f, it->start, it->end);
			}
		}
	} else if (storage_after > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct bill_item *it = &items[i];
			double sh;
			if (strcmp(it->currency, out->currency) || it->kind != BILL_STORAGE ||
			    it->start < last_gpu || !((sh = share(it, from, to)) > 0))
				continue;
			if (!(f = add_finding(&c, AUDIT_STORAGE_OUTLIVED, it->resource)))
				goto out_nomem;
			f->amount += it->amount * sh;
			f->count++;
			f->used = last_gpu;
			span(f, it->start, it->end);
		}
	}
	/* egress above the GPU time it served */
	if (out->by_kind[BILL_EGRESS] > out->by_kind[BILL_GPU] && out->by_kind[BILL_EGRESS] > 0) {
		if (!(f = add_finding(&c, AUDIT_EGRESS_OVER_GPU, "")))
			goto out_nomem;
		f->amount = out->by_kind[BILL_EGRESS] - out->by_kind[BILL_GPU];
		f->billed = out->by_kind[BILL_EGRESS];
		f->used = out->by_kind[BILL_GPU];
		for (size_t i = 0; i < n; i++)
			if (!strcmp(items[i].currency, out->currency) && items[i].kind == BILL_EGRESS &&
			    share(&items[i], from, to) > 0) {
				f->count++;
				span(f, items[i].start, items[i].end);
			}
	}
	/* runs whose ledger cost differs from the GPU lines over their time */
	for (size_t k = 0; k < nruns; k++) {
		const struct audit_run *ru = &runs[k];
		double billed = 0, diff;
		size_t lines = 0;
		char name[32];
		if (isnan(ru->cost) || isnan(ru->end) || strcmp(ru->currency, out->currency) ||
		    !overlaps(ru, from, to))
			continue;
		for (size_t i = 0; i < n; i++) {
			const struct bill_item *it = &items[i];
			double sh;
			if (strcmp(it->currency, out->currency) || it->kind != BILL_GPU)
				continue;
			/* only lines inside the run's time: a daily line is not one run's */
			if (it->start >= ru->start - 1 && it->end <= ru->end + 1 &&
			    (sh = share(it, ru->start, ru->end)) > 0) {
				billed += it->amount * sh;
				lines++;
			}
		}
		diff = billed - ru->cost;
		/* the bill's cent and 1 % of the cost are noise */
		if (!lines || fabs(diff) <= 0.01 || fabs(diff) <= 0.01 * fabs(ru->cost))
			continue;
		snprintf(name, sizeof(name), "run %lld", (long long)ru->id);
		if (!(f = add_finding(&c, AUDIT_RUN_COST_MISMATCH, name)))
			goto out_nomem;
		f->amount = fabs(diff);
		f->billed = billed;
		f->used = ru->cost;
		f->count = lines;
		span(f, ru->start, ru->end);
	}
	/* the budget: spend after it was used up, and the day it runs out at
	 * the period's mean rate */
	if (isfinite(o->budget) && out->total > 0) {
		double cum = 0, cross = NAN, rate;
		size_t *order = NULL, m = 0;
		if (n && !(order = malloc(n * sizeof(*order))))
			goto out_nomem;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(items[i].currency, out->currency) && share(&items[i], from, to) > 0)
				order[m++] = i;
		/* insertion sort by start: bills are nearly sorted already */
		for (size_t i = 1; i < m; i++)
			for (size_t j = i; j > 0 && items[order[j - 1]].start > items[order[j]].start; j--) {
				size_t t = order[j];
				order[j] = order[j - 1];
				order[j - 1] = t;
			}
		for (size_t i = 0; i < m && isnan(cross); i++) {
			cum += items[order[i]].amount * share(&items[order[i]], from, to);
			if (cum > o->budget)
				cross = items[order[i]].start;
		}
		free(order);
		if (!isnan(cross)) {
			if (!(f = add_finding(&c, AUDIT_OVER_BUDGET, "")))
				goto out_nomem;
			f->amount = out->total - o->budget;
			f->billed = out->total;
			f->used = o->budget;
			f->from = cross;
			f->to = to;
			f->count = 1;
		}
		rate = out->total / (to - from);
		if (!(f = add_finding(&c, AUDIT_BALANCE_RUNOUT, "")))
			goto out_nomem;
		f->amount = 0;
		f->from = f->to = from + o->budget / rate;
		f->billed = out->total;
		f->used = o->budget;
		f->count = 1;
	}
	/* credits (negative lines) can leave nothing at stake: no finding then */
	for (size_t i = 0, k = 0, n0 = out->nf; i < n0; i++) {
		if (out->f[i].amount > 0 || out->f[i].code == AUDIT_BALANCE_RUNOUT)
			out->f[k++] = out->f[i];
		if (i + 1 == n0)
			out->nf = k;
	}
	if (out->nf)
		qsort(out->f, out->nf, sizeof(*out->f), by_amount);
	if (out->nres)
		qsort(out->res, out->nres, sizeof(*out->res), by_total);
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory");
	audit_result_free(out);
	return -1;
}
