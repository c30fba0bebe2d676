/*
 * audit.c - the bill against the ledger (audit.h): the split by kind and
 * resource, and the findings. Every formula is in docs/bill.md "Audit".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stdint.h>
#include <xxhash.h>

#include "core/books/audit.h"
#include "base/util.h"
#include "base/i18n.h"

static const char *const audit_code_names[AUDIT_NCODES] = {
	"rounding", "storage-outlived", "egress-over-gpu", "stopped-not-released",
	"unguarded-gpu", "run-cost-mismatch", "over-budget", "balance-runout",
};

const char *audit_code_name(enum audit_code c)
{
	return (unsigned)c < AUDIT_NCODES ? audit_code_names[c] : "unknown";
}

void audit_result_free(struct audit_result *r)
{
	if (!r)
		return;
	free(r->res);
	free(r->f);
	r->res = NULL;
	r->f = NULL;
	r->nres = r->nf = 0;
}

/* The share of item it inside [from, to): its overlap over its length; an
 * instant counts whole when it falls inside. */
static double share(const struct bill_item *it, double from, double to)
{
	double lo = it->start > from ? it->start : from;
	double hi = it->end < to ? it->end : to;

	if (it->end <= it->start)
		return it->start >= from && it->start < to ? 1.0 : 0.0;
	if (hi <= lo)
		return 0.0;
	return (hi - lo) / (it->end - it->start);
}

/*
 * The findings and resources of an audit, each with an open-addressing
 * index (slot: position + 1, 0 empty; at most half full) so that a line
 * finds its own in constant time: a linear search made a bill of distinct
 * resources quadratic (bill-audit-quadratic, 100k lines 35.6 s).
 */
struct ctx {
	struct audit_result *r;
	size_t fcap, rcap;
	size_t *fidx, *ridx;      /* owned: free_ctx() */
	size_t fmask, rmask;      /* slots - 1 (a power of two), 0 before the first */
};

static void free_ctx(struct ctx *c)
{
	free(c->fidx);
	free(c->ridx);
	c->fidx = c->ridx = NULL;
}

static uint64_t key_hash(int code, const char *res)
{
	return XXH3_64bits_withSeed(res, strlen(res), (uint64_t)code + 1);
}

/* Index item n (its key hash h) into *idx; grows it (rehashing every item
 * through hash_of) to keep it at most half full. 0 or -1 (out of memory). */
static int index_add(size_t **idx, size_t *mask, size_t n, uint64_t h,
		     uint64_t (*hash_of)(const struct ctx *, size_t), const struct ctx *c)
{
	if (!*idx || (n + 1) * 2 > *mask + 1) {
		size_t slots = *idx ? (*mask + 1) * 2 : 64, *t;
		if (slots > SIZE_MAX / 2 / sizeof(*t) || !(t = calloc(slots, sizeof(*t))))
			return -1;
		for (size_t i = 0; i < n; i++) {
			size_t s = (size_t)hash_of(c, i) & (slots - 1);
			while (t[s])
				s = (s + 1) & (slots - 1);
			t[s] = i + 1;
		}
		free(*idx);
		*idx = t;
		*mask = slots - 1;
	}
	for (size_t s = (size_t)h & *mask;; s = (s + 1) & *mask)
		if (!(*idx)[s]) {
			(*idx)[s] = n + 1;
			return 0;
		}
}

static uint64_t finding_hash(const struct ctx *c, size_t i)
{
	return key_hash((int)c->r->f[i].code, c->r->f[i].resource);
}

static uint64_t resource_hash(const struct ctx *c, size_t i)
{
	return key_hash(-1, c->r->res[i].resource);
}

static struct audit_finding *add_finding(struct ctx *c, enum audit_code code, const char *res)
{
	struct audit_result *r = c->r;
	struct audit_finding *f;
	char key[sizeof(f->resource)];
	uint64_t h;

	/* the key as stored (cut to the field) */
	snprintf(key, sizeof(key), "%s", res);
	h = key_hash((int)code, key);
	if (c->fidx)
		for (size_t s = (size_t)h & c->fmask, i; (i = c->fidx[s]); s = (s + 1) & c->fmask)
			if (r->f[i - 1].code == code && !strcmp(r->f[i - 1].resource, key))
				return &r->f[i - 1];
	if (util_grow((void **)&r->f, &c->fcap, r->nf + 1, sizeof(*r->f)) ||
	    index_add(&c->fidx, &c->fmask, r->nf, h, finding_hash, c))
		return NULL;
	f = &r->f[r->nf++];
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->from = INFINITY;
	f->to = -INFINITY;
	memcpy(f->resource, key, sizeof(key));
	return f;
}

