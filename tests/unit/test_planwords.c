/*
 * test_planwords.c - the words of `gpurent plan` (src/cmd/plan/planwords.c):
 * every code of src/core/plan/plan.h yields a sentence with no printf
 * conversion left over; a few sentences word for word; sentences cut to
 * the buffer. The unit tests link the core alone, so this one compiles the
 * command layer's file into itself.
 */
#include "testutil.h"

#include <ctype.h>

#include "base/out.h"
#include "cmd/plan/planwords.h"

static struct gpu_spec gpu;
static struct offer offer;

static void setup_offer(void)
{
	memset(&gpu, 0, sizeof(gpu));
	snprintf(gpu.name, sizeof(gpu.name), "NVIDIA A100 80GB SXM");
	memset(&offer, 0, sizeof(offer));
	offer.provider = (struct cat_str){"runpod", 6};
	offer.instance = (struct cat_str){"1x_A100_80GB", 12};
	offer.gpu_name = (struct cat_str){"A100-80GB", 9};
	offer.gpu = &gpu;
	offer.gpus = 1;
	offer.gpu_mem = 80e9;
	offer.price = 1.64;
}

/* A printf conversion that was not expanded: '%' then a flag, digit,
 * length or conversion letter ("54% of" is text). */
static bool unexpanded(const char *s)
{
	for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
		if (p[1] && (isalnum((unsigned char)p[1]) || strchr(".*%#+-", p[1])))
			return true;
	return false;
}

static void check(const char *what, int code, const char *s)
{
	if (!s[0] || !strcmp(s, "?"))
		fail_msg("%s %d: no sentence", what, code);
	if (unexpanded(s))
		fail_msg("%s %d: a conversion left in '%s'", what, code, s);
}

static void test_every_code(void **s)
{
	char out[PLAN_CHECK_MAX];

	(void)s;
	setup_offer();
	for (int m = 0; m < PLAN_NMODES; m++)
		check("mode", m, plan_mode_word((enum plan_mode)m));
	for (int e = 0; e < EX_NREASONS; e++)
		check("exclusion", e, plan_exclusion_word((enum plan_exclusion)e));
	for (int d = 0; d < PLAN_D_COUNT; d++) {
		struct plan_example x = {.offer = &offer, .detail = (enum plan_detail)d, .a = 39.2e9, .b = 24e9};
		plan_word_example(&x, NULL, out, PLAN_EXAMPLE_MAX);
		check("detail", d, out);
		assert_true(!strncmp(out, "runpod 1x_A100_80GB (A100-80GB): ", 33));
	}
	for (int w = 0; w < PLAN_WHY_COUNT; w++) {
		struct plan_choice c = {.offer = &offer, .mode = PLAN_ON_DEMAND, .gpus = 1, .mem_used = 0.54,
					.compute_s = 3 * 3600.0, .why = (enum plan_why)w, .queue_s = 7200};
		plan_word_why(&c, out, PLAN_WHY_MAX);
		check("why", w, out);
	}
	for (int c = 0; c < PLAN_CLASS_COUNT; c++) {
		struct plan_result r = {.class_why = (enum plan_class_why)c, .class_run_s = 3600};
		plan_word_class(&r, out, PLAN_CLASS_MAX);
		check("class", c, out);
		r.class_run_s = -1;
		plan_word_class(&r, out, PLAN_CLASS_MAX);
		check("class (no run)", c, out);
	}
	assert_string_equal(plan_advice_word(PLAN_A_NONE), "");
	for (int a = PLAN_A_NONE + 1; a < PLAN_A_COUNT; a++)
		check("advice", a, plan_advice_word((enum plan_advice)a));
	for (int k = 0; k < PLAN_C_COUNT; k++) {
		struct plan_check c = {.code = (enum plan_check_code)k, .seconds = 7200, .write_s = 30,
				       .usd = 12.5, .bytes = 100e9, .bw = 12.5e6, .offer = &offer};
		plan_word_check(&c, NULL, out, PLAN_CHECK_MAX);
		check("check", k, out);
	}
	/* out of range */
	assert_string_equal(plan_exclusion_word(EX_NREASONS), "?");
	assert_string_equal(plan_advice_word(PLAN_A_COUNT), "?");
	assert_string_equal(plan_mode_word(PLAN_NMODES), "?");
}

