/*
 * ledger_write.c - writing runs (ledger.h): validation against the bounds
 * of ledger_summary.h, inserts, the guard's begin/update/finish, tags.
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
#include "core/books/ledger_import.h"
#include "core/text/names.h"

/* ---- writing ---- */

/*
 * Check a run as it will be stored: start/end/currency are the merged
 * values (the row's, overridden by r's known ones). The one check of every
 * stored run, shared with `ledger import` (ledger_run_check()).
 * LEDGER_INVALID with a message naming the field, or 0.
 */
static int validate(const struct ledger_run *r, double start, double end, const char *currency,
		    bool has_money, char *err, size_t errlen)
{
	char why[512];

	if (ledger_run_check(r, start, end, currency, has_money, why, sizeof(why))) {
		ldb_set_err(err, errlen, "%s", why);
		return LEDGER_INVALID;
	}
	return 0;
}

void ldb_bind_str(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

void ldb_bind_real(sqlite3_stmt *st, int i, double v)
{
	if (ledger_known(v))
		sqlite3_bind_double(st, i, v + 0.0);   /* -0 is stored as 0 */
	else
		sqlite3_bind_null(st, i);
}

static void bind_count(sqlite3_stmt *st, int i, int v)
{
	if (v >= 0)
		sqlite3_bind_int(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Bind r's fields to ?2..?20 in the order of the INSERT and UPDATE below. */
static void bind_run(sqlite3_stmt *st, const struct ledger_run *r)
{
	ldb_bind_str(st, 2, r->kind);
	ldb_bind_real(st, 3, r->start);
	ldb_bind_real(st, 4, r->end);
	ldb_bind_str(st, 5, r->command);
	ldb_bind_str(st, 6, r->host);
	ldb_bind_str(st, 7, r->gpu_type);
	bind_count(st, 8, r->gpu_count);
	ldb_bind_real(st, 9, r->price_per_hour);
	ldb_bind_str(st, 10, r->currency);
	ldb_bind_str(st, 11, r->billing_mode);
	ldb_bind_real(st, 12, r->cost);
	bind_count(st, 13, r->exit_status);
	bind_count(st, 14, r->restarts);
	ldb_bind_real(st, 15, r->idle_seconds);
	ldb_bind_str(st, 16, r->stop_reason);
	ldb_bind_str(st, 17, r->log_path);
	ldb_bind_str(st, 18, r->notes);
	ldb_bind_str(st, 19, r->problems);
}

struct tag_ctx {
	sqlite3_stmt *st;
	int rc;
};

static int insert_tag(const char *tag, size_t len, int pos, void *ctx)
{
	struct tag_ctx *c = ctx;

	sqlite3_reset(c->st);
	sqlite3_bind_int(c->st, 2, pos);
	sqlite3_bind_text(c->st, 3, tag, (int)len, SQLITE_TRANSIENT);
	c->rc = sqlite3_step(c->st);
	return c->rc != SQLITE_DONE;
}

/* Replace the tags of run id with r->tags (nothing when r->tags is NULL). */
static int write_tags(struct ledger *l, int64_t id, const char *tags, char *err, size_t errlen)
{
	struct tag_ctx c = {NULL, SQLITE_DONE};
	sqlite3_stmt *del = NULL;
	int rc;

	if (!tags)
		return 0;
	rc = sqlite3_prepare_v2(l->db, "DELETE FROM run_tags WHERE run_id = ?", -1, &del, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(del, 1, id);
		rc = sqlite3_step(del);
	}
	sqlite3_finalize(del);
	if (rc != SQLITE_DONE)
		return ldb_error(l, rc, _("writing tags"), err, errlen);
	rc = sqlite3_prepare_v2(l->db, "INSERT OR IGNORE INTO run_tags (run_id, pos, tag) "
				"VALUES (?1, ?2, ?3)", -1, &c.st, NULL);
	if (rc != SQLITE_OK)
		return ldb_error(l, rc, _("writing tags"), err, errlen);
	sqlite3_bind_int64(c.st, 1, id);
	names_each(tags, insert_tag, &c);
	sqlite3_finalize(c.st);
	return c.rc == SQLITE_DONE ? 0 : ldb_error(l, c.rc, _("writing tags"), err, errlen);
}

/* Insert r (validated) with its tags inside the caller's transaction; *id
 * its id. 0, LEDGER_INVALID, or -1 with err; the caller rolls back. */
static int insert_locked(struct ledger *l, const struct ledger_run *r, const char *kind,
			 const char *status, int64_t *id, char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO runs (kind, started_at, ended_at, command, host, gpu_type, gpu_count, "
		"price_per_hour, currency, billing_mode, cost, exit_status, restarts, idle_seconds, "
		"stop_reason, log_path, notes, problems, status, recorded_at) VALUES "
		"(?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
		"?20, ?21)";
	struct ledger_run k = *r;
	sqlite3_stmt *st = NULL;
	int rc;

	k.kind = kind;
	if ((rc = validate(&k, k.start, k.end, k.currency,
			   ledger_known(k.cost) || ledger_known(k.price_per_hour), err, errlen)))
		return rc;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	bind_run(st, &k);
	sqlite3_bind_text(st, 20, status, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 21, ldb_now());
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(l->db);
	return write_tags(l, *id, k.tags, err, errlen);
out_db_error:
	sqlite3_finalize(st);
	return ldb_error(l, rc, _("recording a run"), err, errlen);
}

static int insert_run(struct ledger *l, const struct ledger_run *r, const char *kind,
		      const char *status, int64_t *id, char *err, size_t errlen)
{
	struct ledger_run k = *r;
	int64_t newid;
	int rc;

	k.kind = kind;
	/* refused before any lock is taken */
	if ((rc = validate(&k, k.start, k.end, k.currency,
			   ledger_known(k.cost) || ledger_known(k.price_per_hour), err, errlen)))
		return rc;
	if (ldb_exec_retry(l, "BEGIN IMMEDIATE", _("recording a run"), err, errlen))
		return -1;
	if ((rc = insert_locked(l, &k, kind, status, &newid, err, errlen)))
		goto out_rollback;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) {
		rc = ldb_error(l, rc, _("recording a run"), err, errlen);
		goto out_rollback;
	}
	if (id)
		*id = newid;
	return 0;
out_rollback:
	ldb_rollback(l);
	return rc;
}

/* Is a run that was in the ledger before this import (id <= before) the
 * same as r: start, end, cost, currency, command, host and GPU? 1, 0, or -1. */
static int run_known(struct ledger *l, sqlite3_stmt *st, const struct ledger_run *r, int64_t before,
		     char *err, size_t errlen)
{
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, before);
	ldb_bind_real(st, 2, r->start);
	ldb_bind_real(st, 3, r->end);
	ldb_bind_real(st, 4, r->cost);
	ldb_bind_str(st, 5, r->currency);
	ldb_bind_str(st, 6, r->command);
	ldb_bind_str(st, 7, r->host);
	ldb_bind_str(st, 8, r->gpu_type);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return ldb_error(l, rc, _("importing runs"), err, errlen);
}

int ledger_import_runs(struct ledger *l, const struct ledger_run *runs, size_t n, size_t *added,
		       size_t *known, size_t *bad, char *err, size_t errlen)
{
	static const char known_sql[] =
		"SELECT 1 FROM runs WHERE id <= ?1 AND started_at = ?2 AND ended_at IS ?3 AND "
		"cost IS ?4 AND currency IS ?5 AND command IS ?6 AND host IS ?7 AND gpu_type IS ?8 "
		"LIMIT 1";
	sqlite3_stmt *st = NULL;
	long long before = 0;
	size_t nadd = 0, nknown = 0;
	int rc;

	*bad = n;
	/* every run is checked before any lock is taken */
	for (size_t i = 0; i < n; i++)
		if ((rc = validate(&runs[i], runs[i].start, runs[i].end, runs[i].currency,
				   ledger_known(runs[i].cost) || ledger_known(runs[i].price_per_hour),
				   err, errlen))) {
			*bad = i;
			return rc;
		}
	/* IMMEDIATE: the write lock from the first read, so that two imports
	 * of one file are serialised and the second finds the first's runs */
	if (ldb_exec_retry(l, "BEGIN IMMEDIATE", _("importing runs"), err, errlen))
		return -1;
	if ((rc = sqlite3_prepare_v2(l->db, "SELECT coalesce(max(id), 0) FROM runs", -1, &st, NULL)) !=
	    SQLITE_OK || (rc = sqlite3_step(st)) != SQLITE_ROW)
		goto out_db_error;
	before = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if ((rc = sqlite3_prepare_v2(l->db, known_sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	for (size_t i = 0; i < n; i++) {
		int64_t id;
		if ((rc = run_known(l, st, &runs[i], before, err, errlen)) < 0) {
			*bad = i;
			goto out_rollback;
		}
		if (rc) {
			nknown++;
			continue;
		}
		if ((rc = insert_locked(l, &runs[i], runs[i].kind ? runs[i].kind : "manual", "finished",
					&id, err, errlen))) {
			*bad = i;
			goto out_rollback;
		}
		nadd++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	if (added)
		*added = nadd;
	if (known)
		*known = nknown;
	*bad = n;
	return 0;
out_db_error:
	rc = ldb_error(l, rc, _("importing runs"), err, errlen);
out_rollback:
	sqlite3_finalize(st);
	ldb_rollback(l);
	return rc;
}

int ledger_begin_run(struct ledger *l, const struct ledger_run *r, int64_t *id,
		     char *err, size_t errlen)
{
	struct ledger_run k = *r;

	k.end = NAN;
	return insert_run(l, &k, r->kind ? r->kind : "guard", "running", id, err, errlen);
}

int ledger_add(struct ledger *l, const struct ledger_run *r, int64_t *id, char *err, size_t errlen)
{
	return insert_run(l, r, r->kind ? r->kind : "manual", "finished", id, err, errlen);
}

/* Update run id with r's known fields; finish marks it finished. */
static int update_run(struct ledger *l, int64_t id, const struct ledger_run *r, bool finish,
		      char *err, size_t errlen)
{
	static const char sql[] =
		"UPDATE runs SET kind = coalesce(?2, kind), started_at = coalesce(?3, started_at), "
		"ended_at = coalesce(?4, ended_at), command = coalesce(?5, command), "
		"host = coalesce(?6, host), gpu_type = coalesce(?7, gpu_type), "
		"gpu_count = coalesce(?8, gpu_count), price_per_hour = coalesce(?9, price_per_hour), "
		"currency = coalesce(?10, currency), billing_mode = coalesce(?11, billing_mode), "
		"cost = coalesce(?12, cost), exit_status = coalesce(?13, exit_status), "
		"restarts = coalesce(?14, restarts), idle_seconds = coalesce(?15, idle_seconds), "
		"stop_reason = coalesce(?16, stop_reason), log_path = coalesce(?17, log_path), "
		"notes = coalesce(?18, notes), problems = coalesce(?19, problems), status = ?20 "
		"WHERE id = ?1";
	sqlite3_stmt *st = NULL;
	char status[16] = "", currency[8] = "";
	double start = NAN, end = NAN;
	bool has_money;
	int rc, ret = -1;

	if (finish && !ledger_known(r->end)) {
		ldb_set_err(err, errlen, _("end: finishing run %lld needs its end time"), (long long)id);
		return LEDGER_INVALID;
	}
	if (ldb_exec_retry(l, "BEGIN IMMEDIATE", _("updating a run"), err, errlen))
		return -1;
	rc = sqlite3_prepare_v2(l->db, "SELECT status, started_at, ended_at, currency, "
				"cost IS NOT NULL OR price_per_hour IS NOT NULL FROM runs WHERE id = ?",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		ldb_set_err(err, errlen, _("%s: no run %lld in the ledger"), l->path, (long long)id);
		ret = LEDGER_NOT_FOUND;
		goto out_finalize;
	}
	if (rc != SQLITE_ROW)
		goto out_db_error;
	snprintf(status, sizeof(status), "%s", (const char *)sqlite3_column_text(st, 0));
	start = sqlite3_column_double(st, 1);
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		end = sqlite3_column_double(st, 2);
	if (sqlite3_column_type(st, 3) != SQLITE_NULL)
		snprintf(currency, sizeof(currency), "%s", (const char *)sqlite3_column_text(st, 3));
	has_money = sqlite3_column_int(st, 4) || ledger_known(r->cost) || ledger_known(r->price_per_hour);
	sqlite3_finalize(st);
	st = NULL;
	if (strcmp(status, "running")) {
		ldb_set_err(err, errlen, _("%s: run %lld is already finished; a finished run is never "
			"changed"), l->path, (long long)id);
		ret = LEDGER_INVALID;
		goto out_rollback;
	}
	if ((ret = validate(r, ledger_known(r->start) ? r->start : start, ledger_known(r->end) ? r->end : end,
			    r->currency ? r->currency : currency[0] ? currency : NULL, has_money,
			    err, errlen)))
		goto out_rollback;
	ret = -1;
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_int64(st, 1, id);
	bind_run(st, r);
	sqlite3_bind_text(st, 20, finish ? "finished" : "running", -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	st = NULL;
	if (write_tags(l, id, r->tags, err, errlen))
		goto out_rollback;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	return 0;
out_db_error:
	ldb_error(l, rc, finish ? _("finishing a run") : _("updating a run"), err, errlen);
out_finalize:
	sqlite3_finalize(st);
out_rollback:
	ldb_rollback(l);
	return ret;
}

int ledger_update_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen)
{
	return update_run(l, id, r, false, err, errlen);
}

int ledger_finish_run(struct ledger *l, int64_t id, const struct ledger_run *r,
		      char *err, size_t errlen)
{
	return update_run(l, id, r, true, err, errlen);
}

