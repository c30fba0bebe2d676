/*
 * catalog.h - GPU offers from price catalogs: SkyPilot's vms.csv format
 * (any provider, columns read by name) and gpurent's own offer format
 * (data/offers.csv: AI-cloud container platforms, campus HPC, serverless,
 * marketplaces). Offers are normalised to data/gpus.csv (per-GPU memory
 * decides A100 40 vs 80 GB), to USD per hour, and every quirk of a real
 * catalog is detected, counted and reported, never priced.
 */
#ifndef GPURENT_CATALOG_H
#define GPURENT_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/text/currency.h"
#include "core/model/gpu.h"

enum supply_type {
	SUPPLY_HYPERSCALER, SUPPLY_AI_CLOUD, SUPPLY_CAMPUS_HPC, SUPPLY_SERVERLESS,
	SUPPLY_MARKETPLACE, SUPPLY_UNKNOWN,
};
#define SUPPLY_COUNT 6

/* A borrowed string: points into the catalog buffer or the set's arena. */
struct cat_str {
	const char *p;
	uint32_t len;
};

/* Why a row's price is not to be ranked as it stands (docs/offers.md
 * "Suspect prices"): set while loading, unless catalog_opts.trust_catalog. */
enum offer_suspect {
	OFFER_PRICE_OK,
	OFFER_SPOT_AT_OR_ABOVE,   /* spot >= on-demand: the columns may be swapped */
};

struct offer {
	struct cat_str provider, instance, region, gpu_name, billing, source, date, slice;
	/* availability zone where the catalog names one (SkyPilot's
	 * AvailabilityZone column: runpod, gcp, aws), else empty; region
	 * holds the zone too in that case, as before (the more specific
	 * place, which the GCP host join matches on) */
	struct cat_str zone;
	/* who may rent it: empty = anyone with a card; else the membership
	 * (a campus cluster, an institution's pool) the user must name with
	 * --access (gpurent offer format's `access` column, docs/offers.md) */
	struct cat_str access;
	/* GCP: the host VM a GPU row was joined with (SkyPilot prices a GPU
	 * row plus its host); empty elsewhere. The instance then names it too. */
	struct cat_str host;
	const struct gpu_spec *gpu;  /* NULL when the GPU is not in data/gpus.csv */
	double gpus;                 /* GPUs per instance (fractional for shares) */
	double gpu_mem;              /* bytes available per GPU (slice-aware) */
	double vcpus, ram_gib, disk_gb;
	double price;                /* USD per instance-hour, on demand; 0 when
				      * spot_only (not free: no on-demand offer) */
	double spot_price;           /* USD per instance-hour; 0 = no spot offered;
				      * at or above price only when suspect */
	double queue_wait, max_runtime;  /* seconds; 0 = none / unknown */
	enum supply_type supply;
	enum offer_suspect suspect;
	/* per-GPU on-demand price / the median per-GPU price of the same GPU
	 * across the loaded catalogs (offer_set_mark_outliers); 0 = not computed
	 * or no peers */
	double peer_ratio;
	bool persistent_storage, is_slice;
	/* a SkyPilot row with a SpotPrice and no Price (verda, spheron): only
	 * a spot offer. price is 0 but the row is NOT free: plan must not
	 * price it on demand; rank it on spot_price (offer_rank_per_gpu()). */
	bool spot_only;
	uint32_t file;               /* index into offer_set.reports */
	uint32_t line;
	uint64_t fp;                 /* the row's fingerprint (duplicate detection) */
};

/* What loading one catalog found; every skipped row is counted in a reason. */
struct catalog_report {
	char path[512];
	char format[16];             /* "skypilot" or "gpurent" */
	size_t rows, loaded;
	size_t cpu_only, missing_price, duplicates, bad_rows;
	size_t spot_placeholder;     /* 0.00 or a sentinel such as 99999999: no spot */
	/* spot >= on-demand: the offer is marked OFFER_SPOT_AT_OR_ABOVE with
	 * both prices kept as read, or, with catalog_opts.trust_catalog, its
	 * spot dropped (ranked on on-demand) */
	size_t spot_above_price;
	size_t unknown_gpu;          /* kept, but without specs (not plannable) */
	size_t mem_total_fixed;      /* GpuInfo memory was the instance total */
	size_t mem_from_spec;        /* memory missing/zero/implausible: from gpus.csv */
	size_t spot_only;            /* loaded as spot-only offers (SpotPrice, no Price) */
	/* GCP (a provider named gcp*): GPU rows joined with their host VM are
	 * offers; these are the rest (docs/offers.md "GCP") */
	size_t no_host;              /* GPU rows without a host VM in their zone: skipped */
	size_t hosts_joined;         /* host VM rows that served as a host (not CPU-only) */
	char unknown_names[256];     /* a few of the unknown GPU names */
};

struct offer_set {
	struct offer *v;             /* owned */
	size_t n, cap;
	struct catalog_report *reports;  /* owned, one per loaded catalog */
	size_t nreports;
	char **arena;                /* owned copies (buffers the caller dropped) */
	size_t narena;
	/* the per-GPU prices every loaded offer had, kept or not by the
	 * loader's keep filter (offer_set_mark_outliers); owned */
	struct offer_peer *peers;
	size_t npeers, peers_cap;
	struct offer_peer_stat *peer_stats;   /* owned; one per GPU spec */
	size_t npeer_stats;
};

