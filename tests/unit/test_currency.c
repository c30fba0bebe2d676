/*
 * test_currency.c - the currency table (src/core/text/currency.h): loading
 * data/currencies.csv and bad variants, aliases, --rate parsing and its
 * bounds, growth past any fixed size.
 */
#include "testutil.h"

#include "core/text/currency.h"
#include "core/text/units.h"
#include "base/util.h"

static const char hdr[] = "code,usd,source\n";

/* Load text (a header is prepended); returns the loader's code. */
static int load(struct currency_table *t, const char *rows, char *err, size_t n)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s%s", hdr, rows);
	return currency_table_load(t, buf, strlen(buf), "currencies.csv", err, n);
}

static void test_bundled_file(void **s)
{
	struct currency_table t;
	size_t len;
	char *buf = tu_read("data/currencies.csv", &len), err[256];

	(void)s;
	assert_non_null(buf);
	assert_int_equal(currency_table_load(&t, buf, len, "data/currencies.csv", err, sizeof(err)), 0);
	free(buf);
	assert_true(t.n >= 3);
	assert_true(currency_to_usd(&t, "USD") == 1);
	/* the Federal Reserve's H.10 figure of the row's source: 7.1920 yuan per USD */
	assert_true(fabs(currency_per_usd(&t, "CNY") - 7.1920) < 1e-4);
	assert_string_equal(currency_find(&t, "CNY")->date, "2024-02-02");
	assert_non_null(strstr(currency_find(&t, "CNY")->source, "7.1920"));
	assert_string_equal(currency_find(&t, "USD")->date, "");
	assert_true(currency_to_usd(&t, "XYZ") < 0);
	assert_true(currency_per_usd(&t, "XYZ") < 0);
	currency_table_free(&t);
	currency_table_free(&t);   /* emptied: twice is fine */
}

static void test_aliases_and_case(void **s)
{
	struct currency_table t;
	char err[256], c[CURRENCY_CODE_MAX + 1];

	(void)s;
	assert_int_equal(load(&t, "USD,1,x\nCNY,0.125,x\n", err, sizeof(err)), 0);
	assert_true(currency_to_usd(&t, "cny") == 0.125);
	assert_true(currency_to_usd(&t, "RMB") == 0.125);
	assert_true(currency_to_usd(&t, "rmb") == 0.125);
	assert_true(currency_to_usd(&t, "\xC2\xA5") == 0.125);   /* ¥ */
	assert_true(currency_to_usd(&t, "$") == 1);
	assert_true(currency_per_usd(&t, "CNY") == 8);
	assert_int_equal(currency_canonical("eur", c), 0);
	assert_string_equal(c, "EUR");
	assert_int_equal(currency_canonical("EU", c), CURRENCY_ECODE);
	assert_string_equal(c, "");
	assert_int_equal(currency_canonical("ABCDEFGH", c), CURRENCY_ECODE);
	assert_int_equal(currency_canonical("ABCDEFG", c), 0);
	assert_int_equal(currency_canonical("C1Y", c), CURRENCY_ECODE);
	assert_int_equal(currency_canonical("", c), CURRENCY_ECODE);
	assert_null(currency_find(&t, "EUR"));
	assert_string_equal(currency_find(&t, "rmb")->code, "CNY");
	currency_table_free(&t);
}

/* Issue 10 item 2: RMB, ¥, ￥ and 元 are CNY, $ is USD, € is EUR, wherever a
 * code is read: --currency (currency_canonical), --rate, money values. */
