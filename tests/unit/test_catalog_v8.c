/* test_catalog_v8.c - SkyPilot v8 catalogs as their providers write them
 * (issue 11 "Catalog folders"): the header orders and GpuInfo forms of
 * hyperstack, jarvislabs, mithril, yotta, hyperbolic, lium, spheron and
 * verda load without a bad row; spot-only rows are spot offers; GpuInfo's
 * SizeInMiB is per GPU for GPUs gpus.csv lacks (but a total for vast);
 * AvailabilityZone fills offer.zone. Fixtures: tests/data/catalog-*.csv,
 * hand-made from rows of skypilot-org/skypilot-catalog catalogs/v8/. */
#include "testutil.h"

#include <math.h>

#include "core/market/catalog.h"

static int nbad;
static char last_bad[256];

static void on_bad(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_bad, sizeof(last_bad), "%s", msg);
	nbad++;
}

static struct offer_set set;
static char *bufs[32];
static int nbufs;

static const struct catalog_report *load_db(const char *rel, const char *provider,
					    const struct gpu_db *db)
{
	size_t len;
	char err[512];
	struct catalog_opts o = {.gpus = db, .bad_row = on_bad, .provider = provider};
	char *buf = tu_read(rel, &len);

	assert_non_null(buf);
	assert_true(nbufs < 32);
	bufs[nbufs++] = buf;
	if (catalog_load(&set, buf, len, false, rel, &o, err, sizeof(err)))
		fail_msg("%s", err);
	return &set.reports[set.nreports - 1];
}

static const struct catalog_report *load(const char *rel, const char *provider)
{
	return load_db(rel, provider, &tu_gdb);
}

/* the offers of the last loaded catalog */
static size_t first_of_last;

/* the most recently loaded offer of that instance */
static const struct offer *find(const char *instance)
{
	for (size_t i = set.n; i-- > 0;)
		if (set.v[i].instance.len == strlen(instance) &&
		    !memcmp(set.v[i].instance.p, instance, set.v[i].instance.len))
			return &set.v[i];
	return NULL;
}

static int setup(void **s)
{
	if (tu_setup(s))
		return -1;
	offer_set_init(&set);
	return 0;
}

static int teardown(void **s)
{
	offer_set_free(&set);
	for (int i = 0; i < nbufs; i++)
		free(bufs[i]);
	return tu_teardown(s);
}

/* gpus.csv without the cards whose names contain any of the words */
static struct gpu_db without(const char *a, const char *b)
{
	struct gpu_db db = {calloc(tu_gdb.n, sizeof(*tu_gdb.v)), 0};

	assert_non_null(db.v);
	for (size_t i = 0; i < tu_gdb.n; i++)
		if (!strstr(tu_gdb.v[i].name, a) && !strstr(tu_gdb.v[i].name, b))
			db.v[db.n++] = tu_gdb.v[i];
	assert_true(db.n < tu_gdb.n);
	return db;
}

static void test_v8_providers_load_clean(void **s)
{
	static const struct {
		const char *file, *provider;
		size_t rows, loaded;
	} cases[] = {
		{"tests/data/catalog-hyperstack.csv", "hyperstack", 3, 3},
		{"tests/data/catalog-jarvislabs.csv", "jarvislabs", 5, 4},
		{"tests/data/catalog-mithril.csv", "mithril", 2, 2},
		{"tests/data/catalog-yotta.csv", "yotta", 2, 2},
		{"tests/data/catalog-hyperbolic.csv", "hyperbolic", 2, 2},
		{"tests/data/catalog-lium.csv", "lium", 2, 2},
		{"tests/data/catalog-spheron.csv", "spheron", 3, 3},
		{"tests/data/catalog-verda.csv", "verda", 6, 4},
	};

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct catalog_report *r;
		nbad = 0;
		r = load(cases[i].file, cases[i].provider);
		if (nbad)
			fail_msg("%s: %d bad rows, last: %s", cases[i].file, nbad, last_bad);
		assert_int_equal(r->bad_rows, 0);
		assert_int_equal(r->rows, cases[i].rows);
		assert_int_equal(r->loaded, cases[i].loaded);
		assert_int_equal(r->unknown_gpu, 0);
	}
	/* yotta's GpuInfo says Count 1 on an 8-GPU row: the row's count holds */
	{
		const struct offer *o = find("8x112v952g_NVIDIA_GeForce_RTX_5090_32G_SECURE");
		assert_non_null(o);
		assert_true(o->gpus == 8);
		assert_true(fabs(offer_price_per_gpu(o) - 5.2 / 8) < 1e-9);
		assert_true(o->gpu_mem > 30e9 && o->gpu_mem < 36e9);
	}
	/* mithril states spot = on-demand: suspect, both kept */
	{
		const struct offer *o = find("ccs-h200.sxm.8x");
		assert_non_null(o);
		assert_int_equal(o->suspect, OFFER_SPOT_AT_OR_ABOVE);
	}
}

