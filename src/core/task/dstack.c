/*
 * dstack.c - a dstack configuration read as dstack reads it (dstack.h).
 *
 * The schema: dstackai/dstack at commit
 * 511c318c8a7672fb2a925041bfc2d7301a26272e (the commit the shared files
 * of ../shared/data/dstack come from):
 * src/dstack/_internal/core/models/configurations.py (the types,
 * ApplyConfigurationType lines 1605-1612; BaseRunConfiguration 518-633;
 * TaskConfigurationParams.nodes/groups 858-875; ServiceConfigurationParams
 * port 1152 and model 1188), resources.py (Range._parse 52-60: "a..b",
 * open ends, a single value is exact; Memory.parse 100-112: MB, GB, TB of
 * 1024; the defaults 177-179: cpu 2.., memory 8GB.., gpu count 1..;
 * GPUSpec.parse 286-318: ':'-separated tokens, a vendor, names that start
 * with a letter (comma-separated), a memory (a token with a unit), a
 * count; _vendor_from_string 355-361: tpu is google, tt is tenstorrent;
 * DiskSpec 367-386), profiles.py (ProfileParams 237-308: backends,
 * regions, availability_zones, instance_types, spot_policy (SpotPolicy
 * 38-41, default on-demand, line 275), max_price in dollars per hour,
 * > 0), backends/base.py BackendType 31-54, fleets.py 220 (type: fleet).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/task/dstack.h"
#include "core/task/skytask_int.h"
#include "core/model/gpu.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "base/quote.h"
#include "base/util.h"
#include "base/i18n.h"

/* ---- names ---- */

static const char *const kind_names[] = {
	[DSTACK_TASK] = "task", [DSTACK_SERVICE] = "service", [DSTACK_DEV_ENV] = "dev-environment",
	[DSTACK_FLEET] = "fleet", [DSTACK_GATEWAY] = "gateway", [DSTACK_VOLUME] = "volume",
	[DSTACK_PRESET] = "preset",
};

const char *dstack_kind_name(enum dstack_kind k)
{
	return (unsigned)k < ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

static int kind_of(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(kind_names); i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -1;
}

/* base.py BackendType (lines 31-54) and the provider gpurent's catalogs
 * name the same cloud by (core/market/provider.c); remote, dstack and
 * slurm are no cloud an offer comes from. Sorted by backend. */
static const struct {
	const char *backend, *provider;
} backends[] = {
	{"amddevcloud", "amddevcloud"}, {"aws", "aws"}, {"azure", "azure"}, {"cloudrift", "cloudrift"},
	{"crusoe", "crusoe"}, {"cudo", "cudo"}, {"datacrunch", "datacrunch"}, {"digitalocean", "do"},
	{"dstack", NULL}, {"gcp", "gcp"}, {"hotaisle", "hotaisle"}, {"jarvislabs", "jarvislabs"},
	{"kubernetes", "kubernetes"}, {"lambda", "lambda"}, {"nebius", "nebius"}, {"oci", "oci"},
	{"remote", NULL}, {"runpod", "runpod"}, {"slurm", NULL}, {"tensordock", "tensordock"},
	{"vastai", "vast"}, {"verda", "verda"}, {"vultr", "vultr"},
};

const char *dstack_backend_of(const struct cat_str *provider)
{
	const char *sky = sky_cloud_of(provider);

	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		const char *p = backends[i].provider;
		if (p && ((sky && !strcmp(sky, p)) || cat_str_eq_ci(provider, p) ||
			  cat_str_eq_ci(provider, backends[i].backend)))
			return backends[i].backend;
	}
	return NULL;
}

/* The names dstack's catalog (gpuhunt) gives cards: dstackai/gpuhunt at
 * 35841515de3792fe6be73b0422ac8901b6b929c8,
 * src/gpuhunt/_internal/constraints.py KNOWN_NVIDIA_GPUS (lines 142-211),
 * KNOWN_AMD_GPUS (213-279) and KNOWN_INTEL_ACCELERATORS (285-289); one
 * name covers every memory size of a card (A100: 40 and 80, V100: 16 and
 * 32). A query's names are matched whole, case aside (line 51). */
static const char *const hunt_names[] = {
	"A10", "A100", "A10G", "A16", "A40", "A4000", "A4500", "A5000", "A6000", "B200", "B300", "GB200", "GH200",
	"Gaudi", "Gaudi2", "Gaudi3", "H100", "H100NVL", "H200", "H200NVL", "L4", "L40", "L40S", "MI100", "MI210",
	"MI250", "MI250X", "MI300A", "MI300X", "MI308X", "MI325X", "MI350X", "MI355X", "P100", "RTX2000Ada",
	"RTX2060", "RTX2060SUPER", "RTX2070", "RTX2070SUPER", "RTX2080", "RTX2080SUPER", "RTX2080Ti", "RTX3050",
	"RTX3060", "RTX3060Ti", "RTX3070", "RTX3070Ti", "RTX3080", "RTX3080Ti", "RTX3090", "RTX3090Ti",
	"RTX4000Ada", "RTX4060", "RTX4060Ti", "RTX4070", "RTX4070SUPER", "RTX4070Ti", "RTX4070TiSUPER", "RTX4080",
	"RTX4080SUPER", "RTX4090", "RTX5060", "RTX5060Ti", "RTX5070", "RTX5070Ti", "RTX5080", "RTX5090", "RTX6000",
	"RTX6000Ada", "RTXPRO4500", "RTXPRO6000", "T4", "V100",
};

