/* test_units.c - the quantity parsers every command shares. */
#include "testutil.h"

#include "core/text/units.h"

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
	assert_int_equal(units_parse_duration("500ms", &v, err, sizeof(err)), 0);
	assert_true(v == 0.5);
}

/* A bare number is no duration: "3" could be seconds or days. */
static void test_duration_needs_unit(void **s)
{
	double v = -1;
	char err[160];

	(void)s;
	assert_int_equal(units_parse_duration("3", &v, err, sizeof(err)), -1);
	assert_string_equal(err, "expected a duration with a unit, e.g. 3d (ms, s, m, h, d, w), got '3'");
	assert_int_equal(units_parse_duration(" 90 ", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "with a unit, e.g."));
	assert_int_equal(units_parse_duration("0", &v, err, sizeof(err)), 0);   /* zero needs none */
	assert_true(v == 0);
	assert_int_equal(units_parse_duration("0s", &v, err, sizeof(err)), 0);
}

/* Issue units-suffix-overflow-inf: a suffix must not scale past the range. */
static void test_units_suffix_overflow_inf(void **s)
{
	double v = 0;
	char code[8], err[200];

	(void)s;
	assert_int_equal(units_parse_count("1e300B", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 1e18"));
	assert_int_equal(units_parse_count("1e18", &v, err, sizeof(err)), 0);
	assert_int_equal(units_parse_count("1.1e18", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("1e309", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 1e18"));
	assert_int_equal(units_parse_bytes("1e308GB", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 1e18 bytes (1 EB)"));
	assert_int_equal(units_parse_bytes("1EB", &v, err, sizeof(err)), 0);
	assert_true(v == 1e18);
	assert_int_equal(units_parse_bandwidth("1e308GB/s", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 1e15 B/s"));
	assert_int_equal(units_parse_duration("1e305d", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 100 years"));
	assert_int_equal(units_parse_duration("100w", &v, err, sizeof(err)), 0);
	assert_int_equal(units_parse_duration("1e-320s", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "below a microsecond"));
	assert_int_equal(units_parse_duration("1e-7s", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_duration("0.4ms", &v, err, sizeof(err)), 0);
	assert_int_equal(units_parse_money("1e308", &v, code, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 1e12"));
	assert_int_equal(units_parse_money("$1e12", &v, code, err, sizeof(err)), 0);
	assert_int_equal(units_parse_money("1e-320", &v, code, err, sizeof(err)), -1);
	assert_int_equal(units_parse_fraction("1e-320", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("1e-320", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_bytes("1e-320GB", &v, err, sizeof(err)), -1);
}

/* strtod reads hex, inf, infinity and nan; no parser may. */
static void test_units_no_hex_inf_nan(void **s)
{
	static const char *const bad[] = {
		"0x2d", "0X2D", "inf", "INF", "infinity", "nan", "-nan", "-0", "-0.0", "+5", "0x1p3",
	};
	double v;
	long l;
	char code[8], err[200];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *b = bad[i];
		assert_int_equal(units_parse_count(b, &v, err, sizeof(err)), -1);
		assert_int_equal(units_parse_bytes(b, &v, err, sizeof(err)), -1);
		assert_int_equal(units_parse_bandwidth(b, &v, err, sizeof(err)), -1);
		assert_int_equal(units_parse_duration(b, &v, err, sizeof(err)), -1);
		assert_int_equal(units_parse_fraction(b, &v, err, sizeof(err)), -1);
		assert_int_equal(units_parse_money(b, &v, code, err, sizeof(err)), -1);
		assert_int_equal(units_parse_int(b, 0, 100, &l, err, sizeof(err)), -1);
	}
	assert_int_equal(units_parse_count("-0", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not negative"));
	assert_int_equal(units_parse_duration("0x2ds", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_bytes("infGB", &v, err, sizeof(err)), -1);
}

/* Control bytes from the input are escaped in the message. */
static void test_units_message_escaped(void **s)
{
	double v;
	char err[300];

	(void)s;
	assert_int_equal(units_parse_count("7\x1b[31mX", &v, err, sizeof(err)), -1);
	assert_int_equal(units_parse_count("7\033[31m", &v, err, sizeof(err)), -1);
	assert_null(strchr(err, '\033'));
	assert_non_null(strstr(err, "\\x1b[31m"));
}

/* Issue: integer fields take the count suffixes (--seq 4k). */
static void test_int_suffixes(void **s)
{
	long l = 0;
	char err[200];

	(void)s;
	assert_int_equal(units_parse_int("4k", 1, 100000000, &l, err, sizeof(err)), 0);
	assert_int_equal(l, 4000);
	assert_int_equal(units_parse_int("1.5M", 1, 100000000, &l, err, sizeof(err)), 0);
	assert_int_equal(l, 1500000);
	assert_int_equal(units_parse_int_ex("4k", 1, 100000000, UNITS_INT_K1024, &l, err, sizeof(err)), 0);
	assert_int_equal(l, 4096);
	assert_int_equal(units_parse_int_ex("128k", 1, 100000000, UNITS_INT_K1024, &l, err, sizeof(err)), 0);
	assert_int_equal(l, 131072);
	assert_int_equal(units_parse_int("1.0005k", 1, 100000000, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("4kk", 1, 100000000, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("1e3", 1, 100000000, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("200k", 1, 100000, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 100000"));
	assert_int_equal(units_parse_int("99999999999999999999", 0, 2147483647L, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "from 0 to 2147483647"));
	assert_int_equal(units_parse_int("-0", 0, 10, &l, err, sizeof(err)), -1);
	assert_int_equal(units_parse_int("-3", -5, 10, &l, err, sizeof(err)), 0);
	assert_int_equal(l, -3);
}

/* Formatters never print inf, nan or a negative zero. */
static void test_fmt_defensive(void **s)
{
	char b[64];

	(void)s;
	assert_string_equal(units_fmt_bytes(INFINITY, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_bytes(NAN, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_count(-INFINITY, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_duration(NAN, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_duration_short(INFINITY, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_flops(NAN, b, sizeof(b)), "-");
	assert_string_equal(units_fmt_bytes(-0.0, b, sizeof(b)), "0 B");
	assert_string_equal(units_fmt_count(-0.2, b, sizeof(b)), "0");
	assert_string_equal(units_fmt_duration(-0.0001, b, sizeof(b)), "0 ms");
	assert_string_equal(units_fmt_flops(-0.0, b, sizeof(b)), "0");
	assert_string_equal(units_fmt_count(-5, b, sizeof(b)), "-5");
	snprintf(b, sizeof(b), "%.2f GB", -0.001);
	units_fmt_fix(b);
	assert_string_equal(b, "0.00 GB");
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
		cmocka_unit_test(test_duration_needs_unit),
		cmocka_unit_test(test_units_suffix_overflow_inf),
		cmocka_unit_test(test_units_no_hex_inf_nan),
		cmocka_unit_test(test_units_message_escaped),
		cmocka_unit_test(test_int_suffixes),
		cmocka_unit_test(test_fmt_defensive),
		cmocka_unit_test(test_fraction_int_bool),
	};
	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
