/*
 * ledger_summary.c - the ledger's pure computations (ledger_summary.h):
 * unknown-field runs, tags, and summaries by day, week, month, tag or GPU
 * with one total per currency, summed only within the stored bounds.
 */
#include "core/books/ledger_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/text/names.h"
#include "base/util.h"
#include "base/i18n.h"

void ledger_run_init(struct ledger_run *r)
{
	memset(r, 0, sizeof(*r));
	r->start = r->end = NAN;
	r->price_per_hour = r->cost = r->idle_seconds = NAN;
	r->gpu_count = r->exit_status = r->restarts = -1;
}

static const char *const by_names[] = {"day", "week", "month", "tag", "gpu", "all"};

int ledger_by_parse(const char *s, enum ledger_by *by)
{
	for (size_t i = 0; i < ARRAY_SIZE(by_names); i++)
		if (!strcmp(s, by_names[i])) {
			*by = (enum ledger_by)i;
			return 0;
		}
	return -1;
}

const char *ledger_by_name(enum ledger_by by)
{
	return (size_t)by < ARRAY_SIZE(by_names) ? by_names[by] : "?";
}

/* One (group key, run) pair; a run with three tags gives three. */
struct item {
	char key[64];
	char currency[8];
	const struct ledger_entry *e;
};

struct items {
	struct item *v;
	size_t n, cap;
};

static int push(struct items *it, const char *key, size_t keylen, const struct ledger_entry *e)
{
	struct item *x;

	if (util_grow((void **)&it->v, &it->cap, it->n + 1, sizeof(*it->v)))
		return -1;
	x = &it->v[it->n++];
	snprintf(x->key, sizeof(x->key), "%.*s", (int)keylen, key);
	snprintf(x->currency, sizeof(x->currency), "%s", e->run.currency ? e->run.currency : "");
	x->e = e;
	return 0;
}

struct push_ctx {
	struct items *it;
	const struct ledger_entry *e;
};

static int push_tag(const char *tag, size_t len, int pos, void *ctx)
{
	struct push_ctx *c = ctx;

	(void)pos;
	return push(c->it, tag, len, c->e);
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	if ((c = strcmp(x->currency, y->currency)))
		return c;
	return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

int ledger_summarize(const struct ledger_entries *e, enum ledger_by by,
		     struct ledger_summary *out, char *err, size_t errlen)
{
	struct items it = {NULL, 0, 0};
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < e->n; i++) {
		const struct ledger_entry *x = &e->v[i];
		char key[64];
		int rc = 0;
		if (by == LEDGER_BY_TAG) {
			struct push_ctx c = {&it, x};
			size_t before = it.n;
			rc = names_each(x->run.tags, push_tag, &c);
			if (!rc && it.n == before)
				rc = push(&it, "(untagged)", 10, x);
		} else if (by == LEDGER_BY_ALL) {
			rc = push(&it, "all", 3, x);
		} else if (by == LEDGER_BY_GPU) {
			const char *g = x->run.gpu_type && *x->run.gpu_type ? x->run.gpu_type : "(unknown)";
			rc = push(&it, g, strlen(g), x);
		} else {
			time_t t = (time_t)floor(x->run.start);
			struct tm tm;
			const char *fmt = by == LEDGER_BY_DAY ? "%Y-%m-%d" :
					  by == LEDGER_BY_WEEK ? "%G-W%V" : "%Y-%m";
			if (!localtime_r(&t, &tm) || !strftime(key, sizeof(key), fmt, &tm))
				snprintf(key, sizeof(key), "(no date)");
			rc = push(&it, key, strlen(key), x);
		}
		if (rc)
			goto out_nomem;
	}
	if (it.n)
		qsort(it.v, it.n, sizeof(*it.v), item_cmp);
	for (size_t i = 0; i < it.n; i++) {
		const struct ledger_run *r = &it.v[i].e->run;
		struct ledger_total *t;
		if (!out->n || strcmp(out->v[out->n - 1].key, it.v[i].key) ||
		    strcmp(out->v[out->n - 1].currency, it.v[i].currency)) {
			if (util_grow((void **)&out->v, &cap, out->n + 1, sizeof(*out->v)))
				goto out_nomem;
			t = &out->v[out->n++];
			memset(t, 0, sizeof(*t));
			memcpy(t->key, it.v[i].key, sizeof(t->key));
			memcpy(t->currency, it.v[i].currency, sizeof(t->currency));
		}
		t = &out->v[out->n - 1];
		t->runs++;
		if (it.v[i].e->status && !strcmp(it.v[i].e->status, "running"))
			t->running++;
		/* Only values within the bounds writes enforce are summed: a row stored
		 * by hand or by an older gpurent (1.7e308) counts as without a cost,
		 * so no total overflows to inf. */
		if (r->cost >= 0 && r->cost <= LEDGER_MAX_MONEY)
			t->cost += r->cost;
		else
			t->runs_without_cost++;
		if (r->start >= 0 && r->end >= r->start && r->end <= LEDGER_MAX_TIME) {
			double h = (r->end - r->start) / 3600.0;
			t->hours += h;
			if (r->gpu_count >= 0)
				t->gpu_hours += h * r->gpu_count;
		}
	}
	free(it.v);
	return 0;
out_nomem:
	if (err && errlen)
		snprintf(err, errlen, _("out of memory"));
	free(it.v);
	ledger_summary_free(out);
	return -1;
}

void ledger_summary_free(struct ledger_summary *s)
{
	if (!s)
		return;
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
