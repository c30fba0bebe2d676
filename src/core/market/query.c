/*
 * query.c - parsing and evaluating offer queries (query.h).
 */
#include "core/market/query.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/i18n.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "core/text/units.h"
#include "base/util.h"

/* MUST stay sorted by name. */
const struct query_field query_fields[] = {
	{"arch", Q_STR, "", N_("GPU architecture (Ampere, Hopper, ...)")},
	{"billing", Q_STR, "", N_("billing profile name")},
	{"class", Q_STR, "", N_("GPU class: datacenter, workstation, consumer, tpu")},
	{"disk", Q_NUM, "GB", N_("instance disk")},
	{"gpu", Q_STR, "", N_("GPU: catalog name, alias or family (A100 matches 40 and 80 GB)")},
	{"gpu_mem", Q_NUM, "GB", N_("memory per GPU (a slice's own share)")},
	{"gpus", Q_NUM, "", N_("GPUs per instance")},
	{"instance", Q_STR, "", N_("instance type")},
	{"instance_price", Q_NUM, "USD/h", N_("on-demand price of the whole instance")},
	{"interconnect", Q_STR, "", N_("GPU link: nvlink, nvlink-bridge, pcie, ...")},
	{"max_runtime", Q_NUM, "h", N_("per-job time limit (campus HPC); 0 = none")},
	{"mem_bw", Q_NUM, "GB/s", N_("GPU memory bandwidth")},
	{"price", Q_NUM, "USD/GPU-h", N_("on-demand price per GPU-hour")},
	{"provider", Q_STR, "", N_("provider (catalog folder or provider column)")},
	{"queue_wait", Q_NUM, "h", N_("typical queue wait (campus HPC); 0 = none")},
	{"ram", Q_NUM, "GiB", N_("host memory")},
	{"region", Q_STR, "", N_("region")},
	{"slice", Q_BOOL, "", N_("a share of a GPU (MIG, vGPU, time-slice)")},
	{"spot", Q_BOOL, "", N_("a spot / interruptible price is offered")},
	{"spot_price", Q_NUM, "USD/GPU-h", N_("spot price per GPU-hour; 0 = none")},
	{"storage", Q_BOOL, "", N_("persistent storage survives a stop")},
	{"supply", Q_STR, "", N_("hyperscaler, ai-cloud, campus-hpc, serverless, marketplace")},
	{"tflops", Q_NUM, "TFLOPS", N_("dense BF16 (else FP16) tensor TFLOPS per GPU")},
	{"vcpus", Q_NUM, "", N_("host vCPUs")},
};
const size_t query_nfields = ARRAY_SIZE(query_fields);

enum {
	F_ARCH, F_BILLING, F_CLASS, F_DISK, F_GPU, F_GPU_MEM, F_GPUS, F_INSTANCE, F_INSTANCE_PRICE,
	F_INTERCONNECT, F_MAX_RUNTIME, F_MEM_BW, F_PRICE, F_PROVIDER, F_QUEUE_WAIT, F_RAM,
	F_REGION, F_SLICE, F_SPOT, F_SPOT_PRICE, F_STORAGE, F_SUPPLY, F_TFLOPS, F_VCPUS,
};

/*
 * vast.ai's names: vast-cli's vast.py (vast-ai/vast-cli commit
 * 55679830a2c2adcf5c7fad08bf08717a9591062a): offers_fields, offers_alias
 * (cuda_vers, display_active, dlperf_usd, dph, flops_usd), offers_mult
 * (cpu_ram, gpu_ram, gpu_total_ram in GB x 1000) and the field list of
 * `search offers --help`; "score" is its default sort key. SkyPilot's
 * fetch_vast.py writes a vast catalog row from cpu_cores (vCPUs),
 * cpu_ram / 1024 (MemoryGiB), search.totalHour (Price), min_bid
 * (SpotPrice) and geolocation (Region). MUST stay sorted by name.
 */
