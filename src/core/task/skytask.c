/*
 * skytask.c - a SkyPilot task file read as SkyPilot reads it (skytask.h).
 *
 * The spec: skypilot-org/skypilot docs/source/reference/yaml-spec.rst at
 * commit 0048bbf65901f55a87659d043c60004aa7f38ab7 (the same text as the
 * fork the shared task files came from, yottalabsai/skypilot 93a24d47),
 * sky/utils/infra_utils.py at 15fdeef9ca95782caa31999196d99efca483fc12
 * (InfraInfo.from_str: cloud[/region[/zone]], '*' in any part = any,
 * k8s|kubernetes[/CONTEXT] with '/' allowed in the context) and
 * sky/resources.py's from_yaml_config (any_of / ordered entries are the
 * outer keys updated by the entry's own; accelerators as a list are tried
 * in order, as a set or a mapping of several together, cheapest first).
 *
 * libyaml's event parser: the top-level keys read (name, num_nodes, envs,
 * resources) are built into a small tree bounded by YT_MAX_DEPTH
 * (core/text/yaml.h); every other value is skipped event by event at any
 * length. The values are read in skytask_values.c, the resources and their
 * candidates in skytask_res.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/market/provider.h"
#include "core/model/gpu.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "core/task/skytask_int.h"
#include "core/task/dstack.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

/* ---- the keys ---- */

/* yaml-spec.rst's top-level task keys and sky/utils/schemas.py's
 * get_task_schema() (inputs/outputs/event_callback/secrets/config), plus
 * pool: and execution: of pools and job groups. Sorted. */
static const char *const task_keys[] = {
	"config", "envs", "event_callback", "execution", "file_mounts", "inputs", "name", "num_nodes",
	"outputs", "pool", "resources", "run", "secrets", "service", "setup", "volumes", "workdir",
};

bool sky_task_key(const char *k)
{
	for (size_t i = 0; i < ARRAY_SIZE(task_keys); i++)
		if (!strcmp(k, task_keys[i]))
			return true;
	return false;
}

/* Keys other YAML kinds hold too (a GitHub workflow's name, an action's
 * inputs/outputs, a volume's config): alone they do not make a task. */
static bool weak_task_key(const char *k)
{
	return !strcmp(k, "name") || !strcmp(k, "inputs") || !strcmp(k, "outputs") || !strcmp(k, "config");
}

/* ---- documents ---- */

/* envs: NAME: value pairs into c->doc. */
static int read_envs(struct sky_ctx *c, const struct yt_node *v)
{
	struct sky_doc *d = c->doc;
	char fmt[64];

	snprintf(c->where, sizeof(c->where), "envs");
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if (v->type != YT_MAP)
		return sky_fail(c, v->line, NULL, _("expected a mapping of NAME: value, got %s"), sky_kind_of(v));
	if (sky_check_keys(c, v, NULL))
		return -1;
	if (v->nkid / 2 > SKY_MAX_ENVS) {
		snprintf(fmt, sizeof(fmt), _("at most %d variables"), SKY_MAX_ENVS);
		return sky_fail(c, v->line, NULL, fmt, NULL);
	}
	d->env = calloc(v->nkid / 2 + 1, sizeof(*d->env));
	if (!d->env)
		return sky_fail(c, v->line, NULL, _("out of memory"), NULL);
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const struct yt_node *val = &v->kid[i + 1];
		struct sky_env *e = &d->env[d->nenv];
		if (val->type != YT_SCALAR)
			return sky_fail(c, val->line, v->kid[i].s, _("expected a text value or nothing, got %s"), sky_kind_of(val));
		e->key = strdup(v->kid[i].s);
		e->value = strdup(val->null ? "" : val->s);
		e->line = v->kid[i].line;
		d->nenv++;
		if (!e->key || !e->value)
			return sky_fail(c, val->line, NULL, _("out of memory"), NULL);
	}
	return 0;
}

