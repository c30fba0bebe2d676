/*
 * spot.c - expected wall time of checkpointed work under exponential
 * interruptions and the optimal checkpoint interval (spot.h). The
 * formulas are derived in docs/billing.md ("Spot and checkpoints").
 */
#include "core/market/spot.h"
#include "base/i18n.h"

#include <math.h>
#include <stdio.h>

/* docs/billing.md "Young 1974": tau = sqrt(2 C M). */
double spot_young_interval(double c, double m)
{
	if (!(c >= 0) || !(m > 0) || isinf(c))
		return NAN;
	return sqrt(2 * c * m);
}

/* docs/billing.md "Daly 2006, higher order". */
double spot_daly_interval(double c, double m)
{
	double x;

	if (!(c >= 0) || !(m > 0) || isinf(c))
		return NAN;
	if (isinf(m))
		return INFINITY;
	if (c >= 2 * m)
		return m;
	x = c / (2 * m);
	return sqrt(2 * c * m) * (1 + sqrt(x) / 3 + x / 9) - c;
}

/* docs/billing.md "Expected wall time": M e^{R/M} (e^{(tau+C)/M} - 1) T/tau. */
double spot_daly_wall(double work, double tau, double c, double r, double m)
{
	if (!(work >= 0) || !(tau > 0) || !(c >= 0) || !(r >= 0) || !(m > 0) ||
	    isinf(work) || isinf(tau) || isinf(c) || isinf(r))
		return NAN;
	if (work == 0)
		return 0;
	if (isinf(m))
		return work * (tau + c) / tau;
	/* expm1 keeps precision when tau + C << M */
	return m * exp(r / m) * expm1((tau + c) / m) * work / tau;
}

double spot_expected_wall(double work, double c, double r, double m, double tau)
{
	if (!(work >= 0) || !(c >= 0) || !(r >= 0) || !(m > 0) || !(tau >= 0))
		return NAN;
	if (work == 0)
		return 0;
	if (c == 0)   /* no checkpoints: one segment of the whole work */
		return spot_daly_wall(work, work, 0, r, m);
	if (tau == 0)
		tau = spot_daly_interval(c, m);
	if (!(tau <= work))   /* interval longer than the job: one segment */
		tau = work;
	return spot_daly_wall(work, tau, c, r, m);
}

static int bad(char *err, size_t errlen, const char *what, double v)
{
	snprintf(err, errlen, _("%s: expected %s, got %g"), what,
		 v != v ? _("a number") : _("a positive, finite time"), v);
	return -1;
}

int spot_evaluate(const struct spot_params *p, struct spot_result *out, char *err, size_t errlen)
{
	double c = p->write_s, m = p->mtbf_s, r = p->restart_s, tau;

	if (!(c > 0) || isinf(c))
		return bad(err, errlen, "write", c);
	if (!(m > 0) || isinf(m))
		return bad(err, errlen, "mtbf", m);
	if (!(r >= 0) || isinf(r))
		return bad(err, errlen, "restart", r);
	if (!(p->work_s >= 0) || isinf(p->work_s))
		return bad(err, errlen, "work", p->work_s);
	if (!(p->interval_s >= 0) || isinf(p->interval_s))
		return bad(err, errlen, "interval", p->interval_s);
	out->young_s = spot_young_interval(c, m);
	out->daly_s = spot_daly_interval(c, m);
	tau = p->interval_s > 0 ? p->interval_s : out->daly_s;
	out->interval_s = tau;
	/* Overhead per unit of work does not depend on T (T_w is linear in T). */
	out->overhead = spot_daly_wall(1, tau, c, r, m) - 1;
	out->overhead_young = spot_daly_wall(1, out->young_s, c, r, m) - 1;
	out->wall_s = p->work_s > 0 ? spot_daly_wall(p->work_s, tau, c, r, m) : 0;
	out->lost_s = out->wall_s - p->work_s;
	out->interruptions = out->wall_s / m;
	out->wall_no_ckpt_s = p->work_s > 0 ? spot_daly_wall(p->work_s, p->work_s, 0, r, m) : 0;
	return 0;
}