static void span(struct audit_finding *f, double from, double to)
{
	if (from < f->from)
		f->from = from;
	if (to > f->to)
		f->to = to;
}

static struct audit_resource *resource_of(struct ctx *c, const char *res)
{
	struct audit_result *r = c->r;
	char key[sizeof(r->res[0].resource)];
	uint64_t h;

	snprintf(key, sizeof(key), "%s", res);
	h = key_hash(-1, key);
	if (c->ridx)
		for (size_t s = (size_t)h & c->rmask, i; (i = c->ridx[s]); s = (s + 1) & c->rmask)
			if (!strcmp(r->res[i - 1].resource, key))
				return &r->res[i - 1];
	if (util_grow((void **)&r->res, &c->rcap, r->nres + 1, sizeof(*r->res)) ||
	    index_add(&c->ridx, &c->rmask, r->nres, h, resource_hash, c))
		return NULL;
	memset(&r->res[r->nres], 0, sizeof(r->res[0]));
	memcpy(r->res[r->nres].resource, key, sizeof(key));
	return &r->res[r->nres++];
}

/* qsort() has no context argument: the items being ordered (one audit at a time) */
static _Thread_local const struct bill_item *sort_items;

static int by_item_start(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_items[x].start != sort_items[y].start)
		return sort_items[x].start < sort_items[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_amount(const void *a, const void *b)
{
	const struct audit_finding *x = a, *y = b;

	if (x->amount != y->amount)
		return x->amount < y->amount ? 1 : -1;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return strcmp(x->resource, y->resource);
}

static int by_total(const void *a, const void *b)
{
	const struct audit_resource *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->resource, y->resource);
}

static bool overlaps(const struct audit_run *ru, double s, double e)
{
	double end = isnan(ru->end) ? INFINITY : ru->end;

	if (e <= s)
		return ru->start <= s && s <= end;
	return ru->start < e && end > s;
}

/* ---- which run a line is (docs/bill.md "Which run a line is") ---- */