/* Skip the node whose first event e was just read (e is consumed). */
static int skip_node(struct yt_rd *r, yaml_event_t *e, int depth0, const char *where)
{
	size_t line = 0;
	int k = yt_skip(&r->p, e, depth0, &line);

	yaml_event_delete(e);
	if (k == -2)
		return yt_too_deep(r->err, r->errlen, r->fname, line, where);
	if (k)
		return yt_syntax(r, where);
	return 0;
}

/* What a file with no task key looks like, from its top-level keys. */
struct shape {
	bool admin_policy, k8s_api, k8s_kind, compose_services, compose_version, gh_on, gh_jobs, gh_runs,
	     vol_type, vol_size, cloud_cfg, any_key;
};

static void shape_key(struct shape *s, const char *k)
{
	static const char *const cfg[] = {
		"allowed_clouds", "api_server", "aws", "azure", "gcp", "jobs", "kubernetes", "nvidia_gpus", "oci",
		"plugins", "serve", "ssh", "workspaces", "docker", "admin_policy_config",
	};
	s->any_key = true;
	s->admin_policy |= !strcmp(k, "admin_policy");
	s->k8s_api |= !strcmp(k, "apiVersion");
	s->k8s_kind |= !strcmp(k, "kind");
	s->compose_services |= !strcmp(k, "services");
	s->compose_version |= !strcmp(k, "version");
	s->gh_on |= !strcmp(k, "on") || !strcmp(k, "true");
	s->gh_jobs |= !strcmp(k, "jobs");
	s->gh_runs |= !strcmp(k, "runs");
	s->vol_type |= !strcmp(k, "type");
	s->vol_size |= !strcmp(k, "size");
	for (size_t i = 0; i < ARRAY_SIZE(cfg); i++)
		s->cloud_cfg |= !strcmp(k, cfg[i]);
}

static const char *shape_name(const struct shape *s)
{
	if (s->admin_policy)
		return "a SkyPilot admin policy";
	if (s->k8s_api && s->k8s_kind)
		return "a Kubernetes manifest";
	if (s->compose_services)
		return "a Docker Compose file";
	if (s->gh_on && s->gh_jobs)
		return "a GitHub Actions workflow";
	if (s->gh_runs)
		return "a GitHub Action";
	if (s->vol_type && s->vol_size)
		return _("a SkyPilot volume");
	if (s->cloud_cfg)
		return _("a SkyPilot config");
	if (s->any_key)
		return _("a tool's configuration (its keys are no SkyPilot task's)");
	return _("an empty file");
}

struct seen {
	char **k;
	size_t *line;
	size_t n, cap;
};

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->k[i]);
	free(s->k);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

/* 0 new (remembered), the first line when seen before, (size_t)-1 no memory */
static size_t seen_add(struct seen *s, const char *k, size_t line)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->k[i], k))
			return s->line[i];
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		char **nk = realloc(s->k, nc * sizeof(*nk));
		size_t *nl;
		if (!nk)
			return (size_t)-1;
		s->k = nk;
		nl = realloc(s->line, nc * sizeof(*nl));
		if (!nl)
			return (size_t)-1;
		s->line = nl;
		s->cap = nc;
	}
	s->k[s->n] = strdup(k);
	if (!s->k[s->n])
		return (size_t)-1;
	s->line[s->n++] = line;
	return 0;
}

static void doc_free(struct sky_doc *d)
{
	for (size_t i = 0; i < d->nenv; i++) {
		free(d->env[i].key);
		free(d->env[i].value);
	}
	free(d->env);
	free(d->cand);
	free(d->run);
	free(d->setup);
	memset(d, 0, sizeof(*d));
}

void sky_task_free(struct sky_task *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndoc; i++)
		doc_free(&t->doc[i]);
	free(t->doc);
	t->doc = NULL;
	t->ndoc = 0;
}