/* One loaded offer's per-GPU on-demand price (internal to the set). */
struct offer_peer {
	const struct gpu_spec *gpu;
	float price;                 /* USD per GPU-hour, on demand */
	uint32_t provider;           /* a hash of the provider's name */
};

/* The peers of one GPU spec (offer_set_mark_outliers). */
struct offer_peer_stat {
	const struct gpu_spec *gpu;
	double median;               /* USD per GPU-hour */
	size_t n;                    /* offers */
	bool providers2;             /* from at least two providers */
};

/* An offer whose peer_ratio is below this is "far below" its peers
 * (docs/offers.md "Suspect prices"): at under half the median per-GPU
 * on-demand price of the same GPU, a row is more likely a catalog error,
 * a promotion or a different product than a bargain. */
#define CATALOG_OUTLIER_RATIO 0.5
/* The median needs at least this many offers from at least two providers. */
#define CATALOG_PEER_MIN 3

/* Called for each bad row (one line "file:line: field: expected ...");
 * the row is skipped and loading goes on. */
typedef void (*catalog_bad_row_fn)(void *ctx, const char *msg);

/* Optional filter applied while loading: keep the offer when it returns
 * true. Lets `offers` answer a query over millions of rows without
 * storing them all. */
typedef bool (*catalog_keep_fn)(void *ctx, const struct offer *o);

struct catalog_opts {
	const struct gpu_db *gpus;           /* required */
	const struct currency_table *currencies;   /* for gpurent-format prices (currency.h) */
	catalog_bad_row_fn bad_row;
	void *bad_ctx;                       /* for bad_row */
	catalog_keep_fn keep;
	void *ctx;                           /* for keep and match */
	/* Optional: a pure, thread-safe form of keep's test. With it, a large
	 * SkyPilot catalog is read by `threads` threads (at most 2 here): the
	 * second half's matching offers are handed to keep afterwards, in
	 * order, so keep itself never runs concurrently. */
	catalog_keep_fn match;
	int threads;
	const char *provider;   /* SkyPilot provider name (the catalog's folder) */
	/* rank rows whose spot is at or above on-demand on on-demand (spot
	 * dropped), as if the catalog were right; default: mark them suspect */
	bool trust_catalog;
};

void offer_set_init(struct offer_set *s);
void offer_set_free(struct offer_set *s);

/*
 * Load one catalog from buf (len bytes, which must stay valid and
 * unchanged as long as the set lives: offers point into it; pass
 * keep_copy to have the set copy it). fname names it in messages; the
 * format is detected from the header. Returns 0, or -1 with a message in
 * err when the file as a whole is unusable (no header, unknown format,
 * missing required columns). Bad rows go to opts->bad_row and are counted.
 */
int catalog_load(struct offer_set *s, const char *buf, size_t len, bool keep_copy,
		 const char *fname, const struct catalog_opts *opts,
		 char *err, size_t errlen);

/* Whether s is want (non-empty), case-insensitive. */
bool cat_str_eq_ci(const struct cat_str *s, const char *want);

/* Price per GPU-hour (USD); spot likewise, 0 when there is none. */
double offer_price_per_gpu(const struct offer *o);
double offer_spot_per_gpu(const struct offer *o);
/* The per-GPU price (USD) an offer is ranked and sorted on: on demand, or
 * the spot price for a spot-only offer (whose price is 0 but not free). */
double offer_rank_per_gpu(const struct offer *o);

/* How a SkyPilot row's GpuInfo memory reads (catalog_sky.c; docs/offers.md
 * "Catalog folders"): SizeInMiB is per GPU, except for the providers known
 * to state the instance total there (quirk PROV_GPUINFO_TOTAL of
 * core/market/provider.c: vast, primeintellect; see
 * ../shared/data/catalogs/SOURCES.md "Known quirks"; a fixture named
 * vast-* or primeintellect-* reads the same). size_mib is the row's
 * SizeInMiB, count its AcceleratorCount. Returns the MiB of one GPU and
 * sets *divided when the figure was taken as a total and divided by count.
 * Pure. */
double catalog_gpuinfo_per_gpu(const char *provider, double size_mib, double count,
			       bool *divided);

/*
 * Set every offer's peer_ratio in s->v: its per-GPU on-demand price over
 * the median per-GPU on-demand price of the same GPU spec (o->gpu) across
 * every offer loaded into s (also those a keep filter did not store), when
 * that GPU has at least CATALOG_PEER_MIN offers from at least two
 * providers; else 0. Campus HPC rows, slices, free rows and offers without
 * specs are not peers (ratio 0). Call once every catalog is loaded; pure.
 */
void offer_set_mark_outliers(struct offer_set *s);

/* o's peer ratio as offer_set_mark_outliers() computes it (o need not be in
 * s->v: a copy a keep filter took), and the number of peers in *peers
 * (may be NULL). 0 when there are none or it was not called. */
double offer_peer_ratio(const struct offer_set *s, const struct offer *o, size_t *peers);

const char *supply_type_name(enum supply_type t);
int supply_type_parse(const char *s, size_t len);

/* Parse a decimal number in [s, s+len) quickly; -1 when it is not one. */
int catalog_parse_number(const char *s, size_t len, double *out);

#endif
