/*
 * ledger_import.h - runs that come from outside the guard: the one check
 * every stored run passes (ledger_run_check(): `ledger add`, the guard's
 * writes and `ledger import` alike), times as users write them, and the
 * CSV of `ledger export --csv` read back into runs. Pure: the store
 * (src/store/ledger.h) writes what these accept.
 */
#ifndef GPURENT_LEDGER_IMPORT_H
#define GPURENT_LEDGER_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/text/csv.h"
#include "core/books/ledger_summary.h"

/*
 * Check run r as it will be stored; start, end and currency are the merged
 * values (a row's, overridden by r's known ones), has_money whether the
 * stored row has a price or a cost. 0, or -1 with "FIELD: expected ..." in
 * err (the caller adds where the run came from).
 */
int ledger_run_check(const struct ledger_run *r, double start, double end, const char *currency,
		     bool has_money, char *err, size_t errlen);

/*
 * Unix seconds ("1709618400", "1709618400.5") or ISO 8601: a date, then
 * optionally 'T' or ' ' and HH:MM[:SS[.frac]], then optionally Z or
 * +HH[:MM]/-HH[:MM]; local time (TZ) without a zone. 0 or -1.
 */
int ledger_time_parse(const char *s, double *out);

/* The runs of one export; their strings point into csv_. */
struct ledger_import {
	struct ledger_run *runs;   /* owned */
	size_t *lines;             /* the line each run starts on; owned */
	size_t n;
	struct csv csv_;           /* private: owns the strings */
};

/*
 * Read len bytes of CSV as `ledger export --csv` writes them (fname names
 * it in messages). Every row is parsed and passes ledger_run_check(), or
 * nothing is returned: 0 and *out filled (caller frees with
 * ledger_import_free()), or -1 with one line "fname:LINE: FIELD: expected
 * ..." in err and *out empty.
 */
int ledger_import_parse(const char *buf, size_t len, const char *fname, struct ledger_import *out,
			char *err, size_t errlen);

void ledger_import_free(struct ledger_import *m);

#endif
