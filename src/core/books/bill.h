/*
 * bill.h - providers' billing exports read into bill items: AWS Cost and
 * Usage Report (CUR 2.0 and legacy CUR CSV), Google Cloud's billing export
 * as CSV, Azure cost details CSV (EA, MCA, pay-as-you-go, partner; localised
 * headers), FOCUS 1.0-1.2, Oracle Cloud (OCI) cost reports, and gpurent's
 * neutral CSV for platforms without an export. The format is found from the
 * header, its names matched without regard to case (docs/bill.md "Headers");
 * each column's source is in docs/bill.md. Pure: the caller reads the file and the kind
 * rules (data/bill_kinds.csv).
 */
#ifndef GPURENT_BILL_H
#define GPURENT_BILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bill_format { BILL_AWS_CUR2, BILL_AWS_CUR, BILL_GCP, BILL_AZURE, BILL_NEUTRAL, BILL_FOCUS,
		   BILL_OCI };

/* What a line paid for. MUST match bill_kind_names[] in bill.c. */
enum bill_kind { BILL_GPU, BILL_STORAGE, BILL_EGRESS, BILL_IMAGE, BILL_IP, BILL_OTHER,
		 BILL_NKINDS };

#define BILL_TEXT_MAX 256   /* bytes of service, item and resource, with the NUL */
#define BILL_TAGS_MAX 160   /* bytes of tags kept (longer cut at a character), with the NUL */

struct bill_item {
	double start, end;            /* unix seconds (UTC); end >= start */
	char provider[8];             /* "aws", "gcp", "azure", "oci", "other" */
	char service[BILL_TEXT_MAX];  /* product code, service, meter category */
	char item[BILL_TEXT_MAX];     /* usage type, SKU, meter; neutral: item */
	char resource[BILL_TEXT_MAX]; /* resource id; "" when the export has none */
	enum bill_kind kind;
	double quantity;              /* in unit */
	char unit[32];                /* "Hrs", "hour", "seconds", "GB-Mo", "1 Hour" */
	double amount;                /* in currency; negative for credits (FOCUS: BilledCost) */
	double credits;               /* GCP's credits field summed (<= 0); 0 elsewhere */
	char tags[BILL_TAGS_MAX];     /* tags and labels as the export writes them: "k=v;k=v"
					 from resource_tags_* / resourceTags/ / tags/ columns,
					 else the Tags or labels cell; "" none */
	char currency[8];             /* canonical ISO code */
	size_t line;                  /* line of the file the item came from */
};

struct bill_export {
	enum bill_format format;
	uint64_t digest;              /* FNV-1a 64 of the file's bytes */
	struct bill_item *v;          /* owned: bill_free() */
	size_t n;
	bool currency_given;          /* the currency came from the caller (no column, or
					 empty cells) for at least one line */
	char currency_column[64];     /* the header's currency column; "" none */
	/* FOCUS: EffectiveCost and ListCost summed beside BilledCost (the
	 * amounts), in the export's first currency; NAN when the column is absent */
	double effective, list;
};

/* One classification rule of data/bill_kinds.csv: a line of provider
 * whose match text (bill.c's match_text(), docs/bill.md) contains pattern,
 * ignoring ASCII case, is of kind. The first rule that matches wins. */
struct bill_rule {
	char provider[8];             /* "aws", "gcp", "azure" */
	char pattern[96];
	enum bill_kind kind;
};

struct bill_rules {
	struct bill_rule *v;          /* owned: bill_rules_free() */
	size_t n;
};

/* "gpu", "storage", ... for k; "other" for anything out of range. */
const char *bill_kind_name(enum bill_kind k);

/* The kind named s ("gpu" ...); 0, or -1 when s names none. */
int bill_kind_parse(const char *s, enum bill_kind *out);

/* "aws-cur2", "aws-cur", "gcp", "azure", "neutral", "focus", "oci". */
const char *bill_format_name(enum bill_format f);

/*
 * Load data/bill_kinds.csv text (columns provider, pattern, kind, source)
 * into *out (caller frees with bill_rules_free()). 0, or -1 with
 * "fname:line: column: expected ..." in err and *out empty.
 */
int bill_rules_load(const char *buf, size_t len, const char *fname, struct bill_rules *out,
		    char *err, size_t errlen);
void bill_rules_free(struct bill_rules *r);

/*
 * Parse len bytes of an export named fname (for messages). The format is
 * detected from the header. Every data line becomes one item, classified
 * by rules (the neutral CSV names its kind). Returns 0 and fills *out
 * (caller frees with bill_free()), or -1 with one line
 * "fname:LINE: column: expected ..., got '...'" in err and *out empty: a
 * file with one bad line gives no items at all.
 */
int bill_parse(const char *buf, size_t len, const char *fname, const struct bill_rules *rules,
	       struct bill_export *out, char *err, size_t errlen);

/*
 * bill_parse() with the currency of lines that name none (currency NULL:
 * such an export is refused, "FILE:LINE: header: ... without a currency
 * column ...: give --currency"); out->currency_given says it was used.
 */
int bill_parse_currency(const char *buf, size_t len, const char *fname,
			const struct bill_rules *rules, const char *currency,
			struct bill_export *out, char *err, size_t errlen);
void bill_free(struct bill_export *b);

/*
 * The FNV-1a 64 digest of a line's content: provider, start, end, service,
 * item, resource, quantity, unit, amount and currency, and the credits
 * and tags when there are any (not the file, the
 * line number, the kind or the bytes as written: a re-saved or grown
 * export gives each line the same digest). The ledger's key (docs/bill.md
 * "Import").
 */
uint64_t bill_item_digest(const struct bill_item *it);

/*
 * A time as bills write it, into unix seconds (UTC): "2024-03-05",
 * "2024-03-05T14:00:00Z", "2024-03-05 14:00:00 UTC", "...+08:00",
 * "...-0700", fractions of seconds, Azure's "03/05/2024" and "3/5/2024",
 * FOCUS examples' "3/5/24" (20YY), or unix seconds
 * (9 digits or more). No zone means UTC. 0, or -1 when s is none of these.
 */
int bill_parse_time(const char *s, double *out);

/* Seconds in one unit of a time unit ("Hrs", "hour", "1 Hour", "10 Hours",
 * "minutes", "seconds", "s", "h" ...); 0 when unit is not a time. */
double bill_unit_seconds(const char *unit);

#endif
