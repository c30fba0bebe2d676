/*
 * plan_setup.c - the one set-up of a job's plan (plan_setup.h), for
 * `plan` (cmd_plan.c) and `report` (src/cmd/books/cmd_report.c).
 */
#include "cmd/plan/plan_setup.h"

#include "kit/wlargs.h"

int plan_setup_load(struct plan_setup *s, struct offers_ctx *c, char **catalogs, size_t n,
		    struct plan_opts *po)
{
	int rc;

	if ((rc = plan_pricer_init(&s->pc, c, &po->pricer)))
		return rc;
	return offers_load(c, catalogs, n, NULL, NULL, NULL);
}

/* The reference GPU for a workload whose own GPU is gpu (NULL: none);
 * NULL when the table lacks both. */
static const struct gpu_spec *reference_gpu(const struct gpu_db *gdb, const struct gpu_spec *gpu)
{
	return gpu ? gpu : gpu_db_find(gdb, PLAN_REFERENCE_GPU);
}

int plan_setup_run(const struct offers_ctx *c, const char *file, const struct workload *w,
		   const struct model_spec *arch, const struct gpu_spec *gpu, struct plan_opts *po,
		   struct plan_result *r)
{
	char err[512];

	po->reference_gpu = reference_gpu(&c->gdb, gpu);
	/* plan_run()'s errors are no one field's: reported at the file or command */
	if (plan_run(w, arch, &c->set, po, r, err, sizeof(err)))
		return wlargs_field_error(file, w, -1, err);
	return 0;
}

void plan_setup_free(struct plan_setup *s)
{
	plan_pricer_free(&s->pc);
}
