/*
 * planwords.h - the words of `gpurent plan`: the sentences the codes and
 * facts of src/core/plan/plan*.c state (why each choice, why offers were
 * excluded, the user class, the supply and billing advice, the
 * checklist, the order of magnitude, what would have to change), every
 * one marked for translation. Money in the facts is USD; it is worded in
 * the answer's one display currency (struct plan_fx; NULL = USD).
 */
#ifndef GPURENT_PLANWORDS_H
#define GPURENT_PLANWORDS_H

#include <stddef.h>

#include "core/plan/plan.h"

/* The buffer sizes `gpurent plan` words into (longer sentences are cut
 * there, as they always were). */
#define PLAN_WHY_MAX 200
#define PLAN_EXAMPLE_MAX 200
#define PLAN_CLASS_MAX 200
#define PLAN_CHECK_MAX 400

/* The display currency: money is usd / usd_per_unit, worded with code. */
struct plan_fx {
	const char *code;      /* "CNY" */
	double usd_per_unit;   /* 0.1389 */
};

/* The mode as the table and the why say it: "on-demand", "spot", "daily
 * package", ... (translated; --json keeps plan_mode_name()). Static. */
const char *plan_mode_word(enum plan_mode m);

/* The reason offers were excluded: "not enough GPU memory (with
 * headroom)", ...; "?" out of range. Static (translated). */
const char *plan_exclusion_word(enum plan_exclusion e);

/* The advice on a supply type or on billing; "" for PLAN_A_NONE, "?" out
 * of range. Static (translated). */
const char *plan_advice_word(enum plan_advice a);

/*
 * The words of one fact of the result into out (n bytes; NUL-terminated,
 * cut to fit; the caller owns it, the fact is only read):
 *  - plan_word_example(): the offer and what it showed, "vast.ai x (RTX 4090):
 *    needs 39.2 GB per GPU, has 24.0 GB" ("" when x has no offer);
 *  - plan_word_why(): why a ranked choice, its memory, time, GPUs and mode;
 *  - plan_word_class(): why r's user class;
 *  - plan_word_check(): a checklist item.
 */
void plan_word_example(const struct plan_example *x, const struct plan_fx *fx, char *out, size_t n);
/* "provider instance (GPU as the catalog names it): detail", the fields
 * escaped for a terminal (out.h) and cut; the service plan's examples too. */
void plan_word_offer(const struct offer *o, const char *detail, char *out, size_t n);
void plan_word_why(const struct plan_choice *c, char *out, size_t n);
void plan_word_class(const struct plan_result *r, char *out, size_t n);
void plan_word_check(const struct plan_check *c, const struct plan_fx *fx, char *out, size_t n);
/*
 * More facts of the result, worded the same way:
 *  - plan_word_magnitude(): the order-of-magnitude warning ("" for none);
 *  - plan_word_change(): one thing that would have to change;
 *  - plan_word_spot(): spot against on-demand ("" for none);
 *  - plan_word_supply(): what a supply type's offers came to;
 *  - plan_word_fastest(): the fastest offer within the margin of the cheapest.
 */
void plan_word_magnitude(const struct plan_magnitude *m, const struct plan_fx *fx, char *out, size_t n);
void plan_word_change(const struct plan_change *c, const struct plan_fx *fx, const char *access_names,
		      char *out, size_t n);
void plan_word_spot(const struct plan_spot_note *s, const struct plan_fx *fx, char *out, size_t n);
void plan_word_supply(const struct plan_supply *s, const struct plan_fx *fx, char *out, size_t n);
void plan_word_fastest(const struct plan_choice *fast, const struct plan_choice *cheapest, double margin,
		       const struct plan_fx *fx, char *out, size_t n);
#define PLAN_MAGNITUDE_MAX 400
/* What the bill's rule did to a cost: "hourly: 3.00 h billed for 1.00 h used". */
void plan_word_cost_note(const struct plan_cost *c, char *out, size_t n);

#endif
