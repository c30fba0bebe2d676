/*
 * ledger_query.c - reading runs (ledger.h): one run, lists in one read
 * snapshot, and freeing what they return.
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

/* ---- reading ---- */

/* Column indexes of RUN_COLUMNS. */
enum {
	C_ID, C_STATUS, C_RECORDED, C_KIND, C_START, C_END, C_COMMAND, C_HOST, C_GPU_TYPE,
	C_GPU_COUNT, C_PRICE, C_CURRENCY, C_BILLING, C_COST, C_EXIT, C_RESTARTS, C_IDLE,
	C_STOP, C_LOG, C_NOTES, C_PROBLEMS, C_TAGS, C_NCOLS
};

double ldb_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int col_count(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
}

/* Fill e from the current row; every string is copied into e->storage_. */
static int row_to_entry(sqlite3_stmt *st, struct ledger_entry *e)
{
	static const int text_cols[] = {C_STATUS, C_KIND, C_COMMAND, C_HOST, C_GPU_TYPE,
					C_CURRENCY, C_BILLING, C_STOP, C_LOG, C_NOTES,
					C_PROBLEMS, C_TAGS};
	const char **dest[C_NCOLS] = {0};
	size_t total = 0, used = 0;

	memset(e, 0, sizeof(*e));
	ledger_run_init(&e->run);
	dest[C_STATUS] = &e->status;
	dest[C_KIND] = &e->run.kind;
	dest[C_COMMAND] = &e->run.command;
	dest[C_HOST] = &e->run.host;
	dest[C_GPU_TYPE] = &e->run.gpu_type;
	dest[C_CURRENCY] = &e->run.currency;
	dest[C_BILLING] = &e->run.billing_mode;
	dest[C_STOP] = &e->run.stop_reason;
	dest[C_LOG] = &e->run.log_path;
	dest[C_NOTES] = &e->run.notes;
	dest[C_PROBLEMS] = &e->run.problems;
	dest[C_TAGS] = &e->run.tags;
	for (size_t i = 0; i < ARRAY_SIZE(text_cols); i++)
		if (sqlite3_column_type(st, text_cols[i]) != SQLITE_NULL)
			total += (size_t)sqlite3_column_bytes(st, text_cols[i]) + 1;
	if (total && !(e->storage_ = malloc(total)))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(text_cols); i++) {
		int c = text_cols[i];
		const unsigned char *s;
		size_t n;
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		s = sqlite3_column_text(st, c);
		n = (size_t)sqlite3_column_bytes(st, c);
		memcpy(e->storage_ + used, s ? (const char *)s : "", n);
		e->storage_[used + n] = '\0';
		*dest[c] = e->storage_ + used;
		used += n + 1;
	}
	e->id = sqlite3_column_int64(st, C_ID);
	e->recorded_at = sqlite3_column_double(st, C_RECORDED);
	e->run.start = ldb_col_real(st, C_START);
	e->run.end = ldb_col_real(st, C_END);
	e->run.gpu_count = col_count(st, C_GPU_COUNT);
	e->run.price_per_hour = ldb_col_real(st, C_PRICE);
	e->run.cost = ldb_col_real(st, C_COST);
	e->run.exit_status = col_count(st, C_EXIT);
	e->run.restarts = col_count(st, C_RESTARTS);
	e->run.idle_seconds = ldb_col_real(st, C_IDLE);
	return 0;
}

void ledger_entry_free(struct ledger_entry *e)
{
	if (!e)
		return;
	free(e->storage_);
	memset(e, 0, sizeof(*e));
}

int ledger_get(struct ledger *l, int64_t id, struct ledger_entry *out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	rc = sqlite3_prepare_v2(l->db, "SELECT " RUN_COLUMNS "FROM runs WHERE id = ?", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ldb_set_err(err, errlen, _("%s: no run %lld in the ledger"), l->path, (long long)id);
		ret = LEDGER_NOT_FOUND;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW)
		goto out_db_error;
	if (row_to_entry(st, out)) {
		ldb_set_err(err, errlen, _("%s: out of memory"), l->path);
		goto out_finalize;
	}
	ret = 0;
	goto out_finalize;
out_db_error:
	ldb_error(l, rc, _("reading a run"), err, errlen);
out_finalize:
	sqlite3_finalize(st);
	return ret;
}

int ledger_list(struct ledger *l, enum ledger_order order, size_t limit,
		struct ledger_entries *out, char *err, size_t errlen)
{
	const char *sql = order == LEDGER_NEWEST_FIRST ?
		"SELECT " RUN_COLUMNS "FROM runs ORDER BY started_at DESC, id DESC LIMIT ?" :
		"SELECT " RUN_COLUMNS "FROM runs ORDER BY started_at, id LIMIT ?";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	/* One read transaction, so the list is one consistent snapshot. */
	if (ldb_exec(l, "BEGIN", _("listing runs"), err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (util_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v)))
			goto out_nomem;
		if (row_to_entry(st, &out->v[out->n]))
			goto out_nomem;
		out->n++;
	}
	if (rc != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL);
	return 0;
out_nomem:
	ldb_set_err(err, errlen, _("%s: out of memory"), l->path);
	goto out_free;
out_db_error:
	ldb_error(l, rc, _("listing runs"), err, errlen);
out_free:
	sqlite3_finalize(st);
	ldb_rollback(l);
	ledger_entries_free(out);
	return -1;
}

void ledger_entries_free(struct ledger_entries *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		ledger_entry_free(&e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

