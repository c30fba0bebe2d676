/*
 * provider.h - every fact gpurent keeps about a provider, in one table
 * (provider.c): its names, its SkyPilot cloud, its billing profile, its
 * stop and release presets (the commands of `gpurent run --preset` and
 * `gpurent release --preset`), what each preset does to the bill, and the
 * quirks of its catalogs. Adding a provider is one row there (CONTRIBUTING.md
 * "Adding a provider"). Static data: nothing here is owned by a caller.
 */
#ifndef GPURENT_PROVIDER_H
#define GPURENT_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"

/* What a preset does to the bill; release decides from it what it may
 * delete (core/box/release.h: release_scope()). */
enum rel_effect {
	REL_RELEASES,            /* deletes the instance and its disks: billing ends */
	REL_STOPS,               /* stops it: the disk (and an IP) keep billing */
	REL_ENDS_JOB,            /* ends a batch job (scancel): releases nothing */
};

/* A platform preset: the command it runs and the variables it needs. */
struct provider_preset {
	const char *name;         /* unique among all presets; NULL: the provider has none */
	const char *shell;        /* run with /bin/sh -c */
	const char *vars[3];      /* environment variables that must be set; NULL-terminated */
	const char *what;         /* one line for docs/guard.md */
	enum rel_effect effect;
};

/* Catalog quirks (bits of struct provider's quirks). */
#define PROV_GPUINFO_TOTAL 1u /* SkyPilot catalogs: GpuInfo's SizeInMiB is the instance's total */

struct provider {
	const char *name;         /* gpurent's name, lowercase; MUST keep providers[] sorted by it */
	const char *names;        /* the names catalogs give it, '|'-separated, matched whole
	                           * with names_equal() (sky_cloud_of()); NULL: none */
	const char *prefixes;     /* how an offer's provider name starting with one of these
	                           * ('|'-separated, any case) is this one (release_preset_for());
	                           * NULL: none */
	const char *sky_cloud;    /* SkyPilot's cloud name; NULL: SkyPilot has none */
	enum supply_type supply;  /* of a SkyPilot catalog named sky_cloud; SUPPLY_CAMPUS_HPC:
	                           * the preset of every campus cluster */
	const char *billing;      /* its data/billing.csv profile; NULL: none */
	unsigned quirks;          /* PROV_* */
	struct provider_preset stop;     /* stops (or ends a job); .name NULL: none */
	struct provider_preset release;  /* deletes the instance; .name NULL: none */
};

extern const struct provider providers[];
extern const size_t providers_n;

/* The preset called name, or NULL. */
const struct provider_preset *provider_preset_find(const char *name);

/* The i-th preset in the order of their names; NULL past the last. */
const struct provider_preset *provider_preset_at(size_t i);

/* The provider whose preset p is (p from provider_preset_find() or
 * provider_preset_at()); NULL for any other pointer. */
const struct provider *provider_of_preset(const struct provider_preset *p);

/*
 * The provider of an offer whose provider name (len bytes, not
 * NUL-terminated) starts with one of a row's prefixes, case-insensitively
 * ("RunPod-Secure" is runpod), or NULL.
 */
const struct provider *provider_by_prefix(const char *name, size_t len);

/* The provider one of whose names is name (names_equal()), or NULL. */
const struct provider *provider_by_name(const char *name);

/* The provider whose SkyPilot cloud is cloud: exactly, or any case
 * (icase true); NULL when none. */
const struct provider *provider_by_sky_cloud(const char *cloud, bool icase);

/* Does provider (NULL: no) name a provider with quirk q: its name itself, or
 * its name followed by '-' (a fixture: "vast-small")? */
bool provider_has_quirk(const char *provider, unsigned q);

#endif