static bool word_char(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* w (non-empty) appears in s, ignoring ASCII case, not inside a longer word */
static bool has_word(const char *s, const char *w)
{
	size_t wl = strlen(w);

	if (!wl)
		return false;
	for (const char *p = s; *p; p++)
		if (!strncasecmp(p, w, wl) && (p == s || !word_char(p[-1]) || !word_char(w[0])) &&
		    (!p[wl] || !word_char(p[wl]) || !word_char(w[wl - 1])))
			return true;
	return false;
}

/* the line's resource id carries the run's host */
static bool host_match(const struct audit_run *ru, const struct bill_item *it)
{
	return ru->host[0] && it->resource[0] && has_word(it->resource, ru->host);
}

/* The model of the run's GPU ("A100-80GB": "a100") named in the line's text */
static bool gpu_named(const struct audit_run *ru, const struct bill_item *it)
{
	char m[sizeof(ru->gpu)];
	size_t k = 0;

	while (k + 1 < sizeof(m) && word_char(ru->gpu[k])) {
		m[k] = ru->gpu[k];
		k++;
	}
	m[k] = '\0';
	return k && (has_word(it->item, m) || has_word(it->service, m) || has_word(it->resource, m));
}

struct match {
	const struct audit_run *runs;
	size_t nruns;
	const struct bill_item *items;
	bool *carried;      /* per run: some GPU line carries its host */
	bool *owned;        /* per line: some run's host is carried by it */
	const char **bound; /* per run: the resource of the lines it was given, by time */
	size_t *assign;     /* per line: the run it counts against; SIZE_MAX none */
};

/* run k may be on the box of line i */
static bool may_match(const struct match *m, size_t k, size_t i)
{
	return host_match(&m->runs[k], &m->items[i]) || (!m->carried[k] && !m->owned[i]);
}

/* ... and is not already given to another box by time */
static bool on_box(const struct match *m, size_t k, size_t i)
{
	const char *res = m->items[i].resource;

	if (!may_match(m, k, i))
		return false;
	return host_match(&m->runs[k], &m->items[i]) || !m->bound[k] || !res[0] ||
	       !strcmp(m->bound[k], res);
}

static double overlap_s(const struct audit_run *ru, const struct bill_item *it)
{
	double e = isnan(ru->end) ? it->end : ru->end;
	double lo = ru->start > it->start ? ru->start : it->start;
	double hi = e < it->end ? e : it->end;

	return hi > lo ? hi - lo : 0;
}

/* Give each GPU line (in cur) to one run: a run whose host it carries,
 * else one already given lines of its resource, else a free one; then the
 * run naming the line's GPU model, the longest overlap, the first run. */
static void match_lines(struct match *m, size_t n, const char *cur)
{
	for (size_t i = 0; i < n; i++) {
		m->owned[i] = false;
		m->assign[i] = SIZE_MAX;
	}
	for (size_t k = 0; k < m->nruns; k++) {
		m->carried[k] = false;
		m->bound[k] = NULL;
		for (size_t i = 0; i < n; i++)
			if (m->items[i].kind == BILL_GPU && !strcmp(m->items[i].currency, cur) &&
			    host_match(&m->runs[k], &m->items[i]))
				m->carried[k] = m->owned[i] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct bill_item *it = &m->items[i];
		size_t best = SIZE_MAX;
		int best_level = 0;
		bool best_gpu = false;
		double best_ov = 0;
		if (it->kind != BILL_GPU || strcmp(it->currency, cur))
			continue;
		for (size_t k = 0; k < m->nruns; k++) {
			const struct audit_run *ru = &m->runs[k];
			int level;
			bool g;
			double ov;
			if (!overlaps(ru, it->start, it->end) || !on_box(m, k, i))
				continue;
			level = host_match(ru, it) ? 0 : m->bound[k] ? 1 : 2;
			g = gpu_named(ru, it);
			ov = overlap_s(ru, it);
			if (best == SIZE_MAX || level < best_level ||
			    (level == best_level && ((g && !best_gpu) || (g == best_gpu && ov > best_ov)))) {
				best = k;
				best_level = level;
				best_gpu = g;
				best_ov = ov;
			}
		}
		m->assign[i] = best;
		if (best != SIZE_MAX && !m->bound[best] && it->resource[0] && !host_match(&m->runs[best], it))
			m->bound[best] = it->resource;
	}
}

static int by_start(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Seconds of line i inside the union of the runs on its box; iv holds
 * 2 x nruns doubles */
static double used_by_runs(const struct match *m, size_t i, double *iv)
{
	const struct bill_item *it = &m->items[i];
	size_t q = 0;
	double sum = 0, lo = 0, hi = 0;

	for (size_t k = 0; k < m->nruns; k++) {
		const struct audit_run *ru = &m->runs[k];
		double e = isnan(ru->end) ? it->end : ru->end;
		double a = ru->start > it->start ? ru->start : it->start;
		double b = e < it->end ? e : it->end;
		if (b > a && on_box(m, k, i)) {
			iv[2 * q] = a;
			iv[2 * q + 1] = b;
			q++;
		}
	}
	if (q)
		qsort(iv, q, 2 * sizeof(*iv), by_start);
	for (size_t j = 0; j < q; j++) {
		if (j && iv[2 * j] <= hi) {
			if (iv[2 * j + 1] > hi)
				hi = iv[2 * j + 1];
			continue;
		}
		sum += hi - lo;
		lo = iv[2 * j];
		hi = iv[2 * j + 1];
	}
	return sum + (hi - lo);
}

static void free_match(struct match *m, double *iv)
{
	free(m->owned);
	free(m->assign);
	free(m->carried);
	free((void *)m->bound);
	free(iv);
}

/* Add name to the list "a, b" in dst once; "..." when it does not fit */
static void add_name(char *dst, size_t n, const char *name)
{
	size_t len = strlen(dst), nl = strlen(name);
	const char *p = dst;

	if (!nl)
		return;
	while ((p = strstr(p, name))) {
		if ((p == dst || p[-1] == ' ') && (p[nl] == ',' || !p[nl]))
			return;
		p++;
	}
	if (len >= 3 && !strcmp(dst + len - 3, "..."))
		return;
	if (len + (len ? 2 : 0) + nl + 4 < n)
		snprintf(dst + len, n - len, "%s%s", len ? ", " : "", name);
	else if (len + 5 < n)
		snprintf(dst + len, n - len, "%s...", len ? ", " : "");
}

/* One audit under way: the bill, the runs, the period and what the split
 * found, shared by the finding kinds below. */
struct pass {
	const struct bill_item *items;
	size_t n;
	const struct audit_run *runs;
	size_t nruns;
	const struct audit_opts *o;
	struct audit_result *out;
	struct ctx *c;
	struct match *mt;
	double *iv;             /* 2 * nruns, used_by_runs()'s */
	double from, to;        /* the period */
	double last_gpu;        /* the end of the last GPU line, over the whole bill */
	double *tie_end;        /* per line: a storage line's box's last GPU end; NAN untied */
	bool has_gpu;           /* a GPU line in the period */
	size_t runs_in_period;
};

/* Line i of the bill, in the audit's currency, with a share of the period > 0 */
static bool in_period(const struct pass *p, size_t i)
{
	return !strcmp(p->items[i].currency, p->out->currency) && share(&p->items[i], p->from, p->to) > 0;
}

/* The period: as given, else the span of the bill's lines in the audit's
 * currency. 0, or -1 when it ends before it starts. */
static int audit_period(struct pass *p)
{
	const struct bill_item *items = p->items;
	double from = p->o->from, to = p->o->to;

	if (isnan(from) || isnan(to)) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < p->n; i++) {
			if (strcmp(items[i].currency, p->out->currency))
				continue;
			if (items[i].start < lo)
				lo = items[i].start;
			if (items[i].end > hi)
				hi = items[i].end;
		}
		/* a default --from never passes the --to given: a --to before
		 * the first line leaves the empty period [to, to)
		 * (bill-audit-inverted-period) */
		if (isnan(from))
			from = isfinite(lo) ? (!isnan(to) && lo > to ? to : lo) : (isnan(to) ? 0 : to);
		if (isnan(to))
			to = isfinite(hi) ? (hi > from ? hi : from + 1) : from + 1;
	}
	if (!(to >= from) || !isfinite(from) || !isfinite(to))
		return -1;
	p->from = p->out->from = from;
	p->to = p->out->to = to;
	return 0;
}

