/*
 * fuzz_gpu_db.c - gpu_db_load (src/core/model/gpu.h) on a data/gpus.csv, then every
 * name and alias looked up and suggested.
 */
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpu_db db;
	char err[512], alias[192], sug[64];

	err[0] = '\0';
	if (gpu_db_load(&db, (const char *)data, size, "gpus.csv", err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "gpus.csv");
		return 0;
	}
	for (size_t i = 0; i < db.n; i++) {
		const struct gpu_spec *g = &db.v[i];
		char *save = NULL;

		FUZZ_CHECK(memchr(g->name, '\0', sizeof(g->name)) != NULL);
		FUZZ_CHECK(memchr(g->aliases, '\0', sizeof(g->aliases)) != NULL);
		FUZZ_CHECK(memchr(g->source, '\0', sizeof(g->source)) != NULL);
		FUZZ_CHECK(gpu_class_name(g->cls) != NULL && gpu_link_name(g->link) != NULL);
		FUZZ_CHECK(g->memory_bytes >= 0 && g->mem_bw >= 0 && g->link_bw >= 0);
		/* datasheet GB x 1e9 and friends stay finite (strict: not promised) */
		FUZZ_STRICT_CHECK(isfinite(g->memory_bytes) && isfinite(g->mem_bw) &&
				  isfinite(g->fp16_flops) && isfinite(g->bf16_flops) &&
				  isfinite(g->link_bw));
		/* "By name or alias" */
		if (g->name[0])
			FUZZ_CHECK(gpu_db_find(&db, g->name) != NULL);
		memcpy(alias, g->aliases, sizeof(alias));
		for (char *a = strtok_r(alias, "|", &save); a; a = strtok_r(NULL, "|", &save))
			FUZZ_CHECK(gpu_db_find(&db, a) != NULL);
		if (gpu_db_suggest(&db, g->name, sug, sizeof(sug)) == 0)
			FUZZ_CHECK(memchr(sug, '\0', sizeof(sug)) != NULL);
	}
	gpu_db_find(&db, "A100");
	gpu_db_suggest(&db, "A10O", sug, sizeof(sug));
	gpu_db_free(&db);
	return 0;
}
