/*
 * plan_rank.c - the planner's ranking (plan_int.h): the feasible choices
 * in the order the user asked for, the cost-finish front, the fastest
 * within the margin, the top N and spot against on-demand.
 */
#include "core/plan/plan_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


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

/* resources.ordered (or accelerators as a list): SkyPilot fails over
 * in the order written, so only the first candidate with a feasible
 * offer is ranked */
static void keep_first_candidate(struct plan_choice *all, const int *cand, size_t *kept, struct plan_result *r)
{
	int best = cand[0];
	size_t k = 0;

	for (size_t i = 1; i < *kept; i++)
		if (cand[i] < best)
			best = cand[i];
	for (size_t i = 0; i < *kept; i++) {
		if (cand[i] == best)
			all[k++] = all[i];
		else
			plan_exclude(r, EX_ORDERED, all[i].offer, PLAN_D_ORDERED, cand[i] + 1, best + 1);
	}
	*kept = k;
}

/* The feasible, counted in all and by supply type (with each type's cheapest). */
static void count_feasible(const struct plan_choice *all, size_t kept, struct plan_result *r)
{
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
}

/* all sorted by cost: the cost-finish front (a choice is on it when it
 * finishes sooner than every cheaper one), the cheapest, the soonest
 * finish and the fastest within the margin of the cheapest total. */
static void mark_front(const struct plan_opts *opts, struct plan_choice *all, size_t kept, struct plan_seen *seen,
		       struct plan_result *r)
{
	double best_wall = INFINITY;
	size_t f = 0;
	double cap;

	for (size_t i = 0; i < kept; i++)
		if (all[i].wall_s < best_wall) {
			best_wall = all[i].wall_s;
			all[i].pareto = true;
			r->pareto++;
		}
	if (!kept)
		return;
	cap = all[0].cost.total * (1 + opts->fast_margin);
	seen->cheapest = all[0];   /* sorted by cost */
	seen->have_cheapest = true;
	seen->fastest_wall = all[0].wall_s;
	for (size_t i = 1; i < kept; i++) {
		if (all[i].wall_s < seen->fastest_wall)
			seen->fastest_wall = all[i].wall_s;
		if (all[i].cost.total <= cap && all[i].wall_s < all[f].wall_s)
			f = i;
	}
	if (f) {
		all[f].fastest_within = true;
		r->fastest = all[f];
		r->have_fastest = true;
	}
}

/* Spot against on-demand: the cheapest of each that met the constraints. */
static void note_spot(bool spot_only, const struct plan_seen *seen, struct plan_result *r)
{
	if (spot_only && seen->min_od_offer && seen->min_od < seen->min_spot)
		r->spot_note = (struct plan_spot_note){.code = PLAN_SPOT_ONLY_EXCLUDED, .spot = seen->min_spot_offer,
						       .on_demand = seen->min_od_offer,
						       .spot_total = seen->min_spot, .on_demand_total = seen->min_od};
	else if (!spot_only && seen->min_spot_offer && seen->min_od_offer && seen->min_spot > seen->min_od)
		r->spot_note = (struct plan_spot_note){.code = PLAN_SPOT_DEARER, .spot = seen->min_spot_offer,
						       .on_demand = seen->min_od_offer,
						       .spot_total = seen->min_spot, .on_demand_total = seen->min_od};
}

int plan_rank(const struct plan_opts *opts, bool spot_only, struct plan_choice *all, const int *cand,
	      size_t *kept, struct plan_seen *seen, struct plan_result *r)
{
	if (opts->task && opts->task->pref == SKY_PREF_ORDERED && *kept)
		keep_first_candidate(all, cand, kept, r);
	count_feasible(all, *kept, r);
	qsort(all, *kept, sizeof(*all), cmp_cost);
	mark_front(opts, all, *kept, seen, r);
	if (opts->by == PLAN_BY_TIME)
		qsort(all, *kept, sizeof(*all), cmp_time);
	/* the same instance in many regions is one choice */
	r->ranked = calloc((size_t)(opts->top > 0 ? opts->top : 1), sizeof(*r->ranked));
	if (!r->ranked)
		return -1;
	for (size_t i = 0; i < *kept && r->n < (size_t)opts->top; i++) {
		bool dup = false;
		for (size_t k = 0; k < r->n && !dup; k++)
			dup = same_offer(&r->ranked[k], &all[i]);
		if (!dup)
			r->ranked[r->n++] = all[i];
	}
	note_spot(spot_only, seen, r);
	return 0;
}