static void test_spot_only_rows(void **s)
{
	const struct catalog_report *r;
	const struct offer *o, *both;

	(void)s;
	nbad = 0;
	r = load("tests/data/catalog-verda.csv", "verda");
	assert_int_equal(nbad, 0);
	assert_int_equal(r->spot_only, 2);       /* 2B300.60V, 8B200.240V */
	assert_int_equal(r->missing_price, 1);   /* 1V100.6V: neither price */
	assert_int_equal(r->cpu_only, 1);
	o = find("8B200.240V");
	assert_non_null(o);
	assert_true(o->spot_only);
	assert_true(o->price == 0);
	assert_true(fabs(o->spot_price - 13.69) < 1e-9);
	assert_true(fabs(offer_spot_per_gpu(o) - 13.69 / 8) < 1e-9);
	assert_true(fabs(offer_rank_per_gpu(o) - 13.69 / 8) < 1e-9);   /* ranked on spot, not free */
	assert_true(o->peer_ratio == 0 && offer_peer_ratio(&set, o, NULL) == 0);
	both = find("1B300.30V");
	assert_non_null(both);
	assert_false(both->spot_only);
	assert_true(fabs(offer_rank_per_gpu(both) - 6.99) < 1e-9);
	assert_true(fabs(both->spot_price - 2.447) < 1e-9);
	/* spheron: an empty Price beside a SpotPrice, with extra columns */
	r = load("tests/data/catalog-spheron.csv", "spheron");
	assert_int_equal(r->spot_only, 1);
	o = find("n3-A100x1-spot__CANADA-1");
	assert_non_null(o);
	assert_true(o->spot_only && o->price == 0 && fabs(o->spot_price - 1.1476) < 1e-9);
}

static void test_per_gpu_memory_unknown_gpus(void **s)
{
	struct gpu_db db = without("RTX PRO 6000", "B300");
	const struct catalog_report *r;
	const struct offer *o;
	static const char *const pro[] = {"1x_RTXPRO6000_28V_160G", "2x_RTXPRO6000_56V_320G",
					  "4x_RTXPRO6000_112V_640G", "8x_RTXPRO6000_224V_1280G"};

	(void)s;
	nbad = 0;
	r = load_db("tests/data/catalog-jarvislabs.csv", "jarvislabs", &db);
	assert_int_equal(nbad, 0);
	assert_int_equal(r->unknown_gpu, 4);
	assert_int_equal(r->mem_total_fixed, 0);
	/* SizeInMiB 98304 per GPU on every row (TotalGpuMemoryInMiB = Count x it):
	 * 96 GiB = 103.1 GB per GPU whatever the count */
	for (size_t i = 0; i < ARRAY_SIZE(pro); i++) {
		o = find(pro[i]);
		assert_non_null(o);
		assert_null(o->gpu);
		assert_true(fabs(o->gpu_mem - 98304.0 * 1048576) < 1);
	}
	/* lium's 8x B300: 275456 MiB per GPU (288.8 GB), not 36.1 GB */
	r = load_db("tests/data/catalog-lium.csv", "lium", &db);
	assert_int_equal(r->unknown_gpu, 2);
	o = find("B300_8x");
	assert_non_null(o);
	assert_true(fabs(o->gpu_mem - 275456.0 * 1048576) < 1);
	assert_true(o->gpu_mem > 288e9 && o->gpu_mem < 289e9);
	/* vast states the instance total: an unknown 2-GPU card gets half */
	r = load("tests/data/catalog-vast-total.csv", "vast");
	assert_int_equal(r->unknown_gpu, 1);
	assert_int_equal(r->mem_total_fixed, 1);
	o = find("2x-XPU9000-32-65536");
	assert_non_null(o);
	assert_true(fabs(o->gpu_mem - 49152.0 * 1048576) < 1);
	/* the same file read as another provider's: per GPU */
	r = load("tests/data/catalog-vast-total.csv", "acme");
	assert_int_equal(r->mem_total_fixed, 0);
	assert_true(fabs(set.v[set.n - 1].gpu_mem - 98304.0 * 1048576) < 1);
	free(db.v);
}

