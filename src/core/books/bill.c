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
	static const char *const names[] = {"aws-cur2", "aws-cur", "gcp", "azure", "neutral", "focus",
					    "oci"};

	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "neutral";
}

/* ---- the columns of each format ---- */

enum role { R_START, R_END, R_SERVICE, R_ITEM, R_SUB, R_RESOURCE, R_NAME, R_QUANTITY, R_UNIT,
	    R_AMOUNT, R_CURRENCY, R_KIND, R_PROVIDER, R_TYPE, R_CREDITS, R_TAGS, R_EFFECTIVE, R_LIST,
	    R_SKU, R_CATEGORY, R_N };

#define NALT 5

struct format_spec {
	enum bill_format format;
	const char *provider;
	const char *detect[2];          /* columns whose presence names the format */
	const char *cols[R_N][NALT];    /* accepted names of each role, first found wins */
	unsigned required;              /* bit per role (R_CURRENCY: unless --currency) */
	const char *tag_prefix[2];      /* columns named PREFIXkey are tags */
};

#define REQ(r) (1u << (r))

/* Column names (matched without regard to case, bill_header()): AWS CUR
 * 2.0 table dictionary, legacy CUR data dictionary, GCP "Structure of
 * Standard data export", Azure "Understand cost details fields" (EA, MCA,
 * pay-as-you-go usage details), FOCUS 1.2 specification, OCI "Cost and
 * Usage Reports"; URLs and commits in docs/bill.md. */
