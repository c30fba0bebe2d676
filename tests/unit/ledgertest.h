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

#include "../../src/store/ledger.h"

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