static void test_gpuinfo_rule(void **s)
{
	bool d;

	(void)s;
	assert_true(catalog_gpuinfo_per_gpu("jarvislabs", 98304, 8, &d) == 98304 && !d);
	assert_true(catalog_gpuinfo_per_gpu("lambda", 16384, 8, &d) == 16384 && !d);
	assert_true(catalog_gpuinfo_per_gpu("vast", 163118, 2, &d) == 81559 && d);
	assert_true(catalog_gpuinfo_per_gpu("vast-small", 163118, 2, &d) == 81559 && d);
	assert_true(catalog_gpuinfo_per_gpu("primeintellect", 163840, 2, &d) == 81920 && d);
	assert_true(catalog_gpuinfo_per_gpu("vastai", 163118, 2, &d) == 163118 && !d);
	assert_true(catalog_gpuinfo_per_gpu("vast", 81920, 1, &d) == 81920 && !d);
	assert_true(catalog_gpuinfo_per_gpu("vast", 0, 4, &d) == 0 && !d);
	assert_true(catalog_gpuinfo_per_gpu(NULL, 1024, 4, &d) == 1024 && !d);
}

static void test_zones(void **s)
{
	const struct offer *o;

	(void)s;
	load("tests/data/catalog-zones.csv", "runpod");
	o = find("1x_A100-80GB_SECURE");
	assert_non_null(o);
	assert_int_equal(o->zone.len, 8);
	assert_memory_equal(o->zone.p, "CA-MTL-1", 8);
	assert_int_equal(o->region.len, 2);   /* region as stated (CA), the zone beside it */
	assert_memory_equal(o->region.p, "CA", 2);
	o = find("1x_H100_SECURE");
	assert_non_null(o);
	assert_int_equal(o->zone.len, 0);     /* no zone stated: the region only */
	assert_int_equal(o->region.len, 2);
	/* catalogs without the column: empty */
	load("tests/data/catalog-lium.csv", "lium");
	assert_int_equal(find("B300_8x")->zone.len, 0);
	/* GCP: the joined offer keeps its GPU row's zone, in its region */
	first_of_last = set.n;
	load("tests/data/gcp-join.csv", "gcp");
	assert_true(set.n > first_of_last);
	for (size_t i = first_of_last; i < set.n; i++) {
		o = &set.v[i];
		assert_true(o->zone.len > o->region.len && o->region.len > 0);
		assert_memory_equal(o->zone.p, o->region.p, o->region.len);   /* europe-west4-a in europe-west4 */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v8_providers_load_clean),
		cmocka_unit_test(test_spot_only_rows),
		cmocka_unit_test(test_per_gpu_memory_unknown_gpus),
		cmocka_unit_test(test_gpuinfo_rule),
		cmocka_unit_test(test_zones),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
