/* test_config.c - the defaults file (src/core/text/config.h): parsing with
 * file:line:key errors, rendering values YAML reads back the same, and
 * text edits that keep comments and the other settings. */
#include "testutil.h"

#include "core/text/config.h"

static const char *const keys[] = {"access", "currency", "rate", "rate_source", NULL};

static int parse(const char *text, struct config *c, char *err, size_t n)
{
	return config_parse(text, strlen(text), "c.yaml", keys, c, err, n);
}

static void test_parse(void **s)
{
	struct config c;
	char err[512];
	const struct config_entry *e;

	(void)s;
	assert_int_equal(parse("# mine\ncurrency: CNY\naccess:\n  - SJTU-HPC\n  - PKU\nrate: [CNY=7.1]\n", &c,
			       err, sizeof(err)), 0);
	assert_int_equal(c.n, 3);
	e = config_find(&c, "currency");
	assert_non_null(e);
	assert_false(e->is_list);
	assert_int_equal(e->nvals, 1);
	assert_string_equal(e->vals[0], "CNY");
	assert_int_equal(e->line, 2);
	assert_int_equal(e->end_line, 2);
	e = config_find(&c, "access");
	assert_true(e->is_list);
	assert_int_equal(e->nvals, 2);
	assert_string_equal(e->vals[1], "PKU");
	assert_int_equal(e->line, 3);
	assert_int_equal(e->end_line, 5);
	assert_null(config_find(&c, "rate_source"));
	config_free(&c);
	/* empty, comments only: an empty config */
	assert_int_equal(parse("", &c, err, sizeof(err)), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(parse("# x\n\n", &c, err, sizeof(err)), 0);
	assert_int_equal(c.n, 0);
	config_free(&c);
}

static void expect_err(const char *text, const char *want)
{
	struct config c;
	char err[512] = "";

	if (parse(text, &c, err, sizeof(err)) != -1)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
	assert_int_equal(c.n, 0);
	assert_null(c.v);
}

static void test_errors(void **s)
{
	(void)s;
	expect_err("curency: CNY\n", "c.yaml:1: curency: not a setting (did you mean 'currency'?)");
	expect_err("currency: CNY\nzzzzzzzzzz: 1\n", "c.yaml:2: zzzzzzzzzz: not a setting (see");
	expect_err("currency: CNY\ncurrency: EUR\n", "c.yaml:2: currency: given twice (line 1)");
	expect_err("currency: {a: 1}\n", "c.yaml:1: currency: expected a value or a list of values, not a mapping");
	expect_err("access: []\n", "c.yaml:1: access: expected a non-empty list");
	expect_err("access: [[a]]\n", "c.yaml:1: access: expected a mapping of setting: value");
	expect_err("currency:\n", "c.yaml:1: currency: expected a value");
	expect_err("- a\n- b\n", "c.yaml:1: config: expected a mapping of setting: value");
	expect_err("just text\n", "c.yaml:1: config: expected a mapping");
	expect_err("currency: \"a\\x01b\"\n", "currency: expected text without control characters");
	expect_err("a: &x 1\ncurrency: *x\n", "not a setting");
	expect_err("currency: *x\n", "c.yaml:1:");
	expect_err("currency: \"CNY\n", "c.yaml:");
}

static void test_render_roundtrip(void **s)
{
	const char *vals[] = {"plain", "no", "a: b", "#x", "q\"uote", "back\\slash", "[x]", "a,b", " lead",
			      "中文", "a\xe2\x80\xa8" "b", "\xc2\x85", "x\xe2\x80\xa9"};
	char line[512], err[256];
	struct config c;

	(void)s;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const char *one[] = {vals[i]};
		for (int list = 0; list < 2; list++) {
			assert_int_equal(config_render("rate_source", one, 1, list, line, sizeof(line)), 0);
			if (parse(line, &c, err, sizeof(err)))
				fail_msg("'%s' rendered as '%s' does not parse: %s", vals[i], line, err);
			assert_int_equal(c.n, 1);
			assert_int_equal(c.v[0].nvals, 1);
			assert_string_equal(c.v[0].vals[0], vals[i]);
			assert_int_equal(c.v[0].is_list, list);
			config_free(&c);
		}
	}
	assert_int_equal(config_render("access", vals, 2, true, line, sizeof(line)), 0);
	assert_string_equal(line, "access: [plain, \"no\"]\n");
	assert_int_equal(config_render("access", vals, 2, true, line, 8), -1);
}

