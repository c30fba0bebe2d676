/*
 * catalog_vast.c - vast.ai's offer search answer as a SkyPilot vms.csv
 * (catalog_vast.h): a small JSON reader (objects, arrays, strings with
 * escapes, numbers, literals; depth-limited) that keeps the fields
 * fetch_vast.py maps and skips the rest.
 */
#include "core/market/catalog_vast.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"

#define VAST_MAX_DEPTH 64

struct jr {
	const char *s, *p, *end;
	const char *fname;
	char *err;
	size_t errlen;
};

/* One offer's fields (fetch_vast.py mapped_keys and its GpuInfo). */
struct vrow {
	char gpu_name[128], geolocation[128];
	double num_gpus, cpu_cores, cpu_ram, total_hour, dph_total, min_bid, gpu_total_ram, hosting_type;
	bool has_total_hour, has_dph, has_bid, has_hosting;
};

static int fail(struct jr *j, const char *what)
{
	snprintf(j->err, j->errlen, _("%s: byte %zu: expected %s"), j->fname, (size_t)(j->p - j->s) + 1, what);
	return -1;
}

static void ws(struct jr *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* The byte c next (after blanks), consumed; else the error naming what. */
static int expect(struct jr *j, char c, const char *what)
{
	ws(j);
	if (j->p >= j->end || *j->p != c)
		return fail(j, what);
	j->p++;
	return 0;
}

/* A string into out (n bytes, cut; control characters and quotes made
 * blanks, \u escapes outside ASCII made '?'); out may be NULL. */
static int str(struct jr *j, char *out, size_t n)
{
	size_t k = 0;

	if (j->p >= j->end || *j->p != '"')
		return fail(j, _("a string"));
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p++;
		if (c < 0x20)
			return fail(j, _("no control character inside a string"));
		if (c == '\\') {
			if (j->p >= j->end)
				break;
			c = (unsigned char)*j->p++;
			if (c == 'u') {
				unsigned v = 0;
				for (int i = 0; i < 4; i++, j->p++) {
					char h = j->p < j->end ? *j->p : 0;
					if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
						return fail(j, _("four hex digits after \\u"));
					v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
				}
				c = v < 0x80 ? (unsigned char)v : '?';
			} else if (!strchr("\"\\/bfnrt", c)) {
				return fail(j, _("a valid escape"));
			} else if (strchr("bfnrt", c)) {
				c = ' ';
			}
		}
		if (c < 0x20 || c == 0x7f || c == '"')
			c = ' ';
		if (out && k + 1 < n)
			out[k++] = (char)c;
	}
	if (j->p >= j->end)
		return fail(j, _("the end of a string"));
	j->p++;
	if (out && n)
		out[k] = '\0';
	return 0;
}

static int num(struct jr *j, double *v)
{
	char tmp[64], *e;
	size_t n = 0;

	while (j->p + n < j->end && n + 1 < sizeof(tmp) && strchr("+-0123456789.eE", j->p[n]))
		n++;
	memcpy(tmp, j->p, n);
	tmp[n] = '\0';
	*v = strtod(tmp, &e);
	if (!n || *e || !isfinite(*v))
		return fail(j, _("a number"));
	j->p += n;
	return 0;
}

static int skip(struct jr *j, int depth);

/* Called for each member of an object with its key; parses the value. */
typedef int (*member_fn)(struct jr *j, const char *key, void *ctx, int depth);
/* Called for each element of an array; parses it. */
typedef int (*element_fn)(struct jr *j, void *ctx, int depth);

/* The members of an object (its '{' next, after blanks), each handed to fn. */
static int members(struct jr *j, int depth, member_fn fn, void *ctx)
{
	char key[64];

	if (expect(j, '{', _("an object")))
		return -1;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		ws(j);
		if (str(j, key, sizeof(key)) || expect(j, ':', _("':'")))
			return -1;
		ws(j);
		if (fn(j, key, ctx, depth + 1))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return expect(j, '}', _("',' or '}'"));
	}
}

/* The elements of an array (its '[' next), each handed to fn. */
static int elements(struct jr *j, int depth, element_fn fn, void *ctx)
{
	if (expect(j, '[', _("an array")))
		return -1;
	ws(j);
	if (j->p < j->end && *j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (fn(j, ctx, depth + 1))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return expect(j, ']', _("',' or ']'"));
	}
}

static int skip_member(struct jr *j, const char *key, void *ctx, int depth)
{
	(void)key;
	(void)ctx;
	return skip(j, depth);
}

static int skip_element(struct jr *j, void *ctx, int depth)
{
	(void)ctx;
	return skip(j, depth);
}

