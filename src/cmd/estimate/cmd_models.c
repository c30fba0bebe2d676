/*
 * cmd_models.c - `gpurent models [FILTER] [--json]`: the model presets
 * with parameter counts computed from their architecture.
 */
#include <stdio.h>
#include <string.h>

#include "core/model/model.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent models [FILTER] [--json]\n"
	"\n"
	"List the model presets of data/models.csv. 'params' is computed from\n"
	"the architecture (layers, hidden, heads, KV heads, FFN, vocabulary,\n"
	"tied embeddings; CNNs from their layer structure); 'published' is the\n"
	"count the model's authors give, cited in the source column.\n");

static bool matches(const struct model_spec *m, const char *filter)
{
	char nf[128], nn[256];

	if (!filter)
		return true;
	names_norm(filter, nf, sizeof(nf));
	return strstr(names_norm(m->name, nn, sizeof(nn)), nf) ||
	       strstr(names_norm(m->aliases, nn, sizeof(nn)), nf);
}

int cmd_models(int argc, char **argv)
{
	struct model_db db;
	const char *filter;
	bool json = false;
	int rc, shown = 0;
	size_t width = 16;   /* "model" and the short names */
	struct json j;

	const struct opt opts[] = {
		OPT_BOOL("json", &json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "models", .usage = usage, .max_operands = 1, .operands = N_("one FILTER")};
	int nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	filter = nops ? argv[0] : NULL;
	if ((rc = common_load_data(NULL, &db)))
		return rc;
	for (size_t i = 0; i < db.n; i++)
		shown += matches(&db.v[i], filter);
	if (!shown && filter) {
		msg_error(_("no model matches '%s'"), filter);
		model_db_free(&db);
		return EXIT_RUNTIME;
	}
	/* the name column as wide as the widest name shown */
	for (size_t i = 0; i < db.n; i++)
		if (matches(&db.v[i], filter) && strlen(db.v[i].name) > width)
			width = strlen(db.v[i].name);
	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	} else {
		const int w[] = {-(int)width, -8, 10, 10, 10, 0, 0};
		const char *const h[] = {_("model"), _("kind"), _("params"), _("active"), _("published"),
					 "", _("architecture")};
		out_heading(stdout, w, h, ARRAY_SIZE(w));
	}
	for (size_t i = 0; i < db.n; i++) {
		const struct model_spec *m = &db.v[i];
		char p[32], a[32], pub[32], arch[128];
		double params = model_params(m), active = model_params_active(m);

		if (!matches(m, filter))
			continue;
		if (m->kind == MODEL_RESNET)
			snprintf(arch, sizeof(arch), "%s blocks %ld-%ld-%ld-%ld, %s stem, %ldpx, %ld classes",
				 m->cnn_bottleneck ? "bottleneck" : "basic", m->cnn_stages[0], m->cnn_stages[1],
				 m->cnn_stages[2], m->cnn_stages[3], m->cnn_cifar_stem ? "CIFAR" : "ImageNet",
				 m->image_size, m->num_classes);
		else {
			int n = snprintf(arch, sizeof(arch), "L%ld h%ld a%ld kv%ld ffn%ld%s", m->layers,
					 m->hidden, m->heads, m->kv_heads, m->ffn, m->gated_ffn ? " gated" : "");
			if (m->vocab)
				n += snprintf(arch + n, sizeof(arch) - (size_t)n, " vocab%ld%s", m->vocab,
					      m->tied_embeddings ? " tied" : "");
			if (m->experts)
				snprintf(arch + n, sizeof(arch) - (size_t)n, " MoE %ldx top-%ld",
					 m->experts, m->experts_active);
		}
		if (json) {
			json_obj_begin(&j, NULL);
			json_str(&j, "name", m->name);
			json_str(&j, "aliases", m->aliases);
			json_str(&j, "kind", model_kind_name(m->kind));
			json_num(&j, "params", params);
			json_num(&j, "params_active", active);
			json_num(&j, "params_published", m->params_published);
			json_num(&j, "active_params_published", m->active_published);
			json_str(&j, "architecture", arch);
			json_str(&j, "source", m->source);
			json_obj_end(&j);
		} else {
			printf("%-*s %-8s %10s %10s %10s  %s\n", (int)width, m->name, model_kind_name(m->kind),
			       units_fmt_count(params, p, sizeof(p)), units_fmt_count(active, a, sizeof(a)),
			       m->params_published > 0 ? units_fmt_count(m->params_published, pub, sizeof(pub)) : "-",
			       arch);
		}
	}
	if (json)
		json_arr_end(&j);
	model_db_free(&db);
	return msg_finish(EXIT_OK);
}
