/*
 * fuzz_model_db.c - model_db_load (src/core/model/model.h) on a data/models.csv,
 * then each preset looked up and its parameter counts computed.
 */
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model_db db;
	char err[512], sug[128];

	err[0] = '\0';
	if (model_db_load(&db, (const char *)data, size, "models.csv", err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, "models.csv");
		return 0;
	}
	for (size_t i = 0; i < db.n; i++) {
		const struct model_spec *m = &db.v[i];
		struct cnn_cost c;
		double p;

		FUZZ_CHECK(memchr(m->name, '\0', sizeof(m->name)) != NULL);
		FUZZ_CHECK(memchr(m->aliases, '\0', sizeof(m->aliases)) != NULL);
		FUZZ_CHECK(model_kind_name(m->kind) != NULL);
		if (m->name[0])   /* "Preset by name or alias" */
			FUZZ_CHECK(model_db_find(&db, m->name) != NULL);
		if (model_db_suggest(&db, m->name, sug, sizeof(sug)) == 0)
			FUZZ_CHECK(memchr(sug, '\0', sizeof(sug)) != NULL);
		/* what the estimator computes from a preset (no UB on odd columns) */
		p = model_params(m);
		FUZZ_STRICT_CHECK(isfinite(p) && p >= 0);
		(void)model_params_active(m);
		(void)model_params_embedding(m);
		(void)model_params_linear(m);
		if (m->kind == MODEL_VIT)
			(void)model_vit_tokens(m, m->image_size ? m->image_size : 224);
		if (m->kind == MODEL_RESNET)
			model_cnn_cost(m, m->image_size ? m->image_size : 224, &c);
	}
	model_db_find(&db, "llama-2-7b");
	model_db_free(&db);
	return 0;
}
