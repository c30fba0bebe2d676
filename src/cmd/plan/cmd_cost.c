/*
 * cmd_cost.c - `gpurent cost`: price a usage pattern under every billing
 * mode of one profile side by side (billing.h), name the cheapest and the
 * break-even points. The formulas are in docs/billing.md.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/market/billing.h"
#include "core/text/csv.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"
#include "core/text/currency.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent cost --price PRICE [--billing PROFILE] [USAGE...] [--currency CODE]\n"
	"                    [--rate CODE=UNITS_PER_USD | --usd-rate N] [--json]\n"
	"       gpurent cost --list-billing [--json]      (also: --billing list)\n"
	"\n"
	"Price a usage pattern under every billing mode of one billing profile\n"
	"(data/billing.csv) side by side: per-second (the reference), on-demand at the\n"
	"profile's granularity, daily/weekly/monthly packages, reserved 1y/3y and spot\n"
	"(expected cost with interruptions). Prints the cheapest mode and the break-even\n"
	"points. Total = compute + idle + storage + egress + image + stopped + your time.\n"
	"Formulas: docs/billing.md.\n"
	"\n"
	"  --price PRICE          on-demand price per instance-hour: 1.2, $1.2, 1.32CNY, ¥1.32\n"
	"  --billing PROFILE      billing profile (default ai-cloud); e.g. per-second,\n"
	"                         per-minute, hourly, aws, gcp, azure, runpod, vast, autodl\n"
	"  --list-billing         list every profile of data/billing.csv with its rules\n"
	"                         and source, and exit (--json: every field)\n"
	"Usage (at least --sessions or --hours-per-week):\n"
	"  --sessions NxDUR[,..]   sessions of work, e.g. 10x20m or 8x2h,2x30m\n"
	"  --hours-per-week H     with --weeks W: one block of H hours a week\n"
	"  --weeks W\n"
	"  --span DUR             calendar time the pattern covers (default: the weeks,\n"
	"                         else the sessions back to back, in whole days)\n"
	"  --idle FRACTION        share of up time the GPU idles, billed (10%)\n"
	"  --data SIZE            persistent storage (50GB) ...\n"
	"  --storage-days DAYS    ... kept this long (default: the span)\n"
	"  --egress SIZE          data downloaded from the instance (20GB)\n"
	"  --image SIZE           a saved image kept as long as the storage (30GB)\n"
	"  --stopped DUR          time stopped but not released (12h)\n"
	"  --my-time DUR          your own time setting up and watching (2h) ...\n"
	"  --my-rate PRICE        ... valued at this much an hour, in --currency\n"
	"  --student              apply the profile's student discount\n"
	"Spot (when the profile offers it):\n"
	"  --mtbf DUR             mean time between interruptions (default: the profile's)\n"
	"  --interruptions N      the same as a rate per hour (0.25 = --mtbf 4h)\n"
	"  --ckpt-write DUR       checkpoint write time; without it an interruption\n"
	"                         restarts the session from its start\n"
	"  --ckpt-interval DUR    checkpoint interval (default: Daly's optimum)\n"
	"  --restart DUR          from interruption to computing again (default 0)\n"
	"Money:\n"
	"  --currency CODE        currency of the bill and of --my-rate (default: the\n"
	"                         one written on --price, else the profile's)\n"
	"  --rate CODE=N          N units of CODE per USD (data/currencies.csv has defaults)\n"
	"  --usd-rate N           N units of --currency per USD\n"
	"  --json                 machine-readable output (schema gpurent.cost/1;\n"
	"                         with --list-billing gpurent.billing/1)\n"
	"Bounds: at most 100 years (876600 h) of work; a bill above 1e15 is refused;\n"
	"ratios above 1000x print as 'over 1000x' (docs/billing.md \"Bounds\").\n"
	"\n"
	"Examples (the seed articles'):\n"
	"  gpurent cost --price 1.2 --billing hourly --sessions 10x20m    # 3x per-second\n"
	"  gpurent cost --price 1.88CNY --billing autodl --sessions 2x8h --span 30d\n"
	"  gpurent cost --price 1.32CNY --billing autodl --sessions 8x2h --span 7d\n");

#define CMD "cost"

struct opts {
	const char *billing;
	double price;
	char price_code[8];
	bool price_has_code;
	char my_rate_code[8];   /* "" = in the bill's currency */
	char currency[8];
	struct currency_table *cur;  /* data/currencies.csv and --rate; owned by cmd_cost() */
	double usd_rate;      /* --usd-rate, 0 = none */
	bool json;
	bool list_billing;    /* --list-billing, or --billing list */
	struct usage u;
};

