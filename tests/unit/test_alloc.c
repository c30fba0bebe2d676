/*
 * test_alloc.c - the caching allocator's replay (src/core/estimate/
 * estimate_alloc.c, docs/formulas.md "The caching allocator's reserve"):
 * traces whose segments are worked on paper here from PyTorch's rules.
 */
#include <math.h>
#include <stdlib.h>

#include "testutil.h"

#include "core/estimate/estimate_int.h"
#include "core/text/units.h"

#define MiB 1048576ULL

/* round_size and get_allocation_size: 512 B blocks; a small request in a
 * 2 MiB segment, 1-10 MiB in a 20 MiB one, larger rounded up to 2 MiB */
static void test_rounding(void **s)
{
	(void)s;
	assert_int_equal(est_alloc_round(1), 512);
	assert_int_equal(est_alloc_round(512), 512);
	assert_int_equal(est_alloc_round(513), 1024);
	assert_int_equal(est_alloc_segment(512), 2 * MiB);
	assert_int_equal(est_alloc_segment(1 * MiB), 2 * MiB);          /* kSmallSize is small */
	assert_int_equal(est_alloc_segment(1 * MiB + 512), 20 * MiB);   /* above it: kLargeBuffer */
	assert_int_equal(est_alloc_segment(2 * MiB), 20 * MiB);
	assert_int_equal(est_alloc_segment(10 * MiB - 512), 20 * MiB);
	assert_int_equal(est_alloc_segment(10 * MiB), 10 * MiB);        /* kMinLargeAlloc: its own size */
	assert_int_equal(est_alloc_segment(20 * MiB), 20 * MiB);
	assert_int_equal(est_alloc_segment(20 * MiB + 512), 22 * MiB);  /* up to kRoundLarge */
}

/*
 * 30 MiB, freed; 50 MiB: the cached 30 is too small, a second segment
 * (80 reserved); freed; 30 MiB again: the exact 30 MiB block (best fit
 * before the 50); 20 MiB: the 50 MiB block split, 30 MiB left free
 * (more than 1 MiB); freed: coalesced back to one 50 MiB block, which
 * takes a 45 MiB request with the 5 MiB left split off. Reserved never
 * moves from 80; allocated reaches 50 (the 30 and the 20), then 75 (30 + 45).
 */
static void test_trace_by_hand(void **s)
{
	struct est_alloc *a = malloc(sizeof(*a));

	(void)s;
	assert_non_null(a);
	est_alloc_init(a, 0);
	assert_int_equal(est_alloc_malloc(a, 0, 30 * MiB), 0);
	assert_int_equal(a->reserved, 30 * MiB);
	assert_int_equal(est_alloc_free(a, 0), 0);
	assert_int_equal(est_alloc_malloc(a, 1, 50 * MiB), 0);
	assert_int_equal(a->reserved, 80 * MiB);
	assert_int_equal(est_alloc_free(a, 1), 0);
	assert_int_equal(est_alloc_malloc(a, 2, 30 * MiB), 0);
	assert_int_equal(a->b[a->of_id[2]].addr, 0);                 /* the first segment's block */
	assert_int_equal(est_alloc_malloc(a, 3, 20 * MiB), 0);
	assert_int_equal(a->b[a->of_id[3]].addr, 30 * MiB);          /* the second segment, split */
	assert_int_equal(a->nfree, 1);
	assert_int_equal(a->b[a->free[0]].size, 30 * MiB);
	assert_int_equal(a->reserved, 80 * MiB);
	assert_int_equal(a->allocated, 50 * MiB);
	assert_int_equal(est_alloc_free(a, 3), 0);
	assert_int_equal(a->nfree, 1);
	assert_int_equal(a->b[a->free[0]].size, 50 * MiB);           /* coalesced */
	assert_int_equal(est_alloc_malloc(a, 4, 45 * MiB), 0);
	assert_int_equal(a->b[a->of_id[4]].size, 45 * MiB);
	assert_int_equal(a->b[a->free[0]].size, 5 * MiB);
	assert_int_equal(a->max_reserved, 80 * MiB);
	assert_int_equal(a->max_allocated, 75 * MiB);                /* 30 + 45 */
	/* a block is not split when 1 MiB or less would be left */
	assert_int_equal(est_alloc_free(a, 4), 0);
	assert_int_equal(est_alloc_malloc(a, 5, 49 * MiB), 0);
	assert_int_equal(a->b[a->of_id[5]].size, 50 * MiB);
	/* errors: an id in use, an id not in use */
	assert_int_equal(est_alloc_malloc(a, 5, MiB), -1);
	assert_int_equal(est_alloc_free(a, 6), -1);
	free(a);
}

