/* test_catalog.c - loading SkyPilot and gpurent catalogs: normalisation
 * and every quirk counted (issue 3 "Offers", acceptance 2-3), and the
 * query language. Fixtures: tests/data/catalogs/, tests/data/offers-mixed.csv. */
#include "testutil.h"

#include "core/market/catalog.h"
#include "core/market/query.h"

static char bad_lines[16][256];
static int nbad;

static void on_bad(void *ctx, const char *msg)
{
	(void)ctx;
	if (nbad < 16)
		snprintf(bad_lines[nbad], sizeof(bad_lines[0]), "%s", msg);
	nbad++;
}

static struct currency rate_v[] = {{.code = "USD", .usd = 1}, {.code = "CNY", .usd = 0.1389}};
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
	/* spot at or above on-demand: kept as read, marked suspect */
	assert_near(find("1x-l40s")->spot_price, 0.99, 1e-12);
	assert_near(find("1x-l40s")->price, 0.86, 1e-12);
	assert_int_equal(find("1x-l40s")->suspect, OFFER_SPOT_AT_OR_ABOVE);
	assert_int_equal(find("1x-l4")->suspect, OFFER_PRICE_OK);
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

static const struct offer *find_in(const struct offer_set *t, const char *instance, const char *region)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].instance.len == strlen(instance) &&
		    !memcmp(t->v[i].instance.p, instance, t->v[i].instance.len) &&
		    ((t->v[i].region.len == strlen(region) && !memcmp(t->v[i].region.p, region, t->v[i].region.len)) ||
		     (t->v[i].zone.len == strlen(region) && !memcmp(t->v[i].zone.p, region, t->v[i].zone.len))))
			return &t->v[i];   /* region or zone */
	return NULL;
}

