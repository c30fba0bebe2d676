/*
 * billing.c - billing profiles from data/billing.csv and the price of a
 * usage pattern under each billing mode (billing.h). Every rule here is a
 * formula in docs/billing.md; the spot part uses spot.h.
 */
#include "core/market/billing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/csv.h"
#include "core/market/spot.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

#define HOUR 3600.0
#define DAY_H 24.0
#define MONTH_D 30.0            /* docs/billing.md: a month is 30 days = 720 h */
#define EPS 1e-9                /* so that 3 x 20 min is 1 h, not 1 h + 1 ulp */

/* MUST follow enum billing_mode. */
static const char *const mode_names[BILLING_NMODES] = {
	"per-second", "on-demand", "daily", "weekly", "monthly",
	"reserved-1y", "reserved-3y", "spot",
};

static const char *const supply_names[] = {
	"hyperscaler", "ai-cloud", "campus-hpc", "serverless", "marketplace",
};

const char *billing_mode_name(enum billing_mode m)
{
	return (unsigned)m < BILLING_NMODES ? mode_names[m] : "?";
}

int billing_mode_parse(const char *s, enum billing_mode *out)
{
	for (int i = 0; i < BILLING_NMODES; i++)
		if (!strcasecmp(s, mode_names[i])) {
			*out = (enum billing_mode)i;
			return 0;
		}
	return -1;
}

/* ---- loading ---- */

static bool valid_name(const char *s)
{
	if (!(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return s[-1] != '-';
}

/* A duration column ("1s", "1m", "1h"); empty gives dflt unless required. */
static int field_duration(const struct csv *c, const struct csv_row *r, const char *col,
			  bool required, double dflt, const char *fname, double *out,
			  char *err, size_t errlen)
{
	char buf[64], why[128];

	if (csv_field_str(c, r, col, required, fname, buf, sizeof(buf), err, errlen))
		return -1;
	if (!*buf) {
		*out = dflt;
		return 0;
	}
	if (units_parse_duration(buf, out, why, sizeof(why))) {
		snprintf(err, errlen, "%s:%zu: %s: %s", fname, r->line, col, why);
		return -1;
	}
	return 0;
}

/* A fraction column ("30%", "0.3") below 1; empty = BILLING_NONE or dflt. */
static int field_fraction(const struct csv *c, const struct csv_row *r, const char *col,
			  double dflt, const char *fname, double *out, char *err, size_t errlen)
{
	char buf[64], why[128];

	if (csv_field_str(c, r, col, false, fname, buf, sizeof(buf), err, errlen))
		return -1;
	if (!*buf) {
		*out = dflt;
		return 0;
	}
	if (units_parse_fraction(buf, out, why, sizeof(why))) {
		snprintf(err, errlen, "%s:%zu: %s: %s", fname, r->line, col, why);
		return -1;
	}
	if (*out >= 1) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a discount below 100%%, got '%s'"),
			 fname, r->line, col, buf);
		return -1;
	}
	return 0;
}

/* A per-GB or per-hour rate in a billing row: finite, far above any seen. */
#define BILLING_RATE_MAX 1e6

