/*
 * probe_figures.c - a probe's steps and readings into figures and diagnoses
 * (probe_finish, probe.h; docs/probe.md): warm-up, steady step time, memory
 * peak and growth, utilisation, throughput, the estimate's errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/estimate/probe.h"

static double fin(double x)
{
	return isfinite(x) ? x : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0), sorted in tmp. */
static double median(const double *v, size_t n, double *tmp)
{
	if (!n)
		return 0;
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Least-squares slope of mem against time over the samples with a memory
 * reading and lo <= st <= hi; 0 when fewer than 3 or no spread in time.
 * *cnt gets how many were used. */
static double mem_slope(const struct probe *p, double lo, double hi, size_t *cnt)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, den, base = lo;

	*cnt = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		double x = p->st[i] - base, y = p->mem[i];

		if (y < 0 || p->st[i] < lo || p->st[i] > hi)
			continue;
		sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
	}
	*cnt = (size_t)n;
	if (n < 3)
		return 0;
	den = n * sxx - sx * sx;
	if (!(den > 0))
		return 0;
	return fin((n * sxy - sx * sy) / den);
}

static void add_diag(struct probe_result *r, enum probe_code c, double a, double b, long steps)
{
	if (r->ndiags >= PROBE_MAX_DIAGS)
		return;
	r->diags[r->ndiags++] = (struct probe_diag){c, fin(a), fin(b), steps};
}

/* Step times into d: the format's own, else the arrival time since the
 * last step line (the first: since the job started), shared by the steps
 * the line advanced (a bar refreshed from 12 to 15 took three). */
static void step_times(const struct probe *p, size_t n, double *d)
{
	for (size_t i = 0; i < n; i++) {
		double prev = i ? p->t[i - 1] : p->t0;
		long k = i && p->step[i] > p->step[i - 1] ? p->step[i] - p->step[i - 1] : 1;

		if (p->reported_s[i] > 0)
			d[i] = p->reported_s[i];
		else
			d[i] = fin((p->t[i] - prev) / (double)k);
		if (!(d[i] >= 0))
			d[i] = 0;
	}
}

/* The n >= 2 step times d (tmp: room for n): the warm-up into r and *wout,
 * the steady steps' count into *nsout and medians into r, and the steady
 * window in time into *lo and *hi. */
static void steady_window(const struct probe *p, const struct probe_inputs *in, const double *d,
			  double *tmp, size_t n, struct probe_result *r, size_t *wout, size_t *nsout,
			  double *lo, double *hi)
{
	size_t w = 0, ns, third;

	/* Warm-up: the given count, or the leading steps slower than
	 * PROBE_WARMUP_RATIO x the median of the steps after the longest
	 * warm-up allowed (a third of them). */
	if (in->warmup >= 0) {
		w = (size_t)in->warmup < n ? (size_t)in->warmup : n - 1;
	} else {
		size_t maxw = n / 3;
		double ref = median(d + maxw, n - maxw, tmp);

		while (w < maxw && d[w] > PROBE_WARMUP_RATIO * ref)
			w++;
	}
	ns = n - w;
	r->warmup = (long)w;
	r->steady_step_s = fin(median(d + w, ns, tmp));
	third = ns / 3;
	if (third) {
		r->first_third_s = fin(median(d + w, third, tmp));
		r->last_third_s = fin(median(d + n - third, third, tmp));
	} else {
		r->first_third_s = r->last_third_s = r->steady_step_s;
	}
	/* the steady window in time: from the end of the warm-up (or of
	 * the first step, whose interval holds the job's start-up) to the
	 * last step line */
	*lo = w ? p->t[w - 1] : p->t[0];
	*hi = p->t[n - 1];
	*wout = w;
	*nsout = ns;
}

/* Utilisation and CPU: medians over the steady window lo..hi (all the
 * readings when it holds none, or when there are under 2 steps). */
static void usage_medians(const struct probe *p, size_t n, double lo, double hi, struct probe_result *r)
{
	double *v = NULL;

	if (p->nsamples)
		v = malloc(p->nsamples * sizeof(*v));
	if (v) {
		double *src[2] = {p->util, p->cpu}, *dst[2] = {&r->util_median, &r->cpu_median};
		int windowed = 0;

		for (size_t i = 0; i < p->nsamples && n >= 2; i++)
			if (p->st[i] >= lo && p->st[i] <= hi)
				windowed = 1;
		for (int k = 0; k < 2; k++) {
			size_t m = 0;

			for (size_t i = 0; i < p->nsamples; i++)
				if (src[k][i] >= 0 && (!windowed || (p->st[i] >= lo && p->st[i] <= hi)))
					v[m++] = src[k][i];
			if (m) {
				double *t2 = malloc(m * sizeof(*t2));

				if (t2) {
					*dst[k] = fin(median(v, m, t2));
					free(t2);
				}
			}
		}
	}
	free(v);
}

/* Memory growth: the least-squares slope of memory over time in the
 * steady window (bytes a second) x the steady step time = bytes a step,
 * into r. True (MEM_GROWING) when (1) that growth over the ns steady steps
 * exceeds 5% of the peak and (2) the slope is positive in each third of
 * the window too: a flat series with noise has a small slope and thirds
 * of either sign, a leak rises throughout. */
static int mem_growth(const struct probe *p, double lo, double hi, size_t ns, double peak,
		      struct probe_result *r)
{
	size_t nmem = 0;
	double slope = mem_slope(p, lo, hi, &nmem), span = (hi - lo) / 3;
	int rising = 0;

