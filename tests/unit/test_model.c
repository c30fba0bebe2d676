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
		/* issue 12: safetensors/GGUF metadata counts (data/models.csv sources) */
		{"Qwen/Qwen3-4B", 4022468096}, {"qwen3-8b", 8190735360},
		{"qwen3-14b", 14768307200}, {"qwen3-32b", 32762123264},
		{"qwen3-30b-a3b", 30532122624},
		/* the checkpoint stores the tied lm_head once more: total - V*h */
		{"qwen3-0.6b", 751632384.0 - 151936.0 * 1024}, {"qwen3-1.7b", 2031739904.0 - 151936.0 * 2048},
		{"llama-3.2-1b", 1235814400}, {"llama-3.2-3b", 3212749824},
		{"llama-3.3-70b", 70553706496}, {"deepseek-r1-distill-llama-8b", 8030261248},
		{"deepseek-r1-distill-llama-70b", 70553706496},
		{"mistral-small-24b-2501", 23572403200}, {"phi-3-mini", 3821079552},
		{"phi-4", 14659507200}, {"google/gemma-3-1b-it", 999885952},
		/* image-text totals less the SigLIP tower (416866032) and the projector */
		{"gemma-3-4b", 4300079472.0 - 416866032 - (1152.0 * 2560 + 1152)},
		{"gemma-3-12b", 12187325040.0 - 416866032 - (1152.0 * 3840 + 1152)},
		{"gemma-3-27b", 27432406640.0 - 416866032 - (1152.0 * 5376 + 1152)},
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

/* Qwen3-30B-A3B's card: "30.5B in total and 3.3B activated; 29.9B
 * non-embedding". The activated figure is truncated (3.35B), so it is
 * checked as a truncation here rather than in active_params_published. */
static void test_qwen3_moe(void **s)
{
	const struct model_spec *m = model_db_find(&tu_mdb, "Qwen/Qwen3-30B-A3B");
	const struct model_spec *big = model_db_find(&tu_mdb, "qwen3-235b-a22b");
	double act, emb;

	(void)s;
	assert_non_null(m);
	assert_non_null(big);
	act = model_params_active(m);
	emb = 2.0 * (double)m->vocab * (double)m->hidden;  /* untied: embedding + lm_head */
	assert_true(act >= 3.3e9 && act < 3.4e9);
	assert_near(model_params(m) - emb, 29.9e9, 0.01);
	/* all 128 experts resident, 8 of them computed */
	assert_true(act < model_params(m) / 9);
	assert_near(model_params_active(big), 22e9, 0.01);
	assert_near(model_params(big), 235e9, 0.01);
}

/* qk_norm adds one norm over head_dim for q and one for k in each layer. */
static void test_qk_norm(void **s)
{
	const struct model_spec *q = model_db_find(&tu_mdb, "qwen3-8b");
	const struct model_spec *g = model_db_find(&tu_mdb, "gemma-3-1b");
	struct model_spec off, on;

	(void)s;
	assert_non_null(q);
	assert_non_null(g);
	assert_true(q->qk_norm && g->qk_norm);
	off = *q;
	off.qk_norm = false;
	assert_true(model_params(q) - model_params(&off) == 36.0 * 2 * 128);
	off = *g;
	off.qk_norm = false;
	assert_true(model_params(g) - model_params(&off) == 26.0 * 2 * 256);
	/* with LayerNorm each q/k norm has a bias too */
	on = *g;
	on.norm = off.norm = NORM_LAYER;
	assert_true(model_params(&on) - model_params(&off) == 26.0 * 4 * 256);
}

