/*
 * catalog_gcp.c - GCP offers are whole machines: SkyPilot's GCP vms.csv
 * lists each GPU as its own row (empty InstanceType, the GPU's price alone)
 * and the machines (a2-*, a3-*, a4-*, g2-*, n1-*) as CPU-only rows with the
 * host's price. As SkyPilot prices them (sky/catalog/gcp_catalog.py,
 * list_accelerators() and its _get_host_instance_type(); the tables
 * _ACC_INSTANCE_TYPE_DICTS, _NUM_ACC_TO_NUM_CPU, _DEFAULT_HOST_VM_FAMILY,
 * _DEFAULT_GPU_MEMORY_CPU_RATIO), each GPU row is joined with the cheapest
 * host VM in its zone that the GPU attaches to, once the whole file is
 * read: the hosts sorted by zone and price, so the first fit is the pick.
 * docs/offers.md "GCP". Internal: catalog_int.h.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/market/catalog_int.h"
#include "base/util.h"

/* SkyPilot's _ACC_INSTANCE_TYPE_DICTS: the machine types a GPU count needs
 * (A100 only on a2, L4 only on g2, H100/H200/B200 on a3/a4). */
static const struct {
	const char *acc;
	int count;
	const char *hosts[5];
} fixed_hosts[] = {
	{"A100", 1, {"a2-highgpu-1g"}},
	{"A100", 2, {"a2-highgpu-2g"}},
	{"A100", 4, {"a2-highgpu-4g"}},
	{"A100", 8, {"a2-highgpu-8g"}},
	{"A100", 16, {"a2-megagpu-16g"}},
	{"A100-80GB", 1, {"a2-ultragpu-1g"}},
	{"A100-80GB", 2, {"a2-ultragpu-2g"}},
	{"A100-80GB", 4, {"a2-ultragpu-4g"}},
	{"A100-80GB", 8, {"a2-ultragpu-8g"}},
	{"L4", 1, {"g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32"}},
	{"L4", 2, {"g2-standard-24"}},
	{"L4", 4, {"g2-standard-48"}},
	{"L4", 8, {"g2-standard-96"}},
	{"H100", 1, {"a3-highgpu-1g"}},
	{"H100", 2, {"a3-highgpu-2g"}},
	{"H100", 4, {"a3-highgpu-4g"}},
	{"H100", 8, {"a3-highgpu-8g"}},
	{"H100-MEGA", 8, {"a3-megagpu-8g"}},
	{"H200", 8, {"a3-ultragpu-8g"}},
	{"B200", 8, {"a4-highgpu-8g"}},
};

/* SkyPilot's _NUM_ACC_TO_NUM_CPU: the vCPUs of the n1 host other GPUs get
 * by default, for 1, 2, 4, 8 and 16 GPUs (0: that count has none); the
 * host also needs 4 GiB of RAM per vCPU (_DEFAULT_GPU_MEMORY_CPU_RATIO). */
static const struct {
	const char *acc;
	int cpus[5];
} n1_cpus[] = {
	{"K80", {4, 8, 16, 32, 64}},
	{"V100", {8, 16, 32, 64, 0}},
	{"T4", {4, 8, 48, 0, 0}},
	{"P100", {8, 16, 32, 64, 0}},
	{NULL, {8, 16, 32, 64, 128}},   /* DEFAULT: P4 and the rest */
};
#define N1_MEM_PER_CPU 4

/* SkyPilot's _DEFAULT_HOST_VM_FAMILY */
static const char *const n1_families[] = {"n1-standard-", "n1-highmem-", "n1-highcpu-"};

bool gcp_provider(const char *prov)
{
	return prov && !strncmp(prov, "gcp", 3) && (!prov[3] || prov[3] == '-' || prov[3] == '_');
}

static bool str_is(const char *p, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(p, s, len);
}

static bool is_n1(const char *p, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(n1_families); i++) {
		size_t n = strlen(n1_families[i]);
		if (len > n && !memcmp(p, n1_families[i], n))
			return true;
	}
	return false;
}

bool gcp_is_host(const char *p, size_t len)
{
	/* most machine rows are of other families (c4-, n2-, e2- ...): out at once */
	if (len < 4 || p[2] != '-' || !((p[0] == 'a' && p[1] >= '2' && p[1] <= '4') ||
					(p[0] == 'g' && p[1] == '2') || (p[0] == 'n' && p[1] == '1')))
		return false;
	if (is_n1(p, len))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(fixed_hosts); i++)
		for (size_t k = 0; k < ARRAY_SIZE(fixed_hosts[i].hosts) && fixed_hosts[i].hosts[k]; k++)
			if (str_is(p, len, fixed_hosts[i].hosts[k]))
				return true;
	return false;
}

int gcp_add_host(struct loader *ld, const struct gcp_host *h)
{
	struct gcp_join *j = &ld->gj;
	void *v = j->hosts;

	if (util_grow(&v, &j->hosts_cap, j->nhosts + 1, sizeof(*j->hosts)))
		return -1;
	j->hosts = v;
	j->hosts[j->nhosts] = *h;
	j->hosts[j->nhosts].seq = (uint32_t)j->nhosts;
	j->nhosts++;
	return 0;
}

