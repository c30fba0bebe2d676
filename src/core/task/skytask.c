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
 * resources) are built into a small tree bounded by YAML_MAX_DEPTH; every
 * other value is skipped event by event at any length.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "core/market/provider.h"
#include "core/model/gpu.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "core/task/skytask.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

#define YAML_MAX_DEPTH 64

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

/* ---- a small tree of the values read ---- */

enum tn_type { TN_SCALAR, TN_MAP, TN_SEQ, TN_ALIAS };

struct tnode {
	enum tn_type type;
	size_t line;
	char *s;            /* scalar text, owned, NUL-terminated */
	size_t len;
	bool null;          /* a plain null, ~ or empty scalar */
	struct tnode *kid;  /* map: key, value, key, value...; seq: items */
	size_t nkid, cap;
};

static void tn_free(struct tnode *n)
{
	for (size_t i = 0; i < n->nkid; i++)
		tn_free(&n->kid[i]);
	free(n->kid);
	free(n->s);
	memset(n, 0, sizeof(*n));
}

static size_t ev_line(const yaml_event_t *e)
{
	return e->start_mark.line + 1;
}

struct rd {
	yaml_parser_t p;
	const char *fname;
	char *err;
	size_t errlen;
};

static int syntax_error(struct rd *r, const char *where)
{
	snprintf(r->err, r->errlen, _("%s:%zu: %s%sYAML syntax error: %s"), r->fname,
		 r->p.problem_mark.line + 1, where ? where : "", where ? ": " : "",
		 r->p.problem ? r->p.problem : "unknown");
	return -1;
}

/* Build the node whose first event e was just read (e is consumed). */
static int tn_build(struct rd *r, yaml_event_t *e, struct tnode *n, int depth, const char *where)
{
	memset(n, 0, sizeof(*n));
	n->line = ev_line(e);
	switch (e->type) {
	case YAML_SCALAR_EVENT:
		n->type = TN_SCALAR;
		n->s = malloc(e->data.scalar.length + 1);
		if (!n->s)
			goto nomem;
		memcpy(n->s, e->data.scalar.value, e->data.scalar.length);
		n->s[e->data.scalar.length] = '\0';
		n->len = e->data.scalar.length;
		n->null = e->data.scalar.plain_implicit &&
			  (!n->len || !strcmp(n->s, "~") || !strcmp(n->s, "null") || !strcmp(n->s, "Null") ||
			   !strcmp(n->s, "NULL"));
		yaml_event_delete(e);
		return 0;
	case YAML_ALIAS_EVENT:
		n->type = TN_ALIAS;
		yaml_event_delete(e);
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		break;
	default:
		yaml_event_delete(e);
		snprintf(r->err, r->errlen, _("%s:%zu: %s: unexpected YAML event"), r->fname, n->line, where);
		return -1;
	}
	n->type = e->type == YAML_MAPPING_START_EVENT ? TN_MAP : TN_SEQ;
	yaml_event_delete(e);
	if (depth > YAML_MAX_DEPTH) {
		snprintf(r->err, r->errlen, _("%s:%zu: %s: nesting deeper than %d levels"), r->fname, n->line,
			 where, YAML_MAX_DEPTH);
		return -1;
	}
	for (;;) {
		yaml_event_t x;
		if (!yaml_parser_parse(&r->p, &x))
			return syntax_error(r, where);
		if (x.type == YAML_MAPPING_END_EVENT || x.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&x);
			return 0;
		}
		if (n->nkid == n->cap) {
			size_t nc = n->cap ? n->cap * 2 : 8;
			struct tnode *k = realloc(n->kid, nc * sizeof(*k));
			if (!k) {
				yaml_event_delete(&x);
				goto nomem;
			}
			n->kid = k;
			n->cap = nc;
		}
		if (tn_build(r, &x, &n->kid[n->nkid], depth + 1, where)) {
			n->nkid++;   /* freed with the rest */
			return -1;
		}
		n->nkid++;
	}
nomem:
	snprintf(r->err, r->errlen, _("%s:%zu: %s: out of memory"), r->fname, n->line, where);
	return -1;
}

