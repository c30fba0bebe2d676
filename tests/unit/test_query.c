/*
 * test_query.c - the offer query language with vast.ai's forms
 * (src/core/market/query.h) on tests/data/vast-offers.csv, a hand-made catalog
 * in SkyPilot's vast layout: every operator, "not in", =any, lists,
 * country codes, several sort keys, live-API fields, and docs/offers.md's
 * table of vast fields against query_vast_fields[].
 */
#include "testutil.h"
#include "core/market/query.h"

static struct offer_set set;
static char *buf;

static int setup(void **s)
{
	size_t len;
	char err[512];
	struct catalog_opts o = {0};

	if (tu_setup(s))
		return -1;
	o.gpus = &tu_gdb;
	buf = tu_read("tests/data/vast-offers.csv", &len);
	if (!buf || catalog_load(&set, buf, len, false, "tests/data/vast-offers.csv", &o, err, sizeof(err))) {
		fprintf(stderr, "setup: %s\n", buf ? err : "cannot read tests/data/vast-offers.csv");
		return -1;
	}
	return 0;
}

static int teardown(void **s)
{
	(void)s;
	offer_set_free(&set);
	free(buf);
	tu_teardown(s);
	return 0;
}

/* How many offers of the fixture the query matches; -1 when it does not parse. */
static int count(const char *text)
{
	struct query q;
	char err[256];
	int n = 0;

	if (query_parse(text, &q, err, sizeof(err)))
		return -1;
	for (size_t i = 0; i < set.n; i++)
		n += query_match(&q, &set.v[i]);
	return n;
}

/* The same count computed from the offers' own fields. */
static int count_where(bool (*pred)(const struct offer *))
{
	int n = 0;

	for (size_t i = 0; i < set.n; i++)
		n += pred(&set.v[i]);
	return n;
}

static bool four_or_more(const struct offer *o) { return o->gpus >= 4; }
static bool not_four(const struct offer *o) { return o->gpus != 4; }
static bool under_four(const struct offer *o) { return o->gpus < 4; }
static bool one_or_two(const struct offer *o) { return o->gpus == 1 || o->gpus == 2; }
static bool cheap(const struct offer *o) { return o->price <= 0.9; }

static void test_operators(void **s)
{
	(void)s;
	assert_int_equal(set.n, 7);
	assert_int_equal(count("gpus>=4"), count_where(four_or_more));
	assert_int_equal(count("num_gpus>=4"), count_where(four_or_more));
	assert_int_equal(count("num_gpus gte 4"), count_where(four_or_more));
	assert_int_equal(count("num_gpus lt 4"), count_where(under_four));
	assert_int_equal(count("num_gpus  lte   2"), count_where(under_four));
	assert_int_equal(count("num_gpus gt 3"), count_where(four_or_more));
	assert_int_equal(count("num_gpus neq 4"), count_where(not_four));
	assert_int_equal(count("num_gpus noteq 4"), count_where(not_four));
	assert_int_equal(count("num_gpus not eq 4"), count_where(not_four));
	assert_int_equal(count("num_gpus eq 4") + count("num_gpus != 4"), 7);
	assert_int_equal(count("num_gpus in [1,2]"), count_where(one_or_two));
	assert_int_equal(count("num_gpus nin [1,2]") + count("num_gpus in [1,2]"), 7);
	assert_int_equal(count("num_gpus not in [1, 2]"), 7 - count_where(one_or_two));
	assert_int_equal(count("num_gpus notin[1,2]"), 7 - count_where(one_or_two));
	assert_int_equal(count("dph<=0.9"), count_where(cheap));
	assert_int_equal(count("dph_total <= 0.9"), count_where(cheap));
	assert_int_equal(count("instance_price lte 0.9"), count_where(cheap));
	/* a word operator needs blanks: "gpusgt4" is one word, no operator */
	assert_int_equal(count("gpusgt 4"), -1);
}

