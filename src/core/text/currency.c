/*
 * currency.c - the currency table and --rate parsing (currency.h): loaded
 * from currencies.csv text, grown as rates are added, aliases resolved.
 */
#include "core/text/currency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "core/text/csv.h"
#include "base/i18n.h"
#include "base/quote.h"

/* Symbols and old names accepted for a code (currency.h documents them). */
static const struct {
	const char *alias, *code;
} aliases[] = {
	{"$", "USD"},
	{"US$", "USD"},
	{"RMB", "CNY"},
	{"\xC2\xA5", "CNY"},       /* ¥ U+00A5 YEN SIGN (written for the yuan in China) */
	{"\xEF\xBF\xA5", "CNY"},   /* ￥ U+FFE5 FULLWIDTH YEN SIGN (Chinese input methods) */
	{"\xE5\x85\x83", "CNY"},   /* 元 U+5143 yuan */
	{"\xE2\x82\xAC", "EUR"},   /* € U+20AC */
};

size_t currency_symbol_prefix(const char *s, char out[CURRENCY_CODE_MAX + 1])
{
	out[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++) {
		size_t n = strlen(aliases[i].alias);
		/* symbols only ($, US$, ¥...): a letter alias ("RMB300") is not a prefix */
		if (!strpbrk(aliases[i].alias, "$") && (unsigned char)aliases[i].alias[0] < 0x80)
			continue;
		if (!strncmp(s, aliases[i].alias, n)) {
			snprintf(out, CURRENCY_CODE_MAX + 1, "%s", aliases[i].code);
			return n;
		}
	}
	return 0;
}

int currency_canonical(const char *s, char out[CURRENCY_CODE_MAX + 1])
{
	size_t n = strlen(s);

	out[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcasecmp(s, aliases[i].alias)) {
			snprintf(out, CURRENCY_CODE_MAX + 1, "%s", aliases[i].code);
			return 0;
		}
	if (n < 3 || n > CURRENCY_CODE_MAX)
		return CURRENCY_ECODE;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c < 'A' || c > 'Z') {
			out[0] = '\0';
			return CURRENCY_ECODE;
		}
		out[i] = c;
	}
	out[n] = '\0';
	return 0;
}

/* The entry of a canonical code, or NULL. */
static struct currency *lookup(const struct currency_table *t, const char *canonical)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].code, canonical))
			return &t->v[i];
	return NULL;
}

const struct currency *currency_find(const struct currency_table *t, const char *code)
{
	char c[CURRENCY_CODE_MAX + 1];

	if (!t || currency_canonical(code, c))
		return NULL;
	return lookup(t, c);
}

double currency_to_usd(const struct currency_table *t, const char *code)
{
	const struct currency *c = currency_find(t, code);

	return c ? c->usd : -1;
}

double currency_per_usd(const struct currency_table *t, const char *code)
{
	const struct currency *c = currency_find(t, code);

	return c ? 1 / c->usd : -1;
}

/* Append an entry (code canonical, usd checked). 0 or CURRENCY_ENOMEM. */
static int add(struct currency_table *t, const char *code, double usd, size_t line)
{
	void *v = t->v;

	if (util_grow(&v, &t->cap, t->n + 1, sizeof(*t->v)))
		return CURRENCY_ENOMEM;
	t->v = v;
	snprintf(t->v[t->n].code, sizeof(t->v[0].code), "%s", code);
	t->v[t->n].usd = usd;
	t->v[t->n].line = line;
	t->v[t->n].date[0] = t->v[t->n].source[0] = '\0';
	t->n++;
	return 0;
}

int currency_set(struct currency_table *t, const char *code, double per_usd, char *err,
		 size_t errlen)
{
	char c[CURRENCY_CODE_MAX + 1];
	struct currency *e;

	if (currency_canonical(code, c)) {
		snprintf(err, errlen, _("expected a currency code of 3 to %d letters such as CNY, got '%s'"),
			 CURRENCY_CODE_MAX, code);
		return CURRENCY_ECODE;
	}
	if (!isfinite(per_usd) || !(per_usd > 0)) {
		snprintf(err, errlen, _("expected a positive number of %s per USD, got %g"), c, per_usd);
		return CURRENCY_ERATE;
	}
	if (per_usd > CURRENCY_MAX_PER_USD) {
		snprintf(err, errlen, _("expected at most %.0f %s per USD, got %g"), CURRENCY_MAX_PER_USD, c,
			 per_usd);
		return CURRENCY_ERATE;
	}
	if (!strcmp(c, "USD") && per_usd != 1) {
		snprintf(err, errlen, _("USD is the reference currency: its rate is 1, not %g"), per_usd);
		return CURRENCY_ERATE;
	}
	if ((e = lookup(t, c))) {
		e->usd = 1 / per_usd;
		e->line = 0;   /* the file's row no longer says where the rate came from */
		e->date[0] = e->source[0] = '\0';
		return 0;
	}
	if (add(t, c, 1 / per_usd, 0)) {
		snprintf(err, errlen, _("out of memory adding %s"), c);
		return CURRENCY_ENOMEM;
	}
	return 0;
}