int gcp_add_gpu(struct loader *ld, const struct gcp_gpu *g)
{
	struct gcp_join *j = &ld->gj;
	void *v = j->gpus;

	if (util_grow(&v, &j->gpus_cap, j->ngpus + 1, sizeof(*j->gpus)))
		return -1;
	j->gpus = v;
	j->gpus[j->ngpus++] = *g;
	return 0;
}

void gcp_free(struct loader *ld)
{
	free(ld->gj.hosts);
	free(ld->gj.gpus);
	memset(&ld->gj, 0, sizeof(ld->gj));
}

/* Zones compare ignoring case, as SkyPilot's .str.lower() does. */
static int cmp_zone(struct cat_str a, struct cat_str b)
{
	uint32_t n = a.len < b.len ? a.len : b.len;
	int r = n ? strncasecmp(a.p, b.p, n) : 0;   /* an empty place may have no pointer */

	return r ? r : (a.len > b.len) - (a.len < b.len);
}

static int cmp_host(const void *x, const void *y)
{
	const struct gcp_host *a = x, *b = y;
	int r = cmp_zone(a->zone, b->zone);

	if (r)
		return r;
	if (a->price != b->price)
		return a->price < b->price ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* What a GPU row of `count` GPUs attaches to: a fixed list (*names), or
 * an n1 host of at least *cpus vCPUs. false: no GCP host takes it. */
static bool host_rule(const struct cat_str *acc, double count, const char *const **names, int *cpus)
{
	static const int counts[5] = {1, 2, 4, 8, 16};
	bool listed = false;

	*names = NULL;
	*cpus = 0;
	for (size_t i = 0; i < ARRAY_SIZE(fixed_hosts); i++) {
		if (!str_is(acc->p, acc->len, fixed_hosts[i].acc))
			continue;
		listed = true;
		if (count == fixed_hosts[i].count) {
			*names = fixed_hosts[i].hosts;
			return true;
		}
	}
	if (listed)
		return false;   /* a count SkyPilot has no machine type for */
	for (size_t i = 0; i < ARRAY_SIZE(n1_cpus); i++) {
		if (n1_cpus[i].acc && !str_is(acc->p, acc->len, n1_cpus[i].acc))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(counts); k++)
			if (count == counts[k] && n1_cpus[i].cpus[k]) {
				*cpus = n1_cpus[i].cpus[k];
				return true;
			}
		return false;
	}
	return false;
}

static bool host_fits(const struct gcp_host *h, const char *const *names, int cpus)
{
	if (names) {
		for (size_t k = 0; k < ARRAY_SIZE(fixed_hosts[0].hosts) && names[k]; k++)
			if (str_is(h->name.p, h->name.len, names[k]))
				return true;
		return false;
	}
	return is_n1(h->name.p, h->name.len) && h->vcpus >= cpus && h->ram_gib >= (double)cpus * N1_MEM_PER_CPU;
}

int gcp_join(struct loader *ld)
{
	struct gcp_join *j = &ld->gj;

	if (j->nhosts)
		qsort(j->hosts, j->nhosts, sizeof(*j->hosts), cmp_host);
	/* number the zones: a zone's hosts are then scanned without comparing names */
	for (size_t i = 0; i < j->nhosts; i++)
		j->hosts[i].zone_no = !i ? 0 : j->hosts[i - 1].zone_no +
			(uint32_t)(cmp_zone(j->hosts[i - 1].zone, j->hosts[i].zone) != 0);
	for (size_t i = 0; i < j->ngpus; i++) {
		struct gcp_gpu *g = &j->gpus[i];
		struct offer o = g->o;
		const char *const *names;
		struct gcp_host *h = NULL;
		size_t lo = 0, hi = j->nhosts;
		int cpus;

		if (host_rule(&o.gpu_name, o.gpus, &names, &cpus)) {
			while (lo < hi) {   /* the zone's first host */
				size_t mid = lo + (hi - lo) / 2;
				if (cmp_zone(j->hosts[mid].zone, o.zone) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < j->nhosts && !cmp_zone(j->hosts[lo].zone, o.zone))
				for (size_t k = lo; k < j->nhosts && j->hosts[k].zone_no == j->hosts[lo].zone_no; k++)
					if (host_fits(&j->hosts[k], names, cpus)) {
						h = &j->hosts[k];
						break;
					}
		}
		if (!h) {
			ld->rep->no_host++;
			continue;
		}
		h->used = true;
		o.price += h->price;
		o.instance = h->name;
		o.host = h->name;
		o.vcpus = h->vcpus;
		o.ram_gib = h->ram_gib;
		if (g->spot_kind == 1)
			ld->rep->spot_placeholder++;
		else if (g->spot > 0 && h->has_spot) {
			double spot = g->spot + h->spot;
			if (spot >= o.price)
				spot_at_or_above(ld, &o, spot);
			else
				o.spot_price = spot;
		}
		if (g->mem_case == 1)
			ld->rep->mem_total_fixed++;
		else if (g->mem_case == 2)
			ld->rep->mem_from_spec++;
		if (!o.gpu) {
			struct csv_field name = {.p = o.gpu_name.p, .len = o.gpu_name.len};
			note_unknown(ld, &name);
		}
		if (push(ld, &o))
			return -1;
	}
	for (size_t i = 0; i < j->nhosts; i++)
		if (j->hosts[i].used) {
			ld->rep->cpu_only--;
			ld->rep->hosts_joined++;
		}
	return 0;
}
