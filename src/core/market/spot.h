/*
 * spot.h - the economics of interruptible (spot) instances: expected wall
 * time of a job that checkpoints every tau and restarts after each
 * interruption (Daly 2006), and the optimal checkpoint interval (Young
 * 1974, Daly 2006). Formulas and their sources: docs/billing.md.
 *
 * Every time is in seconds; m is the mean time between interruptions
 * (MTBF = 1/lambda), failures are exponential (Poisson in wall time) and
 * may strike during work, checkpoint writes and restarts alike.
 */
#ifndef GPURENT_SPOT_H
#define GPURENT_SPOT_H

#include <stddef.h>

/* Young 1974: tau = sqrt(2 C M). c >= 0, m > 0; NaN otherwise. */
double spot_young_interval(double c, double m);

/*
 * Daly 2006 higher-order optimum: tau = sqrt(2CM)[1 + 1/3 sqrt(C/2M) +
 * 1/9 (C/2M)] - C for C < 2M, tau = M otherwise. c >= 0, m > 0; NaN
 * otherwise. With c == 0 the optimum is 0 (checkpoint continuously).
 */
double spot_daly_interval(double c, double m);

/*
 * Daly 2006 expected wall time to finish `work` seconds of computation
 * with checkpoint interval tau, write time c, restart time r and MTBF m:
 *   T_w = M e^{R/M} (e^{(tau+C)/M} - 1) work/tau.
 * m == INFINITY (never interrupted) gives work (tau + c) / tau. tau > 0,
 * work, c, r >= 0, m > 0; NaN otherwise.
 * A job that never checkpoints is tau = work, c = 0.
 */
double spot_daly_wall(double work, double tau, double c, double r, double m);

/* What `gpurent ckpt interval` and spot pricing report. */
struct spot_params {
	double write_s;      /* C: one checkpoint's write time, > 0 */
	double mtbf_s;       /* M: mean time between interruptions, > 0 */
	double restart_s;    /* R: from interruption to computing again, >= 0 */
	double work_s;       /* T: the job's computation; 0 = per-hour figures only */
	double interval_s;   /* tau to evaluate; 0 = Daly's optimum */
};

struct spot_result {
	double young_s;          /* Young's interval */
	double daly_s;           /* Daly's higher-order interval */
	double interval_s;       /* the interval evaluated (daly_s unless given) */
	double overhead;         /* expected wall / work - 1 at interval_s (fraction) */
	double overhead_young;   /* the same at young_s */
	double wall_s;           /* expected wall time for work_s (0 when work_s == 0) */
	double lost_s;           /* wall_s - work_s: checkpoints, rework and restarts */
	double interruptions;    /* expected interruptions during wall_s: wall/M */
	double wall_no_ckpt_s;   /* expected wall time without checkpoints (tau = T, C = 0) */
};

/*
 * Fill *out for *p. Returns 0, or -1 with what was wrong (naming the
 * parameter) in err. Pure; no allocation.
 */
int spot_evaluate(const struct spot_params *p, struct spot_result *out, char *err, size_t errlen);

/*
 * Expected wall time for `work` on spot: with checkpoints (c > 0) at
 * interval tau (0 = Daly's optimum), or without (c == 0: an interruption
 * loses the whole run). m == INFINITY gives work plus checkpoint writes.
 * Returns NaN on bad arguments.
 */
double spot_expected_wall(double work, double c, double r, double m, double tau);

#endif
