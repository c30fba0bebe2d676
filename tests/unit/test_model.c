/* test_model.c - presets load, and parameter counts computed from the
 * architecture agree with the counts the models' authors publish. */
#include "testutil.h"

static void test_every_preset_matches_published(void **s)
{
	(void)s;
	assert_true(tu_mdb.n >= 30);
	for (size_t i = 0; i < tu_mdb.n; i++) {
		const struct model_spec *m = &tu_mdb.v[i];
		double p = model_params(m);
		assert_true(m->params_published > 0);
		if (fabs(p - m->params_published) / m->params_published > 0.01)
			fail_msg("%s: computed %.0f, published %.0f (%.2f%% off)", m->name, p,
				 m->params_published, 100 * (p - m->params_published) / m->params_published);
		if (m->active_published > 0)
			assert_near(model_params_active(m), m->active_published, 0.01);
		assert_true(m->source[0]);
	}
}

/* Counts published to the parameter: the arithmetic must be exact. */
static void test_exact_counts(void **s)
{
	static const struct { const char *name; double params; } exact[] = {
		{"gpt2", 124439808}, {"gpt2-medium", 354823168}, {"gpt2-large", 774030080},
		{"gpt2-xl", 1557611200}, {"bert-base-uncased", 109482240}, {"bert-large", 335141888},
		{"vit_b_16", 86567656}, {"vit_l_16", 304326632}, {"resnet18", 11689512},
		{"resnet50", 25557032}, {"resnet101", 44549160}, {"resnet18-cifar", 11173962},
		{"Llama-2-7b-hf", 6738415616}, {"llama-2-13b", 13015864320}, {"llama-2-70b", 68976648192},
		{"llama-3.1-8b", 8030261248}, {"llama-3.1-70b", 70553706496},
		{"mistral-7b", 7241732096}, {"mixtral-8x7b", 46702792704},
		{"gemma-2-9b", 9241705984}, {"gemma-2-27b", 27227128320},
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++) {
		const struct model_spec *m = model_db_find(&tu_mdb, exact[i].name);
		assert_non_null(m);
		if (model_params(m) != exact[i].params)
			fail_msg("%s: computed %.0f, published %.0f", exact[i].name, model_params(m), exact[i].params);
	}
}

static void test_moe_active(void **s)
{
	const struct model_spec *m = model_db_find(&tu_mdb, "mixtral");

	(void)s;
	assert_non_null(m);
	assert_near(model_params_active(m), 12.9e9, 0.01);  /* mistral.ai: 12.9B active */
	assert_true(model_params_active(m) < model_params(m) / 3);
}

static void test_lookup_and_suggest(void **s)
{
	char sug[128];

	(void)s;
	assert_non_null(model_db_find(&tu_mdb, "meta-llama/Llama-2-7b-hf"));
	assert_non_null(model_db_find(&tu_mdb, "LLAMA_2_7B"));
	assert_null(model_db_find(&tu_mdb, "llama-2-7"));
	assert_int_equal(model_db_suggest(&tu_mdb, "llama-2-7", sug, sizeof(sug)), 0);
	assert_true(!strcmp(sug, "llama-2-7b") || !strcmp(sug, "llama2-7b"));
	assert_int_equal(model_db_suggest(&tu_mdb, "zzzzzzzzzz", sug, sizeof(sug)), -1);
}

static void test_bad_rows_name_line_and_column(void **s)
{
	size_t len;
	char *buf = tu_read("data/models.csv", &len), err[512];
	struct model_db db;
	const char *bad = "name,aliases,kind,params_published,active_params_published,layers,hidden,heads,kv_heads,head_dim,ffn,gated_ffn,vocab,tied_embeddings,pos_embedding,max_positions,norm,norms_per_layer,bias,experts,experts_active,dropout,image_size,patch_size,num_classes,cnn_block,cnn_stages,cnn_stem,source\n"
			  "x,,decoder,1,,12,768,12,5,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n";

	(void)s;
	free(buf);
	assert_int_equal(model_db_load(&db, bad, strlen(bad), "m.csv", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "m.csv:2: kv_heads:"));
}

/* Issue csv-long-erange: strtol saturated 99999999999999999999 to
 * LONG_MAX; every numeric column is finite and in range. */