const struct query_vast_field query_vast_fields[] = {
	{"bw_nvlink", QV_LIVE, "", Q_NUM, "", "measured NVLink bandwidth of the host (unit undocumented)"},
	{"cluster_id", QV_LIVE, "", Q_NUM, "", "vast's cluster number"},
	{"compute_cap", QV_CONVERTED, "", Q_NUM, "",
	 "CUDA compute capability x 100 of the GPU (800 for 8.0), from its architecture in data/gpus.csv"},
	{"cpu_arch", QV_LIVE, "", Q_STR, "", "the host's CPU architecture"},
	{"cpu_cores", QV_ALIAS, "vcpus", Q_NUM, "", "vCPUs (fetch_vast.py writes cpu_cores as vCPUs)"},
	{"cpu_cores_effective", QV_ALIAS, "vcpus", Q_NUM, "", "vCPUs of the instance"},
	{"cpu_ghz", QV_LIVE, "", Q_NUM, "", "the host's CPU clock"},
	{"cpu_ram", QV_CONVERTED, "", Q_NUM, "GB",
	 "host memory as vast counts it: ram (GiB) x 1024 / 1000 (vast's cpu_ram is MiB, queried in thousands)"},
	{"cuda_max_good", QV_LIVE, "", Q_NUM, "", "the host driver's newest CUDA"},
	{"cuda_vers", QV_LIVE, "", Q_NUM, "", "vast's alias of cuda_max_good"},
	{"datacenter", QV_LIVE, "", Q_BOOL, "", "hosted in a vast-certified datacenter"},
	{"direct_port_count", QV_LIVE, "", Q_NUM, "", "open ports on the host's router"},
	{"disk_bw", QV_LIVE, "", Q_NUM, "", "measured disk read bandwidth"},
	{"disk_space", QV_ALIAS, "disk", Q_NUM, "", "instance disk, GB"},
	{"display_active", QV_LIVE, "", Q_BOOL, "", "vast's alias of gpu_display_active"},
	{"dlperf", QV_LIVE, "", Q_NUM, "", "vast's DLPerf score"},
	{"dlperf_per_dphtotal", QV_LIVE, "", Q_NUM, "", "DLPerf per $/h"},
	{"dlperf_usd", QV_LIVE, "", Q_NUM, "", "vast's alias of dlperf_per_dphtotal"},
	{"dph", QV_ALIAS, "instance_price", Q_NUM, "", "$/h of the whole instance (vast's alias of dph_total)"},
	{"dph_total", QV_ALIAS, "instance_price", Q_NUM, "", "$/h of the whole instance (fetch_vast.py's Price)"},
	{"driver_version", QV_LIVE, "", Q_STR, "", "the host's GPU driver"},
	{"duration", QV_LIVE, "", Q_NUM, "", "the host's maximum rental duration"},
	{"external", QV_LIVE, "", Q_BOOL, "", "an offer listed from outside vast"},
	{"flops_per_dphtotal", QV_CONVERTED, "", Q_NUM, "TFLOPS per $/h", "total_flops / instance_price"},
	{"flops_usd", QV_CONVERTED, "", Q_NUM, "TFLOPS per $/h",
	 "vast's alias of flops_per_dphtotal: total_flops / instance_price"},
	{"geolocation", QV_ALIAS, "region", Q_STR, "", "region, matched by its country code part (TW in \"Taiwan, TW, AS\")"},
	{"gpu_arch", QV_CONVERTED, "", Q_STR, "", "the GPU's vendor in data/gpus.csv (nvidia, amd)"},
	{"gpu_display_active", QV_LIVE, "", Q_BOOL, "", "a display is attached to the GPU"},
	{"gpu_frac", QV_LIVE, "", Q_NUM, "", "the offer's share of the host's GPUs"},
	{"gpu_max_power", QV_LIVE, "", Q_NUM, "", "the host's GPU power limit"},
	{"gpu_max_temp", QV_LIVE, "", Q_NUM, "", "the host's GPU temperature limit"},
	{"gpu_mem_bw", QV_ALIAS, "mem_bw", Q_NUM, "", "GPU memory bandwidth, GB/s (gpurent: the datasheet's; vast: measured)"},
	{"gpu_name", QV_ALIAS, "gpu", Q_STR, "", "GPU name; RTX_4090 = RTX 4090"},
	{"gpu_ram", QV_ALIAS, "gpu_mem", Q_NUM, "", "memory per GPU, GB"},
	{"gpu_total_ram", QV_CONVERTED, "", Q_NUM, "GB", "gpus x gpu_mem"},
	{"has_avx", QV_LIVE, "", Q_BOOL, "", "the host CPU has AVX"},
	{"host_id", QV_LIVE, "", Q_NUM, "", "vast's host number"},
	{"id", QV_LIVE, "", Q_NUM, "", "vast's offer number"},
	{"inet_down", QV_LIVE, "", Q_NUM, "", "measured download speed"},
	{"inet_down_cost", QV_LIVE, "", Q_NUM, "", "download price per GB"},
	{"inet_up", QV_LIVE, "", Q_NUM, "", "measured upload speed"},
	{"inet_up_cost", QV_LIVE, "", Q_NUM, "", "upload price per GB"},
	{"machine_id", QV_LIVE, "", Q_NUM, "", "vast's machine number"},
	{"min_bid", QV_CONVERTED, "", Q_NUM, "USD/h",
	 "spot price of the whole instance (fetch_vast.py's SpotPrice); no value where a catalog offers no spot"},
	{"mobo_name", QV_LIVE, "", Q_STR, "", "the host's motherboard"},
	{"num_gpus", QV_ALIAS, "gpus", Q_NUM, "", "GPUs per instance"},
	{"pci_gen", QV_LIVE, "", Q_NUM, "", "the host's PCIe generation"},
	{"pcie_bw", QV_LIVE, "", Q_NUM, "", "measured CPU-to-GPU bandwidth"},
	{"reliability", QV_LIVE, "", Q_NUM, "", "vast's reliability score"},
	{"rentable", QV_LIVE, "", Q_BOOL, "", "rentable now"},
	{"rented", QV_LIVE, "", Q_BOOL, "", "rented now (by you or others)"},
	{"score", QV_LIVE, "", Q_NUM, "", "vast's ranking score (its default -o score-)"},
	{"static_ip", QV_LIVE, "", Q_BOOL, "", "the host's IP address is static"},
	{"storage_cost", QV_LIVE, "", Q_NUM, "", "storage price per GB-month"},
	{"total_flops", QV_CONVERTED, "", Q_NUM, "TFLOPS",
	 "gpus x the GPU's dense FP32 TFLOPS in data/gpus.csv (assumption: vast does not say which precision)"},
	{"ubuntu_version", QV_LIVE, "", Q_STR, "", "the host's Ubuntu release"},
	{"verification", QV_LIVE, "", Q_STR, "", "vast's verification state"},
	{"verified", QV_LIVE, "", Q_BOOL, "", "vast has verified the machine"},
	{"vms_enabled", QV_LIVE, "", Q_BOOL, "", "the host runs VM instances"},
};
const size_t query_vast_nfields = ARRAY_SIZE(query_vast_fields);

