/*
 * catalog_gpu.c - resolving a catalog's GPU name (and the memory its row
 * states) to a gpu_spec, through the loader's small cache; used by both
 * catalog readers. Internal: catalog_int.h.
 */
#include <math.h>
#include <string.h>

#include <xxhash.h>

#include "core/market/catalog_int.h"
#include "core/text/names.h"

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
const struct gpu_spec *resolve_gpu(struct loader *ld, const char *name, size_t nlen,
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