/* One top-level key's value, whose first event e was just read. */
static int doc_value(struct yt_rd *rd, struct sky_ctx *c, const char *key, yaml_event_t *e, size_t kline)
{
	struct sky_doc *d = c->doc;
	struct yt_node n;
	int rc;

	if (strcmp(key, "name") && strcmp(key, "num_nodes") && strcmp(key, "envs") && strcmp(key, "resources")) {
		if (!strcmp(key, "run") || !strcmp(key, "setup")) {
			char **text = !strcmp(key, "run") ? &d->run : &d->setup;
			*(key[0] == 'r' ? &d->has_run : &d->has_setup) = true;
			/* the script, kept for `plan --emit sky` (any length) */
			if (e->type == YAML_SCALAR_EVENT && !*text) {
				*text = malloc(e->data.scalar.length + 1);
				if (!*text)
					return sky_fail(c, kline, key, _("out of memory"), NULL);
				memcpy(*text, e->data.scalar.value, e->data.scalar.length);
				(*text)[e->data.scalar.length] = '\0';
			}
		}
		else if (!strcmp(key, "workdir"))
			d->has_workdir = true;
		else if (!strcmp(key, "file_mounts"))
			d->has_file_mounts = true;
		else if (!strcmp(key, "pool"))
			d->notes |= SKY_NOTE_POOL;
		else if (!strcmp(key, "execution"))
			d->notes |= SKY_NOTE_EXECUTION;
		else if (!strcmp(key, "service"))
			d->notes |= SKY_NOTE_SERVICE;
		else if (!strcmp(key, "volumes"))
			d->notes |= SKY_NOTE_VOLUMES;
		return skip_node(rd, e, 1, key);
	}
	if (yt_build(rd, e, &n, 2, key)) {
		yt_free(&n);
		return -1;
	}
	c->where[0] = '\0';
	rc = 0;
	if (!strcmp(key, "name")) {
		snprintf(c->where, sizeof(c->where), "name");
		if (n.type != YT_SCALAR)
			rc = sky_fail(c, n.line, NULL, _("expected a name, got %s"), sky_kind_of(&n));
		else if (!n.null && n.len >= sizeof(d->name))
			rc = sky_fail(c, n.line, NULL, _("longer than 127 characters"), NULL);
		else if (!n.null)
			memcpy(d->name, n.s, n.len + 1);
	} else if (!strcmp(key, "num_nodes")) {
		char msg[160];
		long v;
		snprintf(c->where, sizeof(c->where), "num_nodes");
		if (n.type == YT_SCALAR && n.null) {
			d->num_nodes = 1;
		} else if (n.type != YT_SCALAR) {
			rc = sky_fail(c, n.line, NULL, _("expected a whole number of nodes, got %s"), sky_kind_of(&n));
		} else if (units_parse_int(n.s, 1, SKY_MAX_NODES, &v, msg, sizeof(msg))) {
			char fmt[128];
			snprintf(fmt, sizeof(fmt), _("expected a whole number from 1 to %d, got '%%s'"), SKY_MAX_NODES);
			rc = sky_fail(c, n.line, NULL, fmt, n.s);
		} else {
			d->num_nodes = v;
		}
	} else if (!strcmp(key, "envs")) {
		rc = read_envs(c, &n);
	} else {
		rc = sky_read_resources(c, &n);
	}
	(void)kline;
	yt_free(&n);
	return rc;
}

static int new_doc(struct sky_task *t, size_t line)
{
	struct sky_doc *nd = realloc(t->doc, (t->ndoc + 1) * sizeof(*nd));

	if (!nd)
		return -1;
	t->doc = nd;
	memset(&t->doc[t->ndoc], 0, sizeof(*nd));
	t->doc[t->ndoc].line = line;
	t->doc[t->ndoc].num_nodes = 1;
	t->doc[t->ndoc].pref = SKY_PREF_ONE;
	t->ndoc++;
	return 0;
}

