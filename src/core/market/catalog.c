/*
 * catalog.c - loading price catalogs into offers (catalog.h). One pass
 * over the buffer with no per-field allocation: fields are pointers into
 * the caller's buffer (csv.h's csv_scan_record(), the one CSV tokenizer), GPU names resolve through a small cache, exact
 * duplicate rows are found by hashing the raw record.
 * This file: the offer set and its arena, the helpers both readers share
 * (numbers, bad rows, strings, the duplicate table) and catalog_load(),
 * which reads the header and hands the rows to catalog_sky.c or
 * catalog_own.c; GPU names resolve in catalog_gpu.c.
 */
#include "core/market/catalog.h"

#include <math.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/market/catalog_int.h"
#include "core/market/provider.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "base/i18n.h"

#define ARENA_CHUNK (64 * 1024)

/* ---- small helpers ---- */

const char *supply_type_name(enum supply_type t)
{
	static const char *const n[] = {"hyperscaler", "ai-cloud", "campus-hpc", "serverless",
					"marketplace", "unknown"};
	return (unsigned)t < SUPPLY_COUNT ? n[t] : "unknown";
}

int supply_type_parse(const char *s, size_t len)
{
	for (int i = 0; i < SUPPLY_COUNT - 1; i++)
		if (strlen(supply_type_name(i)) == len && !memcmp(s, supply_type_name(i), len))
			return i;
	return -1;
}

bool cat_str_eq_ci(const struct cat_str *s, const char *want)
{
	size_t n = strlen(want);

	return n && n == s->len && !strncasecmp(s->p, want, n);
}

double offer_price_per_gpu(const struct offer *o)
{
	return o->gpus > 0 ? o->price / o->gpus : o->price;
}

double offer_spot_per_gpu(const struct offer *o)
{
	return o->spot_price <= 0 ? 0 : o->gpus > 0 ? o->spot_price / o->gpus : o->spot_price;
}

double offer_rank_per_gpu(const struct offer *o)
{
	return o->spot_only ? offer_spot_per_gpu(o) : offer_price_per_gpu(o);
}

double catalog_gpuinfo_per_gpu(const char *provider, double size_mib, double count, bool *divided)
{
	/* SkyPilot's GpuInfo copies AWS's DescribeInstanceTypes GpuInfo, where
	 * MemoryInfo.SizeInMiB is one GPU's and TotalGpuMemoryInMiB the sum;
	 * the providers of quirk PROV_GPUINFO_TOTAL (core/market/provider.c)
	 * put the instance total in SizeInMiB instead. TotalGpuMemoryInMiB
	 * cannot tell them apart (primeintellect states Count x the total,
	 * lambda the one GPU's figure): the provider decides. */
	*divided = false;
	if (!(count > 1) || !(size_mib > 0))
		return size_mib;
	if (provider_has_quirk(provider, PROV_GPUINFO_TOTAL)) {
		*divided = true;
		return size_mib / count;
	}
	return size_mib;
}