char *dstack_gpu_name(const struct gpu_spec *g, char *out, size_t n)
{
	/* the name gpuhunt has among the card's own names, else its family
	 * (NVIDIA A100 80GB SXM, whose aliases are A100-80GB...: A100) */
	for (size_t i = 0; i < ARRAY_SIZE(hunt_names); i++)
		if (names_equal(hunt_names[i], g->name) || names_in_list(hunt_names[i], g->aliases)) {
			snprintf(out, n, "%s", hunt_names[i]);
			return out;
		}
	names_family(g->name, out, n);
	for (char *p = out; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	return out;
}

/* ---- the type, peeked ---- */

/* The first document's top-level type: value, as a kind; -1 none. */
static int peek_type(const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, kind = -1;
	bool key = true, is_type = false, done = false;

	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done && yaml_parser_parse(&p, &e)) {
		yaml_event_type_t t = e.type;
		done = t == YAML_STREAM_END_EVENT || t == YAML_DOCUMENT_END_EVENT;
		if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			if (depth == 1) {   /* a value that is a node: skipped whole */
				size_t line;
				done = yt_skip(&p, &e, 1, &line) != 0;
				key = true;
			} else {
				depth++;
			}
		} else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
			done = true;
		} else if (depth == 1 && t == YAML_SCALAR_EVENT) {
			const char *s = (const char *)e.data.scalar.value;
			if (!key && is_type && e.data.scalar.length < 32)
				kind = kind_of(s);
			is_type = key && !strcmp(s, "type");
			key = !key;
		} else if (depth == 1 && t == YAML_ALIAS_EVENT) {
			key = !key;
		}
		yaml_event_delete(&e);
		if (kind >= 0)
			break;
	}
	yaml_parser_delete(&p);
	return kind;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

bool dstack_file_is(const char *buf, size_t len, const char *fname)
{
	if (fname && (ends_with(fname, ".dstack.yml") || ends_with(fname, ".dstack.yaml")))
		return true;
	return peek_type(buf, len) >= 0;
}

/* ---- values ---- */

/* A memory size: a number of GB, or with MB, GB, TB (1024 apart), the
 * blanks dropped (resources.py Memory.parse). -1 when it is none. */
static int parse_memory(const char *s, double *gb)
{
	char t[64];
	size_t k = 0, n;
	double f = 1;

	for (; *s && k + 1 < sizeof(t); s++)
		if (*s != ' ')
			t[k++] = (char)tolower((unsigned char)*s);
	t[k] = '\0';
	if (*s)
		return -1;
	n = strlen(t);
	if (n > 2 && (!strcmp(t + n - 2, "tb") || !strcmp(t + n - 2, "gb") || !strcmp(t + n - 2, "mb"))) {
		f = t[n - 2] == 't' ? 1024 : t[n - 2] == 'm' ? 1.0 / 1024 : 1;
		t[n - 2] = '\0';
	}
	if (units_scan_number(t, gb) || *gb < 0 || *gb > 1e9)
		return -1;
	*gb *= f;
	return 0;
}

/* A whole count from 0 to SKY_MAX_ACCEL_COUNT x SKY_MAX_NODES. */
static int parse_count(const char *s, double *v)
{
	long n;
	char msg[64];

	if (units_parse_int(s, 0, 100000000L, &n, msg, sizeof(msg)))
		return -1;
	*v = (double)n;
	return 0;
}

/* A range "a", "a..b", "a..", "..b" of values read by one (resources.py
 * Range._parse); *lo, *hi 0 when open. -1 when it is none (an empty
 * range, min above max, a bad value). */
static int parse_range(const char *s, int (*one)(const char *, double *), double *lo, double *hi)
{
	char t[96], *dots;
	size_t k = 0;

	for (; *s && k + 1 < sizeof(t); s++)
		if (*s != ' ')
			t[k++] = *s;
	t[k] = '\0';
	if (*s)
		return -1;
	*lo = *hi = 0;
	dots = strstr(t, "..");
	if (!dots)
		return one(t, lo) ? -1 : (*hi = *lo, 0);
	*dots = '\0';
	if (!t[0] && !dots[2])
		return -1;
	if ((t[0] && one(t, lo)) || (dots[2] && one(dots + 2, hi)))
		return -1;
	return dots[2] && t[0] && *lo > *hi ? -1 : 0;
}

/* A range written as a scalar or as {min: a, max: b}. */
static int read_range(struct sky_ctx *c, const struct yt_node *v, int (*one)(const char *, double *), double *lo,
		      double *hi, const char *what)
{
	char fmt[160];

	snprintf(fmt, sizeof(fmt), _("expected %s: a value, a..b, a.. or ..b, got '%%s'"), what);
	if (v->type == YT_SCALAR && !v->null)
		return parse_range(v->s, one, lo, hi) ? sky_fail(c, v->line, NULL, fmt, v->s) : 0;
	if (v->type == YT_MAP) {
		bool any = false;
		*lo = *hi = 0;
		if (sky_check_keys(c, v, NULL))
			return -1;
		for (size_t i = 0; i + 1 < v->nkid; i += 2) {
			const struct yt_node *k = &v->kid[i], *x = &v->kid[i + 1];
			bool is_min = !strcmp(k->s, "min");
			if (!is_min && strcmp(k->s, "max"))
				return sky_fail(c, k->line, NULL, _("expected min and max, got '%s'"), k->s);
			if (x->type == YT_SCALAR && x->null)
				continue;
			if (x->type != YT_SCALAR || one(x->s, is_min ? lo : hi))
				return sky_fail(c, x->line, NULL, fmt, x->type == YT_SCALAR ? x->s : sky_kind_of(x));
			any = true;
		}
		if (!any || (*lo > 0 && *hi > 0 && *lo > *hi))
			return sky_fail(c, v->line, NULL, fmt, any ? _("min above max") : _("an empty range"));
		return 0;
	}
	return sky_fail(c, v->line, NULL, fmt, v->type == YT_SCALAR ? _("nothing") : sky_kind_of(v));
}

