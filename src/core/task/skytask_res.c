/*
 * skytask_res.c - a task's resources: mapping into candidate resources sets
 * (skytask_int.h): accelerators as a name, a list or a set, and any_of /
 * ordered entries as the outer keys updated by the entry's own.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/task/skytask_int.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

/* ---- accelerators ---- */

struct accel_choice {
	char name[48];
	double count;
	size_t line;
};

struct accels {
	struct accel_choice v[SKY_MAX_CANDIDATES];
	size_t n;
	enum sky_pref pref;   /* ONE, ORDERED (a list), ANY_OF (a set or several) */
};

/* "NAME", "NAME:COUNT" (count_text NULL), or NAME with count_text. */
static int add_accel(struct sky_ctx *c, struct accels *a, const char *spec, const struct yt_node *count,
		     size_t line)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *ctext = colon ? colon + 1 : count && !count->null ? count->s : NULL;
	struct accel_choice *x;
	char fmt[160];

	if (a->n >= SKY_MAX_CANDIDATES) {
		snprintf(fmt, sizeof(fmt), _("at most %d choices"), SKY_MAX_CANDIDATES);
		return sky_fail(c, line, "accelerators", fmt, NULL);
	}
	while (nlen && isspace((unsigned char)spec[nlen - 1]))
		nlen--;
	while (nlen && isspace((unsigned char)*spec)) {
		spec++;
		nlen--;
	}
	if (!nlen)
		return sky_fail(c, line, "accelerators", _("expected a GPU name such as A100 or A100:8, got '%s'"), spec);
	if (nlen >= sizeof(x->name))
		return sky_fail(c, line, "accelerators", _("GPU name longer than 47 characters"), NULL);
	if (count && count->type != YT_SCALAR)
		return sky_fail(c, count->line, "accelerators", _("expected a count, got a list, a mapping or an alias"), NULL);
	x = &a->v[a->n];
	memcpy(x->name, spec, nlen);
	x->name[nlen] = '\0';
	x->count = 1;
	x->line = line;
	if (ctext) {
		if (units_scan_number(ctext, &x->count) || !(x->count >= SKY_MIN_ACCEL_COUNT) ||
		    x->count > SKY_MAX_ACCEL_COUNT) {
			snprintf(fmt, sizeof(fmt), _("expected NAME:COUNT with a COUNT from %g to %d such as A100:8 "
				 "(L4:0.5 for half a GPU), got '%%s'"), SKY_MIN_ACCEL_COUNT, SKY_MAX_ACCEL_COUNT);
			return sky_fail(c, line, "accelerators", fmt, colon ? spec : ctext);
		}
	}
	a->n++;
	return 0;
}

static int read_accels(struct sky_ctx *c, const struct yt_node *v, struct accels *a)
{
	a->n = 0;
	a->pref = SKY_PREF_ONE;
	if (v->type == YT_SCALAR) {
		if (v->null)
			return 0;
		return add_accel(c, a, v->s, NULL, v->line);
	}
	if (v->type == YT_ALIAS)
		return sky_fail(c, v->line, "accelerators", _("expected NAME:COUNT, a list or a set, got an alias"), NULL);
	if (v->type == YT_SEQ) {
		/* [A100:8, H100:8]: tried in the order written */
		for (size_t i = 0; i < v->nkid; i++) {
			if (v->kid[i].type != YT_SCALAR || v->kid[i].null)
				return sky_fail(c, v->kid[i].line, "accelerators", _("expected NAME:COUNT entries, got %s"),
					    v->kid[i].type == YT_SCALAR ? _("nothing") : sky_kind_of(&v->kid[i]));
			if (add_accel(c, a, v->kid[i].s, NULL, v->kid[i].line))
				return -1;
		}
		a->pref = a->n > 1 ? SKY_PREF_ORDERED : SKY_PREF_ONE;
		return 0;
	}
	/* {A100:8, H100:8} (a set: null values) or {A100: 8, H100: 8} */
	if (sky_check_keys(c, v, "accelerators"))
		return -1;
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const struct yt_node *val = &v->kid[i + 1];
		if (strchr(v->kid[i].s, ':') && !(val->type == YT_SCALAR && val->null))
			return sky_fail(c, v->kid[i].line, "accelerators", _("expected NAME: COUNT or a set of NAME:COUNT, "
				    "got '%s' with a count"), v->kid[i].s);
		if (add_accel(c, a, v->kid[i].s, val, v->kid[i].line))
			return -1;
	}
	a->pref = a->n > 1 ? SKY_PREF_ANY_OF : SKY_PREF_ONE;
	return 0;
}

/* ---- resources ---- */

void sky_res_default(struct sky_res *r, size_t line)
{
	memset(r, 0, sizeof(*r));
	r->line = line;
	r->use_spot = -1;
}