	r->mem_growth = fin(slope * r->steady_step_s);
	if (nmem >= 6 && r->mem_growth > 0 && peak > 0 &&
	    r->mem_growth * (double)ns > 0.05 * peak) {
		rising = 1;
		for (int k = 0; k < 3 && rising; k++) {
			size_t c;
			double s3 = mem_slope(p, lo + k * span, lo + (k + 1) * span, &c);

			if (!(s3 > 0))
				rising = 0;
		}
	}
	return rising;
}

/* The diagnoses, in the enum's order: n steps, w of them warm-up, ns
 * steady. */
static void diagnose(const struct probe *p, const struct probe_inputs *in, size_t n, size_t w, size_t ns,
		     int have_mem, int mem_growing, struct probe_result *r)
{
	if (w > 0 && n >= 2)
		add_diag(r, PROBE_D_WARMUP, r->first_step_s, r->steady_step_s, (long)w);
	if (r->util_median >= 0 && r->cpu_median >= 0 && r->util_median < PROBE_STARVED_UTIL &&
	    r->cpu_median >= PROBE_STARVED_CPU)
		add_diag(r, PROBE_D_DATA_STARVED, r->util_median, r->cpu_median, (long)ns);
	if (ns >= 9 && r->first_third_s > 0 &&
	    r->last_third_s / r->first_third_s > PROBE_SLOWING_RATIO)
		add_diag(r, PROBE_D_SLOWING, r->first_third_s, r->last_third_s, (long)ns);
	if (mem_growing)
		add_diag(r, PROBE_D_MEM_GROWING, r->mem_growth, r->mem_growth * (double)ns, (long)ns);
	if (p->mem_visible > 0 && in->nominal_mem > 0 &&
	    p->mem_visible < PROBE_SLICE_RATIO * in->nominal_mem)
		add_diag(r, PROBE_D_SLICED, p->mem_visible, in->nominal_mem, 0);
	if (n < 2)
		add_diag(r, PROBE_D_NO_STEPS, 0, 0, (long)p->nsteps);
	if (!have_mem)
		add_diag(r, PROBE_D_NO_GPU_MEMORY, 0, 0, 0);
}

/* Throughput and what it implies, and the estimate's errors against it. */
static void throughput(const struct probe_inputs *in, struct probe_result *r)
{
	if (in->units_per_step > 0 && r->steady_step_s > 0)
		r->units_per_s = fin(in->units_per_step / r->steady_step_s);
	if (r->units_per_s > 0 && in->flops_per_unit > 0 && in->peak_flops > 0 && in->gpus > 0)
		r->mfu = fin(r->units_per_s * in->flops_per_unit / (in->peak_flops * (double)in->gpus));
	/* docs/probe.md "Impossible readings": no job computes more than the
	 * card's dense peak; above it the step count, the units a step or the
	 * GPU is wrong, and nothing may be calibrated from the probe */
	if (r->mfu > 1)
		add_diag(r, PROBE_D_IMPOSSIBLE, r->mfu, in->peak_flops, 0);
	if (r->units_per_s > 0 && in->work > 0) {
		r->full_run_s = fin(in->work / r->units_per_s);
		if (in->price_per_hour > 0)
			r->full_run_cost = fin(r->full_run_s / 3600 * in->price_per_hour);
	}
	/* against the estimate: its memory is per GPU, the peak the job's sum */
	if (in->est_mem > 0 && r->peak_mem > 0)
		r->mem_error = fin(in->est_mem / (r->peak_mem / (double)(in->gpus > 0 ? in->gpus : 1)) - 1);
	if (in->est_step_s > 0 && r->steady_step_s > 0)
		r->step_error = fin(in->est_step_s / r->steady_step_s - 1);
}

int probe_finish(const struct probe *p, const struct probe_inputs *in, struct probe_result *r)
{
	static const struct probe_inputs none = {.warmup = -1};
	size_t n = p->nsteps, ns = 0, w = 0;
	double *d = NULL, *tmp = NULL;
	double lo = 0, hi = 0, peak = 0;
	int have_mem = 0, mem_growing = 0;

	if (!in)
		in = &none;
	*r = (struct probe_result){0};
	r->logger = p->logger;
	r->steps = (long)n;
	r->util_median = r->cpu_median = -1;

	if (n) {
		d = malloc(n * sizeof(*d));
		tmp = malloc(n * sizeof(*tmp));
		if (!d || !tmp)
			n = 0;
	}
	step_times(p, n, d);
	if (n)
		r->first_step_s = d[0];
	if (n >= 2)
		steady_window(p, in, d, tmp, n, r, &w, &ns, &lo, &hi);

	/* Memory: the peak of every reading. */
	for (size_t i = 0; i < p->nsamples; i++)
		if (p->mem[i] >= 0) {
			have_mem = 1;
			if (p->mem[i] > peak)
				peak = p->mem[i];
		}
	r->peak_mem = fin(peak);

	usage_medians(p, n, lo, hi, r);
	if (n >= 2 && have_mem && r->steady_step_s > 0 && hi > lo)
		mem_growing = mem_growth(p, lo, hi, ns, peak, r);
	diagnose(p, in, n, w, ns, have_mem, mem_growing, r);
	throughput(in, r);
	free(d);
	free(tmp);
	return 0;
}