/* The split by kind and resource, the end of the last GPU line, the runs
 * in the period. 0, or -1 out of memory. */
static int split_lines(struct pass *p)
{
	struct audit_result *out = p->out;

	for (size_t i = 0; i < p->n; i++) {
		const struct bill_item *it = &p->items[i];
		struct audit_resource *res;
		double a;
		if (strcmp(it->currency, out->currency))
			continue;
		/* over the whole bill: the instance's end does not depend on the period */
		if (it->kind == BILL_GPU && it->end > p->last_gpu)
			p->last_gpu = it->end;
		if (!(share(it, p->from, p->to) > 0))
			continue;
		a = it->amount * share(it, p->from, p->to);
		out->lines++;
		out->by_kind[it->kind] += a;
		out->total += a;
		if (a > 0)
			out->gross += a;
		else
			out->credits += a;
		out->credits += it->credits * share(it, p->from, p->to);
		if (it->kind == BILL_GPU)
			p->has_gpu = true;
		if (!(res = resource_of(p->c, it->resource)))
			return -1;
		res->by_kind[it->kind] += a;
		res->total += a;
	}
	out->net = out->gross + out->credits;
	for (size_t k = 0; k < p->nruns; k++)
		if (overlaps(&p->runs[k], p->from, p->to))
			p->runs_in_period++;
	return 0;
}

/* rounding: GPU line i (share sh of the period) whose billed time
 * (quantity x unit) exceeds its own span, the session it billed. 0, or -1
 * out of memory. */
static int find_rounding(struct pass *p, size_t i, double sh)
{
	const struct bill_item *it = &p->items[i];
	double unit_s = bill_unit_seconds(it->unit), billed, used;
	struct audit_finding *f;

	if (it->kind != BILL_GPU || !(unit_s > 0) || !(it->end > it->start) || !(it->quantity > 0))
		return 0;
	billed = it->quantity * unit_s;
	used = it->end - it->start;
	/* a line that sums a day (Azure) or an hour: the time used is
	 * the ledger's runs inside it, when there are any */
	if (billed <= used + 0.5 && p->runs_in_period) {
		double in_runs = used_by_runs(p->mt, i, p->iv);
		if (in_runs > 0)
			used = in_runs;
	}
	if (!(billed > used + 0.5))
		return 0;
	if (!(f = add_finding(p->c, AUDIT_ROUNDING, it->resource)))
		return -1;
	f->amount += it->amount * sh * (billed - used) / billed;
	f->billed += billed / 3600.0;
	f->used += used / 3600.0;
	f->count++;
	span(f, it->start, it->end);
	return 0;
}

/* unguarded-gpu: GPU line i no run overlaps, once the ledger has runs in
 * the period. 0, or -1 out of memory. */
