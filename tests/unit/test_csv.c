/* test_csv.c - the RFC 4180 reader under the data loaders. */
#include "testutil.h"

#include "../../src/core/csv.h"

static void test_quotes_crlf_comments(void **s)
{
	const char *in = "\xEF\xBB\xBF" "a,b,c\r\n# comment\r\n\r\n1,\"x, y\",\"he said \"\"hi\"\"\"\r\n2,\"multi\nline\",z\r\n3,,\n";
	struct csv c;
	char err[128];

	(void)s;
	assert_int_equal(csv_parse(in, strlen(in), &c, err, sizeof(err)), 0);
	assert_int_equal(c.ncols, 3);
	assert_string_equal(c.header[0], "a");
	assert_int_equal(c.nrows, 3);
	assert_string_equal(c.rows[0].fields[1], "x, y");
	assert_string_equal(c.rows[0].fields[2], "he said \"hi\"");
	assert_int_equal(c.rows[0].line, 4);
	assert_string_equal(c.rows[1].fields[1], "multi\nline");
	assert_int_equal(c.rows[1].line, 5);
	assert_int_equal(c.rows[2].line, 7);  /* the quoted newline counted */
	assert_string_equal(csv_get(&c.rows[2], 1), "");
	assert_string_equal(csv_get(&c.rows[2], 9), "");
	assert_int_equal(csv_col(&c, "c"), 2);
	assert_int_equal(csv_col(&c, "d"), -1);
	csv_free(&c);
}

static void test_errors(void **s)
{
	struct csv c;
	char err[128];
	const char *bad = "a,b\n1,\"open\n2,3\n";

	(void)s;
	assert_int_equal(csv_parse(bad, strlen(bad), &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2"));
	assert_non_null(strstr(err, "unterminated"));
	assert_int_equal(csv_parse("", 0, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "empty"));
}

static void test_typed_fields(void **s)
{
	const char *in = "n,x,flag\nname,-3,maybe\n";
	struct csv c;
	char err[256], str[4];
	double d;
	bool b;

	(void)s;
	assert_int_equal(csv_parse(in, strlen(in), &c, err, sizeof(err)), 0);
	assert_int_equal(csv_field_double(&c, &c.rows[0], "x", true, 0, 0, "f.csv", &d, err, sizeof(err)), -1);
	assert_string_equal(err, "f.csv:2: x: expected a number from 0 to 1e+15, got '-3'");
	assert_int_equal(csv_field_bool(&c, &c.rows[0], "flag", false, "f.csv", &b, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "f.csv:2: flag:"));
	assert_int_equal(csv_field_str(&c, &c.rows[0], "n", true, "f.csv", str, sizeof(str), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than 3"));
	assert_int_equal(csv_field_double(&c, &c.rows[0], "nope", true, 0, 0, "f.csv", &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "f.csv:1: nope: column missing"));
	csv_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quotes_crlf_comments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_typed_fields),
	};
	return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