int query_field_index(const char *name)
{
	for (size_t i = 0; i < query_nfields; i++)
		if (!strcmp(query_fields[i].name, name))
			return (int)i;
	return -1;
}

size_t query_field_count(void)
{
	return query_nfields + query_vast_nfields;
}

static const struct query_vast_field *vast_of(int field)
{
	if (field < (int)query_nfields || (size_t)field >= query_field_count())
		return NULL;
	return &query_vast_fields[(size_t)field - query_nfields];
}

const char *query_field_name(int field)
{
	const struct query_vast_field *v = vast_of(field);

	if (v)
		return v->name;
	return field >= 0 && (size_t)field < query_nfields ? query_fields[field].name : "";
}

enum qtype query_field_type(int field)
{
	const struct query_vast_field *v = vast_of(field);

	if (v)
		return v->type;
	return field >= 0 && (size_t)field < query_nfields ? query_fields[field].type : Q_NUM;
}

static const char *field_unit(int field)
{
	const struct query_vast_field *v = vast_of(field);

	if (v)
		return v->unit;
	return field >= 0 && (size_t)field < query_nfields ? query_fields[field].unit : "";
}

int query_field_lookup(const char *name, char *err, size_t errlen)
{
	char qv[QUOTE_KEEP * 4 + 8];
	struct names_suggest sg;
	int i = query_field_index(name);

	if (i >= 0)
		return i;
	for (size_t k = 0; k < query_vast_nfields; k++) {
		const struct query_vast_field *v = &query_vast_fields[k];
		if (strcmp(v->name, name))
			continue;
		switch (v->kind) {
		case QV_ALIAS: return query_field_index(v->target);
		case QV_CONVERTED: return (int)(query_nfields + k);
		case QV_LIVE:
			snprintf(err, errlen, _("%s: this field comes from vast's live API, not from price catalogs"), name);
			return -2;
		}
	}
	names_suggest_init(&sg, name);
	for (size_t k = 0; k < query_nfields; k++)
		names_suggest_add(&sg, query_fields[k].name);
	for (size_t k = 0; k < query_vast_nfields; k++)
		if (query_vast_fields[k].kind != QV_LIVE)
			names_suggest_add(&sg, query_vast_fields[k].name);
	quote_value(name, qv, sizeof(qv));
	if (sg.best[0])
		snprintf(err, errlen, _("%s: unknown field (did you mean '%s'?)"), qv, sg.best);
	else
		snprintf(err, errlen, _("%s: unknown field (see 'gpurent help offers')"), qv);
	return -1;
}

/*
 * CUDA compute capability x 100 by architecture (the prefix of gpus.csv's
 * `architecture`), NVIDIA's "CUDA GPU Compute Capability" table
 * (developer.nvidia.com/cuda-gpus) and the CUDA C++ Programming Guide's
 * "Compute Capabilities": GM20x 5.2, GP100 6.0, GP10x 6.1, Volta 7.0,
 * Turing 7.5, GA100 8.0, other Ampere chips 8.6, Ada 8.9, Hopper 9.0,
 * B200/GB200 10.0, B300 10.3, GB20x (RTX 50, RTX PRO) 12.0.
 * The first matching prefix wins.
 */