/* One key of a resources mapping into r (accelerators into a). */
static int res_key(struct sky_ctx *c, struct sky_res *r, struct accels *a, bool *has_accel, const struct yt_node *kn,
		   const struct yt_node *v)
{
	const char *k = kn->s;
	int b;

	if (v->type == YT_ALIAS && strcmp(k, "labels") && strcmp(k, "accelerator_args") && strcmp(k, "image_id"))
		return sky_fail(c, v->line, k, _("expected a value, got an alias (YAML aliases are not supported here)"), NULL);
	if (!strcmp(k, "accelerators")) {
		*has_accel = true;
		return read_accels(c, v, a);
	}
	if (!strcmp(k, "use_spot")) {
		if (v->type == YT_SCALAR && v->null) {
			r->use_spot = -1;
			return 0;
		}
		if (sky_read_bool(c, v, k, &b))
			return -1;
		r->use_spot = b;
		return 0;
	}
	if (v->type == YT_SCALAR && v->null)   /* key: (nothing) = not constrained */
		return 0;
	if (!strcmp(k, "cpus"))
		return sky_read_min(c, v, k, SKY_MAX_CPUS, &r->cpus, &r->cpus_exact);
	if (!strcmp(k, "memory"))
		return sky_read_size(c, v, k, true, SKY_MAX_MEMORY_GIB, &r->memory_gib, &r->memory_exact);
	if (!strcmp(k, "disk_size")) {
		bool ex;
		if (sky_read_size(c, v, k, false, SKY_MAX_DISK_GB, &r->disk_gb, &ex))
			return -1;
		/* yaml-spec.rst: floored to whole GB (1500MB is 1GB) */
		r->disk_gb = floor(r->disk_gb);
		if (r->disk_gb < 1)
			return sky_fail(c, v->line, k, _("expected at least 1 GB (SkyPilot floors to whole GB), got '%s'"), v->s);
		return 0;
	}
	if (!strcmp(k, "disk_tier")) {
		static const char *const tiers[] = {"low", "medium", "high", "ultra", "best"};
		char t[16];
		if (sky_want_scalar(c, v, k, _("low, medium, high, ultra or best")))
			return -1;
		snprintf(t, sizeof(t), "%s", v->s);
		sky_lower(t);
		for (size_t i = 0; i < ARRAY_SIZE(tiers); i++)
			if (v->len < sizeof(t) && !strcmp(t, tiers[i])) {
				snprintf(r->disk_tier, sizeof(r->disk_tier), "%s", tiers[i]);
				return 0;
			}
		return sky_fail(c, v->line, k, _("expected low, medium, high, ultra or best, got '%s'"), v->s);
	}
	if (!strcmp(k, "infra"))
		return sky_read_infra(c, v, r);
	if (!strcmp(k, "cloud")) {
		if (sky_copy_text(c, v, k, r->cloud, sizeof(r->cloud)))
			return -1;
		sky_lower(r->cloud);
		if (!strcmp(r->cloud, "k8s"))
			snprintf(r->cloud, sizeof(r->cloud), "kubernetes");
		r->k8s = !strcmp(r->cloud, "kubernetes");
		return 0;
	}
	if (!strcmp(k, "region"))
		return sky_copy_text(c, v, k, r->region, sizeof(r->region));
	if (!strcmp(k, "zone"))
		return sky_copy_text(c, v, k, r->zone, sizeof(r->zone));
	if (!strcmp(k, "instance_type"))
		return sky_copy_text(c, v, k, r->instance_type, sizeof(r->instance_type));
	if (!strcmp(k, "autostop"))
		return sky_read_autostop(c, v, r);
	if (!strcmp(k, "job_recovery") || !strcmp(k, "spot_recovery")) {
		const struct yt_node *s = v;
		if (v->type == YT_MAP) {
			if (sky_check_keys(c, v, k))
				return -1;
			s = NULL;
			for (size_t i = 0; i + 1 < v->nkid; i += 2)
				if (!strcmp(v->kid[i].s, "strategy"))
					s = &v->kid[i + 1];
			if (!s || (s->type == YT_SCALAR && s->null))
				return 0;
		}
		return sky_copy_text(c, s, k, r->job_recovery, sizeof(r->job_recovery));
	}
	if (!strcmp(k, "ports"))
		return sky_count_ports(c, v, &r->nports);
	if (!strcmp(k, "image_id")) {
		c->doc->notes |= SKY_NOTE_IMAGE;
		return 0;
	}
	return 0;   /* labels, network_tier, accelerator_args, ...: not planned */
}

static bool is_where_key(const char *k)
{
	return !strcmp(k, "infra") || !strcmp(k, "cloud") || !strcmp(k, "region") || !strcmp(k, "zone");
}

static bool map_has(const struct yt_node *m, bool (*pred)(const char *))
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2)
		if (pred(m->kid[i].s))
			return true;
	return false;
}

static bool map_has_key(const struct yt_node *m, const char *k)
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2)
		if (!strcmp(m->kid[i].s, k))
			return true;
	return false;
}

int sky_push_cand(struct sky_ctx *c, const struct sky_res *r, size_t line)
{
	struct sky_doc *d = c->doc;
	struct sky_res *nv;
	char fmt[96];

	if (d->ncand >= SKY_MAX_CANDIDATES) {
		snprintf(fmt, sizeof(fmt), _("at most %d candidate resources (any_of/ordered x accelerators)"),
			 SKY_MAX_CANDIDATES);
		return sky_fail(c, line, NULL, fmt, NULL);
	}
	nv = realloc(d->cand, (d->ncand + 1) * sizeof(*nv));
	if (!nv)
		return sky_fail(c, line, NULL, _("out of memory"), NULL);
	d->cand = nv;
	d->cand[d->ncand++] = *r;
	return 0;
}

