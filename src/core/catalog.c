/*
 * catalog.c - loading price catalogs into offers (catalog.h). One pass
 * over the buffer with no per-field allocation: fields are pointers into
 * the caller's buffer (csv.h's csv_scan_record(), the one CSV tokenizer), GPU names resolve through a small cache, exact
 * duplicate rows are found by hashing the raw record.
 */
#include "catalog.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xxhash.h>

#include "csv.h"
#include "names.h"
#include "quote.h"

#define MAX_FIELDS 40

/* What a row may state (docs/offers.md); a value outside is a bad row,
 * counted and reported, never priced: no /GPU-h price can be inf or
 * subnormal. Fractional GPU counts are shares (a slice). */
#define CAT_MIN_GPUS     0.001
#define CAT_MAX_GPUS     1024.0
#define CAT_MIN_VCPUS    0.001
#define CAT_MAX_VCPUS    1e5
#define CAT_MIN_RAM_GIB  0.001
#define CAT_MAX_RAM_GIB  1e7
#define CAT_MAX_GPU_MIB  1e9        /* GpuInfo SizeInMiB (instance total at most) */
#define CAT_MAX_GPU_GB   1e6        /* gpu_mem_gb per GPU */
#define CAT_MAX_DISK_GB  1e9
#define CAT_MIN_PRICE    1e-6       /* USD (or currency) per instance-hour */
#define CAT_MAX_PRICE    1e6
#define CAT_MAX_DURATION 3155760000.0   /* 100 years, as units.h */

/* 0 (no price) or a price a row can hold. */
static bool price_ok(double p)
{
	return p == 0 || (p >= CAT_MIN_PRICE && p <= CAT_MAX_PRICE);
}
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

double offer_price_per_gpu(const struct offer *o)
{
	return o->gpus > 0 ? o->price / o->gpus : o->price;
}