static void test_names_and_values(void **s)
{
	(void)s;
	/* underscores as spaces, any case, quoted or not */
	assert_int_equal(count("gpu_name=RTX_4090"), 4);
	assert_int_equal(count("gpu_name=\"RTX 4090\""), 4);
	assert_int_equal(count("gpu_name in [\"RTX 4090\", \"RTX 3090\"]"), 5);
	assert_int_equal(count("gpu_name in ['rtx_3090']"), 1);
	assert_int_equal(count("gpu_name=RTX_4090 num_gpus>=4"), 2);
	assert_int_equal(count("gpu_ram>=23"), 7);
	assert_int_equal(count("gpu_ram>=40"), 2);   /* the A100 and H100 80 GB */
	assert_int_equal(count("gpu_total_ram>=96"), 4);   /* 4x24 = 96 twice, 8x80, 4x80; 2x24 = 48 not */
	assert_int_equal(count("cpu_cores>=32") , 4);
	assert_int_equal(count("cpu_cores_effective>=32"), 4);
	/* cpu_ram: vast's thousands of MiB, 64 GiB = 65.536 */
	assert_int_equal(count("cpu_ram>65"), 4);
	assert_int_equal(count("cpu_ram>66"), 2);
	/* the layout states no disk: no value, no clause on it holds (query.h) */
	assert_int_equal(count("disk_space>=0"), 0);
	assert_int_equal(count("gpu_mem_bw>=2000"), 2);
	/* converted: compute capability x 100, FP32 TFLOPS x GPUs */
	assert_int_equal(count("compute_cap=890"), 4);
	assert_int_equal(count("compute_cap=860"), 1);
	assert_int_equal(count("compute_cap=800"), 1);
	assert_int_equal(count("compute_cap>=900"), 1);
	assert_int_equal(count("compute_cap > 610"), 7);
	assert_int_equal(count("total_flops>300"), 2);   /* 4 x 82.6, twice; 4 x 67 = 268 not; 8 x 19.5 = 156 not */
	assert_int_equal(count("total_flops>250"), 3);
	/* 82.6 / 0.4, 330.4 / 1.6, 330.4 / 1.5; not 165.2 / 0.9 nor 35.6 / 0.2 */
	assert_int_equal(count("flops_usd>200"), 3);
	assert_int_equal(count("gpu_arch=nvidia"), 7);
	assert_int_equal(count("gpu_arch=amd"), 0);
	/* min_bid: only the Stockholm row has a spot price; no value is no match */
	assert_int_equal(count("min_bid<10"), 1);
	assert_int_equal(count("min_bid!=0.4"), 1);
}

static void test_geolocation(void **s)
{
	(void)s;
	assert_int_equal(count("geolocation=TW"), 1);
	assert_int_equal(count("geolocation in [TW,SE]"), 2);
	assert_int_equal(count("geolocation notin [CN,VN]"), 5);
	assert_int_equal(count("region notin [CN,VN]"), 5);
	assert_int_equal(count("geolocation not in ['CN','VN']"), 5);
	assert_int_equal(count("geolocation != CN"), 6);
	assert_int_equal(count("region=Taiwan"), 1);
	assert_int_equal(count("region='Taiwan, TW, AS'"), 1);
	/* NA is Namibia's code and North America's continent: the code only */
	assert_int_equal(count("geolocation=NA"), 1);
	assert_int_equal(count("geolocation=AS"), 0);
	assert_int_equal(count("geolocation=EU"), 0);
	assert_int_equal(count("geolocation=T"), 0);
	assert_int_equal(count("geolocation=US"), 1);   /* Texas; ", US, NA" below too */
	{
		struct offer o = set.v[0];
		struct query q;
		char err[256];
		o.region = (struct cat_str){", US, NA", 8};
		assert_int_equal(query_parse("geolocation=US", &q, err, sizeof(err)), 0);
		assert_true(query_match(&q, &o));
		assert_int_equal(query_parse("geolocation=NA", &q, err, sizeof(err)), 0);
		assert_false(query_match(&q, &o));
		o.region = (struct cat_str){"us-east-1", 9};
		assert_int_equal(query_parse("region=us-east-1", &q, err, sizeof(err)), 0);
		assert_true(query_match(&q, &o));
		assert_int_equal(query_parse("region=us", &q, err, sizeof(err)), 0);
		assert_false(query_match(&q, &o));
	}
}

