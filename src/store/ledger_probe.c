/*
 * ledger_probe.c - gpurent probe's measurements in the ledger (ledger.h,
 * schema v4): one row a probe, read back by id, the newest, or the newest
 * N. The workload digest is stored as 16 hex digits (SQLite's integers
 * are signed).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/ledger_int.h"
#include "base/i18n.h"
#include "base/util.h"

/* The columns every read selects, in the order probe_row() reads them;
 * the text columns (host, gpu, workload_digest, model, diagnoses, command)
 * first after the id. */
#define PROBE_COLUMNS \
	"id, host, gpu, workload_digest, model, diagnoses, command, taken_at, gpu_count, " \
	"steps, warmup, steady_step_seconds, peak_memory_bytes, memory_growth_bytes_per_step, " \
	"units_per_step, units_per_second, units_are_samples, mfu, util_median, cpu_median, " \
	"recorded_at"
#define PROBE_NTEXT 6

static bool bad_real(double v)
{
	return isinf(v);
}

int ledger_probe_add(struct ledger *l, const struct ledger_probe *p, int64_t *id,
		     char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO probes (taken_at, host, gpu, gpu_count, workload_digest, model, steps, "
		"warmup, steady_step_seconds, peak_memory_bytes, memory_growth_bytes_per_step, "
		"units_per_step, units_per_second, units_are_samples, mfu, util_median, cpu_median, "
		"diagnoses, command, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
		"?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)";
	const double reals[] = {p->steady_step_s, p->peak_mem, p->mem_growth, p->units_per_step,
				p->units_per_s, p->mfu, p->util_median, p->cpu_median};
	sqlite3_stmt *st = NULL;
	char digest[17];
	int rc;

	if (!ledger_known(p->at) || !p->host || !*p->host || p->steps < 0 || p->warmup < 0 ||
	    p->gpu_count < 0) {
		ldb_set_err(err, errlen, _("probe: the time, the host and steps >= 0 are required"));
		return LEDGER_INVALID;
	}
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		if (bad_real(reals[i])) {
			ldb_set_err(err, errlen, _("probe: a figure is infinite"));
			return LEDGER_INVALID;
		}
	snprintf(digest, sizeof(digest), "%016" PRIx64, p->workload_digest);
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_double(st, 1, p->at);
	ldb_bind_str(st, 2, p->host);
	ldb_bind_str(st, 3, p->gpu && *p->gpu ? p->gpu : NULL);
	if (p->gpu_count > 0)
		sqlite3_bind_int(st, 4, p->gpu_count);
	else
		sqlite3_bind_null(st, 4);
	ldb_bind_str(st, 5, p->workload_digest ? digest : NULL);
	ldb_bind_str(st, 6, p->model && *p->model ? p->model : NULL);
	sqlite3_bind_int64(st, 7, p->steps);
	sqlite3_bind_int64(st, 8, p->warmup);
	for (int i = 0; i < 5; i++)
		ldb_bind_real(st, 9 + i, reals[i]);
	sqlite3_bind_int(st, 14, p->units_are_samples ? 1 : 0);
	for (int i = 5; i < 8; i++)
		ldb_bind_real(st, 10 + i, reals[i]);
	ldb_bind_str(st, 18, p->diagnoses && *p->diagnoses ? p->diagnoses : NULL);
	ldb_bind_str(st, 19, p->command && *p->command ? p->command : NULL);
	sqlite3_bind_double(st, 20, ldb_now());
	return ldb_insert(l, st, id, _("recording the probe"), err, errlen);
out_db_error:
	ldb_error(l, rc, _("recording the probe"), err, errlen);
	sqlite3_finalize(st);
	return -1;
}

/* Copy the current row's text columns into one allocation and fill r. */
static char *probe_row(sqlite3_stmt *st, struct ledger_probe *r)
{
	const char *digest = NULL;
	const char **dest[PROBE_NTEXT] = {&r->host, &r->gpu, &digest, &r->model, &r->diagnoses,
					  &r->command};
	char *mem = ldb_text_cols(st, 1, PROBE_NTEXT, dest);

	if (!mem)
		return NULL;
	r->id = sqlite3_column_int64(st, 0);
	r->workload_digest = digest ? (uint64_t)strtoull(digest, NULL, 16) : 0;
	r->at = sqlite3_column_double(st, 7);
	r->gpu_count = sqlite3_column_type(st, 8) == SQLITE_NULL ? 0 : sqlite3_column_int(st, 8);
	r->steps = (long)sqlite3_column_int64(st, 9);
	r->warmup = (long)sqlite3_column_int64(st, 10);
	r->steady_step_s = ldb_col_real(st, 11);
	r->peak_mem = ldb_col_real(st, 12);
	r->mem_growth = ldb_col_real(st, 13);
	r->units_per_step = ldb_col_real(st, 14);
	r->units_per_s = ldb_col_real(st, 15);
	r->units_are_samples = sqlite3_column_int(st, 16) != 0;
	r->mfu = ldb_col_real(st, 17);
	r->util_median = ldb_col_real(st, 18);
	r->cpu_median = ldb_col_real(st, 19);
	r->recorded_at = ldb_col_real(st, 20);
	return mem;
}

/* Run st (bound) and collect its rows into *out. 0 or -1. */
static int read_rows(struct ledger *l, sqlite3_stmt *st, struct ledger_probe_rows *out,
		     char *err, size_t errlen)
{
	size_t cap = 0, scap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		void *v = out->v, *sv = out->storage_;
		int g = util_grow(&v, &cap, out->n + 1, sizeof(*out->v));
		out->v = v;
		if (g || util_grow(&sv, &scap, out->n + 1, sizeof(*out->storage_)))
			goto out_nomem;
		out->storage_ = sv;
		memset(&out->v[out->n], 0, sizeof(out->v[out->n]));
		if (!(out->storage_[out->n] = probe_row(st, &out->v[out->n])))
			goto out_nomem;
		out->n++;
	}
	if (rc != SQLITE_DONE)
		return ldb_error(l, rc, _("reading probes"), err, errlen);
	return 0;
out_nomem:
	ldb_set_err(err, errlen, _("%s: out of memory"), l->path);
	return -1;
}

