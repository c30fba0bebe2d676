/*
 * release.h - the end of a rental, planned (seed 000 §5.3: clean personal
 * data before releasing the instance; seed 004 §5.1: stopping is not
 * releasing, a stopped instance still bills for its disk and IP). Pure:
 * what `gpurent release` deletes, by category and in order, with the
 * user's --keep paths left out; which platform actions release and which
 * only stop; what a stopped instance keeps billing per day. The deletion
 * itself is src/os/shred.c's, the steps src/cmd/cmd_release.c's.
 */
#ifndef GPURENT_RELEASE_H
#define GPURENT_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "billing.h"

/* What a deleted path was, in the order release deletes them. */
enum rel_cat { REL_CREDENTIAL, REL_LEFTOVER, REL_PATH, REL_HISTORY, REL_CAT_COUNT };

/* "credential", "leftover", "path", "history". Static. */
const char *release_cat_name(enum rel_cat c);

struct rel_item {
	enum rel_cat cat;
	char path[512];          /* absolute */
};

struct rel_plan {
	struct rel_item *v;      /* owned; sorted by category, then in the order added */
	size_t n, cap;
};

/* Is path one of keep (n of them) or inside one? Both absolute, without a
 * trailing '/' (but "/" itself). */
bool release_kept(const char *path, const char *const *keep, size_t n);

/*
 * Add path (absolute) to p under cat unless it is kept or already there
 * (under any category). 1 added, 0 skipped, -1 out of memory or a path
 * longer than rel_item.path (p unchanged). Free with release_plan_free().
 */
int release_plan_add(struct rel_plan *p, enum rel_cat cat, const char *path,
		     const char *const *keep, size_t nkeep);

/* Order p by category (stable within one). */
void release_plan_sort(struct rel_plan *p);
void release_plan_free(struct rel_plan *p);

/* The shell history files release clears, relative to $HOME, NULL-ended. */
extern const char *const release_histories[];

/* What a platform action does to the bill. */
enum rel_effect {
	REL_RELEASES,            /* deletes the instance and its disks: billing ends */
	REL_STOPS,               /* stops it: the disk (and an IP) keep billing */
};

struct rel_action {
	const char *preset;      /* the name in src/guard/action.c's presets */
	enum rel_effect effect;
	const char *billing;     /* its data/billing.csv profile; NULL none */
	const char *better;      /* for REL_STOPS: the preset that releases; NULL none */
};

/* The row of preset name; NULL when release does not know it. Static. */
const struct rel_action *release_action(const char *preset);

/*
 * The preset that ends the bill on an offer of provider (len bytes, not
 * NUL-terminated; matched case-insensitively by the name's start:
 * "runpod", "vast", "aws", "gcp"/"google", "azure", "autodl") or, campus
 * true, on a campus cluster (slurm). NULL when gpurent has none for it.
 * Static.
 */
const char *release_preset_for(const char *provider, size_t len, bool campus);

/*
 * What a stopped instance keeps billing per day, in p's currency
 * (docs/release.md "What a stop keeps billing"):
 *   24 x stopped_per_hour + disk_gb x storage_gb_month / 30
 * when p bills storage while stopped (storage_bills_stopped), else the
 * first term alone.
 */
double release_stopped_per_day(const struct billing_profile *p, double disk_gb);

#endif