static int find_unguarded(struct pass *p, size_t i, double sh)
{
	const struct bill_item *it = &p->items[i];
	struct audit_finding *f;
	bool seen = false;

	if (it->kind != BILL_GPU || !p->runs_in_period)
		return 0;
	for (size_t k = 0; k < p->nruns && !seen; k++)
		seen = overlaps(&p->runs[k], it->start, it->end) && may_match(p->mt, k, i);
	if (seen)
		return 0;
	if (!(f = add_finding(p->c, AUDIT_UNGUARDED_GPU, it->resource)))
		return -1;
	f->amount += it->amount * sh;
	f->billed += it->amount * sh;
	f->count++;
	span(f, it->start, it->end);
	return 0;
}

/* stopped-not-released: IP lines after the last GPU line (ip_after, with
 * the storage_after beside them) mean a stopped box, named after every
 * resource it covers, in the bill's order. 0, or -1 out of memory. */
static int find_stopped(struct pass *p, double ip_after, double storage_after)
{
	struct audit_finding *f;

	if (!(f = add_finding(p->c, AUDIT_STOPPED_NOT_RELEASED, "")))
		return -1;
	f->amount = ip_after + storage_after;
	f->billed = ip_after;
	f->used = storage_after;
	for (size_t i = 0; i < p->n; i++) {
		const struct bill_item *it = &p->items[i];
		if (!strcmp(it->currency, p->out->currency) && it->start >= p->last_gpu &&
		    (it->kind == BILL_IP || (it->kind == BILL_STORAGE && isnan(p->tie_end[i]))) &&
		    share(it, p->from, p->to) > 0) {
			f->count++;
			span(f, it->start, it->end);
			add_name(f->resource, sizeof(f->resource), it->resource);
		}
	}
	return 0;
}

/* storage-outlived: storage line i (share sh) billed after the end of
 * bound, the last GPU line of its box (a tied disk) or of the bill. 0, or
 * -1 out of memory. */
static int storage_outlived(struct pass *p, size_t i, double sh, double bound)
{
	const struct bill_item *it = &p->items[i];
	struct audit_finding *f;

	if (!(f = add_finding(p->c, AUDIT_STORAGE_OUTLIVED, it->resource)))
		return -1;
	f->amount += it->amount * sh;
	f->count++;
	f->used = bound;
	span(f, it->start, it->end);
	return 0;
}

/* storage-outlived: untied storage lines alone after the last GPU line, a
 * disk that outlived the box (whole lines only). 0, or -1 out of memory. */
static int find_storage_outlived(struct pass *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct bill_item *it = &p->items[i];
		double sh;
		if (strcmp(it->currency, p->out->currency) || it->kind != BILL_STORAGE ||
		    !isnan(p->tie_end[i]) || it->start < p->last_gpu ||
		    !((sh = share(it, p->from, p->to)) > 0))
			continue;
		if (storage_outlived(p, i, sh, p->last_gpu))
			return -1;
	}
	return 0;
}

/* The findings of the bill's lines, one by one: rounding and
 * unguarded-gpu, then what stayed after the last GPU line. 0, or -1 out
 * of memory. */
static int find_by_line(struct pass *p)
{
	double ip_after = 0, storage_after = 0;
	size_t ip_lines = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct bill_item *it = &p->items[i];
		double sh;
		if (strcmp(it->currency, p->out->currency) || !((sh = share(it, p->from, p->to)) > 0))
			continue;
		if (find_rounding(p, i, sh))
			return -1;
		/* a disk tied to its box, billed after the box's last GPU line,
		 * outlived it, whatever other boxes still run */
		if (it->kind == BILL_STORAGE && !isnan(p->tie_end[i])) {
			if (it->start >= p->tie_end[i] && storage_outlived(p, i, sh, p->tie_end[i]))
				return -1;
			continue;
		}
		/* after the last GPU line: IP lines mean a stopped box, storage
		 * lines alone a disk that outlived it (whole lines only) */
		if (isfinite(p->last_gpu) && it->start >= p->last_gpu) {
			if (it->kind == BILL_IP) {
				ip_after += it->amount * sh;
				ip_lines++;
			} else if (it->kind == BILL_STORAGE) {
				storage_after += it->amount * sh;
			}
		}
		if (find_unguarded(p, i, sh))
			return -1;
	}
	if (ip_lines)
		return find_stopped(p, ip_after, storage_after);
	if (storage_after > 0)
		return find_storage_outlived(p);
	return 0;
}

