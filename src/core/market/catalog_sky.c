/*
 * catalog_sky.c - the SkyPilot vms.csv reader: one row at a time in
 * prefetching batches, and a second thread for a large catalog, whose
 * half is merged back in order. Internal: catalog_int.h.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/market/catalog_int.h"
#include "core/market/provider.h"
#include "base/util.h"
#include "base/i18n.h"

/* 0 (no price) or a price a row can hold. */
static bool price_ok(double p)
{
	return p == 0 || (p >= CAT_MIN_PRICE && p <= CAT_MAX_PRICE);
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
#define PREFETCH_AHEAD 4096

/* GCP: keep a CPU-only row that can host GPUs (catalog_gcp.c) with what
 * the join needs; a row without a price cannot host. 0, or -1 out
 * of memory. */
static int gcp_host_row(struct loader *ld, const struct csv_field *f, int nf, const int *col)
{
	struct gcp_host hst;
	const struct csv_field *fi, *fz;
	double v;

	if (col[SK_INSTANCE] < 0 || col[SK_INSTANCE] >= nf)
		return 0;
	fi = &f[col[SK_INSTANCE]];
	if (!gcp_is_host(fi->p, fi->len))
		return 0;
	memset(&hst, 0, sizeof(hst));
	if (col[SK_PRICE] >= nf || catalog_parse_number(f[col[SK_PRICE]].p, f[col[SK_PRICE]].len, &hst.price) ||
	    !price_ok(hst.price))
		return 0;   /* no price (SkyPilot drops it): hosts nothing */
	/* a host at 0 is not billed apart from its GPUs (a4-highgpu-8g in the
	 * shared catalog: 0.0, 0.0), as SkyPilot adds it; a spot of 0 on a
	 * priced host is a placeholder: no spot */
	if (col[SK_SPOT] >= 0 && col[SK_SPOT] < nf && f[col[SK_SPOT]].len &&
	    !catalog_parse_number(f[col[SK_SPOT]].p, f[col[SK_SPOT]].len, &v) &&
	    ((v == 0 && hst.price == 0) || (v >= CAT_MIN_PRICE && v < 1e5 && v <= 100 * hst.price))) {
		hst.spot = v;
		hst.has_spot = true;
	}
	if (col[SK_VCPU] >= 0 && col[SK_VCPU] < nf &&
	    (catalog_parse_number(f[col[SK_VCPU]].p, f[col[SK_VCPU]].len, &hst.vcpus) ||
	     !(hst.vcpus >= CAT_MIN_VCPUS && hst.vcpus <= CAT_MAX_VCPUS)))
		return 0;
	if (col[SK_MEM] >= 0 && col[SK_MEM] < nf &&
	    (catalog_parse_number(f[col[SK_MEM]].p, f[col[SK_MEM]].len, &hst.ram_gib) ||
	     !(hst.ram_gib >= CAT_MIN_RAM_GIB && hst.ram_gib <= CAT_MAX_RAM_GIB)))
		return 0;
	fz = col[SK_ZONE] >= 0 && col[SK_ZONE] < nf && f[col[SK_ZONE]].len ? &f[col[SK_ZONE]] :
	     col[SK_REGION] >= 0 && col[SK_REGION] < nf ? &f[col[SK_REGION]] : NULL;
	if (!fz || !fz->len)
		return 0;
	hst.name = str_of(ld, fi);
	hst.zone = str_of(ld, fz);
	return gcp_add_host(ld, &hst);
}

/* The row's prices into o (zeroed): on-demand, and spot, *v as stated;
 * *spot_kind 0 a spot price kept, 1 a placeholder, 2 at or above
 * on-demand, SPOT_ONLY_CODE a spot-only offer. false, or true when the
 * row is done with (a bad price said, or counted as missing one). */
static bool sky_prices(struct loader *ld, const struct pending *pr, const int *col, struct offer *o,
		       double *v, int *spot_kind)
{
	const struct csv_field *f = pr->f, *fp = &f[col[SK_PRICE]];
	int nf = pr->nf;
	bool has_spot;

	if (fp->len && (catalog_parse_number(fp->p, fp->len, &o->price) || !price_ok(o->price))) {
		bad(ld, (uint32_t)pr->line, "Price", _("expected a price from 0 to 1e6 USD per hour"), fp);
		return true;
	}
	has_spot = col[SK_SPOT] >= 0 && col[SK_SPOT] < nf && f[col[SK_SPOT]].len;
	if (has_spot) {
		const struct csv_field *fs = &f[col[SK_SPOT]];
		if (catalog_parse_number(fs->p, fs->len, v) || *v < 0) {
			bad(ld, (uint32_t)pr->line, "SpotPrice", _("expected a price >= 0 in USD per hour"), fs);
			return true;
		}
		if (*v > 0 && *v < CAT_MIN_PRICE)
			*v = 0;   /* a sub-micro-dollar spot price is a placeholder too */
	}
	if (o->price == 0) {
		/* no on-demand price: a spot-only offer when a real spot
		 * price is stated (verda, spheron), else skipped; GCP's GPU
		 * rows are priced with their host, which needs on-demand */
		if (ld->gcp || !has_spot || !(*v >= CAT_MIN_PRICE && *v < 1e5)) {
			if (seen_hash(ld, pr->h, ROW_CODE(ROW_NOPRICE, 0, 0, 0)))
				ld->rep->duplicates++;
			else
				ld->rep->missing_price++;
			return true;
		}
		o->spot_only = true;
		o->spot_price = *v;
		*spot_kind = SPOT_ONLY_CODE;
	} else if (has_spot) {
		*spot_kind = *v == 0 || *v >= 1e5 || *v > 100 * o->price ? 1 : *v >= o->price ? 2 : 0;
		if (!*spot_kind)
			o->spot_price = *v;
	}
	return false;
}

/* The row's GpuInfo SizeInMiB (*size_mib), vCPUs and MemoryGiB (into o).
 * false, or true when one is bad (said). */
static bool sky_sizes(struct loader *ld, const struct pending *pr, const int *col, struct offer *o,
		      double *size_mib)
{
	const struct csv_field *f = pr->f;
	int nf = pr->nf;

	if (col[SK_GPUINFO] >= 0 && col[SK_GPUINFO] < nf) {
		*size_mib = gpuinfo_number(&f[col[SK_GPUINFO]], "SizeInMiB");
		if (!(*size_mib >= 0) || *size_mib > CAT_MAX_GPU_MIB) {
			bad(ld, (uint32_t)pr->line, "GpuInfo",
			    _("expected SizeInMiB from 0 to 1e9"), &f[col[SK_GPUINFO]]);
			return true;
		}
	}
	if (col[SK_VCPU] >= 0 && col[SK_VCPU] < nf && f[col[SK_VCPU]].len &&
	    (catalog_parse_number(f[col[SK_VCPU]].p, f[col[SK_VCPU]].len, &o->vcpus) ||
	     !(o->vcpus >= CAT_MIN_VCPUS) || o->vcpus > CAT_MAX_VCPUS)) {
		bad(ld, (uint32_t)pr->line, "vCPUs", _("expected a number from 0.001 to 1e5"), &f[col[SK_VCPU]]);
		return true;
	}
	if (col[SK_MEM] >= 0 && col[SK_MEM] < nf && f[col[SK_MEM]].len &&
	    (catalog_parse_number(f[col[SK_MEM]].p, f[col[SK_MEM]].len, &o->ram_gib) ||
	     !(o->ram_gib >= CAT_MIN_RAM_GIB) || o->ram_gib > CAT_MAX_RAM_GIB)) {
		bad(ld, (uint32_t)pr->line, "MemoryGiB", _("expected a number from 0.001 to 1e7"), &f[col[SK_MEM]]);
		return true;
	}
	return false;
}

/* A loaded row's counts in the report: its spot price (spot_kind, v as
 * stated), its memory (mem_case), an unknown GPU (fa as written); and
 * o's memory from its spec. A GCP GPU row (gcp_gpu) is counted once joined. */
static void sky_count(struct loader *ld, struct offer *o, const struct csv_field *fa, int spot_kind,
		      int mem_case, bool gcp_gpu, double v)
{
	if (spot_kind == 1)
		ld->rep->spot_placeholder++;
	else if (spot_kind == 2)
		spot_at_or_above(ld, o, v);
	else if (spot_kind == SPOT_ONLY_CODE)
		ld->rep->spot_only++;
	if (mem_case == 1 && !gcp_gpu)
		ld->rep->mem_total_fixed++;
	else if (mem_case == 2 && !gcp_gpu)
		ld->rep->mem_from_spec++;
	if (o->gpu) {
		/* matched to a spec: its nominal memory, as the estimate's tiers use */
		o->gpu_mem = o->gpu->memory_bytes;
	} else if (!gcp_gpu) {   /* a joined row is noted once it is an offer */
		note_unknown(ld, fa);
	}
}

/* A row whose AcceleratorCount is below 1 is a slice of one card (Azure's
 * Standard_NV6ads_A10_v5: 0.167 of an A10, as SkyPilot's fetcher writes it,
 * skypilot-org/skypilot@40654dda sky/catalog/data_fetchers/fetch_azure.py
 * AZURE_FRACTIONAL_A10_INS_TYPE_TO_NUM_GPUS; Microsoft: 1/6 GPU, 4 GiB,
 * learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nvadsa10v5-series).
 * Its memory is its own: GpuInfo's SizeInMiB when stated below the card's,
 * else its share of the card's; its compute, o->gpus, is the share. */
static void sky_slice(struct offer *o, double size_mib)
{
	double card = o->gpu ? o->gpu->memory_bytes : o->gpu_mem;

	o->is_slice = true;
	o->gpu_mem = size_mib > 0 && size_mib * 1048576.0 < card ? size_mib * 1048576.0 : card * o->gpus;
}

/* What names offer o and where it is: its provider prov, instance, region
 * and zone as the catalog states them (a task's infra matches each whole;
 * the GCP join matches on the zone), the GPU as written (fa), supply and
 * the row it came from. */
static void sky_place(struct loader *ld, const struct pending *pr, const int *col, const struct csv_field *fa,
		      const char *prov, enum supply_type supply, struct offer *o)
{
	const struct csv_field *f = pr->f;
	int nf = pr->nf;

	o->fp = pr->h;
	o->provider.p = prov;
	o->provider.len = (uint32_t)strlen(prov);
	if (col[SK_INSTANCE] >= 0 && col[SK_INSTANCE] < nf)
		o->instance = str_of(ld, &f[col[SK_INSTANCE]]);
	if (col[SK_ZONE] >= 0 && col[SK_ZONE] < nf && f[col[SK_ZONE]].len)
		o->zone = str_of(ld, &f[col[SK_ZONE]]);
	if (col[SK_REGION] >= 0 && col[SK_REGION] < nf)
		o->region = str_of(ld, &f[col[SK_REGION]]);
	if (!o->region.len)
		o->region = o->zone;
	o->gpu_name = str_of(ld, fa);
	o->supply = supply;
	o->billing = o->provider;
	o->file = ld->file_index;
	o->line = (uint32_t)pr->line;
}

/* One SkyPilot row, already split and fingerprinted. 0, or -1 out of memory. */
static int sky_row(struct loader *ld, const struct pending *pr, const int *col, const char *prov,
		   enum supply_type supply)
{
	const struct csv_field *f = pr->f, *fa;
	int nf = pr->nf;
	size_t rec_line = pr->line;
	uint64_t h = pr->h;
	struct offer o;
	double count = 0, size_mib = 0, v = 0, raw_spot = 0;
	int mem_case, spot_kind = 0, gcp_kind = 0;
	bool ambiguous, gcp_gpu = false;

	if (!h) {
		char what[64];
		snprintf(what, sizeof(what), _("expected the header's fields, got %d"), nf);
		bad(ld, (uint32_t)rec_line, "(row)", what, NULL);
		return 0;
	}
	fa = &f[col[SK_ACCEL]];
	if (fa->len && (catalog_parse_number(f[col[SK_COUNT]].p, f[col[SK_COUNT]].len, &count) ||
			count < 0 || (count > 0 && count < CAT_MIN_GPUS) || count > CAT_MAX_GPUS)) {
		bad(ld, (uint32_t)rec_line, "AcceleratorCount",
		    _("expected a number from 0.001 to 1024 (0 for none)"), &f[col[SK_COUNT]]);
		return 0;
	}
	if (!fa->len || count <= 0) {
		if (seen_hash(ld, h, ROW_CODE(ROW_CPU, 0, 0, 0))) {
			ld->rep->duplicates++;
			return 0;
		}
		ld->rep->cpu_only++;
		return ld->gcp && gcp_host_row(ld, f, nf, col) ? -1 : 0;
	}
	memset(&o, 0, sizeof(o));
	if (sky_prices(ld, pr, col, &o, &v, &spot_kind))
		return 0;
	/* GCP: a GPU row alone (no InstanceType) waits for its host VM;
	 * TPU rows are not GPUs and stay as they are */
	gcp_gpu = ld->gcp && (col[SK_INSTANCE] < 0 || col[SK_INSTANCE] >= nf || !f[col[SK_INSTANCE]].len) &&
		  !(fa->len > 4 && !memcmp(fa->p, "tpu-", 4));
	if (gcp_gpu) {
		raw_spot = spot_kind != 1 ? v : 0;
		gcp_kind = spot_kind == 1;
		spot_kind = 0;   /* decided on the joined prices */
		o.spot_price = 0;
	}
	if (sky_sizes(ld, pr, col, &o, &size_mib))
		return 0;
	o.gpus = count;
	o.gpu = resolve_gpu(ld, fa->p, fa->len, size_mib, count, 0, &mem_case, &ambiguous);
	if (ambiguous && col[SK_INSTANCE] >= 0 && col[SK_INSTANCE] < nf) {
		int hint = instance_hint(&f[col[SK_INSTANCE]]);
		if (hint)
			o.gpu = resolve_gpu(ld, fa->p, fa->len, size_mib, count, hint, &mem_case, &ambiguous);
	}
	if (!o.gpu) {
		/* no specs: the memory the catalog states, per GPU */
		bool divided;
		o.gpu_mem = catalog_gpuinfo_per_gpu(prov, size_mib, count, &divided) * 1048576.0;
		if (divided)
			mem_case = 1;
	}
	if (seen_hash(ld, h, ROW_CODE(ROW_LOADED, spot_kind, mem_case, !o.gpu))) {
		ld->rep->duplicates++;
		return 0;
	}
	sky_count(ld, &o, fa, spot_kind, mem_case, gcp_gpu, v);
	if (count < 1)
		sky_slice(&o, size_mib);
	sky_place(ld, pr, col, fa, prov, supply, &o);
	if (gcp_gpu) {
		struct gcp_gpu g = {.o = o, .spot = raw_spot, .spot_kind = gcp_kind, .mem_case = mem_case};
		return gcp_add_gpu(ld, &g) ? -1 : 0;
	}
	return push(ld, &o) ? -1 : 0;
}

/* The records that start in [pos, stop) of buf (len bytes: the last one
 * may run past stop). Where it stopped: ld->end_pos, ld->end_line, and
 * ld->unterminated when a quoted field never closed (nothing after it is
 * read). 0, or -1 out of memory. */
static int load_sky_range(struct loader *ld, const char *buf, size_t len, size_t pos, size_t stop,
			  size_t line, const int *col)
{
	struct pending *batch;
	enum supply_type supply = SUPPLY_UNKNOWN;
	const char *prov = ld->o->provider ? ld->o->provider : "";
	const struct provider *pv = provider_by_sky_cloud(prov, false);

	if (pv)   /* the supply of a cloud core/market/provider.c knows */
		supply = pv->supply;
	if (gcp_provider(prov))   /* gcp, or a fixture named gcp-* */
		supply = SUPPLY_HYPERSCALER;
	if (supply == SUPPLY_UNKNOWN && *prov)
		supply = SUPPLY_AI_CLOUD;

	struct csv_scan scan = CSV_SCAN_INIT;
	/* the fields a CPU-only row is known by (GCP keeps its host rows whole) */
	int head = ld->gcp ? MAX_FIELDS : col[SK_ACCEL] + 1;

	batch = malloc(BATCH * sizeof(*batch));
	if (!batch)
		return -1;
	/* Rows go in batches: split and fingerprint a batch, prefetch each
	 * duplicate-table slot, then parse them: the cache misses overlap. */
	while (pos < stop) {
		int nb = 0, cut = 0;
		while (nb < BATCH && pos < stop) {
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
			/* the bytes a page ahead: the hardware's stream prefetch
			 * does not keep up here (the duplicate table's random
			 * probes share the line fill buffers); 4096 measured with
			 * bench/offers.sh: CPU 99 -> 83 ms, 512-16384 alike */
			if (pos + PREFETCH_AHEAD < len)
				__builtin_prefetch(buf + pos + PREFETCH_AHEAD);
			{
				/* the fields up to AcceleratorName first: a CPU-only
				 * row (most rows) needs no more than its field count */
				size_t pos0 = pos, line0 = line;
				pr->nf = csv_scan_next(&scan, buf, len, &pos, &line, pr->f, head, &rec, &rec_len);
				if (pr->nf > head && pr->f[col[SK_ACCEL]].len) {
					pos = pos0;
					line = line0;
					pr->nf = csv_scan_next(&scan, buf, len, &pos, &line, pr->f, MAX_FIELDS,
							       &rec, &rec_len);
				}
			}
			if (pr->nf < 0) {
				cut = 1;
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
		if (cut) {
			bad(ld, (uint32_t)batch[nb].line, "(row)", _("unterminated quoted field"), NULL);
			ld->unterminated = true;
			break;
		}
	}
	ld->end_line = line;
	ld->end_pos = pos;
	free(batch);
	return 0;
}

int load_skypilot(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
			 const int *col)
{
	return load_sky_range(ld, buf, len, pos, len, line, col);
}

/* ---- two threads for a large SkyPilot catalog ---- */

/* Where the second thread starts: after the first newline past the middle
 * of [pos, len), or 0 if there is none. A guess: the newline may be inside
 * a quoted field; the first thread, which reads up to it, tells (a record
 * of its own then runs past it), and the guess is dropped. */
static size_t find_split(const char *buf, size_t pos, size_t len)
{
	size_t mid = pos + (len - pos) / 2;
	const char *nl = memchr(buf + mid, '\n', len - mid);

	return nl && (size_t)(nl - buf) + 1 < len ? (size_t)(nl - buf) + 1 : 0;
}

struct half {
	struct loader *ld;
	const char *buf;
	size_t len, pos, line;
	const int *col;
	int rc;
};

static void *run_half(void *arg)
{
	struct half *h = arg;
	struct loader *b = h->ld;

	/* its own duplicate table, zeroed here while the first thread zeroes its */
	b->seen = table_alloc(b->seen_cap);
	if (!b->seen)
		b->seen_cap = 0;
	h->rc = load_skypilot(b, h->buf, h->len, h->pos, h->line, h->col);
	/* its entries packed to the front, for the merge to walk without
	 * branching on empty slots (the table is not asked again); no branch
	 * here either: every slot is copied, the count moves by non-empty */
	{
		size_t k = 0;
		for (size_t i = 0; i < b->seen_cap; i++) {
			b->seen[k] = b->seen[i];
			k += b->seen[i] != 0;
		}
		b->seen_n = k;
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* What the first half's table says of a slice of the second's: the rows
 * it had already (their fingerprints, cross), and the counts to undo. */
struct probe {
	const struct loader *a, *b;
	size_t from, to;
	uint64_t *cross;
	size_t ncross, cross_cap;
	struct catalog_report undo;   /* what to take off the second half's counts */
	int rc;
};

static void *probe_run(void *arg)
{
	struct probe *p = arg;
	const struct loader *a = p->a, *b = p->b;
	struct catalog_report *u = &p->undo;

	for (size_t i = p->from; i < p->to; i++) {
		uint64_t e = b->seen[i];
		/* the probe 16 entries ahead: its cache line arrives in time */
		if (i + 16 < p->to && a->seen_cap)
			__builtin_prefetch(&a->seen[slot_of(b->seen[i + 16], a->seen_cap)]);
		if (!table_has(a->seen, a->seen_cap, e))
			continue;
		switch (e & 3) {
		case ROW_LOADED: {
			int spot = (int)(e >> 2 & 3), mem = (int)(e >> 4 & 3);
			if (p->ncross == p->cross_cap) {
				size_t ncap = p->cross_cap ? p->cross_cap * 2 : 64;
				uint64_t *nc = realloc(p->cross, ncap * sizeof(*nc));
				if (!nc) {
					p->rc = -1;
					return NULL;
				}
				p->cross = nc;
				p->cross_cap = ncap;
			}
			p->cross[p->ncross++] = e & FP_MASK;
			u->loaded++;
			u->spot_placeholder += spot == 1;
			u->spot_above_price += spot == 2;
			u->spot_only += spot == SPOT_ONLY_CODE;
			u->mem_total_fixed += mem == 1;
			u->mem_from_spec += mem == 2;
			u->unknown_gpu += (e >> 6) & 1;
			break;
		}
		case ROW_CPU:
			u->cpu_only++;
			break;
		case ROW_NOPRICE:
			u->missing_price++;
			break;
		}
		u->duplicates++;
	}
	return NULL;
}

/* Probe the second half's table against the first's, its two halves on
 * two threads (one where a thread cannot start); the fingerprints the
 * first half had go to *cross (sorted), the counts they stood for come
 * off rb. 0, or -1 out of memory. */
static int probe_halves(const struct loader *a, const struct loader *b, uint64_t **cross, size_t *ncross)
{
	struct probe p[2];
	struct catalog_report *rb = b->rep;
	pthread_t th;
	bool two;
	int rc = 0;

	memset(p, 0, sizeof(p));
	for (int k = 0; k < 2; k++) {
		p[k].a = a;
		p[k].b = b;
		p[k].from = k ? b->seen_n / 2 : 0;
		p[k].to = k ? b->seen_n : b->seen_n / 2;
	}
	two = !pthread_create(&th, NULL, probe_run, &p[1]);
	probe_run(&p[0]);
	if (two)
		pthread_join(th, NULL);
	else
		probe_run(&p[1]);
	for (int k = 0; k < 2; k++) {
		const struct catalog_report *u = &p[k].undo;
		rc |= p[k].rc;
		rb->loaded -= u->loaded;
		rb->spot_placeholder -= u->spot_placeholder;
		rb->spot_above_price -= u->spot_above_price;
		rb->spot_only -= u->spot_only;
		rb->mem_total_fixed -= u->mem_total_fixed;
		rb->mem_from_spec -= u->mem_from_spec;
		rb->unknown_gpu -= u->unknown_gpu;
		rb->cpu_only -= u->cpu_only;
		rb->missing_price -= u->missing_price;
		rb->duplicates += u->duplicates;
	}
	*cross = NULL;
	*ncross = 0;
	if (!rc && p[0].ncross + p[1].ncross) {
		*cross = realloc(p[0].cross, (p[0].ncross + p[1].ncross) * sizeof(**cross));
		if (*cross) {
			p[0].cross = NULL;
			if (p[1].ncross)
				memcpy(*cross + p[0].ncross, p[1].cross, p[1].ncross * sizeof(**cross));
			*ncross = p[0].ncross + p[1].ncross;
			qsort(*cross, *ncross, sizeof(**cross), cmp_u64);
		} else {
			rc = -1;
		}
	}
	free(p[0].cross);
	free(p[1].cross);
	return rc;
}

/* Fold the second half (b, with its offers in b->set) into the first (a):
 * rows whose fingerprint the first half has already seen become
 * duplicates (their counts undone through the code kept in the table),
 * the rest of its offers go through keep, in order. */
static int merge_second_half(struct loader *a, struct loader *b)
{
	struct catalog_report *ra = a->rep, *rb = b->rep;
	struct offer_set *s = a->set, *t = b->set;
	uint64_t *cross = NULL;   /* fingerprints the first half already had, sorted */
	size_t ncross = 0;

	if (probe_halves(a, b, &cross, &ncross))
		return -1;
	ra->rows += rb->rows;
	ra->loaded += rb->loaded;
	ra->cpu_only += rb->cpu_only;
	ra->missing_price += rb->missing_price;
	ra->duplicates += rb->duplicates;
	ra->bad_rows += rb->bad_rows;
	ra->spot_placeholder += rb->spot_placeholder;
	ra->spot_above_price += rb->spot_above_price;
	ra->spot_only += rb->spot_only;
	ra->unknown_gpu += rb->unknown_gpu;
	ra->mem_total_fixed += rb->mem_total_fixed;
	ra->mem_from_spec += rb->mem_from_spec;
	ra->no_host += rb->no_host;
	ra->hosts_joined += rb->hosts_joined;
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
	b->msgs = NULL;
	b->msg_lines = NULL;
	b->nmsgs = 0;
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
	/* the second half's peer prices, less the rows the first half had */
	for (size_t i = 0; i < t->npeers; i++) {
		uint64_t key = b->peer_fp[i] & FP_MASK;
		if (ncross && bsearch(&key, cross, ncross, sizeof(*cross), cmp_u64))
			continue;
		if (s->npeers == s->peers_cap) {
			size_t ncap = s->peers_cap ? s->peers_cap * 2 : 256;
			struct offer_peer *np = realloc(s->peers, ncap * sizeof(*np));
			if (!np) {
				free(cross);
				return -1;
			}
			s->peers = np;
			s->peers_cap = ncap;
		}
		s->peers[s->npeers++] = t->peers[i];
	}
	for (size_t i = 0; i < t->n; i++) {
		struct offer *o = &t->v[i];
		bool dup = false;
		o->line += (uint32_t)(a->end_line - 1);
		uint64_t key = o->fp & FP_MASK;
		dup = ncross && bsearch(&key, cross, ncross, sizeof(*cross), cmp_u64);
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

/* The first loader's duplicate table, for bytes of catalog, unless it has one. */
static void own_table(struct loader *a, size_t bytes)
{
	if (a->seen)
		return;
	a->seen_cap = table_cap_for(bytes);
	a->seen = table_alloc(a->seen_cap);
	if (!a->seen)
		a->seen_cap = 0;
}

/* A second half that is not merged: what it holds goes. */
static void drop_half(struct loader *b)
{
	for (size_t i = 0; i < b->nmsgs; i++)
		free(b->msgs[i]);
	free(b->msgs);
	free(b->msg_lines);
	free(b->seen);
	free(b->peer_fp);
	free(b);
}

/* Both halves at once; falls back to one thread when a thread cannot start.
 * The first loader comes without a duplicate table: each thread zeroes its
 * own. When the split guessed is not where a record starts (a quoted field
 * spans it), the second half is dropped and the first reads on. */
int load_skypilot_2(struct loader *a, const char *buf, size_t len, size_t pos, size_t line,
			   const int *col)
{
	size_t split = find_split(buf, pos, len);
	struct loader *b;
	struct offer_set tmp;
	struct catalog_report rb;
	struct half hb;
	pthread_t th;
	int rc = -1;

	if (!split || !(b = calloc(1, sizeof(*b)))) {
		own_table(a, len - pos);
		return load_skypilot(a, buf, len, pos, line, col);
	}
	offer_set_init(&tmp);
	memset(&rb, 0, sizeof(rb));
	b->set = &tmp;
	b->o = a->o;
	b->rep = &rb;
	b->fname = a->fname;
	b->families = a->families;   /* read-only */
	b->file_index = a->file_index;
	b->second = true;
	b->seen_cap = table_cap_for(len - split);   /* allocated by its thread */
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
		drop_half(b);
		offer_set_free(&tmp);
		own_table(a, len - pos);
		return load_skypilot(a, buf, len, pos, line, col);
	}
	own_table(a, split - pos);
	rc = load_sky_range(a, buf, len, pos, split, line, col);
	pthread_join(th, NULL);
	if (rc || hb.rc)
		rc = -1;
	else if (a->unterminated)
		rc = 0;   /* one thread would have stopped there too */
	else if (a->end_pos != split)   /* the guess was inside a record */
		rc = load_sky_range(a, buf, len, a->end_pos, len, a->end_line, col);
	else
		rc = merge_second_half(a, b);
	drop_half(b);
	offer_set_free(&tmp);
	return rc;
}
