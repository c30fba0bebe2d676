/*
 * billing.h - billing profiles (data/billing.csv) and the price of a usage
 * pattern under one billing mode: granularity and minimum charge, daily/
 * weekly/monthly packages, reserved terms, spot (expected cost with
 * interruptions, spot.h), storage, egress, saved images, a stopped but
 * unreleased instance, idle time and the user's own time. Every rule and
 * formula is in docs/billing.md with its source.
 *
 * Pure computation: no printing, no exit. Errors are negative returns
 * with a message in err.
 */
#ifndef GPURENT_BILLING_H
#define GPURENT_BILLING_H

#include <stdbool.h>
#include <stddef.h>

/* Returned by billing_price() when the profile does not offer the mode. */
#define BILLING_ENOMODE (-2)
/* Spot whose expected wall time exceeds BILLING_SPOT_MAX_STRETCH times the
 * work (restarts without end): not priced; bill.spot_interruptions holds
 * the expected interruptions, capped at BILLING_SPOT_MAX_INTERRUPTIONS. */
#define BILLING_ENOTVIABLE (-3)
#define BILLING_SPOT_MAX_STRETCH 100.0
#define BILLING_SPOT_MAX_INTERRUPTIONS 1e6

/* A money or fraction field of a profile that is not offered. */
#define BILLING_NONE (-1.0)

enum billing_mode {
	BILLING_PER_SECOND,    /* reference: exact seconds, no minimum */
	BILLING_ON_DEMAND,     /* the profile's granularity and minimum per session */
	BILLING_DAILY,         /* packages of 24 h */
	BILLING_WEEKLY,        /* 168 h */
	BILLING_MONTHLY,       /* 720 h (30 days) */
	BILLING_RESERVED_1Y,   /* every hour of the span, discounted */
	BILLING_RESERVED_3Y,
	BILLING_SPOT,          /* expected cost including interruptions */
	BILLING_NMODES
};

/* "per-second", "on-demand", "daily", ..., "spot". Static string. */
const char *billing_mode_name(enum billing_mode m);
/* 0 and *out, or -1 for an unknown name. */
int billing_mode_parse(const char *s, enum billing_mode *out);

/*
 * One billing profile: one row of data/billing.csv. Money is in
 * `currency` (prices per hour are the offer's, not the profile's: the
 * profile holds rules, discounts and the per-GB prices).
 */
struct billing_profile {
	char name[40];              /* lowercase-with-dashes, unique */
	char supply[16];            /* hyperscaler | ai-cloud | campus-hpc | serverless | marketplace */
	char currency[8];           /* of the money fields below: USD, CNY, ... */
	double granularity_s;       /* each session is billed in whole increments of this */
	double min_charge_s;        /* and at least this much */
	/* packages: price = period x on-demand hourly x (1 - discount); BILLING_NONE = not offered */
	double daily_discount, weekly_discount, monthly_discount;
	double reserved_1y_discount, reserved_3y_discount;   /* BILLING_NONE = not offered */
	double spot_discount;       /* spot hourly = on-demand x (1 - d); BILLING_NONE = no spot */
	double spot_mtbf_s;         /* assumed mean time between interruptions; 0 when no spot */
	double storage_gb_month;    /* persistent storage, per GB per 30 days */
	bool storage_bills_stopped; /* true: billed for the storage's whole life; false: only while running */
	double stopped_per_hour;    /* a stopped, unreleased instance: disk, public IP, per hour */
	double egress_per_gb;
	double image_gb_month;      /* a saved image, per GB per 30 days */
	double student_discount;    /* off the on-demand and package compute price; 0 = none */
	char source[1024];
};

struct billing_db {
	struct billing_profile *v;   /* owned */
	size_t n;
};

/*
 * Load profiles from a CSV buffer (data/billing.csv's format). Returns 0,
 * or -1 with "fname:line: column: expected ..." in err. On success the
 * caller frees with billing_db_free(); on failure nothing is allocated.
 */
int billing_db_load(struct billing_db *db, const char *buf, size_t len,
		    const char *fname, char *err, size_t errlen);
void billing_db_free(struct billing_db *db);

/* The profile named name (exact, case-insensitive), or NULL. Borrowed from db.
 * The supply types' defaults are named after them ("ai-cloud"). */
const struct billing_profile *billing_find(const struct billing_db *db, const char *name);

