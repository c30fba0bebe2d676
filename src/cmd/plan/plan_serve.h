/*
 * plan_serve.h - `gpurent plan` for a service (task infer with serve set):
 * runs the service planner (src/core/plan/serve.h) on the loaded offers and
 * prints its answer as text or as JSON (schema gpurent.plan-service/1,
 * docs/serve.md), every money figure in the display currency. The words
 * are here, marked for translation.
 */
#ifndef GPURENT_PLAN_SERVE_H
#define GPURENT_PLAN_SERVE_H

#include <stdbool.h>

#include "core/model/model.h"
#include "core/plan/plan.h"
#include "core/plan/serve.h"
#include "core/model/workload.h"
#include "cmd/plan/offers_load.h"

/* true when the resolved workload w is a service (serve_wanted()). */
bool plan_serve_wanted(const struct workload *w);

/*
 * Plan and print the service w (resolved; arch its architecture) on the
 * offers loaded in c, priced through po->pricer, po->top shown,
 * po->budget_usd read as a monthly budget; money shown in cur, fx USD per
 * unit of cur (> 0). The age of the oldest price ranked is printed (and
 * warned of past stale_days days, docs/offers.md "How old the prices
 * are"). Every argument is borrowed. Returns the exit code:
 * 0 a plan, 1 nothing serves the load, 2 bad catalog rows were seen.
 */
int plan_serve_cmd(const struct workload *w, const struct model_spec *arch,
		   const struct offers_ctx *c, const struct plan_opts *po,
		   const char *cur, double fx, bool json, long stale_days);

/* The same plan into *r, printing nothing (for --emit sky); free it with
 * serve_result_free(). 0, or the exit code (the error reported). */
int plan_serve_plan(const struct workload *w, const struct model_spec *arch,
		    const struct offers_ctx *c, const struct plan_opts *po, struct serve_result *r);

#endif