/* Skip the node whose first event e was just read (e is consumed). */
static int skip_node(struct rd *r, yaml_event_t *e, int depth0, const char *where)
{
	int depth;

	if (e->type != YAML_MAPPING_START_EVENT && e->type != YAML_SEQUENCE_START_EVENT) {
		yaml_event_delete(e);
		return 0;
	}
	yaml_event_delete(e);
	depth = 1;
	while (depth > 0) {
		yaml_event_t x;
		if (!yaml_parser_parse(&r->p, &x))
			return syntax_error(r, where);
		if (x.type == YAML_MAPPING_START_EVENT || x.type == YAML_SEQUENCE_START_EVENT) {
			if (++depth + depth0 > YAML_MAX_DEPTH) {
				snprintf(r->err, r->errlen, _("%s:%zu: %s: nesting deeper than %d levels"), r->fname,
					 ev_line(&x), where, YAML_MAX_DEPTH);
				yaml_event_delete(&x);
				return -1;
			}
		} else if (x.type == YAML_MAPPING_END_EVENT || x.type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&x);
	}
	return 0;
}

/* ---- errors ---- */

struct ctx {
	const char *fname;
	char *err;
	size_t errlen;
	char where[96];     /* "resources", "resources.any_of[2]" */
	struct sky_doc *doc;
};

static int fail(struct ctx *c, size_t line, const char *key, const char *fmt, const char *val)
{
	char q[QUOTE_KEEP * 4 + 8], msg[256];

	snprintf(msg, sizeof(msg), fmt, val ? quote_value(val, q, sizeof(q)) : "");
	snprintf(c->err, c->errlen, "%s:%zu: %s%s%s: %s", c->fname, line, c->where, key ? "." : "",
		 key ? key : "", msg);
	return -1;
}

static const char *kind_of(const struct tnode *n)
{
	switch (n->type) {
	case TN_MAP:
		return _("a mapping");
	case TN_SEQ:
		return _("a list");
	case TN_ALIAS:
		return _("an alias (YAML aliases are not supported here)");
	default:
		return _("a value");
	}
}

/* A scalar (not null) or an error naming what it got. */
static int want_scalar(struct ctx *c, const struct tnode *v, const char *key, const char *what)
{
	char fmt[160];

	if (v->type == TN_SCALAR && !v->null)
		return 0;
	snprintf(fmt, sizeof(fmt), _("expected %s, got %s"), what, v->type == TN_SCALAR ? _("nothing") : kind_of(v));
	return fail(c, v->line, key, fmt, NULL);
}

/* The keys of a mapping node: scalars, no duplicates. */
static int check_keys(struct ctx *c, const struct tnode *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2) {
		const struct tnode *k = &m->kid[i];
		if (k->type != TN_SCALAR) {
			return fail(c, k->line, key, _("expected key: value pairs, got a key that is %s"),
				    k->type == TN_MAP ? _("a mapping") : k->type == TN_SEQ ? _("a list") : _("an alias"));
		}
		for (size_t j = 0; j < i; j += 2)
			if (m->kid[j].len == k->len && !memcmp(m->kid[j].s, k->s, k->len)) {
				char fmt[128], q[QUOTE_KEEP * 4 + 8];
				snprintf(fmt, sizeof(fmt), _("duplicate key '%s' (first given on line %zu)"),
					 quote_value(k->s, q, sizeof(q)), m->kid[j].line);
				snprintf(c->err, c->errlen, "%s:%zu: %s%s%s: %s", c->fname, k->line, c->where,
					 key ? "." : "", key ? key : "", fmt);
				return -1;
			}
	}
	return 0;
}

/* ---- values ---- */

/* "8", "8+", 8 (cpus): finite, from 0.001 to max. */
static int read_min(struct ctx *c, const struct tnode *v, const char *key, double max, double *out, bool *exact)
{
	char num[64], fmt[160];
	size_t n;

	if (want_scalar(c, v, key, _("a number or a minimum such as 8+")))
		return -1;
	n = v->len;
	*exact = true;
	if (n && v->s[n - 1] == '+') {
		*exact = false;
		n--;
	}
	if (n >= sizeof(num))
		goto bad;
	memcpy(num, v->s, n);
	num[n] = '\0';
	if (units_scan_number(num, out) || !(*out >= 0.001) || *out > max)
		goto bad;
	return 0;
bad:
	snprintf(fmt, sizeof(fmt), _("expected a number from 0.001 to %.0f or a minimum such as 8+, got '%%s'"), max);
	return fail(c, v->line, key, fmt, v->s);
}

/* A size with SkyPilot's units (yaml-spec.rst resources.memory and
 * disk_size: KB MB GB TB PB, case-insensitive, powers of 2^10; GB when no
 * unit): *gib in GiB. plus: whether a trailing '+' is allowed. */
