/* test_catalog_vast.c - vast's search answer written as SkyPilot's vast
 * fetcher writes vms.csv (sky/catalog/data_fetchers/fetch_vast.py). */
#include "testutil.h"

#include "core/market/catalog_vast.h"

/* The AcceleratorName column of a one-offer answer for gpu_name. */
static void name_of(const char *gpu_name, char *out, size_t n)
{
	char in[512], err[256];
	struct strbuf o = STRBUF_INIT;
	size_t rows, skipped;
	const char *row, *f;

	snprintf(in, sizeof(in), "{\"offers\": [{\"num_gpus\": 1, \"gpu_name\": \"%s\", \"dph_total\": 1}]}", gpu_name);
	assert_int_equal(catalog_vast_to_csv(in, strlen(in), "t.json", &o, &rows, &skipped, err, sizeof(err)), 0);
	assert_int_equal(rows, 1);
	row = strchr(o.p, '\n') + 1;
	f = strchr(row, ',') + 1;
	snprintf(out, n, "%.*s", (int)strcspn(f, ","), f);
	strbuf_release(&o);
}

static void test_gpu_names(void **s)
{
	/* fetch_vast.py: blanks removed, Ada -> -Ada, (Ti|PCIE|SXM4|SXM|NVL)$
	 * dropped, (RTX\d0\d0)(S|D)$ -> \1, and its _map */
	static const char *const cases[][2] = {
		{"RTX 4090", "RTX4090"}, {"RTX 4070 Ti", "RTX4070"}, {"H100 SXM", "H100"}, {"H100 NVL", "H100"},
		{"A100 PCIE", "A100"}, {"A100 SXM4", "A100"}, {"RTX 6000Ada", "RTX6000-Ada"}, {"RTX 2080S", "RTX2080"},
		{"Tesla V100", "V100"}, {"Tesla T4", "T4"}, {"Q RTX 8000", "RTX8000"}, {"L40S", "L40S"},
	};
	char got[128];

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		name_of(cases[i][0], got, sizeof(got));
		assert_string_equal(got, cases[i][1]);
	}
}

static void test_rows(void **s)
{
	const char *in = "{\"offers\": [{\"num_gpus\": 2, \"gpu_name\": \"RTX 4090\", \"cpu_cores\": 32, \"cpu_ram\": 129024,"
			 " \"gpu_total_ram\": 49140, \"dph_total\": 0.81, \"search\": {\"totalHour\": 0.8}, \"min_bid\": 0.41,"
			 " \"geolocation\": \"Taiwan, TW\", \"hosting_type\": 0},"
			 " {\"num_gpus\": 0, \"gpu_name\": \"\", \"dph_total\": 1}], \"extra\": [1, null]}";
	struct strbuf o = STRBUF_INIT;
	size_t rows, skipped;
	char err[256];

	(void)s;
	assert_int_equal(catalog_vast_to_csv(in, strlen(in), "t.json", &o, &rows, &skipped, err, sizeof(err)), 0);
	assert_int_equal(rows, 1);
	assert_int_equal(skipped, 1);
	assert_string_equal(o.p, CATALOG_VAST_HEADER "\n"
			    "2x-RTX_4090-32-129024,RTX4090,2,32,126.000,\"{'Gpus': [{'Name': 'RTX4090', 'Count': 2, "
			    "'MemoryInfo': {'SizeInMiB': 49140}}], 'TotalGpuMemoryInMiB': 49140}\",0.8000,0.4100,"
			    "\"Taiwan, TW\",0\n");
	strbuf_release(&o);
}

static void test_errors(void **s)
{
	static const char *const bad[][2] = {
		{"[]", "t.json: byte 1: expected a JSON object"},
		{"{\"offers\": [1]}", "t.json: byte 13: expected an offer object"},
		{"{\"offers\": [{\"num_gpus\": 1,}]}", "t.json: byte 28: expected a string"},
		{"{\"other\": 1}", "expected an \"offers\" array"},
		{"{\"offers\": []} x", "expected the end of the JSON text"},
		{"{\"offers\": [{\"gpu_name\": \"a\x01\"}]}", "expected no control character inside a string"},
	};
	char err[256];

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct strbuf o = STRBUF_INIT;
		size_t rows, skipped;
		assert_int_equal(catalog_vast_to_csv(bad[i][0], strlen(bad[i][0]), "t.json", &o, &rows, &skipped, err,
						     sizeof(err)), -1);
		if (!strstr(err, bad[i][1]))
			fail_msg("%s: %s", bad[i][0], err);
		strbuf_release(&o);
	}
	{
		/* nesting is bounded: 100 arrays deep is refused, not recursed into */
		char deep[256] = "{\"x\": ";
		struct strbuf o = STRBUF_INIT;
		size_t rows, skipped, k = strlen(deep);
		for (int i = 0; i < 100; i++)
			deep[k++] = '[';
		deep[k] = '\0';
		assert_int_equal(catalog_vast_to_csv(deep, k, "t.json", &o, &rows, &skipped, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "at most 64 levels"));
		strbuf_release(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_names),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests_name("catalog_vast", tests, NULL, NULL);
}
