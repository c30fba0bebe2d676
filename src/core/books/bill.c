/*
 * bill.c - billing exports into bill items (bill.h): one table of which
 * column holds what in each format (the sources are in docs/bill.md), one
 * reader of times, numbers and currencies, and the kind rules of
 * data/bill_kinds.csv.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/books/bill.h"
#include "core/text/csv.h"
#include "core/text/currency.h"
#include "base/util.h"
#include "base/i18n.h"

static const char *const bill_kind_names[BILL_NKINDS] = {
	"gpu", "storage", "egress", "image", "ip", "other",
};

const char *bill_kind_name(enum bill_kind k)
{
	return (unsigned)k < BILL_NKINDS ? bill_kind_names[k] : "other";
}

int bill_kind_parse(const char *s, enum bill_kind *out)
{
	for (int k = 0; k < BILL_NKINDS; k++)
		if (!strcmp(s, bill_kind_names[k])) {
			*out = (enum bill_kind)k;
			return 0;
		}
	return -1;
}

const char *bill_format_name(enum bill_format f)
{
	static const char *const names[] = {"aws-cur2", "aws-cur", "gcp", "azure", "neutral"};

	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "neutral";
}

/* ---- the columns of each format ---- */

enum role { R_START, R_END, R_SERVICE, R_ITEM, R_SUB, R_RESOURCE, R_QUANTITY, R_UNIT, R_AMOUNT,
	    R_CURRENCY, R_KIND, R_PROVIDER, R_N };

struct format_spec {
	enum bill_format format;
	const char *provider;
	const char *detect[2];          /* columns whose presence names the format */
	const char *cols[R_N][3];       /* accepted names of each role, first found wins */
	unsigned required;              /* bit per role */
	const char *currency_default;   /* when the export has no currency column */
};

#define REQ(r) (1u << (r))

/* Column names: AWS CUR 2.0 table dictionary, legacy CUR data dictionary,
 * GCP "Structure of Standard data export", Azure "Understand cost details
 * fields"; URLs in docs/bill.md. */