int catalog_parse_number(const char *s, size_t len, double *out)
{
	size_t i = 0;
	double v = 0;
	bool neg = false, digits = false;
	char tmp[64], *end;

	while (i < len && s[i] == ' ')
		i++;
	while (len > i && s[len - 1] == ' ')
		len--;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (s[i] - '0');
		digits = true;
	}
	if (i < len && s[i] == '.') {
		double scale = 0.1;
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			v += (s[i] - '0') * scale;
			scale *= 0.1;
			digits = true;
		}
	}
	if (i == len && digits) {
		if (!isfinite(v))
			return -1;
		*out = neg ? -v : v;
		return 0;
	}
	/* exponents: the slow, exact path; strtod would also take hex, inf
	 * and nan, which no catalog number is */
	if (len >= sizeof(tmp) || !len)
		return -1;
	memcpy(tmp, s, len);   /* s is not terminated: look only at the copy */
	tmp[len] = '\0';
	if (strspn(tmp + i, "0123456789.eE+-") < len - i)
		return -1;
	v = strtod(tmp, &end);
	while (*end == ' ')
		end++;
	if (end == tmp || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

char *arena_alloc(struct offer_set *s, size_t n)
{
	static const size_t hdr = sizeof(size_t);
	char *chunk;
	size_t *used;

	if (s->narena) {
		chunk = s->arena[s->narena - 1];
		used = (size_t *)(void *)chunk;
		if (*used + n <= ARENA_CHUNK) {
			char *p = chunk + hdr + *used;
			*used += n;
			return p;
		}
	}
	{
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		char **na = realloc(s->arena, (s->narena + 1) * sizeof(*na));
		if (!na)
			return NULL;
		s->arena = na;
		chunk = malloc(hdr + size);
		if (!chunk)
			return NULL;
		s->arena[s->narena++] = chunk;
		used = (size_t *)(void *)chunk;
		*used = n > ARENA_CHUNK ? size : n;
		return chunk + hdr;
	}
}

void offer_set_init(struct offer_set *s)
{
	memset(s, 0, sizeof(*s));
}

void offer_set_free(struct offer_set *s)
{
	free(s->peers);
	free(s->peer_stats);
	free(s->v);
	free(s->reports);
	for (size_t i = 0; i < s->narena; i++)
		free(s->arena[i]);
	free(s->arena);
	memset(s, 0, sizeof(*s));
}


/* ---- duplicate detection ---- */


/*
 * true when a record with fingerprint h was seen before; otherwise records
 * it with `code` in the low 8 bits (what the row counted as, so that a
 * second loader can undo the count: see merge_second_half()). Fingerprints
 * are compared on their upper 56 bits.
 */
bool seen_hash(struct loader *ld, uint64_t h, uint64_t code)
{
	if (ld->seen_n * 2 >= ld->seen_cap) {
		size_t ncap = ld->seen_cap ? ld->seen_cap * 2 : 4096;
		uint64_t *nt = calloc(ncap, sizeof(*nt));
		if (!nt)
			return false;  /* out of memory: count nothing as a duplicate */
		for (size_t i = 0; i < ld->seen_cap; i++) {
			uint64_t v = ld->seen[i];
			if (!v)
				continue;
			for (size_t j = slot_of(v, ncap);; j = (j + 1) & (ncap - 1))
				if (!nt[j]) {
					nt[j] = v;
					break;
				}
		}
		free(ld->seen);
		ld->seen = nt;
		ld->seen_cap = ncap;
	}
	for (size_t j = slot_of(h, ld->seen_cap);; j = (j + 1) & (ld->seen_cap - 1)) {
		if ((ld->seen[j] & FP_MASK) == (h & FP_MASK) && ld->seen[j])
			return true;
		if (!ld->seen[j]) {
			ld->seen[j] = (h & FP_MASK) | code;
			ld->seen_n++;
			return false;
		}
	}
}

/* A zeroed table whose pages are already written: calloc's untouched pages
 * would first map the shared zero page on our reads (the prefetches) and
 * then copy on the first write, flushing TLBs on every CPU the process
 * runs on - a heavy tax once a second thread exists. */
#define HUGE_PAGE ((size_t)2 << 20)

uint64_t *table_alloc(size_t cap)
{
	uint64_t *t = NULL;
	size_t bytes = cap * sizeof(*t);

	/* A large table on 2 MiB pages where the kernel gives them (THP in
	 * "madvise" mode, Debian's default): each row's probe lands on a
	 * random slot, and with 4 KiB pages nearly every probe of a 16 MiB
	 * table also misses the TLB. */
	if (bytes >= HUGE_PAGE && !posix_memalign((void **)&t, HUGE_PAGE, bytes)) {
#ifdef MADV_HUGEPAGE
		(void)madvise(t, bytes, MADV_HUGEPAGE);
#endif
		memset(t, 0, bytes);
		return t;
	}
	t = calloc(cap, sizeof(*t));
	/* one write per page (volatile: the compiler must not drop it) */
	for (size_t i = 0; t && i < cap; i += 512)
		((volatile uint64_t *)t)[i] = 0;
	return t;
}

size_t table_cap_for(size_t bytes)
{
	size_t cap = 4096;

	while (cap < bytes / 96 * 2)   /* SkyPilot rows run 60-200 bytes: load <= ~0.5 */
		cap *= 2;
	return cap;
}

/* ---- rows ---- */

void bad(struct loader *ld, uint32_t line, const char *field, const char *what,
		const struct csv_field *f)
{
	char rest[400];

	ld->rep->bad_rows++;
	if (!ld->o->bad_row)
		return;
	if (f) {
		char q[QUOTE_KEEP * 4 + 8];
		snprintf(rest, sizeof(rest), _("%s: %s, got '%s'"), field, what,
			 quote_value_n(f->p, f->len, q, sizeof(q)));
	} else
		snprintf(rest, sizeof(rest), "%s: %s", field, what);
	if (ld->second) {
		char **nm = realloc(ld->msgs, (ld->nmsgs + 1) * sizeof(*nm));
		uint32_t *nl = realloc(ld->msg_lines, (ld->nmsgs + 1) * sizeof(*nl));
		if (nm)
			ld->msgs = nm;
		if (nl)
			ld->msg_lines = nl;
		if (nm && nl && (nm[ld->nmsgs] = strdup(rest)))
			nl[ld->nmsgs++] = line;
		return;
	}
	snprintf(ld->msg, sizeof(ld->msg), "%s:%u: %s", ld->fname, line, rest);
	ld->o->bad_row(ld->o->bad_ctx, ld->msg);
}

struct cat_str str_of(struct loader *ld, const struct csv_field *f)
{
	struct cat_str s = {f->p, f->len};
	char *copy;
	uint32_t k = 0;

	if (!f->quoted_escapes)
		return s;
	copy = arena_alloc(ld->set, f->len);
	if (!copy)
		return s;
	for (uint32_t i = 0; i < f->len; i++) {
		copy[k++] = f->p[i];
		if (f->p[i] == '"' && i + 1 < f->len && f->p[i + 1] == '"')
			i++;
	}
	s.p = copy;
	s.len = k;
	return s;
}

/* Record o's per-GPU price among its GPU's peers (offer_set_mark_outliers).
 * 0, or -1 out of memory. */
static int add_peer(struct loader *ld, const struct offer *o)
{
	struct offer_set *s = ld->set;
	struct offer_peer *pe;

	if (!o->gpu || o->is_slice || o->supply == SUPPLY_CAMPUS_HPC || !(o->price > 0) || !(o->gpus > 0))
		return 0;
	if (s->npeers == s->peers_cap) {
		size_t ncap = s->peers_cap ? s->peers_cap * 2 : 256;
		struct offer_peer *np = realloc(s->peers, ncap * sizeof(*np));
		if (!np)
			return -1;
		s->peers = np;
		if (ld->second) {
			uint64_t *nf = realloc(ld->peer_fp, ncap * sizeof(*nf));
			if (!nf)
				return -1;
			ld->peer_fp = nf;
		}
		s->peers_cap = ncap;
	}
	if (o->provider.p != ld->peer_prov || o->provider.len != ld->peer_prov_len || !ld->peer_prov) {
		ld->peer_prov = o->provider.p;
		ld->peer_prov_len = o->provider.len;
		ld->peer_hash = (uint32_t)XXH3_64bits(o->provider.p ? o->provider.p : "", o->provider.len);
	}
	if (ld->second)
		ld->peer_fp[s->npeers] = o->fp;
	pe = &s->peers[s->npeers++];
	pe->gpu = o->gpu;
	pe->price = (float)(o->price / o->gpus);
	pe->provider = ld->peer_hash;
	return 0;
}

void spot_at_or_above(struct loader *ld, struct offer *o, double spot)
{
	ld->rep->spot_above_price++;
	if (ld->o->trust_catalog) {
		o->spot_price = 0;
		o->suspect = OFFER_PRICE_OK;
	} else {
		o->spot_price = spot;
		o->suspect = OFFER_SPOT_AT_OR_ABOVE;
	}
}

int push(struct loader *ld, const struct offer *o)
{
	struct offer_set *s = ld->set;

	if (add_peer(ld, o))
		return -1;
	if (ld->second ? !ld->o->match(ld->o->ctx, o) : ld->o->keep && !ld->o->keep(ld->o->ctx, o)) {
		ld->rep->loaded++;
		return 0;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct offer *nv = realloc(s->v, ncap * sizeof(*nv));
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = *o;
	ld->rep->loaded++;
	return 0;
}

void note_unknown(struct loader *ld, const struct csv_field *name)
{
	char *u = ld->rep->unknown_names;
	size_t used = strlen(u);
	char nm[64];

	ld->rep->unknown_gpu++;
	snprintf(nm, sizeof(nm), "%.*s", (int)(name->len > 40 ? 40 : name->len), name->p);
	if (strstr(u, nm))
		return;
	if (used + strlen(nm) + 3 < sizeof(ld->rep->unknown_names))
		snprintf(u + used, sizeof(ld->rep->unknown_names) - used, "%s%s", used ? ", " : "", nm);
}

int catalog_load(struct offer_set *s, const char *buf, size_t len, bool keep_copy,
		 const char *fname, const struct catalog_opts *opts,
		 char *err, size_t errlen)
{
	static const char *const sky[SK_N] = {"InstanceType", "AcceleratorName", "AcceleratorCount",
					      "vCPUs", "MemoryGiB", "Price", "SpotPrice", "Region",
					      "GpuInfo", "AvailabilityZone"};
	struct loader *ld;
	struct csv_field hf[MAX_FIELDS];
	struct catalog_report *nr;
	size_t pos = 0, line = 1, rec_len;
	const char *rec;
	int nh, col[OC_N], rc = -1;
	bool own;

	if (keep_copy) {
		char *copy = arena_alloc(s, len + 1);
		if (!copy) {
			snprintf(err, errlen, _("%s: out of memory"), fname);
			return -1;
		}
		memcpy(copy, buf, len);
		copy[len] = '\0';
		buf = copy;
	}
	if (len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		pos = 3;
	while (pos < len && buf[pos] == '#') {   /* comment lines before the header */
		while (pos < len && buf[pos] != '\n')
			pos++;
		if (pos < len) {
			pos++;
			line++;
		}
	}
	nh = csv_scan_record(buf, len, &pos, &line, hf, MAX_FIELDS, &rec, &rec_len);
	if (nh <= 1 || nh > MAX_FIELDS) {
		snprintf(err, errlen, _("%s:1: expected a CSV header (SkyPilot vms.csv or gpurent offers)"), fname);
		return -1;
	}
	{
		int i_type = -1;
		for (int i = 0; i < nh; i++)
			if (hf[i].len == 11 && !memcmp(hf[i].p, "supply_type", 11))
				i_type = i;
		own = i_type >= 0;
	}
	{
		int ncols = own ? OC_N : SK_N;
		const char *const *names = own ? own_cols : sky;
		for (int c = 0; c < ncols; c++) {
			col[c] = -1;
			for (int i = 0; i < nh; i++)
				if (hf[i].len == strlen(names[c]) && !memcmp(hf[i].p, names[c], hf[i].len))
					col[c] = i;
			if (col[c] < 0 && ((own && c < OC_REQUIRED) || c == SK_ACCEL || c == SK_COUNT || c == SK_PRICE)) {
				snprintf(err, errlen, _("%s:1: %s: required column missing from the header"),
					 fname, names[c]);
				return -1;
			}
		}
	}
	nr = realloc(s->reports, (s->nreports + 1) * sizeof(*nr));
	if (!nr) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	s->reports = nr;
	memset(&nr[s->nreports], 0, sizeof(*nr));
	snprintf(nr[s->nreports].path, sizeof(nr->path), "%s", fname);
	snprintf(nr[s->nreports].format, sizeof(nr->format), "%s", own ? "gpurent" : "skypilot");
	s->nreports++;

	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	ld->set = s;
	ld->o = opts;
	ld->rep = &s->reports[s->nreports - 1];
	ld->fname = fname;
	ld->families = calloc(opts->gpus->n ? opts->gpus->n : 1, sizeof(*ld->families));
	if (!ld->families) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		goto out_free;
	}
	for (size_t i = 0; i < opts->gpus->n; i++)
		names_family(opts->gpus->v[i].name, ld->families[i], sizeof(ld->families[i]));
	ld->file_index = (uint32_t)(s->nreports - 1);
	ld->gcp = !own && gcp_provider(opts->provider);
	/* size the duplicate table for the rows a catalog this long holds
	 * (records are rarely under 64 bytes), so it never grows mid-load */
	{
		/* GCP: one thread, as the join needs every host row first */
		bool two = !own && !ld->gcp && opts->match && opts->threads >= 2 && len - pos > (4u << 20);
		if (!two) {   /* two threads: each zeroes its own (load_skypilot_2) */
			size_t cap = table_cap_for(len);
			ld->seen = table_alloc(cap);
			ld->seen_cap = ld->seen ? cap : 0;
		}
		rc = own ? load_own(ld, buf, len, pos, line, col) :
		     two ? load_skypilot_2(ld, buf, len, pos, line, col) :
		     load_skypilot(ld, buf, len, pos, line, col);
		if (!rc && ld->gcp)
			rc = gcp_join(ld);
	}
	if (rc) {
		rc = -1;
		snprintf(err, errlen, _("%s: out of memory"), fname);
		goto out_free;
	}
	rc = 0;
out_free:
	gcp_free(ld);
	free(ld->families);
	free(ld->seen);
	free(ld);
	return rc;
}

/* ---- peers: how far an offer is from the others of its GPU ---- */

static int cmp_peer(const void *a, const void *b)
{
	const struct offer_peer *x = a, *y = b;
	uintptr_t gx = (uintptr_t)x->gpu, gy = (uintptr_t)y->gpu;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return (x->price > y->price) - (x->price < y->price);
}

static int cmp_stat_key(const void *key, const void *elem)
{
	uintptr_t g = (uintptr_t)key, e = (uintptr_t)((const struct offer_peer_stat *)elem)->gpu;

	return (g > e) - (g < e);
}

void offer_set_mark_outliers(struct offer_set *s)
{
	size_t ns = 0;

	free(s->peer_stats);
	s->peer_stats = NULL;
	s->npeer_stats = 0;
	if (!s->npeers)
		goto mark;
	qsort(s->peers, s->npeers, sizeof(*s->peers), cmp_peer);
	for (size_t i = 0; i < s->npeers; i++)
		ns += !i || s->peers[i].gpu != s->peers[i - 1].gpu;
	s->peer_stats = calloc(ns, sizeof(*s->peer_stats));
	if (!s->peer_stats)
		goto mark;   /* out of memory: no ratios (0 = not computed) */
	for (size_t i = 0, k = 0; i < s->npeers; k++) {
		size_t j = i, n;
		bool two = false;
		while (j < s->npeers && s->peers[j].gpu == s->peers[i].gpu) {
			two |= s->peers[j].provider != s->peers[i].provider;
			j++;
		}
		n = j - i;
		/* the middle price; of an even count, the mean of the two middle ones */
		s->peer_stats[k].gpu = s->peers[i].gpu;
		s->peer_stats[k].n = n;
		s->peer_stats[k].providers2 = two;
		s->peer_stats[k].median = n % 2 ? s->peers[i + n / 2].price :
					  ((double)s->peers[i + n / 2 - 1].price + s->peers[i + n / 2].price) / 2;
		i = j;
	}
	s->npeer_stats = ns;
mark:
	for (size_t i = 0; i < s->n; i++)
		s->v[i].peer_ratio = offer_peer_ratio(s, &s->v[i], NULL);
}

double offer_peer_ratio(const struct offer_set *s, const struct offer *o, size_t *peers)
{
	const struct offer_peer_stat *st;

	if (peers)
		*peers = 0;
	if (!o->gpu || o->is_slice || o->supply == SUPPLY_CAMPUS_HPC || !(o->price > 0) ||
	    !(o->gpus > 0) || !s->npeer_stats)
		return 0;
	st = bsearch((const void *)o->gpu, s->peer_stats, s->npeer_stats, sizeof(*st), cmp_stat_key);
	if (!st || st->n < CATALOG_PEER_MIN || !st->providers2 || !(st->median > 0))
		return 0;
	if (peers)
		*peers = st->n;
	return offer_price_per_gpu(o) / st->median;
}