/* true when p offers mode m (per-second and on-demand always are). */
bool billing_mode_offered(const struct billing_profile *p, enum billing_mode m);

/* Sessions of the same length: count x seconds of work (GPU busy) each. */
struct usage_session {
	double count;
	double seconds;
};
#define BILLING_MAX_SESSIONS 8

/*
 * A usage pattern. Start from billing_usage_init() (all zero, fx 1) and
 * set what applies. Plain data: no pointers, copy freely.
 */
struct usage {
	struct usage_session sessions[BILLING_MAX_SESSIONS];
	size_t nsessions;
	double hours_per_week;   /* with weeks: one session of this many hours a week */
	double weeks;
	double span_days;        /* calendar days the pattern covers; 0 = derived (docs/billing.md) */
	double idle_fraction;    /* of instance-up time the GPU idles (billed), in [0,1) */
	double data_gb;          /* persistent storage */
	double storage_days;     /* how long it lives; 0 = the span */
	double egress_gb;
	double image_gb;         /* saved image, lives as long as the storage */
	double stopped_hours;    /* instance stopped but not released */
	double operator_hours;   /* the user's own time ... */
	double operator_rate;    /* ... at this value per hour, in the bill's currency */
	bool student;            /* apply the profile's student discount */
	double fx;               /* bill currency units per unit of the profile's currency */
	/* spot */
	double mtbf_s;           /* 0 = the profile's spot_mtbf_s */
	double ckpt_write_s;     /* 0 = no checkpoints: an interruption restarts the session */
	double ckpt_interval_s;  /* 0 = Daly's optimum */
	double restart_s;        /* from interruption to computing again */
};

/* Zero everything, fx = 1. */
void billing_usage_init(struct usage *u);

/* The planner's case: one job of `hours` of work (replaces the sessions). */
void billing_usage_job(struct usage *u, double hours);

/*
 * The calendar days u covers: span_days when set, else the weeks of
 * hours_per_week, else the sessions back to back rounded up to whole days
 * (the larger of the last two). docs/billing.md "Span".
 */
double billing_span_days(const struct usage *u);

/* A bill, in the currency of price_per_hour. */
struct bill {
	enum billing_mode mode;
	double rate_per_hour;    /* the mode's compute price per hour (after discounts) */
	double hours_used;       /* instance up: work + idle (spot: expected wall time) */
	double hours_billed;     /* after rounding; package and reserved: hours paid for */
	double packages;         /* daily/weekly/monthly packages bought */
	double compute;          /* work, including its share of rounding */
	double idle;             /* idle up time, including its share of rounding */
	double rounding;         /* of compute + idle: paid for rounding or unused package time */
	double storage, egress, image, stopped;
	double operator_time;
	double total;            /* compute + idle + storage + egress + image + stopped + operator_time */
	double spot_wall_hours;  /* spot: expected wall time of the work */
	double spot_interruptions;  /* spot: expected number */
	double spot_interval_s;  /* spot: checkpoint interval used (0 = none) */
};

/*
 * Price usage *u under mode on profile *p at price_per_hour (on-demand,
 * per instance, in the bill's currency). Returns 0 and fills *out;
 * BILLING_ENOMODE when p does not offer the mode (message in err);
 * BILLING_ENOTVIABLE when spot cannot finish (above); -1 for bad input,
 * with the field named in err. Pure; no allocation.
 */
int billing_price(const struct billing_profile *p, enum billing_mode mode, double price_per_hour,
		  const struct usage *u, struct bill *out, char *err, size_t errlen);

/*
 * Break-even of a package (daily/weekly/monthly) or a reserved term
 * against on-demand: the on-demand hours of use per period above which it
 * is cheaper, period x (1 - discount) (a student discount applies to both
 * sides and cancels). NaN when p does not offer mode or mode is not a
 * package or reserved term. The period in hours goes to *period_h when
 * non-NULL (reserved: 8760 or 26280).
 */
double billing_breakeven_hours(const struct billing_profile *p, enum billing_mode mode,
			       double *period_h);

/*
 * The interruption rate (per hour) at which spot's expected total equals
 * on-demand's for this usage: 0 and *per_hour (INFINITY when spot stays
 * cheaper at any rate up to one per minute, 0 when it never is), or a
 * negative code as billing_price().
 */
int billing_spot_breakeven(const struct billing_profile *p, double price_per_hour,
			   const struct usage *u, double *per_hour, char *err, size_t errlen);

#endif