static const struct {
	const char *arch;
	double cc;
} cuda_caps[] = {
	{"Maxwell (GM20", 520}, {"Pascal (GP100", 600}, {"Pascal (GP10", 610}, {"Volta", 700},
	{"Turing", 750}, {"Ampere (GA100", 800}, {"Ampere", 860}, {"Ada Lovelace", 890},
	{"Hopper", 900}, {"Blackwell Ultra", 1030}, {"Blackwell (GB100", 1000}, {"Blackwell (GB20", 1200},
};

static double compute_cap(const struct gpu_spec *g)
{
	if (!g || strcasecmp(g->vendor, "NVIDIA"))
		return NAN;
	for (size_t i = 0; i < ARRAY_SIZE(cuda_caps); i++)
		if (!strncmp(g->arch, cuda_caps[i].arch, strlen(cuda_caps[i].arch)))
			return cuda_caps[i].cc;
	return NAN;
}

static double total_flops(const struct offer *o)
{
	if (!o->gpu || !(o->gpu->fp32_flops > 0))
		return NAN;
	return o->gpus * o->gpu->fp32_flops / 1e12;
}

static double vast_num(const struct query_vast_field *v, const struct offer *o)
{
	const char *n = v->name;

	if (!strcmp(n, "compute_cap"))
		return compute_cap(o->gpu);
	if (!strcmp(n, "cpu_ram"))
		return o->ram_gib * 1024 / 1000;
	if (!strcmp(n, "flops_per_dphtotal") || !strcmp(n, "flops_usd"))
		return o->price > 0 ? total_flops(o) / o->price : NAN;
	if (!strcmp(n, "gpu_total_ram"))
		return o->gpus * o->gpu_mem / 1e9;
	if (!strcmp(n, "min_bid"))
		return o->spot_price > 0 ? o->spot_price : NAN;
	if (!strcmp(n, "total_flops"))
		return total_flops(o);
	return NAN;
}

double query_num(int field, const struct offer *o)
{
	const struct gpu_spec *g = o->gpu;
	const struct query_vast_field *v = vast_of(field);

	if (v)
		return vast_num(v, o);
	/* 0 for a host figure or a GPU spec is "not stated" (catalog.h, gpu.h):
	 * no value, so that no clause on it matches (query.h) */
	switch (field) {
	case F_DISK: return o->disk_gb > 0 ? o->disk_gb : NAN;
	case F_GPU_MEM: return o->gpu_mem > 0 ? o->gpu_mem / 1e9 : NAN;
	case F_GPUS: return o->gpus;
	case F_INSTANCE_PRICE: return o->spot_only ? NAN : o->price;   /* spot-only: none on demand */
	case F_MAX_RUNTIME: return o->max_runtime / 3600;
	case F_MEM_BW: return g && g->mem_bw > 0 ? g->mem_bw / 1e9 : NAN;
	case F_PRICE: return offer_rank_per_gpu(o);   /* spot-only rows: their spot price */
	case F_QUEUE_WAIT: return o->queue_wait / 3600;
	case F_RAM: return o->ram_gib > 0 ? o->ram_gib : NAN;
	case F_SLICE: return o->is_slice;
	case F_SPOT: return o->spot_price > 0;
	case F_SPOT_PRICE: return offer_spot_per_gpu(o);
	case F_STORAGE: return o->persistent_storage;
	case F_TFLOPS: {
		double fl = g ? (g->bf16_flops > 0 ? g->bf16_flops : g->fp16_flops) : 0;
		return fl > 0 ? fl / 1e12 : NAN;
	}
	case F_VCPUS: return o->vcpus > 0 ? o->vcpus : NAN;
	}
	return 0;
}

static struct cat_str cs(const char *s)
{
	struct cat_str r = {s, (uint32_t)strlen(s)};
	return r;
}

struct cat_str query_str(int field, const struct offer *o, char *buf, size_t n)
{
	const struct gpu_spec *g = o->gpu;

	(void)buf;
	(void)n;
	if (vast_of(field))   /* gpu_arch, the one text field among them */
		return cs(g ? g->vendor : "");
	switch (field) {
	case F_ARCH: return cs(g ? g->arch : "");
	case F_BILLING: return o->billing;
	case F_CLASS: return cs(g ? gpu_class_name(g->cls) : "");
	case F_GPU: return g ? cs(g->name) : o->gpu_name;
	case F_INSTANCE: return o->instance;
	case F_INTERCONNECT: return cs(g ? gpu_link_name(g->link) : "");
	case F_PROVIDER: return o->provider;
	case F_REGION: return o->region;
	case F_SUPPLY: return cs(supply_type_name(o->supply));
	}
	return cs("");
}

/* ---- parsing ---- */

struct lexer {
	const char *p;
	char err[256];
};

static void skip_ws(struct lexer *lx)
{
	while (isspace((unsigned char)*lx->p))
		lx->p++;
}

/* A word or a quoted string into out. 0; -1 for none; -2 when it is
 * longer than n - 1 bytes (never truncated: a cut value would match
 * something else, or nothing, without a word). */