static const struct format_spec formats[] = {
	{BILL_AWS_CUR2, "aws", {"line_item_usage_start_date", "line_item_unblended_cost"},
	 {[R_START] = {"line_item_usage_start_date"}, [R_END] = {"line_item_usage_end_date"},
	  [R_SERVICE] = {"line_item_product_code"}, [R_ITEM] = {"line_item_usage_type"},
	  [R_RESOURCE] = {"line_item_resource_id"}, [R_QUANTITY] = {"line_item_usage_amount"},
	  [R_UNIT] = {"pricing_unit"}, [R_AMOUNT] = {"line_item_unblended_cost"},
	  [R_CURRENCY] = {"line_item_currency_code"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT),
	 "USD"},
	{BILL_AWS_CUR, "aws", {"lineItem/UsageStartDate", "lineItem/UnblendedCost"},
	 {[R_START] = {"lineItem/UsageStartDate"}, [R_END] = {"lineItem/UsageEndDate"},
	  [R_SERVICE] = {"lineItem/ProductCode"}, [R_ITEM] = {"lineItem/UsageType"},
	  [R_RESOURCE] = {"lineItem/ResourceId"}, [R_QUANTITY] = {"lineItem/UsageAmount"},
	  [R_UNIT] = {"pricing/unit"}, [R_AMOUNT] = {"lineItem/UnblendedCost"},
	  [R_CURRENCY] = {"lineItem/CurrencyCode"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT),
	 "USD"},
	{BILL_GCP, "gcp", {"usage_start_time", "sku.description"},
	 {[R_START] = {"usage_start_time"}, [R_END] = {"usage_end_time"},
	  [R_SERVICE] = {"service.description"}, [R_ITEM] = {"sku.description"},
	  [R_RESOURCE] = {"resource.name", "resource.global_name"},
	  [R_QUANTITY] = {"usage.amount"}, [R_UNIT] = {"usage.unit"}, [R_AMOUNT] = {"cost"},
	  [R_CURRENCY] = {"currency"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), NULL},
	/* the same export flattened by a query (SELECT service.description AS
	 * service_description ...), as BigQuery writes nested fields to CSV */
	{BILL_GCP, "gcp", {"usage_start_time", "sku_description"},
	 {[R_START] = {"usage_start_time"}, [R_END] = {"usage_end_time"},
	  [R_SERVICE] = {"service_description"}, [R_ITEM] = {"sku_description"},
	  [R_RESOURCE] = {"resource_name", "resource_global_name"},
	  [R_QUANTITY] = {"usage_amount"}, [R_UNIT] = {"usage_unit"}, [R_AMOUNT] = {"cost"},
	  [R_CURRENCY] = {"currency"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), NULL},
	{BILL_AZURE, "azure", {"MeterCategory", "Date"},
	 {[R_START] = {"Date", "UsageDate"}, [R_SERVICE] = {"MeterCategory"},
	  [R_ITEM] = {"MeterName"}, [R_SUB] = {"MeterSubCategory"},
	  [R_RESOURCE] = {"ResourceId", "InstanceId"}, [R_QUANTITY] = {"Quantity"},
	  [R_UNIT] = {"UnitOfMeasure"}, [R_AMOUNT] = {"CostInBillingCurrency", "Cost"},
	  [R_CURRENCY] = {"BillingCurrency", "BillingCurrencyCode", "Currency"}},
	 REQ(R_START) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), NULL},
	{BILL_NEUTRAL, "other", {"time", "kind"},
	 {[R_START] = {"time"}, [R_END] = {"end"}, [R_SERVICE] = {"service"}, [R_ITEM] = {"item"},
	  [R_RESOURCE] = {"resource"}, [R_QUANTITY] = {"quantity"}, [R_UNIT] = {"unit"},
	  [R_AMOUNT] = {"amount"}, [R_CURRENCY] = {"currency"}, [R_KIND] = {"kind"},
	  [R_PROVIDER] = {"provider"}},
	 REQ(R_START) | REQ(R_ITEM) | REQ(R_KIND) | REQ(R_QUANTITY) | REQ(R_AMOUNT) | REQ(R_CURRENCY),
	 NULL},
};

/* ---- times ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static long days_from_civil(long y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char **p, int n, long *out)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

static bool valid_date(long y, long m, long d)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (y < 1970 || y > 9999 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	return !(m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)));
}

int bill_parse_time(const char *s, double *out)
{
	const char *p = s;
	long y, mo, d, h = 0, mi = 0, se = 0, zh, zm = 0;
	double frac = 0, off = 0;
	size_t n = strlen(s);

	if (n >= 9 && strspn(s, "0123456789") == n && n <= 11) {
		*out = strtod(s, NULL);
		return 0;
	}
	if (n >= 10 && s[2] == '/' && s[5] == '/') {   /* Azure: MM/DD/YYYY */
		if (digits(&p, 2, &mo) || *p++ != '/' || digits(&p, 2, &d) || *p++ != '/' ||
		    digits(&p, 4, &y))
			return -1;
	} else if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
		   digits(&p, 2, &d)) {
		return -1;
	}
	if (!valid_date(y, mo, d))
		return -1;
	if (*p == 'T' || (*p == ' ' && isdigit((unsigned char)p[1]))) {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &se))
				return -1;
			if (*p == '.') {
				double scale = 0.1;
				p++;
				if (!isdigit((unsigned char)*p))
					return -1;
				for (; isdigit((unsigned char)*p); p++, scale /= 10)
					frac += (*p - '0') * scale;
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			return -1;
	}
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1;
		if (digits(&p, 2, &zh))
			return -1;
		if (*p == ':')
			p++;
		if (*p && digits(&p, 2, &zm))
			return -1;
		if (zh > 14 || zm > 59)
			return -1;
		off = sign * (zh * 3600.0 + zm * 60.0);
	} else if (!strcmp(p, " UTC")) {
		p += 4;
	}
	if (*p)
		return -1;
	*out = (double)days_from_civil(y, (int)mo, (int)d) * 86400.0 + (double)(h * 3600 + mi * 60 + se)
	       + frac - off;
	return 0;
}

