/*
 * fuzz_sky_task.c - sky_task_parse (src/core/task/skytask.c) on SkyPilot task
 * YAMLs, every candidate matched by sky_res_fits against a fixed offer.
 */
#include <math.h>

#include "core/task/skytask.h"
#include "fuzz.h"

#define FNAME "task.yaml"

/* What skytask.h promises of a document that was read. */
static void check_doc(const struct sky_doc *d, const struct offer *o)
{
	FUZZ_CHECK(d->ncand >= 1 && d->ncand <= SKY_MAX_CANDIDATES);
	FUZZ_CHECK(d->num_nodes >= 1 && d->num_nodes <= SKY_MAX_NODES);
	FUZZ_CHECK(d->nenv <= SKY_MAX_ENVS);
	FUZZ_CHECK(memchr(d->name, '\0', sizeof(d->name)) != NULL);
	FUZZ_CHECK(d->pref == SKY_PREF_ONE || d->pref == SKY_PREF_ANY_OF || d->pref == SKY_PREF_ORDERED);
	for (size_t i = 0; i < d->nenv; i++)
		FUZZ_CHECK(d->env[i].key && d->env[i].value);
	for (size_t i = 0; i < d->ncand; i++) {
		const struct sky_res *r = &d->cand[i];
		FUZZ_CHECK(memchr(r->accel, '\0', sizeof(r->accel)) != NULL);
		FUZZ_CHECK(memchr(r->cloud, '\0', sizeof(r->cloud)) != NULL);
		FUZZ_CHECK(memchr(r->region, '\0', sizeof(r->region)) != NULL);
		FUZZ_CHECK(memchr(r->zone, '\0', sizeof(r->zone)) != NULL);
		FUZZ_CHECK(memchr(r->instance_type, '\0', sizeof(r->instance_type)) != NULL);
		FUZZ_CHECK(memchr(r->job_recovery, '\0', sizeof(r->job_recovery)) != NULL);
		FUZZ_CHECK(!r->accel[0] || (r->accel_count >= SKY_MIN_ACCEL_COUNT &&
					    r->accel_count <= SKY_MAX_ACCEL_COUNT));
		FUZZ_CHECK(r->use_spot >= -1 && r->use_spot <= 1);
		FUZZ_CHECK(isfinite(r->cpus) && r->cpus >= 0 && r->cpus <= SKY_MAX_CPUS);
		FUZZ_CHECK(isfinite(r->memory_gib) && r->memory_gib >= 0 && r->memory_gib <= SKY_MAX_MEMORY_GIB);
		FUZZ_CHECK(isfinite(r->disk_gb) && r->disk_gb >= 0 && r->disk_gb <= SKY_MAX_DISK_GB);
		FUZZ_CHECK(isfinite(r->autostop_idle_min) && r->autostop_idle_min >= 0);
		FUZZ_CHECK(r->nports >= 0 && r->nports <= 65535);
		/* no spot price: a spot-only candidate never fits unless spot is ignored */
		if (r->use_spot == 1)
			FUZZ_CHECK(!sky_res_fits(r, o, false));
		if (sky_res_fits(r, o, false))
			FUZZ_CHECK(sky_res_fits(r, o, true));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct offer o;
	struct sky_task t;
	char err[512];
	int rc;

	fuzz_offer_p4d(&o);
	err[0] = '\0';
	rc = sky_task_parse((const char *)data, size, FNAME, &t, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* "task.yaml:LINE: field: what", one line; a task never "not a task" */
		FUZZ_CHECK(!strncmp(err, FNAME ":", strlen(FNAME) + 1));
		FUZZ_CHECK(fuzz_one_line(err));
		sky_task_free(&t);
		return 0;
	}
	FUZZ_CHECK(t.ndoc >= 1 && t.ndoc <= SKY_MAX_DOCS);
	FUZZ_CHECK(t.not_a_task == NULL);
	for (size_t i = 0; i < t.ndoc; i++)
		check_doc(&t.doc[i], &o);
	sky_task_free(&t);
	return 0;
}