/* The outer keys (base) updated by entry's (NULL: none) into candidates. */
static int expand(struct sky_ctx *c, const struct yt_node *base, const struct yt_node *entry, size_t line)
{
	struct sky_res r;
	struct accels a;
	bool has_accel = false;
	bool entry_where = entry && map_has(entry, is_where_key);

	sky_res_default(&r, line);
	a.n = 0;
	a.pref = SKY_PREF_ONE;
	if (entry && map_has_key(entry, "infra") && (map_has_key(entry, "cloud") || map_has_key(entry, "region") ||
						       map_has_key(entry, "zone")))
		return sky_fail(c, line, NULL, _("infra and cloud/region/zone: give one of them"), NULL);
	for (size_t i = 0; i + 1 < base->nkid; i += 2) {
		const char *k = base->kid[i].s;
		if (!strcmp(k, "any_of") || !strcmp(k, "ordered"))
			continue;
		/* the entry's key wins; its own place replaces the outer place whole */
		if (entry && (map_has_key(entry, k) || (entry_where && is_where_key(k))))
			continue;
		{
			char saved[96];
			memcpy(saved, c->where, sizeof(saved));
			snprintf(c->where, sizeof(c->where), "resources");
			if (res_key(c, &r, &a, &has_accel, &base->kid[i], &base->kid[i + 1])) {
				memcpy(c->where, saved, sizeof(saved));
				return -1;
			}
			memcpy(c->where, saved, sizeof(saved));
		}
	}
	if (entry)
		for (size_t i = 0; i + 1 < entry->nkid; i += 2) {
			const char *k = entry->kid[i].s;
			if (!strcmp(k, "any_of") || !strcmp(k, "ordered"))
				return sky_fail(c, entry->kid[i].line, k, _("expected resources keys; any_of and ordered do not nest"),
					    NULL);
			if (res_key(c, &r, &a, &has_accel, &entry->kid[i], &entry->kid[i + 1]))
				return -1;
		}
	if (!a.n)
		return sky_push_cand(c, &r, line);
	if (c->doc->pref == SKY_PREF_ONE)
		c->doc->pref = a.pref;
	for (size_t i = 0; i < a.n; i++) {
		snprintf(r.accel, sizeof(r.accel), "%s", a.v[i].name);
		r.accel_count = a.v[i].count;
		r.line = entry || a.n == 1 ? line : a.v[i].line;   /* the entry, or the list's item */
		if (sky_push_cand(c, &r, a.v[i].line))
			return -1;
	}
	return 0;
}

int sky_read_resources(struct sky_ctx *c, const struct yt_node *v)
{
	struct sky_doc *d = c->doc;
	const struct yt_node *any = NULL, *ord = NULL, *list;

	snprintf(c->where, sizeof(c->where), "resources");
	if (v->type == YT_SCALAR && v->null)
		return 0;
	if (v->type != YT_MAP)
		return sky_fail(c, v->line, NULL, _("expected a mapping of resources keys, got %s"), sky_kind_of(v));
	if (sky_check_keys(c, v, NULL))
		return -1;
	d->has_resources = true;
	if (map_has_key(v, "infra") && (map_has_key(v, "cloud") || map_has_key(v, "region") || map_has_key(v, "zone")))
		return sky_fail(c, v->line, NULL, _("infra and cloud/region/zone: give one of them"), NULL);
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		if (!strcmp(v->kid[i].s, "any_of"))
			any = &v->kid[i + 1];
		else if (!strcmp(v->kid[i].s, "ordered"))
			ord = &v->kid[i + 1];
	}
	if (any && ord)
		return sky_fail(c, v->line, NULL, _("any_of and ordered: give one of them (SkyPilot refuses both)"), NULL);
	list = any ? any : ord;
	if (!list || (list->type == YT_SCALAR && list->null))
		return expand(c, v, NULL, v->line);
	if (list->type != YT_SEQ || !list->nkid)
		return sky_fail(c, list->line, any ? "any_of" : "ordered", _("expected a list of resources mappings, got %s"),
			    list->type == YT_SEQ ? _("an empty list") : sky_kind_of(list));
	d->pref = any ? SKY_PREF_ANY_OF : SKY_PREF_ORDERED;
	for (size_t i = 0; i < list->nkid; i++) {
		const struct yt_node *e = &list->kid[i];
		snprintf(c->where, sizeof(c->where), "resources.%s[%zu]", any ? "any_of" : "ordered", i + 1);
		if (e->type != YT_MAP)
			return sky_fail(c, e->line, NULL, _("expected a mapping of resources keys, got %s"),
				    e->type == YT_SCALAR ? (e->null ? _("nothing") : _("a value")) : sky_kind_of(e));
		if (sky_check_keys(c, e, NULL) || expand(c, v, e, e->line))
			return -1;
	}
	return 0;
}