/* Sentences `gpurent plan` has always printed, word for word. */
static void test_words(void **s)
{
	char out[PLAN_CHECK_MAX];
	struct plan_example x = {.offer = &offer, .detail = PLAN_D_MEMORY, .a = 39.24e9, .b = 24e9};
	struct plan_choice c = {.offer = &offer, .mode = PLAN_SPOT, .gpus = 1, .mem_used = 0.545,
				.compute_s = 20 * 3600.0, .why = PLAN_WHY_SPOT};
	struct plan_result r = {.class_why = PLAN_CLASS_OCCASIONAL, .class_run_s = -1};
	struct plan_check k = {.code = PLAN_C_DEBUG_CHEAPEST, .offer = &offer, .usd = 1.64};

	(void)s;
	setup_offer();
	plan_word_example(&x, NULL, out, sizeof(out));
	assert_string_equal(out, "runpod 1x_A100_80GB (A100-80GB): needs 39.2 GB per GPU, has 24.0 GB");
	x = (struct plan_example){.offer = &offer, .detail = PLAN_D_BUDGET, .a = 51.4, .b = 10};
	plan_word_example(&x, NULL, out, sizeof(out));
	assert_string_equal(out, "runpod 1x_A100_80GB (A100-80GB): 51 USD, budget 10 USD");
	x.offer = NULL;
	plan_word_example(&x, NULL, out, sizeof(out));
	assert_string_equal(out, "");
	plan_word_why(&c, out, sizeof(out));
	assert_string_equal(out, "55% of 80 GB per GPU used; 20.0 h on 1 x NVIDIA A100 80GB SXM; spot "
				 "(expected, with restarts)");
	c.why = PLAN_WHY_QUEUE;
	c.mode = PLAN_ON_DEMAND;
	c.queue_s = 12 * 3600.0;
	plan_word_why(&c, out, sizeof(out));
	assert_string_equal(out, "55% of 80 GB per GPU used; 20.0 h on 1 x NVIDIA A100 80GB SXM; on-demand, "
				 "queue 12 h");
	plan_word_class(&r, out, sizeof(out));
	assert_string_equal(out, "an occasional run of a few hours: pay only while it runs, stop the box at once");
	plan_word_check(&k, NULL, out, sizeof(out));
	assert_string_equal(out, "debug the script end to end for a few steps on the cheapest fitting box first "
				 "(runpod 1x_A100_80GB at 1.64 USD/h)");
	k = (struct plan_check){.code = PLAN_C_DATA_RSYNC, .bytes = 5e9};
	plan_word_check(&k, NULL, out, sizeof(out));
	assert_string_equal(out, "data (5.00 GB): rsync with resume (rsync -P); then verify file count and sizes");
	assert_string_equal(plan_exclusion_word(EX_MEMORY), "not enough GPU memory (with headroom)");
	assert_string_equal(plan_mode_word(PLAN_WEEKLY), "weekly package");
}

/* Cut to the buffer, NUL-terminated; a long provider is cut to 24 bytes. */
/* The bill's rule on a cost, each way, with its facts. */
static void test_cost_note(void **s)
{
	struct plan_cost c = {.note = PLAN_NOTE_ROUNDED, .profile = "hourly", .hours_billed = 3,
			      .hours_used = 1, .interruptions = 2.25};
	char out[160];

	(void)s;
	plan_word_cost_note(&c, out, sizeof(out));
	assert_string_equal(out, "hourly: 3.00 h billed for 1.00 h used");
	c.note = PLAN_NOTE_SPOT;
	snprintf(c.profile, sizeof(c.profile), "aws");
	plan_word_cost_note(&c, out, sizeof(out));
	assert_string_equal(out, "aws: 2.2 interruptions expected");
	c.note = PLAN_NOTE_BILLING;
	plan_word_cost_note(&c, out, sizeof(out));
	assert_string_equal(out, "aws billing");
}

static void test_cut(void **s)
{
	char small[16], out[PLAN_EXAMPLE_MAX];
	struct plan_check k = {.code = PLAN_C_RECORD_COSTS};
	struct plan_example x = {.detail = PLAN_D_NO_SPECS};
	static const char longname[] = "a-provider-with-a-very-long-name-indeed";

	(void)s;
	setup_offer();
	plan_word_check(&k, NULL, small, sizeof(small));
	assert_string_equal(small, "record what eac");
	offer.provider = (struct cat_str){longname, (uint32_t)strlen(longname)};
	x.offer = &offer;
	plan_word_example(&x, NULL, out, sizeof(out));
	assert_string_equal(out, "a-provider-with-a-very-l 1x_A100_80GB (A100-80GB): no specs for this GPU");
}

/* A catalog's control bytes never reach the terminal raw (out.h). */
static void test_escaped(void **s)
{
	char out[PLAN_CHECK_MAX];
	struct plan_example x = {.detail = PLAN_D_ACCESS};
	struct plan_check k = {.code = PLAN_C_DEBUG_CHEAPEST, .offer = &offer, .usd = 1};
	static const char evil[] = "ev\x1b]0;t\x07il";

	(void)s;
	setup_offer();
	offer.provider = (struct cat_str){evil, (uint32_t)strlen(evil)};
	offer.access = (struct cat_str){evil, (uint32_t)strlen(evil)};
	x.offer = &offer;
	plan_word_example(&x, NULL, out, sizeof(out));
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\x07'));
	assert_non_null(strstr(out, "ev\\x1b]0;t\\x07il 1x_A100_80GB"));
	assert_non_null(strstr(out, "--access ev\\x1b]0;t\\x07il"));
	plan_word_check(&k, NULL, out, sizeof(out));
	assert_null(strchr(out, '\x1b'));
	assert_non_null(strstr(out, "(ev\\x1b]0;t\\x07il 1x_A100_80GB at 1.00 USD/h)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_cost_note),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_escaped),
	};
	return cmocka_run_group_tests_name("planwords", tests, NULL, NULL);
}
