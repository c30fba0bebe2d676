/*
 * dstackemit.c - a dstack configuration for a planned choice
 * (dstackemit.h). The forms follow dstack's configuration schema at the
 * commit core/task/dstack.c cites: resources.gpu as GPUSpec's
 * `<names>:<memory>:<count>` shorthand (resources.py 286-318), backends
 * as BackendType values (backends/base.py 31-54), regions a list of the
 * cloud's region names (profiles.py 242-247). Every other key of the
 * input is copied byte for byte, from its line to the next key's.
 */
#include "cmd/plan/dstackemit.h"

#include <math.h>
#include <string.h>

#include "core/text/units.h"

bool dstack_emit_can(const struct plan_choice *c)
{
	const struct offer *o = c->offer;

	return o->gpu && o->gpus >= 1 && fabs(o->gpus - round(o->gpus)) < 1e-9 && dstack_backend_of(&o->provider);
}

/* Region text dstack can be given as it is: letters, digits, '-', '_', '.'. */
static bool region_text_ok(const struct cat_str *r)
{
	if (!r->len || r->len > 63)
		return false;
	for (size_t i = 0; i < r->len; i++) {
		char ch = r->p[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
		      ch == '_' || ch == '.'))
			return false;
	}
	return true;
}

bool dstack_emit_region_ok(const char *backend, const struct offer *o)
{
	static const char *const own[] = {"aws", "azure", "gcp", "lambda", "nebius", "oci"};

	if (!region_text_ok(&o->region))
		return false;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(backend, own[i]))
			return true;
	return false;
}

/* Catalog text in a comment: printable ASCII as it is, other bytes \xNN. */
static void put_comment(FILE *f, const struct cat_str *s)
{
	for (size_t i = 0; i < s->len; i++) {
		unsigned char ch = (unsigned char)s->p[i];
		if (ch >= 0x20 && ch < 0x7f)
			fputc(ch, f);
		else
			fprintf(f, "\\x%02x", ch);
	}
}

/* The input's bytes [from, to), ended by a newline. */
static void put_span(FILE *f, const struct dstack_conf *dc, const struct dstack_span *s)
{
	size_t to = s->to > dc->len ? dc->len : s->to;

	if (s->from >= to)
		return;
	fwrite(dc->buf + s->from, 1, to - s->from, f);
	if (dc->buf[to - 1] != '\n')
		fputc('\n', f);
}

static const struct dstack_span *span_of(const struct dstack_span *v, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return &v[i];
	return NULL;
}

/* resources: the chosen gpu, the input's other keys carried. */
static void put_resources(FILE *f, const struct dstack_emit *e)
{
	const struct offer *o = e->c->offer;
	const struct dstack_conf *dc = e->dc;
	size_t col = dc && dc->nres ? dc->res_col : 2;
	char name[64], gpu[128];

	/* the card's datasheet memory: what gpuhunt's catalogs state too */
	snprintf(gpu, sizeof(gpu), "%s:%.0fGB:%.0f", dstack_gpu_name(o->gpu, name, sizeof(name)),
		 o->gpu->memory_bytes / 1e9, o->gpus);
	fprintf(f, "resources:\n%*sgpu: %s\n", (int)col, "", gpu);
	for (size_t i = 0; dc && i < dc->nres; i++)
		if (strcmp(dc->res[i].key, "gpu")) {
			if (dc->res_flow)
				fprintf(f, "%*s", (int)col, "");
			put_span(f, dc, &dc->res[i]);
		}
}

static void put_header(FILE *f, const struct dstack_emit *e, const char *backend, bool region)
{
	const struct plan_choice *c = e->c;
	const struct offer *o = c->offer;
	char a[64];

	fprintf(f, "# dstack configuration written by gpurent plan --emit dstack (docs/dstack.md)\n");
	fprintf(f, "# for choice #%d: ", e->rank);
	put_comment(f, &o->provider);
	fputc(' ', f);
	put_comment(f, &o->instance);
	if (o->region.len) {
		fprintf(f, " in ");
		put_comment(f, &o->region);
	}
	fprintf(f, ", %s, expected %.2f %s, done in %s\n", c->mode == PLAN_SPOT ? "spot" : "on demand",
		c->cost.total / e->usd_per_unit, e->code, units_fmt_duration(c->wall_s, a, sizeof(a)));
	if (!region)
		fprintf(f, "# (regions left out: dstack names %s's regions its own way, or the catalog's "
			   "region is none)\n", backend);
	if (e->dc && e->dc->spot == -1)
		fprintf(f, "# (spot_policy auto kept: the plan chose %s)\n", c->mode == PLAN_SPOT ? "spot" : "on demand");
}

int dstack_emit_write(FILE *f, const struct dstack_emit *e)
{
	const struct dstack_conf *dc = e->dc;
	const struct offer *o = e->c->offer;
	const char *backend = dstack_backend_of(&o->provider);
	bool region = dstack_emit_region_ok(backend, o), have_res = false, have_b = false, have_r = false;

	put_header(f, e, backend, region);
	if (!dc) {
		fprintf(f, "type: task\nname: gpurent-job\n");
		if (e->c->nodes > 1)
			fprintf(f, "nodes: %.0f\n", e->c->nodes);
		fprintf(f, "commands:\n  - python train.py   # your command\n");
		fprintf(f, "spot_policy: %s\n", e->c->mode == PLAN_SPOT ? "spot" : "on-demand");
	}
	for (size_t i = 0; dc && i < dc->nspan; i++) {
		const struct dstack_span *s = &dc->span[i];
		if (!strcmp(s->key, "resources")) {
			put_resources(f, e);
			have_res = true;
		} else if (!strcmp(s->key, "backends")) {
			fprintf(f, "backends: [%s]\n", backend);
			have_b = true;
		} else if (!strcmp(s->key, "regions") && region) {
			fprintf(f, "regions: [\"%.*s\"]\n", (int)o->region.len, o->region.p);
			have_r = true;
		} else {
			put_span(f, dc, s);
		}
	}
	if (dc && e->c->nodes > 1 && !span_of(dc->span, dc->nspan, "nodes"))
		fprintf(f, "nodes: %.0f\n", e->c->nodes);
	if (!have_res)
		put_resources(f, e);
	if (!have_b)
		fprintf(f, "backends: [%s]\n", backend);
	if (!have_r && region && !(dc && span_of(dc->span, dc->nspan, "regions")))
		fprintf(f, "regions: [\"%.*s\"]\n", (int)o->region.len, o->region.p);
	return ferror(f) ? -1 : 0;
}