static int word(struct lexer *lx, char *out, size_t n)
{
	size_t k = 0;
	bool longer = false;

	skip_ws(lx);
	if (*lx->p == '"' || *lx->p == '\'') {
		char q = *lx->p++;
		while (*lx->p && *lx->p != q) {
			if (k + 1 < n)
				out[k++] = *lx->p;
			else
				longer = true;
			lx->p++;
		}
		if (*lx->p != q)
			return -1;
		lx->p++;
	} else {
		while (*lx->p && !isspace((unsigned char)*lx->p) && !strchr("<>=!~,[]", *lx->p)) {
			if (k + 1 < n)
				out[k++] = *lx->p;
			else
				longer = true;
			lx->p++;
		}
	}
	out[k] = '\0';
	if (longer)
		return -2;
	return k ? 0 : -1;
}

/* The message for a word() that failed with rc at what ("a value"). */
static int word_error(int rc, const char *name, const char *what, size_t max, char *err, size_t errlen)
{
	if (rc == -2)
		snprintf(err, errlen, _("query: %s: value longer than %zu characters"), name, max);
	else
		snprintf(err, errlen, _("query: %s: expected %s"), name, what);
	return -1;
}

static int parse_number_value(const char *v, int field, double *out)
{
	char tmp[QUERY_MAX_VALUE + 1], e[256];

	if (*v == '$')
		v++;
	if (strlen(v) >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, strlen(v) + 1);
	/* a plain decimal: strtod would take hex, inf and nan too */
	if (!units_scan_number(tmp, out))
		return 0;
	if (field == F_GPU_MEM || field == F_DISK || field == F_RAM) {
		double b;
		if (!units_parse_bytes(tmp, &b, e, sizeof(e))) {
			*out = field == F_RAM ? b / 1073741824.0 : b / 1e9;
			return 0;
		}
	}
	if (field == F_MAX_RUNTIME || field == F_QUEUE_WAIT) {
		double s;
		if (!units_parse_duration(tmp, &s, e, sizeof(e))) {
			*out = s / 3600;
			return 0;
		}
	}
	return -1;
}

static const char *op_name(enum qop op)
{
	static const char *const n[] = {"<", "<=", "==", "!=", ">=", ">", "in", "notin"};
	return n[op];
}

#define OPS_HELP "< <= == != >= > in notin, or eq neq gt gte lt lte nin 'not in'"

/* vast's word operators (vast.py parse_query's op_names), each between
 * blanks ("num_gpus gte 4") or before a list ("in[a,b]"). */
static const struct {
	const char *word;
	enum qop op;
} word_ops[] = {
	{"eq", QOP_EQ}, {"neq", QOP_NE}, {"noteq", QOP_NE}, {"not eq", QOP_NE}, {"gt", QOP_GT},
	{"gte", QOP_GE}, {"lt", QOP_LT}, {"lte", QOP_LE}, {"in", QOP_IN}, {"nin", QOP_NOTIN},
	{"notin", QOP_NOTIN}, {"not in", QOP_NOTIN},
};

/* A word operator at p: its length, and the op; 0 if none. "not  in"
 * takes any run of blanks between its words. */
static size_t word_op(const char *p, enum qop *op)
{
	size_t best = 0;

	for (size_t i = 0; i < ARRAY_SIZE(word_ops); i++) {
		const char *w = word_ops[i].word, *q = p;
		while (*w) {
			if (*w == ' ') {
				if (!isspace((unsigned char)*q))
					break;
				while (isspace((unsigned char)*q))
					q++;
				w++;
			} else if (*w == *q) {
				w++, q++;
			} else {
				break;
			}
		}
		if (*w || !(!*q || isspace((unsigned char)*q) || (*q == '[' && (word_ops[i].op == QOP_IN ||
									   word_ops[i].op == QOP_NOTIN))))
			continue;
		if ((size_t)(q - p) > best) {
			best = (size_t)(q - p);
			*op = word_ops[i].op;
		}
	}
	return best;
}

/* vast's wildcards: "field=any" asks for no filter on the field. */
static bool wildcard(const char *v)
{
	return !strcmp(v, "any") || !strcmp(v, "?") || !strcmp(v, "*");
}

