/*
 * plan_int.h - what the planner's files share (plan.c prices each offer,
 * plan_rank.c ranks the feasible, plan_advice.c advises): not a public
 * interface, only src/core/plan/plan*.c include it.
 */
#ifndef GPURENT_PLAN_INT_H
#define GPURENT_PLAN_INT_H

#include "core/plan/plan.h"

/* An instance-hour's price: on demand, or spot for a catalog row that
 * states only a spot price (offer.spot_only). */
static inline double plan_hourly(const struct offer *o)
{
	return o->spot_only ? o->spot_price : o->price;
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

/* Count offer o as excluded for e; the first such offer is its example. */
void plan_exclude(struct plan_result *r, enum plan_exclusion e, const struct offer *o,
		  enum plan_detail d, double a, double b);

/* Checkpoints by the kind of interruption (docs/formulas.md "Plan:
 * checkpoints"), plan_advice.c: on-demand's regular interval for a write
 * of write_s seconds, and the lead a scheduler's warning signal needs. */
double plan_regular_interval(double write_s);

/*
 * plan_rank.c: the kept choices all[0..*kept) (cand[i]: the task
 * candidate each matched) ranked into r: resources.ordered applied, the
 * feasible counted by supply type, the cost-finish front, the fastest
 * within the margin, the top opts->top (the same instance in many regions
 * once) and the spot-against-on-demand note (spot_only: every candidate
 * says use_spot: true). all is reordered. 0, or -1 out of memory.
 */
int plan_rank(const struct plan_opts *opts, bool spot_only, struct plan_choice *all, const int *cand,
	      size_t *kept, struct plan_seen *seen, struct plan_result *r);

/* plan_advice.c: the order of magnitude (e: the estimate on the best
 * choice's GPUs, or zeroes), then the user class, the supply types, the
 * billing, what would have to change and the checklist. */
void plan_magnitude(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		    const struct estimate *e, struct plan_result *r);
void plan_advise(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		 struct plan_result *r);

#endif