static void test_csv_long_erange(void **s)
{
	static const char head[] = "name,aliases,kind,params_published,active_params_published,layers,hidden,heads,kv_heads,head_dim,ffn,gated_ffn,vocab,tied_embeddings,pos_embedding,max_positions,norm,norms_per_layer,bias,experts,experts_active,dropout,image_size,patch_size,num_classes,cnn_block,cnn_stages,cnn_stem,source\n";
	static const struct {
		const char *row, *expect;
	} cases[] = {
		{"x,,decoder,1,,99999999999999999999,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n",
		 "m.csv:2: layers: expected a whole number from 1 to 100000, got '99999999999999999999'"},
		{"x,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n", NULL},
		{"x,,decoder,1e309,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n",
		 "m.csv:2: params_published: expected a number from 0 to 1e+15"},
		{"x,,decoder,inf,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n",
		 "m.csv:2: params_published: expected"},
		{"x,,decoder,0x10,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n",
		 "m.csv:2: params_published: expected"},
		{"x,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,nan,,,,,,,src\n",
		 "m.csv:2: dropout: expected a number from 0 to 1"},
		{"x,,decoder,1,,12,768,12,12,64,3072,no,99999999999,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n",
		 "m.csv:2: vocab: expected a whole number from 0 to 100000000"},
	};
	static const char ghead[] = "name,aliases,vendor,architecture,class,memory_gb,memory_bandwidth_gbps,fp32_tflops,fp16_tflops,bf16_tflops,fp8_tflops,interconnect,link_bw_gbps,pcie_gen,tdp_w,source\n";
	static const struct {
		const char *row, *expect;
	} gcases[] = {
		{"G,,NVIDIA,x,datacenter,16,320,8,65,,,pcie,,3,70,src\n", NULL},
		{"G,,NVIDIA,x,datacenter,1e309,320,8,65,,,pcie,,3,70,src\n", "g.csv:2: memory_gb: expected a number from 0.001 to 1e+06"},
		{"G,,NVIDIA,x,datacenter,16,infinity,8,65,,,pcie,,3,70,src\n", "g.csv:2: memory_bandwidth_gbps: expected"},
		{"G,,NVIDIA,x,datacenter,16,320,8,1e300,,,pcie,,3,70,src\n", "g.csv:2: fp16_tflops: expected"},
		{"G,,NVIDIA,x,datacenter,16,320,8,65,,,pcie,,99999999999999999999,70,src\n", "g.csv:2: pcie_gen: expected a whole number from 0 to 10"},
	};
	char buf[2048], err[512];
	struct model_db db;
	struct gpu_db g;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, cases[i].row);
		if (!cases[i].expect) {
			assert_int_equal(model_db_load(&db, buf, strlen(buf), "m.csv", err, sizeof(err)), 0);
			model_db_free(&db);
			continue;
		}
		assert_int_equal(model_db_load(&db, buf, strlen(buf), "m.csv", err, sizeof(err)), -1);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].expect);
	}
	for (size_t i = 0; i < ARRAY_SIZE(gcases); i++) {
		snprintf(buf, sizeof(buf), "%s%s", ghead, gcases[i].row);
		if (!gcases[i].expect) {
			assert_int_equal(gpu_db_load(&g, buf, strlen(buf), "g.csv", err, sizeof(err)), 0);
			gpu_db_free(&g);
			continue;
		}
		assert_int_equal(gpu_db_load(&g, buf, strlen(buf), "g.csv", err, sizeof(err)), -1);
		if (!strstr(err, gcases[i].expect))
			fail_msg("gpu case %zu: '%s' lacks '%s'", i, err, gcases[i].expect);
	}
}

static void test_resnet_walk(void **s)
{
	const struct model_spec *r18 = model_db_find(&tu_mdb, "resnet-18");
	const struct model_spec *r50 = model_db_find(&tu_mdb, "resnet-50");
	struct cnn_cost c;

	(void)s;
	model_cnn_cost(r50, 224, &c);
	/* torchvision / He et al.: ResNet-50 is 4.1 GMACs = 8.2 GFLOPs per 224px image */
	assert_near(c.fwd_flops, 8.2e9, 0.03);
	model_cnn_cost(r18, 224, &c);
	/* ResNet-18: 1.8 GMACs = 3.6 GFLOPs (He et al. 2016 Table 1) */
	assert_near(c.fwd_flops, 3.6e9, 0.03);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_preset_matches_published),
		cmocka_unit_test(test_exact_counts),
		cmocka_unit_test(test_moe_active),
		cmocka_unit_test(test_lookup_and_suggest),
		cmocka_unit_test(test_bad_rows_name_line_and_column),
		cmocka_unit_test(test_csv_long_erange),
		cmocka_unit_test(test_resnet_walk),
	};
	return cmocka_run_group_tests_name("model", tests, tu_setup, tu_teardown);
}