/* The operator at lx->p into *op: 0, 1 for none there, -1 with err. */
static int parse_op(struct lexer *lx, const char *name, enum qop *op, char *err, size_t errlen)
{
	char qv[QUOTE_KEEP * 4 + 8];
	bool blank = isspace((unsigned char)*lx->p);
	size_t n;

	skip_ws(lx);
	if (!strncmp(lx->p, "<=", 2)) *op = QOP_LE, lx->p += 2;
	else if (!strncmp(lx->p, ">=", 2)) *op = QOP_GE, lx->p += 2;
	else if (!strncmp(lx->p, "==", 2)) *op = QOP_EQ, lx->p += 2;
	else if (!strncmp(lx->p, "!=", 2)) *op = QOP_NE, lx->p += 2;
	else if (*lx->p == '<') *op = QOP_LT, lx->p++;
	else if (*lx->p == '>') *op = QOP_GT, lx->p++;
	else if (*lx->p == '=') *op = QOP_EQ, lx->p++;
	else if (blank && (n = word_op(lx->p, op)))
		lx->p += n;
	else if (*lx->p && strchr("!~", *lx->p)) {
		snprintf(err, errlen, _("query: %s: unknown operator near '%s' (use %s)"), name,
			 quote_value_n(lx->p, strnlen(lx->p, 8), qv, sizeof(qv)), OPS_HELP);
		return -1;
	} else {
		return 1;
	}
	if (*lx->p && strchr("<>=!~", *lx->p)) {
		snprintf(err, errlen, _("query: %s: unknown operator near '%s%s' (use %s)"), name,
			 op_name(*op), quote_value_n(lx->p, strnlen(lx->p, 4), qv, sizeof(qv)), OPS_HELP);
		return -1;
	}
	return 0;
}

/* [a,b,...] into c (text normalised, or numbers for a number field). */
static int parse_list(struct lexer *lx, const char *name, struct query_clause *c, enum qtype type,
		      char *err, size_t errlen)
{
	char val[QUERY_MAX_VALUE + 1], qv[QUOTE_KEEP * 4 + 8];
	int rc;

	skip_ws(lx);
	if (*lx->p != '[') {
		snprintf(err, errlen, _("query: %s: expected a list like [a,b] after %s"), name, op_name(c->op));
		return -1;
	}
	lx->p++;
	for (;;) {
		if ((rc = word(lx, val, sizeof(val))) == -2)
			return word_error(rc, name, "", QUERY_MAX_VALUE, err, errlen);
		if (rc || c->nvals >= QUERY_MAX_LIST) {
			snprintf(err, errlen, _("query: %s: expected up to %d values in [a,b,...]"), name, QUERY_MAX_LIST);
			return -1;
		}
		if (type == Q_NUM) {
			if (parse_number_value(val, c->field, &c->nums[c->nvals])) {
				snprintf(err, errlen, _("query: %s: expected numbers in the list, got '%s'"), name,
					 quote_value(val, qv, sizeof(qv)));
				return -1;
			}
			c->vals[c->nvals][0] = '\0';
		} else {
			names_norm(val, c->vals[c->nvals], sizeof(c->vals[0]));
		}
		c->nvals++;
		skip_ws(lx);
		if (*lx->p == ',') {
			lx->p++;
			continue;
		}
		if (*lx->p == ']') {
			lx->p++;
			break;
		}
		snprintf(err, errlen, _("query: %s: expected ',' or ']' in the list"), name);
		return -1;
	}
	if (type == Q_BOOL) {
		snprintf(err, errlen, _("query: %s: a yes/no field takes == or !=, not %s"), name, op_name(c->op));
		return -1;
	}
	return 0;
}