/* ---- gpu ---- */

#define MAX_NAMES 16

struct gspec {
	char vendor[16];
	char name[MAX_NAMES][48];
	size_t nname;
	double cmin, cmax, mmin, mmax, tmin, tmax;
	bool count_given;
	bool no_gpu;          /* a count whose most is 0: CPUs only */
};

/* Whether a count range's text ("0", "..0", "0..0") allows no GPU at most. */
static bool zero_max(const char *t)
{
	const char *p = strstr(t, "..");
	double v;

	p = p ? p + 2 : t;
	while (*p == ' ')
		p++;
	return *p && !parse_count(p, &v) && v == 0;
}

/* resources.py _vendor_from_string: the vendor a token names, or NULL. */
static const char *vendor_of(const char *t)
{
	static const char *const v[][2] = {
		{"nvidia", "nvidia"}, {"amd", "amd"}, {"google", "google"}, {"tpu", "google"}, {"intel", "intel"},
		{"tenstorrent", "tenstorrent"}, {"tt", "tenstorrent"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (!strcasecmp(t, v[i][0]))
			return v[i][1];
	return NULL;
}

/* Names "A10G,A100" into g. */
static int add_names(struct sky_ctx *c, struct gspec *g, const char *list, size_t line)
{
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ",");
		if (!n)
			return sky_fail(c, line, NULL, _("expected GPU names such as A100 or A10G,A100, got '%s'"), list);
		if (g->nname >= MAX_NAMES || n >= sizeof(g->name[0]))
			return sky_fail(c, line, NULL, _("at most 16 GPU names of 47 characters, got '%s'"), list);
		memcpy(g->name[g->nname], p, n);
		g->name[g->nname++][n] = '\0';
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* "nvidia:A100,H100:40GB..80GB:2..8" (GPUSpec.parse). */
static int gpu_tokens(struct sky_ctx *c, struct gspec *g, const char *s, size_t line)
{
	char t[256], *save = NULL;
	size_t k = 0;
	bool seen_mem = false;

	for (const char *p = s; *p && k + 1 < sizeof(t); p++)
		if (*p != ' ')
			t[k++] = *p;
	t[k] = '\0';
	if (!t[0] || strstr(t, "::") || t[0] == ':' || t[k - 1] == ':')
		return sky_fail(c, line, NULL, _("expected a GPU spec such as A100:2, 24GB.. or 1, got '%s' "
			    "(an empty part)"), s);
	for (char *tok = strtok_r(t, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		const char *v = vendor_of(tok);
		bool alpha = false;
		for (const char *q = tok; *q; q++)
			alpha |= isalpha((unsigned char)*q) != 0;
		if (v) {
			if (g->vendor[0])
				return sky_fail(c, line, NULL, _("two vendors in '%s'"), s);
			snprintf(g->vendor, sizeof(g->vendor), "%s", v);
		} else if (isalpha((unsigned char)tok[0])) {
			if (g->nname)
				return sky_fail(c, line, NULL, _("two name parts in '%s' (several names: A10G,A100)"), s);
			if (add_names(c, g, tok, line))
				return -1;
		} else if (alpha) {
			if (seen_mem || parse_range(tok, parse_memory, &g->mmin, &g->mmax))
				return sky_fail(c, line, NULL, _("expected one memory part such as 24GB, 24GB..80GB or "
					    "..80GB, in '%s'"), s);
			seen_mem = true;
		} else {
			if (g->count_given || parse_range(tok, parse_count, &g->cmin, &g->cmax))
				return sky_fail(c, line, NULL, _("expected one count part such as 2 or 1..8, in '%s'"), s);
			g->count_given = true;
			g->no_gpu |= zero_max(tok);
		}
	}
	return 0;
}

/* gpu: as a mapping {vendor, name, count, memory, total_memory, compute_capability}. */
static int gpu_map(struct sky_ctx *c, struct gspec *g, const struct yt_node *v)
{
	char where[96];

	memcpy(where, c->where, sizeof(where));
	if (sky_check_keys(c, v, NULL))
		return -1;
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const char *k = v->kid[i].s;
		const struct yt_node *x = &v->kid[i + 1];
		int rc = 0;
		if ((size_t)snprintf(c->where, sizeof(c->where), "%s.%s", where, k) >= sizeof(c->where))
			c->where[sizeof(c->where) - 1] = '\0';   /* a long key's place, cut (only named in messages) */
		if (x->type == YT_SCALAR && x->null)
			continue;
		if (!strcmp(k, "vendor")) {
			const char *vn = x->type == YT_SCALAR ? vendor_of(x->s) : NULL;
			if (!vn)
				rc = sky_fail(c, x->line, NULL, _("expected nvidia, amd, google (tpu), intel or tenstorrent "
					      "(tt), got '%s'"), x->type == YT_SCALAR ? x->s : sky_kind_of(x));
			else
				snprintf(g->vendor, sizeof(g->vendor), "%s", vn);
		} else if (!strcmp(k, "name")) {
			if (x->type == YT_SCALAR) {
				rc = add_names(c, g, x->s, x->line);
			} else if (x->type == YT_SEQ) {
				for (size_t j = 0; !rc && j < x->nkid; j++)
					rc = x->kid[j].type == YT_SCALAR && !x->kid[j].null ?
					     add_names(c, g, x->kid[j].s, x->kid[j].line) :
					     sky_fail(c, x->kid[j].line, NULL, _("expected a GPU name, got %s"),
						      sky_kind_of(&x->kid[j]));
			} else {
				rc = sky_fail(c, x->line, NULL, _("expected a name or a list of names, got %s"), sky_kind_of(x));
			}
		} else if (!strcmp(k, "count")) {
			rc = read_range(c, x, parse_count, &g->cmin, &g->cmax, _("a count"));
			g->count_given = true;
			if (x->type == YT_SCALAR)
				g->no_gpu |= zero_max(x->s);
			for (size_t j = 0; x->type == YT_MAP && j + 1 < x->nkid; j += 2)
				g->no_gpu |= x->kid[j].type == YT_SCALAR && x->kid[j].s && !strcmp(x->kid[j].s, "max") &&
					     x->kid[j + 1].type == YT_SCALAR &&
					     zero_max(x->kid[j + 1].s);
		} else if (!strcmp(k, "memory")) {
			rc = read_range(c, x, parse_memory, &g->mmin, &g->mmax, _("a memory size"));
		} else if (!strcmp(k, "total_memory")) {
			rc = read_range(c, x, parse_memory, &g->tmin, &g->tmax, _("a memory size"));
		} else if (strcmp(k, "compute_capability")) {
			rc = sky_fail(c, v->kid[i].line, NULL, _("expected vendor, name, count, memory, total_memory or "
				      "compute_capability, got '%s'"), k);
		}
		if (rc)
			return -1;
	}
	memcpy(c->where, where, sizeof(where));
	return 0;
}

static int read_gpu(struct sky_ctx *c, struct gspec *g, const struct yt_node *v)
{
	snprintf(c->where, sizeof(c->where), "resources.gpu");
	g->cmin = 1;   /* resources.py DEFAULT_GPU_COUNT: 1.. */
	g->cmax = 0;
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if ((v->type == YT_SCALAR && gpu_tokens(c, g, v->s, v->line)) || (v->type == YT_MAP && gpu_map(c, g, v)))
		return -1;
	/* gpu: 0 (a job on CPUs, as in dstack's DEFAULT_GPU_SPEC 0..) */
	if (g->no_gpu)
		return sky_fail(c, v->line, NULL, _("no GPU at most: a job on CPUs only; gpurent plans jobs on GPUs%s"),
				NULL);
	if (v->type == YT_SCALAR || v->type == YT_MAP)
		return 0;
	return sky_fail(c, v->line, NULL, _("expected a GPU spec such as A100:2 or 24GB.., or a mapping, got %s"),
			sky_kind_of(v));
}

bool dstack_gpu_fits(const struct sky_res *r, const struct offer *o)
{
	const struct gpu_spec *g = o->gpu;
	double mem;

	/* dstack provisions on its backends only (a domestic platform, a
	 * campus cluster it cannot rent from) */
	if (!dstack_backend_of(&o->provider))
		return false;
	if (r->vendor[0] && (!g || strcasecmp(g->vendor, r->vendor)))
		return false;
	if (r->accel[0]) {
		char name[64], want[64];
		if (!g)
			return false;
		/* gpuhunt's name is the card's name, an alias or its family: a
		 * quick no for most offers before the table is looked through */
		names_family(g->name, name, sizeof(name));
		if (!names_equal(r->accel, g->name) && !names_in_list(r->accel, g->aliases) &&
		    strcmp(name, names_norm(r->accel, want, sizeof(want))))
			return false;
		/* whole, as gpuhunt matches (H100 is not the H100 NVL) */
		if (!names_equal(r->accel, dstack_gpu_name(g, name, sizeof(name))))
			return false;
	}
	if (o->gpus < r->count_min - 1e-9 || (r->count_max > 0 && o->gpus > r->count_max + 1e-9))
		return false;
	/* a whole card's memory as its datasheet states it (gpuhunt's figures
	 * are the nominal GB too: 48 for an L40S the SkyPilot catalog lists
	 * at 46068 MiB); a slice's own */
	mem = (g && o->gpus >= 1 ? g->memory_bytes : o->gpu_mem) / 1e9;
	if ((r->mem_min_gb > 0 && mem < r->mem_min_gb * (1 - 1e-9)) ||
	    (r->mem_max_gb > 0 && mem > r->mem_max_gb * (1 + 1e-9)))
		return false;
	mem *= o->gpus;
	if ((r->total_min_gb > 0 && mem < r->total_min_gb * (1 - 1e-9)) ||
	    (r->total_max_gb > 0 && mem > r->total_max_gb * (1 + 1e-9)))
		return false;
	return true;
}

/* ---- the configuration ---- */

/* What the parse collects before it makes the candidates. */
struct rd {
	struct sky_ctx c;
	struct dstack_conf *dc;
	struct gspec g;
	struct sky_res base;                   /* cpu, memory, disk: every candidate's */
	const struct yt_node *backends, *regions, *itypes;
};

/* A list of text values (backends, regions, instance_types). */
static int read_list(struct rd *x, const struct yt_node *v, const char *key)
{
	snprintf(x->c.where, sizeof(x->c.where), "%s", key);
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if (v->type != YT_SEQ)
		return sky_fail(&x->c, v->line, NULL, _("expected a list such as [a, b], got %s"),
				v->type == YT_SCALAR ? _("one value (dstack takes a list)") : sky_kind_of(v));
	if (v->nkid > DSTACK_MAX_LIST)
		return sky_fail(&x->c, v->line, NULL, _("at most 64 entries"), NULL);
	for (size_t i = 0; i < v->nkid; i++) {
		const struct yt_node *k = &v->kid[i];
		bool known = !!strcmp(key, "backends");
		if (k->type != YT_SCALAR || k->null || k->len >= 64)
			return sky_fail(&x->c, k->line, NULL, _("expected a name of at most 63 characters, got %s"),
					k->type == YT_SCALAR ? (k->null ? _("nothing") : _("a longer one")) : sky_kind_of(k));
		for (size_t b = 0; !known && b < ARRAY_SIZE(backends); b++)
			known = !strcmp(k->s, backends[b].backend);
		if (!known)
			return sky_fail(&x->c, k->line, NULL, _("expected a dstack backend (aws, azure, gcp, lambda, "
					"runpod, vastai, ... as dstack's BackendType names them), got '%s'"), k->s);
	}
	return 0;
}

/* cpu: 16, 16.., x86:16, arm:8.., {arch, count}, {min, max}: the count's
 * minimum (exact when a single value). */
static int read_cpu(struct rd *x, const struct yt_node *v)
{
	const struct yt_node *cnt = v;
	char t[96] = "";
	double lo, hi;

	if (v->type == YT_MAP) {
		bool minmax = true;
		if (sky_check_keys(&x->c, v, NULL))
			return -1;
		for (size_t i = 0; i + 1 < v->nkid; i += 2)
			minmax &= !strcmp(v->kid[i].s, "min") || !strcmp(v->kid[i].s, "max");
		cnt = NULL;
		for (size_t i = 0; !minmax && i + 1 < v->nkid; i += 2)
			if (!strcmp(v->kid[i].s, "count"))
				cnt = &v->kid[i + 1];
		if (minmax)
			cnt = v;
		if (!cnt)
			return 0;
	}
	if (cnt->type == YT_SCALAR && !cnt->null) {
		/* the arch part dropped: x86:16 */
		const char *p = strrchr(cnt->s, ':');
		snprintf(t, sizeof(t), "%s", p ? p + 1 : cnt->s);
		if (isalpha((unsigned char)t[0]))
			return 0;   /* an arch alone */
		if (parse_range(t, parse_count, &lo, &hi))
			return sky_fail(&x->c, cnt->line, NULL, _("expected a CPU count such as 16, 16.. or x86:8.., got '%s'"),
					cnt->s);
	} else if (read_range(&x->c, cnt, parse_count, &lo, &hi, _("a CPU count"))) {
		return -1;
	}
	x->base.cpus = lo;
	x->base.cpus_exact = lo > 0 && lo == hi;
	return 0;
}

/* resources: gpu, cpu, memory, disk (shm_size and the rest carried). */
static int read_resources(struct rd *x, const struct yt_node *v)
{
	double lo, hi;

	snprintf(x->c.where, sizeof(x->c.where), "resources");
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if (v->type != YT_MAP)
		return sky_fail(&x->c, v->line, NULL, _("expected a mapping of gpu, cpu, memory, disk, got %s"),
				sky_kind_of(v));
	if (sky_check_keys(&x->c, v, NULL))
		return -1;
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const char *k = v->kid[i].s;
		const struct yt_node *val = &v->kid[i + 1];
		snprintf(x->c.where, sizeof(x->c.where), "resources.%s", k);
		if (!strcmp(k, "gpu")) {
			if (read_gpu(&x->c, &x->g, val))
				return -1;
			x->base.dstack = true;
		} else if (val->type == YT_SCALAR && val->null) {
			continue;
		} else if (!strcmp(k, "cpu")) {
			if (read_cpu(x, val))
				return -1;
		} else if (!strcmp(k, "memory")) {
			if (read_range(&x->c, val, parse_memory, &lo, &hi, _("a memory size")))
				return -1;
			x->base.memory_gib = lo;
			x->base.memory_exact = lo > 0 && lo == hi;
		} else if (!strcmp(k, "disk")) {
			const struct yt_node *sz = val;
			if (val->type == YT_MAP && sky_check_keys(&x->c, val, NULL))
				return -1;
			for (size_t j = 0; val->type == YT_MAP && j + 1 < val->nkid; j += 2)
				if (!strcmp(val->kid[j].s, "size"))
					sz = &val->kid[j + 1];
			if (read_range(&x->c, sz, parse_memory, &lo, &hi, _("a disk size")))
				return -1;
			x->base.disk_gb = lo;
		}
	}
	return 0;
}

/* One scalar value's text into out (n bytes), "" for nothing. */
static int text_of(struct rd *x, const struct yt_node *v, const char *key, char *out, size_t n)
{
	snprintf(x->c.where, sizeof(x->c.where), "%s", key);
	out[0] = '\0';
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if (v->type != YT_SCALAR)
		return sky_fail(&x->c, v->line, NULL, _("expected a value, got %s"), sky_kind_of(v));
	if (v->len >= n)
		return sky_fail(&x->c, v->line, NULL, _("longer than the %s characters read"), n > 100 ? "127" : "31");
	memcpy(out, v->s, v->len + 1);
	return 0;
}

/* The job's keys (the type already read): k at v. */
static int read_key(struct rd *x, const struct yt_node *k, const struct yt_node *v)
{
	struct dstack_conf *dc = x->dc;
	struct sky_doc *d = x->c.doc;
	char t[32];

	snprintf(x->c.where, sizeof(x->c.where), "%s", k->s);
	if (!strcmp(k->s, "name"))
		return text_of(x, v, "name", d->name, sizeof(d->name));
	if (!strcmp(k->s, "nodes")) {
		long n;
		char msg[96];
		if (v->type != YT_SCALAR || units_parse_int(v->s, 1, SKY_MAX_NODES, &n, msg, sizeof(msg)))
			return sky_fail(&x->c, v->line, NULL, _("expected a whole number of nodes from 1, got '%s'"),
					v->type == YT_SCALAR ? v->s : sky_kind_of(v));
		d->num_nodes = n;
		return 0;
	}
	if (!strcmp(k->s, "groups") && !(v->type == YT_SCALAR && v->null))
		return sky_fail(&x->c, k->line, NULL, _("dstack %s groups (nodes or replicas of different "
				"resources) are not planned: plan each group as its own task"), dstack_kind_name(dc->kind));
	if (!strcmp(k->s, "resources"))
		return read_resources(x, v);
	if (!strcmp(k->s, "spot_policy")) {
		if (text_of(x, v, "spot_policy", t, sizeof(t)))
			return -1;
		if (t[0] && strcmp(t, "spot") && strcmp(t, "on-demand") && strcmp(t, "auto"))
			return sky_fail(&x->c, v->line, NULL, _("expected spot, on-demand or auto, got '%s'"), t);
		dc->spot = !strcmp(t, "spot") ? 1 : !strcmp(t, "auto") ? -1 : 0;
		return 0;
	}
	if (!strcmp(k->s, "max_price")) {
		if (v->type == YT_SCALAR && v->null)
			return 0;
		if (v->type != YT_SCALAR || units_scan_number(v->s, &dc->max_price) || !(dc->max_price > 0) ||
		    dc->max_price > 1e7)
			return sky_fail(&x->c, v->line, NULL, _("expected dollars per hour above 0, got '%s'"),
					v->type == YT_SCALAR ? v->s : sky_kind_of(v));
		dc->max_price_line = v->line;
		return 0;
	}
	if (!strcmp(k->s, "backends") || !strcmp(k->s, "regions") || !strcmp(k->s, "instance_types")) {
		if (read_list(x, v, k->s))
			return -1;
		*(k->s[0] == 'b' ? &x->backends : k->s[0] == 'r' ? &x->regions : &x->itypes) =
			v->type == YT_SEQ && v->nkid ? v : NULL;
		return 0;
	}
	if (!strcmp(k->s, "model")) {
		const struct yt_node *m = v;
		if (v->type == YT_MAP && sky_check_keys(&x->c, v, NULL))
			return -1;
		for (size_t i = 0; v->type == YT_MAP && i + 1 < v->nkid; i += 2)
			if (!strcmp(v->kid[i].s, "name"))
				m = &v->kid[i + 1];
		return m->type == YT_MAP ? 0 : text_of(x, m, "model", dc->model, sizeof(dc->model));
	}
	if (!strcmp(k->s, "commands"))
		dc->has_commands = v->type == YT_SEQ && v->nkid > 0;
	else if (!strcmp(k->s, "image"))
		dc->has_image = v->type == YT_SCALAR && !v->null;
	else if (!strcmp(k->s, "ports"))
		dc->nports += v->type == YT_SEQ ? (int)v->nkid : 0;
	else if (!strcmp(k->s, "port"))
		dc->nports++;
	return 0;   /* env, volumes, python, ...: carried, not planned */
}

/* The candidates: every name x backend x region x instance type. */
static int make_cands(struct rd *x)
{
	const struct yt_node *lists[3] = {x->backends, x->regions, x->itypes};
	size_t nn = x->g.nname ? x->g.nname : 1, n[3], total = nn;
	struct sky_res r = x->base;

	for (int i = 0; i < 3; i++) {
		n[i] = lists[i] ? lists[i]->nkid : 1;
		total *= n[i];
	}
	snprintf(x->c.where, sizeof(x->c.where), "resources");
	if (total > SKY_MAX_CANDIDATES)
		return sky_fail(&x->c, 1, NULL, _("at most 64 combinations of GPU names, backends, regions and "
				"instance types"), NULL);
	r.dstack = true;
	r.use_spot = x->dc->spot;
	snprintf(r.vendor, sizeof(r.vendor), "%s", x->g.vendor);
	r.count_min = x->g.cmin;
	r.count_max = x->g.cmax;
	r.mem_min_gb = x->g.mmin;
	r.mem_max_gb = x->g.mmax;
	r.total_min_gb = x->g.tmin;
	r.total_max_gb = x->g.tmax;
	for (size_t i = 0; i < total; i++) {
		size_t q = i;
		snprintf(r.accel, sizeof(r.accel), "%s", x->g.nname ? x->g.name[q % nn] : "");
		q /= nn;
		if (lists[0]) {
			const char *b = lists[0]->kid[q % n[0]].s;
			for (size_t k = 0; k < ARRAY_SIZE(backends); k++)
				if (!strcmp(b, backends[k].backend))
					snprintf(r.cloud, sizeof(r.cloud), "%s", backends[k].provider ? backends[k].provider : b);
		}
		q /= n[0];
		if (lists[1])
			snprintf(r.region, sizeof(r.region), "%s", lists[1]->kid[q % n[1]].s);
		q /= n[1];
		if (lists[2])
			snprintf(r.instance_type, sizeof(r.instance_type), "%s", lists[2]->kid[q % n[2]].s);
		if (sky_push_cand(&x->c, &r, 1))
			return -1;
	}
	x->c.doc->pref = total > 1 ? SKY_PREF_ANY_OF : SKY_PREF_ONE;
	return 0;
}

/* Where each key of block mapping m lies: from its line's start to the
 * next key's line (the last: to the mapping's end). */
static int spans_of(const struct yt_node *m, struct dstack_span **out, size_t *nout)
{
	size_t n = m->nkid / 2;

	*out = calloc(n + 1, sizeof(**out));
	if (!*out)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct yt_node *k = &m->kid[2 * i];
		struct dstack_span *s = &(*out)[i];
		snprintf(s->key, sizeof(s->key), "%s", k->s);
		s->line = k->line;
		s->from = k->off >= k->col ? k->off - k->col : k->off;
		if (i)
			(*out)[i - 1].to = s->from;
	}
	if (n)
		(*out)[n - 1].to = m->end > (*out)[n - 1].from ? m->end : (*out)[n - 1].from;
	*nout = n;
	return 0;
}

