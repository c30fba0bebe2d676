/*
 * fuzz_query.c - query_parse (src/core/market/query.h) on the input as one offer
 * query, and query_match of what parsed against data/offers.csv.
 */
#include "core/market/query.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct offer_set *set = fuzz_offers();
	char *text = fuzz_cstr(data, size), err[256];
	struct query q;
	size_t hits = 0;
	int rc;

	err[0] = '\0';
	rc = query_parse(text, &q, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		FUZZ_CHECK(fuzz_one_line(err) || strchr(text, '\n'));   /* "field: what was expected" */
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		free(text);
		return 0;
	}
	FUZZ_CHECK(q.n >= 0 && q.n <= QUERY_MAX_CLAUSES);
	for (int i = 0; i < q.n; i++) {
		const struct query_clause *c = &q.c[i];
		FUZZ_CHECK(c->field >= 0 && (size_t)c->field < query_field_count());
		FUZZ_CHECK(c->op >= QOP_LT && c->op <= QOP_NOTIN);
		FUZZ_CHECK(c->nvals >= 0 && c->nvals <= QUERY_MAX_LIST);
		for (int j = 0; j < c->nvals; j++)
			FUZZ_CHECK(memchr(c->vals[j], '\0', sizeof(c->vals[j])) != NULL);
		if (c->op == QOP_IN || c->op == QOP_NOTIN)
			FUZZ_CHECK(c->nvals >= 1);
	}
	for (size_t i = 0; i < set->n; i++)
		hits += query_match(&q, &set->v[i]);
	/* an empty query matches everything */
	if (q.n == 0)
		FUZZ_CHECK(hits == set->n);
	free(text);
	return 0;
}