static int skip(struct jr *j, int depth)
{
	double v;

	ws(j);
	if (depth > VAST_MAX_DEPTH)
		return fail(j, _("at most 64 levels of nesting"));
	if (j->p >= j->end)
		return fail(j, _("a value"));
	switch (*j->p) {
	case '{':
		return members(j, depth, skip_member, NULL);
	case '[':
		return elements(j, depth, skip_element, NULL);
	case '"':
		return str(j, NULL, 0);
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = {"true", "false", "null"};
		for (int i = 0; i < 3; i++) {
			size_t n = strlen(lit[i]);
			if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, lit[i], n)) {
				j->p += n;
				return 0;
			}
		}
		return fail(j, _("a value"));
	}
	default:
		return num(j, &v);
	}
}

/* A number, or null (then *has stays false). */
static int num_or_null(struct jr *j, double *v, bool *has)
{
	ws(j);
	if ((size_t)(j->end - j->p) >= 4 && !memcmp(j->p, "null", 4)) {
		j->p += 4;
		return 0;
	}
	if (num(j, v))
		return -1;
	if (has)
		*has = true;
	return 0;
}

/* Is the value next a scalar (a number or a literal: not text, object or array)? */
static bool scalar_next(const struct jr *j)
{
	return j->p < j->end && *j->p != '"' && *j->p != '{' && *j->p != '[';
}

/* search.totalHour: fetch_vast.py's Price */
static int search_member(struct jr *j, const char *key, void *ctx, int depth)
{
	struct vrow *r = ctx;

	if (!strcmp(key, "totalHour") && scalar_next(j))
		return num_or_null(j, &r->total_hour, &r->has_total_hour);
	return skip(j, depth);
}

/* One member of an offer object. */
static int offer_member(struct jr *j, const char *key, void *ctx, int depth)
{
	static const struct {
		const char *key;
		size_t off, has;
	} nums[] = {
#define N(k, f, h) {k, offsetof(struct vrow, f), h}
		N("num_gpus", num_gpus, 0), N("cpu_cores", cpu_cores, 0), N("cpu_ram", cpu_ram, 0),
		N("dph_total", dph_total, offsetof(struct vrow, has_dph)),
		N("min_bid", min_bid, offsetof(struct vrow, has_bid)),
		N("gpu_total_ram", gpu_total_ram, 0),
		N("hosting_type", hosting_type, offsetof(struct vrow, has_hosting)),
#undef N
	};
	struct vrow *r = ctx;

	for (size_t i = 0; i < sizeof(nums) / sizeof(*nums); i++)
		if (!strcmp(key, nums[i].key) && scalar_next(j))
			return num_or_null(j, (double *)((char *)r + nums[i].off),
					   nums[i].has ? (bool *)((char *)r + nums[i].has) : NULL);
	if (!strcmp(key, "gpu_name") && j->p < j->end && *j->p == '"')
		return str(j, r->gpu_name, sizeof(r->gpu_name));
	if (!strcmp(key, "geolocation") && j->p < j->end && *j->p == '"')
		return str(j, r->geolocation, sizeof(r->geolocation));
	if (!strcmp(key, "search") && j->p < j->end && *j->p == '{')
		return members(j, depth, search_member, r);
	return skip(j, depth);
}

/* fetch_vast.py's GPU name: blanks removed, "Ada" -> "-Ada", a trailing
 * Ti/PCIE/SXM4/SXM/NVL dropped, RTX?0?0S/D -> RTX?0?0, and its _map. */
static void gpu_name(const char *in, char *out, size_t n)
{
	static const char *const tails[] = {"PCIE", "SXM4", "SXM", "NVL", "Ti"};
	static const char *const map[][2] = {{"TeslaV100", "V100"}, {"TeslaT4", "T4"}, {"TeslaP100", "P100"},
					     {"QRTX6000", "RTX6000"}, {"QRTX8000", "RTX8000"}};
	char a[128];
	size_t k = 0, len;

	for (const char *p = in; *p && k + 2 < sizeof(a); p++) {
		if (*p == ' ' || *p == '\t')
			continue;
		if (!strncmp(p, "Ada", 3) && k + 5 < sizeof(a))
			a[k++] = '-';
		a[k++] = *p;
	}
	a[k] = '\0';
	len = k;
	for (size_t i = 0; i < sizeof(tails) / sizeof(*tails); i++) {
		size_t t = strlen(tails[i]);
		if (len > t && !strcmp(a + len - t, tails[i])) {
			a[len -= t] = '\0';
			break;
		}
	}
	if (len == 8 && !strncmp(a, "RTX", 3) && a[4] == '0' && a[6] == '0' && (a[7] == 'S' || a[7] == 'D') &&
	    a[3] >= '0' && a[3] <= '9' && a[5] >= '0' && a[5] <= '9')
		a[--len] = '\0';
	for (size_t i = 0; i < sizeof(map) / sizeof(*map); i++)
		if (!strcmp(a, map[i][0])) {
			snprintf(out, n, "%s", map[i][1]);
			return;
		}
	snprintf(out, n, "%s", a);
}

