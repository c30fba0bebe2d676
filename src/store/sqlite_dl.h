/*
 * sqlite_dl.h - SQLite through the one door to libraries (os/dl.h): the
 * store's files include this instead of <sqlite3.h>'s functions, so that
 * libsqlite3 is mapped only into a process that opens a ledger. The guard
 * (`gpurent run`) records from a short-lived child (guard/record.c), so
 * the library's pages never count in the guard's resident set (issue 32:
 * the guard under 4 MB). The header still gives SQLite's types and codes;
 * each sqlite3_NAME used here is a macro for the pointer in sq_api, which
 * sq_load() fills once per process.
 *
 * Thread-safety: sq_load() is called before the first sqlite3_open_v2()
 * (ledger_open(), ledger_open_read()); it uses pthread_once.
 */
#ifndef GPURENT_SQLITE_DL_H
#define GPURENT_SQLITE_DL_H

#include <sqlite3.h>
#include <stddef.h>

/* Every SQLite function the store calls (add one here and it is loaded). */
#define SQ_FUNCS(X) \
	X(bind_double) \
	X(bind_int) \
	X(bind_int64) \
	X(bind_null) \
	X(bind_text) \
	X(busy_timeout) \
	X(changes) \
	X(close) \
	X(column_bytes) \
	X(column_double) \
	X(column_int) \
	X(column_int64) \
	X(column_text) \
	X(column_type) \
	X(errmsg) \
	X(errstr) \
	X(exec) \
	X(extended_result_codes) \
	X(finalize) \
	X(get_autocommit) \
	X(last_insert_rowid) \
	X(open_v2) \
	X(prepare_v2) \
	X(reset) \
	X(step)

struct sq_fns {
#define SQ_MEMBER(n) __typeof__(&sqlite3_##n) n;
	SQ_FUNCS(SQ_MEMBER)
#undef SQ_MEMBER
};

/* Filled by sq_load(); read through the macros below. */
extern struct sq_fns sq_api;

/*
 * Load libsqlite3 (once per process). Returns 0, or -1 with one line in
 * err naming the library and why ("libsqlite3.so.0 not found").
 */
int sq_load(char *err, size_t errlen);

#ifndef SQ_DL_IMPL
#define sqlite3_bind_double (sq_api.bind_double)
#define sqlite3_bind_int (sq_api.bind_int)
#define sqlite3_bind_int64 (sq_api.bind_int64)
#define sqlite3_bind_null (sq_api.bind_null)
#define sqlite3_bind_text (sq_api.bind_text)
#define sqlite3_busy_timeout (sq_api.busy_timeout)
#define sqlite3_changes (sq_api.changes)
#define sqlite3_close (sq_api.close)
#define sqlite3_column_bytes (sq_api.column_bytes)
#define sqlite3_column_double (sq_api.column_double)
#define sqlite3_column_int (sq_api.column_int)
#define sqlite3_column_int64 (sq_api.column_int64)
#define sqlite3_column_text (sq_api.column_text)
#define sqlite3_column_type (sq_api.column_type)
#define sqlite3_errmsg (sq_api.errmsg)
#define sqlite3_errstr (sq_api.errstr)
#define sqlite3_exec (sq_api.exec)
#define sqlite3_extended_result_codes (sq_api.extended_result_codes)
#define sqlite3_finalize (sq_api.finalize)
#define sqlite3_get_autocommit (sq_api.get_autocommit)
#define sqlite3_last_insert_rowid (sq_api.last_insert_rowid)
#define sqlite3_open_v2 (sq_api.open_v2)
#define sqlite3_prepare_v2 (sq_api.prepare_v2)
#define sqlite3_reset (sq_api.reset)
#define sqlite3_step (sq_api.step)
#endif

#endif