static int load_row(const struct csv *c, const struct csv_row *r, const char *fname,
		    void *record, char *err, size_t errlen)
{
	struct billing_profile *p = record;
	bool known = false;

	if (csv_field_str(c, r, "name", true, fname, p->name, sizeof(p->name), err, errlen))
		return -1;
	if (!valid_name(p->name)) {
		snprintf(err, errlen, _("%s:%zu: name: expected lowercase-with-dashes, got '%s'"),
			 fname, r->line, p->name);
		return -1;
	}
	if (csv_field_str(c, r, "supply", true, fname, p->supply, sizeof(p->supply), err, errlen))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(supply_names); i++)
		known |= !strcmp(p->supply, supply_names[i]);
	if (!known) {
		snprintf(err, errlen, _("%s:%zu: supply: expected hyperscaler, ai-cloud, campus-hpc, "
			 "serverless or marketplace, got '%s'"), fname, r->line, p->supply);
		return -1;
	}
	if (csv_field_str(c, r, "currency", true, fname, p->currency, sizeof(p->currency), err, errlen))
		return -1;
	if (field_duration(c, r, "granularity", true, 0, fname, &p->granularity_s, err, errlen) ||
	    field_duration(c, r, "min_charge", false, 0, fname, &p->min_charge_s, err, errlen))
		return -1;
	if (!(p->granularity_s > 0)) {
		snprintf(err, errlen, _("%s:%zu: granularity: expected a positive duration such as 1s, 1m or 1h"),
			 fname, r->line);
		return -1;
	}
	if (field_fraction(c, r, "daily_discount", BILLING_NONE, fname, &p->daily_discount, err, errlen) ||
	    field_fraction(c, r, "weekly_discount", BILLING_NONE, fname, &p->weekly_discount, err, errlen) ||
	    field_fraction(c, r, "monthly_discount", BILLING_NONE, fname, &p->monthly_discount, err, errlen) ||
	    field_fraction(c, r, "reserved_1y_discount", BILLING_NONE, fname, &p->reserved_1y_discount, err, errlen) ||
	    field_fraction(c, r, "reserved_3y_discount", BILLING_NONE, fname, &p->reserved_3y_discount, err, errlen) ||
	    field_fraction(c, r, "spot_discount", BILLING_NONE, fname, &p->spot_discount, err, errlen) ||
	    field_fraction(c, r, "student_discount", 0, fname, &p->student_discount, err, errlen))
		return -1;
	if (field_duration(c, r, "spot_mtbf", p->spot_discount != BILLING_NONE, 0, fname,
			   &p->spot_mtbf_s, err, errlen))
		return -1;
	if (p->spot_discount != BILLING_NONE && !(p->spot_mtbf_s > 0)) {
		snprintf(err, errlen, _("%s:%zu: spot_mtbf: expected a positive duration when spot is offered"),
			 fname, r->line);
		return -1;
	}
	if (csv_field_double_range(c, r, "storage_gb_month", false, 0, 0, BILLING_RATE_MAX, fname, &p->storage_gb_month, err, errlen) ||
	    csv_field_bool(c, r, "storage_bills_stopped", true, fname, &p->storage_bills_stopped, err, errlen) ||
	    csv_field_double_range(c, r, "stopped_per_hour", false, 0, 0, BILLING_RATE_MAX, fname, &p->stopped_per_hour, err, errlen) ||
	    csv_field_double_range(c, r, "egress_per_gb", false, 0, 0, BILLING_RATE_MAX, fname, &p->egress_per_gb, err, errlen) ||
	    csv_field_double_range(c, r, "image_gb_month", false, 0, 0, BILLING_RATE_MAX, fname, &p->image_gb_month, err, errlen) ||
	    csv_field_str(c, r, "source", true, fname, p->source, sizeof(p->source), err, errlen))
		return -1;
	return 0;
}