/* The keys each type takes (CoreModel's extra=forbid, common.py line 50:
 * any other key is an error): BaseRunConfiguration (configurations.py
 * 518-633) and ProfileParams (profiles.py 237-399), then each type's own
 * (task 698-723 and 858-914, service 1151-1240, dev-environment 698-702
 * and 725-792). Each list sorted. */
static const char *const keys_base[] = {
	"availability_zones", "backend_options", "backends", "creation_policy", "docker", "dstack", "entrypoint",
	"env", "files", "fleets", "home_dir", "idle_duration", "image", "instance_types", "instances", "max_duration",
	"max_price", "name", "nvcc", "priority", "privileged", "python", "regions", "registry_auth", "repos", "reservation",
	"resources", "retry", "schedule", "setup", "shell", "single_branch", "spot_policy", "startup_order",
	"stop_criteria", "stop_duration", "tags", "type", "user", "utilization_policy", "volumes", "working_dir",
};
static const char *const keys_task[] = {"commands", "groups", "nodes", "ports"};
static const char *const keys_service[] = {
	"auth", "commands", "gateway", "groups", "https", "model", "port", "probes", "rate_limits", "replicas",
	"scaling", "strip_prefix",
};
static const char *const keys_dev[] = {"ide", "inactivity_duration", "init", "ports", "version"};