static const struct format_spec formats[] = {
	/* FOCUS_Spec@04f8bb3d specification/columns/ (a file a column); x_ columns are
	 * provider extensions: none is read */
	{BILL_FOCUS, "other", {"BilledCost", "ChargePeriodStart"},
	 {[R_START] = {"ChargePeriodStart"}, [R_END] = {"ChargePeriodEnd"},
	  [R_SERVICE] = {"ServiceName"}, [R_ITEM] = {"ChargeDescription", "SkuId"},
	  [R_RESOURCE] = {"ResourceId"}, [R_NAME] = {"ResourceName"},
	  [R_QUANTITY] = {"PricingQuantity", "ConsumedQuantity"},
	  [R_UNIT] = {"PricingUnit", "ConsumedUnit"}, [R_AMOUNT] = {"BilledCost"},
	  [R_CURRENCY] = {"BillingCurrency"}, [R_PROVIDER] = {"ProviderName", "ServiceProviderName"},
	  [R_TYPE] = {"ChargeCategory"}, [R_TAGS] = {"Tags"}, [R_EFFECTIVE] = {"EffectiveCost"},
	  [R_LIST] = {"ListCost"}, [R_SKU] = {"SkuId"}, [R_CATEGORY] = {"ServiceCategory"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_AMOUNT) | REQ(R_CURRENCY), {NULL}},
	{BILL_AWS_CUR2, "aws", {"line_item_usage_start_date", "line_item_unblended_cost"},
	 {[R_START] = {"line_item_usage_start_date"}, [R_END] = {"line_item_usage_end_date"},
	  [R_SERVICE] = {"line_item_product_code"}, [R_ITEM] = {"line_item_usage_type"},
	  [R_RESOURCE] = {"line_item_resource_id"}, [R_QUANTITY] = {"line_item_usage_amount"},
	  [R_UNIT] = {"pricing_unit"}, [R_AMOUNT] = {"line_item_unblended_cost"},
	  [R_CURRENCY] = {"line_item_currency_code"}, [R_TYPE] = {"line_item_line_item_type"},
	  [R_TAGS] = {"resource_tags"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), {"resource_tags_"}},
	{BILL_AWS_CUR, "aws", {"lineItem/UsageStartDate", "lineItem/UnblendedCost"},
	 {[R_START] = {"lineItem/UsageStartDate"}, [R_END] = {"lineItem/UsageEndDate"},
	  [R_SERVICE] = {"lineItem/ProductCode"}, [R_ITEM] = {"lineItem/UsageType"},
	  [R_RESOURCE] = {"lineItem/ResourceId"}, [R_QUANTITY] = {"lineItem/UsageAmount"},
	  [R_UNIT] = {"pricing/unit"}, [R_AMOUNT] = {"lineItem/UnblendedCost"},
	  [R_CURRENCY] = {"lineItem/CurrencyCode"}, [R_TYPE] = {"lineItem/LineItemType"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), {"resourceTags/"}},
	{BILL_OCI, "oci", {"lineItem/intervalUsageStart", "cost/myCost"},
	 {[R_START] = {"lineItem/intervalUsageStart"}, [R_END] = {"lineItem/intervalUsageEnd"},
	  [R_SERVICE] = {"product/service"}, [R_ITEM] = {"product/Description", "cost/productSku"},
	  [R_RESOURCE] = {"product/resourceId"}, [R_QUANTITY] = {"usage/billedQuantity"},
	  [R_UNIT] = {"cost/skuUnitDescription"}, [R_AMOUNT] = {"cost/myCost"},
	  [R_CURRENCY] = {"cost/currencyCode"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_QUANTITY) | REQ(R_AMOUNT) | REQ(R_CURRENCY), {"tags/"}},
	{BILL_GCP, "gcp", {"usage_start_time", "sku.description"},
	 {[R_START] = {"usage_start_time"}, [R_END] = {"usage_end_time"},
	  [R_SERVICE] = {"service.description"}, [R_ITEM] = {"sku.description"},
	  [R_RESOURCE] = {"resource.name", "resource.global_name"},
	  [R_QUANTITY] = {"usage.amount"}, [R_UNIT] = {"usage.unit"}, [R_AMOUNT] = {"cost"},
	  [R_CURRENCY] = {"currency"}, [R_CREDITS] = {"credits"}, [R_TAGS] = {"labels"},
	  [R_TYPE] = {"cost_type"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), {NULL}},
	/* the same export flattened by a query (SELECT service.description AS
	 * service_description ...), as BigQuery writes nested fields to CSV */
	{BILL_GCP, "gcp", {"usage_start_time", "sku_description"},
	 {[R_START] = {"usage_start_time"}, [R_END] = {"usage_end_time"},
	  [R_SERVICE] = {"service_description"}, [R_ITEM] = {"sku_description"},
	  [R_RESOURCE] = {"resource_name", "resource_global_name"},
	  [R_QUANTITY] = {"usage_amount"}, [R_UNIT] = {"usage_unit"}, [R_AMOUNT] = {"cost"},
	  [R_CURRENCY] = {"currency"}, [R_CREDITS] = {"credits"}, [R_TAGS] = {"labels"},
	  [R_TYPE] = {"cost_type"}},
	 REQ(R_START) | REQ(R_END) | REQ(R_SERVICE) | REQ(R_ITEM) | REQ(R_QUANTITY) | REQ(R_AMOUNT) |
	 REQ(R_CURRENCY), {"labels_"}},
	/* EA and MCA cost details (Date, CostInBillingCurrency), pay-as-you-go
	 * usage details v1 (UsageDateTime, PreTaxCost, InstanceId), partner
	 * exports; their camelCase and localised spellings */
	{BILL_AZURE, "azure", {"MeterCategory", "Date|UsageDateTime|UsageDate"},
	 {[R_START] = {"Date", "UsageDateTime", "UsageDate"}, [R_SERVICE] = {"MeterCategory"},
	  [R_ITEM] = {"MeterName"}, [R_SUB] = {"MeterSubCategory"},
	  [R_RESOURCE] = {"ResourceId", "InstanceId", "InstanceName"}, [R_NAME] = {"ResourceName"},
	  [R_QUANTITY] = {"Quantity", "UsageQuantity"}, [R_UNIT] = {"UnitOfMeasure"},
	  [R_AMOUNT] = {"CostInBillingCurrency", "PreTaxCost", "Cost"},
	  [R_CURRENCY] = {"BillingCurrency", "BillingCurrencyCode", "Currency"},
	  [R_TYPE] = {"ChargeType"}, [R_TAGS] = {"Tags"}},
	 REQ(R_START) | REQ(R_AMOUNT) | REQ(R_CURRENCY), {NULL}},
	{BILL_NEUTRAL, "other", {"time", "kind"},
	 {[R_START] = {"time"}, [R_END] = {"end"}, [R_SERVICE] = {"service"}, [R_ITEM] = {"item"},
	  [R_RESOURCE] = {"resource"}, [R_QUANTITY] = {"quantity"}, [R_UNIT] = {"unit"},
	  [R_AMOUNT] = {"amount"}, [R_CURRENCY] = {"currency"}, [R_KIND] = {"kind"},
	  [R_PROVIDER] = {"provider"}, [R_TAGS] = {"tags"}},
	 REQ(R_START) | REQ(R_ITEM) | REQ(R_KIND) | REQ(R_QUANTITY) | REQ(R_AMOUNT) | REQ(R_CURRENCY),
	 {NULL}},
};

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

/* ---- headers (docs/bill.md "Headers") ---- */

/* A header cell as compared: the UTF-8 BOM and spaces dropped, and (when
 * english) of Azure's localised "Kategorie der Verbrauchseinheit
 * (MeterCategory)" the English name in the last brackets. Into out (n
 * bytes). */
static void header_name(const char *h, bool english, char *out, size_t n)
{
	size_t len;
	const char *open;

	if (!strncmp(h, "\xef\xbb\xbf", 3))
		h += 3;
	while (*h == ' ')
		h++;
	len = strlen(h);
	while (len && h[len - 1] == ' ')
		len--;
	if (english && len > 2 && h[len - 1] == ')' && (open = memchr(h, '(', len)) && open[1] != ')') {
		const char *last = open;
		while ((open = memchr(last + 1, '(', (size_t)(h + len - last - 1))))
			last = open;
		h = last + 1;
		len = (size_t)(strchr(h, ')') - h);
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, h, len);
	out[len] = '\0';
}

struct header {
	char (*name)[96];   /* the cells as written, trimmed, header_name(); owned */
	char (*en)[96];     /* the same, localised ones by their English name; owned */
	size_t n;
};

/* The column named name (any of "a|b"), ignoring case, as written, else by
 * its English name in brackets; -1 when none. */
static int header_col(const struct header *h, const char *name)
{
	while (*name) {
		size_t k = strcspn(name, "|");
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < h->n; i++) {
				const char *c = pass ? h->en[i] : h->name[i];
				if (strlen(c) == k && !strncasecmp(c, name, k))
					return (int)i;
			}
		name += k + (name[k] == '|');
	}
	return -1;
}

static int header_load(const struct csv *c, struct header *h)
{
	h->n = c->ncols;
	if (!(h->name = calloc(c->ncols ? c->ncols : 1, sizeof(*h->name))) ||
	    !(h->en = calloc(c->ncols ? c->ncols : 1, sizeof(*h->en))))
		return -1;
	for (size_t i = 0; i < c->ncols; i++) {
		header_name(c->header[i], false, h->name[i], sizeof(h->name[0]));
		header_name(c->header[i], true, h->en[i], sizeof(h->en[0]));
	}
	return 0;
}

static const struct format_spec *detect(const struct header *h)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (header_col(h, formats[i].detect[0]) >= 0 && header_col(h, formats[i].detect[1]) >= 0)
			return &formats[i];
	return NULL;
}

/* The format whose columns the header has most of (at least two), for a
 * refusal that says what it looks like; NULL none. */
static const struct format_spec *closest(const struct header *h)
{
	const struct format_spec *best = NULL;
	int best_n = 1;

	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		int n = 0;
		for (int k = 0; k < R_N; k++)
			for (int a = 0; a < NALT && formats[i].cols[k][a]; a++)
				if (header_col(h, formats[i].cols[k][a]) >= 0) {
					n++;
					break;
				}
		if (n > best_n) {
			best = &formats[i];
			best_n = n;
		}
	}
	return best;
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

/* An amount as a spreadsheet writes it (the FOCUS specification's SaaS
 * examples): spaces around, "$", thousands commas in groups of three,
 * "(12.50)" for a negative: "$10,000.00 " is 10000. 0, or -1 for anything
 * else (a decimal comma is never guessed). */
static int money(const char *s, double lo, double hi, double *out)
{
	char buf[64];
	size_t k = 0, digits = 0;
	bool paren = false, neg = false, seen_comma = false;

	while (*s == ' ')
		s++;
	if (*s == '(') {
		paren = true;
		s++;
	}
	if (*s == '-') {
		neg = true;
		s++;
	}
	if (*s == '$')
		s++;
	for (; isdigit((unsigned char)*s) || *s == ','; s++) {
		if (*s == ',') {
			/* a comma only after 1-3 digits, then groups of exactly three */
			if (!digits || (!seen_comma && digits > 3) || (seen_comma && digits != 3))
				return -1;
			seen_comma = true;
			digits = 0;
			continue;
		}
		if (k + 2 >= sizeof(buf))
			return -1;
		buf[k++] = *s;
		digits++;
	}
	if (seen_comma && digits != 3)
		return -1;
	if (*s == '.')
		for (buf[k++] = *s++; isdigit((unsigned char)*s) && k + 1 < sizeof(buf); s++)
			buf[k++] = *s;
	if (paren && *s++ != ')')
		return -1;
	while (*s == ' ')
		s++;
	buf[k] = '\0';
	if (*s || !k || number(buf, 0, hi > -lo ? hi : -lo, out))
		return -1;
	if (neg && paren)
		return -1;
	if (neg || paren)
		*out = -*out;
	return *out < lo || *out > hi ? -1 : 0;
}

/* Copy s into dst (n bytes), cut at a character when it is longer. */
static void copy_cut(char *dst, size_t n, const char *s)
{
	size_t len = strlen(s);

	if (len >= n) {
		len = n - 1;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
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
	char buf[4 * BILL_TEXT_MAX + BILL_TAGS_MAX + 256];
	int k;

	/* the fields, each ended by a NUL so none can run into the next; numbers
	 * as the doubles read (2.50 and 2.5 are one amount) */
	k = snprintf(buf, sizeof(buf), "%s%c%.17g%c%.17g%c%s%c%s%c%s%c%.17g%c%s%c%.17g%c%s", it->provider, 0,
		     it->start, 0, it->end, 0, it->service, 0, it->item, 0, it->resource, 0, it->quantity, 0,
		     it->unit, 0, it->amount + 0.0, 0, it->currency);
	if (k < 0)
		k = 0;
	/* credits and tags only when the line has them: a line read before
	 * they were keeps its digest (and is not imported twice) */
	if ((it->credits != 0 || it->tags[0]) && (size_t)k < sizeof(buf) - 1) {
		int m = snprintf(buf + k + 1, sizeof(buf) - (size_t)k - 1, "%.17g%c%s", it->credits + 0.0,
				 0, it->tags);
		if (m > 0)
			k += 1 + m;
	}
	return fnv1a(buf, (size_t)k < sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
}

/* GCP's credits cell, a list of objects with an amount each ("[{"name":
 * ..., "amount": -1.5, ...}]", or the same with single quotes as a
 * dataframe writes it): the amounts summed. 0, or -1 when an amount is not
 * a number. "" and "[]" are no credits. */
static int gcp_credits(const char *s, double *out)
{
	const char *p = s;

	*out = 0;
	while ((p = strstr(p, "amount"))) {
		char *end;
		double v;
		p += 6;
		if (*p != '"' && *p != '\'')
			continue;
		p++;
		while (*p == ' ')
			p++;
		if (*p++ != ':')
			return -1;
		while (*p == ' ')
			p++;
		v = strtod(p, &end);
		if (end == p || !isfinite(v) || fabs(v) > 1e12)
			return -1;
		*out += v;
		p = end;
	}
	return 0;
}

/* One parse under way: the format, its columns, the tag columns. */
struct parse {
	const struct format_spec *f;
	const struct csv *c;
	const char *fname;
	const struct bill_rules *rules;
	const char *currency;           /* --currency; NULL none */
	int col[R_N];
	int *tagcol;                    /* columns of tag_prefix, owned */
	size_t ntag;
	size_t tagskip;                 /* bytes of the prefix in those names */
	struct bill_export *out;
};

/* A FOCUS cell "null"/"NULL" is no value (FOCUS_Spec "Nullability"; the
 * FOCUS-Sample-Data export writes NULL) */
static const char *cell(const struct parse *ps, const struct csv_row *r, int k)
{
	const char *v = ps->col[k] >= 0 ? csv_get(r, ps->col[k]) : "";

	if (ps->f->format == BILL_FOCUS && !strcasecmp(v, "null"))
		return "";
	return v;
}

static const char *col_name(const struct parse *ps, int k, const char *dflt)
{
	return ps->col[k] >= 0 ? ps->c->header[ps->col[k]] : dflt;
}

/* The provider whose rules classify a FOCUS line: its ProviderName */
static const char *focus_provider(const char *name)
{
	if (contains_nocase(name, "amazon") || contains_nocase(name, "aws"))
		return "aws";
	if (contains_nocase(name, "microsoft") || contains_nocase(name, "azure"))
		return "azure";
	if (contains_nocase(name, "google"))
		return "gcp";
	return "other";
}

/* The line's tags: its tag columns as "key=value;...", else its Tags cell,
 * with "name=ResourceName" before them when the export has names. */
static void row_tags(const struct parse *ps, const struct csv_row *r, char *dst)
{
	char buf[BILL_TAGS_MAX * 2] = "";
	size_t k = 0;
	const char *name = cell(ps, r, R_NAME), *t = cell(ps, r, R_TAGS);

	if (*name)
		k += (size_t)snprintf(buf, sizeof(buf), "name=%s;", name);
	for (size_t i = 0; i < ps->ntag && k < sizeof(buf) - 1; i++) {
		const char *v = csv_get(r, ps->tagcol[i]);
		if (*v)
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s=%s;",
					      ps->c->header[ps->tagcol[i]] + ps->tagskip, v);
	}
	if (k < sizeof(buf) - 1 && *t && strcmp(t, "[]") && strcmp(t, "{}"))
		snprintf(buf + k, sizeof(buf) - k, "%s", t);
	copy_cut(dst, BILL_TAGS_MAX, buf);
}

/* A credit or refund line: CUR's line item type Credit or Refund, FOCUS's
 * ChargeCategory Credit, or a negative amount */
static bool is_credit(const char *type, double amount)
{
	return !strcasecmp(type, "Credit") || !strcasecmp(type, "Refund") || amount < 0;
}

/* The times, the numbers and the currency of row r into it. 0, or -1 with err. */
static int row_numbers(const struct parse *ps, const struct csv_row *r, struct bill_item *it,
		       char *err, size_t errlen)
{
	const struct format_spec *f = ps->f;
	const char *fname = ps->fname, *v;
	char code[CURRENCY_CODE_MAX + 1];

	if (bill_parse_time(cell(ps, r, R_START), &it->start))
		return bad(err, errlen, fname, r->line, col_name(ps, R_START, "start"),
			   _("a time such as 2024-03-05T14:00:00Z"), cell(ps, r, R_START));
	v = cell(ps, r, R_END);
	if (!*v) {
		/* Azure's rows are daily; a neutral line without end is a moment */
		it->end = it->start + (f->format == BILL_AZURE ? 86400.0 : 0.0);
	} else if (bill_parse_time(v, &it->end)) {
		return bad(err, errlen, fname, r->line, col_name(ps, R_END, "end"),
			   _("a time such as 2024-03-05T15:00:00Z"), v);
	} else if (it->end < it->start) {
		return bad(err, errlen, fname, r->line, col_name(ps, R_END, "end"),
			   _("a time not before the start"), v);
	}
	v = cell(ps, r, R_QUANTITY);
	if (*v && number(v, -1e15, 1e15, &it->quantity))
		return bad(err, errlen, fname, r->line, col_name(ps, R_QUANTITY, "quantity"),
			   _("a number"), v);
	v = cell(ps, r, R_AMOUNT);
	if (number(v, -1e12, 1e12, &it->amount) && money(v, -1e12, 1e12, &it->amount))
		return bad(err, errlen, fname, r->line, col_name(ps, R_AMOUNT, "amount"),
			   _("an amount between -1e12 and 1e12"), v);
	v = cell(ps, r, R_CREDITS);
	if (*v && gcp_credits(v, &it->credits))
		return bad(err, errlen, fname, r->line, col_name(ps, R_CREDITS, "credits"),
			   _("a list of credits with an amount each"), v);
	v = cell(ps, r, R_CURRENCY);
	if (*v) {
		if (currency_canonical(v, code))
			return bad(err, errlen, fname, r->line, col_name(ps, R_CURRENCY, "currency"),
				   _("a currency code such as USD"), v);
	} else if (ps->currency) {
		snprintf(code, sizeof(code), "%s", ps->currency);
		ps->out->currency_given = true;
	} else {
		return bad(err, errlen, fname, r->line, col_name(ps, R_CURRENCY, "currency"),
			   _("a currency code (or give --currency)"), v);
	}
	memcpy(it->currency, code, sizeof(it->currency));
	return 0;
}

/* FOCUS's ChargeCategory (FOCUS_Spec@04f8bb3d specification/columns/chargecategory.md) */
static bool focus_category(const char *v)
{
	static const char *const cats[] = {"Usage", "Purchase", "Tax", "Credit", "Adjustment"};

	for (size_t i = 0; i < ARRAY_SIZE(cats); i++)
		if (!strcasecmp(v, cats[i]))
			return true;
	return !*v;
}

static int parse_row(const struct parse *ps, const struct csv_row *r, struct bill_item *it,
		     char *err, size_t errlen)
{
	const struct format_spec *f = ps->f;
	const char *fname = ps->fname, *v[R_N], *item;
	char text[4 * BILL_TEXT_MAX + 8];

	for (int k = 0; k < R_N; k++)
		v[k] = cell(ps, r, k);
	for (int k = 0; k < R_N; k++)
		if ((f->required & REQ(k)) && !*v[k] && k != R_ITEM && k != R_CURRENCY)
			return bad(err, errlen, fname, r->line, col_name(ps, k, "?"), _("a value"), "");
	memset(it, 0, sizeof(*it));
	it->line = r->line;
	if (row_numbers(ps, r, it, err, errlen))
		return -1;
	if (f->format == BILL_FOCUS && !focus_category(v[R_TYPE]))
		return bad(err, errlen, fname, r->line, col_name(ps, R_TYPE, "ChargeCategory"),
			   _("Usage, Purchase, Tax, Credit or Adjustment"), v[R_TYPE]);
	/* a credit or refund line has no usage type: its type is its item */
	item = v[R_ITEM];
	if (!*item && *v[R_TYPE])
		item = v[R_TYPE];   /* CUR's Tax, Credit, Refund lines */
	else if (!*item && it->amount < 0)
		item = "credit";
	if (!*item && f->format == BILL_FOCUS)
		item = *v[R_SKU] ? v[R_SKU] : v[R_TYPE];
	if (!*item && (f->required & REQ(R_ITEM)))
		return bad(err, errlen, fname, r->line, col_name(ps, R_ITEM, "item"), _("a value"), "");
	if (copy_text(it->service, sizeof(it->service), v[R_SERVICE], fname, r->line,
		      col_name(ps, R_SERVICE, "service"), err, errlen) ||
	    copy_text(it->resource, sizeof(it->resource), v[R_RESOURCE], fname, r->line,
		      col_name(ps, R_RESOURCE, "resource"), err, errlen) ||
	    copy_text(it->unit, sizeof(it->unit), v[R_UNIT], fname, r->line,
		      col_name(ps, R_UNIT, "unit"), err, errlen))
		return -1;
	/* FOCUS's ChargeDescription is prose of any length: kept cut */
	if (f->format == BILL_FOCUS)
		copy_cut(it->item, sizeof(it->item), item);
	else if (copy_text(it->item, sizeof(it->item), item, fname, r->line,
			   col_name(ps, R_ITEM, "item"), err, errlen))
		return -1;
	row_tags(ps, r, it->tags);
	if (f->format == BILL_NEUTRAL) {
		if (bill_kind_parse(v[R_KIND], &it->kind))
			return bad(err, errlen, fname, r->line, col_name(ps, R_KIND, "kind"),
				   _("gpu, storage, egress, image, ip or other"), v[R_KIND]);
		snprintf(it->provider, sizeof(it->provider), "%s", *v[R_PROVIDER] ? "" : "other");
		if (*v[R_PROVIDER] && copy_text(it->provider, sizeof(it->provider), v[R_PROVIDER],
						fname, r->line, "provider", err, errlen))
			return -1;
		return 0;
	}
	snprintf(it->provider, sizeof(it->provider), "%s",
		 f->format == BILL_FOCUS ? focus_provider(v[R_PROVIDER]) : f->provider);
	/* the match text: service|item (Azure: category|subcategory|meter;
	 * FOCUS: service|SKU|description) */
	if (f->format == BILL_AZURE)
		snprintf(text, sizeof(text), "%s|%s|%s", v[R_SERVICE], v[R_SUB], item);
	else if (f->format == BILL_FOCUS)
		snprintf(text, sizeof(text), "%s|%s|%s", v[R_SERVICE], v[R_SKU], item);
	else
		snprintf(text, sizeof(text), "%s|%s", v[R_SERVICE], item);
	it->kind = is_credit(v[R_TYPE], it->amount) ? BILL_OTHER : classify(ps->rules, it->provider, text);
	/* FOCUS's ServiceCategory Storage is storage whoever the provider */
	if (f->format == BILL_FOCUS && it->kind == BILL_OTHER && !strcasecmp(v[R_CATEGORY], "Storage") &&
	    !is_credit(v[R_TYPE], it->amount))
		it->kind = BILL_STORAGE;
	if (f->format == BILL_AZURE && *v[R_SUB] && *v[R_ITEM]) {
		char sub[2 * BILL_TEXT_MAX + 2];
		snprintf(sub, sizeof(sub), "%s/%s", v[R_SUB], v[R_ITEM]);
		if (copy_text(it->item, sizeof(it->item), sub, fname, r->line,
			      col_name(ps, R_ITEM, "item"), err, errlen))
			return -1;
	}
	return 0;
}

/* The columns of format f in the header, into ps->col and ps->tagcol. 0,
 * or -1 with "FILE:LINE: header: ..." in err. */
static int find_columns(struct parse *ps, const struct header *h, char *err, size_t errlen)
{
	const struct format_spec *f = ps->f;

	for (int k = 0; k < R_N; k++) {
		ps->col[k] = -1;
		for (int a = 0; a < NALT && f->cols[k][a] && ps->col[k] < 0; a++)
			ps->col[k] = header_col(h, f->cols[k][a]);
		if (ps->col[k] >= 0 || !(f->required & REQ(k)))
			continue;
		if (k == R_CURRENCY && ps->currency)
			continue;
		if (k == R_CURRENCY)
			snprintf(err, errlen, _("%s:%zu: header: %s export without a currency column (%s): "
				 "give --currency CODE"), ps->fname, ps->c->header_line,
				 bill_format_name(f->format), f->cols[k][0]);
		else
			snprintf(err, errlen, _("%s:%zu: header: %s export without a column %s"),
				 ps->fname, ps->c->header_line, bill_format_name(f->format), f->cols[k][0]);
		return -1;
	}
	if (ps->col[R_CURRENCY] >= 0)
		snprintf(ps->out->currency_column, sizeof(ps->out->currency_column), "%s",
			 ps->c->header[ps->col[R_CURRENCY]]);
	for (int t = 0; t < 2 && f->tag_prefix[t]; t++) {
		size_t pl = strlen(f->tag_prefix[t]);
		for (size_t i = 0; i < h->n; i++) {
			if (strncasecmp(h->name[i], f->tag_prefix[t], pl) || !h->name[i][pl])
				continue;
			if (!ps->tagcol && !(ps->tagcol = calloc(h->n, sizeof(*ps->tagcol))))
				return -1;
			ps->tagcol[ps->ntag++] = (int)i;
			ps->tagskip = pl;
		}
	}
	return 0;
}

/* The refusal of a header no format claims: what it looks like and the
 * column it lacks, or every format's key columns. */
static void refuse_header(const struct parse *ps, const struct header *h, char *err, size_t errlen)
{
	const struct format_spec *g = closest(h);

	if (g) {
		const char *miss = header_col(h, g->detect[0]) < 0 ? g->detect[0] : g->detect[1];
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(miss, "|"), miss);
		snprintf(err, errlen, _("%s:%zu: header: looks like %s, but has no column %s"),
			 ps->fname, ps->c->header_line, bill_format_name(g->format), name);
		return;
	}
	snprintf(err, errlen, _("%s:%zu: header: expected a FOCUS (BilledCost, ChargePeriodStart), AWS CUR "
		 "(line_item_usage_start_date or lineItem/UsageStartDate), GCP billing (usage_start_time, "
		 "sku.description), Azure cost details (Date or UsageDateTime, MeterCategory), OCI "
		 "(lineItem/intervalUsageStart, cost/myCost) or gpurent neutral (time, kind, ...) header"),
		 ps->fname, ps->c->header_line);
}

/* EffectiveCost and ListCost summed beside the amounts (FOCUS) */
static void side_costs(const struct parse *ps, struct bill_export *out)
{
	out->effective = out->list = NAN;
	if (ps->col[R_EFFECTIVE] < 0 && ps->col[R_LIST] < 0)
		return;
	if (ps->col[R_EFFECTIVE] >= 0)
		out->effective = 0;
	if (ps->col[R_LIST] >= 0)
		out->list = 0;
	for (size_t i = 0; i < ps->c->nrows; i++) {
		const struct csv_row *r = &ps->c->rows[i];
		double v;
		if (out->n && strcmp(out->v[i].currency, out->v[0].currency))
			continue;
		if (ps->col[R_EFFECTIVE] >= 0 && !number(cell(ps, r, R_EFFECTIVE), -1e12, 1e12, &v))
			out->effective += v;
		else if (ps->col[R_EFFECTIVE] >= 0 && !money(cell(ps, r, R_EFFECTIVE), -1e12, 1e12, &v))
			out->effective += v;
		if (ps->col[R_LIST] >= 0 && !number(cell(ps, r, R_LIST), -1e12, 1e12, &v))
			out->list += v;
		else if (ps->col[R_LIST] >= 0 && !money(cell(ps, r, R_LIST), -1e12, 1e12, &v))
			out->list += v;
	}
}

int bill_parse_currency(const char *buf, size_t len, const char *fname,
			const struct bill_rules *rules, const char *currency,
			struct bill_export *out, char *err, size_t errlen)
{
	struct parse ps = {.fname = fname, .rules = rules, .currency = currency, .out = out};
	struct header h = {0};
	struct csv c;
	char cerr[256];
	size_t cap = 0, skip = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;

	memset(out, 0, sizeof(*out));
	out->effective = out->list = NAN;
	/* a UTF-8 BOM (Azure's and Excel's exports) is not part of the first name */
	if (csv_parse(buf + skip, len - skip, &c, cerr, sizeof(cerr))) {
		snprintf(err, errlen, "%s:%s", fname, cerr + (strncmp(cerr, "line ", 5) ? 0 : 5));
		return -1;
	}
	ps.c = &c;
	if (header_load(&c, &h)) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		goto out_fail;
	}
	if (!(ps.f = detect(&h))) {
		refuse_header(&ps, &h, err, errlen);
		goto out_fail;
	}
	out->format = ps.f->format;
	out->digest = fnv1a(buf, len);
	if (find_columns(&ps, &h, err, errlen))
		goto out_fail;
	for (size_t i = 0; i < c.nrows; i++) {
		const struct csv_row *r = &c.rows[i];
		/* a short row's missing last cells are empty (koku's test CUR,
		 * opencost's Azure values: as Python's csv and pandas read them);
		 * a long one has a cell no column names */
		if (r->nfields > c.ncols) {
			snprintf(err, errlen, _("%s:%zu: row: expected at most %zu fields as in the header, got %zu"),
				 fname, r->line, c.ncols, r->nfields);
			goto out_fail;
		}
		if (util_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v))) {
			snprintf(err, errlen, _("%s: out of memory"), fname);
			goto out_fail;
		}
		if (parse_row(&ps, r, &out->v[out->n], err, errlen))
			goto out_fail;
		out->n++;
	}
	side_costs(&ps, out);
	free(ps.tagcol);
	free(h.name);
	free(h.en);
	csv_free(&c);
	return 0;
out_fail:
	free(ps.tagcol);
	free(h.name);
	free(h.en);
	csv_free(&c);
	bill_free(out);
	return -1;
}

int bill_parse(const char *buf, size_t len, const char *fname, const struct bill_rules *rules,
	       struct bill_export *out, char *err, size_t errlen)
{
	return bill_parse_currency(buf, len, fname, rules, NULL, out, err, errlen);
}
