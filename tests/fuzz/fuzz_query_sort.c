/*
 * fuzz_query_sort.c - query_sort_parse (src/core/market/query.h) on the input as a
 * sort key (or several, vast's -o form), and query_compare of what parsed over data/offers.csv.
 */
#include "core/market/query.h"
#include "fuzz.h"

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct offer_set *set = fuzz_offers();
	char *text = fuzz_cstr(data, size), err[256];
	struct query_sort s;
	int rc;

	err[0] = '\0';
	rc = query_sort_parse(text, &s, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		free(text);
		return 0;
	}
	FUZZ_CHECK(s.n >= 1 && s.n <= QUERY_MAX_SORT);
	for (int k = 0; k < s.n; k++)
		FUZZ_CHECK(s.k[k].field >= 0 && (size_t)s.k[k].field < query_field_count());
	/* "<0, 0, >0 like strcmp": a consistent order (qsort needs one) */
	for (size_t i = 0; i < set->n; i++) {
		const struct offer *a = &set->v[i];
		FUZZ_CHECK(query_compare(&s, a, a) == 0);
		for (size_t j = i + 1; j < set->n; j++) {
			const struct offer *b = &set->v[j];
			FUZZ_CHECK(sign(query_compare(&s, a, b)) == -sign(query_compare(&s, b, a)));
		}
	}
	free(text);
	return 0;
}
