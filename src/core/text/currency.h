/*
 * currency.h - the one table of currencies (data/currencies.csv) and the
 * one parser of "--rate CODE=UNITS_PER_USD", shared by every command that
 * prices (cost, offers, plan). Pure: the caller reads the file.
 *
 * Codes are 3 to 7 ASCII letters, compared case-insensitively and stored
 * upper-case. Aliases, resolved wherever a code is accepted (--currency,
 * --rate, and money values through units_parse_money(): 300RMB, 300 rmb,
 * ¥300, 300¥, ￥300, 300元, €3, 3€, $3):
 *   RMB, "¥" (U+00A5), "￥" (U+FFE5), "元" (U+5143) -> CNY
 *   "$", US$ -> USD;  "€" (U+20AC) -> EUR
 * so output always names the canonical code. CNH (offshore yuan, its own
 * rate) is not an alias. USD is the reference: its
 * rate is 1 and cannot be changed. A rate is finite, > 0 and at most
 * CURRENCY_MAX_PER_USD units per USD.
 */
#ifndef GPURENT_CURRENCY_H
#define GPURENT_CURRENCY_H

#include <stddef.h>

#define CURRENCY_CODE_MAX 7             /* letters */
#define CURRENCY_MAX_PER_USD 1e6        /* units per USD; 1e-6 USD per unit */

struct currency {
	char code[CURRENCY_CODE_MAX + 1];   /* "CNY" */
	double usd;                         /* USD per one unit */
	size_t line;                        /* currencies.csv line, 0 when set by a rate */
	char date[11];                      /* the rate's date, YYYY-MM-DD; "" when not given */
	char source[256];                   /* where the rate comes from; "" when set by a rate */
};

/* Grows as rates are added: no fixed size, nothing dropped. */
struct currency_table {
	struct currency *v;   /* owned */
	size_t n, cap;
};

/* Error codes (negative) of the functions below. */
enum currency_error {
	CURRENCY_ESYNTAX = -1,   /* not CODE=NUMBER, or a bad field in the file */
	CURRENCY_ECODE = -2,     /* not 3-7 letters (after aliases) */
	CURRENCY_ERATE = -3,     /* not finite, <= 0, over the maximum, or USD != 1 */
	CURRENCY_ENOMEM = -4,
};

/*
 * Load len bytes of currencies.csv text (columns code and usd; optional:
 * source, text without control characters, and date, YYYY-MM-DD, the day
 * the rate was observed; fname names it in messages) into *t, which the caller releases with
 * currency_table_free(). Returns 0, or a negative enum currency_error
 * with "fname:line: column: expected ..." in err and *t empty. A code
 * written twice is an error; USD is added (at 1) when the file lacks it.
 */
int currency_table_load(struct currency_table *t, const char *buf, size_t len, const char *fname,
			char *err, size_t errlen);

/* Free the entries; *t is left empty and reusable. NULL is fine. */
void currency_table_free(struct currency_table *t);

/*
 * The canonical form of a code or alias ("rmb", "¥" -> "CNY"; "eur" ->
 * "EUR") into out. Returns 0, or CURRENCY_ECODE when s is not 3-7 letters
 * nor an alias (out is then "").
 */
int currency_canonical(const char *s, char out[CURRENCY_CODE_MAX + 1]);

/*
 * The byte length of a currency symbol ("$", "¥", "￥", "元", "€": the
 * non-letter aliases) at the start of s, with its code in out; 0 and ""
 * when s does not start with one.
 */
size_t currency_symbol_prefix(const char *s, char out[CURRENCY_CODE_MAX + 1]);

/* The entry for code (aliases and any case accepted), or NULL. Borrowed
 * from t until it changes. */
const struct currency *currency_find(const struct currency_table *t, const char *code);

/* USD per one unit of code (0.1389 for CNY), or -1 when code is unknown. */
double currency_to_usd(const struct currency_table *t, const char *code);

/* Units of code per USD (7.2 for CNY), or -1 when code is unknown. */
double currency_per_usd(const struct currency_table *t, const char *code);

/*
 * Set code's rate to per_usd units per USD, adding the code when the
 * table lacks it (what --usd-rate does for --currency). Returns 0, or a
 * negative enum currency_error with a phrase in err for the caller to
 * prefix with the option ("expected at most 1000000 CNY per USD, got
 * 2e+06").
 */
int currency_set(struct currency_table *t, const char *code, double per_usd, char *err,
		 size_t errlen);

/*
 * Apply "CODE=UNITS_PER_USD" ("CNY=7.2", "rmb=7.2", "¥=7.2"): the number
 * must be finite, > 0 and at most CURRENCY_MAX_PER_USD. Returns 0, or a
 * negative enum currency_error with a phrase in err, without the option
 * name: "expected CODE=UNITS_PER_USD such as CNY=7.2, got 'CNY'", "expected
 * a positive number of CNY per USD, got 'inf'", "expected a currency code
 * of 3 to 7 letters such as CNY, got 'C1'". t is unchanged on error.
 */
int currency_set_rate(struct currency_table *t, const char *arg, char *err, size_t errlen);

#endif