static bool in_list(const char *k, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, v[i]))
			return true;
	return false;
}

/* 0 when k is a key of a configuration of this kind, else the error. */
static int check_key(struct rd *x, const struct yt_node *k)
{
	enum dstack_kind kind = x->dc->kind;
	bool res = !strcmp(k->s, "gpu") || !strcmp(k->s, "cpu") || !strcmp(k->s, "memory") || !strcmp(k->s, "disk") ||
		   !strcmp(k->s, "shm_size");
	char fmt[192];

	if (in_list(k->s, keys_base, ARRAY_SIZE(keys_base)) ||
	    (kind == DSTACK_TASK && in_list(k->s, keys_task, ARRAY_SIZE(keys_task))) ||
	    (kind == DSTACK_SERVICE && in_list(k->s, keys_service, ARRAY_SIZE(keys_service))) ||
	    (kind == DSTACK_DEV_ENV && in_list(k->s, keys_dev, ARRAY_SIZE(keys_dev))))
		return 0;
	snprintf(x->c.where, sizeof(x->c.where), "%.64s", k->s);
	snprintf(fmt, sizeof(fmt), _("not a key of a dstack %s (dstack refuses unknown keys)%s%%s"),
		 dstack_kind_name(kind), res ? _("; it belongs under resources:") : "");
	return sky_fail(&x->c, k->line, NULL, fmt, NULL);
}

