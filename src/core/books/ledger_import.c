/*
 * ledger_import.c - the check every stored run passes, times as users
 * write them, and `ledger export --csv` read back (ledger_import.h).
 */
#include "core/books/ledger_import.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/i18n.h"
#include "core/text/names.h"
#include "base/quote.h"

/* Keys of summaries (tags, GPUs) are this long at most, with the NUL. */
#define KEY_MAX sizeof(((struct ledger_total *)0)->key)

static bool currency_ok(const char *c)
{
	size_t n = strlen(c);

	if (n < 3 || n > 7)
		return false;
	for (size_t i = 0; i < n; i++)
		if (c[i] < 'A' || c[i] > 'Z')
			return false;
	return true;
}

static int tag_too_long(const char *tag, size_t len, int pos, void *ctx)
{
	(void)tag, (void)pos, (void)ctx;
	return len >= KEY_MAX;
}

int ledger_run_check(const struct ledger_run *r, double start, double end, const char *currency,
		     bool has_money, char *err, size_t errlen)
{
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
	char q[QUOTE_KEEP * 4 + 8];

	if (r->kind && strcmp(r->kind, "guard") && strcmp(r->kind, "manual"))
		BAD(_("kind: expected 'guard' or 'manual', got '%s'"), quote_value(r->kind, q, sizeof(q)));
	/* Bounded so that no sum of stored values can overflow (ledger-cost-unbounded). */
	if (!(start >= 0 && start <= LEDGER_MAX_TIME))
		BAD(_("start: expected unix seconds between 0 and %.0e"), LEDGER_MAX_TIME);
	if (ledger_known(end) && !(end >= start && end <= LEDGER_MAX_TIME))
		BAD(_("end: expected unix seconds not before the start (%.0f) and at most %.0e, got %.0f"),
		    start, LEDGER_MAX_TIME, end);
	if (ledger_known(r->price_per_hour) && !(r->price_per_hour >= 0 && r->price_per_hour <= LEDGER_MAX_MONEY))
		BAD(_("price_per_hour: expected an amount between 0 and %.0e, got %g"), LEDGER_MAX_MONEY,
		    r->price_per_hour);
	if (ledger_known(r->cost) && !(r->cost >= 0 && r->cost <= LEDGER_MAX_MONEY))
		BAD(_("cost: expected an amount between 0 and %.0e, got %g"), LEDGER_MAX_MONEY, r->cost);
	if (ledger_known(r->idle_seconds) && !(r->idle_seconds >= 0 && r->idle_seconds <= LEDGER_MAX_TIME))
		BAD(_("idle_seconds: expected a number of seconds between 0 and %.0e"), LEDGER_MAX_TIME);
	if (r->gpu_count < -1 || r->exit_status < -1 || r->restarts < -1)
		BAD(_("%s: expected a count >= 0 (-1 for unknown)"), r->gpu_count < -1 ? "gpu_count" :
		    r->exit_status < -1 ? "exit_status" : "restarts");
	if (currency && !currency_ok(currency))
		BAD(_("currency: expected an ISO code in capitals such as USD or CNY, got '%s'"),
		    quote_value(currency, q, sizeof(q)));
	if (has_money && !currency)
		BAD(_("currency: a price or a cost needs its currency (never mixed up with another)"));
	if (r->gpu_type && strlen(r->gpu_type) >= KEY_MAX)
		BAD(_("gpu_type: expected at most %zu characters"), KEY_MAX - 1);
	if (names_each(r->tags, tag_too_long, NULL))
		BAD(_("tags: expected tags of at most %zu characters each"), KEY_MAX - 1);
#undef BAD
	return 0;
}

/* ---- times ---- */

static int two_digits(const char *p, int *out)
{
	if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]))
		return -1;
	*out = (p[0] - '0') * 10 + (p[1] - '0');
	return 0;
}