/* A table written before the qk_norm column still loads (no q/k norms). */
static void test_qk_norm_column_optional(void **s)
{
	const char *old = "name,aliases,kind,params_published,active_params_published,layers,hidden,heads,kv_heads,head_dim,ffn,gated_ffn,vocab,tied_embeddings,pos_embedding,max_positions,norm,norms_per_layer,bias,experts,experts_active,dropout,image_size,patch_size,num_classes,cnn_block,cnn_stages,cnn_stem,source\n"
			  "x,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,all,,,0.1,,,,,,,src\n";
	const char *bad = "name,aliases,kind,params_published,active_params_published,layers,hidden,heads,kv_heads,head_dim,ffn,gated_ffn,vocab,tied_embeddings,pos_embedding,max_positions,norm,norms_per_layer,qk_norm,bias,experts,experts_active,dropout,image_size,patch_size,num_classes,cnn_block,cnn_stages,cnn_stem,source\n"
			  "x,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,maybe,all,,,0.1,,,,,,,src\n";
	struct model_db db;
	char err[512];

	(void)s;
	assert_int_equal(model_db_load(&db, old, strlen(old), "m.csv", err, sizeof(err)), 0);
	assert_false(db.v[0].qk_norm);
	model_db_free(&db);
	assert_int_equal(model_db_load(&db, bad, strlen(bad), "m.csv", err, sizeof(err)), -1);
	if (!strstr(err, "m.csv:2: qk_norm:"))
		fail_msg("'%s' lacks 'm.csv:2: qk_norm:'", err);
}

/* attn_softcap: optional (the old table above has none: 0), a finite
 * number >= 0; Gemma 2's presets carry 50, Llama none. */
static void test_attn_softcap_column(void **s)
{
	static const char *const bad[] = {"-1", "inf", "nan", "x", "1e400"};
	const char *hdr = "name,aliases,kind,params_published,active_params_published,layers,hidden,heads,kv_heads,head_dim,ffn,gated_ffn,vocab,tied_embeddings,pos_embedding,max_positions,norm,norms_per_layer,qk_norm,attn_softcap,bias,experts,experts_active,dropout,image_size,patch_size,num_classes,cnn_block,cnn_stages,cnn_stem,source\n";
	struct model_db db;
	char buf[1024], err[512];

	(void)s;
	snprintf(buf, sizeof(buf), "%sx,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,,30.5,all,,,0.1,,,,,,,src\n", hdr);
	assert_int_equal(model_db_load(&db, buf, strlen(buf), "m.csv", err, sizeof(err)), 0);
	assert_true(db.v[0].attn_softcap == 30.5);
	model_db_free(&db);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%sx,,decoder,1,,12,768,12,12,64,3072,no,50257,yes,learned,1024,layernorm,2,,%s,all,,,0.1,,,,,,,src\n",
			 hdr, bad[i]);
		assert_int_equal(model_db_load(&db, buf, strlen(buf), "m.csv", err, sizeof(err)), -1);
		if (!strstr(err, "m.csv:2: attn_softcap:"))
			fail_msg("'%s' (for %s) lacks 'm.csv:2: attn_softcap:'", err, bad[i]);
	}
	assert_true(model_db_find(&tu_mdb, "gemma-2-9b")->attn_softcap == 50);
	assert_true(model_db_find(&tu_mdb, "gemma-2-27b")->attn_softcap == 50);
	assert_true(model_db_find(&tu_mdb, "llama-2-7b")->attn_softcap == 0);
}

/* Every name and alias finds its own row: no alias is shadowed by another. */
static void test_aliases_unique(void **s)
{
	(void)s;
	for (size_t i = 0; i < tu_mdb.n; i++) {
		const struct model_spec *m = &tu_mdb.v[i];
		char list[sizeof(m->aliases)], *save = NULL;

		if (model_db_find(&tu_mdb, m->name) != m)
			fail_msg("name %s finds another row", m->name);
		snprintf(list, sizeof(list), "%s", m->aliases);
		for (char *a = strtok_r(list, "|", &save); a; a = strtok_r(NULL, "|", &save))
			if (model_db_find(&tu_mdb, a) != m)
				fail_msg("alias %s of %s finds another row", a, m->name);
	}
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
		cmocka_unit_test(test_qwen3_moe),
		cmocka_unit_test(test_qk_norm),
		cmocka_unit_test(test_qk_norm_column_optional),
		cmocka_unit_test(test_attn_softcap_column),
		cmocka_unit_test(test_aliases_unique),
		cmocka_unit_test(test_lookup_and_suggest),
		cmocka_unit_test(test_bad_rows_name_line_and_column),
		cmocka_unit_test(test_csv_long_erange),
		cmocka_unit_test(test_resnet_walk),
	};
	return cmocka_run_group_tests_name("model", tests, tu_setup, tu_teardown);
}