int query_parse(const char *text, struct query *q, char *err, size_t errlen)
{
	struct lexer lx = {text, ""};
	char name[64], val[QUERY_MAX_VALUE + 1], qv[QUOTE_KEEP * 4 + 8], ferr[256];
	int rc;

	memset(q, 0, sizeof(*q));
	for (;;) {
		struct query_clause *c;
		enum qtype type;
		int idx;
		bool live;

		skip_ws(&lx);
		if (!*lx.p)
			return 0;
		if (q->n >= QUERY_MAX_CLAUSES) {
			snprintf(err, errlen, _("query: more than %d clauses"), QUERY_MAX_CLAUSES);
			return -1;
		}
		if ((rc = word(&lx, name, sizeof(name)))) {
			if (rc == -2) {
				snprintf(err, errlen, _("query: field name longer than %zu characters"), sizeof(name) - 1);
				return -1;
			}
			snprintf(err, errlen, _("query: near '%s': expected a field name"),
				 quote_value_n(lx.p, strnlen(lx.p, 20), qv, sizeof(qv)));
			return -1;
		}
		idx = query_field_lookup(name, ferr, sizeof(ferr));
		if (idx == -1) {
			snprintf(err, errlen, _("query: %s"), ferr);
			return -1;
		}
		/* a live-API field: refused, unless the clause is field=any */
		live = idx == -2;
		type = live ? Q_STR : query_field_type(idx);
		c = &q->c[q->n++];
		c->field = live ? 0 : idx;
		if ((rc = parse_op(&lx, name, &c->op, err, errlen)) < 0)
			return -1;
		if (rc) {
			if (!live && type == Q_BOOL) {   /* a bare yes/no field */
				c->op = QOP_EQ;
				c->boolean = true;
				continue;
			}
			if (live)
				snprintf(err, errlen, _("query: %s"), ferr);
			else
				snprintf(err, errlen, _("query: %s: expected an operator (%s) and a value"), name, OPS_HELP);
			return -1;
		}
		skip_ws(&lx);
		if (c->op == QOP_IN || c->op == QOP_NOTIN) {
			if (live) {
				snprintf(err, errlen, _("query: %s"), ferr);
				return -1;
			}
			if (parse_list(&lx, name, c, type, err, errlen))
				return -1;
			continue;
		}
		if ((rc = word(&lx, val, sizeof(val)))) {
			char what[32];
			snprintf(what, sizeof(what), _("a value after %s"), op_name(c->op));
			return word_error(rc, name, what, QUERY_MAX_VALUE, err, errlen);
		}
		if (wildcard(val)) {
			if (c->op != QOP_EQ) {
				snprintf(err, errlen, _("query: %s: '%s' (every value) takes =, not %s"), name, val,
					 op_name(c->op));
				return -1;
			}
			memset(c, 0, sizeof(*c));
			q->n--;
			continue;
		}
		if (live) {
			snprintf(err, errlen, _("query: %s"), ferr);
			return -1;
		}
		switch (type) {
		case Q_NUM:
			if (parse_number_value(val, idx, &c->num)) {
				snprintf(err, errlen, _("query: %s: expected a number%s%s, got '%s'"), name,
					 field_unit(idx)[0] ? " in " : "", field_unit(idx), quote_value(val, qv, sizeof(qv)));
				return -1;
			}
			break;
		case Q_BOOL: {
			int b;
			char e[64];
			if (c->op != QOP_EQ && c->op != QOP_NE) {
				snprintf(err, errlen, _("query: %s: a yes/no field takes == or !="), name);
				return -1;
			}
			if (units_parse_bool(val, &b, e, sizeof(e))) {
				snprintf(err, errlen, _("query: %s: expected true or false, got '%s'"), name,
					 quote_value(val, qv, sizeof(qv)));
				return -1;
			}
			c->boolean = b;
			break;
		}
		case Q_STR:
			if (c->op != QOP_EQ && c->op != QOP_NE) {
				snprintf(err, errlen, _("query: %s: text takes == != in notin, not %s"), name, op_name(c->op));
				return -1;
			}
			names_norm(val, c->vals[0], sizeof(c->vals[0]));
			c->nvals = 1;
			break;
		}
	}
}

/* ---- evaluation ---- */

/* gpu=X: the catalog's name, an alias, the full name, or the family
 * (the name's words up to the first with a digit: "A100", "RTX 4090"). */
static bool gpu_matches(const struct offer *o, const char *want)
{
	char nn[160], fam[96];
	const struct gpu_spec *g = o->gpu;

	names_norm_n(o->gpu_name.p, o->gpu_name.len, nn, sizeof(nn));
	if (!strcmp(nn, want))
		return true;
	if (!g)
		return false;
	if (!strcmp(names_norm(g->name, nn, sizeof(nn)), want) || names_in_list(want, g->aliases))
		return true;
	names_family(g->name, fam, sizeof(fam));
	return !strcmp(fam, want);
}

/*
 * region=X: the whole region or zone, or one of the region's comma-separated parts
 * ("Taiwan, TW, AS": "Taiwan" or "TW"). The last of three or more parts
 * is vast's continent (SkyPilot's vast catalog writes vast's geolocation
 * "place, CC, continent"): never matched, for NA and AS are also country
 * codes (Namibia, American Samoa).
 */
static bool region_matches(const struct offer *o, const char *want)
{
	char buf[160];
	size_t nparts = 1, part = 0, start = 0;

	names_norm_n(o->region.p, o->region.len, buf, sizeof(buf));
	if (!strcmp(buf, want))
		return true;
	if (o->zone.len) {   /* a zone names a place in the region too */
		names_norm_n(o->zone.p, o->zone.len, buf, sizeof(buf));
		if (!strcmp(buf, want))
			return true;
	}
	for (size_t i = 0; i < o->region.len; i++)
		nparts += o->region.p[i] == ',';
	if (nparts < 2)
		return false;
	/* every part counts, empty ones too (", US, NA": US is the country) */
	for (size_t i = 0; i <= o->region.len; i++) {
		if (i < o->region.len && o->region.p[i] != ',')
			continue;
		if (!(nparts >= 3 && part == nparts - 1)) {
			names_norm_n(o->region.p + start, i - start, buf, sizeof(buf));
			if (buf[0] && !strcmp(buf, want))
				return true;
		}
		part++;
		start = i + 1;
	}
	return false;
}

static bool text_equal(const struct query_clause *c, const struct offer *o, const char *v)
{
	char buf[160], tmp[8];
	struct cat_str s;

	if (c->field == F_GPU)
		return gpu_matches(o, v);
	if (c->field == F_REGION)
		return region_matches(o, v);
	s = query_str(c->field, o, tmp, sizeof(tmp));
	names_norm_n(s.p, s.len, buf, sizeof(buf));
	return !strcmp(buf, v);
}

