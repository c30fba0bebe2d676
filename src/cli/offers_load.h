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

#include "../core/catalog.h"
#include "../core/currency.h"
#include "../core/gpu.h"

struct offers_ctx {
	struct gpu_db gdb;
	struct currency_table currencies;   /* data/currencies.csv and --rate (src/core/currency.h) */
	struct offer_set set;
	void **maps;             /* mmap'd catalogs, unmapped by offers_free() */
	size_t *map_len;
	size_t nmaps;
	size_t bad_rows;         /* printed to stderr as they were found */
	size_t skipped_special;  /* FIFOs etc. named *.csv in folders: noted, skipped */
	const char *cmd;         /* "offers" or "plan", for messages */
};

/* Load gpus.csv and currencies.csv. Returns 0 or the exit code (message printed). */
int offers_init(struct offers_ctx *c, const char *cmd);

/* Apply "--rate CODE=UNITS_PER_USD". 0, or 2 with a message printed. */
int offers_set_rate(struct offers_ctx *c, const char *arg);

/* USD per unit of code, 0 if unknown. */
double offers_rate(const struct offers_ctx *c, const char *code);

/*
 * Load every catalog named in paths (files or folders; n may be 0: then
 * the bundled data/offers.csv and ~/.sky/catalogs/<newest>/ are used).
 * keep/ctx filter offers as they load (NULL keeps all); match, when given,
 * is keep's pure test and lets large catalogs load on two threads
 * (catalog.h). Bad rows are printed as they are found and counted in
 * c->bad_rows. Returns 0 or the exit code of a fatal error (message printed).
 */
int offers_load(struct offers_ctx *c, char **paths, size_t n, catalog_keep_fn keep,
		catalog_keep_fn match, void *ctx);

/* One line per catalog: rows, offers, and each kind of skipped row. */
void offers_report(FILE *f, const struct offers_ctx *c);

void offers_free(struct offers_ctx *c);

#endif