/* egress-over-gpu: egress above the GPU time it served. 0, or -1 out of memory. */
static int find_egress(struct pass *p)
{
	struct audit_result *out = p->out;
	struct audit_finding *f;

	/* a bill with no GPU line has no GPU time to compare with */
	if (!p->has_gpu || !(out->by_kind[BILL_EGRESS] > out->by_kind[BILL_GPU] && out->by_kind[BILL_EGRESS] > 0))
		return 0;
	if (!(f = add_finding(p->c, AUDIT_EGRESS_OVER_GPU, "")))
		return -1;
	f->amount = out->by_kind[BILL_EGRESS] - out->by_kind[BILL_GPU];
	f->billed = out->by_kind[BILL_EGRESS];
	f->used = out->by_kind[BILL_GPU];
	for (size_t i = 0; i < p->n; i++)
		if (in_period(p, i) && p->items[i].kind == BILL_EGRESS) {
			f->count++;
			span(f, p->items[i].start, p->items[i].end);
		}
	return 0;
}

/* The end of the time line it bills: its start + quantity x unit when
 * that is shorter than its span (CUR's hour line of 0.25 Hrs), else its end */
static double billed_end(const struct bill_item *it)
{
	double u = bill_unit_seconds(it->unit), e;

	if (!(u > 0) || !(it->quantity > 0))
		return it->end;
	e = it->start + it->quantity * u;
	return e < it->end ? e : it->end;
}

/* run-cost-mismatch: runs whose ledger cost differs from the GPU lines
 * over their time. 0, or -1 out of memory. */
static int find_run_costs(struct pass *p)
{
	struct audit_finding *f;

	for (size_t k = 0; k < p->nruns; k++) {
		const struct audit_run *ru = &p->runs[k];
		double billed = 0, diff;
		size_t lines = 0;
		char name[32];
		if (isnan(ru->cost) || isnan(ru->end) || strcmp(ru->currency, p->out->currency) ||
		    !overlaps(ru, p->from, p->to))
			continue;
		for (size_t i = 0; i < p->n; i++) {
			const struct bill_item *it = &p->items[i];
			double sh;
			/* the lines given to this run (one run a line, match_lines()) */
			if (p->mt->assign[i] != k)
				continue;
			/* only lines inside the run's time: a daily line is not one
			 * run's; an hour's line that bills part of it (0.25 Hrs)
			 * ends, for this, where the time it billed ends */
			if (it->start >= ru->start - 1 && billed_end(it) <= ru->end + 1 &&
			    (sh = share(it, ru->start, ru->end)) > 0) {
				billed += it->amount * (billed_end(it) < it->end ? 1.0 : sh);
				lines++;
			}
		}
		diff = billed - ru->cost;
		/* the bill's cent and 1 % of the cost are noise */
		if (!lines || fabs(diff) <= 0.01 || fabs(diff) <= 0.01 * fabs(ru->cost))
			continue;
		snprintf(name, sizeof(name), "run %lld", (long long)ru->id);
		if (!(f = add_finding(p->c, AUDIT_RUN_COST_MISMATCH, name)))
			return -1;
		f->amount = fabs(diff);
		f->billed = billed;
		f->used = ru->cost;
		f->count = lines;
		span(f, ru->start, ru->end);
	}
	return 0;
}

/* over-budget: spend after the budget was used up (the start of the line
 * that crossed it; NAN none). 0, or -1 out of memory. */
static int budget_crossed(const struct pass *p, double *cross)
{
	const struct bill_item *items = p->items;
	double cum = 0;
	size_t *order = NULL, m = 0;

	*cross = NAN;
	if (p->n && !(order = malloc(p->n * sizeof(*order))))
		return -1;
	for (size_t i = 0; i < p->n; i++)
		if (in_period(p, i))
			order[m++] = i;
	/* by start, then position: a bill newest first was quadratic in an insertion sort */
	sort_items = items;
	if (m)
		qsort(order, m, sizeof(*order), by_item_start);
	for (size_t i = 0; i < m && isnan(*cross); i++) {
		cum += items[order[i]].amount * share(&items[order[i]], p->from, p->to);
		if (cum > p->o->budget)
			*cross = items[order[i]].start;
	}
	free(order);
	return 0;
}

/* The budget: over-budget, and balance-runout, the day it runs out at the
 * period's mean rate. 0, or -1 out of memory. */