static int read_size(struct ctx *c, const struct tnode *v, const char *key, bool plus, double max_gib,
		     double *gib, bool *exact)
{
	static const struct { const char *u; double gib; } units[] = {
		{"KB", 1.0 / (1024 * 1024)}, {"MB", 1.0 / 1024}, {"GB", 1}, {"TB", 1024}, {"PB", 1024.0 * 1024},
	};
	char num[64], fmt[200];
	size_t n;
	double scale = 1;

	if (want_scalar(c, v, key, plus ? _("a size such as 64GB or 32+") : _("a size such as 256 or 1TB")))
		return -1;
	n = v->len;
	*exact = true;
	if (plus && n && v->s[n - 1] == '+') {
		*exact = false;
		n--;
	}
	if (n >= sizeof(num))
		goto bad;
	memcpy(num, v->s, n);
	num[n] = '\0';
	while (n && isspace((unsigned char)num[n - 1]))
		num[--n] = '\0';
	if (n >= 2 && isalpha((unsigned char)num[n - 1])) {
		bool found = false;
		for (size_t i = 0; i < ARRAY_SIZE(units) && !found; i++)
			if (!strcasecmp(num + n - 2, units[i].u)) {
				scale = units[i].gib;
				num[n - 2] = '\0';
				found = true;
			}
		if (!found)
			goto bad;
	}
	if (units_scan_number(num, gib) || !(*gib > 0))
		goto bad;
	*gib *= scale;
	if (!(*gib > 0) || *gib > max_gib)
		goto bad;
	return 0;
bad:
	snprintf(fmt, sizeof(fmt), _("expected a size above 0 and at most %.0f GB (units KB, MB, GB, TB, PB%s), got '%%s'"),
		 max_gib, plus ? "; + for a minimum" : "");
	return fail(c, v->line, key, fmt, v->s);
}

static int copy_text(struct ctx *c, const struct tnode *v, const char *key, char *out, size_t n)
{
	char fmt[96];

	if (want_scalar(c, v, key, _("a name")))
		return -1;
	if (v->len >= n) {
		snprintf(fmt, sizeof(fmt), _("longer than %zu characters"), n - 1);
		return fail(c, v->line, key, fmt, NULL);
	}
	memcpy(out, v->s, v->len + 1);
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* infra: cloud[/region[/zone]], '*' any, k8s|kubernetes[/CONTEXT], ssh[/POOL]
 * (infra_utils.py InfraInfo.from_str). */
static int read_infra(struct ctx *c, const struct tnode *v, struct sky_res *r)
{
	char buf[256], *part[3] = {0};
	const char *s, *e;
	size_t n = 0;

	if (want_scalar(c, v, "infra", _("cloud[/region[/zone]] such as aws/us-east-1")))
		return -1;
	s = v->s;
	e = s + v->len;
	while (s < e && (isspace((unsigned char)*s) || *s == '/'))
		s++;
	while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '/'))
		e--;
	if ((size_t)(e - s) >= sizeof(buf))
		return fail(c, v->line, "infra", _("longer than 255 characters"), NULL);
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	r->cloud[0] = r->region[0] = r->zone[0] = '\0';
	r->k8s = false;
	if (!buf[0])
		return 0;
	{
		char *slash = strchr(buf, '/');
		char cl[40];
		snprintf(cl, sizeof(cl), "%.*s", (int)(slash ? (size_t)(slash - buf) : strlen(buf)), buf);
		lower(cl);
		if (!strcmp(cl, "k8s") || !strcmp(cl, "kubernetes") || !strcmp(cl, "ssh")) {
			/* the rest, slashes and all, is the context (or the node pool) */
			const char *ctx = slash ? slash + 1 : "";
			r->k8s = strcmp(cl, "ssh") != 0;
			snprintf(r->cloud, sizeof(r->cloud), "%s", r->k8s ? "kubernetes" : "ssh");
			if (strstr(buf, "//"))
				goto empty;
			if (strlen(ctx) >= sizeof(r->region))
				return fail(c, v->line, "infra", _("context longer than 63 characters"), NULL);
			if (strcmp(ctx, "*"))
				snprintf(r->region, sizeof(r->region), "%s", ctx);
			return 0;
		}
	}
	for (char *p = buf;;) {
		char *slash = strchr(p, '/');
		if (slash)
			*slash = '\0';
		/* parts are trimmed of blanks */
		while (isspace((unsigned char)*p))
			p++;
		for (size_t k = strlen(p); k && isspace((unsigned char)p[k - 1]); k--)
			p[k - 1] = '\0';
		if (!*p)
			goto empty;
		if (n == 3)
			return fail(c, v->line, "infra", _("expected cloud, cloud/region or cloud/region/zone, got '%s'"),
				    v->s);
		part[n++] = p;
		if (!slash)
			break;
		p = slash + 1;
	}
	if (strlen(part[0]) >= sizeof(r->cloud) || (part[1] && strlen(part[1]) >= sizeof(r->region)) ||
	    (part[2] && strlen(part[2]) >= sizeof(r->zone)))
		return fail(c, v->line, "infra", _("a part longer than its limit (cloud 31, region and zone 63 characters)"),
			    NULL);
	if (strcmp(part[0], "*")) {
		snprintf(r->cloud, sizeof(r->cloud), "%s", part[0]);
		lower(r->cloud);
	}
	if (part[1] && strcmp(part[1], "*"))
		snprintf(r->region, sizeof(r->region), "%s", part[1]);
	if (part[2] && strcmp(part[2], "*"))
		snprintf(r->zone, sizeof(r->zone), "%s", part[2]);
	return 0;
