/*
 * test_gpu.c - data/gpus.csv through gpu_db_load()/gpu_db_find(): every
 * GPU name the bundled and the real SkyPilot catalogs write (issue 10
 * item 13) resolves to the intended row with the intended memory, the
 * rows that share a family differ in memory or form factor (so a
 * catalog's GpuInfo memory can pick among them), and no dense figure is
 * a sparse headline by mistake.
 */
#include "testutil.h"

#include "core/text/names.h"

static struct gpu_db db;

static int setup(void **s)
{
	size_t len;
	char *buf = tu_read("data/gpus.csv", &len), err[512];

	(void)s;
	if (!buf)
		return -1;
	if (gpu_db_load(&db, buf, len, "gpus.csv", err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	gpu_db_free(&db);
	return 0;
}

/* The spelling a catalog writes, the row it means, and that row's GB. */
static const struct {
	const char *spelling, *row;
	double gb;
} names[] = {
	/* data/offers.csv (AutoDL, Gongji) and Cudo's a800-pci rows */
	{"A800", "NVIDIA A800 80GB PCIe", 80},
	{"A800-40GB", "NVIDIA A800 40GB PCIe", 40},
	{"A800-SXM4-80GB", "NVIDIA A800 80GB SXM", 80},
	{"H800", "NVIDIA H800 SXM", 80},
	{"H800-PCIE", "NVIDIA H800 PCIe", 80},
	{"H20", "NVIDIA H20", 96},
	{"L20", "NVIDIA L20", 48},
	/* lambda: gpu_1x_rtx6000 is the 24 GB Turing card; gpu_1x_gh200 */
	{"RTX6000", "NVIDIA Quadro RTX 6000", 24},
	{"RTX6000Ada", "NVIDIA RTX 6000 Ada", 48},
	{"RTX6000-Ada", "NVIDIA RTX 6000 Ada", 48},
	{"GH200", "NVIDIA GH200 96GB", 96},
	{"GH200-144GB", "NVIDIA GH200 144GB", 144},
	/* shadeform */
	{"A5000", "NVIDIA RTX A5000", 24},
	{"A4000", "NVIDIA RTX A4000", 16},
	{"A16", "NVIDIA A16 (per GPU)", 16},
	{"RTXPro6000", "NVIDIA RTX PRO 6000 Blackwell", 96},
	{"RTX4000Ada", "NVIDIA RTX 4000 Ada", 20},
	/* runpod */
	{"RTX4000-Ada", "NVIDIA RTX 4000 Ada", 20},
	{"RTXA4000", "NVIDIA RTX A4000", 16},
	{"RTXA4500", "NVIDIA RTX A4500", 20},
	{"RTXA5000", "NVIDIA RTX A5000", 24},
	/* primeintellect */
	{"RTX2000Ada", "NVIDIA RTX 2000 Ada", 16},
	{"A4500", "NVIDIA RTX A4500", 20},
	{"RTX3070", "NVIDIA GeForce RTX 3070", 8},
	{"RTX3080Ti", "NVIDIA GeForce RTX 3080 Ti", 12},
	{"RTX4070Ti", "NVIDIA GeForce RTX 4070 Ti", 12},
	/* gcp, azure */
	{"P100", "NVIDIA Tesla P100 PCIe 16GB", 16},
	{"P4", "NVIDIA Tesla P4", 8},
	{"M60", "NVIDIA Tesla M60 (per GPU)", 8},
	{"MI25", "AMD Radeon Instinct MI25", 16},
	/* named by the issue */
	{"B200", "NVIDIA B200 (HGX, per GPU)", 180},
	{"B300", "NVIDIA B300 (HGX, per GPU)", 288},
	{"MI300X", "AMD Instinct MI300X", 192},
	{"MI325X", "AMD Instinct MI325X", 256},
	{"MI355X", "AMD Instinct MI355X", 288},
	/* case and separators do not matter */
	{"rtx_a5000", "NVIDIA RTX A5000", 24},
	{"rtx-pro-6000", "NVIDIA RTX PRO 6000 Blackwell", 96},
	{"a800 80gb sxm", "NVIDIA A800 80GB SXM", 80},
};

static void test_catalog_spellings(void **s)
{
	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const struct gpu_spec *g = gpu_db_find(&db, names[i].spelling);
		if (!g)
			fail_msg("'%s' is unknown, want %s", names[i].spelling, names[i].row);
		if (strcmp(g->name, names[i].row))
			fail_msg("'%s' resolves to '%s', want '%s'", names[i].spelling, g->name, names[i].row);
		if (g->memory_bytes != names[i].gb * 1e9)
			fail_msg("'%s': %g GB, want %g", names[i].spelling, g->memory_bytes / 1e9, names[i].gb);
	}
	/* TPUs of the GCP catalog are not GPUs: not added */
	assert_null(gpu_db_find(&db, "tpu-v3-8"));
	assert_null(gpu_db_find(&db, "tpu-v2-8"));
}

/* The China-market cuts: same compute as the parent card, less NVLink. */
static void test_export_variants(void **s)
{
	const struct gpu_spec *a100 = gpu_db_find(&db, "A100-80GB"), *a800 = gpu_db_find(&db, "A800-SXM");
	const struct gpu_spec *h100 = gpu_db_find(&db, "H100"), *h800 = gpu_db_find(&db, "H800");

	(void)s;
	assert_non_null(a100);
	assert_non_null(a800);
	assert_non_null(h100);
	assert_non_null(h800);
	assert_true(a800->bf16_flops == a100->bf16_flops);
	assert_true(a800->mem_bw == a100->mem_bw);
	assert_true(a800->link_bw == 400e9 && a100->link_bw == 600e9);
	assert_true(h800->bf16_flops == h100->bf16_flops);
	assert_true(h800->fp8_flops == h100->fp8_flops);
	assert_true(h800->link_bw == 400e9 && h100->link_bw == 900e9);
}

/*
 * Rows of one family (names_family, what the catalog loader matches
 * memory within) must differ in memory by more than the loader's 12%
 * tolerance or name their form factor (PCIe/SXM/NVL) for the instance
 * name's hint; and every row has a source.
 */
static void test_families_distinguishable(void **s)
{
	(void)s;
	for (size_t i = 0; i < db.n; i++) {
		char fi[64];
		assert_true(strlen(db.v[i].source) > 20);
		names_family(db.v[i].name, fi, sizeof(fi));
		for (size_t k = 0; k < i; k++) {
			char fk[64];
			double a = db.v[i].memory_bytes, b = db.v[k].memory_bytes;
			names_family(db.v[k].name, fk, sizeof(fk));
			if (strcmp(fi, fk) || fabs(a - b) > 0.12 * (a < b ? a : b))
				continue;
			if (!(strstr(db.v[i].name, "PCIe") || strstr(db.v[i].name, "SXM") ||
			      strstr(db.v[i].name, "NVL")) ||
			    !(strstr(db.v[k].name, "PCIe") || strstr(db.v[k].name, "SXM") ||
			      strstr(db.v[k].name, "NVL")))
				fail_msg("'%s' and '%s' share family '%s' and memory: the loader cannot tell them apart",
					 db.v[i].name, db.v[k].name, fi);
		}
	}
}

/*
 * Dense, not sparse, in the same convention on every row: FP8 is twice
 * FP16 where both exist (Ada, Hopper, Blackwell, CDNA 3/4; the L40S
 * datasheet's 733 / 362.05 is the widest at 2.025), and no GPU's dense
 * FP16 exceeds 2.6 PFLOPS (B300 2.25, MI355X 2.52): a sparse headline
 * copied by mistake would break one of the two.
 */
static void test_dense_figures(void **s)
{
	(void)s;
	for (size_t i = 0; i < db.n; i++) {
		const struct gpu_spec *g = &db.v[i];
		if (g->fp16_flops > 0 && g->fp8_flops > 0 && fabs(g->fp8_flops / g->fp16_flops - 2) > 0.03)
			fail_msg("%s: FP8 %g is not twice FP16 %g", g->name, g->fp8_flops, g->fp16_flops);
		assert_true(g->fp16_flops <= 2.6e15);
		assert_true(g->bf16_flops <= 2.6e15);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_spellings),
		cmocka_unit_test(test_export_variants),
		cmocka_unit_test(test_families_distinguishable),
		cmocka_unit_test(test_dense_figures),
	};
	return cmocka_run_group_tests_name("gpu", tests, setup, teardown);
}
