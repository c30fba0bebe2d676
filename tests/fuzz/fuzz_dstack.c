/*
 * fuzz_dstack.c - dstack_parse (src/core/task/dstack.c) on dstack
 * configurations, every candidate matched against a fixed offer and the
 * spans --emit dstack carries checked inside the file.
 */
#include <math.h>

#include "core/task/dstack.h"
#include "fuzz.h"

#define FNAME "x.dstack.yml"

/* What dstack.h promises of a configuration that was read. */
static void check_conf(const struct dstack_conf *dc, size_t size, const struct offer *o)
{
	const struct sky_doc *d = &dc->task.doc[0];

	FUZZ_CHECK(dc->kind == DSTACK_TASK || dc->kind == DSTACK_SERVICE || dc->kind == DSTACK_DEV_ENV);
	FUZZ_CHECK(dc->task.ndoc == 1 && dc->task.not_a_task == NULL);
	FUZZ_CHECK(d->ncand >= 1 && d->ncand <= SKY_MAX_CANDIDATES);
	FUZZ_CHECK(d->num_nodes >= 1 && d->num_nodes <= SKY_MAX_NODES);
	FUZZ_CHECK(dc->spot >= -1 && dc->spot <= 1);
	FUZZ_CHECK(isfinite(dc->max_price) && dc->max_price >= 0);
	FUZZ_CHECK(memchr(dc->model, '\0', sizeof(dc->model)) != NULL);
	FUZZ_CHECK(dc->len == size);
	for (size_t i = 0; i < dc->nspan; i++)
		FUZZ_CHECK(dc->span[i].from <= dc->span[i].to && dc->span[i].to <= size);
	for (size_t i = 0; i < dc->nres; i++)
		FUZZ_CHECK(dc->res[i].from <= dc->res[i].to && dc->res[i].to <= size);
	for (size_t i = 0; i < d->ncand; i++) {
		const struct sky_res *r = &d->cand[i];
		FUZZ_CHECK(r->dstack && r->use_spot == dc->spot);
		FUZZ_CHECK(memchr(r->accel, '\0', sizeof(r->accel)) != NULL);
		FUZZ_CHECK(memchr(r->vendor, '\0', sizeof(r->vendor)) != NULL);
		FUZZ_CHECK(r->count_min >= 0 && (r->count_max == 0 || r->count_max >= r->count_min));
		FUZZ_CHECK(isfinite(r->mem_min_gb) && isfinite(r->mem_max_gb) && r->mem_min_gb >= 0);
		FUZZ_CHECK(isfinite(r->total_min_gb) && isfinite(r->total_max_gb) && r->total_min_gb >= 0);
		FUZZ_CHECK(isfinite(r->cpus) && isfinite(r->memory_gib) && isfinite(r->disk_gb));
		if (sky_res_fits(r, o, false))
			FUZZ_CHECK(sky_res_fits(r, o, true));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct offer o;
	struct dstack_conf dc;
	char err[512];
	int rc;

	fuzz_offer_p4d(&o);
	o.spot_price = 12;
	(void)dstack_file_is((const char *)data, size, FNAME);
	err[0] = '\0';
	rc = dstack_parse((const char *)data, size, FNAME, &dc, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* "x.dstack.yml[:LINE]: field: what", one line */
		FUZZ_CHECK(!strncmp(err, FNAME ":", strlen(FNAME) + 1));
		FUZZ_CHECK(fuzz_one_line(err));
	} else {
		check_conf(&dc, size, &o);
	}
	dstack_free(&dc);
	return 0;
}