empty:
	return fail(c, v->line, "infra", _("expected no empty part (such as '//'), got '%s'"), v->s);
}

/* autostop: true (5 idle minutes), false, N (minutes), "<N><m|h|d|w>",
 * {idle_minutes: N, down: BOOL} (yaml-spec.rst resources.autostop). */
static int read_minutes(struct ctx *c, const struct tnode *v, const char *key, double *min)
{
	static const struct { char u; double m; } units[] = {{'m', 1}, {'h', 60}, {'d', 1440}, {'w', 10080}};
	char num[64];
	double scale = 1;
	size_t n;

	if (want_scalar(c, v, key, _("idle minutes such as 10 or 1h")))
		return -1;
	n = v->len;
	if (n >= sizeof(num))
		goto bad;
	memcpy(num, v->s, n + 1);
	if (n && isalpha((unsigned char)num[n - 1])) {
		bool found = false;
		for (size_t i = 0; i < ARRAY_SIZE(units) && !found; i++)
			if (tolower((unsigned char)num[n - 1]) == units[i].u) {
				scale = units[i].m;
				found = true;
			}
		if (!found)
			goto bad;
		num[n - 1] = '\0';
	}
	if (units_scan_number(num, min) || !(*min >= 0) || *min * scale > 1e8)
		goto bad;
	*min *= scale;
	return 0;
bad:
	return fail(c, v->line, key, _("expected idle minutes from 0 to 100000000 (units m, h, d, w), got '%s'"), v->s);
}

static int read_bool(struct ctx *c, const struct tnode *v, const char *key, int *out)
{
	char msg[128];

	if (want_scalar(c, v, key, _("true or false")))
		return -1;
	if (units_parse_bool(v->s, out, msg, sizeof(msg)))
		return fail(c, v->line, key, _("expected true or false, got '%s'"), v->s);
	return 0;
}

static int read_autostop(struct ctx *c, const struct tnode *v, struct sky_res *r)
{
	int b;

	r->autostop_given = true;
	r->autostop_off = false;
	r->autostop_down = false;
	if (v->type == TN_MAP) {
		if (check_keys(c, v, "autostop"))
			return -1;
		r->autostop_idle_min = 5;   /* yaml-spec.rst: the default idle minutes */
		for (size_t i = 0; i + 1 < v->nkid; i += 2) {
			const char *k = v->kid[i].s;
			if (!strcmp(k, "idle_minutes")) {
				if (read_minutes(c, &v->kid[i + 1], "autostop.idle_minutes", &r->autostop_idle_min))
					return -1;
			} else if (!strcmp(k, "down")) {
				if (read_bool(c, &v->kid[i + 1], "autostop.down", &b))
					return -1;
				r->autostop_down = b;
			}   /* other keys (wait_for, hook, ...): not planned */
		}
		return 0;
	}
	if (want_scalar(c, v, "autostop", _("true, false, idle minutes or {idle_minutes, down}")))
		return -1;
	if (!units_parse_bool(v->s, &b, (char[8]){0}, 8) && !isdigit((unsigned char)v->s[0])) {
		r->autostop_off = !b;
		r->autostop_idle_min = b ? 5 : 0;
		return 0;
	}
	return read_minutes(c, v, "autostop", &r->autostop_idle_min);
}