int billing_db_load(struct billing_db *db, const char *buf, size_t len,
		    const char *fname, char *err, size_t errlen)
{
	void *v = NULL;
	size_t n = 0;

	memset(db, 0, sizeof(*db));
	if (csv_load_table(buf, len, fname, sizeof(struct billing_profile), load_row, &v, &n,
			   err, errlen))
		return -1;
	db->v = v;
	db->n = n;
	/* Names are looked up by catalog rows: a duplicate would be ambiguous. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(db->v[i].name, db->v[j].name)) {
				snprintf(err, errlen, _("%s: name: '%s' appears twice"), fname, db->v[i].name);
				billing_db_free(db);
				return -1;
			}
	return 0;
}

void billing_db_free(struct billing_db *db)
{
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

const struct billing_profile *billing_find(const struct billing_db *db, const char *name)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcasecmp(db->v[i].name, name))
			return &db->v[i];
	return NULL;
}

/* Package or reserved discount of mode m, and its period in hours. */
static double mode_discount(const struct billing_profile *p, enum billing_mode m, double *period_h)
{
	switch (m) {
	case BILLING_DAILY:       *period_h = 24;        return p->daily_discount;
	case BILLING_WEEKLY:      *period_h = 168;       return p->weekly_discount;
	case BILLING_MONTHLY:     *period_h = 720;       return p->monthly_discount;
	case BILLING_RESERVED_1Y: *period_h = 8760;      return p->reserved_1y_discount;
	case BILLING_RESERVED_3Y: *period_h = 3 * 8760;  return p->reserved_3y_discount;
	case BILLING_SPOT:        *period_h = 0;         return p->spot_discount;
	default:                  *period_h = 0;         return 0;
	}
}

bool billing_mode_offered(const struct billing_profile *p, enum billing_mode m)
{
	double period;

	if ((unsigned)m >= BILLING_NMODES)
		return false;
	return mode_discount(p, m, &period) != BILLING_NONE;
}

double billing_breakeven_hours(const struct billing_profile *p, enum billing_mode mode,
			       double *period_h)
{
	double period = 0, d;

	if (mode < BILLING_DAILY || mode > BILLING_RESERVED_3Y)
		return NAN;
	d = mode_discount(p, mode, &period);
	if (period_h)
		*period_h = period;
	if (d == BILLING_NONE)
		return NAN;
	/* docs/billing.md "Break-even": period x (1 - d) */
	return period * (1 - d);
}

/* ---- pricing ---- */

void billing_usage_init(struct usage *u)
{
	memset(u, 0, sizeof(*u));
	u->fx = 1;
}

void billing_usage_job(struct usage *u, double hours)
{
	u->sessions[0].count = 1;
	u->sessions[0].seconds = hours * HOUR;
	u->nsessions = 1;
	u->hours_per_week = 0;
	u->weeks = 0;
}

static bool nonneg(double v)
{
	return v >= 0 && isfinite(v);
}

static int check_usage(const struct usage *u, double price, char *err, size_t errlen)
{
#define NEED(cond, ...) do { if (!(cond)) { snprintf(err, errlen, __VA_ARGS__); return -1; } } while (0)
	NEED(nonneg(price), _("price: expected a price per hour >= 0, got %g"), price);
	NEED(u->nsessions <= BILLING_MAX_SESSIONS, _("sessions: at most %d kinds of session"),
	     BILLING_MAX_SESSIONS);
	for (size_t i = 0; i < u->nsessions; i++)
		NEED(nonneg(u->sessions[i].count) && nonneg(u->sessions[i].seconds),
		     _("sessions: expected COUNTxDURATION with both >= 0"));
	NEED(nonneg(u->hours_per_week) && u->hours_per_week <= 168,
	     _("hours-per-week: expected 0 to 168 hours, got %g"), u->hours_per_week);
	NEED(nonneg(u->weeks), _("weeks: expected a number of weeks >= 0, got %g"), u->weeks);
	NEED(!(u->hours_per_week > 0) || u->weeks > 0,
	     _("weeks: expected a number of weeks > 0 with hours-per-week"));
	NEED(nonneg(u->span_days), _("span: expected days >= 0, got %g"), u->span_days);
	NEED(u->idle_fraction >= 0 && u->idle_fraction < 1,
	     _("idle: expected a fraction from 0 up to (not including) 100%%, got %g"), u->idle_fraction);
	NEED(nonneg(u->data_gb), _("data: expected GB >= 0, got %g"), u->data_gb);
	NEED(nonneg(u->storage_days), _("storage-days: expected days >= 0, got %g"), u->storage_days);
	NEED(nonneg(u->egress_gb), _("egress: expected GB >= 0, got %g"), u->egress_gb);
	NEED(nonneg(u->image_gb), _("image: expected GB >= 0, got %g"), u->image_gb);
	NEED(nonneg(u->stopped_hours), _("stopped: expected hours >= 0, got %g"), u->stopped_hours);
	NEED(nonneg(u->operator_hours), _("my-time: expected hours >= 0, got %g"), u->operator_hours);
	NEED(nonneg(u->operator_rate), _("my-rate: expected a value per hour >= 0, got %g"), u->operator_rate);
	NEED(u->fx > 0 && isfinite(u->fx), _("fx: expected a positive exchange rate, got %g"), u->fx);
	NEED(nonneg(u->mtbf_s), _("mtbf: expected a duration >= 0, got %g"), u->mtbf_s);
	NEED(nonneg(u->ckpt_write_s), _("ckpt-write: expected a duration >= 0, got %g"), u->ckpt_write_s);
	NEED(nonneg(u->ckpt_interval_s), _("ckpt-interval: expected a duration >= 0, got %g"), u->ckpt_interval_s);
	NEED(nonneg(u->restart_s), _("restart: expected a duration >= 0, got %g"), u->restart_s);
#undef NEED
	return 0;
}

/* The pattern as (count, work seconds) pairs: the sessions, then the weekly block. */
static size_t pattern(const struct usage *u, struct usage_session *s)
{
	size_t n = 0;

	for (size_t i = 0; i < u->nsessions; i++)
		if (u->sessions[i].count > 0 && u->sessions[i].seconds > 0)
			s[n++] = u->sessions[i];
	if (u->hours_per_week > 0 && u->weeks > 0) {
		s[n].count = u->weeks;
		s[n++].seconds = u->hours_per_week * HOUR;
	}
	return n;
}

/* Seconds billed for one session of up seconds: whole increments, at least the minimum. */
static double rounded(const struct billing_profile *p, double up)
{
	double g = p->granularity_s, b;

	if (up <= 0)
		return 0;
	b = ceil(up / g - EPS) * g;
	if (b < up)   /* EPS never rounds below the time used by more than ~1e-9 g */
		b = up;
	return b > p->min_charge_s ? b : p->min_charge_s;
}

double billing_span_days(const struct usage *u)
{
	double up_h = 0, span_h;
	double keep = u->idle_fraction >= 0 && u->idle_fraction < 1 ? 1 - u->idle_fraction : 1;

	if (u->span_days > 0)
		return u->span_days;
	span_h = u->weeks > 0 && u->hours_per_week > 0 ? u->weeks * 7 * DAY_H : 0;
	for (size_t i = 0; i < u->nsessions && i < BILLING_MAX_SESSIONS; i++)
		up_h += u->sessions[i].count * u->sessions[i].seconds / keep / HOUR;
	/* docs/billing.md "Span": the sessions back to back, in whole days */
	if (up_h > 0 && ceil(up_h / DAY_H - EPS) * DAY_H > span_h)
		span_h = ceil(up_h / DAY_H - EPS) * DAY_H;
	return span_h / DAY_H;
}

int billing_price(const struct billing_profile *p, enum billing_mode mode, double price_per_hour,
		  const struct usage *u, struct bill *out, char *err, size_t errlen)
{
	struct usage_session s[BILLING_MAX_SESSIONS + 1];
	double work_h = 0, up_h = 0, span_h, life_d, rate, charge, period, d;
	double student, keep = 1 - u->idle_fraction;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->mode = mode;
	if ((unsigned)mode >= BILLING_NMODES) {
		snprintf(err, errlen, _("mode: unknown billing mode %d"), (int)mode);
		return -1;
	}
	if (check_usage(u, price_per_hour, err, errlen))
		return -1;
	if (!billing_mode_offered(p, mode)) {
		snprintf(err, errlen, _("%s: profile '%s' offers no %s billing"), billing_mode_name(mode),
			 p->name, billing_mode_name(mode));
		return BILLING_ENOMODE;
	}
	n = pattern(u, s);
	for (size_t i = 0; i < n; i++) {
		work_h += s[i].count * s[i].seconds / HOUR;
		up_h += s[i].count * s[i].seconds / keep / HOUR;
	}
	span_h = billing_span_days(u) * DAY_H;
	life_d = u->storage_days > 0 ? u->storage_days : span_h / DAY_H;
	student = u->student ? p->student_discount : 0;
	d = mode_discount(p, mode, &period);

	switch (mode) {
	case BILLING_PER_SECOND:
	case BILLING_ON_DEMAND:
		rate = price_per_hour * (1 - student);
		for (size_t i = 0; i < n; i++) {
			double up = s[i].seconds / keep;
			out->hours_billed += s[i].count *
				(mode == BILLING_PER_SECOND ? up : rounded(p, up)) / HOUR;
		}
		out->hours_used = up_h;
		break;
	case BILLING_DAILY:
	case BILLING_WEEKLY:
	case BILLING_MONTHLY: {
		/* docs/billing.md "Packages": one per period with use, at most one per session */
		double per_session = 0;
		rate = price_per_hour * (1 - student) * (1 - d);
		for (size_t i = 0; i < n; i++)
			per_session += s[i].count * ceil(s[i].seconds / keep / (period * HOUR) - EPS);
		out->packages = up_h > 0 ? fmin(ceil(span_h / period - EPS), per_session) : 0;
		if (out->packages < 1 && up_h > 0)
			out->packages = 1;
		out->hours_billed = out->packages * period;
		out->hours_used = up_h;
		break;
	}
	case BILLING_RESERVED_1Y:
	case BILLING_RESERVED_3Y:
		/* docs/billing.md "Reserved": every hour of the span, used or not */
		rate = price_per_hour * (1 - d);
		out->hours_billed = fmax(span_h, up_h);
		out->hours_used = up_h;
		break;
	case BILLING_SPOT: {
		double m = u->mtbf_s > 0 ? u->mtbf_s : p->spot_mtbf_s;
		rate = price_per_hour * (1 - d);
		for (size_t i = 0; i < n; i++) {
			double wall = spot_expected_wall(s[i].seconds / keep, u->ckpt_write_s,
							 u->restart_s, m, u->ckpt_interval_s);
			if (!(wall >= 0)) {
				snprintf(err, errlen, _("spot: cannot evaluate the expected time (mtbf %g s)"), m);
				return -1;
			}
			out->spot_wall_hours += s[i].count * wall / HOUR;
			out->hours_billed += s[i].count * rounded(p, wall) / HOUR;
		}
		out->spot_interruptions = out->spot_wall_hours * HOUR / m;
		{
			/* docs/billing.md "Spot": restarts without end are not a price */
			double spot_work_h = 0;
			for (size_t i = 0; i < n; i++)
				spot_work_h += s[i].count * s[i].seconds / HOUR;
			if (!isfinite(out->spot_wall_hours) ||
			    out->spot_wall_hours > BILLING_SPOT_MAX_STRETCH * spot_work_h) {
				out->spot_interruptions = fmin(out->spot_interruptions, BILLING_SPOT_MAX_INTERRUPTIONS);
				if (!isfinite(out->spot_interruptions))
					out->spot_interruptions = BILLING_SPOT_MAX_INTERRUPTIONS;
				out->spot_wall_hours = 0;
				out->hours_billed = 0;
				snprintf(err, errlen, _("spot: not viable: the work would take over %.0fx its length "
					 "with restarts (MTBF %g s)"), BILLING_SPOT_MAX_STRETCH, m);
				return BILLING_ENOTVIABLE;
			}
		}
		out->spot_interval_s = u->ckpt_write_s > 0 ?
			(u->ckpt_interval_s > 0 ? u->ckpt_interval_s : spot_daly_interval(u->ckpt_write_s, m)) : 0;
		out->hours_used = out->spot_wall_hours;
		break;
	}
	default:
		return -1;
	}
	/* docs/billing.md "The bill": compute and idle share the instance charge by time */
	charge = rate * out->hours_billed;
	out->rate_per_hour = rate;
	out->compute = up_h > 0 ? charge * work_h / up_h : charge;
	out->idle = charge - out->compute;
	out->rounding = rate * (out->hours_billed - out->hours_used);
	if (out->rounding < 0)
		out->rounding = 0;
	out->storage = u->data_gb * p->storage_gb_month * u->fx *
		(p->storage_bills_stopped ? life_d / MONTH_D : fmin(out->hours_used, life_d * DAY_H) / (MONTH_D * DAY_H));
	out->image = u->image_gb * p->image_gb_month * u->fx * life_d / MONTH_D;
	out->egress = u->egress_gb * p->egress_per_gb * u->fx;
	out->stopped = u->stopped_hours * p->stopped_per_hour * u->fx;
	out->operator_time = u->operator_hours * u->operator_rate;
	out->total = out->compute + out->idle + out->storage + out->egress + out->image +
		     out->stopped + out->operator_time;
	return 0;
}

/* Spot's total at u's MTBF; a spot that cannot finish costs without bound. */
static int spot_total(const struct billing_profile *p, double price_per_hour, const struct usage *u,
		      struct bill *sp, char *err, size_t errlen)
{
	int rc = billing_price(p, BILLING_SPOT, price_per_hour, u, sp, err, errlen);

	if (rc == BILLING_ENOTVIABLE) {
		sp->total = INFINITY;
		return 0;
	}
	return rc;
}

int billing_spot_breakeven(const struct billing_profile *p, double price_per_hour,
			   const struct usage *u, double *per_hour, char *err, size_t errlen)
{
	struct usage v = *u;
	struct bill od, sp;
	double lo = 1e-6, hi = 60;   /* interruptions per hour: ~once a century .. once a minute */
	int rc;

	if ((rc = billing_price(p, BILLING_ON_DEMAND, price_per_hour, u, &od, err, errlen)))
		return rc;
	v.mtbf_s = HOUR / lo;
	if ((rc = spot_total(p, price_per_hour, &v, &sp, err, errlen)))
		return rc;
	if (sp.total >= od.total) {
		*per_hour = 0;
		return 0;
	}
	v.mtbf_s = HOUR / hi;
	if ((rc = spot_total(p, price_per_hour, &v, &sp, err, errlen)))
		return rc;
	if (sp.total < od.total) {
		*per_hour = INFINITY;
		return 0;
	}
	/* docs/billing.md "Spot break-even": spot's expected total rises with the rate */
	for (int i = 0; i < 200 && hi / lo > 1 + 1e-9; i++) {
		double mid = sqrt(lo * hi);
		v.mtbf_s = HOUR / mid;
		if ((rc = spot_total(p, price_per_hour, &v, &sp, err, errlen)))
			return rc;
		if (sp.total < od.total)
			lo = mid;
		else
			hi = mid;
	}
	*per_hour = sqrt(lo * hi);
	return 0;
}