static void test_yuan_spellings(void **s)
{
	static const struct {
		const char *in, *code;
	} canon[] = {
		{"RMB", "CNY"}, {"rmb", "CNY"}, {"Rmb", "CNY"}, {"\xC2\xA5", "CNY"},
		{"\xEF\xBF\xA5", "CNY"}, {"\xE5\x85\x83", "CNY"}, {"cny", "CNY"},
		{"$", "USD"}, {"us$", "USD"}, {"\xE2\x82\xAC", "EUR"}, {"eur", "EUR"},
	};
	static const struct {
		const char *in;
		double amount;
		const char *code;
	} money[] = {
		{"300", 300, "USD"}, {"$300", 300, "USD"}, {"US$3", 3, "USD"},
		{"300\xC2\xA5", 300, "CNY"}, {"\xC2\xA5" "300", 300, "CNY"},      /* 300¥ ¥300 */
		{"300 RMB", 300, "CNY"}, {"300rmb", 300, "CNY"}, {"50RMB", 50, "CNY"},
		{"\xEF\xBF\xA5" "2.5", 2.5, "CNY"}, {"3\xE5\x85\x83", 3, "CNY"},  /* ￥2.5 3元 */
		{"\xE2\x82\xAC" "3", 3, "EUR"}, {"3 \xE2\x82\xAC", 3, "EUR"},     /* €3, 3 € */
		{"1.32CNY", 1.32, "CNY"}, {"2000 cny", 2000, "CNY"}, {"\xC2\xA5" "3CNY", 3, "CNY"},
	};
	static const char *const bad[] = {
		"RMB300", "\xC2\xA5" "3USD", "$3EUR", "3 RMB X", "3\xC2", "CNH", "\xEF\xBF",
	};
	struct currency_table t;
	char c[CURRENCY_CODE_MAX + 1], code[8], err[256];
	double v;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(canon); i++) {
		if (currency_canonical(canon[i].in, c) || strcmp(c, canon[i].code))
			fail_msg("canonical '%s': got '%s', want %s", canon[i].in, c, canon[i].code);
	}
	assert_int_equal(currency_canonical("CNH", c), 0);   /* offshore yuan: its own code */
	assert_string_equal(c, "CNH");
	for (size_t i = 0; i < ARRAY_SIZE(money); i++) {
		if (units_parse_money(money[i].in, &v, code, err, sizeof(err)))
			fail_msg("money '%s': %s", money[i].in, err);
		if (v != money[i].amount || strcmp(code, money[i].code))
			fail_msg("money '%s': got %g %s, want %g %s", money[i].in, v, code,
				 money[i].amount, money[i].code);
	}
	for (size_t i = 1; i < ARRAY_SIZE(bad); i++)
		if (!units_parse_money(bad[i], &v, code, err, sizeof(err)))
			fail_msg("money '%s' accepted as %g %s", bad[i], v, code);
	assert_int_equal(units_parse_money(bad[0], &v, code, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected an amount"));
	/* the rate of an alias lands on the canonical entry */
	assert_int_equal(load(&t, "USD,1,x\nCNY,0.125,x\n", err, sizeof(err)), 0);
	assert_int_equal(currency_set_rate(&t, "RMB=7.1", err, sizeof(err)), 0);
	assert_true(fabs(currency_per_usd(&t, "CNY") - 7.1) < 1e-9);
	assert_int_equal(currency_set_rate(&t, "\xEF\xBF\xA5=7.3", err, sizeof(err)), 0);
	assert_true(fabs(currency_per_usd(&t, "\xE5\x85\x83") - 7.3) < 1e-9);
	assert_int_equal(t.n, 2);   /* no RMB entry added */
	assert_string_equal(currency_find(&t, "\xC2\xA5")->code, "CNY");
	currency_table_free(&t);
}

static void test_set_rate(void **s)
{
	struct currency_table t;
	char err[256];

	(void)s;
	assert_int_equal(load(&t, "USD,1,x\nCNY,0.1389,x\n", err, sizeof(err)), 0);
	assert_int_equal(currency_set_rate(&t, "CNY=8", err, sizeof(err)), 0);
	assert_true(currency_to_usd(&t, "CNY") == 0.125);
	assert_int_equal(currency_set_rate(&t, "rmb=4", err, sizeof(err)), 0);
	assert_true(currency_to_usd(&t, "CNY") == 0.25);
	assert_int_equal(currency_set_rate(&t, "\xC2\xA5=2", err, sizeof(err)), 0);
	assert_true(currency_per_usd(&t, "CNY") == 2);
	/* a new code is added, upper-cased */
	assert_int_equal(currency_set_rate(&t, "jpy=160", err, sizeof(err)), 0);
	assert_string_equal(currency_find(&t, "JPY")->code, "JPY");
	assert_true(currency_per_usd(&t, "JPY") == 160);
	assert_int_equal(t.n, 3);
	/* the edges: 1e6 is allowed, just above is not */
	assert_int_equal(currency_set_rate(&t, "VND=1e6", err, sizeof(err)), 0);
	assert_int_equal(currency_set_rate(&t, "VND=1000001", err, sizeof(err)), CURRENCY_ERATE);
	assert_string_equal(err, "expected at most 1000000 VND per USD, got '1000001'");
	assert_true(currency_per_usd(&t, "VND") == 1e6);   /* unchanged */

	/* what `cost --rate CNY=inf` refused and `offers --rate` took */
	static const char *const bad_rate[] = {"CNY=inf", "CNY=nan", "CNY=0", "CNY=-7", "CNY=7x",
					       "CNY=1e400", "CNY= "};
	for (size_t i = 0; i < ARRAY_SIZE(bad_rate); i++) {
		assert_int_equal(currency_set_rate(&t, bad_rate[i], err, sizeof(err)), CURRENCY_ERATE);
		assert_non_null(strstr(err, "expected a positive number of CNY per USD, got '"));
	}
	assert_true(currency_per_usd(&t, "CNY") == 2);
	static const char *const bad_syntax[] = {"CNY", "=7", "CNY=", "", "ABCDEFGHIJKLMNOPQ=1"};
	for (size_t i = 0; i < ARRAY_SIZE(bad_syntax); i++) {
		assert_int_equal(currency_set_rate(&t, bad_syntax[i], err, sizeof(err)), CURRENCY_ESYNTAX);
		assert_non_null(strstr(err, "expected CODE=UNITS_PER_USD such as CNY=7.2, got '"));
	}
	assert_int_equal(currency_set_rate(&t, "C1=7", err, sizeof(err)), CURRENCY_ECODE);
	assert_string_equal(err, "expected a currency code of 3 to 7 letters such as CNY, got 'C1'");
	assert_int_equal(currency_set_rate(&t, "ABCDEFGH=7", err, sizeof(err)), CURRENCY_ECODE);
	/* USD is the reference */
	assert_int_equal(currency_set_rate(&t, "USD=1", err, sizeof(err)), 0);
	assert_int_equal(currency_set_rate(&t, "usd=2", err, sizeof(err)), CURRENCY_ERATE);
	assert_int_equal(currency_set(&t, "$", 2, err, sizeof(err)), CURRENCY_ERATE);
	/* currency_set: what --usd-rate does */
	assert_int_equal(currency_set(&t, "eur", 0.9, err, sizeof(err)), 0);
	assert_true(fabs(currency_to_usd(&t, "EUR") - 1 / 0.9) < 1e-12);
	assert_int_equal(currency_set(&t, "EUR", INFINITY, err, sizeof(err)), CURRENCY_ERATE);
	assert_int_equal(currency_set(&t, "EUR", 0, err, sizeof(err)), CURRENCY_ERATE);
	assert_int_equal(t.n, 5);
	currency_table_free(&t);
}

/* More codes than any fixed array held (16): none dropped, from the file or --rate. */
static void test_grows(void **s)
{
	struct currency_table t;
	char rows[2048] = "", err[256], code[8], arg[32];
	size_t k = 0;

	(void)s;
	for (int i = 0; i < 40; i++)
		k += (size_t)snprintf(rows + k, sizeof(rows) - k, "Q%c%c,%d,x\n", 'A' + i / 26, 'A' + i % 26,
				      i + 1);
	assert_int_equal(load(&t, rows, err, sizeof(err)), 0);
	assert_int_equal(t.n, 41);   /* and USD, which the file lacked */
	assert_true(currency_to_usd(&t, "USD") == 1);
	assert_true(currency_to_usd(&t, "QBN") == 40);
	for (int i = 0; i < 100; i++) {
		snprintf(code, sizeof(code), "R%c%c", 'A' + i / 26, 'A' + i % 26);
		snprintf(arg, sizeof(arg), "%s=%d", code, i + 1);
		assert_int_equal(currency_set_rate(&t, arg, err, sizeof(err)), 0);
	}
	assert_int_equal(t.n, 141);
	assert_true(currency_per_usd(&t, "RDV") == 100);
	assert_true(currency_to_usd(&t, "QAA") == 1);
	currency_table_free(&t);
}

static void test_bad_files(void **s)
{
	static const struct {
		const char *rows, *want;
	} cases[] = {
		{"USD,1,x\nCNY,0.1,x\nCNY,0.2,x\n", "currencies.csv:4: code: CNY is already on line 3"},
		{"cny,0.1,x\n", "currencies.csv:2: code: expected 3 to 7 upper-case letters such as CNY, got 'cny'"},
		{"RMB,0.1,x\n", "currencies.csv:2: code: expected 3 to 7 upper-case letters such as CNY, got 'RMB'"},
		{"C1,0.1,x\n", "currencies.csv:2: code: expected 3 to 7 upper-case letters"},
		{"CNY,0,x\n", "currencies.csv:2: usd: expected a number from 1e-06 to 1e+15, got '0'"},
		{"CNY,inf,x\n", "currencies.csv:2: usd: expected a number"},
		{"CNY,,x\n", "currencies.csv:2: usd: expected a number, got an empty field"},
		{"USD,2,x\n", "currencies.csv:2: usd: USD is the reference, expected 1, got 2"},
		{"CNY,0.1\n", "currencies.csv:2: expected 3 fields, got 2"},
		{"CNY,0.1,a\033[31mbank\n", "currencies.csv:2: source: expected text without control characters"},
	};
	struct currency_table t;
	char err[256];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		err[0] = '\0';
		assert_int_not_equal(load(&t, cases[i].rows, err, sizeof(err)), 0);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, err, cases[i].want);
		assert_int_equal(t.n, 0);
		assert_null(t.v);
	}
}