double bill_unit_seconds(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} units[] = {
		{"s", 1}, {"sec", 1}, {"secs", 1}, {"second", 1}, {"seconds", 1},
		{"min", 60}, {"mins", 60}, {"minute", 60}, {"minutes", 60},
		{"h", 3600}, {"hr", 3600}, {"hrs", 3600}, {"hour", 3600}, {"hours", 3600},
		{"day", 86400}, {"days", 86400},
	};
	const char *p = unit;
	double mult = 1;
	char *end;

	while (*p == ' ')
		p++;
	if (isdigit((unsigned char)*p)) {   /* Azure: "1 Hour", "10 Hours" */
		mult = strtod(p, &end);
		if (!(mult > 0 && mult <= 1e6))
			return 0;
		p = end;
		while (*p == ' ')
			p++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(p, units[i].name))
			return mult * units[i].s;
	return 0;
}

/* ---- rules ---- */

void bill_rules_free(struct bill_rules *r)
{
	if (!r)
		return;
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int rule_row(const struct csv *c, const struct csv_row *r, const char *fname, void *rec,
		    char *err, size_t errlen)
{
	struct bill_rule *b = rec;
	char kind[16];

	if (csv_field_str(c, r, "provider", true, fname, b->provider, sizeof(b->provider), err,
			  errlen) ||
	    csv_field_str(c, r, "pattern", true, fname, b->pattern, sizeof(b->pattern), err, errlen) ||
	    csv_field_str(c, r, "kind", true, fname, kind, sizeof(kind), err, errlen))
		return -1;
	if (strcmp(b->provider, "aws") && strcmp(b->provider, "gcp") && strcmp(b->provider, "azure")) {
		snprintf(err, errlen, _("%s:%zu: provider: expected aws, gcp or azure, got '%s'"), fname,
			 r->line, b->provider);
		return -1;
	}
	if (bill_kind_parse(kind, &b->kind)) {
		snprintf(err, errlen, _("%s:%zu: kind: expected gpu, storage, egress, image, ip or other, "
			 "got '%s'"), fname, r->line, kind);
		return -1;
	}
	if (csv_col(c, "source") < 0 || !*csv_get(r, csv_col(c, "source"))) {
		snprintf(err, errlen, _("%s:%zu: source: expected where the rule comes from"), fname,
			 r->line);
		return -1;
	}
	return 0;
}

int bill_rules_load(const char *buf, size_t len, const char *fname, struct bill_rules *out,
		    char *err, size_t errlen)
{
	void *v = NULL;

	out->v = NULL;
	out->n = 0;
	if (csv_load_table(buf, len, fname, sizeof(struct bill_rule), rule_row, &v, &out->n, err,
			   errlen))
		return -1;
	out->v = v;
	return 0;
}

/* ---- parsing ---- */

void bill_free(struct bill_export *b)
{
	if (!b)
		return;
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Does hay contain needle, ignoring ASCII case? */
static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!n)
		return true;
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return false;
}

static enum bill_kind classify(const struct bill_rules *rules, const char *provider,
			       const char *text)
{
	for (size_t i = 0; rules && i < rules->n; i++)
		if (!strcmp(rules->v[i].provider, provider) && contains_nocase(text, rules->v[i].pattern))
			return rules->v[i].kind;
	return BILL_OTHER;
}

