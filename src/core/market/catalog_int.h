/*
 * catalog_int.h - internal to the catalog loader (catalog.c, catalog_gpu.c,
 * catalog_sky.c, catalog_own.c); not a public interface: callers use
 * catalog.h. The loader's state, the row limits, the duplicate table's
 * fingerprint codes and the helpers the readers share.
 */
#ifndef GPURENT_CATALOG_INT_H
#define GPURENT_CATALOG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* XXH3 inline in the loader: a row is 60-200 bytes, which XXH3 hashes in a
 * few dozen instructions, less than the call through the shared library */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/market/catalog.h"
#include "core/text/csv.h"

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

struct gpu_cache_entry {
	uint64_t key;
	const struct gpu_spec *gpu;
	int mem_case;   /* 0 per-GPU as given, 1 total fixed, 2 from spec, 3 none */
	bool ambiguous; /* variants of equal memory: the form factor would decide */
	bool used;
};

#define GPU_CACHE 1024

/* GCP: a host VM row (a2-*, g2-*, n1-* ...) kept for the join (catalog_gcp.c) */
struct gcp_host {
	struct cat_str name, zone;
	double price, spot, vcpus, ram_gib;   /* price 0: not billed apart from the GPUs */
	bool has_spot;
	uint32_t seq;            /* row order: of equal prices the first wins */
	uint32_t zone_no;        /* after sorting: the zone's number */
	bool used;
};

/* GCP: a GPU row (empty InstanceType) waiting for its host */
struct gcp_gpu {
	struct offer o;          /* the GPU alone: price, spot unset */
	double spot;             /* SpotPrice as read, 0 = none */
	int spot_kind;           /* 1: a placeholder (0, sentinel) */
	int mem_case;
};

struct gcp_join {
	struct gcp_host *hosts;
	size_t nhosts, hosts_cap;
	struct gcp_gpu *gpus;
	size_t ngpus, gpus_cap;
};

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
	size_t end_pos;           /* and the byte */
	bool unterminated;        /* it stopped at a quoted field that never closed */
	bool gcp;                 /* join GPU rows with host VM rows (catalog_gcp.c) */
	struct gcp_join gj;
	const char *peer_prov;    /* the provider whose hash peer_hash is */
	uint32_t peer_prov_len, peer_hash;
	uint64_t *peer_fp;        /* second: each peer sample's row fingerprint */
	char msg[512];
};

/* ---- duplicate detection (catalog.c; the small parts inline here) ---- */

/* A record's fingerprint: XXH3-64 of its bytes (exact duplicates only need
 * equal records to hash equal; 56 compared bits make a false match
 * negligible: ~n^2/2^57, 7e-6 for a million rows). */
static inline uint64_t hash_record(const char *p, size_t n)
{
	return XXH3_64bits(p, n);
}

/* A fingerprint's home slot: from the compared bits only, so an entry
 * (whose low bits hold its code) finds the same slot as the raw hash. */
static inline size_t slot_of(uint64_t h, size_t cap)
{
	return (size_t)(h >> 8) & (cap - 1);
}

static inline void seen_prefetch(const struct loader *ld, uint64_t h)
{
	if (ld->seen_cap)
		__builtin_prefetch(&ld->seen[slot_of(h, ld->seen_cap)]);
}

/* Fingerprints are compared on their upper 56 bits; the low 8 hold the
 * code of what the row counted as (see seen_hash()). */
#define FP_MASK (~(uint64_t)0xFF)
enum { ROW_LOADED = 1, ROW_CPU = 2, ROW_NOPRICE = 3 };
/* the spot field of a loaded row's code: 0 as read, 1 placeholder, 2 at or
 * above on-demand, SPOT_ONLY_CODE a spot-only offer */
#define SPOT_ONLY_CODE 3
#define ROW_CODE(cat, spot, mem, unknown) ((uint64_t)(cat) | (uint64_t)(spot) << 2 | \
					  (uint64_t)(mem) << 4 | (uint64_t)(unknown) << 6)

static inline bool table_has(const uint64_t *t, size_t cap, uint64_t h)
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

/* Column indexes: SkyPilot vms.csv (catalog_sky.c), gpurent's own offers
 * (catalog_own.c); catalog_load() maps the header onto them. */
enum sky_col { SK_INSTANCE, SK_ACCEL, SK_COUNT, SK_VCPU, SK_MEM, SK_PRICE, SK_SPOT, SK_REGION,
	       SK_GPUINFO, SK_ZONE, SK_N };
enum own_col { OC_PROVIDER, OC_SUPPLY, OC_INSTANCE, OC_REGION, OC_GPU, OC_COUNT, OC_SLICE,
	       OC_MEM, OC_VCPU, OC_RAM, OC_DISK, OC_PERSIST, OC_PRICE, OC_SPOT, OC_CURRENCY,
	       OC_BILLING, OC_QUEUE, OC_MAXRUN, OC_SOURCE, OC_DATE, OC_ACCESS, OC_N };
#define OC_REQUIRED OC_ACCESS   /* the columns before it are required */
extern const char *const own_cols[OC_N];

/* catalog.c */
char *arena_alloc(struct offer_set *s, size_t n);
bool seen_hash(struct loader *ld, uint64_t h, uint64_t code);
uint64_t *table_alloc(size_t cap);
size_t table_cap_for(size_t bytes);
void bad(struct loader *ld, uint32_t line, const char *field, const char *what,
	 const struct csv_field *f);
struct cat_str str_of(struct loader *ld, const struct csv_field *f);
int push(struct loader *ld, const struct offer *o);
void note_unknown(struct loader *ld, const struct csv_field *name);

/* catalog_gpu.c */
const struct gpu_spec *resolve_gpu(struct loader *ld, const char *name, size_t nlen,
				   double size_mib, double count, int hint, int *mem_case,
				   bool *ambiguous);

/* catalog_sky.c */
int load_skypilot(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
		  const int *col);
int load_skypilot_2(struct loader *a, const char *buf, size_t len, size_t pos, size_t line,
		    const int *col);

/* catalog.c: the spot price of a row that states one at or above its
 * on-demand price (counted; suspect, or dropped when trusted) */
void spot_at_or_above(struct loader *ld, struct offer *o, double spot);

/* catalog_gcp.c */
bool gcp_provider(const char *prov);
bool gcp_is_host(const char *name, size_t len);
int gcp_add_host(struct loader *ld, const struct gcp_host *h);
int gcp_add_gpu(struct loader *ld, const struct gcp_gpu *g);
int gcp_join(struct loader *ld);
void gcp_free(struct loader *ld);

/* catalog_own.c */
int load_own(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
	     const int *col);

#endif