/* ports: 8080, "10052-10100", or a list of them: how many ports. */
static int count_ports(struct ctx *c, const struct tnode *v, int *n)
{
	if (v->type == TN_SEQ) {
		*n = 0;
		for (size_t i = 0; i < v->nkid; i++) {
			int k;
			if (v->kid[i].type == TN_SEQ || count_ports(c, &v->kid[i], &k))
				return v->kid[i].type == TN_SEQ ?
					fail(c, v->kid[i].line, "ports", _("expected a port or a range, got a list"), NULL) : -1;
			if (*n + k > 65535)
				return fail(c, v->line, "ports", _("expected at most 65535 ports"), NULL);
			*n += k;
		}
		return 0;
	}
	if (want_scalar(c, v, "ports", _("a port such as 8080 or a range such as 10052-10100")))
		return -1;
	{
		long a, b;
		char *end;
		a = strtol(v->s, &end, 10);
		b = a;
		if (end != v->s && *end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == v->s || *end || a < 1 || b > 65535 || b < a)
			return fail(c, v->line, "ports", _("expected a port from 1 to 65535 or a range such as 10052-10100, "
				    "got '%s'"), v->s);
		*n = (int)(b - a + 1);
	}
	return 0;
}

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
static int add_accel(struct ctx *c, struct accels *a, const char *spec, const struct tnode *count,
		     size_t line)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *ctext = colon ? colon + 1 : count && !count->null ? count->s : NULL;
	struct accel_choice *x;
	char fmt[160];

	if (a->n >= SKY_MAX_CANDIDATES) {
		snprintf(fmt, sizeof(fmt), _("at most %d choices"), SKY_MAX_CANDIDATES);
		return fail(c, line, "accelerators", fmt, NULL);
	}
	while (nlen && isspace((unsigned char)spec[nlen - 1]))
		nlen--;
	while (nlen && isspace((unsigned char)*spec)) {
		spec++;
		nlen--;
	}
	if (!nlen)
		return fail(c, line, "accelerators", _("expected a GPU name such as A100 or A100:8, got '%s'"), spec);
	if (nlen >= sizeof(x->name))
		return fail(c, line, "accelerators", _("GPU name longer than 47 characters"), NULL);
	if (count && count->type != TN_SCALAR)
		return fail(c, count->line, "accelerators", _("expected a count, got a list, a mapping or an alias"), NULL);
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
			return fail(c, line, "accelerators", fmt, colon ? spec : ctext);
		}
	}
	a->n++;
	return 0;
}

static int read_accels(struct ctx *c, const struct tnode *v, struct accels *a)
{
	a->n = 0;
	a->pref = SKY_PREF_ONE;
	if (v->type == TN_SCALAR) {
		if (v->null)
			return 0;
		return add_accel(c, a, v->s, NULL, v->line);
	}
	if (v->type == TN_ALIAS)
		return fail(c, v->line, "accelerators", _("expected NAME:COUNT, a list or a set, got an alias"), NULL);
	if (v->type == TN_SEQ) {
		/* [A100:8, H100:8]: tried in the order written */
		for (size_t i = 0; i < v->nkid; i++) {
			if (v->kid[i].type != TN_SCALAR || v->kid[i].null)
				return fail(c, v->kid[i].line, "accelerators", _("expected NAME:COUNT entries, got %s"),
					    v->kid[i].type == TN_SCALAR ? _("nothing") : kind_of(&v->kid[i]));
			if (add_accel(c, a, v->kid[i].s, NULL, v->kid[i].line))
				return -1;
		}
		a->pref = a->n > 1 ? SKY_PREF_ORDERED : SKY_PREF_ONE;
		return 0;
	}
	/* {A100:8, H100:8} (a set: null values) or {A100: 8, H100: 8} */
	if (check_keys(c, v, "accelerators"))
		return -1;
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const struct tnode *val = &v->kid[i + 1];
		if (strchr(v->kid[i].s, ':') && !(val->type == TN_SCALAR && val->null))
			return fail(c, v->kid[i].line, "accelerators", _("expected NAME: COUNT or a set of NAME:COUNT, "
				    "got '%s' with a count"), v->kid[i].s);
		if (add_accel(c, a, v->kid[i].s, val, v->kid[i].line))
			return -1;
	}
	a->pref = a->n > 1 ? SKY_PREF_ANY_OF : SKY_PREF_ONE;
	return 0;
}

/* ---- resources ---- */

static void res_default(struct sky_res *r, size_t line)
{
	memset(r, 0, sizeof(*r));
	r->line = line;
	r->use_spot = -1;
}

