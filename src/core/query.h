/*
 * query.h - the offer query language (vast.ai style): clauses
 * "field op value" joined by implicit AND, e.g.
 *     gpu=A100 gpu_mem>=40 gpus>=2 price<3 spot
 * ops: < <= == (or =) != >= > in notin; a bare boolean field means true;
 * lists are [a,b,c]. Fields are listed in query_fields[] (docs/offers.md).
 */
#ifndef GPURENT_QUERY_H
#define GPURENT_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"

enum qtype { Q_NUM, Q_STR, Q_BOOL };

struct query_field {
	const char *name;   /* MUST keep query_fields sorted by name */
	enum qtype type;
	const char *unit;
	const char *help;
};
extern const struct query_field query_fields[];
extern const size_t query_nfields;

int query_field_index(const char *name);

/* The value of field i for an offer: numbers as double, text as cat_str. */
double query_num(int field, const struct offer *o);
struct cat_str query_str(int field, const struct offer *o, char *buf, size_t n);

#define QUERY_MAX_CLAUSES 32
#define QUERY_MAX_LIST 16
/* A text value is at most this long; a longer one is refused ("value
 * longer than 63 characters"), never cut. */
#define QUERY_MAX_VALUE 63

enum qop { QOP_LT, QOP_LE, QOP_EQ, QOP_NE, QOP_GE, QOP_GT, QOP_IN, QOP_NOTIN };

struct query_clause {
	int field;
	enum qop op;
	double num;
	bool boolean;
	int nvals;
	char vals[QUERY_MAX_LIST][QUERY_MAX_VALUE + 1];   /* normalised text values */
};

struct query {
	struct query_clause c[QUERY_MAX_CLAUSES];
	int n;
};

/*
 * Parse text into q. Returns 0, or -1 with "field: what was expected"
 * (or "near 'x': ...") in err, with a "did you mean" for unknown fields.
 */
int query_parse(const char *text, struct query *q, char *err, size_t errlen);

bool query_match(const struct query *q, const struct offer *o);

/* Sort spec "price" or "price-" (descending). 0 or -1 with err. */
struct query_sort {
	int field;
	bool desc;
};
int query_sort_parse(const char *text, struct query_sort *s, char *err, size_t errlen);
/* <0, 0, >0 like strcmp; offers without a value sort last. */
int query_compare(const struct query_sort *s, const struct offer *a, const struct offer *b);

#endif
