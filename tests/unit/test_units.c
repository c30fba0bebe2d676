/* test_units.c - the quantity parsers every command shares. */
#include "testutil.h"

#include "../../src/core/units.h"

static void test_count(void **s)
{
	double v;
	char err[128];

	(void)s;
	assert_int_equal(units_parse_count("7e9", &v, err, sizeof(err)), 0);
	assert_true(v == 7e9);
	assert_int_equal(units_parse_count("7B", &v, err, sizeof(err)), 0);
	assert_true(v == 7e9);
	assert_int_equal(units_parse_count("32K", &v, err, sizeof(err)), 0);
	assert_true(v == 32e3);
	assert_int_equal(units_parse_count("1.5T", &v, err, sizeof(err)), 0);
	assert_true(v == 1.5e12);
	assert_int_equal(units_parse_count(" 512 ", &v, err, sizeof(err)), 0);
	assert_true(v == 512);
	assert_int_equal(units_parse_count("-1", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'-1'"));
	assert_int_equal(units_parse_count("7X", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("nan", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("inf", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("", &v, err, sizeof(err)), -1);
}

static void test_bytes(void **s)
{
	double v;
	char err[128];

	(void)s;
	assert_int_equal(units_parse_bytes("24GB", &v, err, sizeof(err)), 0);
	assert_true(v == 24e9);
	assert_int_equal(units_parse_bytes("1.5GiB", &v, err, sizeof(err)), 0);
	assert_true(v == 1.5 * 1073741824.0);
	assert_int_equal(units_parse_bytes("512MiB", &v, err, sizeof(err)), 0);
	assert_true(v == 512 * 1048576.0);
	assert_int_equal(units_parse_bytes("24gb", &v, err, sizeof(err)), 0);
	assert_true(v == 24e9);
	assert_int_equal(units_parse_bytes("100", &v, err, sizeof(err)), 0);
	assert_true(v == 100);
	assert_int_equal(units_parse_bytes("24 furlongs", &v, err, sizeof(err)), -1);
}

static void test_bandwidth(void **s)
{
	double v;
	char err[128];

	(void)s;
	assert_int_equal(units_parse_bandwidth("20GB/s", &v, err, sizeof(err)), 0);
	assert_true(v == 20e9);
	assert_int_equal(units_parse_bandwidth("100Gb/s", &v, err, sizeof(err)), 0);
	assert_true(v == 12.5e9);  /* bits, not bytes */
	assert_int_equal(units_parse_bandwidth("0GB/s", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_bandwidth("20GB", &v, err, sizeof(err)), -1);
}

static void test_duration(void **s)
{
	double v;
	char err[128];

	(void)s;
	assert_int_equal(units_parse_duration("90s", &v, err, sizeof(err)), 0);
	assert_true(v == 90);
	assert_int_equal(units_parse_duration("30m", &v, err, sizeof(err)), 0);
	assert_true(v == 1800);
	assert_int_equal(units_parse_duration("6h", &v, err, sizeof(err)), 0);
	assert_true(v == 21600);
	assert_int_equal(units_parse_duration("2d", &v, err, sizeof(err)), 0);
	assert_true(v == 172800);
	assert_int_equal(units_parse_duration("1.5h", &v, err, sizeof(err)), 0);
	assert_true(v == 5400);
	assert_int_equal(units_parse_duration("6 hours", &v, err, sizeof(err)), -1);
}

static void test_fraction_int_bool(void **s)
{
	double v;
	long l;
	int b;
	char err[128];

	(void)s;
	assert_int_equal(units_parse_fraction("40%", &v, err, sizeof(err)), 0);
	assert_true(v == 0.4);
	assert_int_equal(units_parse_fraction("0.25", &v, err, sizeof(err)), 0);
	assert_true(v == 0.25);
	assert_int_equal(units_parse_fraction("140%", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("8", 1, 10, &l, err, sizeof(err)), 0);
	assert_int_equal(l, 8);
	assert_int_equal(units_parse_int("0", 1, 10, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("4.5", 1, 10, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("99999999999999999999", 1, 2147483647L, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_bool("yes", &b, err, sizeof(err)), 0);
	assert_int_equal(b, 1);
	assert_int_equal(units_parse_bool("off", &b, err, sizeof(err)), 0);
	assert_int_equal(b, 0);
	assert_int_equal(units_parse_bool("maybe", &b, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_fraction_int_bool),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