/* docs/billing.md "Bounds": what `cost` accepts and prints. */
#define COST_WORK_MAX_H 876600.0   /* 100 years of work in all (the duration parser's maximum) */
#define COST_MONEY_MAX 1e15        /* no money figure printed above this */
#define COST_RATIO_MAX 1000.0      /* "vs per-second" above this prints as "over 1000x" */

#define usage_error msg_usage

/* Fill err and return -1: a value the callback refuses. */
static int cb_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cb_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- currencies (data/currencies.csv: code, usd = USD per unit) ---- */

static int load_rates(struct opts *o)
{
	const char *buf, *path;
	char *owned, err[512];
	size_t len;
	int rc;

	if ((rc = common_data_file("currencies.csv", &buf, &len, &owned, &path)))
		return rc;
	rc = currency_table_load(o->cur, buf, len, path, err, sizeof(err));
	free(owned);
	if (rc)
		return msg_usage("%s", err);
	return 0;
}

/* ---- arguments ---- */

/* A number of hours/days ("16") or a duration ("16h"), in seconds. */
static int number_or_duration(const char *s, double unit_s, double *out, char *err, size_t errlen)
{
	double v;

	if (!units_scan_number(s, &v) && v >= 0) {   /* a plain decimal: no hex, inf or nan */
		*out = v * unit_s;
		return 0;
	}
	return units_parse_duration(s, out, err, errlen);
}

static int parse_sessions(const char *arg, struct usage *u, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *x = strpbrk(tok, "x*\xC3");   /* 'x', '*' or the first byte of '×' */
		double count = 1, sec;
		const char *dur = tok;

		if (u->nsessions == BILLING_MAX_SESSIONS)
			return cb_fail(err, errlen, _("at most %d kinds of session"), BILLING_MAX_SESSIONS);
		if (x) {
			*x = '\0';
			dur = x + ((unsigned char)x[0] == 0xC3 ? 2 : 1);
			if (units_parse_count(tok, &count, err, errlen) || count != floor(count) || count < 1)
				return cb_fail(err, errlen, _("expected COUNTxDURATION such as 10x20m, got '%s'"), arg);
		}
		if (units_parse_duration(dur, &sec, err, errlen) || !(sec > 0))
			return cb_fail(err, errlen, _("expected COUNTxDURATION such as 10x20m, got '%s'"), arg);
		u->sessions[u->nsessions].count = count;
		u->sessions[u->nsessions++].seconds = sec;
	}
	if (!u->nsessions)
		return cb_fail(err, errlen, _("expected COUNTxDURATION such as 10x20m, got '%s'"), arg);
	return 0;
}

