/*
 * test_campus.c - core/market/campus.c: data/access_slurm.csv loads, each of
 * its rows names an offer of data/offers.csv (the join plan --emit slurm
 * makes), a row is found by provider and instance without case, and a bad
 * row is refused with its file, line and column.
 */
#include "testutil.h"

#include <string.h>

#include "core/market/campus.h"

static struct offer offer_of(const char *provider, const char *instance)
{
	struct offer o;

	memset(&o, 0, sizeof(o));
	o.provider = (struct cat_str){provider, (uint32_t)strlen(provider)};
	o.instance = (struct cat_str){instance, (uint32_t)strlen(instance)};
	return o;
}

static void test_bundled(void **s)
{
	struct campus_db db;
	size_t len, olen;
	char err[512], *buf = tu_read("data/access_slurm.csv", &len), *offers = tu_read("data/offers.csv", &olen);
	struct offer o;

	(void)s;
	assert_non_null(buf);
	assert_non_null(offers);
	if (campus_db_load(&db, buf, len, "data/access_slurm.csv", err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(db.n >= 6);
	for (size_t i = 0; i < db.n; i++) {
		/* the row's provider and instance are an offer's of data/offers.csv (quoted or not) */
		char want[300];
		snprintf(want, sizeof(want), "\n%s,campus-hpc,", db.v[i].provider);
		if (!strstr(offers, want) || !strstr(offers, db.v[i].instance))
			fail_msg("data/access_slurm.csv:%zu: %s %s is no campus offer of data/offers.csv", db.v[i].line,
				 db.v[i].provider, db.v[i].instance);
	}
	o = offer_of("sjtu-hpc", "Siyuan-1 a100 partition, 1 GPU + 16 cores");
	assert_non_null(campus_db_find(&db, &o));
	assert_string_equal(campus_db_find(&db, &o)->partition, "a100");
	o = offer_of("SJTU-HPC", "Siyuan-1 debuga100 (MIG slice)");
	assert_string_equal(campus_db_find(&db, &o)->qos, "debug");
	o = offer_of("SJTU-HPC", "no such partition");
	assert_null(campus_db_find(&db, &o));
	campus_db_free(&db);
	free(buf);
	free(offers);
}

static void test_bad_rows(void **s)
{
	static const struct { const char *csv, *expect; } cases[] = {
		{"provider,instance,partition,gres_type,qos,source\nU,i,a b,,,doc\n", "t.csv:2: partition: expected one word"},
		{"provider,instance,partition,gres_type,qos,source\nU,i,p,a100:2,,doc\n", "t.csv:2: gres_type: expected one word"},
		{"provider,instance,partition,gres_type,qos,source\nU,i,p,,,\n", "t.csv:2: source: expected the cluster's documentation"},
		{"provider,instance,partition,gres_type,qos,source\nU,i,,,,doc\n", "t.csv:2: partition"},
	};
	struct campus_db db;
	char err[512];

	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(campus_db_load(&db, cases[i].csv, strlen(cases[i].csv), "t.csv", err, sizeof(err)), -1);
		if (!strstr(err, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err, cases[i].expect);
		assert_int_equal(db.n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled),
		cmocka_unit_test(test_bad_rows),
	};
	return cmocka_run_group_tests_name("campus", tests, NULL, NULL);
}