/* The top-level mapping of one document (its MAPPING_START read). */
static int read_doc(struct yt_rd *rd, struct sky_task *t, struct shape *sh, bool *task_seen)
{
	struct sky_doc *d = &t->doc[t->ndoc - 1];
	struct sky_ctx c = {.fname = rd->fname, .err = rd->err, .errlen = rd->errlen, .doc = d};
	struct seen seen = {0};
	int rc = -1;

	for (;;) {
		yaml_event_t e;
		char key[64], q[QUOTE_KEEP * 4 + 8];
		size_t kline, first;
		if (!yaml_parser_parse(&rd->p, &e)) {
			yt_syntax(rd, NULL);
			goto out;
		}
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		kline = yt_ev_line(&e);
		if (e.type != YAML_SCALAR_EVENT) {
			snprintf(rd->err, rd->errlen, _("%s:%zu: expected key: value pairs, got a key that is %s"), rd->fname,
				 kline, e.type == YAML_ALIAS_EVENT ? _("an alias") : _("a list or a mapping"));
			yaml_event_delete(&e);
			goto out;
		}
		/* a key too long to be any task key is skipped with its value */
		snprintf(key, sizeof(key), "%.*s", (int)(e.data.scalar.length < sizeof(key) ? e.data.scalar.length : 0),
			 (const char *)e.data.scalar.value);
		if (e.data.scalar.length >= sizeof(key))
			snprintf(key, sizeof(key), "(a long key)");
		yaml_event_delete(&e);
		first = seen_add(&seen, key, kline);
		if (first == (size_t)-1) {
			snprintf(rd->err, rd->errlen, _("%s:%zu: out of memory"), rd->fname, kline);
			goto out;
		}
		if (first && strcmp(key, "(a long key)")) {
			snprintf(rd->err, rd->errlen, _("%s:%zu: %s: duplicate key (first given on line %zu)"), rd->fname,
				 kline, quote_value(key, q, sizeof(q)), first);
			goto out;
		}
		shape_key(sh, key);
		if (sky_task_key(key) && !weak_task_key(key))
			*task_seen = true;
		if (!yaml_parser_parse(&rd->p, &e)) {
			yt_syntax(rd, key);
			goto out;
		}
		if (doc_value(rd, &c, key, &e, kline))
			goto out;
	}
	if (!d->ncand) {
		struct sky_res r;
		sky_res_default(&r, d->line);
		snprintf(c.where, sizeof(c.where), "resources");
		if (sky_push_cand(&c, &r, d->line))
			goto out;
	}
	rc = 0;
out:
	seen_free(&seen);
	return rc;
}

int sky_task_parse(const char *buf, size_t len, const char *fname, struct sky_task *t,
		   char *err, size_t errlen)
{
	struct yt_rd rd;
	struct shape sh = {0};
	bool task_seen = false, done = false;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	if (yt_open(&rd, buf, len, fname, err, errlen))
		return -1;
	while (!done) {
		yaml_event_t e;
		size_t line;
		if (!yaml_parser_parse(&rd.p, &e)) {
			yt_syntax(&rd, NULL);
			goto out;
		}
		line = yt_ev_line(&e);
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_MAPPING_START_EVENT:
			yaml_event_delete(&e);
			if (t->ndoc >= SKY_MAX_DOCS) {
				snprintf(err, errlen, _("%s:%zu: more than %d YAML documents"), fname, line, SKY_MAX_DOCS);
				goto out;
			}
			if (new_doc(t, line)) {
				snprintf(err, errlen, _("%s:%zu: out of memory"), fname, line);
				goto out;
			}
			if (read_doc(&rd, t, &sh, &task_seen))
				goto out;
			continue;
		case YAML_SCALAR_EVENT:
			/* an empty document ('---' at the end) holds nothing */
			if (e.data.scalar.plain_implicit &&
			    yt_null_word((const char *)e.data.scalar.value, e.data.scalar.length, false))
				break;
			snprintf(err, errlen, _("%s:%zu: expected a mapping of key: value, got a plain value"), fname, line);
			yaml_event_delete(&e);
			goto out;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_ALIAS_EVENT:
			snprintf(err, errlen, _("%s:%zu: expected a mapping of key: value, got %s"), fname, line,
				 e.type == YAML_ALIAS_EVENT ? _("an alias") : _("a list"));
			yaml_event_delete(&e);
			goto out;
		default:
			break;
		}
		yaml_event_delete(&e);
	}
	if (!task_seen) {
		t->not_a_task = shape_name(&sh);
		snprintf(err, errlen, _("%s:1: looks like %s, not a SkyPilot task (no resources, run, setup, num_nodes, "
			 "envs, file_mounts, workdir or service key)"), fname, t->not_a_task);
		goto out;
	}
	rc = 0;