static int set_value(struct opts *o, const char *name, const char *v, char *err, size_t errlen)
{
	struct usage *u = &o->u;
	double x;

#define TRY(call) do { if (call) return -1; } while (0)
	if (!strcmp(name, "--billing")) {
		o->billing = v;
	} else if (!strcmp(name, "--price")) {
		TRY(units_parse_money(v, &o->price, o->price_code, err, errlen));
		o->price_has_code = common_money_has_code(v);
	} else if (!strcmp(name, "--currency")) {
		char code[CURRENCY_CODE_MAX + 1];
		if (currency_canonical(v, code))
			return cb_fail(err, errlen, _("expected a currency code such as USD or CNY, got '%s'"), v);
		snprintf(o->currency, sizeof(o->currency), "%s", code);
	} else if (!strcmp(name, "--rate")) {
		return currency_set_rate(o->cur, v, err, errlen) ? -1 : 0;
	} else if (!strcmp(name, "--usd-rate")) {
		if (units_scan_number(v, &o->usd_rate) || !(o->usd_rate > 0))
			return cb_fail(err, errlen, _("expected a positive number of --currency units per USD, got '%s'"), v);
	} else if (!strcmp(name, "--sessions")) {
		return parse_sessions(v, u, err, errlen);
	} else if (!strcmp(name, "--hours-per-week")) {
		TRY(number_or_duration(v, 3600, &x, err, errlen));
		u->hours_per_week = x / 3600;
		if (!(u->hours_per_week > 0) || u->hours_per_week > 168)
			return cb_fail(err, errlen, _("expected hours from 0 to 168, got '%s'"), v);
	} else if (!strcmp(name, "--weeks")) {
		TRY(units_parse_count(v, &u->weeks, err, errlen));
		if (!(u->weeks > 0))
			return cb_fail(err, errlen, _("expected a number of weeks > 0, got '%s'"), v);
	} else if (!strcmp(name, "--span")) {
		TRY(units_parse_duration(v, &x, err, errlen));
		u->span_days = x / 86400;
	} else if (!strcmp(name, "--idle")) {
		TRY(units_parse_fraction(v, &u->idle_fraction, err, errlen));
		if (u->idle_fraction >= 1)
			return cb_fail(err, errlen, _("expected a fraction below 100%%, got '%s'"), v);
	} else if (!strcmp(name, "--data")) {
		TRY(units_parse_bytes(v, &x, err, errlen));
		u->data_gb = x / 1e9;
	} else if (!strcmp(name, "--storage-days")) {
		TRY(number_or_duration(v, 86400, &x, err, errlen));
		u->storage_days = x / 86400;
	} else if (!strcmp(name, "--egress")) {
		TRY(units_parse_bytes(v, &x, err, errlen));
		u->egress_gb = x / 1e9;
	} else if (!strcmp(name, "--image")) {
		TRY(units_parse_bytes(v, &x, err, errlen));
		u->image_gb = x / 1e9;
	} else if (!strcmp(name, "--stopped")) {
		TRY(units_parse_duration(v, &x, err, errlen));
		u->stopped_hours = x / 3600;
	} else if (!strcmp(name, "--my-time")) {
		TRY(units_parse_duration(v, &x, err, errlen));
		u->operator_hours = x / 3600;
	} else if (!strcmp(name, "--my-rate")) {
		TRY(units_parse_money(v, &u->operator_rate, o->my_rate_code, err, errlen));
		if (!common_money_has_code(v))
			o->my_rate_code[0] = '\0';   /* in the bill's currency */
	} else if (!strcmp(name, "--mtbf")) {
		TRY(units_parse_duration(v, &u->mtbf_s, err, errlen));
		if (!(u->mtbf_s > 0))
			return cb_fail(err, errlen, _("expected a positive duration such as 6h, got '%s'"), v);
	} else if (!strcmp(name, "--interruptions")) {
		TRY(units_parse_count(v, &x, err, errlen));
		if (!(x > 0))
			return cb_fail(err, errlen, _("expected a rate per hour > 0 such as 0.25, got '%s'"), v);
		u->mtbf_s = 3600 / x;
	} else if (!strcmp(name, "--ckpt-write")) {
		TRY(units_parse_duration(v, &u->ckpt_write_s, err, errlen));
	} else if (!strcmp(name, "--ckpt-interval")) {
		TRY(units_parse_duration(v, &u->ckpt_interval_s, err, errlen));
	} else if (!strcmp(name, "--restart")) {
		TRY(units_parse_duration(v, &u->restart_s, err, errlen));
	}
#undef TRY
	return 0;
}

static int value_cb(const struct opt *op, const char *v, void *ctx, char *err, size_t errlen)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", op->name);
	return set_value(ctx, name, v, err, errlen);
}

#define VAL(t, n, a, ex) {.name = (n), .type = (t), .cb = value_cb, .raw = true, .arg = (a), .example = (ex)}

/* Returns OPT_GO to go on, else the exit code (help printed or error reported). */
static int parse_args(int argc, char **argv, struct opts *o, bool *have_price)
{
	const struct opt opts[] = {
		VAL(OPT_STRING, "billing", "PROFILE", "hourly"),
		VAL(OPT_DURATION, "ckpt-interval", "DUR", "30m"),
		VAL(OPT_DURATION, "ckpt-write", "DUR", "90s"),
		VAL(OPT_STRING, "currency", "CODE", "USD"),
		VAL(OPT_BYTES, "data", "SIZE", "50GB"),
		VAL(OPT_BYTES, "egress", "SIZE", "20GB"),
		VAL(OPT_NUMBER, "hours-per-week", "H", "16"),
		VAL(OPT_PERCENT, "idle", "FRACTION", "10%"),
		VAL(OPT_BYTES, "image", "SIZE", "30GB"),
		VAL(OPT_NUMBER, "interruptions", "N", "0.25"),
		OPT_BOOL("json", &o->json, N_("print JSON")),
		OPT_BOOL("list-billing", &o->list_billing, N_("list the billing profiles and exit")),
		VAL(OPT_DURATION, "mtbf", "DUR", "6h"),
		VAL(OPT_MONEY, "my-rate", "PRICE", "20"),
		VAL(OPT_DURATION, "my-time", "DUR", "2h"),
		{.name = "price", .type = OPT_MONEY, .cb = value_cb, .raw = true, .arg = "PRICE",
		 .example = "1.2", .seen = have_price},
		VAL(OPT_STRING, "rate", "CODE=N", "CNY=7.2"),
		VAL(OPT_DURATION, "restart", "DUR", "5m"),
		VAL(OPT_STRING, "sessions", "NxDUR", "10x20m"),
		VAL(OPT_DURATION, "span", "DUR", "30d"),
		VAL(OPT_DURATION, "stopped", "DUR", "12h"),
		VAL(OPT_NUMBER, "storage-days", "DAYS", "30"),
		OPT_BOOL("student", &o->u.student, N_("apply the profile's student discount")),
		VAL(OPT_NUMBER, "usd-rate", "N", "7.2"),
		VAL(OPT_COUNT, "weeks", "W", "4"),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = CMD, .usage = usage};

	*have_price = false;
	return opt_parse(&oc, opts, argc, argv, o, NULL);
}

