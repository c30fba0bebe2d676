/*
 * sqlite_dl.c - loads libsqlite3 through os/dl.h (see sqlite_dl.h).
 */
#define SQ_DL_IMPL
#include "store/sqlite_dl.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "os/dl.h"

struct sq_fns sq_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_rc = -1;
static char load_err[256];

static void load_once(void)
{
	static const char *const libs[] = {"libsqlite3.so.0", "libsqlite3.so"};
	static const struct dl_sym syms[] = {
#define SQ_SYM(n) {{"sqlite3_" #n}, offsetof(struct sq_fns, n), true},
		SQ_FUNCS(SQ_SYM)
#undef SQ_SYM
	};
	struct dl_lib *dl = NULL;

	if (dl_open(libs, ARRAY_SIZE(libs), syms, ARRAY_SIZE(syms), &sq_api, &dl, load_err,
		    sizeof(load_err)))
		return;
	dl_keep(dl);   /* statements and connections hold its code until exit */
	load_rc = 0;
}

int sq_load(char *err, size_t errlen)
{
	pthread_once(&once, load_once);
	if (load_rc && err && errlen)
		snprintf(err, errlen, "%s (SQLite keeps the ledger: install libsqlite3-0)", load_err);
	return load_rc;
}
