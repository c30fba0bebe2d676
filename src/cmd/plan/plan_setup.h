/*
 * plan_setup.h - the one set-up of a job's plan, shared by `plan` and
 * `report`: the prices bound, the catalogs loaded, the reference GPU, the
 * plan run and its error reported at the workload field it is about.
 */
#ifndef GPURENT_PLAN_SETUP_H
#define GPURENT_PLAN_SETUP_H

#include <stddef.h>

#include "core/plan/plan.h"
#include "cmd/plan/offers_load.h"
#include "cmd/plan/plan_pricer.h"

/*
 * The GPU a job is timed on when no offer could time it (an empty
 * catalog, nothing with specs) and the workload names none: the user
 * class and the order of magnitude (docs/formulas.md "Order of
 * magnitude") still come from the job. The 80 GB A100 (data/gpus.csv's
 * "NVIDIA A100 80GB SXM", alias A100-80GB): the most rented training
 * card, and the 80 GB the estimate's ZeRO-3 advice sizes a job to.
 */
#define PLAN_REFERENCE_GPU "A100-80GB"

/* What a plan's set-up holds while its result is used; zero it first
 * (= {0}): plan_setup_free() is then safe whatever happened. */
struct plan_setup {
	struct plan_pricer_ctx pc;   /* the billing profiles, owned */
};

/*
 * Bind the prices (data/billing.csv) into po->pricer, then load the
 * catalogs into c (catalogs[0..n), or the defaults when n is 0; offers
 * as `gpurent offers` reads them). 0, or the exit code (message printed).
 */
int plan_setup_load(struct plan_setup *s, struct offers_ctx *c, char **catalogs, size_t n,
		    struct plan_opts *po);

/*
 * Plan w (resolved: arch its architecture, gpu its GPU or NULL) on c's
 * offers with po, its reference GPU set here (gpu, else
 * PLAN_REFERENCE_GPU): 0 (r filled; free with plan_result_free()), or 2
 * with plan_run()'s error reported (wlargs_field_error(): at the file, as
 * no one field's).
 */
int plan_setup_run(const struct offers_ctx *c, const char *file, const struct workload *w,
		   const struct model_spec *arch, const struct gpu_spec *gpu, struct plan_opts *po,
		   struct plan_result *r);

void plan_setup_free(struct plan_setup *s);

#endif
