/*
 * ledger_slurm.c - the Slurm facts of a guarded attempt (ledger.h,
 * schema v7's slurm_attempts): one row per run, replaced as the attempt
 * goes from its start to its end.
 */
#include <math.h>
#include <stdio.h>

#include "store/ledger_int.h"
#include "base/i18n.h"

static bool bad_figure(double v)
{
	return ledger_known(v) && !(v >= 0 && v <= LEDGER_MAX_TIME);
}

int ledger_slurm_put(struct ledger *l, const struct ledger_slurm *s, char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO slurm_attempts (run_id, job_id, restart_count, queue_wait_seconds, "
		"time_limit_seconds, action, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
	sqlite3_stmt *st = NULL;
	int rc;

	if (s->run_id < 1 || !s->job_id || !*s->job_id || bad_figure(s->queue_wait_s) ||
	    bad_figure(s->time_limit_s) || s->restart_count < -1) {
		ldb_set_err(err, errlen, _("slurm attempt: a run id, a job id and figures >= 0 are required"));
		return LEDGER_INVALID;
	}
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		return ldb_error(l, rc, _("recording the Slurm attempt"), err, errlen);
	sqlite3_bind_int64(st, 1, s->run_id);
	ldb_bind_str(st, 2, s->job_id);
	if (s->restart_count >= 0)
		sqlite3_bind_int64(st, 3, s->restart_count);
	else
		sqlite3_bind_null(st, 3);
	ldb_bind_real(st, 4, s->queue_wait_s);
	ldb_bind_real(st, 5, s->time_limit_s);
	ldb_bind_str(st, 6, s->action);
	sqlite3_bind_double(st, 7, ldb_now());
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : ldb_error(l, rc, _("recording the Slurm attempt"), err, errlen);
}
