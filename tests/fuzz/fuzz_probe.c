/*
 * fuzz_probe.c - probe_line / probe_progress / probe_sample / probe_finish
 * (src/core/estimate/probe.h) on the input as a job's output. The first byte picks
 * the mode: odd, the first line is a --step-regex; lines starting "@p " go
 * to probe_progress, the others to probe_line, each a little later than
 * the one before (by its length), with a reading after each.
 * Invariants: a step recorded is the number returned, arrival times never
 * go back, a repeat is never recorded, and the figures are finite.
 */
#include <math.h>

#include "core/estimate/probe.h"
#include "fuzz.h"

static void check_result(const struct probe *p, const struct probe_result *r)
{
	const double v[] = {
		r->first_step_s, r->steady_step_s, r->first_third_s, r->last_third_s, r->peak_mem,
		r->mem_growth, r->util_median, r->cpu_median, r->units_per_s, r->mfu, r->full_run_s,
		r->full_run_cost, r->mem_error, r->step_error,
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		FUZZ_CHECK(isfinite(v[i]));   /* "never inf/nan" */
	FUZZ_CHECK(r->steps == (long)p->nsteps);
	FUZZ_CHECK(r->warmup >= 0 && (r->warmup < r->steps || r->warmup == 0));
	FUZZ_CHECK(r->steady_step_s >= 0 && r->first_step_s >= 0 && r->peak_mem >= 0);
	FUZZ_CHECK(r->units_per_s >= 0 && r->mfu >= 0 && r->full_run_s >= 0 && r->full_run_cost >= 0);
	FUZZ_CHECK(r->ndiags >= 0 && r->ndiags <= PROBE_MAX_DIAGS);
	for (int i = 0; i < r->ndiags; i++) {
		FUZZ_CHECK((unsigned)r->diags[i].code < PROBE_CODE_COUNT);
		FUZZ_CHECK(isfinite(r->diags[i].a) && isfinite(r->diags[i].b));
		FUZZ_CHECK(strcmp(probe_diag_name(r->diags[i].code), "?"));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe p;
	struct probe_inputs in = {.warmup = -1, .units_per_step = 4096, .flops_per_unit = 4.2e10,
				  .peak_flops = 989e12, .gpus = 1, .nominal_mem = 80e9, .work = 1e9,
				  .price_per_hour = 2.5, .est_mem = 30e9, .est_step_s = 0.3};
	struct probe_result r;
	char err[256], *s, *line, *next;
	double t = 0;
	int has_no_steps = 0;

	if (!size)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	line = s;
	next = strchr(line, '\n');
	if (next)
		*next++ = '\0';
	if (data[0] & 1) {
		if (probe_init(&p, line, 0, err, sizeof(err))) {
			FUZZ_CHECK(!strncmp(err, "--step-regex: ", 14));
			FUZZ_CHECK(fuzz_one_line(err));
			free(s);
			return 0;
		}
		line = next;
	} else {
		FUZZ_CHECK(probe_init(&p, NULL, 0, err, sizeof(err)) == 0);
		next = line;
	}
	p.mem_visible = (data[0] & 2) ? 40e9 : 0;
	in.warmup = (data[0] & 4) ? (long)(data[0] >> 4) : -1;
	for (line = next; line; line = next) {
		size_t before = p.nsteps, len;
		long last = p.last_step, got;
		enum probe_logger lg = p.logger;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		len = strlen(line);
		t += 0.01 * (double)(len % 17);
		if (!strncmp(line, "@p ", 3)) {
			got = probe_progress(&p, line + 3, t);
			if (lg != PROBE_LOG_PROGRESS && p.logger == PROBE_LOG_PROGRESS)
				before = 0, last = -1;   /* the progress file replaces the lines' steps */
		} else {
			got = probe_line(&p, line, t);
			if (lg != PROBE_LOG_NONE)
				FUZZ_CHECK(p.logger == lg);   /* one logger per job */
		}
		FUZZ_CHECK(got >= -1);
		if (got >= 0) {
			FUZZ_CHECK(p.nsteps == before + 1);
			FUZZ_CHECK(p.step[p.nsteps - 1] == got);
			FUZZ_CHECK(got != last);   /* a repeat is no new step */
			FUZZ_CHECK(p.reported_s[p.nsteps - 1] >= 0 && isfinite(p.reported_s[p.nsteps - 1]));
		} else {
			FUZZ_CHECK(p.nsteps == before);
		}
		probe_sample(&p, t, len ? (double)(unsigned char)line[0] * 1e8 : -1,
			     len > 1 ? (double)((unsigned char)line[1] % 101) : -1,
			     len > 2 ? (double)((unsigned char)line[2] % 150) : -1);
	}
	for (size_t i = 0; i < p.nsteps; i++) {
		FUZZ_CHECK(p.t[i] >= (i ? p.t[i - 1] : p.t0));   /* steps in time order */
		FUZZ_CHECK(p.step[i] >= 0);
		if (i)
			FUZZ_CHECK(p.step[i] != p.step[i - 1]);
	}
	probe_finish(&p, &in, &r);
	check_result(&p, &r);
	for (int i = 0; i < r.ndiags; i++)
		if (r.diags[i].code == PROBE_D_NO_STEPS)
			has_no_steps = 1;
	FUZZ_CHECK(has_no_steps == (p.nsteps < 2));
	probe_finish(&p, NULL, &r);
	check_result(&p, &r);
	probe_free(&p);
	free(s);
	return 0;
}