static void test_any(void **s)
{
	struct query q;
	char err[256];

	(void)s;
	assert_int_equal(query_parse("rented=any verified=any rentable=? gpus=* num_gpus>=4", &q, err, sizeof(err)), 0);
	assert_int_equal(q.n, 1);
	assert_int_equal(count("gpu_name=any"), 7);
	assert_int_equal(count("rented = any"), 7);
	assert_int_equal(count("gpus>any"), -1);
	assert_int_equal(query_parse("rented!=any", &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: rented: 'any' (every value) takes =, not !=");
}

static void test_live_fields(void **s)
{
	static const char *const live[] = {
		"reliability > 0.98", "inet_down>200", "inet_up>10", "verified=true", "verified=False",
		"rentable=true", "rented=False", "cuda_vers>=12.1", "driver_version >= 535.86.05",
		"direct_port_count>2", "datacenter=True", "dlperf>10", "dlperf_usd>1", "external=false",
		"static_ip=true", "host_id=5", "machine_id=123", "pcie_bw>10", "disk_bw>100", "cpu_arch=arm64",
		"duration>24", "score>1", "datacenter", "verified in [true]", "reliability",
	};
	struct query q;
	char err[256], want[256], name[64];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		sscanf(live[i], "%63[a-z_]", name);
		snprintf(want, sizeof(want), "query: %s: this field comes from vast's live API, not from price catalogs",
			 name);
		assert_int_equal(query_parse(live[i], &q, err, sizeof(err)), -1);
		assert_string_equal(err, want);
	}
	/* after good clauses too */
	assert_int_equal(query_parse("gpu_name=RTX_3090 num_gpus=1 reliability > 0.98", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "query: reliability: this field comes from vast's live API"));
	/* every QV_LIVE row is refused, every other one parses */
	for (size_t i = 0; i < query_vast_nfields; i++) {
		const struct query_vast_field *v = &query_vast_fields[i];
		char text[128];
		snprintf(text, sizeof(text), "%s%s", v->name,
			 v->kind == QV_ALIAS ? "" : v->type == Q_STR ? "=x" : v->type == Q_BOOL ? "=true" : ">1");
		if (v->kind == QV_ALIAS)   /* the target's type decides the value */
			snprintf(text, sizeof(text), "%s%s", v->name,
				 query_fields[query_field_index(v->target)].type == Q_STR ? "=x" : ">1");
		assert_int_equal(query_parse(text, &q, err, sizeof(err)), v->kind == QV_LIVE ? -1 : 0);
	}
	/* unknown names still suggest, vast's names among them */
	assert_int_equal(query_parse("gpu_rams>=23", &q, err, sizeof(err)), -1);
	assert_string_equal(err, "query: gpu_rams: unknown field (did you mean 'gpu_ram'?)");
}

static void test_tables(void **s)
{
	(void)s;
	for (size_t i = 1; i < query_vast_nfields; i++)
		assert_true(strcmp(query_vast_fields[i - 1].name, query_vast_fields[i].name) < 0);
	for (size_t i = 1; i < query_nfields; i++)
		assert_true(strcmp(query_fields[i - 1].name, query_fields[i].name) < 0);
	for (size_t i = 0; i < query_vast_nfields; i++) {
		const struct query_vast_field *v = &query_vast_fields[i];
		assert_int_equal(query_field_index(v->name), -1);   /* no vast name shadows a gpurent one */
		if (v->kind == QV_ALIAS)
			assert_true(query_field_index(v->target) >= 0);
		else
			assert_string_equal(v->target, "");
		assert_true(v->how[0] != '\0');
	}
	assert_int_equal(query_field_count(), query_nfields + query_vast_nfields);
}

static int sort_n(const char *text, struct query_sort *so)
{
	char err[256];

	return query_sort_parse(text, so, err, sizeof(err)) ? -1 : so->n;
}

static void test_sort(void **s)
{
	struct query_sort so;
	char err[256];
	int gpus = query_field_index("gpus"), price = query_field_index("price");

	(void)s;
	assert_int_equal(sort_n("num_gpus-", &so), 1);
	assert_int_equal(so.k[0].field, gpus);
	assert_true(so.k[0].desc);
	assert_int_equal(sort_n("gpus-,price", &so), 2);
	assert_true(so.k[0].desc && !so.k[1].desc && so.k[1].field == price);
	assert_int_equal(sort_n("num_gpus,total_flops-", &so), 2);
	assert_true(!so.k[0].desc && so.k[1].desc && so.k[1].field == query_field_lookup("total_flops", err, 256));
	assert_int_equal(sort_n("-dph, +num_gpus", &so), 2);
	assert_true(so.k[0].desc && so.k[0].field == query_field_index("instance_price") && !so.k[1].desc);
	assert_int_equal(sort_n(" , price ,", &so), 1);
	assert_int_equal(sort_n("price+", &so), 1);
	assert_false(so.k[0].desc);
	assert_int_equal(sort_n("", &so), -1);
	assert_int_equal(sort_n("-", &so), -1);
	assert_int_equal(sort_n("a,b,c,d,e,f,g,h,i", &so), -1);
	assert_int_equal(sort_n("gpus,gpus,gpus,gpus,gpus,gpus,gpus,gpus,gpus", &so), -1);
	assert_int_equal(query_sort_parse("score-", &so, err, sizeof(err)), -1);
	assert_string_equal(err, "--sort: score: this field comes from vast's live API, not from price catalogs");
	assert_int_equal(query_sort_parse("gpus-,pricey", &so, err, sizeof(err)), -1);
	assert_string_equal(err, "--sort: pricey: unknown field (did you mean 'price'?)");

	/* gpus descending, then price: a total order over the fixture consistent with the keys */
	assert_int_equal(sort_n("num_gpus-,dph", &so), 2);
	for (size_t i = 0; i < set.n; i++)
		for (size_t j = 0; j < set.n; j++) {
			const struct offer *a = &set.v[i], *b = &set.v[j];
			int r = query_compare(&so, a, b);
			int want = a->gpus != b->gpus ? (a->gpus > b->gpus ? -1 : 1)
						      : (a->price > b->price) - (a->price < b->price);
			assert_int_equal((r > 0) - (r < 0), want);
		}
	/* no value sorts last both ways */
	assert_int_equal(sort_n("min_bid", &so), 1);
	for (int d = 0; d < 2; d++) {
		so.k[0].desc = d;
		for (size_t i = 0; i < set.n; i++)
			for (size_t j = 0; j < set.n; j++) {
				const struct offer *a = &set.v[i], *b = &set.v[j];
				if (a->spot_price > 0 && !(b->spot_price > 0))
					assert_true(query_compare(&so, a, b) < 0);
			}
	}
}

/* query-unknown-is-zero: a GPU not in gpus.csv (no specs) and a row with
 * no vcpus, RAM or disk have no such value: no clause on it matches, either
 * way round, and such offers sort last both ways (query.h). */
static void test_unknown_matches_nothing(void **s)
{
	static const char *const q[] = {"tflops<10", "tflops>=0", "mem_bw<1", "mem_bw>0", "vcpus<1",
					"vcpus>=0", "ram<1", "ram!=5", "disk<1", "disk>=0", "gpu_mem<1"};
	struct offer o, k;
	struct query qq;
	struct query_sort so;
	char err[256];

	(void)s;
	memset(&o, 0, sizeof(o));
	o.gpus = 1;
	o.price = 1;
	o.gpu = NULL;   /* not in gpus.csv */
	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		assert_int_equal(query_parse(q[i], &qq, err, sizeof(err)), 0);
		if (query_match(&qq, &o))
			fail_msg("'%s' matches an offer without the value", q[i]);
	}
	/* a known value still matches */
	memset(&k, 0, sizeof(k));
	k.gpus = 1;
	k.price = 1;
	k.vcpus = 8;
	k.ram_gib = 64;
	k.disk_gb = 100;
	k.gpu_mem = 80e9;
	k.gpu = gpu_db_find(&tu_gdb, "A100-80GB");
	assert_non_null(k.gpu);
	for (size_t i = 0; i < ARRAY_SIZE(q); i += 2)
		if (i + 1 < ARRAY_SIZE(q)) {
			assert_int_equal(query_parse(q[i + 1], &qq, err, sizeof(err)), 0);
			assert_true(query_match(&qq, &k));
		}
	assert_int_equal(query_parse("vcpus<10 tflops<400", &qq, err, sizeof(err)), 0);
	assert_true(query_match(&qq, &k));
	/* sorting: the unknown one after the known one, ascending and descending */
	for (int d = 0; d < 2; d++) {
		assert_int_equal(query_sort_parse(d ? "tflops-" : "vcpus", &so, err, sizeof(err)), 0);
		assert_true(query_compare(&so, &k, &o) < 0);
		assert_true(query_compare(&so, &o, &k) > 0);
		assert_int_equal(query_compare(&so, &o, &o), 0);
	}
}