static int find_budget(struct pass *p)
{
	const struct audit_result *out = p->out;
	double budget = p->o->budget, cross, rate, runout;
	struct audit_finding *f;

	if (!isfinite(budget) || !(out->total > 0))
		return 0;
	if (budget_crossed(p, &cross))
		return -1;
	if (!isnan(cross)) {
		if (!(f = add_finding(p->c, AUDIT_OVER_BUDGET, "")))
			return -1;
		f->amount = out->total - budget;
		f->billed = out->total;
		f->used = budget;
		f->from = cross;
		f->to = p->to;
		f->count = 1;
	}
	rate = out->total / (p->to - p->from);
	if (!(f = add_finding(p->c, AUDIT_BALANCE_RUNOUT, "")))
		return -1;
	f->amount = 0;
	f->billed = out->total;
	f->used = budget;
	/* bounded: a balance that lasts past AUDIT_RUNOUT_MAX_S (or a rate
	 * too small to divide by) has count 0 and that day */
	runout = budget / rate;
	if (isfinite(runout) && runout <= AUDIT_RUNOUT_MAX_S) {
		f->from = f->to = p->from + (runout > 0 ? runout : 0);
		f->count = 1;
	} else {
		f->from = f->to = p->from + AUDIT_RUNOUT_MAX_S;
		f->count = 0;
	}
	return 0;
}

/* Credits (negative lines) can leave nothing at stake, and a bill of
 * fractions of a cent next to nothing: no finding then;
 * the findings by amount, the resources by total. */
static void drop_and_sort(struct audit_result *out)
{
	for (size_t i = 0, k = 0, n0 = out->nf; i < n0; i++) {
		/* at stake is what prints as at least 0.01: a finding never
		 * says 0.00 (nor compares 0.00 with 0.00) */
		if (out->f[i].amount >= 0.005 || out->f[i].code == AUDIT_BALANCE_RUNOUT)
			out->f[k++] = out->f[i];
		if (i + 1 == n0)
			out->nf = k;
	}
	if (out->nf)
		qsort(out->f, out->nf, sizeof(*out->f), by_amount);
	if (out->nres)
		qsort(out->res, out->nres, sizeof(*out->res), by_total);
}

/* ---- which box a disk is (docs/bill.md "Which box a disk is") ---- */

/* Above this many GPU boxes in one currency the disks are not tied (the
 * bill's own last GPU line bounds them all): a tie compares every disk line
 * with every box. */
#define AUDIT_TIE_MAX_BOXES 1000

static int by_resource(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_items[x].resource, sort_items[y].resource);

	return c ? c : (x < y ? -1 : x > y);
}

static int by_disk(const void *a, const void *b)
{
	const struct bill_item *x = &sort_items[*(const size_t *)a], *y = &sort_items[*(const size_t *)b];
	int c = strcmp(x->resource, y->resource);

	if (!c)
		c = strcmp(x->tags, y->tags);
	if (!c)
		c = strcmp(x->item, y->item);
	return c ? c : (x < y ? -1 : x > y);
}

/* name (at least 3 bytes) appears as a word in the disk line's resource,
 * tags or item */
static bool names_disk(const char *name, size_t len, const struct bill_item *d)
{
	char w[BILL_TEXT_MAX];

	if (len < 3 || len >= sizeof(w))
		return false;
	memcpy(w, name, len);
	w[len] = '\0';
	return has_word(d->resource, w) || has_word(d->tags, w) || has_word(d->item, w);
}

/* GPU line g (a box) names disk line d: its resource id, the id's last
 * part (after '/' or ':'), or a tag of its whose key holds "name"
 * ("name=box-1;", resource_tags_user_name=...) */
static bool box_names(const struct bill_item *g, const struct bill_item *d)
{
	const char *r = g->resource, *last = r, *t;

	for (const char *q = r; *q; q++)
		if ((*q == '/' || *q == ':') && q[1])
			last = q + 1;
	if (names_disk(r, strlen(r), d) || (last != r && names_disk(last, strlen(last), d)))
		return true;
	for (t = g->tags; *t;) {
		const char *eq = strchr(t, '='), *end = strchr(t, ';');
		size_t klen;
		if (!eq || !end || eq > end)
			break;
		klen = (size_t)(eq - t);
		for (size_t k = 0; k + 4 <= klen; k++)
			if (!strncasecmp(t + k, "name", 4)) {
				if (names_disk(eq + 1, (size_t)(end - eq - 1), d))
					return true;
				break;
			}
		t = end + 1;
	}
	return false;
}

/* Per storage line, the last GPU end of the boxes that name it (NAN none).
 * 0, or -1 out of memory. */