static void test_edit(void **s)
{
	const char *text = "# top\ncurrency: CNY  # mine\naccess:\n  - A\n  - B\n# tail\nrate: [CNY=7]\n";
	struct config c;
	char err[256], *out;
	size_t n;

	(void)s;
	assert_int_equal(parse(text, &c, err, sizeof(err)), 0);
	assert_int_equal(config_edit(text, strlen(text), &c, "access", "access: [C]\n", &out, &n), 0);
	assert_string_equal(out, "# top\ncurrency: CNY  # mine\naccess: [C]\n# tail\nrate: [CNY=7]\n");
	assert_int_equal(n, strlen(out));
	free(out);
	assert_int_equal(config_edit(text, strlen(text), &c, "currency", NULL, &out, &n), 0);
	assert_string_equal(out, "# top\naccess:\n  - A\n  - B\n# tail\nrate: [CNY=7]\n");
	free(out);
	assert_int_equal(config_edit(text, strlen(text), &c, "rate_source", "rate_source: x\n", &out, &n), 0);
	assert_string_equal(out + strlen(text), "rate_source: x\n");
	free(out);
	config_free(&c);
	/* a file without a final newline gets one before the appended line */
	assert_int_equal(parse("currency: CNY", &c, err, sizeof(err)), 0);
	assert_int_equal(config_edit("currency: CNY", 13, &c, "rate", "rate: [CNY=7]\n", &out, &n), 0);
	assert_string_equal(out, "currency: CNY\nrate: [CNY=7]\n");
	free(out);
	/* the last line without a newline, replaced */
	assert_int_equal(config_edit("currency: CNY", 13, &c, "currency", "currency: EUR\n", &out, &n), 0);
	assert_string_equal(out, "currency: EUR\n");
	free(out);
	config_free(&c);
	/* a block scalar ends where its text ends: the next setting stays */
	{
		const char *t = "rate_source: >-\n  Bank of\n  China\ncurrency: CNY\n";
		assert_int_equal(parse(t, &c, err, sizeof(err)), 0);
		assert_string_equal(config_find(&c, "rate_source")->vals[0], "Bank of China");
		assert_int_equal(config_find(&c, "rate_source")->end_line, 3);
		assert_int_equal(config_edit(t, strlen(t), &c, "rate_source", "rate_source: x\n", &out, &n), 0);
		assert_string_equal(out, "rate_source: x\ncurrency: CNY\n");
		free(out);
		config_free(&c);
		t = "rate_source: |-\n  a\n\ncurrency: CNY\n";
		assert_int_equal(parse(t, &c, err, sizeof(err)), 0);
		assert_int_equal(config_edit(t, strlen(t), &c, "rate_source", NULL, &out, &n), 0);
		assert_non_null(strstr(out, "currency: CNY\n"));
		free(out);
		config_free(&c);
	}
	/* one {...} mapping: its settings share a line, so it is not edited */
	{
		const char *t = "{currency: CNY, access: [ssh]}\n";
		assert_int_equal(parse(t, &c, err, sizeof(err)), 0);
		assert_true(c.flow);
		assert_int_equal(config_edit(t, strlen(t), &c, "currency", "currency: EUR\n", &out, &n), -2);
		assert_null(out);
		config_free(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_render_roundtrip),
		cmocka_unit_test(test_edit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
