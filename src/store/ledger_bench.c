/*
 * ledger_bench.c - gpurent bench's results in the ledger (ledger.h,
 * schema v3): a batch in one transaction, the newest N read back.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/ledger_int.h"
#include "base/i18n.h"
#include "base/util.h"

/* ---- benchmark results ---- */

int ledger_bench_add(struct ledger *l, const struct ledger_bench *b, size_t n,
		     char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, "
		"recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
	sqlite3_stmt *st = NULL;
	double now = ldb_now();
	int rc;

	for (size_t i = 0; i < n; i++)
		if (!ledger_known(b[i].at) || !ledger_known(b[i].value) || !b[i].host || !*b[i].host ||
		    !b[i].test || !*b[i].test || !b[i].unit || !*b[i].unit) {
			ldb_set_err(err, errlen, _("benchmark result %zu: time, host, test, value and unit "
				"are required"), i + 1);
			return LEDGER_INVALID;
		}
	if (ldb_exec_retry(l, "BEGIN IMMEDIATE", _("recording benchmark results"), err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_double(st, 1, b[i].at);
		ldb_bind_str(st, 2, b[i].host);
		ldb_bind_str(st, 3, b[i].gpu && *b[i].gpu ? b[i].gpu : NULL);
		ldb_bind_str(st, 4, b[i].test);
		sqlite3_bind_double(st, 5, b[i].value);
		ldb_bind_str(st, 6, b[i].unit);
		ldb_bind_real(st, 7, b[i].nominal);
		sqlite3_bind_double(st, 8, now);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			goto out_db_error;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	return 0;
out_db_error:
	ldb_error(l, rc, _("recording benchmark results"), err, errlen);
	sqlite3_finalize(st);
	ldb_rollback(l);
	return -1;
}

/* Copy the current row's text columns 1..4 (host, gpu, test, unit) into one
 * allocation and point r's strings at it. */
static char *bench_row(sqlite3_stmt *st, struct ledger_bench *r)
{
	const char **dest[4] = {&r->host, &r->gpu, &r->test, &r->unit};
	char *mem = ldb_text_cols(st, 1, 4, dest);

	if (!mem)
		return NULL;
	r->at = sqlite3_column_double(st, 0);
	r->value = sqlite3_column_double(st, 5);
	r->nominal = ldb_col_real(st, 6);
	return mem;
}

int ledger_bench_list(struct ledger *l, size_t limit, struct ledger_bench_rows *out,
		      char *err, size_t errlen)
{
	/* the `limit` newest, returned oldest first */
	static const char sql[] =
		"SELECT measured_at, host, gpu, test, unit, value, nominal FROM "
		"(SELECT * FROM bench_results ORDER BY measured_at DESC, id DESC LIMIT ?) "
		"ORDER BY measured_at, id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0, scap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		void *v = out->v, *sv = out->storage_;
		int g = util_grow(&v, &cap, out->n + 1, sizeof(*out->v));
		out->v = v;
		if (g || util_grow(&sv, &scap, out->n + 1, sizeof(*out->storage_)))
			goto out_nomem;
		out->storage_ = sv;
		if (!(out->storage_[out->n] = bench_row(st, &out->v[out->n])))
			goto out_nomem;
		out->n++;
	}
	if (rc != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	return 0;
out_nomem:
	ldb_set_err(err, errlen, _("%s: out of memory"), l->path);
	goto out_free;
out_db_error:
	ldb_error(l, rc, _("reading benchmark results"), err, errlen);
out_free:
	sqlite3_finalize(st);
	ledger_bench_rows_free(out);
	return -1;
}

void ledger_bench_rows_free(struct ledger_bench_rows *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->storage_[i]);
	free(r->storage_);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

