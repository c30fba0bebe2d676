/*
 * wlargs.c - a workload from a YAML file and --FIELD options (wlargs.h),
 * through the one option parser.
 */
#include "kit/wlargs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/common.h"
#include "base/msg.h"
#include "base/util.h"

/* A field's option name: the first n bytes of key with '-' for '_'
 * ("micro_batch" -> "micro-batch") into out (size outn > 0). */
static char *flag_name(const char *key, size_t n, char *out, size_t outn)
{
	size_t k;

	for (k = 0; k < n && key[k] && k + 1 < outn; k++)
		out[k] = key[k] == '_' ? '-' : key[k];
	out[k] = '\0';
	return out;
}

int wlargs_field_error(const char *file, const struct workload *w, int bad, const char *msg)
{
	if (bad >= 0 && w->line[bad] > 0)
		return msg_usage("%s:%zu: %s", file, w->line[bad], msg);
	if (workload_index_set(w, bad)) {
		/* the message starts with the field bad names (workload_resolve()'s
		 * "FIELD: ..."): that name shown as the flag was typed */
		const char *name = workload_fields[bad].name;
		size_t n = strlen(name);
		char flag[64];
		return msg_usage("--%s%s", flag_name(name, n, flag, sizeof(flag)), msg + n);
	}
	if (file)
		return msg_usage("%s:1: %s", file, msg);
	return msg_usage("%s", msg);
}

struct pending {
	int field;
	const char *value;
};

struct wl_ctx {
	struct pending *v;
	size_t n;
};

/* --FIELD VALUE: kept until the file is read, since flags win. */
static int field_cb(const struct opt *o, const char *value, void *ctx, char *err, size_t n)
{
	struct wl_ctx *c = ctx;

	(void)err;
	(void)n;
	c->v[c->n].field = (int)((const struct workload_field *)o->data - workload_fields);
	c->v[c->n++].value = value;
	return 0;
}

static enum opt_type opt_type_of(enum field_type t)
{
	switch (t) {
	case F_COUNT: return OPT_COUNT;
	case F_BYTES: return OPT_BYTES;
	case F_DURATION: return OPT_DURATION;
	case F_FRACTION: return OPT_PERCENT;
	case F_INT: return OPT_INT;
	case F_BOOL: return OPT_FLAG;
	case F_ENUM: return OPT_CHOICE;
	case F_NUMBER: return OPT_NUMBER;
	case F_BANDWIDTH: return OPT_BANDWIDTH;
	case F_MONEY: return OPT_MONEY;
	case F_STR: break;
	case F_SCHEDULE: break;
	}
	return OPT_STRING;
}

/* A valid value of each string field, for --list-options. */
static const char *field_example(const struct workload_field *f)
{
	static const struct { const char *name, *example; } ex[] = {
		{"access", "SJTU-HPC"}, {"budget", "300"}, {"gpu", "A100-80GB"}, {"lora_targets", "q,v"}, {"model", "llama-2-7b"},
		{"quant_bits", "8"}, {"seq_spread", "1500+-500"}, {"serve", "24x7"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++)
		if (!strcmp(ex[i].name, f->name))
			return ex[i].example;
	return NULL;
}

int wlargs_parse(const struct opt_cmd *c, const struct opt *own, int argc, char **argv,
		 struct workload *w, const char **file, const char **task)
{
	size_t nown = 0, k;
	struct opt *opts;
	char (*names)[64];
	struct wl_ctx ctx = {0};
	char *buf, err[512];
	size_t len;
	int rc, nops;

	*file = NULL;
	if (task)
		*task = NULL;
	while (own[nown].name)
		nown++;
	opts = calloc(nown + workload_nfields + 1, sizeof(*opts));
	names = calloc(workload_nfields, sizeof(*names));
	ctx.v = calloc((size_t)argc, sizeof(*ctx.v));
	if (!opts || !names || !ctx.v) {
		rc = msg_fail("%s", _("out of memory"));
		goto out;
	}
	memcpy(opts, own, nown * sizeof(*opts));
	for (k = 0; k < workload_nfields; k++) {
		const struct workload_field *f = &workload_fields[k];
		struct opt *o = &opts[nown + k];
		o->name = flag_name(f->name, strlen(f->name), names[k], sizeof(names[k]));
		o->type = opt_type_of(f->type);
		o->cb = field_cb;
		o->raw = true;
		o->data = f;
		o->help = f->help;
		o->choices = f->enum_names;
		o->example = field_example(f);
		if (f->type == F_INT) {
			o->min = (double)f->min;
			o->max = (double)f->max;
		}
	}
	rc = opt_parse(c, opts, argc, argv, &ctx, &nops);
	if (rc != OPT_GO)
		goto out;
	if (nops > (task ? 2 : 1)) {
		rc = task ? msg_usage(_("expected a workload file and a SkyPilot task file, got a third: '%s'"),
				      argv[2]) :
			    msg_usage(_("expected one workload file, got '%s' and '%s'"), argv[0], argv[1]);
		goto out;
	}
	if (nops == 2)
		*task = argv[1];   /* read by the caller, as a task only */
	if (nops >= 1) {
		*file = argv[0];
		if (common_read_file(*file, &buf, &len, err, sizeof(err))) {
			rc = msg_usage("%s", err);
			goto out;
		}
		rc = workload_load_yaml(w, buf, len, *file, err, sizeof(err));
		free(buf);
		if (rc) {
			rc = msg_usage("%s", err);
			goto out;
		}
	}
	for (size_t i = 0; i < ctx.n; i++) {
		const struct workload_field *f = &workload_fields[ctx.v[i].field];
		if (workload_set(w, f->name, ctx.v[i].value, 0, err, sizeof(err))) {
			rc = msg_usage("--%s: %s", names[ctx.v[i].field], err);
			goto out;
		}
	}
	rc = OPT_GO;
out:
	free(ctx.v);
	free(names);
	free(opts);
	return rc;
}

void wlargs_print_fields(FILE *f)
{
	for (size_t i = 0; i < workload_nfields; i++) {
		const struct workload_field *fl = &workload_fields[i];
		char flag[64];
		size_t k = 0;
		for (const char *p = fl->name; *p && k + 1 < sizeof(flag); p++)
			flag[k++] = *p == '_' ? '-' : *p;
		flag[k] = '\0';
		/* the core's help line, translated once it is in the catalog */
		fprintf(f, "  --%-20s %s [%s]\n", flag, msg_tr(fl->help), msg_tr(fl->dflt));
	}
}
