/*
 * ledger_bill.c - imported bill lines in the ledger (ledger.h, table
 * bill_items): one transaction a file, each line keyed by its content,
 * "row:" + bill_item_digest() + ":" + the how-manieth line of that content
 * in the file (1, 2 ...), so a second import of a file, or of the file
 * grown by new lines, adds only the lines not yet stored (docs/bill.md
 * "Import").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/ledger_int.h"
#include "base/i18n.h"
#include "base/util.h"

struct keyed {
	uint64_t digest;
	size_t i;
};

static int by_digest(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->digest != y->digest)
		return x->digest < y->digest ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* occ[i]: 1 for the first line with item i's content, 2 for the second ...;
 * dig[i] (n entries, the caller's) item i's digest, computed once (its
 * %.17g formatting was a tenth of a 1M-line import) */
static size_t *occurrences(const struct bill_export *b, uint64_t *dig)
{
	struct keyed *k = b->n ? calloc(b->n, sizeof(*k)) : NULL;
	size_t *occ = b->n ? calloc(b->n, sizeof(*occ)) : NULL;

	if (b->n && (!k || !occ)) {
		free(k);
		free(occ);
		return NULL;
	}
	for (size_t i = 0; i < b->n; i++) {
		k[i].digest = dig[i] = bill_item_digest(&b->v[i]);
		k[i].i = i;
	}
	if (b->n)
		qsort(k, b->n, sizeof(*k), by_digest);
	for (size_t j = 0; j < b->n; j++)
		occ[k[j].i] = j && k[j - 1].digest == k[j].digest ? occ[k[j - 1].i] + 1 : 1;
	free(k);
	return occ;
}

int ledger_bill_import(struct ledger *l, const struct bill_export *b, const char *file,
		       size_t *added, char *err, size_t errlen)
{
	static const char sql[] =
		"INSERT OR IGNORE INTO bill_items (item_key, file, line, format, provider, started_at, "
		"ended_at, service, item, resource, kind, quantity, unit, amount, currency, "
		"imported_at, credits, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
		"?13, ?14, ?15, ?16, ?17, ?18)";
	sqlite3_stmt *st = NULL;
	double now = ldb_now();
	size_t n = 0, *occ = NULL;
	uint64_t *dig = NULL;
	char key[48];
	int rc;

	if (added)
		*added = 0;
	if (b->n && (!(dig = malloc(b->n * sizeof(*dig))) || !(occ = occurrences(b, dig)))) {
		free(dig);
		ldb_set_err(err, errlen, "out of memory");
		return -1;
	}
	/* The import's pages stay in memory until COMMIT: with SQLite's default
	 * cache (2 MB, https://sqlite.org/pragma.html#pragma_cache_size) a
	 * large export's transaction spills pages to the WAL mid-way
	 * (sqlite3PcacheFetchStress), then writes them again; about 1 KiB a
	 * line covers the rows and the item_key index. This connection only. */
	{
		char pragma[64];
		long kib = (long)(b->n > 2048 ? b->n : 2048);
		snprintf(pragma, sizeof(pragma), "PRAGMA cache_size = -%ld", kib > 1048576 ? 1048576 : kib);
		if (ldb_exec(l, pragma, _("importing a bill"), err, errlen)) {
			free(occ);
			free(dig);
			return -1;
		}
	}
	if (ldb_exec_retry(l, "BEGIN IMMEDIATE", _("importing a bill"), err, errlen)) {
		free(occ);
		free(dig);
		return -1;
	}
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	for (size_t i = 0; i < b->n; i++) {
		const struct bill_item *it = &b->v[i];
		snprintf(key, sizeof(key), "row:%016" PRIx64 ":%zu", dig[i], occ[i]);
		sqlite3_reset(st);
		ldb_bind_str(st, 1, key);
		ldb_bind_str(st, 2, file);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)it->line);
		ldb_bind_str(st, 4, bill_format_name(b->format));
		ldb_bind_str(st, 5, it->provider);
		sqlite3_bind_double(st, 6, it->start);
		sqlite3_bind_double(st, 7, it->end);
		ldb_bind_str(st, 8, it->service);
		ldb_bind_str(st, 9, it->item);
		ldb_bind_str(st, 10, it->resource);
		ldb_bind_str(st, 11, bill_kind_name(it->kind));
		sqlite3_bind_double(st, 12, it->quantity);
		ldb_bind_str(st, 13, it->unit);
		sqlite3_bind_double(st, 14, it->amount);
		ldb_bind_str(st, 15, it->currency);
		sqlite3_bind_double(st, 16, now);
		sqlite3_bind_double(st, 17, it->credits);
		ldb_bind_str(st, 18, it->tags);
		if ((rc = sqlite3_step(st)) != SQLITE_DONE)
			goto out_db_error;
		n += (size_t)sqlite3_changes(l->db);
	}
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = sqlite3_exec(l->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
		goto out_db_error;
	if (added)
		*added = n;
	free(occ);
	free(dig);
	return 0;
out_db_error:
	ldb_error(l, rc, _("importing a bill"), err, errlen);
	sqlite3_finalize(st);
	ldb_rollback(l);
	free(occ);
	free(dig);
	return -1;
}

static void text(sqlite3_stmt *st, int c, char *dst, size_t n)
{
	const unsigned char *s = sqlite3_column_text(st, c);

	snprintf(dst, n, "%s", s ? (const char *)s : "");
}

int ledger_bill_list(struct ledger *l, struct bill_export *out, char *err, size_t errlen)
{
	static const char sql[] =
		"SELECT line, provider, started_at, ended_at, service, item, resource, kind, quantity, "
		"unit, amount, currency, credits, tags FROM bill_items ORDER BY started_at, id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	char kind[16];
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out_db_error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bill_item *it;
		if (util_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v))) {
			ldb_set_err(err, errlen, _("out of memory"));
			goto out_free;
		}
		it = &out->v[out->n++];
		memset(it, 0, sizeof(*it));
		it->line = (size_t)sqlite3_column_int64(st, 0);
		text(st, 1, it->provider, sizeof(it->provider));
		it->start = sqlite3_column_double(st, 2);
		it->end = sqlite3_column_double(st, 3);
		text(st, 4, it->service, sizeof(it->service));
		text(st, 5, it->item, sizeof(it->item));
		text(st, 6, it->resource, sizeof(it->resource));
		text(st, 7, kind, sizeof(kind));
		if (bill_kind_parse(kind, &it->kind))
			it->kind = BILL_OTHER;
		it->quantity = sqlite3_column_double(st, 8);
		text(st, 9, it->unit, sizeof(it->unit));
		it->amount = sqlite3_column_double(st, 10);
		text(st, 11, it->currency, sizeof(it->currency));
		it->credits = sqlite3_column_double(st, 12);
		text(st, 13, it->tags, sizeof(it->tags));
		/* a row edited by hand beyond the bounds is not summed */
		if (!isfinite(it->amount) || fabs(it->amount) > LEDGER_MAX_MONEY)
			it->amount = 0;
		if (!isfinite(it->credits) || fabs(it->credits) > LEDGER_MAX_MONEY)
			it->credits = 0;
	}
	if (rc != SQLITE_DONE)
		goto out_db_error;
	sqlite3_finalize(st);
	return 0;
out_db_error:
	ldb_error(l, rc, _("reading bill items"), err, errlen);
out_free:
	sqlite3_finalize(st);
	bill_free(out);
	return -1;
}
