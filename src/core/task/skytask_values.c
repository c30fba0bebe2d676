/*
 * skytask_values.c - the values of a SkyPilot task's keys read from the YAML
 * tree (skytask_int.h): errors naming file, line and key; numbers with
 * minimums, sizes with units, infra, autostop, ports.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/quote.h"
#include "core/task/skytask_int.h"
#include "core/text/units.h"
#include "base/util.h"
#include "base/i18n.h"

/* ---- errors ---- */

int sky_fail(struct sky_ctx *c, size_t line, const char *key, const char *fmt, const char *val)
{
	char q[QUOTE_KEEP * 4 + 8], msg[256];

	snprintf(msg, sizeof(msg), fmt, val ? quote_value(val, q, sizeof(q)) : "");
	snprintf(c->err, c->errlen, "%s:%zu: %s%s%s: %s", c->fname, line, c->where, key ? "." : "",
		 key ? key : "", msg);
	return -1;
}

const char *sky_kind_of(const struct yt_node *n)
{
	switch (n->type) {
	case YT_MAP:
		return _("a mapping");
	case YT_SEQ:
		return _("a list");
	case YT_ALIAS:
		return _("an alias (YAML aliases are not supported here)");
	default:
		return _("a value");
	}
}

/* A scalar (not null) or an error naming what it got. */
int sky_want_scalar(struct sky_ctx *c, const struct yt_node *v, const char *key, const char *what)
{
	char fmt[160];

	if (v->type == YT_SCALAR && !v->null)
		return 0;
	snprintf(fmt, sizeof(fmt), _("expected %s, got %s"), what, v->type == YT_SCALAR ? _("nothing") : sky_kind_of(v));
	return sky_fail(c, v->line, key, fmt, NULL);
}

