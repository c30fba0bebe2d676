/*
 * ledgertest.h - what the ledger's unit tests share: a fresh ledger path
 * in a temporary directory for each test (setup/teardown), plain SQL on it
 * (to build an older schema) and an open that fails the test. Define
 * LEDGERTEST_DIR, a mkdtemp() template, before including it.
 */
#ifndef GPURENT_LEDGERTEST_H
#define GPURENT_LEDGERTEST_H

#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "store/ledger.h"

static char dir[sizeof(LEDGERTEST_DIR)];
static char path[sizeof(dir) + 32];

static int setup(void **state)
{
	(void)state;
	memcpy(dir, LEDGERTEST_DIR, sizeof(LEDGERTEST_DIR));
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/ledger.db", dir);
	return 0;
}

static int teardown(void **state)
{
	char p[sizeof(path) + 8];

	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	rmdir(dir);
	return 0;
}

/* Run s on the ledger file directly, or fail the test. */
static void sql(const char *s)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, s, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", s, sqlite3_errmsg(db));
	sqlite3_close(db);
}

/*
 * The table each migration from v3 on created, by schema version: one row a
 * migration (the assert fails the build when a migration comes without
 * its row), so that a test can take a ledger back to an older schema.
 */
static const char *const ledgertest_tables[] = {
	NULL, NULL, NULL,        /* v1, v2: the runs themselves */
	"bench_results",         /* v3 */
	"probes",                /* v4 */
	"releases",              /* v5 */
	"bill_items",            /* v6 */
	"slurm_attempts",        /* v7 */
	NULL,                    /* v8: columns of bill_items (rewind below v6 to drop them) */
};
_Static_assert(sizeof(ledgertest_tables) / sizeof(ledgertest_tables[0]) == LEDGER_SCHEMA_VERSION + 1,
	       "a new migration needs its table in ledgertest_tables[]");

/* Take the ledger file back to schema v (>= 2): the tables of later
 * versions dropped, their rows of gpurent_schema deleted, user_version v.
 * The next open migrates it again. */
static inline void rewind_to(int v)
{
	char q[1024];
	size_t n = 0;

	for (int k = LEDGER_SCHEMA_VERSION; k > v; k--)
		if (ledgertest_tables[k])
			n += (size_t)snprintf(q + n, sizeof(q) - n, "DROP TABLE IF EXISTS %s; ", ledgertest_tables[k]);
	snprintf(q + n, sizeof(q) - n, "DELETE FROM gpurent_schema WHERE version > %d; PRAGMA user_version = %d;",
		 v, v);
	sql(q);
}

/* Open the ledger (creating or migrating it), or fail the test. */
static struct ledger *open_ok(void)
{
	struct ledger *l = NULL;
	char err[512];

	if (ledger_open(path, &l, err, sizeof(err)))
		fail_msg("open: %s", err);
	return l;
}

#endif