/* The date column: optional, and a real day when given. */
static void test_dates(void **s)
{
	static const struct {
		const char *date;
		int ok;
	} cases[] = {
		{"2024-02-29", 1}, {"2000-02-29", 1}, {"", 1}, {"2023-02-29", 0}, {"1900-02-29", 0},
		{"2024-13-01", 0}, {"2024-04-31", 0}, {"2024-1-01", 0}, {"+024-01-01", 0}, {"2024/01/01", 0},
		{"1899-12-31", 0},
	};
	struct currency_table t;
	char buf[256], err[256];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(buf, sizeof(buf), "code,usd,date,source\nCNY,0.139,%s,a bank\n", cases[i].date);
		err[0] = '\0';
		if (cases[i].ok) {
			assert_int_equal(currency_table_load(&t, buf, strlen(buf), "c.csv", err, sizeof(err)), 0);
			assert_string_equal(currency_find(&t, "CNY")->date, cases[i].date);
			assert_string_equal(currency_find(&t, "CNY")->source, "a bank");
			/* a --rate replaces the row: its date and source no longer hold */
			assert_int_equal(currency_set_rate(&t, "CNY=7", err, sizeof(err)), 0);
			assert_string_equal(currency_find(&t, "CNY")->date, "");
			assert_string_equal(currency_find(&t, "CNY")->source, "");
			currency_table_free(&t);
			continue;
		}
		assert_int_not_equal(currency_table_load(&t, buf, strlen(buf), "c.csv", err, sizeof(err)), 0);
		snprintf(buf, sizeof(buf), "c.csv:2: date: expected a date YYYY-MM-DD, got '%s'", cases[i].date);
		if (strcmp(err, buf))
			fail_msg("case %zu: got '%s', want '%s'", i, err, buf);
	}
	/* code and usd alone (a --data-dir file of before the date): still loads */
	snprintf(buf, sizeof(buf), "code,usd\nCNY,0.139\n");
	assert_int_equal(currency_table_load(&t, buf, strlen(buf), "c.csv", err, sizeof(err)), 0);
	assert_string_equal(currency_find(&t, "CNY")->source, "");
	currency_table_free(&t);
	/* too long for a date: the field's own message */
	snprintf(buf, sizeof(buf), "code,usd,date,source\nCNY,0.139,2024-01-011,x\n");
	assert_int_not_equal(currency_table_load(&t, buf, strlen(buf), "c.csv", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "c.csv:2: date: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled_file),
		cmocka_unit_test(test_aliases_and_case),
		cmocka_unit_test(test_yuan_spellings),
		cmocka_unit_test(test_set_rate),
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_dates),
	};
	return cmocka_run_group_tests_name("currency", tests, NULL, NULL);
}