/* The keys of a mapping node: scalars, no duplicates. */
int sky_check_keys(struct sky_ctx *c, const struct yt_node *m, const char *key)
{
	for (size_t i = 0; i + 1 < m->nkid; i += 2) {
		const struct yt_node *k = &m->kid[i];
		if (k->type != YT_SCALAR) {
			return sky_fail(c, k->line, key, _("expected key: value pairs, got a key that is %s"),
				    k->type == YT_MAP ? _("a mapping") : k->type == YT_SEQ ? _("a list") : _("an alias"));
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
int sky_read_min(struct sky_ctx *c, const struct yt_node *v, const char *key, double max, double *out, bool *exact)
{
	char num[64], fmt[160];
	size_t n;

	if (sky_want_scalar(c, v, key, _("a number or a minimum such as 8+")))
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
	return sky_fail(c, v->line, key, fmt, v->s);
}

/* A size with SkyPilot's units (yaml-spec.rst resources.memory and
 * disk_size: KB MB GB TB PB, case-insensitive, powers of 2^10; GB when no
 * unit): *gib in GiB. plus: whether a trailing '+' is allowed. */
int sky_read_size(struct sky_ctx *c, const struct yt_node *v, const char *key, bool plus, double max_gib,
		     double *gib, bool *exact)
{
	static const struct { const char *u; double gib; } units[] = {
		{"KB", 1.0 / (1024 * 1024)}, {"MB", 1.0 / 1024}, {"GB", 1}, {"TB", 1024}, {"PB", 1024.0 * 1024},
	};
	char num[64], fmt[200];
	size_t n;
	double scale = 1;

	if (sky_want_scalar(c, v, key, plus ? _("a size such as 64GB or 32+") : _("a size such as 256 or 1TB")))
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
	return sky_fail(c, v->line, key, fmt, v->s);
}

int sky_copy_text(struct sky_ctx *c, const struct yt_node *v, const char *key, char *out, size_t n)
{
	char fmt[96];

	if (sky_want_scalar(c, v, key, _("a name")))
		return -1;
	if (v->len >= n) {
		snprintf(fmt, sizeof(fmt), _("longer than %zu characters"), n - 1);
		return sky_fail(c, v->line, key, fmt, NULL);
	}
	memcpy(out, v->s, v->len + 1);
	return 0;
}

void sky_lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* infra: cloud[/region[/zone]], '*' any, k8s|kubernetes[/CONTEXT], ssh[/POOL]
 * (infra_utils.py InfraInfo.from_str). */
int sky_read_infra(struct sky_ctx *c, const struct yt_node *v, struct sky_res *r)
{
	char buf[256], *part[3] = {0};
	const char *s, *e;
	size_t n = 0;

	if (sky_want_scalar(c, v, "infra", _("cloud[/region[/zone]] such as aws/us-east-1")))
		return -1;
	s = v->s;
	e = s + v->len;
	while (s < e && (isspace((unsigned char)*s) || *s == '/'))
		s++;
	while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '/'))
		e--;
	if ((size_t)(e - s) >= sizeof(buf))
		return sky_fail(c, v->line, "infra", _("longer than 255 characters"), NULL);
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
		sky_lower(cl);
		if (!strcmp(cl, "k8s") || !strcmp(cl, "kubernetes") || !strcmp(cl, "ssh")) {
			/* the rest, slashes and all, is the context (or the node pool) */
			const char *ctx = slash ? slash + 1 : "";
			r->k8s = strcmp(cl, "ssh") != 0;
			snprintf(r->cloud, sizeof(r->cloud), "%s", r->k8s ? "kubernetes" : "ssh");
			if (strstr(buf, "//"))
				goto empty;
			if (strlen(ctx) >= sizeof(r->region))
				return sky_fail(c, v->line, "infra", _("context longer than 63 characters"), NULL);
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
			return sky_fail(c, v->line, "infra", _("expected cloud, cloud/region or cloud/region/zone, got '%s'"),
				    v->s);
		part[n++] = p;
		if (!slash)
			break;
		p = slash + 1;
	}
	if (strlen(part[0]) >= sizeof(r->cloud) || (part[1] && strlen(part[1]) >= sizeof(r->region)) ||
	    (part[2] && strlen(part[2]) >= sizeof(r->zone)))
		return sky_fail(c, v->line, "infra", _("a part longer than its limit (cloud 31, region and zone 63 characters)"),
			    NULL);
	if (strcmp(part[0], "*")) {
		snprintf(r->cloud, sizeof(r->cloud), "%s", part[0]);
		sky_lower(r->cloud);
	}
	if (part[1] && strcmp(part[1], "*"))
		snprintf(r->region, sizeof(r->region), "%s", part[1]);
	if (part[2] && strcmp(part[2], "*"))
		snprintf(r->zone, sizeof(r->zone), "%s", part[2]);
	return 0;
empty:
	return sky_fail(c, v->line, "infra", _("expected no empty part (such as '//'), got '%s'"), v->s);
}

/* autostop: true (5 idle minutes), false, N (minutes), "<N><m|h|d|w>",
 * {idle_minutes: N, down: BOOL} (yaml-spec.rst resources.autostop). */
static int read_minutes(struct sky_ctx *c, const struct yt_node *v, const char *key, double *min)
{
	static const struct { char u; double m; } units[] = {{'m', 1}, {'h', 60}, {'d', 1440}, {'w', 10080}};
	char num[64];
	double scale = 1;
	size_t n;

	if (sky_want_scalar(c, v, key, _("idle minutes such as 10 or 1h")))
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
	return sky_fail(c, v->line, key, _("expected idle minutes from 0 to 100000000 (units m, h, d, w), got '%s'"), v->s);
}

int sky_read_bool(struct sky_ctx *c, const struct yt_node *v, const char *key, int *out)
{
	char msg[128];

	if (sky_want_scalar(c, v, key, _("true or false")))
		return -1;
	if (units_parse_bool(v->s, out, msg, sizeof(msg)))
		return sky_fail(c, v->line, key, _("expected true or false, got '%s'"), v->s);
	return 0;
}

int sky_read_autostop(struct sky_ctx *c, const struct yt_node *v, struct sky_res *r)
{
	int b;

	r->autostop_given = true;
	r->autostop_off = false;
	r->autostop_down = false;
	if (v->type == YT_MAP) {
		if (sky_check_keys(c, v, "autostop"))
			return -1;
		r->autostop_idle_min = 5;   /* yaml-spec.rst: the default idle minutes */
		for (size_t i = 0; i + 1 < v->nkid; i += 2) {
			const char *k = v->kid[i].s;
			if (!strcmp(k, "idle_minutes")) {
				if (read_minutes(c, &v->kid[i + 1], "autostop.idle_minutes", &r->autostop_idle_min))
					return -1;
			} else if (!strcmp(k, "down")) {
				if (sky_read_bool(c, &v->kid[i + 1], "autostop.down", &b))
					return -1;
				r->autostop_down = b;
			}   /* other keys (wait_for, hook, ...): not planned */
		}
		return 0;
	}
	if (sky_want_scalar(c, v, "autostop", _("true, false, idle minutes or {idle_minutes, down}")))
		return -1;
	if (!units_parse_bool(v->s, &b, (char[8]){0}, 8) && !isdigit((unsigned char)v->s[0])) {
		r->autostop_off = !b;
		r->autostop_idle_min = b ? 5 : 0;
		return 0;
	}
	return read_minutes(c, v, "autostop", &r->autostop_idle_min);
}

/* ports: 8080, "10052-10100", or a list of them: how many ports. */
int sky_count_ports(struct sky_ctx *c, const struct yt_node *v, int *n)
{
	if (v->type == YT_SEQ) {
		*n = 0;
		for (size_t i = 0; i < v->nkid; i++) {
			int k;
			if (v->kid[i].type == YT_SEQ || sky_count_ports(c, &v->kid[i], &k))
				return v->kid[i].type == YT_SEQ ?
					sky_fail(c, v->kid[i].line, "ports", _("expected a port or a range, got a list"), NULL) : -1;
			if (*n + k > 65535)
				return sky_fail(c, v->line, "ports", _("expected at most 65535 ports"), NULL);
			*n += k;
		}
		return 0;
	}
	if (sky_want_scalar(c, v, "ports", _("a port such as 8080 or a range such as 10052-10100")))
		return -1;
	{
		long a, b;
		char *end;
		a = strtol(v->s, &end, 10);
		b = a;
		if (end != v->s && *end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == v->s || *end || a < 1 || b > 65535 || b < a)
			return sky_fail(c, v->line, "ports", _("expected a port from 1 to 65535 or a range such as 10052-10100, "
				    "got '%s'"), v->s);
		*n = (int)(b - a + 1);
	}
	return 0;
}