/* One key of a resources mapping into r (accelerators into a). */
static int res_key(struct ctx *c, struct sky_res *r, struct accels *a, bool *has_accel, const struct tnode *kn,
		   const struct tnode *v)
{
	const char *k = kn->s;
	int b;

	if (v->type == TN_ALIAS && strcmp(k, "labels") && strcmp(k, "accelerator_args") && strcmp(k, "image_id"))
		return fail(c, v->line, k, _("expected a value, got an alias (YAML aliases are not supported here)"), NULL);
	if (!strcmp(k, "accelerators")) {
		*has_accel = true;
		return read_accels(c, v, a);
	}
	if (!strcmp(k, "use_spot")) {
		if (v->type == TN_SCALAR && v->null) {
			r->use_spot = -1;
			return 0;
		}
		if (read_bool(c, v, k, &b))
			return -1;
		r->use_spot = b;
		return 0;
	}
	if (v->type == TN_SCALAR && v->null)   /* key: (nothing) = not constrained */
		return 0;
	if (!strcmp(k, "cpus"))
		return read_min(c, v, k, SKY_MAX_CPUS, &r->cpus, &r->cpus_exact);
	if (!strcmp(k, "memory"))
		return read_size(c, v, k, true, SKY_MAX_MEMORY_GIB, &r->memory_gib, &r->memory_exact);
	if (!strcmp(k, "disk_size")) {
		bool ex;
		if (read_size(c, v, k, false, SKY_MAX_DISK_GB, &r->disk_gb, &ex))
			return -1;
		/* yaml-spec.rst: floored to whole GB (1500MB is 1GB) */
		r->disk_gb = floor(r->disk_gb);
		if (r->disk_gb < 1)
			return fail(c, v->line, k, _("expected at least 1 GB (SkyPilot floors to whole GB), got '%s'"), v->s);
		return 0;
	}
	if (!strcmp(k, "disk_tier")) {
		static const char *const tiers[] = {"low", "medium", "high", "ultra", "best"};
		char t[16];
		if (want_scalar(c, v, k, _("low, medium, high, ultra or best")))
			return -1;
		snprintf(t, sizeof(t), "%s", v->s);
		lower(t);
		for (size_t i = 0; i < ARRAY_SIZE(tiers); i++)
			if (v->len < sizeof(t) && !strcmp(t, tiers[i])) {
				snprintf(r->disk_tier, sizeof(r->disk_tier), "%s", tiers[i]);
				return 0;
			}
		return fail(c, v->line, k, _("expected low, medium, high, ultra or best, got '%s'"), v->s);
	}
	if (!strcmp(k, "infra"))
		return read_infra(c, v, r);
	if (!strcmp(k, "cloud")) {
		if (copy_text(c, v, k, r->cloud, sizeof(r->cloud)))
			return -1;
		lower(r->cloud);
		if (!strcmp(r->cloud, "k8s"))
			snprintf(r->cloud, sizeof(r->cloud), "kubernetes");
		r->k8s = !strcmp(r->cloud, "kubernetes");
		return 0;
	}
	if (!strcmp(k, "region"))
		return copy_text(c, v, k, r->region, sizeof(r->region));
	if (!strcmp(k, "zone"))
		return copy_text(c, v, k, r->zone, sizeof(r->zone));
	if (!strcmp(k, "instance_type"))
		return copy_text(c, v, k, r->instance_type, sizeof(r->instance_type));
	if (!strcmp(k, "autostop"))
		return read_autostop(c, v, r);
	if (!strcmp(k, "job_recovery") || !strcmp(k, "spot_recovery")) {
		const struct tnode *s = v;
		if (v->type == TN_MAP) {
			if (check_keys(c, v, k))
				return -1;
			s = NULL;
			for (size_t i = 0; i + 1 < v->nkid; i += 2)
				if (!strcmp(v->kid[i].s, "strategy"))
					s = &v->kid[i + 1];
			if (!s || (s->type == TN_SCALAR && s->null))
				return 0;
		}
		return copy_text(c, s, k, r->job_recovery, sizeof(r->job_recovery));
	}
	if (!strcmp(k, "ports"))
		return count_ports(c, v, &r->nports);
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

static bool map_has(const struct tnode *m, bool (*pred)(const char *))
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2)
		if (pred(m->kid[i].s))
			return true;
	return false;
}

static bool map_has_key(const struct tnode *m, const char *k)
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2)
		if (!strcmp(m->kid[i].s, k))
			return true;
	return false;
}

static int push_cand(struct ctx *c, const struct sky_res *r, size_t line)
{
	struct sky_doc *d = c->doc;
	struct sky_res *nv;
	char fmt[96];

	if (d->ncand >= SKY_MAX_CANDIDATES) {
		snprintf(fmt, sizeof(fmt), _("at most %d candidate resources (any_of/ordered x accelerators)"),
			 SKY_MAX_CANDIDATES);
		return fail(c, line, NULL, fmt, NULL);
	}
	nv = realloc(d->cand, (d->ncand + 1) * sizeof(*nv));
	if (!nv)
		return fail(c, line, NULL, _("out of memory"), NULL);
	d->cand = nv;
	d->cand[d->ncand++] = *r;
	return 0;
}

