/*
 * fuzz_workload.c - workload_load_yaml (src/core/task/workload_yaml.c) on a
 * workload file, then workload_resolve against the embedded data, then the
 * estimate of what resolved: every figure finite and not negative.
 */
#include <math.h>

#include "core/estimate/estimate.h"
#include "core/model/workload.h"
#include "fuzz.h"

#define FUZZ_FNAME "fuzz.yaml"

/* Every number a loaded workload holds is finite (tests/unit/test_fuzz.c
 * asks the same); overflowing units are a known bug, hence strict. */
static void check_numbers(const struct workload *w)
{
	for (size_t i = 0; i < workload_nfields; i++) {
		const struct workload_field *f = &workload_fields[i];
		const char *p = (const char *)w + f->offset;
		double v;

		switch (f->type) {
		case F_COUNT: case F_BYTES: case F_DURATION: case F_FRACTION:
		case F_NUMBER: case F_BANDWIDTH:
			memcpy(&v, p, sizeof(v));
			break;
		case F_MONEY:
			memcpy(&v, p + offsetof(struct money, amount), sizeof(v));
			break;
		default:
			continue;
		}
		FUZZ_CHECK(!isnan(v));
		FUZZ_STRICT_CHECK(isfinite(v));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workload w;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	char err[512];
	int rc, bad;

	workload_init(&w);
	err[0] = '\0';
	rc = workload_load_yaml(&w, (const char *)data, size, FUZZ_FNAME, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* "fname:line: field: what", one line */
		FUZZ_CHECK(!strncmp(err, FUZZ_FNAME, strlen(FUZZ_FNAME)));
		FUZZ_CHECK(fuzz_one_line(err));
		return 0;
	}
	FUZZ_CHECK(memchr(w.model, '\0', sizeof(w.model)) != NULL);
	FUZZ_CHECK(memchr(w.gpu, '\0', sizeof(w.gpu)) != NULL);
	FUZZ_CHECK(memchr(w.lora_targets, '\0', sizeof(w.lora_targets)) != NULL);
	check_numbers(&w);
	err[0] = '\0';
	bad = -2;
	rc = workload_resolve(&w, fuzz_model_db(), fuzz_gpu_db(), &arch, &gpu, &bad, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(bad >= -1 && bad < (int)workload_nfields);
		return 0;
	}
	{
		static struct estimate e;
		if (estimate_run(&w, &arch, gpu, &e, err, sizeof(err)))
			return 0;
		const struct est_mem *M = &e.mem;
		const double mem[] = {M->weights, M->gradients, M->optimizer, M->adapters, M->quant_consts,
				      M->activations, M->logits, M->kv_cache, M->sharding, M->dequant,
				      M->int8_saved, M->quant_saved, M->step_temp, M->load_inflight,
				      M->train_peak, M->allocated, M->allocator, M->total};
		for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
			FUZZ_CHECK(!isnan(mem[i]) && mem[i] >= 0);
		FUZZ_CHECK(!isnan(e.wall_seconds) && e.wall_seconds >= 0);
		FUZZ_CHECK(!isnan(e.decode_tokens_per_second) && e.decode_tokens_per_second >= 0);
		FUZZ_CHECK(!isnan(e.flops_per_unit) && !isnan(e.mfu) && !isnan(e.comm_seconds));
		FUZZ_STRICT_CHECK(isfinite(e.mem.total) && isfinite(e.wall_seconds));
	}
	return 0;
}