/* The type: first (what the file is decides what is read). */
static int read_type(struct rd *x, const struct yt_node *root)
{
	static const char *const what[] = {
		[DSTACK_FLEET] = N_("a dstack fleet: capacity (instances kept for runs), not a job"),
		[DSTACK_GATEWAY] = N_("a dstack gateway: the ingress of services, not a job"),
		[DSTACK_VOLUME] = N_("a dstack volume: storage, not a job"),
		[DSTACK_PRESET] = N_("a dstack preset: defaults other configurations take, not a job"),
	};
	const struct yt_node *t = NULL;
	int kind;

	for (size_t i = 0; i + 1 < root->nkid; i += 2)
		if (!strcmp(root->kid[i].s, "type"))
			t = &root->kid[i + 1];
	snprintf(x->c.where, sizeof(x->c.where), "type");
	if (!t)
		return sky_fail(&x->c, root->line, NULL, _("missing: a dstack configuration says type: task, service or "
				"dev-environment%s"), NULL);
	kind = t->type == YT_SCALAR ? kind_of(t->s) : -1;
	if (kind < 0)
		return sky_fail(&x->c, t->line, NULL, _("expected a dstack type (task, service, dev-environment; "
				"fleet, gateway, volume, preset), got '%s'"), t->type == YT_SCALAR ? t->s : sky_kind_of(t));
	x->dc->kind = (enum dstack_kind)kind;
	x->dc->type_line = t->line;
	if (kind >= DSTACK_FLEET) {
		char fmt[256];
		snprintf(fmt, sizeof(fmt), _("%s; gpurent plans a dstack task, service or dev-environment%%s"),
			 _(what[kind]));
		return sky_fail(&x->c, t->line, NULL, fmt, NULL);
	}
	return 0;
}

