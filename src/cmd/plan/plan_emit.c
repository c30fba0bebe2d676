/*
 * plan_emit.c - `plan --emit sky` at the command (plan_emit.h): the
 * choice, the catalog's names, use_spot, the task written by
 * core/plan/skyemit.c.
 */
#include "cmd/plan/plan_emit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/msg.h"
#include "core/plan/skyemit.h"
#include "kit/common.h"

/* Whether offer o's instance and region are SkyPilot's catalog names: it
 * was read from a SkyPilot-format catalog (a vms.csv) of its cloud. */
static bool sky_names(const struct offers_ctx *c, const struct offer *o)
{
	return o->file < c->set.nreports && !strcmp(c->set.reports[o->file].format, "skypilot");
}

/* An offer of a loaded SkyPilot catalog for o's cloud with o's GPU and
 * count (the cheapest; a slice's count equal to the thousandth), or NULL:
 * its instance type is what SkyPilot calls the box. */
static const struct offer *sky_twin(const struct offers_ctx *c, const struct offer *o)
{
	const char *cloud = sky_emit_cloud(o);
	const struct offer *best = NULL;

	for (size_t i = 0; cloud && o->gpu && i < c->set.n; i++) {
		const struct offer *x = &c->set.v[i];
		const char *xc = sky_emit_cloud(x);
		if (!sky_names(c, x) || x->gpu != o->gpu || fabs(x->gpus - o->gpus) > 5e-4 || !xc || strcmp(xc, cloud) ||
		    x->spot_only)
			continue;
		if (!best || x->price < best->price)
			best = x;
	}
	return best;
}

/* The task's use_spot for offer o: the first candidate it fits (1, 0, -1). */
static int task_spot(const struct sky_doc *d, const struct offer *o)
{
	for (size_t i = 0; d && i < d->ncand; i++)
		if (sky_res_fits(&d->cand[i], o, true))
			return d->cand[i].use_spot;
	return -1;
}

/* A Hugging Face id among the model's names (one with a '/'), into out. */
static const char *model_id(const struct model_spec *arch, char *out, size_t n)
{
	const char *p = arch ? arch->aliases : "";

	while (p && *p) {
		size_t len = strcspn(p, "|");
		if (memchr(p, '/', len) && len < n) {
			memcpy(out, p, len);
			out[len] = '\0';
			return out;
		}
		p += len + (p[len] == '|');
	}
	return NULL;
}

int plan_emit_sky(const struct plan_emit_in *in, const struct plan_result *r, const struct serve_result *s)
{
	struct sky_emit e = {.w = in->w, .po = in->po, .doc = in->doc, .src = in->src, .src_len = in->src_len,
			     .doc_index = in->doc_index, .task_keys_only = in->task_keys_only, .code = in->disp->code,
			     .usd_per_unit = in->disp->fx.usd_per_unit};
	const struct offer *o = NULL;
	size_t n = r ? r->n : s->n;
	char id[256], *buf = NULL;
	size_t blen = 0;
	FILE *mf;
	int rc;

	for (size_t i = 0; i < n && !o; i++) {
		const struct offer *x = r ? r->ranked[i].offer : s->ranked[i].offer;
		int spot = in->spot ? 1 : task_spot(in->doc, x);
		/* a spot-only offer launches only as spot */
		if (!sky_emit_cloud(x) || (x->spot_only && spot != 1))
			continue;
		o = x;
		e.rank = (int)i + 1;
		e.use_spot = spot;
		if (r)
			e.c = &r->ranked[i];
		else
			e.sc = &s->ranked[i];
	}
	if (!o) {
		msg_error(_("--emit sky: none of the %zu ranked offers is on a cloud SkyPilot launches on "
			    "(give --catalog with SkyPilot catalogs, or --top more)"), n);
		return EXIT_RUNTIME;
	}
	if (e.rank > 1)
		msg_warn(_("--emit sky: choice #%d, the best ranked on a cloud SkyPilot launches on"), e.rank);
	e.sky_names = sky_names(in->c, o);
	if (!e.sky_names && (e.twin = sky_twin(in->c, o)))
		msg_note(_("--emit sky: instance_type from SkyPilot's catalog %s for the same GPUs (the offer, from %s, "
			   "names it its own way); the region is left to SkyPilot"),
			 in->c->set.reports[e.twin->file].path,
			 o->file < in->c->set.nreports ? in->c->set.reports[o->file].path : "?");
	else if (!e.sky_names)
		msg_note(_("--emit sky: no instance_type or region: the offer is from %s, not a SkyPilot catalog of "
			   "%s, so its names are not SkyPilot's (give --catalog with SkyPilot's vms.csv to pin them)"),
			 o->file < in->c->set.nreports ? in->c->set.reports[o->file].path : "?", sky_emit_cloud(o));
	e.model_id = model_id(in->arch, id, sizeof(id));
	/* into memory first: a task that cannot be carried over prints nothing */
	mf = open_memstream(&buf, &blen);
	rc = mf ? sky_emit_write(mf, &e) : -1;
	if (mf && fclose(mf))
		rc = rc ? rc : -1;
	if (!rc && fwrite(buf, 1, blen, stdout) != blen)
		rc = -1;
	free(buf);
	if (rc == -2)
		return msg_usage(_("%s: --emit sky: the task is not a mapping of keys, its resources: is not one, or "
				   "an alias points into what gpurent rewrites; gpurent cannot carry it over"),
				 in->file ? in->file : "?");
	if (rc)
		return msg_fail("%s", _("--emit sky: could not write the task"));
	if (in->more)
		printf("---\n");
	return EXIT_OK;
}