/* The outer keys (base) updated by entry's (NULL: none) into candidates. */
static int expand(struct ctx *c, const struct tnode *base, const struct tnode *entry, size_t line)
{
	struct sky_res r;
	struct accels a;
	bool has_accel = false;
	bool entry_where = entry && map_has(entry, is_where_key);

	res_default(&r, line);
	a.n = 0;
	a.pref = SKY_PREF_ONE;
	if (entry && map_has_key(entry, "infra") && (map_has_key(entry, "cloud") || map_has_key(entry, "region") ||
						       map_has_key(entry, "zone")))
		return fail(c, line, NULL, _("infra and cloud/region/zone: give one of them"), NULL);
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
				return fail(c, entry->kid[i].line, k, _("expected resources keys; any_of and ordered do not nest"),
					    NULL);
			if (res_key(c, &r, &a, &has_accel, &entry->kid[i], &entry->kid[i + 1]))
				return -1;
		}
	if (!a.n)
		return push_cand(c, &r, line);
	if (c->doc->pref == SKY_PREF_ONE)
		c->doc->pref = a.pref;
	for (size_t i = 0; i < a.n; i++) {
		snprintf(r.accel, sizeof(r.accel), "%s", a.v[i].name);
		r.accel_count = a.v[i].count;
		r.line = entry || a.n == 1 ? line : a.v[i].line;   /* the entry, or the list's item */
		if (push_cand(c, &r, a.v[i].line))
			return -1;
	}
	return 0;
}

static int read_resources(struct ctx *c, const struct tnode *v)
{
	struct sky_doc *d = c->doc;
	const struct tnode *any = NULL, *ord = NULL, *list;

	snprintf(c->where, sizeof(c->where), "resources");
	if (v->type == TN_SCALAR && v->null)
		return 0;
	if (v->type != TN_MAP)
		return fail(c, v->line, NULL, _("expected a mapping of resources keys, got %s"), kind_of(v));
	if (check_keys(c, v, NULL))
		return -1;
	d->has_resources = true;
	if (map_has_key(v, "infra") && (map_has_key(v, "cloud") || map_has_key(v, "region") || map_has_key(v, "zone")))
		return fail(c, v->line, NULL, _("infra and cloud/region/zone: give one of them"), NULL);
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		if (!strcmp(v->kid[i].s, "any_of"))
			any = &v->kid[i + 1];
		else if (!strcmp(v->kid[i].s, "ordered"))
			ord = &v->kid[i + 1];
	}
	if (any && ord)
		return fail(c, v->line, NULL, _("any_of and ordered: give one of them (SkyPilot refuses both)"), NULL);
	list = any ? any : ord;
	if (!list || (list->type == TN_SCALAR && list->null))
		return expand(c, v, NULL, v->line);
	if (list->type != TN_SEQ || !list->nkid)
		return fail(c, list->line, any ? "any_of" : "ordered", _("expected a list of resources mappings, got %s"),
			    list->type == TN_SEQ ? _("an empty list") : kind_of(list));
	d->pref = any ? SKY_PREF_ANY_OF : SKY_PREF_ORDERED;
	for (size_t i = 0; i < list->nkid; i++) {
		const struct tnode *e = &list->kid[i];
		snprintf(c->where, sizeof(c->where), "resources.%s[%zu]", any ? "any_of" : "ordered", i + 1);
		if (e->type != TN_MAP)
			return fail(c, e->line, NULL, _("expected a mapping of resources keys, got %s"),
				    e->type == TN_SCALAR ? (e->null ? _("nothing") : _("a value")) : kind_of(e));
		if (check_keys(c, e, NULL) || expand(c, v, e, e->line))
			return -1;
	}
	return 0;
}

static int read_envs(struct ctx *c, const struct tnode *v)
{
	struct sky_doc *d = c->doc;
	char fmt[64];

	snprintf(c->where, sizeof(c->where), "envs");
	if (v->type == TN_SCALAR && v->null)
		return 0;
	if (v->type != TN_MAP)
		return fail(c, v->line, NULL, _("expected a mapping of NAME: value, got %s"), kind_of(v));
	if (check_keys(c, v, NULL))
		return -1;
	if (v->nkid / 2 > SKY_MAX_ENVS) {
		snprintf(fmt, sizeof(fmt), _("at most %d variables"), SKY_MAX_ENVS);
		return fail(c, v->line, NULL, fmt, NULL);
	}
	d->env = calloc(v->nkid / 2 + 1, sizeof(*d->env));
	if (!d->env)
		return fail(c, v->line, NULL, _("out of memory"), NULL);
	for (size_t i = 0; i + 1 < v->nkid; i += 2) {
		const struct tnode *val = &v->kid[i + 1];
		struct sky_env *e = &d->env[d->nenv];
		if (val->type != TN_SCALAR)
			return fail(c, val->line, v->kid[i].s, _("expected a text value or nothing, got %s"), kind_of(val));
		e->key = strdup(v->kid[i].s);
		e->value = strdup(val->null ? "" : val->s);
		e->line = v->kid[i].line;
		d->nenv++;
		if (!e->key || !e->value)
			return fail(c, val->line, NULL, _("out of memory"), NULL);
	}
	return 0;
}