double offer_spot_per_gpu(const struct offer *o)
{
	return o->spot_price <= 0 ? 0 : o->gpus > 0 ? o->spot_price / o->gpus : o->spot_price;
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
	if (len >= sizeof(tmp) || !len || strspn(s + i, "0123456789.eE+-") < len - i)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v = strtod(tmp, &end);
	while (*end == ' ')
		end++;
	if (end == tmp || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static char *arena_alloc(struct offer_set *s, size_t n)
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
	free(s->v);
	free(s->reports);
	for (size_t i = 0; i < s->narena; i++)
		free(s->arena[i]);
	free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* ---- GPU resolution ---- */

struct gpu_cache_entry {
	uint64_t key;
	const struct gpu_spec *gpu;
	int mem_case;   /* 0 per-GPU as given, 1 total fixed, 2 from spec, 3 none */
	bool ambiguous; /* variants of equal memory: the form factor would decide */
	bool used;
};

#define GPU_CACHE 1024

struct loader {
	struct offer_set *set;
	const struct catalog_opts *o;
	struct catalog_report *rep;
	const char *fname;
	struct gpu_cache_entry cache[GPU_CACHE];
	char (*families)[32];     /* family per gpu db row */
	uint64_t *seen;           /* duplicate detection: hashes of raw records */
	size_t seen_cap, seen_n;
	uint32_t file_index;      /* this catalog's index in the set's reports */
	bool second;              /* the second half's loader: match, store, buffer messages */
	char **msgs;              /* second: bad-row messages after "file:line: ", in order */
	uint32_t *msg_lines;      /* second: their lines, counted from the half's start */
	size_t nmsgs;
	size_t end_line;          /* the line where loading stopped */
	char msg[512];
};

static const struct gpu_spec *match_memory(struct loader *ld, const char *fam, double gib,
					   int hint, bool *ambiguous)
{
	const struct gpu_db *db = ld->o->gpus;
	const struct gpu_spec *best = NULL;
	double bestd = 1e300;

	for (size_t i = 0; i < db->n; i++) {
		double gb, d;
		if (strcmp(ld->families[i], fam))
			continue;
		gb = db->v[i].memory_bytes / 1e9;
		d = fabs(gb - gib) / gb;
		if (d > 0.12)
			continue;
		/* equal memory: the instance name's form factor decides */
		if (best && fabs(d - bestd) < 0.02) {
			const char *nm = db->v[i].name;
			bool fits = (hint == 1 && strstr(nm, "PCIe")) || (hint == 2 && strstr(nm, "SXM")) ||
				    (hint == 3 && strstr(nm, "NVL"));
			*ambiguous = true;
			if (fits) {
				best = &db->v[i];
				bestd = d;
			}
			continue;
		}
		if (d < bestd - 0.02 || !best) {
			best = &db->v[i];
			bestd = d;
		}
	}
	return best;
}

/*
 * Resolve a catalog's GPU name with the memory its GpuInfo states
 * (size_mib for `count` GPUs; 0 when absent). Sets *per_gpu_gib and the
 * memory case for the report.
 */
static const struct gpu_spec *resolve_gpu(struct loader *ld, const char *name, size_t nlen,
					  double size_mib, double count, int hint, int *mem_case,
					  bool *ambiguous)
{
	char nm[96], fam[32];
	const struct gpu_spec *direct, *g = NULL;
	uint64_t key = XXH3_64bits_withSeed(name, nlen, (uint64_t)hint);
	struct gpu_cache_entry *ce;
	double gib = size_mib / 1024.0;

	key ^= XXH3_64bits_withSeed(&size_mib, sizeof(size_mib), 0x9E3779B97F4A7C15ULL) ^
	       XXH3_64bits_withSeed(&count, sizeof(count), 0xC2B2AE3D27D4EB4FULL) * 3;
	for (size_t i = key % GPU_CACHE, k = 0; k < GPU_CACHE; i = (i + 1) % GPU_CACHE, k++) {
		ce = &ld->cache[i];
		if (!ce->used)
			break;
		if (ce->key == key) {
			*mem_case = ce->mem_case;
			*ambiguous = ce->ambiguous;
			return ce->gpu;
		}
	}
	if (nlen >= sizeof(nm))
		nlen = sizeof(nm) - 1;
	memcpy(nm, name, nlen);
	nm[nlen] = '\0';
	direct = gpu_db_find(ld->o->gpus, nm);
	names_family(direct ? direct->name : nm, fam, sizeof(fam));
	*mem_case = 3;
	*ambiguous = false;
	if (gib > 0) {
		if (direct && fabs(direct->memory_bytes / 1e9 - gib) <= 0.12 * direct->memory_bytes / 1e9) {
			g = direct;   /* the name says which card, and the memory agrees */
			*mem_case = 0;
		} else if ((g = match_memory(ld, fam, gib, hint, ambiguous)))
			*mem_case = 0;
		else if (count > 1 && (g = match_memory(ld, fam, gib / count, hint, ambiguous)))
			*mem_case = 1;
		else if (direct) {
			g = direct;
			*mem_case = 2;
		}
	} else {
		g = direct;
		*mem_case = direct ? 2 : 3;
	}
	/* remember (the table is large enough for any real catalog; when it
	 * is full we simply do not cache) */
	for (size_t i = key % GPU_CACHE, k = 0; k < GPU_CACHE; i = (i + 1) % GPU_CACHE, k++) {
		ce = &ld->cache[i];
		if (!ce->used) {
			ce->used = true;
			ce->key = key;
			ce->gpu = g;
			ce->mem_case = *mem_case;
			ce->ambiguous = *ambiguous;
			break;
		}
	}
	return g;
}

/* "'SizeInMiB': 81920" or "\"SizeInMiB\":81920" inside GpuInfo */
static double gpuinfo_number(const struct csv_field *f, const char *key)
{
	const char *p = f->p, *end = f->p + f->len;
	size_t kl = strlen(key);
	double v;

	while (p < end) {
		const char *q = memchr(p, key[0], (size_t)(end - p));
		if (!q || (size_t)(end - q) < kl)
			return 0;
		if (!memcmp(q, key, kl)) {
			q += kl;
			while (q < end && (*q == '\'' || *q == '"' || *q == ':' || *q == ' '))
				q++;
			p = q;
			while (p < end && (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' ||
					   *p == 'E' || *p == '+' || *p == '-'))
				p++;
			if (p > q && !catalog_parse_number(q, (size_t)(p - q), &v))
				return v;
			return p > q ? -1 : 0;   /* a number that is none: refused by the caller */
		}
		p = q + 1;
	}
	return 0;
}

/* ---- duplicate detection ---- */


/* A record's fingerprint: XXH3-64 of its bytes (exact duplicates only need
 * equal records to hash equal; 56 compared bits make a false match
 * negligible: ~n^2/2^57, 7e-6 for a million rows). */
static uint64_t hash_record(const char *p, size_t n)
{
	return XXH3_64bits(p, n);
}

/* A fingerprint's home slot: from the compared bits only, so an entry
 * (whose low bits hold its code) finds the same slot as the raw hash. */
static size_t slot_of(uint64_t h, size_t cap)
{
	return (size_t)(h >> 8) & (cap - 1);
}

static void seen_prefetch(const struct loader *ld, uint64_t h)
{
	if (ld->seen_cap)
		__builtin_prefetch(&ld->seen[slot_of(h, ld->seen_cap)]);
}

/*
 * true when a record with fingerprint h was seen before; otherwise records
 * it with `code` in the low 8 bits (what the row counted as, so that a
 * second loader can undo the count: see merge_second_half()). Fingerprints
 * are compared on their upper 56 bits.
 */
#define FP_MASK (~(uint64_t)0xFF)
enum { ROW_LOADED = 1, ROW_CPU = 2, ROW_NOPRICE = 3 };
#define ROW_CODE(cat, spot, mem, unknown) ((uint64_t)(cat) | (uint64_t)(spot) << 2 | \
					  (uint64_t)(mem) << 4 | (uint64_t)(unknown) << 6)

static bool table_has(const uint64_t *t, size_t cap, uint64_t h)
{
	if (!cap)
		return false;
	for (size_t j = slot_of(h, cap);; j = (j + 1) & (cap - 1)) {
		if (!t[j])
			return false;
		if ((t[j] & FP_MASK) == (h & FP_MASK))
			return true;
	}
}

static bool seen_hash(struct loader *ld, uint64_t h, uint64_t code)
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

/* ---- rows ---- */

static void bad(struct loader *ld, uint32_t line, const char *field, const char *what,
		const struct csv_field *f)
{
	char rest[400];

	ld->rep->bad_rows++;
	if (!ld->o->bad_row)
		return;
	if (f) {
		char q[QUOTE_KEEP * 4 + 8];
		snprintf(rest, sizeof(rest), "%s: %s, got '%s'", field, what,
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

static struct cat_str str_of(struct loader *ld, const struct csv_field *f)
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

static int push(struct loader *ld, const struct offer *o)
{
	struct offer_set *s = ld->set;

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

static void note_unknown(struct loader *ld, const struct csv_field *name)
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

enum sky_col { SK_INSTANCE, SK_ACCEL, SK_COUNT, SK_VCPU, SK_MEM, SK_PRICE, SK_SPOT, SK_REGION,
	       SK_GPUINFO, SK_ZONE, SK_N };

/* The form factor an instance name states: 1 PCIe ("pcie", "pci_", "-pci"),
 * 2 SXM, 3 NVL (in that priority: "H200-sxm5x8-NVLINK" is SXM), 0 none.
 * One pass over the bytes, ignoring case. */
static int instance_hint(const struct csv_field *f)
{
	bool pci = false, sxm = false, nvl = false;

	for (uint32_t i = 0; i + 2 < f->len; i++) {
		int a = tolower((unsigned char)f->p[i]), b = tolower((unsigned char)f->p[i + 1]);
		int c = tolower((unsigned char)f->p[i + 2]);
		if (a == 'p' && b == 'c' && c == 'i') {
			int d = i + 3 < f->len ? tolower((unsigned char)f->p[i + 3]) : 0;
			pci |= d == 'e' || d == '_' || (i > 0 && f->p[i - 1] == '-');
		}
		sxm |= a == 's' && b == 'x' && c == 'm';
		nvl |= a == 'n' && b == 'v' && c == 'l';
	}
	return pci ? 1 : sxm ? 2 : nvl ? 3 : 0;
}

/* A scanned record waiting for its duplicate-table slot to arrive in cache. */
struct pending {
	struct csv_field f[MAX_FIELDS];
	int nf;
	size_t line;
	uint64_t h;
};
#define BATCH 16

/* One SkyPilot row, already split and fingerprinted. 0, or -1 out of memory. */
static int sky_row(struct loader *ld, const struct pending *pr, const int *col, const char *prov,
		   enum supply_type supply)
{
	const struct csv_field *f = pr->f;
	int nf = pr->nf;
	size_t rec_line = pr->line;
	uint64_t h = pr->h;
	struct offer o;
	double count = 0, size_mib = 0, v;
	int mem_case, spot_kind = 0;
	bool ambiguous;
	const struct csv_field *fa, *fp;

	do {
		if (!h) {
			char what[64];
			snprintf(what, sizeof(what), "expected the header's fields, got %d", nf);
			bad(ld, (uint32_t)rec_line, "(row)", what, NULL);
			break;
		}
		fa = &f[col[SK_ACCEL]];
		if (fa->len && (catalog_parse_number(f[col[SK_COUNT]].p, f[col[SK_COUNT]].len, &count) ||
				count < 0 || (count > 0 && count < CAT_MIN_GPUS) || count > CAT_MAX_GPUS)) {
			bad(ld, (uint32_t)rec_line, "AcceleratorCount",
			    "expected a number from 0.001 to 1024 (0 for none)", &f[col[SK_COUNT]]);
			break;
		}
		if (!fa->len || count <= 0) {
			if (seen_hash(ld, h, ROW_CODE(ROW_CPU, 0, 0, 0)))
				ld->rep->duplicates++;
			else
				ld->rep->cpu_only++;
			break;
		}
		fp = &f[col[SK_PRICE]];
		memset(&o, 0, sizeof(o));
		if (!fp->len) {
			if (seen_hash(ld, h, ROW_CODE(ROW_NOPRICE, 0, 0, 0)))
				ld->rep->duplicates++;
			else
				ld->rep->missing_price++;
			break;
		}
		if (catalog_parse_number(fp->p, fp->len, &o.price) || !price_ok(o.price)) {
			bad(ld, (uint32_t)rec_line, "Price", "expected a price from 0 to 1e6 USD per hour", fp);
			break;
		}
		if (o.price == 0) {
			if (seen_hash(ld, h, ROW_CODE(ROW_NOPRICE, 0, 0, 0)))
				ld->rep->duplicates++;
			else
				ld->rep->missing_price++;
			break;
		}
		if (col[SK_SPOT] >= 0 && col[SK_SPOT] < nf && f[col[SK_SPOT]].len) {
			const struct csv_field *fs = &f[col[SK_SPOT]];
			if (catalog_parse_number(fs->p, fs->len, &v) || v < 0) {
				bad(ld, (uint32_t)rec_line, "SpotPrice", "expected a price >= 0 in USD per hour", fs);
				break;
			}
			if (v > 0 && v < CAT_MIN_PRICE)
				v = 0;   /* a sub-micro-dollar spot price is a placeholder too */
			spot_kind = v == 0 || v >= 1e5 || v > 100 * o.price ? 1 : v >= o.price ? 2 : 0;
			if (!spot_kind)
				o.spot_price = v;
		}
		if (col[SK_GPUINFO] >= 0 && col[SK_GPUINFO] < nf) {
			size_mib = gpuinfo_number(&f[col[SK_GPUINFO]], "SizeInMiB");
			if (!(size_mib >= 0) || size_mib > CAT_MAX_GPU_MIB) {
				bad(ld, (uint32_t)rec_line, "GpuInfo",
				    "expected SizeInMiB from 0 to 1e9", &f[col[SK_GPUINFO]]);
				break;
			}
		}
		if (col[SK_VCPU] >= 0 && col[SK_VCPU] < nf && f[col[SK_VCPU]].len &&
		    (catalog_parse_number(f[col[SK_VCPU]].p, f[col[SK_VCPU]].len, &o.vcpus) ||
		     !(o.vcpus >= CAT_MIN_VCPUS) || o.vcpus > CAT_MAX_VCPUS)) {
			bad(ld, (uint32_t)rec_line, "vCPUs", "expected a number from 0.001 to 1e5", &f[col[SK_VCPU]]);
			break;
		}
		if (col[SK_MEM] >= 0 && col[SK_MEM] < nf && f[col[SK_MEM]].len &&
		    (catalog_parse_number(f[col[SK_MEM]].p, f[col[SK_MEM]].len, &o.ram_gib) ||
		     !(o.ram_gib >= CAT_MIN_RAM_GIB) || o.ram_gib > CAT_MAX_RAM_GIB)) {
			bad(ld, (uint32_t)rec_line, "MemoryGiB", "expected a number from 0.001 to 1e7", &f[col[SK_MEM]]);
			break;
		}
		o.gpus = count;
		o.gpu = resolve_gpu(ld, fa->p, fa->len, size_mib, count, 0, &mem_case, &ambiguous);
		if (ambiguous && col[SK_INSTANCE] >= 0 && col[SK_INSTANCE] < nf) {
			int hint = instance_hint(&f[col[SK_INSTANCE]]);
			if (hint)
				o.gpu = resolve_gpu(ld, fa->p, fa->len, size_mib, count, hint, &mem_case, &ambiguous);
		}
		if (seen_hash(ld, h, ROW_CODE(ROW_LOADED, spot_kind, mem_case, !o.gpu))) {
			ld->rep->duplicates++;
			break;
		}
		if (spot_kind == 1)
			ld->rep->spot_placeholder++;
		else if (spot_kind == 2)
			ld->rep->spot_above_price++;
		if (mem_case == 1)
			ld->rep->mem_total_fixed++;
		else if (mem_case == 2)
			ld->rep->mem_from_spec++;
		if (o.gpu) {
			/* matched to a spec: its nominal memory, as the estimate's tiers use */
			o.gpu_mem = o.gpu->memory_bytes;
		} else {
			note_unknown(ld, fa);
			/* no specs: keep the memory the catalog states, per GPU */
			o.gpu_mem = (count > 1 && size_mib / count >= 8 * 1024 ? size_mib / count : size_mib) *
				    1048576.0;
		}
		o.fp = h;
		o.provider.p = prov;
		o.provider.len = (uint32_t)strlen(prov);
		if (col[SK_INSTANCE] >= 0 && col[SK_INSTANCE] < nf)
			o.instance = str_of(ld, &f[col[SK_INSTANCE]]);
		if (col[SK_ZONE] >= 0 && col[SK_ZONE] < nf && f[col[SK_ZONE]].len)
			o.region = str_of(ld, &f[col[SK_ZONE]]);   /* the more specific place */
		else if (col[SK_REGION] >= 0 && col[SK_REGION] < nf)
			o.region = str_of(ld, &f[col[SK_REGION]]);
		o.gpu_name = str_of(ld, fa);
		o.supply = supply;
		o.billing = o.provider;
		o.file = ld->file_index;
		o.line = (uint32_t)rec_line;
		if (push(ld, &o))
			return -1;
	} while (0);
	return 0;
}

static int load_skypilot(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
			 const int *col)
{
	struct pending *batch;
	enum supply_type supply = SUPPLY_UNKNOWN;
	const char *prov = ld->o->provider ? ld->o->provider : "";
	static const char *const hyper[] = {"aws", "gcp", "azure", "oci", "ibm"};
	static const char *const market[] = {"vast"};

	for (size_t i = 0; i < sizeof(hyper) / sizeof(hyper[0]); i++)
		if (!strcmp(prov, hyper[i]))
			supply = SUPPLY_HYPERSCALER;
	for (size_t i = 0; i < sizeof(market) / sizeof(market[0]); i++)
		if (!strcmp(prov, market[i]))
			supply = SUPPLY_MARKETPLACE;
	if (supply == SUPPLY_UNKNOWN && *prov)
		supply = SUPPLY_AI_CLOUD;

	batch = malloc(BATCH * sizeof(*batch));
	if (!batch)
		return -1;
	/* Rows go in batches: split and fingerprint a batch, prefetch each
	 * duplicate-table slot, then parse them: the cache misses overlap. */
	while (pos < len) {
		int nb = 0, stop = 0;
		while (nb < BATCH && pos < len) {
			struct pending *pr = &batch[nb];
			const char *rec;
			size_t rec_len;
			if (buf[pos] == '\n' || buf[pos] == '\r') {
				if (buf[pos] == '\n')
					line++;
				pos++;
				continue;
			}
			pr->line = line;
			pr->nf = csv_scan_record(buf, len, &pos, &line, pr->f, MAX_FIELDS, &rec, &rec_len);
			if (pr->nf < 0) {
				stop = 1;
				break;
			}
			ld->rep->rows++;
			pr->h = 0;   /* a short row is reported in order, with the others */
			if (pr->nf <= MAX_FIELDS && pr->nf > col[SK_PRICE] && pr->nf > col[SK_ACCEL] &&
			    pr->nf > col[SK_COUNT]) {
				pr->h = hash_record(rec, rec_len) | 1;
				seen_prefetch(ld, pr->h);
			}
			nb++;
		}
		for (int k = 0; k < nb; k++)
			if (sky_row(ld, &batch[k], col, prov, supply)) {
				free(batch);
				return -1;
			}
		if (stop) {
			bad(ld, (uint32_t)batch[nb].line, "(row)", "unterminated quoted field", NULL);
			break;
		}
	}
	ld->end_line = line;
	free(batch);
	return 0;
}

/* gpurent's own offer format (data/offers.csv; docs/offers.md) */
enum own_col { OC_PROVIDER, OC_SUPPLY, OC_INSTANCE, OC_REGION, OC_GPU, OC_COUNT, OC_SLICE,
	       OC_MEM, OC_VCPU, OC_RAM, OC_DISK, OC_PERSIST, OC_PRICE, OC_SPOT, OC_CURRENCY,
	       OC_BILLING, OC_QUEUE, OC_MAXRUN, OC_SOURCE, OC_DATE, OC_N };
static const char *const own_cols[OC_N] = {
	"provider", "supply_type", "instance", "region", "gpu", "gpu_count", "slice",
	"gpu_mem_gb", "vcpus", "ram_gb", "disk_gb", "persistent_storage", "price",
	"spot_price", "currency", "billing", "queue_wait", "max_runtime", "source", "date",
};

/* A number column: empty is 0, else finite, 0 or from min_pos to max. */
static int own_number(struct loader *ld, const struct csv_field *f, uint32_t line, int c,
		      double *out, double min_pos, double max, const char *what)
{
	if (!f->len) {
		*out = 0;
		return 0;
	}
	if (catalog_parse_number(f->p, f->len, out) || *out < 0 || *out > max ||
	    (*out > 0 && *out < min_pos)) {
		bad(ld, line, own_cols[c], what, f);
		return -1;
	}
	return 0;
}

static int own_duration(struct loader *ld, const struct csv_field *f, uint32_t line, int c, double *out)
{
	double v;
	size_t n = f->len;
	char unit;

	*out = 0;
	if (!n)
		return 0;
	unit = f->p[n - 1];
	if (unit == 'h' || unit == 'm' || unit == 'd' || unit == 's')
		n--;
	else
		unit = 's';
	if (catalog_parse_number(f->p, n, &v) || v < 0 ||
	    v * (unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 1) > CAT_MAX_DURATION) {
		bad(ld, line, own_cols[c], "expected a duration such as 30m, 6h or 2d, at most 100 years", f);
		return -1;
	}
	*out = v * (unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 1);
	return 0;
}

static int load_own(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
		    const int *col)
{
	struct csv_field f[MAX_FIELDS];

	while (pos < len) {
		const char *rec;
		size_t rec_len, rec_line = line;
		int nf, st, mem_case;
		bool ambiguous;
		struct offer o;
		double rate = 0, mem_gb = 0;
		const struct csv_field *cur;

		if (buf[pos] == '\n' || buf[pos] == '\r' || buf[pos] == '#') {
			while (pos < len && buf[pos] != '\n')
				pos++;
			if (pos < len) {
				pos++;
				line++;
			}
			continue;
		}
		nf = csv_scan_record(buf, len, &pos, &line, f, MAX_FIELDS, &rec, &rec_len);
		if (nf < 0) {
			bad(ld, (uint32_t)rec_line, "(row)", "unterminated quoted field", NULL);
			return 0;
		}
		ld->rep->rows++;
		if (nf != OC_N && nf > MAX_FIELDS) {
			bad(ld, (uint32_t)rec_line, "(row)", "too many fields", NULL);
			continue;
		}
		for (int c = 0; c < OC_N; c++)
			if (col[c] >= nf) {
				char what[64];
				snprintf(what, sizeof(what), "expected %d fields, got %d", OC_N, nf);
				bad(ld, (uint32_t)rec_line, "(row)", what, NULL);
				goto next;
			}
		if (seen_hash(ld, hash_record(rec, rec_len) | 1, ROW_CODE(ROW_LOADED, 0, 0, 0))) {
			ld->rep->duplicates++;
			continue;
		}
		memset(&o, 0, sizeof(o));
		cur = &f[col[OC_SUPPLY]];
		st = supply_type_parse(cur->p, cur->len);
		if (st < 0) {
			bad(ld, (uint32_t)rec_line, "supply_type",
			    "expected hyperscaler, ai-cloud, campus-hpc, serverless or marketplace", cur);
			continue;
		}
		o.supply = (enum supply_type)st;
		if (own_number(ld, &f[col[OC_COUNT]], (uint32_t)rec_line, OC_COUNT, &o.gpus,
			       CAT_MIN_GPUS, CAT_MAX_GPUS, "expected a GPU count from 0.001 to 1024"))
			continue;
		if (o.gpus <= 0) {
			bad(ld, (uint32_t)rec_line, "gpu_count", "expected a GPU count from 0.001 to 1024",
			    &f[col[OC_COUNT]]);
			continue;
		}
		if (own_number(ld, &f[col[OC_PRICE]], (uint32_t)rec_line, OC_PRICE, &o.price,
			       CAT_MIN_PRICE, CAT_MAX_PRICE, "expected a price from 0 to 1e6 per instance-hour") ||
		    own_number(ld, &f[col[OC_SPOT]], (uint32_t)rec_line, OC_SPOT, &o.spot_price,
			       CAT_MIN_PRICE, CAT_MAX_PRICE, "expected a price from 0 to 1e6 per instance-hour") ||
		    own_number(ld, &f[col[OC_MEM]], (uint32_t)rec_line, OC_MEM, &mem_gb,
			       0.001, CAT_MAX_GPU_GB, "expected GPU memory in GB, at most 1e6") ||
		    own_number(ld, &f[col[OC_VCPU]], (uint32_t)rec_line, OC_VCPU, &o.vcpus,
			       CAT_MIN_VCPUS, CAT_MAX_VCPUS, "expected a number from 0.001 to 1e5") ||
		    own_number(ld, &f[col[OC_RAM]], (uint32_t)rec_line, OC_RAM, &o.ram_gib,
			       CAT_MIN_RAM_GIB, CAT_MAX_RAM_GIB, "expected a number from 0.001 to 1e7") ||
		    own_number(ld, &f[col[OC_DISK]], (uint32_t)rec_line, OC_DISK, &o.disk_gb,
			       0.001, CAT_MAX_DISK_GB, "expected a number from 0.001 to 1e9") ||
		    own_duration(ld, &f[col[OC_QUEUE]], (uint32_t)rec_line, OC_QUEUE, &o.queue_wait) ||
		    own_duration(ld, &f[col[OC_MAXRUN]], (uint32_t)rec_line, OC_MAXRUN, &o.max_runtime))
			continue;
		if (!f[col[OC_PRICE]].len) {
			ld->rep->missing_price++;
			continue;
		}
		cur = &f[col[OC_CURRENCY]];
		for (size_t i = 0; i < ld->o->nrates; i++)
			if (strlen(ld->o->rates[i].code) == cur->len &&
			    !strncasecmp(ld->o->rates[i].code, cur->p, cur->len))
				rate = ld->o->rates[i].usd;
		if (rate <= 0) {
			bad(ld, (uint32_t)rec_line, "currency", "unknown currency (see data/currencies.csv)", cur);
			continue;
		}
		o.price *= rate;
		o.spot_price *= rate;
		if (o.spot_price >= o.price && o.spot_price > 0) {
			ld->rep->spot_above_price++;
			o.spot_price = 0;
		}
		cur = &f[col[OC_PERSIST]];
		o.persistent_storage = cur->len && (cur->p[0] == 'y' || cur->p[0] == 't');
		cur = &f[col[OC_SLICE]];
		o.is_slice = cur->len && !(cur->len == 5 && !memcmp(cur->p, "whole", 5));
		o.slice = str_of(ld, cur);
		cur = &f[col[OC_GPU]];
		o.gpu = resolve_gpu(ld, cur->p, cur->len, o.is_slice ? 0 : mem_gb * 1024.0,
				    1, 0, &mem_case, &ambiguous);
		o.gpu_name = str_of(ld, cur);
		if (!o.gpu)
			note_unknown(ld, cur);
		/* a slice has only its own memory; a whole card the spec's */
		o.gpu_mem = mem_gb > 0 ? mem_gb * 1e9 : o.gpu ? o.gpu->memory_bytes : 0;
		o.provider = str_of(ld, &f[col[OC_PROVIDER]]);
		o.instance = str_of(ld, &f[col[OC_INSTANCE]]);
		o.region = str_of(ld, &f[col[OC_REGION]]);
		o.billing = str_of(ld, &f[col[OC_BILLING]]);
		o.source = str_of(ld, &f[col[OC_SOURCE]]);
		o.date = str_of(ld, &f[col[OC_DATE]]);
		if (!o.source.len) {
			bad(ld, (uint32_t)rec_line, "source", "expected where the price comes from", NULL);
			continue;
		}
		o.file = ld->file_index;
		o.line = (uint32_t)rec_line;
		if (push(ld, &o))
			return -1;
next:;
	}
	return 0;
}

/* ---- two threads for a large SkyPilot catalog ---- */

/* A record boundary near the middle of [pos, len): after a newline that is
 * not inside a quoted field (an even number of '"' before it). 0 if none. */
static size_t find_split(const char *buf, size_t pos, size_t len)
{
	/* the second half also keeps its offers and is merged: give it less */
	size_t mid = pos + (len - pos) / 20 * 11, quotes = 0, i = pos;
	uint64_t acc = 0;

	/* Only the parity of the '"' count matters: XOR the words' "byte is
	 * not a quote" masks together and count their bits once at the end. */
	for (; i + 8 <= mid; i += 8) {
		uint64_t w, x;
		memcpy(&w, buf + i, 8);
		x = w ^ 0x2222222222222222ULL;
		acc ^= (((x & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | x) & 0x8080808080808080ULL;
	}
	quotes = (size_t)(i - pos) - (size_t)__builtin_popcountll(acc);   /* parity is what counts */
	for (; i < mid; i++)
		quotes += buf[i] == '"';
	for (i = mid; i < len; i++) {
		if (buf[i] == '"')
			quotes++;
		else if (buf[i] == '\n' && !(quotes & 1))
			return i + 1 < len ? i + 1 : 0;
	}
	return 0;
}

struct half {
	struct loader *ld;
	const char *buf;
	size_t len, pos, line;
	const int *col;
	int rc;
};

static int load_skypilot(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
			 const int *col);

static void *run_half(void *arg)
{
	struct half *h = arg;

	h->rc = load_skypilot(h->ld, h->buf, h->len, h->pos, h->line, h->col);
	return NULL;
}

/* Fold the second half (b, with its offers in b->set) into the first (a):
 * rows whose fingerprint the first half has already seen become
 * duplicates (their counts undone through the code kept in the table),
 * the rest of its offers go through keep, in order. */
static int merge_second_half(struct loader *a, struct loader *b)
{
	struct catalog_report *ra = a->rep, *rb = b->rep;
	struct offer_set *s = a->set, *t = b->set;

	uint64_t *cross = NULL;   /* fingerprints the first half already had */
	size_t ncross = 0;

	for (size_t i = 0; i < b->seen_cap; i++) {
		uint64_t e = b->seen[i];
		/* the probe 32 slots ahead: its cache line arrives in time */
		if (i + 32 < b->seen_cap && b->seen[i + 32] && a->seen_cap)
			__builtin_prefetch(&a->seen[slot_of(b->seen[i + 32], a->seen_cap)]);
		if (!e || !table_has(a->seen, a->seen_cap, e))
			continue;
		if ((e & 3) == ROW_LOADED) {
			uint64_t *nc = realloc(cross, (ncross + 1) * sizeof(*nc));
			if (!nc) {
				free(cross);
				return -1;
			}
			cross = nc;
			cross[ncross++] = e & FP_MASK;
		}
		switch (e & 3) {
		case ROW_LOADED: {
			int spot = (int)(e >> 2 & 3), mem = (int)(e >> 4 & 3);
			rb->loaded--;
			rb->spot_placeholder -= spot == 1;
			rb->spot_above_price -= spot == 2;
			rb->mem_total_fixed -= mem == 1;
			rb->mem_from_spec -= mem == 2;
			rb->unknown_gpu -= (e >> 6) & 1;
			break;
		}
		case ROW_CPU:
			rb->cpu_only--;
			break;
		case ROW_NOPRICE:
			rb->missing_price--;
			break;
		}
		rb->duplicates++;
	}
	ra->rows += rb->rows;
	ra->loaded += rb->loaded;
	ra->cpu_only += rb->cpu_only;
	ra->missing_price += rb->missing_price;
	ra->duplicates += rb->duplicates;
	ra->bad_rows += rb->bad_rows;
	ra->spot_placeholder += rb->spot_placeholder;
	ra->spot_above_price += rb->spot_above_price;
	ra->unknown_gpu += rb->unknown_gpu;
	ra->mem_total_fixed += rb->mem_total_fixed;
	ra->mem_from_spec += rb->mem_from_spec;
	{
		char *u = ra->unknown_names, *v = rb->unknown_names;
		while (*v) {
			size_t n = strcspn(v, ",");
			char nm[64];
			snprintf(nm, sizeof(nm), "%.*s", (int)(n < sizeof(nm) ? n : sizeof(nm) - 1), v);
			if (!strstr(u, nm) && strlen(u) + n + 3 < sizeof(ra->unknown_names))
				snprintf(u + strlen(u), sizeof(ra->unknown_names) - strlen(u), "%s%s",
					 *u ? ", " : "", nm);
			v += n;
			while (*v == ',' || *v == ' ')
				v++;
		}
	}
	for (size_t i = 0; i < b->nmsgs; i++) {
		snprintf(a->msg, sizeof(a->msg), "%s:%zu: %s", a->fname, b->msg_lines[i] - 1 + a->end_line,
			 b->msgs[i]);
		a->o->bad_row(a->o->bad_ctx, a->msg);
		free(b->msgs[i]);
	}
	free(b->msgs);
	free(b->msg_lines);
	/* its strings outlive it: the arena chunks move to the set */
	if (t->narena) {
		char **na = realloc(s->arena, (s->narena + t->narena) * sizeof(*na));
		if (!na) {
			free(cross);
			return -1;
		}
		s->arena = na;
		memcpy(s->arena + s->narena, t->arena, t->narena * sizeof(*na));
		s->narena += t->narena;
		t->narena = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct offer *o = &t->v[i];
		bool dup = false;
		o->line += (uint32_t)(a->end_line - 1);
		for (size_t k = 0; k < ncross && !dup; k++)   /* usually none at all */
			dup = (o->fp & FP_MASK) == cross[k];
		if (dup)
			continue;
		if (a->o->keep && !a->o->keep(a->o->ctx, o))
			continue;
		if (s->n == s->cap) {
			size_t ncap = s->cap ? s->cap * 2 : 256;
			struct offer *nv = realloc(s->v, ncap * sizeof(*nv));
			if (!nv) {
				free(cross);
				return -1;
			}
			s->v = nv;
			s->cap = ncap;
		}
		s->v[s->n++] = *o;
	}
	free(cross);
	return 0;
}

/* A zeroed table whose pages are already written: calloc's untouched pages
 * would first map the shared zero page on our reads (the prefetches) and
 * then copy on the first write, flushing TLBs on every CPU the process
 * runs on - a heavy tax once a second thread exists. */
static uint64_t *table_alloc(size_t cap)
{
	uint64_t *t = calloc(cap, sizeof(*t));

	/* one write per page (volatile: the compiler must not drop it) */
	for (size_t i = 0; t && i < cap; i += 512)
		((volatile uint64_t *)t)[i] = 0;
	return t;
}

static size_t table_cap_for(size_t bytes)
{
	size_t cap = 4096;

	while (cap < bytes / 96 * 2)   /* SkyPilot rows run 60-200 bytes: load <= ~0.5 */
		cap *= 2;
	return cap;
}

/* Both halves at once; falls back to one thread when a thread cannot start. */
static int load_skypilot_2(struct loader *a, const char *buf, size_t len, size_t pos, size_t line,
			   const int *col)
{
	size_t split = find_split(buf, pos, len);
	struct loader *b;
	struct offer_set tmp;
	struct catalog_report rb;
	struct half hb;
	pthread_t th;
	int rc = -1;

	if (!split)
		return load_skypilot(a, buf, len, pos, line, col);
	b = calloc(1, sizeof(*b));
	if (!b)
		return load_skypilot(a, buf, len, pos, line, col);
	offer_set_init(&tmp);
	memset(&rb, 0, sizeof(rb));
	b->set = &tmp;
	b->o = a->o;
	b->rep = &rb;
	b->fname = a->fname;
	b->families = a->families;   /* read-only */
	b->file_index = a->file_index;
	b->second = true;
	b->seen_cap = table_cap_for(len - split);
	b->seen = table_alloc(b->seen_cap);
	if (!b->seen)
		b->seen_cap = 0;
	/* room for every row of the half up front: growing it with realloc
	 * while another thread runs costs TLB shootdowns; untouched pages of
	 * the reservation never become resident */
	tmp.cap = (len - split) / 32 + 256;
	tmp.v = malloc(tmp.cap * sizeof(*tmp.v));
	if (!tmp.v)
		tmp.cap = 0;
	hb.ld = b;
	hb.buf = buf;
	hb.len = len;
	hb.pos = split;
	hb.line = 1;   /* counted from the split; shifted once the first half knows where it ends */
	hb.col = col;
	if (pthread_create(&th, NULL, run_half, &hb)) {
		free(b->seen);
		free(b);
		offer_set_free(&tmp);
		return load_skypilot(a, buf, len, pos, line, col);
	}
	rc = load_skypilot(a, buf, split, pos, line, col);
	pthread_join(th, NULL);
	if (!rc && !hb.rc)
		rc = merge_second_half(a, b);
	else
		rc = -1;
	free(b->seen);
	free(b);
	offer_set_free(&tmp);
	return rc;
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
			snprintf(err, errlen, "%s: out of memory", fname);
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
		snprintf(err, errlen, "%s:1: expected a CSV header (SkyPilot vms.csv or gpurent offers)", fname);
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
			if (col[c] < 0 && (own || c == SK_ACCEL || c == SK_COUNT || c == SK_PRICE)) {
				snprintf(err, errlen, "%s:1: %s: required column missing from the header",
					 fname, names[c]);
				return -1;
			}
		}
	}
	nr = realloc(s->reports, (s->nreports + 1) * sizeof(*nr));
	if (!nr) {
		snprintf(err, errlen, "%s: out of memory", fname);
		return -1;
	}
	s->reports = nr;
	memset(&nr[s->nreports], 0, sizeof(*nr));
	snprintf(nr[s->nreports].path, sizeof(nr->path), "%s", fname);
	snprintf(nr[s->nreports].format, sizeof(nr->format), "%s", own ? "gpurent" : "skypilot");
	s->nreports++;

	ld = calloc(1, sizeof(*ld));
	if (!ld) {
		snprintf(err, errlen, "%s: out of memory", fname);
		return -1;
	}
	ld->set = s;
	ld->o = opts;
	ld->rep = &s->reports[s->nreports - 1];
	ld->fname = fname;
	ld->families = calloc(opts->gpus->n ? opts->gpus->n : 1, sizeof(*ld->families));
	if (!ld->families) {
		snprintf(err, errlen, "%s: out of memory", fname);
		goto out_free;
	}
	for (size_t i = 0; i < opts->gpus->n; i++)
		names_family(opts->gpus->v[i].name, ld->families[i], sizeof(ld->families[i]));
	ld->file_index = (uint32_t)(s->nreports - 1);
	/* size the duplicate table for the rows a catalog this long holds
	 * (records are rarely under 64 bytes), so it never grows mid-load */
	{
		bool two = !own && opts->match && opts->threads >= 2 && len - pos > (4u << 20);
		size_t cap = table_cap_for(two ? len / 2 : len);
		ld->seen = table_alloc(cap);
		ld->seen_cap = ld->seen ? cap : 0;
		rc = own ? load_own(ld, buf, len, pos, line, col) :
		     two ? load_skypilot_2(ld, buf, len, pos, line, col) :
		     load_skypilot(ld, buf, len, pos, line, col);
	}
	if (rc) {
		rc = -1;
		snprintf(err, errlen, "%s: out of memory", fname);
		goto out_free;
	}
	rc = 0;
out_free:
	free(ld->families);
	free(ld->seen);
	free(ld);
	return rc;
}