/* The root mapping read (yt_build) into x->dc. */
static int read_root(struct rd *x, const struct yt_node *root)
{
	struct dstack_conf *dc = x->dc;

	/* a duplicate named at its key, as skytask.c's top level does */
	for (size_t i = 0; i + 1 < root->nkid; i += 2)
		for (size_t j = 0; root->kid[i].type == YT_SCALAR && j < i; j += 2)
			if (root->kid[j].type == YT_SCALAR && !strcmp(root->kid[j].s, root->kid[i].s)) {
				char fmt[96];
				snprintf(x->c.where, sizeof(x->c.where), "%.64s", root->kid[i].s);
				snprintf(fmt, sizeof(fmt), _("duplicate key (first given on line %zu)%%s"), root->kid[j].line);
				return sky_fail(&x->c, root->kid[i].line, NULL, fmt, NULL);
			}
	snprintf(x->c.where, sizeof(x->c.where), "(top level)");
	if (sky_check_keys(&x->c, root, NULL) || read_type(x, root))
		return -1;
	dc->flow = root->flow;
	for (size_t i = 0; i + 1 < root->nkid; i += 2) {
		const struct yt_node *k = &root->kid[i], *v = &root->kid[i + 1];
		if (check_key(x, k) || (strcmp(k->s, "type") && read_key(x, k, v)))
			return -1;
		if (!strcmp(k->s, "resources") && v->type == YT_MAP) {
			if (spans_of(v, &dc->res, &dc->nres))
				return sky_fail(&x->c, v->line, NULL, _("out of memory"), NULL);
			dc->res_col = v->nkid && !v->flow ? v->kid[0].col : 2;
			dc->res_flow = v->flow;
			/* {gpu: 24GB, disk: 100GB}: each key: value as written */
			for (size_t j = 0; v->flow && j < dc->nres; j++) {
				dc->res[j].from = v->kid[2 * j].off;
				dc->res[j].to = v->kid[2 * j + 1].end;
			}
		}
	}
	if (!root->flow && spans_of(root, &dc->span, &dc->nspan))
		return sky_fail(&x->c, root->line, NULL, _("out of memory"), NULL);
	if (dc->nspan)
		dc->span[0].from = 0;   /* the file's opening comments come with its first key */
	x->c.doc->has_resources = true;
	x->c.doc->has_run = dc->has_commands || dc->has_image;
	return make_cands(x);
}