/* ---- documents ---- */

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
static int doc_value(struct rd *rd, struct ctx *c, const char *key, yaml_event_t *e, size_t kline)
{
	struct sky_doc *d = c->doc;
	struct tnode n;
	int rc;

	if (strcmp(key, "name") && strcmp(key, "num_nodes") && strcmp(key, "envs") && strcmp(key, "resources")) {
		if (!strcmp(key, "run") || !strcmp(key, "setup")) {
			char **text = !strcmp(key, "run") ? &d->run : &d->setup;
			*(key[0] == 'r' ? &d->has_run : &d->has_setup) = true;
			/* the script, kept for `plan --emit sky` (any length) */
			if (e->type == YAML_SCALAR_EVENT && !*text) {
				*text = malloc(e->data.scalar.length + 1);
				if (!*text)
					return fail(c, kline, key, _("out of memory"), NULL);
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
	if (tn_build(rd, e, &n, 2, key)) {
		tn_free(&n);
		return -1;
	}
	c->where[0] = '\0';
	rc = 0;
	if (!strcmp(key, "name")) {
		snprintf(c->where, sizeof(c->where), "name");
		if (n.type != TN_SCALAR)
			rc = fail(c, n.line, NULL, _("expected a name, got %s"), kind_of(&n));
		else if (!n.null && n.len >= sizeof(d->name))
			rc = fail(c, n.line, NULL, _("longer than 127 characters"), NULL);
		else if (!n.null)
			memcpy(d->name, n.s, n.len + 1);
	} else if (!strcmp(key, "num_nodes")) {
		char msg[160];
		long v;
		snprintf(c->where, sizeof(c->where), "num_nodes");
		if (n.type == TN_SCALAR && n.null) {
			d->num_nodes = 1;
		} else if (n.type != TN_SCALAR) {
			rc = fail(c, n.line, NULL, _("expected a whole number of nodes, got %s"), kind_of(&n));
		} else if (units_parse_int(n.s, 1, SKY_MAX_NODES, &v, msg, sizeof(msg))) {
			char fmt[128];
			snprintf(fmt, sizeof(fmt), _("expected a whole number from 1 to %d, got '%%s'"), SKY_MAX_NODES);
			rc = fail(c, n.line, NULL, fmt, n.s);
		} else {
			d->num_nodes = v;
		}
	} else if (!strcmp(key, "envs")) {
		rc = read_envs(c, &n);
	} else {
		rc = read_resources(c, &n);
	}
	(void)kline;
	tn_free(&n);
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
static int read_doc(struct rd *rd, struct sky_task *t, struct shape *sh, bool *task_seen)
{
	struct sky_doc *d = &t->doc[t->ndoc - 1];
	struct ctx c = {.fname = rd->fname, .err = rd->err, .errlen = rd->errlen, .doc = d};
	struct seen seen = {0};
	int rc = -1;

	for (;;) {
		yaml_event_t e;
		char key[64], q[QUOTE_KEEP * 4 + 8];
		size_t kline, first;
		if (!yaml_parser_parse(&rd->p, &e)) {
			syntax_error(rd, NULL);
			goto out;
		}
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		kline = ev_line(&e);
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
			syntax_error(rd, key);
			goto out;
		}
		if (doc_value(rd, &c, key, &e, kline))
			goto out;
	}
	if (!d->ncand) {
		struct sky_res r;
		res_default(&r, d->line);
		snprintf(c.where, sizeof(c.where), "resources");
		if (push_cand(&c, &r, d->line))
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
	struct rd rd = {.fname = fname, .err = err, .errlen = errlen};
	struct shape sh = {0};
	bool task_seen = false, done = false;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&rd.p)) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	yaml_parser_set_input_string(&rd.p, (const unsigned char *)buf, len);
	while (!done) {
		yaml_event_t e;
		size_t line;
		if (!yaml_parser_parse(&rd.p, &e)) {
			syntax_error(&rd, NULL);
			goto out;
		}
		line = ev_line(&e);
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
			    (!e.data.scalar.length || !strcmp((const char *)e.data.scalar.value, "~") ||
			     !strcmp((const char *)e.data.scalar.value, "null")))
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
	yaml_parser_delete(&rd.p);
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
	if (r->accel[0]) {
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