/* s as one CSV field (quoted when it holds a comma or quote). */
static void csv_field(struct strbuf *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		strbuf_add(o, s, strlen(s));
		return;
	}
	strbuf_add(o, "\"", 1);
	for (; *s; s++)
		strbuf_add(o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
	strbuf_add(o, "\"", 1);
}

static void row_out(struct strbuf *o, const struct vrow *r)
{
	char name[128], stub[128], t[768];
	double price = r->has_total_hour ? r->total_hour : r->dph_total;
	size_t k = 0;

	gpu_name(r->gpu_name, name, sizeof(name));
	for (char *p = name; *p; p++)
		if (*p == '\'' || *p == ',')
			*p = ' ';   /* a quote would end GpuInfo's literal early */
	for (const char *p = r->gpu_name; *p && k + 1 < sizeof(stub); p++)
		stub[k++] = *p == ' ' || *p == '\t' ? '_' : *p;   /* fetch_vast.py create_instance_type */
	stub[k] = '\0';
	snprintf(t, sizeof(t), "%gx-%s-%g-%g", r->num_gpus, stub, r->cpu_cores, r->cpu_ram);
	csv_field(o, t);
	strbuf_add(o, ",", 1);
	csv_field(o, name);
	snprintf(t, sizeof(t), ",%g,%g,%.3f,", r->num_gpus, r->cpu_cores, r->cpu_ram / 1024);
	strbuf_add(o, t, strlen(t));
	snprintf(t, sizeof(t), "{'Gpus': [{'Name': '%s', 'Count': %g, 'MemoryInfo': {'SizeInMiB': %g}}], "
		 "'TotalGpuMemoryInMiB': %g}", name, r->num_gpus, r->gpu_total_ram, r->gpu_total_ram);
	csv_field(o, t);
	snprintf(t, sizeof(t), ",%.4f,", price);
	strbuf_add(o, t, strlen(t));
	if (r->has_bid) {
		snprintf(t, sizeof(t), "%.4f", r->min_bid);
		strbuf_add(o, t, strlen(t));
	}
	strbuf_add(o, ",", 1);
	csv_field(o, r->geolocation);
	strbuf_add(o, ",", 1);
	if (r->has_hosting) {
		snprintf(t, sizeof(t), "%g", r->hosting_type);
		strbuf_add(o, t, strlen(t));
	}
	strbuf_add(o, "\n", 1);
}

/* What the conversion carries through the answer. */
struct conv {
	struct strbuf *out;
	size_t rows, skipped;
	bool seen;
};

static int offer_element(struct jr *j, void *ctx, int depth)
{
	struct conv *cv = ctx;
	struct vrow r;

	memset(&r, 0, sizeof(r));
	ws(j);
	if (j->p >= j->end || *j->p != '{')
		return fail(j, _("an offer object"));
	if (members(j, depth, offer_member, &r))
		return -1;
	if (r.num_gpus > 0 && r.gpu_name[0] && (r.has_total_hour || r.has_dph)) {
		row_out(cv->out, &r);
		cv->rows++;
	} else {
		cv->skipped++;
	}
	return 0;
}

static int top_member(struct jr *j, const char *key, void *ctx, int depth)
{
	struct conv *cv = ctx;

	if (!strcmp(key, "offers") && j->p < j->end && *j->p == '[') {
		cv->seen = true;
		return elements(j, depth, offer_element, cv);
	}
	return skip(j, depth);
}

int catalog_vast_to_csv(const char *buf, size_t len, const char *fname, struct strbuf *out,
			size_t *rows, size_t *skipped, char *err, size_t errlen)
{
	struct jr j = {buf, buf, buf + len, fname, err, errlen};
	struct conv cv = {.out = out};
	int rc;

	strbuf_add(out, CATALOG_VAST_HEADER "\n", strlen(CATALOG_VAST_HEADER) + 1);
	ws(&j);
	if (j.p >= j.end || *j.p != '{')
		rc = fail(&j, _("a JSON object (vast's search answer)"));
	else
		rc = members(&j, 0, top_member, &cv);
	*rows = cv.rows;
	*skipped = cv.skipped;
	if (rc)
		return -1;
	ws(&j);
	if (j.p != j.end)
		return fail(&j, _("the end of the JSON text"));
	if (!cv.seen)
		return fail(&j, _("an \"offers\" array"));
	return out->oom ? fail(&j, _("memory for the catalog")) : 0;
}
