/*
 * names.h - matching the names users type against names in data files:
 * normalisation ("A100-80GB" == "a100_80gb") and "did you mean" by edit
 * distance.
 */
#ifndef GPURENT_NAMES_H
#define GPURENT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Lower-case s into out, dropping ' ', '-', '_', '.', '/' ; returns out. */
char *names_norm(const char *s, char *out, size_t n);

/* names_norm() of the first len bytes of s (not NUL-terminated). */
char *names_norm_n(const char *s, size_t len, char *out, size_t n);

/* A GPU's family, normalised: vendor words dropped, then the words up to
 * the first with a digit: "NVIDIA A100 80GB SXM" -> "a100",
 * "NVIDIA GeForce RTX 4090" -> "rtx4090", "RTX 6000 Ada" -> "rtx6000". */
char *names_family(const char *name, char *out, size_t n);

/* true when a and b are equal after names_norm(). */
bool names_equal(const char *a, const char *b);

/* true when needle equals any '|'-separated entry of list (normalised). */
bool names_in_list(const char *needle, const char *list);

/* The same with the needle already names_norm()ed (norm), for a loop
 * over many candidates: the candidate's first len bytes (up to a NUL)
 * are normalised as they are compared, nothing is copied. */
bool names_norm_eq(const char *norm, const char *s, size_t len);
bool names_norm_in_list(const char *norm, const char *list);

/*
 * Each item of the comma-separated list (NULL: none), trimmed of blanks
 * (spaces, tabs), empty ones skipped: calls fn(item, len, pos, ctx) with
 * item borrowed (not terminated) and pos counting from 0, and stops at the
 * first non-zero return, which it returns; else 0. Ledger tags, --access
 * memberships, any NAME[,NAME] value.
 */
int names_each(const char *list, int (*fn)(const char *item, size_t len, int pos, void *ctx), void *ctx);

/* Levenshtein distance between normalised a and b. */
size_t names_distance(const char *a, const char *b);

/*
 * Keeps the best suggestion over a series of candidates: call
 * names_suggest_add() for each, then read best ("" when nothing is
 * close enough to be worth suggesting).
 */
struct names_suggest {
	const char *needle;   /* borrowed */
	char best[128];       /* copy of the best candidate; "" when none */
	size_t best_dist;
};
void names_suggest_init(struct names_suggest *s, const char *needle);
/* Offer one candidate, or every entry of a '|'-separated list. */
void names_suggest_add(struct names_suggest *s, const char *candidate);
void names_suggest_add_list(struct names_suggest *s, const char *list);

#endif
