/*
 * test_util.c - src/base/util.h: ARRAY_SIZE, util_grow's growth and its
 * overflow refusal, the two clocks.
 */
#include "testutil.h"

#include "base/util.h"

static void test_array_size(void **s)
{
	static const int a[7] = {0};
	static const char *const b[] = {"x", "y", NULL};

	(void)s;
	assert_int_equal(ARRAY_SIZE(a), 7);
	assert_int_equal(ARRAY_SIZE(b), 3);
}

static void test_grow(void **s)
{
	int *v = NULL;
	void *p = NULL;
	size_t cap = 0;

	(void)s;
	assert_int_equal(util_grow(&p, &cap, 0, sizeof(int)), 0);   /* nothing needed */
	assert_null(p);
	assert_int_equal(util_grow(&p, &cap, 1, sizeof(int)), 0);
	assert_int_equal(cap, 8);                                      /* at least 8 */
	assert_int_equal(util_grow(&p, &cap, 9, sizeof(int)), 0);
	assert_int_equal(cap, 16);                                     /* doubles */
	assert_int_equal(util_grow(&p, &cap, 100, sizeof(int)), 0);
	assert_int_equal(cap, 100);                                    /* or what is needed */
	v = p;
	for (int i = 0; i < 100; i++)
		v[i] = i;
	assert_int_equal(util_grow(&p, &cap, 50, sizeof(int)), 0);    /* never shrinks */
	assert_int_equal(cap, 100);
	/* overflow: refused, the array untouched */
	assert_int_equal(util_grow(&p, &cap, SIZE_MAX / 2, 4), -1);
	assert_int_equal(util_grow(&p, &cap, (size_t)PTRDIFF_MAX + 1, 1), -1);
	assert_int_equal(util_grow(&p, &cap, 101, 0), -1);
	assert_int_equal(cap, 100);
	v = p;
	assert_int_equal(v[99], 99);
	free(p);
}

static void test_clocks(void **s)
{
	double a = util_now_mono(), b = util_now_mono(), w = util_now_wall();

	(void)s;
	assert_true(b >= a);
	assert_true(w > 1.6e9);   /* after 2020 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_size),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_clocks),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