static int tie_disks(struct pass *p)
{
	const struct bill_item *it = p->items;
	const char *cur = p->out->currency;
	size_t *order = NULL, m = 0, *box = NULL, nbox = 0;
	double *box_end = NULL;
	bool any_disk = false;

	if (p->n && !(p->tie_end = malloc(p->n * sizeof(*p->tie_end))))
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		p->tie_end[i] = NAN;
		any_disk |= it[i].kind == BILL_STORAGE && !strcmp(it[i].currency, cur);
	}
	if (!any_disk)
		return 0;
	if (!(order = malloc(p->n * sizeof(*order))))
		return -1;
	for (size_t i = 0; i < p->n; i++)
		if (it[i].kind == BILL_GPU && it[i].resource[0] && !strcmp(it[i].currency, cur))
			order[m++] = i;
	sort_items = it;
	if (m)
		qsort(order, m, sizeof(*order), by_resource);
	/* the boxes: one GPU line each (its first), and their last end */
	if (m && (!(box = malloc(m * sizeof(*box))) || !(box_end = malloc(m * sizeof(*box_end))))) {
		free(order);
		free(box);
		return -1;
	}
	for (size_t j = 0; j < m; j++) {
		if (!j || strcmp(it[order[j]].resource, it[box[nbox - 1]].resource)) {
			box[nbox] = order[j];
			box_end[nbox++] = it[order[j]].end;
		} else if (it[order[j]].end > box_end[nbox - 1]) {
			box_end[nbox - 1] = it[order[j]].end;
		}
	}
	/* the disks: their lines by resource, tags and item, each distinct
	 * one compared with the boxes once (a disk is billed by the hour) */
	m = 0;
	for (size_t i = 0; nbox <= AUDIT_TIE_MAX_BOXES && i < p->n; i++)
		if (it[i].kind == BILL_STORAGE && !strcmp(it[i].currency, cur))
			order[m++] = i;
	if (m)
		qsort(order, m, sizeof(*order), by_disk);
	for (size_t j = 0; j < m; j++) {
		size_t i = order[j];
		const struct bill_item *prev = j ? &it[order[j - 1]] : NULL;
		if (prev && !strcmp(prev->resource, it[i].resource) && !strcmp(prev->tags, it[i].tags) &&
		    !strcmp(prev->item, it[i].item)) {
			p->tie_end[i] = p->tie_end[order[j - 1]];
			continue;
		}
		for (size_t b = 0; b < nbox; b++)
			if (strcmp(it[box[b]].resource, it[i].resource) && box_names(&it[box[b]], &it[i]) &&
			    (isnan(p->tie_end[i]) || box_end[b] > p->tie_end[i]))
				p->tie_end[i] = box_end[b];
	}
	free(order);
	free(box);
	free(box_end);
	return 0;
}

int audit_bill(const struct bill_item *items, size_t n, const struct audit_run *runs,
	       size_t nruns, const struct audit_opts *o, struct audit_result *out,
	       char *err, size_t errlen)
{
	struct ctx c = {.r = out};
	struct match mt = {.runs = runs, .nruns = nruns, .items = items};
	struct pass p = {.items = items, .n = n, .runs = runs, .nruns = nruns, .o = o, .out = out,
			 .c = &c, .mt = &mt, .last_gpu = -INFINITY};

	memset(out, 0, sizeof(*out));
	if ((n && (!(mt.owned = calloc(n, sizeof(*mt.owned))) || !(mt.assign = calloc(n, sizeof(*mt.assign))))) ||
	    (nruns && (!(mt.carried = calloc(nruns, sizeof(*mt.carried))) ||
		       !(mt.bound = calloc(nruns, sizeof(*mt.bound))) ||
		       !(p.iv = calloc(2 * nruns, sizeof(*p.iv))))))
		goto out_nomem;
	snprintf(out->currency, sizeof(out->currency), "%s", o->currency ? o->currency : "");
	if (audit_period(&p)) {
		snprintf(err, errlen, _("period: expected its end after its start"));
		free_match(&mt, p.iv);
		free_ctx(&c);
		return -1;
	}
	match_lines(&mt, n, out->currency);
	if (tie_disks(&p) || split_lines(&p) || find_by_line(&p) || find_egress(&p) || find_run_costs(&p) || find_budget(&p))
		goto out_nomem;
	drop_and_sort(out);
	free(p.tie_end);
	free_match(&mt, p.iv);
	free_ctx(&c);
	return 0;
out_nomem:
	snprintf(err, errlen, _("out of memory"));
	free(p.tie_end);
	free_match(&mt, p.iv);
	free_ctx(&c);
	audit_result_free(out);
	return -1;
}
