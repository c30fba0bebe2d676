/*
 * ledger_release.c - gpurent release in the ledger (ledger.h, the
 * releases table): one row a release, counts by category and the
 * action's answer; nothing that could hold a secret.
 */
#include <math.h>
#include <stdio.h>

#include "store/ledger_int.h"
#include "base/i18n.h"

int ledger_release_add(struct ledger *l, const struct ledger_release *r, int64_t *id,
		       char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT INTO releases (released_at, host, verify, credentials, leftovers, paths, "
		"histories, bytes, action, action_effect, action_status, action_answer, recorded_at) "
		"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
	const long counts[] = {r->credentials, r->leftovers, r->paths, r->histories};
	sqlite3_stmt *st = NULL;
	int rc;

	if (!ledger_known(r->at) || !r->host || !*r->host || !r->verify || !r->status ||
	    !isfinite(r->bytes) || r->bytes < 0) {
		ldb_set_err(err, errlen, _("release: the time, host, verify, status and finite bytes are required"));
		return LEDGER_INVALID;
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i] < 0) {
			ldb_set_err(err, errlen, _("release: a count is negative"));
			return LEDGER_INVALID;
		}
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	sqlite3_bind_double(st, 1, r->at);
	ldb_bind_str(st, 2, r->host);
	ldb_bind_str(st, 3, r->verify);
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(st, 4 + i, counts[i]);
	sqlite3_bind_double(st, 8, r->bytes);
	ldb_bind_str(st, 9, r->action);
	ldb_bind_str(st, 10, r->effect);
	ldb_bind_str(st, 11, r->status);
	ldb_bind_str(st, 12, r->answer && *r->answer ? r->answer : NULL);
	sqlite3_bind_double(st, 13, ldb_now());
	return ldb_insert(l, st, id, _("recording the release"), err, errlen);
out_db_error:
	ldb_error(l, rc, _("recording the release"), err, errlen);
	sqlite3_finalize(st);
	return -1;
}