/* The printable quote of a bad value for an error: at most 40 bytes, control bytes as '?'. */
static const char *quote(const char *s, char *buf, size_t n)
{
	size_t i = 0;

	for (; s[i] && i + 4 < n && i < 40; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (s[i]) {
		buf[i++] = '.';
		buf[i++] = '.';
		buf[i++] = '.';
	}
	buf[i] = '\0';
	return buf;
}

static int bad(char *err, size_t errlen, const char *fname, size_t line, const char *col,
	       const char *what, const char *got)
{
	char q[48];

	snprintf(err, errlen, _("%s:%zu: %s: expected %s, got '%s'"), fname, line, col, what,
		 quote(got, q, sizeof(q)));
	return -1;
}

static int number(const char *s, double lo, double hi, double *out)
{
	char *end;

	if (!*s || isspace((unsigned char)*s) || strpbrk(s, "xXnNiI"))
		return -1;
	*out = strtod(s, &end);
	if (*end || !isfinite(*out) || *out < lo || *out > hi)
		return -1;
	if (*out == 0)
		*out = 0;   /* -0 */
	return 0;
}

static int copy_text(char *dst, size_t n, const char *s, const char *fname, size_t line,
		     const char *col, char *err, size_t errlen)
{
	if (strlen(s) >= n) {
		snprintf(err, errlen, _("%s:%zu: %s: expected at most %zu bytes, got %zu"), fname, line,
			 col, n - 1, strlen(s));
		return -1;
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

uint64_t bill_item_digest(const struct bill_item *it)
{
	char buf[4 * BILL_TEXT_MAX + 256];
	int k;

	/* the fields, each ended by a NUL so none can run into the next; numbers
	 * as the doubles read (2.50 and 2.5 are one amount) */
	k = snprintf(buf, sizeof(buf), "%s%c%.17g%c%.17g%c%s%c%s%c%s%c%.17g%c%s%c%.17g%c%s", it->provider, 0,
		     it->start, 0, it->end, 0, it->service, 0, it->item, 0, it->resource, 0, it->quantity, 0,
		     it->unit, 0, it->amount + 0.0, 0, it->currency);
	if (k < 0)
		k = 0;
	return fnv1a(buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
}

static const struct format_spec *detect(const struct csv *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (csv_col(c, formats[i].detect[0]) >= 0 && csv_col(c, formats[i].detect[1]) >= 0)
			return &formats[i];
	return NULL;
}

static int parse_row(const struct format_spec *f, const int *col, const struct csv *c,
		     const struct csv_row *r, const char *fname, const struct bill_rules *rules,
		     struct bill_item *it, char *err, size_t errlen)
{
	const char *v[R_N];
	char text[3 * BILL_TEXT_MAX + 4];
	char code[CURRENCY_CODE_MAX + 1];

	for (int k = 0; k < R_N; k++)
		v[k] = col[k] >= 0 ? csv_get(r, col[k]) : "";
	for (int k = 0; k < R_N; k++)
		if ((f->required & REQ(k)) && !*v[k])
			return bad(err, errlen, fname, r->line, c->header[col[k]], _("a value"), "");
	memset(it, 0, sizeof(*it));
	it->line = r->line;
	if (bill_parse_time(v[R_START], &it->start))
		return bad(err, errlen, fname, r->line, c->header[col[R_START]],
			   _("a time such as 2024-03-05T14:00:00Z"), v[R_START]);
	if (!*v[R_END]) {
		/* Azure's rows are daily; a neutral line without end is a moment */
		it->end = it->start + (f->format == BILL_AZURE ? 86400.0 : 0.0);
	} else if (bill_parse_time(v[R_END], &it->end)) {
		return bad(err, errlen, fname, r->line, c->header[col[R_END]],
			   _("a time such as 2024-03-05T15:00:00Z"), v[R_END]);
	} else if (it->end < it->start) {
		return bad(err, errlen, fname, r->line, c->header[col[R_END]],
			   _("a time not before the start"), v[R_END]);
	}
	if (number(v[R_QUANTITY], -1e15, 1e15, &it->quantity))
		return bad(err, errlen, fname, r->line, c->header[col[R_QUANTITY]], _("a number"),
			   v[R_QUANTITY]);
	if (number(v[R_AMOUNT], -1e12, 1e12, &it->amount))
		return bad(err, errlen, fname, r->line, c->header[col[R_AMOUNT]],
			   _("an amount between -1e12 and 1e12"), v[R_AMOUNT]);
	if (*v[R_CURRENCY]) {
		if (currency_canonical(v[R_CURRENCY], code))
			return bad(err, errlen, fname, r->line, c->header[col[R_CURRENCY]],
				   _("a currency code such as USD"), v[R_CURRENCY]);
	} else {
		snprintf(code, sizeof(code), "%s", f->currency_default);
	}
	memcpy(it->currency, code, sizeof(it->currency));
	if (copy_text(it->service, sizeof(it->service), v[R_SERVICE], fname, r->line,
		      col[R_SERVICE] >= 0 ? c->header[col[R_SERVICE]] : "service", err, errlen) ||
	    copy_text(it->item, sizeof(it->item), v[R_ITEM], fname, r->line, c->header[col[R_ITEM]],
		      err, errlen) ||
	    copy_text(it->resource, sizeof(it->resource), v[R_RESOURCE], fname, r->line,
		      col[R_RESOURCE] >= 0 ? c->header[col[R_RESOURCE]] : "resource", err, errlen) ||
	    copy_text(it->unit, sizeof(it->unit), v[R_UNIT], fname, r->line,
		      col[R_UNIT] >= 0 ? c->header[col[R_UNIT]] : "unit", err, errlen))
		return -1;
	if (f->format == BILL_NEUTRAL) {
		if (bill_kind_parse(v[R_KIND], &it->kind))
			return bad(err, errlen, fname, r->line, c->header[col[R_KIND]],
				   _("gpu, storage, egress, image, ip or other"), v[R_KIND]);
		snprintf(it->provider, sizeof(it->provider), "%s", *v[R_PROVIDER] ? "" : "other");
		if (*v[R_PROVIDER] && copy_text(it->provider, sizeof(it->provider), v[R_PROVIDER],
						fname, r->line, "provider", err, errlen))
			return -1;
	} else {
		snprintf(it->provider, sizeof(it->provider), "%s", f->provider);
		/* the match text: service|item (Azure: category|subcategory|meter) */
		if (f->format == BILL_AZURE)
			snprintf(text, sizeof(text), "%s|%s|%s", v[R_SERVICE], v[R_SUB], v[R_ITEM]);
		else
			snprintf(text, sizeof(text), "%s|%s", v[R_SERVICE], v[R_ITEM]);
		it->kind = classify(rules, f->provider, text);
		if (f->format == BILL_AZURE && *v[R_SUB]) {
			char item[2 * BILL_TEXT_MAX + 2];
			snprintf(item, sizeof(item), "%s/%s", v[R_SUB], v[R_ITEM]);
			if (copy_text(it->item, sizeof(it->item), item, fname, r->line,
				      c->header[col[R_ITEM]], err, errlen))
				return -1;
		}
	}
	return 0;
}

int bill_parse(const char *buf, size_t len, const char *fname, const struct bill_rules *rules,
	       struct bill_export *out, char *err, size_t errlen)
{
	const struct format_spec *f;
	struct csv c;
	char cerr[256];
	int col[R_N];
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (csv_parse(buf, len, &c, cerr, sizeof(cerr))) {
		snprintf(err, errlen, "%s:%s", fname, cerr + (strncmp(cerr, "line ", 5) ? 0 : 5));
		return -1;
	}
	if (!(f = detect(&c))) {
		snprintf(err, errlen, _("%s:%zu: header: expected an AWS CUR (line_item_usage_start_date "
			 "or lineItem/UsageStartDate), GCP billing (usage_start_time, sku.description), "
			 "Azure cost details (Date, MeterCategory) or gpurent neutral (time, kind, ...) "
			 "header"), fname, c.header_line);
		goto out_fail;
	}
	out->format = f->format;
	out->digest = fnv1a(buf, len);
	for (int k = 0; k < R_N; k++) {
		col[k] = -1;
		for (int a = 0; a < 3 && f->cols[k][a] && col[k] < 0; a++)
			col[k] = csv_col(&c, f->cols[k][a]);
		if (col[k] < 0 && (f->required & REQ(k))) {
			snprintf(err, errlen, _("%s:%zu: header: expected a column %s (%s export)"), fname,
				 c.header_line, f->cols[k][0], bill_format_name(f->format));
			goto out_fail;
		}
	}
	for (size_t i = 0; i < c.nrows; i++) {
		const struct csv_row *r = &c.rows[i];
		if (r->nfields != c.ncols) {
			snprintf(err, errlen, _("%s:%zu: row: expected %zu fields as in the header, got %zu"),
				 fname, r->line, c.ncols, r->nfields);
			goto out_fail;
		}
		if (util_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v))) {
			snprintf(err, errlen, _("%s: out of memory"), fname);
			goto out_fail;
		}
		if (parse_row(f, col, &c, r, fname, rules, &out->v[out->n], err, errlen))
			goto out_fail;
		out->n++;
	}
	csv_free(&c);
	return 0;
out_fail:
	csv_free(&c);
	bill_free(out);
	return -1;
}
