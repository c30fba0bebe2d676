/*
 * campus.c - data/access_slurm.csv read (campus.h): which partition, GRES
 * type and QOS a campus offer's Slurm job asks for, each row citing the
 * cluster's own documentation.
 */
#include "core/market/campus.h"
#include "base/i18n.h"
#include "base/quote.h"
#include "core/text/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A partition, GRES type or QOS goes into an #SBATCH line: one word of
 * letters, digits, '_', '-', '.' (what slurm_script_check() takes). */
static bool word_ok(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("_-.", *p)))
			return false;
	return true;
}

static int load_row(const struct csv *c, const struct csv_row *r, const char *fname, void *rec, char *err,
		    size_t errlen)
{
	struct campus_slurm *s = rec;
	struct { const char *col; char *out; size_t n; bool required, word; } f[] = {
		{"provider", s->provider, sizeof(s->provider), true, false},
		{"instance", s->instance, sizeof(s->instance), true, false},
		{"partition", s->partition, sizeof(s->partition), true, true},
		{"gres_type", s->gres_type, sizeof(s->gres_type), false, true},
		{"qos", s->qos, sizeof(s->qos), false, true},
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (csv_field_str(c, r, f[i].col, f[i].required, fname, f[i].out, f[i].n, err, errlen))
			return -1;
		if (quote_has_control(f[i].out, strlen(f[i].out)) || (f[i].word && !word_ok(f[i].out))) {
			snprintf(err, errlen, _("%s:%zu: %s: expected one word of letters, digits, '_', '-' or "
				 "'.', got '%s'"), fname, r->line, f[i].col, f[i].out);
			return -1;
		}
	}
	if (csv_col(c, "source") < 0 || !csv_get(r, csv_col(c, "source"))[0]) {
		snprintf(err, errlen, _("%s:%zu: source: expected the cluster's documentation"), fname, r->line);
		return -1;
	}
	s->line = r->line;
	return 0;
}

int campus_db_load(struct campus_db *db, const char *buf, size_t len, const char *fname, char *err,
		   size_t errlen)
{
	void *v;

	memset(db, 0, sizeof(*db));
	if (csv_load_table(buf, len, fname, sizeof(*db->v), load_row, &v, &db->n, err, errlen))
		return -1;
	db->v = v;
	return 0;
}

void campus_db_free(struct campus_db *db)
{
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

const struct campus_slurm *campus_db_find(const struct campus_db *db, const struct offer *o)
{
	for (size_t i = 0; i < db->n; i++) {
		const struct campus_slurm *s = &db->v[i];
		if (cat_str_eq_ci(&o->provider, s->provider) && cat_str_eq_ci(&o->instance, s->instance))
			return s;
	}
	return NULL;
}
