/* test_catalog.c - loading SkyPilot and gpurent catalogs: normalisation
 * and every quirk counted (issue 3 "Offers", acceptance 2-3), and the
 * query language. Fixtures: tests/data/catalogs/, tests/data/offers-mixed.csv. */
#include "testutil.h"

#include "../../src/core/catalog.h"
#include "../../src/core/query.h"

static char bad_lines[16][256];
static int nbad;

static void on_bad(void *ctx, const char *msg)
{
	(void)ctx;
	if (nbad < 16)
		snprintf(bad_lines[nbad], sizeof(bad_lines[0]), "%s", msg);
	nbad++;
}

static struct currency rate_v[] = {{"USD", 1, 0}, {"CNY", 0.1389, 0}};
static const struct currency_table rates = {rate_v, 2, 2};

static struct offer_set set;
static char *bufs[16];
static int nbufs;

static const struct catalog_report *load(const char *rel, const char *provider)
{
	size_t len;
	char err[512];
	struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad, .provider = provider};
	char *buf = tu_read(rel, &len);

	assert_non_null(buf);
	bufs[nbufs++] = buf;
	if (catalog_load(&set, buf, len, false, rel, &o, err, sizeof(err)))
		fail_msg("%s", err);
	return &set.reports[set.nreports - 1];
}