static struct offer_set load_alone(const char *rel, const char *provider, bool trust, char **buf)
{
	struct offer_set t;
	size_t len;
	char err[512];
	struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad,
				 .provider = provider, .trust_catalog = trust};

	*buf = tu_read(rel, &len);
	assert_non_null(*buf);
	offer_set_init(&t);
	nbad = 0;
	if (catalog_load(&t, *buf, len, false, rel, &o, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(nbad, 0);
	return t;
}

/* GCP (issue 10 item 4): each GPU row joined with the cheapest host VM of
 * its zone that SkyPilot attaches it to; a GPU without one is no offer. */
static void test_gcp_join(void **s)
{
	char *buf;
	struct offer_set t = load_alone("tests/data/gcp-join.csv", "gcp-join", false, &buf);
	const struct catalog_report *r = &t.reports[0];
	const struct offer *o;

	(void)s;
	assert_int_equal(r->rows, 18);
	/* a2-highgpu-1g x2 zones, g2-standard-4, n1-highmem-4, a4-highgpu-8g */
	assert_int_equal(r->hosts_joined, 5);
	assert_int_equal(r->cpu_only, 4);       /* g2-standard-8, n1-standard-4/-8, e2: hosted nothing */
	assert_int_equal(r->no_host, 2);        /* L4 in europe-west4-a, 2x A100 without a2-highgpu-2g */
	assert_int_equal(r->duplicates, 1);
	assert_int_equal(r->loaded, 6);         /* A100 x2, L4, T4, B200, and the TPU row as before */
	assert_int_equal(r->rows, r->loaded + r->cpu_only + r->hosts_joined + r->no_host + r->duplicates +
			 r->missing_price + r->bad_rows);
	o = find_in(&t, "a2-highgpu-1g", "europe-west4-a");
	assert_non_null(o);
	assert_near(o->price, 1.61365 + 0.81406, 1e-9);
	assert_near(o->spot_price, 1.2276 + 0.33413, 1e-9);
	assert_true(o->vcpus == 12 && o->ram_gib == 85);
	assert_true(o->host.len == 13 && !memcmp(o->host.p, "a2-highgpu-1g", 13));
	assert_int_equal(o->supply, SUPPLY_HYPERSCALER);
	o = find_in(&t, "a2-highgpu-1g", "us-central1-a");
	assert_near(o->price, 2.93391 + 0.73948, 1e-9);
	/* L4: of g2-standard-4/-8 (both listed for one L4) the cheaper */
	o = find_in(&t, "g2-standard-4", "us-central1-a");
	assert_non_null(o);
	assert_near(o->price, 0.56004 + 0.14679, 1e-9);
	assert_true(o->vcpus == 4 && o->ram_gib == 16);
	/* T4: n1 with >= 4 vCPUs and >= 16 GiB: n1-standard-4 (15 GiB) is too
	 * small, n1-standard-8 dearer; the host has no spot, so neither has the offer */
	o = find_in(&t, "n1-highmem-4", "us-central1-a");
	assert_non_null(o);
	assert_near(o->price, 0.35 + 0.23664, 1e-9);
	assert_true(o->spot_price == 0);
	assert_null(find_in(&t, "g2-standard-8", "us-central1-a"));
	/* a host at 0.0 (a4: not billed apart from its GPUs) is added as 0, spot too */
	o = find_in(&t, "a4-highgpu-8g", "us-central1-a");
	assert_non_null(o);
	assert_near(o->price, 64.44, 1e-9);
	assert_near(o->spot_price, 37.3496, 1e-9);
	/* the TPU row is no GPU: left as it was */
	o = find_in(&t, "", "us-central1-a");
	assert_non_null(o);
	assert_true(o->price == 4.5 && !o->host.len);
	offer_set_free(&t);
	free(buf);
	/* another provider's catalog of the same shape is not joined */
	t = load_alone("tests/data/gcp-join.csv", "acme", false, &buf);
	assert_int_equal(t.reports[0].loaded, 8);
	assert_int_equal(t.reports[0].cpu_only, 9);
	assert_int_equal(t.reports[0].hosts_joined, 0);
	offer_set_free(&t);
	free(buf);
}

/* issue 10 item 3: spot at or above on-demand is kept and marked, unless trusted */
static void test_suspect_spot(void **s)
{
	char *buf;
	struct offer_set t = load_alone("tests/data/suspect-spot.csv", "suspect", false, &buf);
	const struct offer *o;

	(void)s;
	assert_int_equal(t.reports[0].spot_above_price, 2);   /* above, and equal */
	assert_int_equal(t.reports[0].spot_placeholder, 1);
	o = find_in(&t, "1x_L40S", "r1");
	assert_int_equal(o->suspect, OFFER_SPOT_AT_OR_ABOVE);
	assert_near(o->price, 0.43, 1e-12);
	assert_near(o->spot_price, 0.86, 1e-12);
	assert_int_equal(find_in(&t, "1x_L4", "r1")->suspect, OFFER_SPOT_AT_OR_ABOVE);
	assert_int_equal(find_in(&t, "1x_L40", "r1")->suspect, OFFER_PRICE_OK);
	assert_int_equal(find_in(&t, "1x_A10", "r1")->suspect, OFFER_PRICE_OK);   /* a placeholder */
	assert_true(find_in(&t, "1x_A10", "r1")->spot_price == 0);
	offer_set_free(&t);
	free(buf);
	t = load_alone("tests/data/suspect-spot.csv", "suspect", true, &buf);
	o = find_in(&t, "1x_L40S", "r1");
	assert_int_equal(o->suspect, OFFER_PRICE_OK);
	assert_near(o->price, 0.43, 1e-12);
	assert_true(o->spot_price == 0);
	assert_int_equal(t.reports[0].spot_above_price, 2);
	offer_set_free(&t);
	free(buf);
}

/* The median rule: >= 3 peers from >= 2 providers; campus, slices not peers */
static void test_peer_median(void **s)
{
	char *buf;
	struct offer_set t = load_alone("tests/data/suspect-peers.csv", NULL, false, &buf);
	double med = (2.0 + 2.2) / 2;   /* of 0.8, 2.0, 2.2, 2.4 */
	size_t peers;
	const struct offer *o;

	(void)s;
	assert_true(find_in(&t, "a3", "r")->peer_ratio == 0);   /* not computed yet */
	offer_set_mark_outliers(&t);
	o = find_in(&t, "a3", "r");
	assert_near(o->peer_ratio, 0.8 / med, 1e-6);
	assert_true(o->peer_ratio < CATALOG_OUTLIER_RATIO);
	assert_near(offer_peer_ratio(&t, o, &peers), 0.8 / med, 1e-6);
	assert_int_equal(peers, 4);
	assert_near(find_in(&t, "a2", "r")->peer_ratio, 2.2 / med, 1e-6);   /* per GPU */
	assert_true(find_in(&t, "a1", "r")->peer_ratio >= CATALOG_OUTLIER_RATIO);
	assert_true(find_in(&t, "c1", "r")->peer_ratio == 0);         /* campus: no peer */
	assert_true(find_in(&t, "a100-mig", "r")->peer_ratio == 0);   /* slice: no peer */
	assert_true(find_in(&t, "h3", "r")->peer_ratio == 0);         /* one provider */
	assert_true(find_in(&t, "l2", "r")->peer_ratio == 0);         /* two offers */
	offer_set_free(&t);
	free(buf);
}

/* the optional access column */
static void test_access_column(void **s)
{
	char *buf;
	struct offer_set t = load_alone("tests/data/access-offers.csv", NULL, false, &buf);
	const struct offer *o;

	(void)s;
	assert_int_equal(t.reports[0].loaded, 3);
	o = find_in(&t, "a100-partition", "cn");
	assert_true(o->access.len == 7 && !memcmp(o->access.p, "UNI-HPC", 7));
	o = find_in(&t, "pool-4090", "cn");
	assert_true(o->access.len == 9 && !memcmp(o->access.p, "Lab, Pool", 9));
	assert_int_equal(find_in(&t, "open-4090", "cn")->access.len, 0);
	offer_set_free(&t);
	free(buf);
	t = load_alone("tests/data/suspect-peers.csv", NULL, false, &buf);   /* no access column */
	assert_int_equal(t.reports[0].loaded, 11);
	assert_int_equal(find_in(&t, "c1", "r")->access.len, 0);
	offer_set_free(&t);
	free(buf);
}

/* The real GCP catalog: every row accounted for, GPU rows priced with a host */
static void test_real_gcp(void **s)
{
	const char *shared = getenv("GPURENT_SHARED");
	char path[1024], *buf;
	struct offer_set t;
	const struct catalog_report *r;
	size_t hosted = 0;

	(void)s;
	snprintf(path, sizeof(path), "%s/data/catalogs/gcp/vms.csv", shared ? shared : "../shared");
	if (!(buf = tu_read(path, &(size_t){0}))) {
		printf("SKIP real GCP catalog: %s not found (../shared is absent)\n", path);
		skip();
	}
	free(buf);
	t = load_alone(path, "gcp", false, &buf);
	r = &t.reports[0];
	assert_int_equal(r->rows, r->loaded + r->cpu_only + r->hosts_joined + r->no_host + r->duplicates +
			 r->missing_price + r->bad_rows);
	assert_true(r->hosts_joined > 100);
	for (size_t i = 0; i < t.n; i++) {
		const struct offer *o = &t.v[i];
		bool tpu = o->gpu_name.len > 4 && !memcmp(o->gpu_name.p, "tpu-", 4);
		assert_true(tpu || (o->host.len && o->instance.p == o->host.p && o->vcpus > 0 && o->ram_gib > 0));
		hosted += !tpu;
	}
	assert_true(hosted > 500);
	offer_set_free(&t);
	free(buf);
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
	assert_int_equal(query_parse("gpus in [1,a]", &q, err, sizeof(err)), -1);
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
			assert_true((set.v[i].spot_price < set.v[i].price ||
				     set.v[i].suspect == OFFER_SPOT_AT_OR_ABOVE) && set.v[i].price > 0 &&
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
	/* the peer prices too: every distinct row once, whichever half it was in */
	assert_int_equal(one.npeers, two.npeers);
	offer_set_mark_outliers(&one);
	offer_set_mark_outliers(&two);
	for (size_t i = 0; i < one.n; i++) {
		assert_int_equal(one.v[i].line, two.v[i].line);
		assert_true(one.v[i].price == two.v[i].price && one.v[i].gpu == two.v[i].gpu);
		assert_true(one.v[i].peer_ratio == two.v[i].peer_ratio);
	}
	offer_set_free(&one);
	offer_set_free(&two);
	free(buf);
}

/* Load buf with one thread and with two; the two agree on everything. */
static void load_both_ways(const char *buf, size_t len, struct offer_set *one, struct offer_set *two)
{
	struct catalog_opts o = {.gpus = &tu_gdb, .currencies = &rates, .bad_row = on_bad, .provider = "synthetic",
				 .keep = match_a100, .match = match_a100};
	char err[256], first_bad[256];
	int nbad_one;

	offer_set_init(one);
	offer_set_init(two);
	o.threads = 1;
	nbad = 0;
	assert_int_equal(catalog_load(one, buf, len, false, "big.csv", &o, err, sizeof(err)), 0);
	nbad_one = nbad;
	memcpy(first_bad, bad_lines[0], sizeof(first_bad));
	o.threads = 2;
	nbad = 0;
	assert_int_equal(catalog_load(two, buf, len, false, "big.csv", &o, err, sizeof(err)), 0);
	assert_int_equal(nbad, nbad_one);
	if (nbad)
		assert_string_equal(first_bad, bad_lines[0]);
	assert_memory_equal(&one->reports[0], &two->reports[0], sizeof(one->reports[0]));
	assert_int_equal(one->n, two->n);
	for (size_t i = 0; i < one->n; i++) {
		assert_int_equal(one->v[i].line, two->v[i].line);
		assert_true(one->v[i].price == two->v[i].price && one->v[i].gpu == two->v[i].gpu);
	}
}

/* The second thread starts after the first newline past the middle: a
 * guess. Here that newline is inside a quoted field of a row spanning the
 * middle (a Region with line breaks), so the guess is wrong and dropped:
 * the first thread reads on, and the answer is one thread's. Then a quoted
 * field that never closes, in the first half: both stop there. */
static void test_two_threads_split_in_quotes(void **s)
{
	size_t cap = 12 << 20, len = 0;
	char *buf = malloc(cap);
	struct offer_set one, two;
	const int rows = 60000;

	(void)s;
	for (int pass = 0; pass < 2; pass++) {
		len = (size_t)snprintf(buf, cap, "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n");
		for (int i = 0; i < 2 * rows; i++) {
			if (i == rows) {   /* the middle: a 1 MB row whose Region breaks lines */
				len += (size_t)snprintf(buf + len, cap - len, "inst-wide,A100,1,8,32,1.25,\"%s", pass ? "" : "r");
				for (int k = 0; k < 100000; k++)
					len += (size_t)snprintf(buf + len, cap - len, "line %05d\n", k);
				if (!pass)
					len += (size_t)snprintf(buf + len, cap - len, "\",,\n");
			}
			len += (size_t)snprintf(buf + len, cap - len, "inst-%d,A100,1,8,32,%d.%02d,r%d,,\n",
						i, 1 + i % 7, i % 100, i % 11);
		}
		load_both_ways(buf, len, &one, &two);
		if (!pass) {   /* all read: the wide row and the rows after it */
			assert_int_equal(one.reports[0].rows, 2 * rows + 1);
			assert_int_equal(one.reports[0].bad_rows, 0);
		} else {       /* the quote never closes: nothing after it */
			assert_int_equal(one.reports[0].rows, rows);
			assert_int_equal(one.reports[0].bad_rows, 1);
			assert_non_null(strstr(bad_lines[0], "unterminated quoted field"));
		}
		offer_set_free(&one);
		offer_set_free(&two);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skypilot_normalisation),
		cmocka_unit_test(test_skypilot_quirks),
		cmocka_unit_test(test_gpurent_format),
		cmocka_unit_test(test_gcp_join),
		cmocka_unit_test(test_suspect_spot),
		cmocka_unit_test(test_peer_median),
		cmocka_unit_test(test_access_column),
		cmocka_unit_test(test_real_gcp),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_catalog_unbounded_counts),
		cmocka_unit_test(test_query_long_value_truncated),
		cmocka_unit_test(test_fields_sorted),
		cmocka_unit_test(test_real_catalogs),
		cmocka_unit_test(test_two_threads_equal_one),
		cmocka_unit_test(test_two_threads_split_in_quotes),
	};
	return cmocka_run_group_tests_name("catalog", tests, setup, teardown);
}
