/*
 * plan_render.h - `gpurent plan`'s answer for one job printed: the table
 * with its notes, or JSON (gpurent.plan/1, docs/json.md), in the answer's
 * one currency (src/cmd/plan/cmd_plan.c sets it up).
 */
#ifndef GPURENT_PLAN_RENDER_H
#define GPURENT_PLAN_RENDER_H

#include "core/plan/plan.h"
#include "cmd/estimate/calib.h"
#include "cmd/plan/offers_load.h"
#include "cmd/plan/planwords.h"

struct json;

/* How the answer is shown: its one currency (code, USD per unit, and
 * where the rate came from, printed once), and the probe it was
 * calibrated by. */
struct display {
	struct plan_fx fx;
	char code[8];
	const struct currency *cu;   /* the rate's row (borrowed from the offers context) */
	const struct calib *cal;     /* --calibrate's probe (borrowed); NULL: none */
	const struct offers_ctx *oc; /* the catalogs read, for the prices' dates (borrowed); NULL: none */
	long stale_days;             /* prices older than this are warned of (--stale-days, config stale_days) */
};

/*
 * The ranked offer of r whose price is the oldest (offers_price_time()),
 * with its time in *t; NULL (and *t -1) when no ranked offer's price is
 * dated. Borrowed from r.
 */
const struct offer *plan_oldest_price(const struct plan_result *r, const struct offers_ctx *c, double *t);

/* The same over any array of n choices of stride bytes whose member at
 * byte off is their `const struct offer *` (plan_choice, serve_choice). */
const struct offer *plan_oldest_in(const void *v, size_t n, size_t stride, size_t off,
				   const struct offers_ctx *c, double *t);

/* The line "prices: the oldest ranked is N days old (DAY, FILE line L)"
 * (and "; older than S days: ..." past stale_days), without its newline,
 * on stdout; nothing when o is NULL. */
void plan_print_price_age(const struct offers_ctx *c, const struct offer *o, double t, long stale_days);

/* JSON: prices_oldest_date, prices_oldest_age_days (o's, null when o is
 * NULL), stale_days and prices_stale. */
void plan_json_prices(struct json *j, const struct offer *o, double t, long stale_days);

/* JSON: price_date and price_age_days of offer o (null when undated). */
void plan_json_offer_date(struct json *j, const struct offers_ctx *c, const struct offer *o);

/* The warning on stderr when o's price (time t) is older than stale_days. */
void plan_warn_stale(const struct offers_ctx *c, const struct offer *o, double t, long stale_days);

/* Where offer o's price comes from, for people: "PATH line N" into buf. */
char *plan_price_where(const struct offers_ctx *c, const struct offer *o, char *buf, size_t n);

/* The plan r of workload w (arch its architecture) under po, as a table on stdout. */
void plan_render_table(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
		       const struct plan_result *r, const struct display *d);
/* The same as one JSON object on stdout. */
void plan_render_json(const struct workload *w, const struct model_spec *arch, const struct plan_opts *po,
		      const struct plan_result *r, const struct display *d);
/* The calibration's line before the table (nothing without --calibrate). */
void plan_render_calib(const struct workload *w, const struct display *d);

#endif
