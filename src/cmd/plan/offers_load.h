/*
 * offers_load.h - the I/O half of loading offers, shared by `offers` and
 * `plan`: finding catalogs (files, folders, ~/.sky/catalogs), mapping them,
 * currency rates (data/currencies.csv, --rate), printing bad rows and the
 * per-catalog quirk report.
 */
#ifndef GPURENT_OFFERS_LOAD_H
#define GPURENT_OFFERS_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#include "core/market/catalog.h"
#include "core/text/currency.h"
#include "core/model/gpu.h"

struct progress;

/* Where a loaded catalog came from (docs/offers.md "The order of catalogs"). */
enum offers_origin_kind {
	ORIGIN_BUNDLED,   /* data/offers.csv (or --data-dir's): each row dated */
	ORIGIN_FETCHED,   /* `gpurent catalog update`'s cache: dated by its record */
	ORIGIN_SKY,       /* ~/.sky/catalogs/vN: dated by the file's time */
	ORIGIN_NAMED,     /* --catalog (or the config's catalog): dated by the file's time */
};

/* One per loaded catalog (c->set.reports[i] is origins[i]). */
struct offers_origin {
	enum offers_origin_kind kind;
	double time;             /* when its prices were current (seconds since 1970); -1 unknown */
	char url[1024];          /* a fetched catalog's source; "" otherwise */
};

struct offers_ctx {
	struct gpu_db gdb;
	struct currency_table currencies;   /* data/currencies.csv and --rate (src/core/text/currency.h) */
	struct offer_set set;
	void **maps;             /* mmap'd catalogs, unmapped by offers_free() */
	size_t *map_len;
	size_t nmaps;
	size_t bad_rows;         /* printed to stderr as they were found */
	size_t skipped_special;  /* FIFOs etc. named vms.csv in folders: noted, skipped */
	/* CSVs in catalog folders not named vms.csv (SkyPilot's images.csv,
	 * metadata.csv, accelerators.csv, slurm/pricing.csv ...): not
	 * catalogs, never opened; counted for the Catalogs summary */
	size_t ignored_csv;
	char sky_dir[4096];      /* the ~/.sky/catalogs/vN folder read, "" if none */
	const char *cmd;         /* "offers" or "plan", for messages */
	/* --trust-catalog: rank rows whose spot is at or above on-demand on
	 * on-demand (spot dropped) instead of marking them suspect
	 * (catalog_opts.trust_catalog). Set after offers_init(), before
	 * offers_load(). */
	bool trust_catalog;
	struct progress *pr;     /* the progress line while offers_load() reads; NULL otherwise */
	struct offers_origin *origins;   /* owned; one per c->set.reports */
	size_t norigins;
	enum offers_origin_kind loading; /* the kind of what load_path() reads now */
	char cache_dir[4096];    /* `catalog update`'s cache read ("" if none was) */
	size_t sky_shadowed;     /* ~/.sky/catalogs providers left out for a fetched copy */
};

/* Load gpus.csv and currencies.csv. Returns 0 or the exit code (message printed). */
int offers_init(struct offers_ctx *c, const char *cmd);

/* Apply "--rate CODE=UNITS_PER_USD". 0, or 2 with a message printed. */
int offers_set_rate(struct offers_ctx *c, const char *arg);

/* USD per unit of code, 0 if unknown. */
double offers_rate(const struct offers_ctx *c, const char *code);

/*
 * Where the rate of cu comes from, for people, into buf (n bytes; returned):
 * "data/currencies.csv line 8, 2024-02-02, Federal Reserve H.10 ..." for a
 * row of the file (DIR/currencies.csv under --data-dir; control bytes
 * escaped), the config file's line with rate_date and rate_source
 * for a rate set there, else "--rate". The source is the data's own text.
 */
char *offers_rate_note(const struct currency *cu, char *buf, size_t n);

/*
 * Load every catalog named in paths (files or folders; n may be 0: then
 * the bundled data/offers.csv and ~/.sky/catalogs/vN/ with the highest N
 * are used). A file named in paths is read whatever its name; inside a
 * folder (recursing 3 levels) only files named vms.csv are catalogs, other
 * CSVs are counted in c->ignored_csv. A folder with CSVs but no vms.csv
 * is noted in one line; when nothing at all loads, that is an error naming
 * the folder (exit 2). A folder with no CSV at all loads nothing, silently
 * (plan then says what would change).
 * keep/ctx filter offers as they load (NULL keeps all); match, when given,
 * is keep's pure test and lets large catalogs load on two threads
 * (catalog.h). Bad rows are printed as they are found and counted in
 * c->bad_rows. Once every catalog is loaded, the offers' peer ratios are set
 * (offer_set_mark_outliers(); a copy keep took gets its own from
 * offer_peer_ratio(&c->set, o, &n)). Returns 0 or the exit code of a fatal
 * error (message printed).
 */
int offers_load(struct offers_ctx *c, char **paths, size_t n, catalog_keep_fn keep,
		catalog_keep_fn match, void *ctx);

/* One line per catalog: rows, offers, and each kind of skipped row; the
 * rows with spot at or above on-demand are worded as c->trust_catalog
 * treats them; then one line on the CSVs in folders that were ignored. */
void offers_report(FILE *f, const struct offers_ctx *c);

/*
 * When offer o's price was current (seconds since 1970), -1 when nothing
 * says: its row's own date (gpurent's format, `date`), else its catalog's
 * time (c->origins).
 */
double offers_price_time(const struct offers_ctx *c, const struct offer *o);

void offers_free(struct offers_ctx *c);

#endif