int currency_set_rate(struct currency_table *t, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char code[16], c[CURRENCY_CODE_MAX + 1], *end;
	double per_usd;

	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof(code)) {
		snprintf(err, errlen, _("expected CODE=UNITS_PER_USD such as CNY=7.2, got '%s'"), arg);
		return CURRENCY_ESYNTAX;
	}
	snprintf(code, sizeof(code), "%.*s", (int)(eq - arg), arg);
	if (currency_canonical(code, c)) {
		snprintf(err, errlen, _("expected a currency code of 3 to %d letters such as CNY, got '%s'"),
			 CURRENCY_CODE_MAX, code);
		return CURRENCY_ECODE;
	}
	per_usd = strtod(eq + 1, &end);
	if (end == eq + 1 || *end || !isfinite(per_usd) || !(per_usd > 0)) {
		snprintf(err, errlen, _("expected a positive number of %s per USD, got '%s'"), c, eq + 1);
		return CURRENCY_ERATE;
	}
	if (per_usd > CURRENCY_MAX_PER_USD) {
		snprintf(err, errlen, _("expected at most %.0f %s per USD, got '%s'"), CURRENCY_MAX_PER_USD, c,
			 eq + 1);
		return CURRENCY_ERATE;
	}
	return currency_set(t, c, per_usd, err, errlen);
}

/* One currencies.csv row: a canonical code and a rate within the bounds. */
static int currency_row(const struct csv *t, const struct csv_row *r, const char *fname, void *rec,
			char *err, size_t errlen)
{
	struct currency *cr = rec;
	char code[32];

	if (csv_field_str(t, r, "code", true, fname, code, sizeof(code), err, errlen))
		return -1;
	if (currency_canonical(code, cr->code) || strcmp(code, cr->code)) {
		snprintf(err, errlen, _("%s:%zu: code: expected 3 to %d upper-case letters such as CNY, got '%s'"),
			 fname, r->line, CURRENCY_CODE_MAX, code);
		return -1;
	}
	if (csv_field_double(t, r, "usd", true, 0, 1 / CURRENCY_MAX_PER_USD, fname, &cr->usd, err,
			     errlen))
		return -1;
	if (!strcmp(cr->code, "USD") && cr->usd != 1) {
		snprintf(err, errlen, _("%s:%zu: usd: USD is the reference, expected 1, got %g"), fname,
			 r->line, cr->usd);
		return -1;
	}
	if (csv_col(t, "date") >= 0 &&   /* an optional column */
	    csv_field_str(t, r, "date", false, fname, cr->date, sizeof(cr->date), err, errlen))
		return -1;
	if (cr->date[0] && !util_iso_date(cr->date)) {
		snprintf(err, errlen, _("%s:%zu: date: expected a date YYYY-MM-DD, got '%s'"), fname, r->line,
			 cr->date);
		return -1;
	}
	if (csv_col(t, "source") >= 0 &&   /* optional too: a file of code,usd still loads */
	    csv_field_str(t, r, "source", false, fname, cr->source, sizeof(cr->source), err, errlen))
		return -1;
	if (quote_has_control(cr->source, strlen(cr->source))) {
		snprintf(err, errlen, _("%s:%zu: source: expected text without control characters"), fname,
			 r->line);
		return -1;
	}
	cr->line = r->line;
	return 0;
}

int currency_table_load(struct currency_table *t, const char *buf, size_t len, const char *fname,
			char *err, size_t errlen)
{
	void *v;
	size_t n;
	int rc = CURRENCY_ESYNTAX;

	memset(t, 0, sizeof(*t));
	if (csv_load_table(buf, len, fname, sizeof(struct currency), currency_row, &v, &n, err, errlen))
		return CURRENCY_ESYNTAX;
	t->v = v;
	t->n = t->cap = n;
	for (size_t i = 0; i < t->n; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->v[i].code, t->v[k].code)) {
				snprintf(err, errlen, _("%s:%zu: code: %s is already on line %zu"), fname,
					 t->v[i].line, t->v[i].code, t->v[k].line);
				goto out_free;
			}
	if (!lookup(t, "USD") && add(t, "USD", 1, 0)) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		rc = CURRENCY_ENOMEM;
		goto out_free;
	}
	return 0;
out_free:
	currency_table_free(t);
	return rc;
}

void currency_table_free(struct currency_table *t)
{
	if (!t)
		return;
	free(t->v);
	memset(t, 0, sizeof(*t));
}
