/* test_csv.c - the RFC 4180 reader under the data loaders. */
#include "testutil.h"

#include "core/text/csv.h"

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

/* The one tokenizer: fields borrowed from the buffer, "" pairs flagged,
 * CRLF, LF and a lone CR all end a line; records wider than 64 fields. */
static void test_scan_record(void **s)
{
	const char *in = "a,\"b\"\"c\",\"x\ny\"\r\nd\re,f\n";
	struct csv_field f[4];
	size_t pos = 0, line = 1, rl, len = strlen(in);
	const char *rec;
	char out[16], wide[400];
	struct csv c;
	char err[128];

	(void)s;
	assert_int_equal(csv_scan_record(in, len, &pos, &line, f, 4, &rec, &rl), 3);
	assert_true(f[0].p == in && f[0].len == 1);
	assert_true(f[1].quoted_escapes);
	assert_int_equal(csv_field_unquote(&f[1], out), 3);
	assert_string_equal(out, "b\"c");
	assert_int_equal(f[2].len, 3);
	assert_int_equal(line, 3);      /* the quoted newline and the CRLF */
	assert_int_equal(csv_scan_record(in, len, &pos, &line, f, 4, &rec, &rl), 1);
	assert_int_equal(line, 4);      /* a lone CR */
	assert_int_equal(csv_scan_record(in, len, &pos, &line, f, 1, &rec, &rl), 2);   /* counted past maxf */
	assert_int_equal(pos, len);
	/* csv_parse() on top of it: a 100-column record */
	wide[0] = '\0';
	for (int i = 0; i < 100; i++)
		snprintf(wide + strlen(wide), sizeof(wide) - strlen(wide), "%s%d", i ? "," : "", i);
	snprintf(wide + strlen(wide), sizeof(wide) - strlen(wide), "\n");
	assert_int_equal(csv_parse(wide, strlen(wide), &c, err, sizeof(err)), 0);
	assert_int_equal(c.ncols, 100);
	assert_string_equal(c.header[99], "99");
	csv_free(&c);
}

/* The 64-byte separator masks against a byte-at-a-time split: fields of
 * every length 0..140 placed at every offset of a block, quoted fields in
 * between (the mask is rebuilt after them), CR, LF and the buffer's end. */
static void test_scan_blocks(void **s)
{
	static char buf[8192];
	struct csv_field f[64];
	unsigned seed = 12345;

	(void)s;
	for (int round = 0; round < 400; round++) {
		size_t len = 0, pos = 0, line = 1, rl, want_fields = 0;
		size_t starts[64], lens[64];
		const char *rec;
		int nf = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 20;
		for (int k = 0; k < nf; k++) {
			size_t n = ((seed = seed * 1103515245u + 12345u) >> 16) % 141;
			bool quoted = n % 7 == 3;
			if (k)
				buf[len++] = ',';
			if (quoted)
				buf[len++] = '"';
			starts[k] = len;
			for (size_t i = 0; i < n; i++)
				buf[len++] = (char)('a' + (i + (size_t)k) % 26);
			lens[k] = n;
			if (quoted)
				buf[len++] = '"';
			want_fields++;
		}
		if (round % 3)
			buf[len++] = round % 2 ? '\n' : '\r';
		assert_int_equal(csv_scan_record(buf, len, &pos, &line, f, 64, &rec, &rl), (int)want_fields);
		for (size_t k = 0; k < want_fields; k++) {
			assert_true(f[k].p == buf + starts[k]);
			assert_int_equal(f[k].len, lens[k]);
		}
		assert_int_equal(pos, len);
	}
}

/* A record's count, end and lines are the same however few of its fields
 * are stored (the scanner counts the rest by their commas when no quote
 * is in the way): random records of quoted, empty and plain fields, with
 * newlines inside quotes, CR, LF and CRLF ends. */
static void test_scan_few_fields(void **s)
{
	static char buf[16384];
	static const char *const parts[] = {"a", "", "bb,", "\"q,\"\"x\"", "\"multi\nline\"", "12.5",
					    "\n", "\r\n", "\r", ",", "long-field-of-some-length-0123456789"};
	unsigned seed = 777;

	(void)s;
	for (int round = 0; round < 300; round++) {
		size_t len = 0;
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 400;
		for (int k = 0; k < n && len + 64 < sizeof(buf); k++) {
			const char *p = parts[((seed = seed * 1103515245u + 12345u) >> 16) % 11];
			memcpy(buf + len, p, strlen(p));
			len += strlen(p);
		}
		for (int maxf = 0; maxf <= 3; maxf++) {
			struct csv_scan a = CSV_SCAN_INIT, b = CSV_SCAN_INIT;
			size_t pa = 0, pb = 0, la = 1, lb = 1, ra, rb;
			const char *sa, *sb;
			struct csv_field fa[64], fb[64];
			while (pa < len) {
				int na = csv_scan_next(&a, buf, len, &pa, &la, fa, 64, &sa, &ra);
				int nb = csv_scan_next(&b, buf, len, &pb, &lb, fb, maxf, &sb, &rb);
				assert_int_equal(na, nb);
				if (na < 0)
					break;
				assert_int_equal(pa, pb);
				assert_int_equal(la, lb);
				assert_true(sa == sb && ra == rb);
				for (int k = 0; k < maxf && k < na; k++)
					assert_true(fa[k].p == fb[k].p && fa[k].len == fb[k].len);
			}
		}
	}
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
		cmocka_unit_test(test_scan_record),
		cmocka_unit_test(test_scan_blocks),
		cmocka_unit_test(test_scan_few_fields),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_typed_fields),
	};
	return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
