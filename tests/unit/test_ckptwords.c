/*
 * test_ckptwords.c - the words of `gpurent ckpt latest --explain`
 * (src/cmd/box/ckptwords.c): every reason code is worded, word for word as
 * always, and ckpt_word_classes() fills each class's why. The unit tests
 * link the core alone, so this one compiles the command layer's file into
 * itself.
 */
#include "testutil.h"

#include "cmd/box/ckptwords.h"

static void test_words(void **s)
{
	struct ckpt_entry e[] = {
		{"step_1.pt", false, false, false, 0}, {"notes.txt", false, false, false, 0},
		{"step_2.pt", false, true, false, 0}, {"step_3", true, true, false, 0},
		{".step_4.pt.tmp.AbC123", false, false, false, 0},
	};
	struct ckpt_class c[5];

	(void)s;
	assert_string_equal(ckpt_why_word(CKPT_WHY_NONE), "");
	for (int i = CKPT_WHY_NONE + 1; i < CKPT_WHY_COUNT; i++) {
		const char *w = ckpt_why_word((enum ckpt_why)i);
		assert_true(w[0] && !strchr(w, '%') && strcmp(w, "?"));
	}
	assert_string_equal(ckpt_why_word(CKPT_WHY_COUNT), "?");
	assert_string_equal(ckpt_why_word(CKPT_WHY_NO_MARKER), "no completion marker (other checkpoints here have one)");
	ckpt_classify(e, 5, c);
	ckpt_word_classes(c, 5);
	assert_string_equal(c[0].why, "");
	assert_string_equal(c[1].why, "no step number in the name");
	assert_string_equal(c[2].why, "an empty file");
	assert_string_equal(c[3].why, "an empty directory");
	assert_string_equal(c[4].why, "a temporary file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
	};
	return cmocka_run_group_tests_name("ckptwords", tests, NULL, NULL);
}