/* the small pool: 600 KiB rounds to 600 KiB in a 2 MiB segment, the rest
 * (1448 KiB, at least 512 B) a free block of its own */
static void test_small_pool(void **s)
{
	struct est_alloc *a = malloc(sizeof(*a));

	(void)s;
	assert_non_null(a);
	est_alloc_init(a, 0);
	assert_int_equal(est_alloc_malloc(a, 0, 600 * 1024 + 1), 0);
	assert_int_equal(a->b[a->of_id[0]].size, 600 * 1024 + 512);
	assert_int_equal(a->reserved, 2 * MiB);
	assert_int_equal(a->b[a->free[0]].size, 2 * MiB - 600 * 1024 - 512);
	/* a large request does not take the small pool's free block */
	assert_int_equal(est_alloc_malloc(a, 1, 1 * MiB + 1), 0);
	assert_int_equal(a->reserved, 22 * MiB);
	free(a);
}

/* the steps' lengths: sd 0 gives the mean; every length within
 * [1, max_len]; a batch of 4 pads to a longer step than one sample */
static void test_step_lengths(void **s)
{
	double one[16], four[16], sum1 = 0, sum4 = 0;

	(void)s;
	est_step_lengths(1000, 0, 2048, 1, one, 16);
	for (size_t i = 0; i < 16; i++)
		assert_true(one[i] == 1000);
	est_step_lengths(3234.4, 2547.5, 2048, 1, one, 16);
	est_step_lengths(3234.4, 2547.5, 2048, 4, four, 16);
	for (size_t i = 0; i < 16; i++) {
		assert_true(one[i] >= 1 && one[i] <= 2048 && four[i] >= 1 && four[i] <= 2048);
		sum1 += one[i];
		sum4 += four[i];
	}
	assert_true(sum4 > sum1);
	/* the first step takes the lowest quantile, the second the median */
	assert_true(one[0] < one[1]);
}

/* seq_spread's text: MEAN+-SD, digits first, nothing after */
static void test_parse_spread(void **s)
{
	double m = 0, d = -1;

	(void)s;
	assert_int_equal(units_parse_spread("3234.4+-2547.5", &m, &d), 0);
	assert_true(m == 3234.4 && d == 2547.5);
	assert_int_equal(units_parse_spread("512+-0", &m, &d), 0);
	assert_true(m == 512 && d == 0);
	assert_int_equal(units_parse_spread(" 3+-2", &m, &d), -1);
	assert_int_equal(units_parse_spread("3+- 2", &m, &d), -1);
	assert_int_equal(units_parse_spread("3+--2", &m, &d), -1);
	assert_int_equal(units_parse_spread("3+-2x", &m, &d), -1);
	assert_int_equal(units_parse_spread("0.5+-1", &m, &d), -1);
	assert_int_equal(units_parse_spread("3", &m, &d), -1);
	assert_int_equal(units_parse_spread("1e999+-1", &m, &d), -1);
	assert_int_equal(units_parse_spread("0x10+-1", &m, &d), -1);   /* plain decimals only */
	assert_int_equal(units_parse_spread("16+-0x1", &m, &d), -1);
	assert_int_equal(units_parse_spread("1.5e3+-2e2", &m, &d), 0);
	assert_true(m == 1500 && d == 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_trace_by_hand),
		cmocka_unit_test(test_small_pool),
		cmocka_unit_test(test_step_lengths),
		cmocka_unit_test(test_parse_spread),
	};
	return cmocka_run_group_tests_name("alloc", tests, NULL, NULL);
}
