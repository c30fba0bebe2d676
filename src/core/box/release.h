/*
 * release.h - the end of a rental, planned (seed 000 §5.3: clean personal
 * data before releasing the instance; seed 004 §5.1: stopping is not
 * releasing, a stopped instance still bills for its disk and IP). Pure:
 * what `gpurent release` deletes, by category and in order, with the
 * user's --keep paths left out; which platform actions release and which
 * only stop; what a stopped instance keeps billing per day. The deletion
 * itself is src/os/shred.c's, the steps src/cmd/box/cmd_release_run.c's.
 */
#ifndef GPURENT_RELEASE_H
#define GPURENT_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/billing.h"
#include "core/market/provider.h"

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

/* A preset as release sees it (core/market/provider.h: enum rel_effect, the presets). */
struct rel_action {
	const char *preset;      /* the name among core/market/provider.c's presets */
	enum rel_effect effect;
	const char *billing;     /* its provider's data/billing.csv profile; NULL none */
	const char *better;      /* for a stop: its provider's preset that releases; NULL none */
};

/* The preset called preset, as release sees it, into *out (its strings
 * static); false, *out untouched, when there is none. */
bool release_action(const char *preset, struct rel_action *out);

/*
 * The preset that ends the bill on an offer of provider (len bytes, not
 * NUL-terminated; matched case-insensitively by the name's start, the
 * prefixes of core/market/provider.c: "runpod", "vast", "aws",
 * "gcp"/"google", "azure", "autodl") or, campus true, on a campus cluster
 * (slurm). NULL when gpurent has none for it. Static.
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

/* Is dir path itself or above it? Both absolute, without a trailing '/'
 * (but "/" itself). */
bool release_within(const char *path, const char *dir);

/*
 * Where release runs decides what it may delete (issue 26): the
 * credentials, histories and leftovers of a home go only on a box the
 * user rents and gives back; elsewhere only the paths of the job itself
 * (--path). The first reason that holds, in this order.
 */
enum rel_scope {
	REL_SCOPE_WIPE,          /* a box given back: credentials and histories may go */
	REL_SCOPE_SLURM_JOB,     /* inside a Slurm job: a cluster's home outlives it */
	REL_SCOPE_NETWORK_HOME,  /* the home is on a network filesystem */
	REL_SCOPE_STOP_ONLY,     /* the preset only stops the box or ends a job */
	REL_SCOPE_NO_RELEASE,    /* no action says the box is given back */
};

struct rel_host {
	const char *slurm_job;   /* SLURM_JOB_ID's value; NULL outside a job */
	const char *home_fstype; /* the home's filesystem when a network one; NULL else */
	const struct rel_action *action;  /* the preset (release_action()); NULL none */
	bool command;            /* --on-release CMD: the user's own release */
	bool wipe;               /* --wipe-credentials */
};

enum rel_scope release_scope(const struct rel_host *h);

/* Is type (a mount table's filesystem type: "nfs4", "lustre", "fuse.sshfs")
 * one whose files live beyond this machine? */
bool release_network_fs(const char *type);

/*
 * The mount that holds path (absolute, resolved) in a mount table of len
 * bytes: /proc/self/mountinfo's format or /proc/mounts' (fstab's), octal
 * escapes such as \040 decoded. The longest mount point at or above path
 * wins (the last such line when one is mounted over another). Fills mnt,
 * type and source (each truncated to its size) and returns 1; 0 when no
 * line holds it. *is_mount_point: path is itself a mount point.
 */
int release_mount_of(const char *table, size_t len, const char *path, char *mnt, size_t mntlen,
		     char *type, size_t typelen, char *source, size_t sourcelen, bool *is_mount_point);

/*
 * What a releasing preset leaves billing at the provider:
 * data/release_leftovers.csv, one row a thing (preset, keeps, remove,
 * source). Rows borrowed from the parsed table.
 */
struct rel_leftover {
	const char *preset, *keeps, *remove, *source;
};

struct rel_leftovers {
	struct rel_leftover *v;  /* owned */
	size_t n;
	void *csv;               /* the parsed file; owned */
};

/*
 * Parse buf (len bytes, named fname for messages). 0, or -1 with
 * "FNAME:LINE: FIELD: expected ..." in err (a preset that is not one
 * that releases, an empty field). Free with
 * release_leftovers_free().
 */
int release_leftovers_load(const char *buf, size_t len, const char *fname, struct rel_leftovers *out,
			   char *err, size_t errlen);
void release_leftovers_free(struct rel_leftovers *l);

#endif
