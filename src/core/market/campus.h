/*
 * campus.h - the Slurm facts of campus offers (data/access_slurm.csv): the
 * partition an offer runs in, the GRES type the cluster names its cards by
 * (where its doc gives one) and the QOS it needs, joined to an offer on
 * provider + instance. `plan --emit slurm` writes them (docs/slurm.md
 * "From a plan").
 */
#ifndef GPURENT_CAMPUS_H
#define GPURENT_CAMPUS_H

#include <stddef.h>

#include "core/market/catalog.h"

struct campus_slurm {
	char provider[64], instance[128];
	char partition[64], gres_type[64], qos[64];   /* "": none known */
	size_t line;
};

struct campus_db {
	struct campus_slurm *v;   /* owned */
	size_t n;
};

/* Parse buf (fname for messages) into db. 0, or -1 with "fname:line:
 * column: expected ..." in err; db is then empty. Free with campus_db_free(). */
int campus_db_load(struct campus_db *db, const char *buf, size_t len, const char *fname, char *err,
		   size_t errlen);
void campus_db_free(struct campus_db *db);

/* The row for offer o (provider and instance compared without case), or
 * NULL. Borrowed from db. */
const struct campus_slurm *campus_db_find(const struct campus_db *db, const struct offer *o);

#endif