/* ---- output ---- */

static const char *money(double v, char *buf, size_t n)
{
	if (v > -0.005 && v < 0.005)
		v = 0;   /* never "-0.00" */
	snprintf(buf, n, "%.2f", v);
	return buf;
}

struct result {
	struct bill b[BILLING_NMODES];
	int rc[BILLING_NMODES];
	int cheapest;              /* among the offered modes except the per-second reference */
	double per_month_h;        /* on-demand billed hours per 30 days */
	double spot_breakeven;     /* interruptions per hour; NaN when no spot */
	double span_days;
};

static void print_text(const struct billing_profile *p, const struct opts *o, const struct result *r)
{
	const struct usage *u = &o->u;
	const struct bill *od = &r->b[BILLING_ON_DEMAND], *ps = &r->b[BILLING_PER_SECOND];
	char g[32], mc[32], a[32], b2[32];
	double work_h = 0;

	for (size_t i = 0; i < u->nsessions; i++)
		work_h += u->sessions[i].count * u->sessions[i].seconds / 3600;
	work_h += u->hours_per_week * u->weeks;
	units_fmt_duration(p->granularity_s, g, sizeof(g));
	units_fmt_duration(p->min_charge_s, mc, sizeof(mc));
	printf(_("Profile %s (%s): billed in increments of %s%s%s; price %s %s/h%s.\n"), p->name, p->supply, g,
	       p->min_charge_s > 0 ? _(", minimum ") : "", p->min_charge_s > 0 ? mc : "",
	       money(o->price, a, sizeof(a)), o->currency, u->student && p->student_discount > 0 ?
	       _(" (student discount applied)") : "");
	printf(_("Usage: %.2f h of work, %.2f h up (idle %.0f%%), over %.3g day%s.\n\n"), work_h,
	       od->hours_used, u->idle_fraction * 100, r->span_days, r->span_days == 1 ? "" : "s");
	{
		static const int w[] = {-12, 8, 9, 9, 8, 8, 8, 8, 8, 8, 10, 0, 0};
		const char *const h[] = {_("mode"), _("rate/h"), _("billed h"), _("compute"), _("idle"),
					 _("storage"), _("egress"), _("image"), _("stopped"), _("my time"),
					 _("total"), "", _("vs per-second")};
		out_heading(stdout, w, h, ARRAY_SIZE(w));
	}
	for (int m = 0; m < BILLING_NMODES; m++) {
		const struct bill *b = &r->b[m];
		char c[8][32];
		if (r->rc[m] == BILLING_ENOMODE) {
			printf("%-12s %8s\n", billing_mode_name((enum billing_mode)m), "-");
			continue;
		}
		if (r->rc[m] == BILLING_ENOTVIABLE) {
			printf("%-12s %8s  ", billing_mode_name((enum billing_mode)m), "-");
			if (b->spot_interruptions >= BILLING_SPOT_MAX_INTERRUPTIONS)
				printf(_("not viable: over %.0f interruptions expected, each restarting the session\n"),
				       BILLING_SPOT_MAX_INTERRUPTIONS);
			else
				printf(_("not viable: %.0f interruptions expected, each restarting the session\n"),
				       b->spot_interruptions);
			continue;
		}
		printf("%-12s %8s %9.2f %9s %8s %8s %8s %8s %8s %8s %10s  ", billing_mode_name((enum billing_mode)m),
		       money(b->rate_per_hour, c[0], 32), b->hours_billed, money(b->compute, c[1], 32),
		       money(b->idle, c[2], 32), money(b->storage, c[3], 32), money(b->egress, c[4], 32),
		       money(b->image, c[5], 32), money(b->stopped, c[6], 32), money(b->operator_time, c[7], 32),
		       money(b->total, a, sizeof(a)));
		if (m == BILLING_PER_SECOND)
			printf(_("(reference)"));
		else if (ps->total > 0 && b->total / ps->total > COST_RATIO_MAX)
			printf(_("over %.0fx"), COST_RATIO_MAX);
		else if (ps->total > 0)
			printf("%.2fx", b->total / ps->total);
		if (m == r->cheapest)
			printf(_("  <- cheapest"));
		putchar('\n');
	}
	printf(_("\nAll money in %s. "), o->currency);
	if (r->cheapest >= 0)
		printf(_("Cheapest: %s at %s.\n"), billing_mode_name((enum billing_mode)r->cheapest),
		       money(r->b[r->cheapest].total, a, sizeof(a)));
	else
		printf("\n");
	if (od->rounding > 0.005)
		printf(_("Rounding: on-demand bills %.2f h for %.2f h up: %s paid for time not used "
		       "(%.2fx the per-second compute).\n"), od->hours_billed, od->hours_used,
		       money(od->rounding, a, sizeof(a)),
		       ps->compute + ps->idle > 0 ? (od->compute + od->idle) / (ps->compute + ps->idle) : 1);
	for (int m = BILLING_DAILY; m <= BILLING_SPOT; m++)
		if (billing_mode_offered(p, (enum billing_mode)m)) {
			printf(_("Break-even against on-demand (this pattern bills %.1f h on-demand over %.3g day%s, "
			       "%.1f h per 30 days if it repeats):\n"), od->hours_billed, r->span_days,
			       r->span_days == 1 ? "" : "s", r->per_month_h);
			break;
		}
	for (int m = BILLING_DAILY; m <= BILLING_RESERVED_3Y; m++) {
		double period, h = billing_breakeven_hours(p, (enum billing_mode)m, &period);
		static const char *const per[] = {"", "", N_("a day"), N_("a week"), N_("a month"), N_("a year"),
						   N_("in 3 years")};
		if (isnan(h))
			continue;
		if (m <= BILLING_MONTHLY)
			printf(_("  the %s package pays off above %.0f h of use %s (%.0f%% of its %.0f h)\n"),
			       billing_mode_name((enum billing_mode)m), h, msg_tr(per[m]), 100 * h / period, period);
		else
			printf(_("  %s pays off above %.0f%% utilisation (%.0f h %s)\n"),
			       billing_mode_name((enum billing_mode)m), 100 * h / period, h, msg_tr(per[m]));
	}
	if (r->rc[BILLING_SPOT] == BILLING_ENOTVIABLE) {
		if (u->ckpt_write_s <= 0)
			printf(_("  spot is not viable without checkpoints for sessions this long (see --ckpt-write)\n"));
		else
			printf(_("  spot is not viable at this interruption rate: restarts outrun the work\n"));
	} else if (!isnan(r->spot_breakeven)) {
		const struct bill *s = &r->b[BILLING_SPOT];
		double assumed = s->spot_wall_hours > 0 ? s->spot_interruptions / s->spot_wall_hours : 0;
		if (isinf(r->spot_breakeven))
			printf(_("  spot stays cheaper at any interruption rate up to one a minute\n"));
		else if (r->spot_breakeven == 0)
			printf(_("  spot is never cheaper for this pattern\n"));
		else
			printf(_("  spot pays off while interruptions stay below %.3g an hour (MTBF above %s); "
			       "assumed %.3g an hour (MTBF %s), %.2f expected\n"), r->spot_breakeven,
			       units_fmt_duration(3600 / r->spot_breakeven, a, sizeof(a)), assumed,
			       units_fmt_duration(assumed > 0 ? 3600 / assumed : INFINITY, b2, sizeof(b2)),
			       s->spot_interruptions);
		if (u->ckpt_write_s <= 0)
			printf(_("  (spot without checkpoints: an interruption restarts the session; see --ckpt-write)\n"));
	}
	printf(_("Total = compute + idle + storage/egress/image + stopped instance + your time "
	       "(docs/billing.md; profile source in data/billing.csv).\n"));
}

