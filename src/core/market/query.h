/*
 * query.h - the offer query language (vast.ai style): clauses
 * "field op value" joined by implicit AND, e.g.
 *     gpu=A100 gpu_mem>=40 gpus>=2 price<3 spot
 * ops: < <= == (or =) != >= > in notin, and vast.ai's eq neq noteq gt gte
 * lt lte nin, "not in", "not eq" (a word operator stands between blanks);
 * a bare boolean field means true; lists are [a,b,c] (numbers too);
 * "field=any" (also ? and *) matches every offer. Fields are listed in
 * query_fields[]; vast.ai's names in query_vast_fields[] (docs/offers.md).
 * Text values compare after names_norm(), so RTX_4090 = "RTX 4090";
 * region matches the whole region or one of its comma-separated parts
 * ("Taiwan, TW, AS" matches TW and Taiwan, not the continent AS).
 */
#ifndef GPURENT_QUERY_H
#define GPURENT_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"

enum qtype { Q_NUM, Q_STR, Q_BOOL };

struct query_field {
	const char *name;   /* MUST keep query_fields sorted by name */
	enum qtype type;
	const char *unit;
	const char *help;
};
extern const struct query_field query_fields[];
extern const size_t query_nfields;

/* gpurent's own field name -> index into query_fields[]; -1 if none. */
int query_field_index(const char *name);

/*
 * vast.ai's field names (vast-cli vast.py offers_fields and offers_alias,
 * commit 55679830a2c2adcf5c7fad08bf08717a9591062a) and gpurent's answer:
 * QV_ALIAS the gpurent field `target` (same meaning and unit),
 * QV_CONVERTED a value computed from the offer (`unit`, `how`), or
 * QV_LIVE a field only vast's live API holds: a query or sort key naming
 * it is refused ("this field comes from vast's live API, not from price
 * catalogs"), except "field=any", which asks for no filter.
 */
enum qvast_kind { QV_ALIAS, QV_CONVERTED, QV_LIVE };
struct query_vast_field {
	const char *name;     /* MUST keep query_vast_fields sorted by name */
	enum qvast_kind kind;
	const char *target;   /* QV_ALIAS: a query_fields[] name; else "" */
	enum qtype type;      /* QV_CONVERTED: the value's type */
	const char *unit;     /* QV_CONVERTED: its unit ("" none) */
	const char *how;      /* what gpurent answers, one line (docs/offers.md) */
};
extern const struct query_vast_field query_vast_fields[];
extern const size_t query_vast_nfields;

/*
 * Field numbers: 0 .. query_nfields-1 are query_fields[];
 * query_nfields + k is query_vast_fields[k] (a QV_CONVERTED one).
 * query_field_count() is the end of that range.
 */
size_t query_field_count(void);
const char *query_field_name(int field);
enum qtype query_field_type(int field);

/*
 * Any name a query may use -> field number: gpurent's names, vast's
 * aliases (to their target) and converted fields. -1 with "NAME: unknown
 * field (did you mean ...)" in err, or -2 with "NAME: this field comes
 * from vast's live API, not from price catalogs" (both without a prefix).
 */
int query_field_lookup(const char *name, char *err, size_t errlen);

/* The value of field i for an offer: numbers as double (NAN: the offer has
 * no such value, e.g. compute_cap of an AMD card; no clause on it
 * matches), text as cat_str (borrowed from o or static data). */
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
	double nums[QUERY_MAX_LIST];                      /* a number field's in/notin list */
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

/*
 * Sort keys: comma-separated fields, each with an optional '-' (descending)
 * or '+' (ascending) before or after it, as vast's -o takes them:
 * "price", "gpus-,price", "num_gpus-", "-dph". Empty keys are skipped.
 * 0, or -1 with "--sort: ..." in err (a live-API field is refused).
 */
#define QUERY_MAX_SORT 8
struct query_sort_key {
	int field;
	bool desc;
};
struct query_sort {
	int n;   /* 1 .. QUERY_MAX_SORT after a successful parse */
	struct query_sort_key k[QUERY_MAX_SORT];
};
int query_sort_parse(const char *text, struct query_sort *s, char *err, size_t errlen);
/* <0, 0, >0 like strcmp, key by key; offers without a value sort last. */
int query_compare(const struct query_sort *s, const struct offer *a, const struct offer *b);

#endif