bool query_match(const struct query *q, const struct offer *o)
{
	for (int i = 0; i < q->n; i++) {
		const struct query_clause *c = &q->c[i];
		bool ok = false;

		switch (query_field_type(c->field)) {
		case Q_NUM: {
			double v = query_num(c->field, o);
			if (isnan(v))   /* no value: no clause on it holds */
				break;
			switch (c->op) {
			case QOP_LT: ok = v < c->num; break;
			case QOP_LE: ok = v <= c->num; break;
			case QOP_EQ: ok = v == c->num; break;
			case QOP_NE: ok = v != c->num; break;
			case QOP_GE: ok = v >= c->num; break;
			case QOP_GT: ok = v > c->num; break;
			case QOP_IN:
			case QOP_NOTIN: {
				bool any = false;
				for (int k = 0; k < c->nvals && !any; k++)
					any = v == c->nums[k];
				ok = c->op == QOP_IN ? any : !any;
				break;
			}
			}
			break;
		}
		case Q_BOOL: {
			bool v = query_num(c->field, o) != 0;
			ok = c->op == QOP_NE ? v != c->boolean : v == c->boolean;
			break;
		}
		case Q_STR: {
			bool any = false;
			for (int k = 0; k < c->nvals && !any; k++)
				any = text_equal(c, o, c->vals[k]);
			ok = (c->op == QOP_NE || c->op == QOP_NOTIN) ? !any : any;
			break;
		}
		}
		if (!ok)
			return false;
	}
	return true;
}

/* One sort key of len bytes at p into k. */
static int sort_key(const char *p, size_t len, struct query_sort_key *k, char *err, size_t errlen)
{
	char name[64], ferr[256];

	k->desc = false;
	/* vast strips '-' and '+' from both ends of a key */
	while (len && (*p == '-' || *p == '+' || p[len - 1] == '-' || p[len - 1] == '+')) {
		if (*p == '-' || *p == '+') {
			k->desc = *p == '-';
			p++, len--;
		} else {
			k->desc = p[len - 1] == '-';
			len--;
		}
	}
	if (len >= sizeof(name)) {
		snprintf(err, errlen, _("--sort: field name longer than %zu characters"), sizeof(name) - 1);
		return -1;
	}
	if (!len) {
		snprintf(err, errlen, _("--sort: expected a field name before '-' or '+'"));
		return -1;
	}
	memcpy(name, p, len);
	name[len] = '\0';
	k->field = query_field_lookup(name, ferr, sizeof(ferr));
	if (k->field < 0) {
		snprintf(err, errlen, _("--sort: %s"), ferr);
		return -1;
	}
	return 0;
}

int query_sort_parse(const char *text, struct query_sort *s, char *err, size_t errlen)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	for (;;) {
		const char *e;
		size_t len;

		while (isspace((unsigned char)*p))
			p++;
		e = p + strcspn(p, ",");
		len = (size_t)(e - p);
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len) {
			if (s->n >= QUERY_MAX_SORT) {
				snprintf(err, errlen, _("--sort: more than %d keys"), QUERY_MAX_SORT);
				return -1;
			}
			if (sort_key(p, len, &s->k[s->n], err, errlen))
				return -1;
			s->n++;
		}
		if (!*e)
			break;
		p = e + 1;
	}
	if (!s->n) {
		snprintf(err, errlen, _("--sort: expected a field name, or several separated by ','"));
		return -1;
	}
	return 0;
}

static int compare_key(const struct query_sort_key *k, const struct offer *a, const struct offer *b)
{
	int r;

	if (query_field_type(k->field) == Q_STR) {
		char t1[8], t2[8];
		struct cat_str x = query_str(k->field, a, t1, sizeof(t1));
		struct cat_str y = query_str(k->field, b, t2, sizeof(t2));
		size_t m = x.len < y.len ? x.len : y.len;
		r = m ? strncasecmp(x.p, y.p, m) : 0;
		if (!r)
			r = (x.len > y.len) - (x.len < y.len);
	} else {
		double x = query_num(k->field, a), y = query_num(k->field, b);
		/* offers without the value (0 = unknown spot price, NAN) go last */
		if (isnan(x) || isnan(y))
			return (isnan(x) != 0) - (isnan(y) != 0);
		if (k->field == F_SPOT_PRICE && (x <= 0) != (y <= 0))
			return x <= 0 ? 1 : -1;
		r = (x > y) - (x < y);
	}
	return k->desc ? -r : r;
}

int query_compare(const struct query_sort *s, const struct offer *a, const struct offer *b)
{
	for (int i = 0; i < s->n; i++) {
		int r = compare_key(&s->k[i], a, b);
		if (r)
			return r;
	}
	return 0;
}