int ledger_probe_list(struct ledger *l, size_t limit, struct ledger_probe_rows *out,
		      char *err, size_t errlen)
{
	static const char sql[] = "SELECT " PROBE_COLUMNS " FROM probes "
		"ORDER BY taken_at DESC, id DESC LIMIT ?";
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK) {
		ldb_error(l, rc, _("reading probes"), err, errlen);
		return -1;
	}
	sqlite3_bind_int64(st, 1, limit ? (sqlite3_int64)limit : -1);
	rc = read_rows(l, st, out, err, errlen);
	sqlite3_finalize(st);
	if (rc)
		ledger_probe_rows_free(out);
	return rc;
}

int ledger_probe_get(struct ledger *l, int64_t id, struct ledger_probe_rows *out,
		     char *err, size_t errlen)
{
	static const char by_id[] = "SELECT " PROBE_COLUMNS " FROM probes WHERE id = ?";
	static const char newest[] = "SELECT " PROBE_COLUMNS " FROM probes "
		"ORDER BY taken_at DESC, id DESC LIMIT 1";
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sqlite3_prepare_v2(l->db, id < 0 ? newest : by_id, -1, &st, NULL)) != SQLITE_OK) {
		ldb_error(l, rc, _("reading probes"), err, errlen);
		return -1;
	}
	if (id >= 0)
		sqlite3_bind_int64(st, 1, id);
	rc = read_rows(l, st, out, err, errlen);
	sqlite3_finalize(st);
	if (rc) {
		ledger_probe_rows_free(out);
		return rc;
	}
	if (!out->n) {
		if (id < 0)
			ldb_set_err(err, errlen, _("%s: no probe recorded (run gpurent probe first)"), l->path);
		else
			ldb_set_err(err, errlen, _("%s: no probe with id %lld"), l->path, (long long)id);
		ledger_probe_rows_free(out);
		return LEDGER_NOT_FOUND;
	}
	return 0;
}

void ledger_probe_rows_free(struct ledger_probe_rows *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->storage_[i]);
	free(r->storage_);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