out:
	yt_close(&rd);
	if (rc)
		quote_message(err, errlen);
	return rc;
}

/* ---- matching ---- */

/* SkyPilot's cloud names and the provider names the same cloud has in
 * catalogs: core/market/provider.c's sky_cloud and names. */
const char *sky_cloud_of(const struct cat_str *provider)
{
	const struct provider *pv;
	char p[128];

	if (!provider->len || provider->len >= sizeof(p))
		return NULL;
	snprintf(p, sizeof(p), "%.*s", (int)provider->len, provider->p);
	pv = provider_by_name(p);
	return pv ? pv->sky_cloud : NULL;
}

/* The offer's provider is that cloud: by name, or by one of the names the
 * cloud's row lists (one row looked up, not the provider's cloud searched
 * for: this runs for every offer and candidate). */
static bool cloud_is(const struct cat_str *prov, const char *cloud)
{
	const struct provider *pv;
	char p[128];

	if (cat_str_eq_ci(prov, cloud))
		return true;
	if (prov->len >= sizeof(p))
		return false;
	snprintf(p, sizeof(p), "%.*s", (int)prov->len, prov->p);
	pv = provider_by_sky_cloud(cloud, true);
	return pv && names_in_list(p, pv->names);
}

/* A zone against an offer: its own zone, else (no zone named) its region
 * when the zone's name starts with it (us-east-1a in us-east-1,
 * us-central1-a in us-central1). */
static bool zone_ok(const char *zone, const struct offer *o)
{
	size_t n = strlen(zone);

	if (o->zone.len)
		return cat_str_eq_ci(&o->zone, zone);
	return o->region.len && o->region.len < n && !strncasecmp(zone, o->region.p, o->region.len);
}

bool sky_res_fits(const struct sky_res *r, const struct offer *o, bool ignore_spot)
{
	if (r->dstack && !dstack_gpu_fits(r, o))
		return false;
	if (r->accel[0] && !r->dstack) {
		if (!o->gpu || !(names_equal(r->accel, o->gpu->name) || names_in_list(r->accel, o->gpu->aliases)))
			return false;
		if (fabs(r->accel_count - o->gpus) > 1e-9)
			return false;
	}
	if (!ignore_spot && r->use_spot == 1 && o->spot_price <= 0)
		return false;
	/* a catalog that does not state the host (0) is not held against it */
	if (r->cpus > 0 && o->vcpus > 0 && (r->cpus_exact ? o->vcpus != r->cpus : o->vcpus < r->cpus))
		return false;
	if (r->memory_gib > 0 && o->ram_gib > 0 &&
	    (r->memory_exact ? fabs(o->ram_gib - r->memory_gib) > 1e-9 : o->ram_gib < r->memory_gib))
		return false;
	if (r->disk_gb > 0 && o->disk_gb > 0 && o->disk_gb < r->disk_gb)
		return false;
	if (r->cloud[0] && !cloud_is(&o->provider, r->cloud))
		return false;
	if (r->region[0] && !cat_str_eq_ci(&o->region, r->region))
		return false;
	if (r->zone[0] && !zone_ok(r->zone, o))
		return false;
	if (r->instance_type[0] && !cat_str_eq_ci(&o->instance, r->instance_type))
		return false;
	return true;
}