int ledger_time_parse(const char *s, double *out)
{
	struct tm tm = {0};
	int y, mo, d, h = 0, mi = 0, zh = 0, zm = 0, n = 0;
	double sec = 0, frac = 0;
	bool utc = false;
	const char *p;
	char *end;
	time_t t;

	if (strspn(s, "0123456789.") == strlen(s) && *s) {
		double v = strtod(s, &end);
		if (*end || !isfinite(v))
			return -1;
		*out = v;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	p = s + 10;
	if (*p == 'T' || *p == ' ') {
		if (two_digits(p + 1, &h) || p[3] != ':' || two_digits(p + 4, &mi))
			return -1;
		p += 6;
		if (*p == ':') {
			int si;
			if (two_digits(p + 1, &si))
				return -1;
			sec = si;
			p += 3;
			if (*p == '.' || *p == ',') {
				const char *q = p + 1;
				double scale = 0.1;
				if (!isdigit((unsigned char)*q))
					return -1;
				for (; isdigit((unsigned char)*q); q++, scale /= 10)
					frac += (*q - '0') * scale;
				p = q;
			}
		}
	}
	if (*p == 'Z' && !p[1]) {
		utc = true;
	} else if ((*p == '+' || *p == '-') && !two_digits(p + 1, &zh)) {
		const char *q = p + 3;
		if (*q == ':')
			q++;
		if (*q && (two_digits(q, &zm) || q[2]))
			return -1;
		if (zh > 23 || zm > 59)
			return -1;
		if (*p == '-')
			zh = -zh, zm = -zm;
		utc = true;
	} else if (*p) {
		return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = (int)sec;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1 || tm.tm_mday != d || tm.tm_mon != mo - 1)  /* Feb 30 */
		return -1;
	*out = (double)t + frac - (zh * 3600.0 + zm * 60.0);
	return 0;
}

/* ---- ledger export --csv read back ---- */

/* One field of an exported run: "" is unknown. Errors name FILE:LINE: column. */
struct imp {
	const struct csv *c;
	const struct csv_row *r;
	const char *file;
	char *err;
	size_t errlen;
};

static const char *imp_str(const struct imp *m, const char *col)
{
	int i = csv_col(m->c, col);
	const char *v = i >= 0 ? csv_get(m->r, i) : "";

	return *v ? v : NULL;
}

static int imp_bad(const struct imp *m, const char *col, const char *what, const char *got)
{
	char q[QUOTE_KEEP * 4 + 8];

	snprintf(m->err, m->errlen, _("%s:%zu: %s: expected %s, got '%s'"), m->file, m->r->line, col,
		 what, quote_value(got, q, sizeof(q)));
	return -1;
}

static int imp_num(const struct imp *m, const char *col, double lo, double hi, double *out)
{
	const char *v = imp_str(m, col);
	char *end;

	*out = NAN;
	if (!v)
		return 0;
	*out = strtod(v, &end);
	if (*end || !isfinite(*out) || *out < lo || *out > hi || strpbrk(v, "xXnN")) {
		char what[96];
		snprintf(what, sizeof(what), _("a number between %g and %g"), lo, hi);
		return imp_bad(m, col, what, v);
	}
	return 0;
}

static int imp_count(const struct imp *m, const char *col, int *out)
{
	double v;

	*out = -1;
	if (imp_num(m, col, 0, INT_MAX, &v))
		return -1;
	if (ledger_known(v)) {
		if (v != floor(v))
			return imp_bad(m, col, _("a whole number"), imp_str(m, col));
		*out = (int)v;
	}
	return 0;
}

/* Row r of the export as a run (strings borrowed from the CSV), checked as
 * every stored run is (ledger_run_check()); 0 or -1 with err. */
static int imp_row(const struct imp *m, struct ledger_run *run)
{
	const char *s;
	char why[512];

	ledger_run_init(run);
	run->kind = imp_str(m, "kind");
	/* start_unix is exact; start (ISO 8601 UTC) is read when it is absent */
	if (imp_num(m, "start_unix", 0, LEDGER_MAX_TIME, &run->start))
		return -1;
	if (!ledger_known(run->start)) {
		if (!(s = imp_str(m, "start")))
			return imp_bad(m, "start_unix", _("the run's start"), "");
		if (ledger_time_parse(s, &run->start))
			return imp_bad(m, "start", _("a time such as 2024-03-05T14:00:00Z"), s);
	}
	if (imp_num(m, "end_unix", 0, LEDGER_MAX_TIME, &run->end))
		return -1;
	if (!ledger_known(run->end) && (s = imp_str(m, "end")) && ledger_time_parse(s, &run->end))
		return imp_bad(m, "end", _("a time such as 2024-03-05T16:00:00Z"), s);
	if (imp_num(m, "price_per_hour", 0, LEDGER_MAX_MONEY, &run->price_per_hour) ||
	    imp_num(m, "cost", 0, LEDGER_MAX_MONEY, &run->cost) ||
	    imp_num(m, "idle_seconds", 0, LEDGER_MAX_TIME, &run->idle_seconds) ||
	    imp_count(m, "gpu_count", &run->gpu_count) || imp_count(m, "exit_status", &run->exit_status) ||
	    imp_count(m, "restarts", &run->restarts))
		return -1;
	run->currency = imp_str(m, "currency");
	run->command = imp_str(m, "command");
	run->host = imp_str(m, "host");
	run->gpu_type = imp_str(m, "gpu_type");
	run->billing_mode = imp_str(m, "billing_mode");
	run->stop_reason = imp_str(m, "stop_reason");
	run->log_path = imp_str(m, "log_path");
	run->tags = imp_str(m, "tags");
	run->notes = imp_str(m, "notes");
	run->problems = imp_str(m, "problems");
	/* the one check of every stored run, as `ledger add` and the guard get it */
	if (ledger_run_check(run, run->start, run->end, run->currency,
			     ledger_known(run->cost) || ledger_known(run->price_per_hour), why, sizeof(why))) {
		snprintf(m->err, m->errlen, "%s:%zu: %s", m->file, m->r->line, why);
		return -1;
	}
	return 0;
}

void ledger_import_free(struct ledger_import *m)
{
	if (!m)
		return;
	free(m->runs);
	free(m->lines);
	csv_free(&m->csv_);
	memset(m, 0, sizeof(*m));
}

int ledger_import_parse(const char *buf, size_t len, const char *fname, struct ledger_import *out,
			char *err, size_t errlen)
{
	struct csv *c = &out->csv_;
	char why[512];

	memset(out, 0, sizeof(*out));
	if (csv_parse(buf, len, c, why, sizeof(why))) {
		memset(c, 0, sizeof(*c));
		snprintf(err, errlen, "%s:%s", fname, why + (strncmp(why, "line ", 5) ? 0 : 5));
		return -1;
	}
	if (csv_col(c, "start_unix") < 0 && csv_col(c, "start") < 0) {
		snprintf(err, errlen, _("%s:%zu: header: expected the columns of 'ledger export --csv' "
					  "(start_unix, end_unix, cost, currency, ...)"), fname, c->header_line);
		goto out_free;
	}
	if (c->nrows && (!(out->runs = calloc(c->nrows, sizeof(*out->runs))) ||
			 !(out->lines = calloc(c->nrows, sizeof(*out->lines))))) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		goto out_free;
	}
	/* every row is checked before anything is stored */
	for (size_t i = 0; i < c->nrows; i++) {
		struct imp m = {c, &c->rows[i], fname, err, errlen};
		if (c->rows[i].nfields != c->ncols) {
			snprintf(err, errlen, _("%s:%zu: row: expected %zu fields as in the header, got %zu"),
				 fname, c->rows[i].line, c->ncols, c->rows[i].nfields);
			goto out_free;
		}
		if (imp_row(&m, &out->runs[i]))
			goto out_free;
		out->lines[i] = c->rows[i].line;
	}
	out->n = c->nrows;
	return 0;
out_free:
	ledger_import_free(out);
	return -1;
}