/* The one document's root mapping into *root (built; free with yt_free). */
static int build_root(struct yt_rd *rd, struct yt_node *root, bool *built)
{
	yaml_event_t e;

	for (;;) {
		if (!yaml_parser_parse(&rd->p, &e))
			return yt_syntax(rd, NULL);
		if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			snprintf(rd->err, rd->errlen, _("%s:1: type: missing: an empty file is no dstack configuration"),
				 rd->fname);
			return -1;
		}
		if (e.type == YAML_MAPPING_START_EVENT)
			break;
		if (e.type == YAML_SCALAR_EVENT || e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_ALIAS_EVENT) {
			snprintf(rd->err, rd->errlen, _("%s:%zu: expected a mapping of key: value (a dstack "
				 "configuration), got %s"), rd->fname, yt_ev_line(&e),
				 e.type == YAML_SEQUENCE_START_EVENT ? _("a list") : _("a plain value"));
			yaml_event_delete(&e);
			return -1;
		}
		yaml_event_delete(&e);
	}
	*built = true;
	if (yt_build(rd, &e, root, 1, "(top level)"))
		return -1;
	/* one configuration a file: dstack apply -f reads it with
	 * yaml.safe_load (cli/services/configurators/__init__.py line 83),
	 * which refuses a second document */
	for (;;) {
		if (!yaml_parser_parse(&rd->p, &e))
			return yt_syntax(rd, NULL);
		if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			return 0;
		}
		if (e.type != YAML_DOCUMENT_END_EVENT && e.type != YAML_DOCUMENT_START_EVENT &&
		    !(e.type == YAML_SCALAR_EVENT && e.data.scalar.plain_implicit && !e.data.scalar.length)) {
			snprintf(rd->err, rd->errlen, _("%s:%zu: a second YAML document: a dstack configuration is one"),
				 rd->fname, yt_ev_line(&e));
			yaml_event_delete(&e);
			return -1;
		}
		yaml_event_delete(&e);
	}
}

int dstack_parse(const char *buf, size_t len, const char *fname, struct dstack_conf *dc, char *err,
		 size_t errlen)
{
	struct yt_rd rd;
	struct yt_node root;
	struct rd x;
	bool built = false;
	int rc = -1;

	memset(dc, 0, sizeof(*dc));
	memset(&x, 0, sizeof(x));
	if (errlen)
		err[0] = '\0';
	dc->task.doc = calloc(1, sizeof(*dc->task.doc));
	dc->buf = malloc(len + 1);
	if (!dc->task.doc || !dc->buf) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	memcpy(dc->buf, buf, len);
	dc->buf[len] = '\0';
	dc->len = len;
	dc->task.ndoc = 1;
	dc->task.doc->line = 1;
	dc->task.doc->num_nodes = 1;
	x.c = (struct sky_ctx){.fname = fname, .err = err, .errlen = errlen, .doc = dc->task.doc};
	x.dc = dc;
	sky_res_default(&x.base, 1);
	/* resources.py lines 177-178: cpu 2.., memory 8GB.. when not given */
	x.base.cpus = 2;
	x.base.memory_gib = 8;
	x.g.cmin = 0;   /* no gpu: written: any count (DEFAULT_GPU_SPEC, line 364) */
	if (yt_open(&rd, buf, len, fname, err, errlen))
		return -1;
	if (!build_root(&rd, &root, &built) && !read_root(&x, &root))
		rc = 0;
	if (built)
		yt_free(&root);
	yt_close(&rd);
	if (rc)
		quote_message(err, errlen);
	return rc;
}

void dstack_free(struct dstack_conf *dc)
{
	if (!dc)
		return;
	sky_task_free(&dc->task);
	free(dc->buf);
	free(dc->span);
	free(dc->res);
	memset(dc, 0, sizeof(*dc));
}