static void print_json(const struct billing_profile *p, const struct opts *o, const struct result *r)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.cost/1");
	json_str(&j, "profile", p->name);
	json_str(&j, "supply", p->supply);
	json_str(&j, "currency", o->currency);
	json_num(&j, "price_per_hour", o->price);
	json_num(&j, "span_days", r->span_days);
	json_str(&j, "source", p->source);
	json_arr_begin(&j, "modes");
	for (int m = 0; m < BILLING_NMODES; m++) {
		const struct bill *b = &r->b[m];
		json_obj_begin(&j, NULL);
		json_str(&j, "mode", billing_mode_name((enum billing_mode)m));
		json_bool(&j, "offered", r->rc[m] != BILLING_ENOMODE);
		if (r->rc[m] == BILLING_ENOTVIABLE) {
			json_bool(&j, "viable", false);
			json_num(&j, "spot_interruptions", r->b[m].spot_interruptions);
		} else if (r->rc[m] != BILLING_ENOMODE) {
			json_num(&j, "rate_per_hour", b->rate_per_hour);
			json_num(&j, "hours_used", b->hours_used);
			json_num(&j, "hours_billed", b->hours_billed);
			json_num(&j, "packages", b->packages);
			json_num(&j, "compute", b->compute);
			json_num(&j, "idle", b->idle);
			json_num(&j, "rounding", b->rounding);
			json_num(&j, "storage", b->storage);
			json_num(&j, "egress", b->egress);
			json_num(&j, "image", b->image);
			json_num(&j, "stopped", b->stopped);
			json_num(&j, "operator_time", b->operator_time);
			json_num(&j, "total", b->total);
			json_num(&j, "ratio_to_per_second", r->b[BILLING_PER_SECOND].total > 0 ?
				 b->total / r->b[BILLING_PER_SECOND].total : NAN);
			if (m == BILLING_SPOT) {
				json_num(&j, "spot_wall_hours", b->spot_wall_hours);
				json_num(&j, "spot_interruptions", b->spot_interruptions);
				json_num(&j, "spot_interval_seconds", b->spot_interval_s);
			}
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (r->cheapest >= 0)
		json_str(&j, "cheapest", billing_mode_name((enum billing_mode)r->cheapest));
	else
		json_null(&j, "cheapest");
	json_obj_begin(&j, "breakeven");
	json_num(&j, "on_demand_hours_per_month", r->per_month_h);
	for (int m = BILLING_DAILY; m <= BILLING_RESERVED_3Y; m++) {
		char key[64];
		double period, h = billing_breakeven_hours(p, (enum billing_mode)m, &period);
		snprintf(key, sizeof(key), "%s_hours_per_period", billing_mode_name((enum billing_mode)m));
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		json_num(&j, key, h);
	}
	json_num(&j, "spot_interruptions_per_hour", r->spot_breakeven);
	json_obj_end(&j);
	json_obj_end(&j);
}

/* ---- --list-billing ---- */

/* Whether a profile offers a discounted mode (its discount column is set). */
static bool offered(double d)
{
	return d != BILLING_NONE && d >= 0;
}

/* Whether the profile states a spot MTBF for an offered spot mode. */
static bool has_mtbf(const struct billing_profile *p)
{
	return p->spot_discount != BILLING_NONE && p->spot_mtbf_s > 0;
}

/* A discount column: "30%", or "-" when not offered. */
static const char *pct(double d, char *buf, size_t n)
{
	if (!offered(d))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.0f%%", d * 100);
	return buf;
}

/* The source cut to width bytes at a word, with "..." when cut (UTF-8 safe). */
static void print_source(const char *src, size_t width)
{
	size_t n = strlen(src), cut;

	if (n <= width) {
		printf(_("    source: %s\n"), src);
		return;
	}
	cut = width - 3;
	while (cut > 0 && ((unsigned char)src[cut] & 0xC0) == 0x80)
		cut--;   /* not inside a UTF-8 sequence */
	for (size_t k = cut; k > width / 2; k--)
		if (src[k] == ' ') {
			cut = k;
			break;
		}
	printf(_("    source: %.*s...\n"), (int)cut, src);
}

static void list_text(const struct billing_db *db)
{
	printf(_("%zu billing profiles (data/billing.csv; rules in docs/billing.md). Discounts are off the "
		 "on-demand price;\nMTBF is the assumed time between spot interruptions; storage per GB-month, "
		 "egress per GB, in the profile's currency.\n\n"), db->n);
	{
		static const int w[] = {-24, -11, -4, 7, 7, 6, 6, 7, 6, 6, 5, 7, 7, 7};
		const char *const h[] = {_("profile"), _("supply"), _("cur"), _("billed"), _("minimum"),
					 _("daily"), _("weekly"), _("monthly"), _("res1y"), _("res3y"),
					 _("spot"), _("mtbf"), _("storage"), _("egress")};
		out_heading(stdout, w, h, ARRAY_SIZE(w));
	}
	for (size_t i = 0; i < db->n; i++) {
		const struct billing_profile *p = &db->v[i];
		char g[32], mc[32], d[5][16], sp[16], mt[32];
		units_fmt_duration(p->granularity_s, g, sizeof(g));
		if (p->min_charge_s > 0)
			units_fmt_duration(p->min_charge_s, mc, sizeof(mc));
		else
			snprintf(mc, sizeof(mc), "-");
		if (has_mtbf(p))
			units_fmt_duration(p->spot_mtbf_s, mt, sizeof(mt));
		else
			snprintf(mt, sizeof(mt), "-");
		printf("%-24s %-11s %-4s %7s %7s %6s %6s %7s %6s %6s %5s %7s %7.3f %7.3f\n", p->name, p->supply,
		       p->currency, g, mc, pct(p->daily_discount, d[0], 16), pct(p->weekly_discount, d[1], 16),
		       pct(p->monthly_discount, d[2], 16), pct(p->reserved_1y_discount, d[3], 16),
		       pct(p->reserved_3y_discount, d[4], 16), pct(p->spot_discount, sp, sizeof(sp)), mt,
		       p->storage_gb_month, p->egress_per_gb);
		print_source(p->source, 110);
	}
}

/* A discount for JSON: the fraction, or null when not offered. */
static void json_discount(struct json *j, const char *key, double d)
{
	if (!offered(d))
		json_null(j, key);
	else
		json_num(j, key, d);
}

static void list_json(const struct billing_db *db)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.billing/1");
	json_arr_begin(&j, "profiles");
	for (size_t i = 0; i < db->n; i++) {
		const struct billing_profile *p = &db->v[i];
		json_obj_begin(&j, NULL);
		json_str(&j, "name", p->name);
		json_str(&j, "supply", p->supply);
		json_str(&j, "currency", p->currency);
		json_num(&j, "granularity_seconds", p->granularity_s);
		json_num(&j, "min_charge_seconds", p->min_charge_s);
		json_discount(&j, "daily_discount_fraction", p->daily_discount);
		json_discount(&j, "weekly_discount_fraction", p->weekly_discount);
		json_discount(&j, "monthly_discount_fraction", p->monthly_discount);
		json_discount(&j, "reserved_1y_discount_fraction", p->reserved_1y_discount);
		json_discount(&j, "reserved_3y_discount_fraction", p->reserved_3y_discount);
		json_discount(&j, "spot_discount_fraction", p->spot_discount);
		if (has_mtbf(p))
			json_num(&j, "spot_mtbf_seconds", p->spot_mtbf_s);
		else
			json_null(&j, "spot_mtbf_seconds");
		json_num(&j, "storage_per_gb_month", p->storage_gb_month);
		json_bool(&j, "storage_bills_stopped", p->storage_bills_stopped);
		json_num(&j, "stopped_per_hour", p->stopped_per_hour);
		json_num(&j, "egress_per_gb", p->egress_per_gb);
		json_num(&j, "image_per_gb_month", p->image_gb_month);
		json_num(&j, "student_discount_fraction", p->student_discount);
		json_str(&j, "source", p->source);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
}

static int list_billing(bool json)
{
	struct billing_db db;
	int rc;

	if ((rc = common_load_billing(&db)))
		return rc;
	if (json)
		list_json(&db);
	else
		list_text(&db);
	billing_db_free(&db);
	return msg_finish(EXIT_OK);
}

static int cost(int argc, char **argv, struct opts *op)
{
	struct opts o = *op;
	struct billing_db db;
	const struct billing_profile *p;
	struct result r;
	const struct currency *bill_rate, *price_rate, *prof_rate;
	char err[512];
	bool have_price;
	int rc;

	if ((rc = parse_args(argc, argv, &o, &have_price)) != OPT_GO)
		goto out;
	if (o.list_billing || !strcasecmp(o.billing, "list"))
		return list_billing(o.json);
	if (!have_price)
		return usage_error("--price: required: the on-demand price of the instance per hour (e.g. --price 1.2)");
	if (!o.u.nsessions && !(o.u.hours_per_week > 0))
		return usage_error("expected a usage pattern: --sessions 10x20m or --hours-per-week 16 --weeks 4");
	if (o.u.hours_per_week > 0 && !(o.u.weeks > 0))
		return usage_error("--weeks: expected a number of weeks with --hours-per-week");
	{
		double work_h = o.u.hours_per_week * o.u.weeks;
		for (size_t i = 0; i < o.u.nsessions; i++)
			work_h += o.u.sessions[i].count * o.u.sessions[i].seconds / 3600;
		if (!(work_h <= COST_WORK_MAX_H))
			return usage_error("expected at most 100 years (%.0f h) of work in all, got %.4g h "
					   "(--sessions, --hours-per-week x --weeks)", COST_WORK_MAX_H, work_h);
	}
	if ((rc = common_load_billing(&db)))
		return rc;
	if (!(p = billing_find(&db, o.billing))) {
		struct names_suggest sg;
		names_suggest_init(&sg, o.billing);
		for (size_t i = 0; i < db.n; i++)
			names_suggest_add(&sg, db.v[i].name);
		if (sg.best[0])
			rc = usage_error("--billing: unknown profile '%s' (did you mean '%s'?)", o.billing, sg.best);
		else
			rc = usage_error("--billing: unknown profile '%s' (profiles are in data/billing.csv)", o.billing);
		goto out_free_db;
	}
	/* the bill's currency: --currency, else the one written on --price, else the profile's */
	if (!o.currency[0])
		snprintf(o.currency, sizeof(o.currency), "%s", o.price_has_code ? o.price_code : p->currency);
	if (o.usd_rate > 0 && !strcmp(o.currency, "USD")) {
		rc = usage_error("--usd-rate: the bill is in USD; name the other currency with --currency");
		goto out_free_db;
	}
	if (o.usd_rate > 0 && currency_set(o.cur, o.currency, o.usd_rate, err, sizeof(err))) {
		rc = usage_error("--usd-rate: %s", err);
		goto out_free_db;
	}
	bill_rate = currency_find(o.cur, o.currency);
	price_rate = currency_find(o.cur, o.price_has_code ? o.price_code : o.currency);
	prof_rate = currency_find(o.cur, p->currency);
	if (!bill_rate || !price_rate) {
		rc = usage_error("--currency: unknown currency '%s' (add its rate with --rate %s=UNITS_PER_USD)",
				 bill_rate ? o.price_code : o.currency, bill_rate ? o.price_code : o.currency);
		goto out_free_db;
	}
	if (!prof_rate) {
		msg_error(_("%s: currency: profile '%s' is in %s, which data/currencies.csv lacks "
			     "(add it with --rate %s=UNITS_PER_USD)"), "billing.csv", p->name, p->currency, p->currency);
		rc = EXIT_USAGE;
		goto out_free_db;
	}
	o.price *= price_rate->usd / bill_rate->usd;
	if (o.my_rate_code[0]) {
		const struct currency *mr = currency_find(o.cur, o.my_rate_code);
		if (!mr) {
			rc = usage_error("--my-rate: unknown currency '%s' (add its rate with --rate %s=UNITS_PER_USD)",
					 o.my_rate_code, o.my_rate_code);
			goto out_free_db;
		}
		o.u.operator_rate *= mr->usd / bill_rate->usd;
	}
	o.u.fx = prof_rate->usd / bill_rate->usd;

	memset(&r, 0, sizeof(r));
	r.cheapest = -1;
	r.spot_breakeven = NAN;
	r.span_days = billing_span_days(&o.u);
	for (int m = 0; m < BILLING_NMODES; m++) {
		r.rc[m] = billing_price(p, (enum billing_mode)m, o.price, &o.u, &r.b[m], err, sizeof(err));
		if (r.rc[m] == BILLING_ENOMODE || r.rc[m] == BILLING_ENOTVIABLE)
			continue;
		if (r.rc[m]) {
			rc = usage_error("%s", err);
			goto out_free_db;
		}
		if (!(r.b[m].total <= COST_MONEY_MAX) || !(r.b[m].rate_per_hour <= COST_MONEY_MAX)) {
			rc = usage_error("%s: the bill would exceed %.0e %s (%.3g): check --price and the usage "
					 "(docs/billing.md \"Bounds\")", billing_mode_name((enum billing_mode)m),
					 COST_MONEY_MAX, o.currency, r.b[m].total);
			goto out_free_db;
		}
		if (m != BILLING_PER_SECOND && (r.cheapest < 0 || r.b[m].total < r.b[r.cheapest].total))
			r.cheapest = m;
	}
	r.per_month_h = r.span_days > 0 ? r.b[BILLING_ON_DEMAND].hours_billed * 30 / r.span_days : 0;
	if (billing_mode_offered(p, BILLING_SPOT) &&
	    (rc = billing_spot_breakeven(p, o.price, &o.u, &r.spot_breakeven, err, sizeof(err)))) {
		rc = usage_error("%s", err);
		goto out_free_db;
	}
	if (o.json)
		print_json(p, &o, &r);
	else
		print_text(p, &o, &r);
	rc = msg_finish(EXIT_OK);
out_free_db:
	billing_db_free(&db);
out:
	return rc;
}

int cmd_cost(int argc, char **argv)
{
	struct currency_table cur = {0};
	struct opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	billing_usage_init(&o.u);
	o.billing = "ai-cloud";
	o.cur = &cur;
	if ((rc = load_rates(&o)))
		return rc;
	rc = cost(argc, argv, &o);
	currency_table_free(&cur);
	return rc;
}