static const struct offer *find(const char *instance)
{
	for (size_t i = 0; i < set.n; i++)
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

static void test_skypilot_normalisation(void **s)
{
	const struct catalog_report *r;
	const struct offer *o;

	(void)s;
	nbad = 0;
	r = load("tests/data/catalogs/acme/vms.csv", "acme");
	assert_string_equal(r->format, "skypilot");
	assert_int_equal(r->rows, 8);
	assert_int_equal(r->cpu_only, 1);
	assert_int_equal(r->duplicates, 1);
	assert_int_equal(r->unknown_gpu, 0);       /* RTX6000 (24 GB) is the Quadro, not the RTX 6000 Ada */
	assert_int_equal(r->loaded, 6);
	assert_int_equal(nbad, 0);
	o = find("gpu_1x_a100_sxm4");
	assert_string_equal(o->gpu->name, "NVIDIA A100 40GB SXM");
	assert_true(o->spot_price == 0.52);
	o = find("a100-pcie_1x");                  /* "A100" with 80 GiB: the memory decides */
	assert_string_equal(o->gpu->name, "NVIDIA A100 80GB PCIe");
	o = find("gpu_8x_a100_80gb_sxm4");
	assert_string_equal(o->gpu->name, "NVIDIA A100 80GB SXM");
	assert_true(offer_price_per_gpu(o) == 14.32 / 8);
	assert_true(o->gpu_mem == 80e9);
	o = find("gpu_1x_h100");
	assert_string_equal(o->gpu->name, "NVIDIA H100 SXM");
	o = find("gpu_1x_quadro");
	assert_string_equal(o->gpu->name, "NVIDIA Quadro RTX 6000");
	assert_true(o->gpu_mem == 24e9);                /* the datasheet GB of the row the name and memory agree on */
	assert_int_equal(o->supply, SUPPLY_AI_CLOUD);
}

static void test_skypilot_quirks(void **s)
{
	const struct catalog_report *r;
	const struct offer *o;

	(void)s;
	nbad = 0;
	r = load("tests/data/catalogs/quirky/vms.csv", "vast");
	assert_int_equal(r->rows, 8);
	assert_int_equal(r->loaded, 4);
	assert_int_equal(r->bad_rows, 3);
	assert_int_equal(nbad, 3);
	assert_string_equal(bad_lines[0], "tests/data/catalogs/quirky/vms.csv:6: Price: expected a price from 0 to 1e6 USD per hour, got '-0.5'");
	assert_non_null(strstr(bad_lines[1], "quirky/vms.csv:7: Price:"));
	assert_non_null(strstr(bad_lines[2], "quirky/vms.csv:9: (row):"));
	assert_int_equal(r->missing_price, 1);
	assert_int_equal(r->spot_placeholder, 2);      /* 0.00 and 99999999 */
	assert_int_equal(r->spot_above_price, 1);      /* 0.99 spot over 0.86 on demand */
	assert_int_equal(r->mem_total_fixed, 1);       /* 196512 MiB for 8 cards */
	assert_int_equal(r->mem_from_spec, 3);
	o = find("8x-4090");
	assert_string_equal(o->gpu->name, "NVIDIA GeForce RTX 4090");
	assert_true(o->gpu_mem == 24e9);
	assert_true(o->spot_price == 0);
	assert_int_equal(o->supply, SUPPLY_MARKETPLACE);
	assert_true(find("1x-l40s")->spot_price == 0);
	assert_true(find("1x-l4")->spot_price == 0.20);
	assert_null(find("1x-negative"));
}

static void test_gpurent_format(void **s)
{
	const struct catalog_report *r;
	const struct offer *o;

	(void)s;
	nbad = 0;
	r = load("tests/data/offers-mixed.csv", NULL);
	assert_string_equal(r->format, "gpurent");
	assert_int_equal(r->loaded, 4);
	assert_int_equal(r->bad_rows, 3);
	assert_non_null(strstr(bad_lines[0], "offers-mixed.csv:6: price: expected a price from 0 to 1e6"));
	assert_non_null(strstr(bad_lines[1], "offers-mixed.csv:7: currency: unknown currency"));
	assert_non_null(strstr(bad_lines[2], "offers-mixed.csv:8: supply_type: expected hyperscaler"));
	o = find("4090");
	assert_near(o->price, 1.98 * 0.1389, 1e-12);     /* CNY -> USD */
	o = find("a100-partition");
	assert_int_equal(o->supply, SUPPLY_CAMPUS_HPC);
	assert_true(o->queue_wait == 86400 && o->max_runtime == 72 * 3600.0);
	assert_string_equal(o->gpu->name, "NVIDIA A100 40GB SXM");
	o = find("a100-mig-3g");
	assert_true(o->is_slice);
	assert_true(o->gpu_mem == 20e9);                  /* the slice's share, not the card's */
	o = find("4090-int");
	assert_true(offer_spot_per_gpu(o) == 0.20);
}

static void test_query(void **s)
{
	struct query q;
	char err[256];
	size_t n;

	(void)s;
	assert_int_equal(query_parse("gpu=A100 gpu_mem>=40", &q, err, sizeof(err)), 0);
	n = 0;
	for (size_t i = 0; i < set.n; i++)
		n += query_match(&q, &set.v[i]);
	assert_int_equal(n, 4);     /* 40 SXM, 80 PCIe, 8x80 SXM, the 40 GB campus card; not the 20 GB slice */
	assert_int_equal(query_parse("gpu in [h100, rtx4090] spot", &q, err, sizeof(err)), 0);
	n = 0;
	for (size_t i = 0; i < set.n; i++)
		n += query_match(&q, &set.v[i]);
	assert_int_equal(n, 1);     /* only the 2x4090 with a real spot price */
	assert_int_equal(query_parse("price<1 supply!=campus-hpc slice=false", &q, err, sizeof(err)), 0);
	assert_int_equal(query_parse("gpu_mem>=40GB", &q, err, sizeof(err)), 0);
	assert_true(q.c[0].num == 40);
	/* errors name the field and suggest */
	assert_int_equal(query_parse("gpu_memory>=40", &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: gpu_memory: unknown field (did you mean 'gpu_mem'?)");
	assert_int_equal(query_parse("price=<3", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown operator"));
	assert_int_equal(query_parse("gpu<A100", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "text takes"));
	assert_int_equal(query_parse("price<cheap", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a number"));
	assert_int_equal(query_parse("gpus in [1,2]", &q, err, sizeof(err)), -1);
	assert_int_equal(query_parse("price", &q, err, sizeof(err)), -1);
}

/* Issue query-long-value-truncated: a value longer than the buffer is
 * refused, never cut to 63 characters (which matched nothing, and made
 * != match everything); likewise field names and --sort keys. */
static void test_query_long_value_truncated(void **s)
{
	static const char v63[] = "very-long-instance-name-very-long-instance-name-very-long-insta";
	struct query q;
	struct query_sort so;
	char text[512], err[256];

	(void)s;
	assert_int_equal(strlen(v63), 63);
	snprintf(text, sizeof(text), "instance=%s", v63);
	assert_int_equal(query_parse(text, &q, err, sizeof(err)), 0);
	snprintf(text, sizeof(text), "instance=%s-", v63);
	assert_int_equal(query_parse(text, &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: instance: value longer than 63 characters");
	snprintf(text, sizeof(text), "instance!='%sx'", v63);
	assert_int_equal(query_parse(text, &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: instance: value longer than 63 characters");
	snprintf(text, sizeof(text), "gpu in [a100, %sx]", v63);
	assert_int_equal(query_parse(text, &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: gpu: value longer than 63 characters");
	snprintf(text, sizeof(text), "%s%s=1", v63, v63);
	assert_int_equal(query_parse(text, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "field name longer than 63 characters"));
	snprintf(text, sizeof(text), "price%s%s-", v63, v63);
	assert_int_equal(query_sort_parse(text, &so, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--sort: field name longer than 63 characters"));
	/* numbers are plain decimals */
	assert_int_equal(query_parse("price<0x10", &q, err, sizeof(err)), -1);
	assert_int_equal(query_parse("price<inf", &q, err, sizeof(err)), -1);
	assert_int_equal(query_parse("price<nan", &q, err, sizeof(err)), -1);
	assert_int_equal(query_parse("price<$2.5", &q, err, sizeof(err)), 0);
	assert_true(q.c[0].num == 2.5);
	assert_int_equal(query_parse("price<'\x1b[2J'", &q, err, sizeof(err)), -1);
	assert_null(strchr(err, '\x1b'));
}

/* Issue catalog-unbounded-counts: counts, vCPUs, RAM, GpuInfo memory and
 * prices finite and bounded; a row outside is a counted bad row. */
static void test_catalog_unbounded_counts(void **s)
{
	static const char sky[] =
		"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
		"real_8x_a100,A100,8.0,124.0,1800.0,10.32,us-east-1,,\n"
		"bogus_a100,A100,1e308,124.0,1800.0,10.32,us-east-1,,\n"
		"tiny_a100,A100,1e-320,124.0,1800.0,10.32,us-east-1,,\n"
		"infcpu_a100,A100,8,1e309,nan,10.32,us-east-1,,\n"
		"neg_a100,A100,8,-1,-1,10.32,us-east-1,,\n"
		"nanram_a100,A100,8,124,nan,10.32,us-east-1,,\n"
		"bigram_a100,A100,8,124,2e7,10.32,us-east-1,,\n"
		"hex_a100,A100,0x8,124,1800,10.32,us-east-1,,\n"
		"infprice_a100,A100,8,124,1800,1e300,us-east-1,,\n"
		"tinyprice_a100,A100,8,124,1800,1e-307,us-east-1,,\n"
		"gpuinfo_a100,A100,8,124,1800,10.32,us-east-1,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 1e300}}]}\",\n"
		"many_a100,A100,2048,124,1800,10.32,us-east-1,,\n"
		"esc_a100,A100,\"8\x1b[2J\",124,1800,10.32,us-east-1,,\n";
	static const char own[] =
		"provider,supply_type,instance,region,gpu,gpu_count,slice,gpu_mem_gb,vcpus,ram_gb,disk_gb,"
		"persistent_storage,price,spot_price,currency,billing,queue_wait,max_runtime,source,date\n"
		"p,ai-cloud,ok,r,A100,1,whole,80,8,64,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,half,r,L4,0.5,half,12,4,32,,no,0.4,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,big,r,A100,1e308,whole,80,8,64,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,tiny,r,A100,1e-320,whole,80,8,64,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,cpu,r,A100,1,whole,80,1e309,64,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,ram,r,A100,1,whole,80,8,1e8,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,mem,r,A100,1,whole,1e300,8,64,100,yes,1.5,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,price,r,A100,1,whole,80,8,64,100,yes,1e-307,,USD,,,,src,2024-01-01\n"
		"p,ai-cloud,wait,r,A100,1,whole,80,8,64,100,yes,1.5,,USD,,1e300d,,src,2024-01-01\n";
	struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad, .provider = "lambda"};
	struct offer_set cs;
	char err[512];

	(void)s;
	offer_set_init(&cs);
	nbad = 0;
	assert_int_equal(catalog_load(&cs, sky, strlen(sky), false, "vms.csv", &o, err, sizeof(err)), 0);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.reports[0].bad_rows, 12);
	assert_int_equal(nbad, 12);
	assert_string_equal(bad_lines[0], "vms.csv:3: AcceleratorCount: expected a number from 0.001 to 1024 (0 for none), got '1e308'");
	assert_non_null(strstr(bad_lines[1], "vms.csv:4: AcceleratorCount:"));
	assert_non_null(strstr(bad_lines[2], "vms.csv:5: vCPUs: expected a number from 0.001 to 1e5, got '1e309'"));
	assert_non_null(strstr(bad_lines[3], "vms.csv:6: vCPUs:"));
	assert_non_null(strstr(bad_lines[4], "vms.csv:7: MemoryGiB:"));
	assert_non_null(strstr(bad_lines[5], "vms.csv:8: MemoryGiB:"));
	assert_non_null(strstr(bad_lines[6], "vms.csv:9: AcceleratorCount:"));
	assert_non_null(strstr(bad_lines[7], "vms.csv:10: Price: expected a price from 0 to 1e6"));
	assert_non_null(strstr(bad_lines[8], "vms.csv:11: Price:"));
	assert_non_null(strstr(bad_lines[9], "vms.csv:12: GpuInfo:"));
	assert_non_null(strstr(bad_lines[10], "vms.csv:13: AcceleratorCount:"));
	assert_string_equal(bad_lines[11], "vms.csv:14: AcceleratorCount: expected a number from 0.001 to 1024 (0 for none), got '8\\x1b[2J'");
	for (size_t i = 0; i < cs.n; i++)
		assert_true(isfinite(offer_price_per_gpu(&cs.v[i])) && offer_price_per_gpu(&cs.v[i]) > 1e-3);
	nbad = 0;
	assert_int_equal(catalog_load(&cs, own, strlen(own), false, "offers.csv", &o, err, sizeof(err)), 0);
	assert_int_equal(cs.n, 3);   /* ok and the half slice join the SkyPilot row */
	assert_int_equal(cs.reports[1].bad_rows, 7);
	assert_non_null(strstr(bad_lines[0], "offers.csv:4: gpu_count: expected a GPU count from 0.001 to 1024"));
	assert_non_null(strstr(bad_lines[1], "offers.csv:5: gpu_count:"));
	assert_non_null(strstr(bad_lines[2], "offers.csv:6: vcpus:"));
	assert_non_null(strstr(bad_lines[3], "offers.csv:7: ram_gb:"));
	assert_non_null(strstr(bad_lines[4], "offers.csv:8: gpu_mem_gb:"));
	assert_non_null(strstr(bad_lines[5], "offers.csv:9: price:"));
	assert_non_null(strstr(bad_lines[6], "offers.csv:10: queue_wait:"));
	assert_true(cs.v[2].gpus == 0.5);
	for (size_t i = 0; i < cs.n; i++)
		assert_true(isfinite(offer_price_per_gpu(&cs.v[i])) && offer_price_per_gpu(&cs.v[i]) > 1e-3);
	offer_set_free(&cs);
}

static void test_fields_sorted(void **s)
{
	(void)s;
	for (size_t i = 1; i < query_nfields; i++)
		assert_true(strcmp(query_fields[i - 1].name, query_fields[i].name) < 0);
	assert_true(query_field_index("price") == 12);   /* cmd_offers' tie-break uses it */
}

static void test_real_catalogs(void **s)
{
	const char *shared = getenv("GPURENT_SHARED");
	static const char *const prov[] = {"cudo", "lambda", "primeintellect", "runpod", "shadeform", "vast"};
	char path[1024];
	size_t total = 0, first_file = set.nreports;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(prov); i++) {
		const struct catalog_report *r;
		size_t len;
		char *buf;
		char err[512];
		struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad, .provider = prov[i]};

		snprintf(path, sizeof(path), "%s/data/catalogs/%s/vms.csv",
			 shared ? shared : "../shared", prov[i]);
		if (!(buf = tu_read(path, &len))) {
			printf("SKIP real catalogs: %s not found (../shared is absent)\n", path);
			skip();
		}
		bufs[nbufs++] = buf;
		nbad = 0;
		if (catalog_load(&set, buf, len, false, path, &o, err, sizeof(err)))
			fail_msg("%s", err);
		r = &set.reports[set.nreports - 1];
		printf("%-15s rows %4zu offers %4zu cpu %3zu noprice %3zu dup %3zu spot-placeholder %3zu spot>price %3zu "
		       "unknown %3zu mem-total %3zu mem-spec %4zu\n", prov[i], r->rows, r->loaded, r->cpu_only,
		       r->missing_price, r->duplicates, r->spot_placeholder, r->spot_above_price, r->unknown_gpu,
		       r->mem_total_fixed, r->mem_from_spec);
		/* every row is accounted for: loaded or skipped for a counted reason */
		assert_int_equal(r->rows, r->loaded + r->cpu_only + r->missing_price + r->duplicates + r->bad_rows);
		assert_int_equal(nbad, 0);
		total += r->loaded;
	}
	/* the quirks SOURCES.md lists, found */
	assert_int_equal(set.reports[set.nreports - 1].spot_placeholder, 61);     /* vast 0.00 */
	assert_int_equal(set.reports[set.nreports - 4].spot_placeholder,
			 set.reports[set.nreports - 4].loaded);                      /* primeintellect 99999999 */
	assert_int_equal(set.reports[set.nreports - 3].spot_above_price, 100);   /* runpod L40S */
	assert_int_equal(set.reports[set.nreports - 3].duplicates, 14);           /* runpod */
	assert_true(set.reports[set.nreports - 1].mem_total_fixed > 0);           /* vast totals */
	assert_true(total > 3000);
	/* no offer is priced from a placeholder */
	for (size_t i = 0; i < set.n; i++)
		if (set.v[i].file >= first_file)
			assert_true(set.v[i].spot_price < set.v[i].price && set.v[i].price > 0 &&
				    set.v[i].price < 1000);
}

/* Two threads read a large catalog exactly as one does: same offers in the
 * same order, same report, duplicates across the halves found, bad rows
 * in the second half reported with their true line numbers, in order. */
static bool match_a100(void *ctx, const struct offer *o)
{
	(void)ctx;
	return o->gpu && strstr(o->gpu->name, "A100");
}

static void test_two_threads_equal_one(void **s)
{
	size_t cap = 8 << 20, len = 0;
	char *buf = malloc(cap);
	struct offer_set one, two;
	struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad, .provider = "synthetic"};
	char err[256], first_bad[2][256];
	int nbad_one;

	(void)s;
	len += (size_t)snprintf(buf, cap, "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n");
	for (int i = 0; len < cap - 4096; i++) {
		/* rows repeat with period 5000: the second half duplicates the first */
		int k = i % 5000;
		if (i == 60001)
			len += (size_t)snprintf(buf + len, cap - len, "bad-%d,A100,1,8,32,-1,r,,\n", i);
		len += (size_t)snprintf(buf + len, cap - len,
					"inst-%d,%s,%d,8,32,%d.%02d,\"Region, %d\",\"{'Gpus': [{'Name': 'x', 'MemoryInfo': {'SizeInMiB': %d}}]}\",%s\n",
					k, k % 3 ? "A100" : "H100", 1 + k % 2, 1 + k % 7, k % 100, k % 11,
					k % 3 ? (k % 2 ? 81920 : 40960) : 81559, k % 4 ? "" : "0.50");
	}
	offer_set_init(&one);
	offer_set_init(&two);
	o.keep = match_a100;
	o.match = match_a100;
	o.threads = 1;
	nbad = 0;
	assert_int_equal(catalog_load(&one, buf, len, false, "big.csv", &o, err, sizeof(err)), 0);
	nbad_one = nbad;
	memcpy(first_bad[0], bad_lines[0], sizeof(first_bad[0]));
	o.threads = 2;
	nbad = 0;
	assert_int_equal(catalog_load(&two, buf, len, false, "big.csv", &o, err, sizeof(err)), 0);
	memcpy(first_bad[1], bad_lines[0], sizeof(first_bad[1]));
	assert_int_equal(nbad, nbad_one);
	assert_int_equal(nbad, 1);
	assert_string_equal(first_bad[0], first_bad[1]);
	assert_non_null(strstr(first_bad[1], "big.csv:60003: Price:"));
	assert_true(one.reports[0].duplicates > 50000);
	assert_memory_equal(&one.reports[0], &two.reports[0], sizeof(one.reports[0]));
	assert_int_equal(one.n, two.n);
	assert_int_equal(one.n, 3333);   /* distinct A100 rows of the 5000 */
	for (size_t i = 0; i < one.n; i++) {
		assert_int_equal(one.v[i].line, two.v[i].line);
		assert_true(one.v[i].price == two.v[i].price && one.v[i].gpu == two.v[i].gpu);
	}
	offer_set_free(&one);
	offer_set_free(&two);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skypilot_normalisation),
		cmocka_unit_test(test_skypilot_quirks),
		cmocka_unit_test(test_gpurent_format),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_catalog_unbounded_counts),
		cmocka_unit_test(test_query_long_value_truncated),
		cmocka_unit_test(test_fields_sorted),
		cmocka_unit_test(test_real_catalogs),
		cmocka_unit_test(test_two_threads_equal_one),
	};
	return cmocka_run_group_tests_name("catalog", tests, setup, teardown);
}