/* docs/offers.md's table of vast fields is query_vast_fields[], row by row. */
static void test_doc_table(void **s)
{
	size_t len, rows = 0;
	char *doc = tu_read("docs/offers.md", &len), *p, *end;

	(void)s;
	assert_non_null(doc);
	p = strstr(doc, "\n## vast.ai queries");
	assert_non_null(p);
	end = strstr(p + 1, "\n## ");
	if (end)
		*end = '\0';
	p = strstr(p, "\n| vast field | gpurent | what |\n");
	assert_non_null(p);
	for (size_t i = 0; i < query_vast_nfields; i++) {
		const struct query_vast_field *v = &query_vast_fields[i];
		char row[512], answer[128];
		switch (v->kind) {
		case QV_ALIAS: snprintf(answer, sizeof(answer), "alias of `%s`", v->target); break;
		case QV_CONVERTED:
			snprintf(answer, sizeof(answer), "converted%s%s%s", v->unit[0] ? " (" : "", v->unit,
				 v->unit[0] ? ")" : "");
			break;
		case QV_LIVE: snprintf(answer, sizeof(answer), "live API only"); break;
		}
		snprintf(row, sizeof(row), "\n| `%s` | %s | %s |\n", v->name, answer, v->how);
		if (!strstr(p, row))
			fail_msg("docs/offers.md lacks the row%s", row);
	}
	for (char *r = strstr(p, "\n| `"); r; r = strstr(r + 1, "\n| `"))
		rows++;
	assert_int_equal(rows, query_vast_nfields);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators),   cmocka_unit_test(test_names_and_values),
		cmocka_unit_test(test_geolocation), cmocka_unit_test(test_any),
		cmocka_unit_test(test_live_fields), cmocka_unit_test(test_tables),
		cmocka_unit_test(test_sort),        cmocka_unit_test(test_doc_table),
		cmocka_unit_test(test_unknown_matches_nothing),
	};
	return cmocka_run_group_tests_name("query", tests, setup, teardown);
}
