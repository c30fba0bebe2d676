/*
 * opt.c - the option parser of every command (opt.h): one loop, one set
 * of converters (src/core/text/units.h), one way to say what went wrong.
 */
#include "kit/opt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/names.h"
#include "core/text/units.h"
#include "kit/common.h"
#include "kit/config.h"
#include "os/progress.h"
#include "base/msg.h"
#include "base/util.h"

void opt_list_free(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int list_push(struct opt_list *l, const char *v)
{
	if (util_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -1;
	l->v[l->n++] = v;
	return 0;
}

bool opt_bool_word(const char *s, bool *v)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};

	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(s, yes[i]))
			return *v = true, true;
		if (!strcasecmp(s, no[i]))
			return *v = false, true;
	}
	return false;
}

const char *opt_type_name(enum opt_type t)
{
	static const char *const names[] = {
		[OPT_END] = "end", [OPT_FLAG] = "flag", [OPT_STRING] = "string", [OPT_FILE] = "file",
		[OPT_INT] = "int", [OPT_COUNT] = "count", [OPT_BYTES] = "bytes",
		[OPT_BANDWIDTH] = "bandwidth", [OPT_DURATION] = "duration", [OPT_MONEY] = "money",
		[OPT_PERCENT] = "percent", [OPT_NUMBER] = "number", [OPT_LIST] = "list",
		[OPT_CHOICE] = "choice",
	};
	return (unsigned)t < ARRAY_SIZE(names) && names[t] ? names[t] : "?";
}

const char *opt_example(const struct opt *o)
{
	static char buf[32];

	if (o->example)
		return o->example;
	switch (o->type) {
	case OPT_FLAG: return "true";
	case OPT_INT:
		snprintf(buf, sizeof(buf), "%ld", o->min > 1 ? (long)o->min : 1L);
		return buf;
	case OPT_COUNT: return "1000";
	case OPT_BYTES: return "1GB";
	case OPT_BANDWIDTH: return "10GB/s";
	case OPT_DURATION: return "1h";
	case OPT_MONEY: return "2.5";
	case OPT_PERCENT: return "10%";
	case OPT_NUMBER: return "1.5";
	case OPT_CHOICE: return o->choices && o->choices[0] ? o->choices[0] : "";
	default: return "x";
	}
}

static bool bounded(const struct opt *o)
{
	return o->min != 0 || o->max != 0;
}

static int check_bounds(const struct opt *o, double x, const char *v, char *err, size_t n)
{
	char lo[32], hi[32];

	if (!bounded(o) || (x >= o->min && x <= o->max))
		return 0;
	switch (o->type) {
	case OPT_BYTES:
		units_fmt_bytes(o->min, lo, sizeof(lo));
		units_fmt_bytes(o->max, hi, sizeof(hi));
		break;
	case OPT_DURATION:
		units_fmt_duration(o->min, lo, sizeof(lo));
		units_fmt_duration(o->max, hi, sizeof(hi));
		break;
	default:
		snprintf(lo, sizeof(lo), "%g", o->min);
		snprintf(hi, sizeof(hi), "%g", o->max);
	}
	snprintf(err, n, _("expected a value from %s to %s, got '%s'"), lo, hi, v);
	return -1;
}

int opt_value(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	double x = 0;
	long l = 0;
	bool b;
	int rc = 0;

	if (o->cb && o->raw && o->type != OPT_FLAG)
		return o->cb(o, v, ctx, err, n);
	switch (o->type) {
	case OPT_FLAG:
		if (!opt_bool_word(v, &b)) {
			snprintf(err, n, _("expected true or false, got '%s'"), v);
			return -1;
		}
		if (o->cb)
			return o->cb(o, b ? "true" : "false", ctx, err, n);
		if (o->dest)
			*(bool *)o->dest = b;
		return 0;
	case OPT_INT:
		rc = units_parse_int(v, bounded(o) ? (long)o->min : 0, bounded(o) ? (long)o->max : 2147483647L,
				     &l, err, n);
		break;
	case OPT_COUNT: rc = units_parse_count(v, &x, err, n); break;
	case OPT_BYTES: rc = units_parse_bytes(v, &x, err, n); break;
	case OPT_BANDWIDTH: rc = units_parse_bandwidth(v, &x, err, n); break;
	case OPT_DURATION: rc = units_parse_duration(v, &x, err, n); break;
	case OPT_PERCENT: rc = units_parse_fraction(v, &x, err, n); break;
	case OPT_NUMBER:
		if (units_scan_number(v, &x)) {   /* a plain decimal: no hex, inf or nan */
			snprintf(err, n, _("expected a number, got '%s'"), v);
			return -1;
		}
		break;
	case OPT_MONEY: {
		struct opt_money m = {0};
		if (units_parse_money(v, &m.amount, m.code, err, n))
			return -1;
		if (check_bounds(o, m.amount, v, err, n))
			return -1;
		m.has_code = common_money_has_code(v);
		if (o->cb)
			return o->cb(o, v, ctx, err, n);
		if (o->dest)
			*(struct opt_money *)o->dest = m;
		return 0;
	}
	case OPT_CHOICE: {
		struct names_suggest sg;
		for (int i = 0; o->choices && o->choices[i]; i++)
			if (!strcasecmp(v, o->choices[i])) {
				if (o->cb)
					return o->cb(o, o->choices[i], ctx, err, n);
				if (o->dest)
					*(int *)o->dest = i;
				return 0;
			}
		names_suggest_init(&sg, v);
		for (int i = 0; o->choices && o->choices[i]; i++)
			names_suggest_add(&sg, o->choices[i]);
		if (sg.best[0]) {
			snprintf(err, n, _("expected one of the choices, got '%s' (did you mean '%s'?)"), v, sg.best);
		} else {
			size_t k = (size_t)snprintf(err, n, "%s", _("expected one of "));
			for (int i = 0; o->choices && o->choices[i] && k < n; i++)
				k += (size_t)snprintf(err + k, n - k, "%s%s", i ? ", " : "", o->choices[i]);
			if (k < n)
				snprintf(err + k, n - k, _(", got '%s'"), v);
		}
		return -1;
	}
	case OPT_LIST:
		if (o->cb)
			return o->cb(o, v, ctx, err, n);
		if (o->dest && list_push(o->dest, v)) {
			snprintf(err, n, "%s", _("out of memory"));
			return -1;
		}
		return 0;
	case OPT_STRING:
	case OPT_FILE:
		if (o->cb)
			return o->cb(o, v, ctx, err, n);
		if (o->dest)
			*(const char **)o->dest = v;
		return 0;
	case OPT_END:
		return -1;
	}
	if (rc)
		return -1;
	if (o->type == OPT_INT) {
		if (o->cb)
			return o->cb(o, v, ctx, err, n);
		if (o->dest)
			*(long *)o->dest = l;
		return 0;
	}
	if (check_bounds(o, x, v, err, n))
		return -1;
	if (o->cb)
		return o->cb(o, v, ctx, err, n);
	if (o->dest)
		*(double *)o->dest = x;
	return 0;
}

static int help(const struct opt_cmd *c)
{
	if (c->usage_fn)
		c->usage_fn(stdout);
	else
		fputs(_(c->usage), stdout);
	return msg_finish(EXIT_OK);
}

static const struct opt *find_long(const struct opt *opts, const char *name, size_t len)
{
	for (const struct opt *o = opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = opts; o->name; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

static int unknown(const struct opt_cmd *c, const struct opt *opts, const char *arg)
{
	struct names_suggest sg;
	char key[96], cand[96];
	size_t len = strcspn(arg, "=");

	snprintf(key, sizeof(key), "%.*s", (int)(len < 90 ? len : 90), arg);
	names_suggest_init(&sg, key);
	for (const struct opt *o = opts; o->name; o++) {
		snprintf(cand, sizeof(cand), "--%s", o->name);
		names_suggest_add(&sg, cand);
	}
	names_suggest_add(&sg, "--help");
	if (sg.best[0])
		return msg_usage(_("%s: unknown option (did you mean '%s'?)"), key, sg.best);
	return msg_usage(_("%s: unknown option (see 'gpurent help %s')"), key, c->name);
}

static void list_options(const struct opt *opts)
{
	for (const struct opt *o = opts; o->name; o++) {
		printf("--%s %s %s", o->name, opt_type_name(o->type), opt_example(o));
		if (o->short_name)
			printf(" -%c", o->short_name);
		putchar('\n');
	}
}

static void list_choices(const struct opt *opts)
{
	for (const struct opt *o = opts; o->name; o++) {
		if (o->type != OPT_CHOICE || !o->choices)
			continue;
		printf("--%s", o->name);
		for (const char *const *v = o->choices; *v; v++)
			if (**v)
				printf(" %s", *v);
		putchar('\n');
	}
}

int opt_progress_cb(const struct opt *o, const char *value, void *ctx, char *err, size_t errlen)
{
	bool on = !strcmp(value, "true");

	(void)ctx;
	(void)err;
	(void)errlen;
	if (!strcmp(o->name, "progress"))
		progress_set_mode(on ? PROGRESS_ALWAYS : PROGRESS_NEVER);
	else
		progress_set_mode(on ? PROGRESS_NEVER : PROGRESS_AUTO);
	return 0;
}

int opt_run_sub(const struct opt_cmd *c, int nops, char **argv)
{
	struct names_suggest sg;

	msg_set_cmd(c->name);
	if (nops < 1 || !argv[0])
		return msg_usage(_("expected a subcommand (see 'gpurent help %s')"), c->name);
	for (size_t i = 0; i < c->n_subs; i++)
		if (!strcmp(argv[0], c->subs[i].name))
			return c->subs[i].fn(nops, argv);
	names_suggest_init(&sg, argv[0]);
	for (size_t i = 0; i < c->n_subs; i++)
		names_suggest_add(&sg, c->subs[i].name);
	if (sg.best[0])
		return msg_usage(_("'%s' is not a %s subcommand (did you mean '%s'?)"), argv[0], c->name,
				 sg.best);
	return msg_usage(_("'%s' is not a %s subcommand (see 'gpurent help %s')"), argv[0], c->name,
			 c->name);
}

static int take(const struct opt_cmd *c, const struct opt *o, const char *shown, const char *v,
		void *ctx)
{
	char err[512];

	if (o->seen)
		*o->seen = true;
	int r = opt_value(o, v, ctx, err, sizeof(err));

	if (r == OPT_REPORTED)
		return EXIT_USAGE;
	if (r)
		return msg_usage("%s: %s", shown, err);
	(void)c;
	return 0;
}

/* The value of a valued option: attached (--x=v, -ov) or the next argument. */
static int take_value(const struct opt_cmd *c, const struct opt *o, const char *shown,
		      const char *attached, int argc, char **argv, int *i, void *ctx)
{
	if (attached)
		return take(c, o, shown, attached, ctx);
	if (*i + 1 < argc)
		return take(c, o, shown, argv[++*i], ctx);
	return msg_usage(_("%s: expected a value (%s)"), shown, o->arg ? o->arg : opt_type_name(o->type));
}

/* Did the command line ask for JSON or CSV (--json, --csv)? */
static bool machine_output(const struct opt *opts, const bool *given)
{
	for (const struct opt *o = opts; o->name; o++)
		if (given[o - opts] && o->type == OPT_FLAG && o->dest && !o->cb &&
		    (!strcmp(o->name, "json") || !strcmp(o->name, "csv")) && *(bool *)o->dest)
			return true;
	return false;
}

/*
 * The settings (src/kit/config.h) for the options the command line did
 * not give (given[i] for opts[i]): each value through opt_value(), as if
 * typed, with its file and line (or variable) named when it is refused.
 */
static int apply_config(const struct opt_cmd *c, const struct opt *opts, const bool *given, void *ctx)
{
	for (const struct opt *o = opts; o->name; o++) {
		const struct config_key *k = NULL;
		struct config_value v;
		char err[4700], e[512];

		for (const struct config_key *q = config_keys; q->name && !k; q++)
			if (config_applies(q, c->name, o->name))
				k = q;
		if (!k || given[o - opts])
			continue;
		/* an option listed twice in a table (a workload field and the
		 * command's own) takes the setting once, at its first row */
		if (find_long(opts, o->name, strlen(o->name)) != o)
			continue;
		if (config_lookup(k, &v, err, sizeof(err)))
			return msg_usage("%s", err);
		if (v.source != CFG_FILE && v.source != CFG_ENV && v.source != CFG_LOCALE)
			continue;
		/* the locale's currency is for people: JSON and CSV stay as in
		 * the C locale (a script's output never follows LANG) */
		if (v.source == CFG_LOCALE && machine_output(opts, given))
			continue;
		if (o->seen)
			*o->seen = true;
		config_mark_applied(k, v.where);
		for (size_t i = 0; i < v.n; i++) {
			int r = opt_value(o, v.vals[i], ctx, e, sizeof(e));
			if (r == OPT_REPORTED)
				return EXIT_USAGE;
			if (r)
				return msg_usage("%s: %s: %s", v.where, k->name, e);
		}
	}
	return 0;
}

static int parse(const struct opt_cmd *c, const struct opt *opts, int argc, char **argv,
	      void *ctx, int *nops, bool *given)
{
	int nop = 0, rc;
	bool only_operands = false;
	char shown[100];

	msg_set_cmd(c->name);
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct opt *o;

		if (only_operands || a[0] != '-' || !a[1]) {
			argv[nop++] = a;
			if (c->flags & OPT_STOP_AT_OPERAND)
				only_operands = true;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_operands = true;
			if (c->flags & OPT_KEEP_DASHDASH)
				argv[nop++] = a;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool neg = false;

			o = find_long(opts, name, len);
			if (!o && len > 3 && !strncmp(name, "no-", 3) && !eq) {
				const struct opt *f = find_long(opts, name + 3, len - 3);
				if (f && f->type == OPT_FLAG) {
					o = f;
					neg = true;
				}
			}
			if (!o && len == 4 && !strncmp(name, "help", 4))
				return help(c);
			if (!o && len == 12 && !strncmp(name, "list-options", 12)) {
				list_options(opts);
				return msg_finish(EXIT_OK);
			}
			if (!o && len == 12 && !strncmp(name, "list-choices", 12)) {
				list_choices(opts);
				return msg_finish(EXIT_OK);
			}
			if (!o && c->subs && len == 16 && !strncmp(name, "list-subcommands", 16)) {
				for (size_t k = 0; k < c->n_subs; k++)
					puts(c->subs[k].name);
				return msg_finish(EXIT_OK);
			}
			if (!o)
				return unknown(c, opts, a);
			given[o - opts] = true;
			snprintf(shown, sizeof(shown), "--%s", o->name);
			if (o->type == OPT_FLAG) {
				const char *v = neg ? "false" : eq ? eq + 1 : "true";
				bool b;
				if (!eq && !neg && !(c->flags & OPT_STOP_AT_OPERAND) && i + 1 < argc &&
				    opt_bool_word(argv[i + 1], &b))
					v = argv[++i];
				if ((rc = take(c, o, shown, v, ctx)))
					return rc;
				continue;
			}
			if ((rc = take_value(c, o, shown, eq ? eq + 1 : NULL, argc, argv, &i, ctx)))
				return rc;
			continue;
		}
		/* a short option: -h, -o FILE, -oFILE */
		if (a[1] == 'h' && !a[2] && !find_short(opts, 'h'))
			return help(c);
		if (!(o = find_short(opts, a[1])))
			return unknown(c, opts, a);
		given[o - opts] = true;
		snprintf(shown, sizeof(shown), "-%c", a[1]);
		if (o->type == OPT_FLAG) {
			if (a[2])
				return unknown(c, opts, a);
			if ((rc = take(c, o, shown, "true", ctx)))
				return rc;
		} else if ((rc = take_value(c, o, shown, a[2] ? a + 2 : NULL, argc, argv, &i, ctx))) {
			return rc;
		}
	}
	argv[nop] = NULL;
	if ((rc = apply_config(c, opts, given, ctx)))
		return rc;
	/* JSON and CSV are for programs: never a progress line beside them */
	if (machine_output(opts, given))
		progress_set_mode(PROGRESS_NEVER);
	if (nop < c->min_operands) {
		if (c->operands)
			return msg_usage(_("expected %s (see 'gpurent help %s')"), msg_tr(c->operands), c->name);
		return msg_usage(_("missing operand (see 'gpurent help %s')"), c->name);
	}
	if (c->max_operands >= 0 && nop > c->max_operands) {
		if (c->max_operands == 0)
			return msg_usage(_("'%s': unexpected argument (see 'gpurent help %s')"), argv[0], c->name);
		return msg_usage(_("'%s': unexpected argument; expected %s (see 'gpurent help %s')"),
				 argv[c->max_operands], c->operands ? msg_tr(c->operands) : _("fewer arguments"),
				 c->name);
	}
	if (nops)
		*nops = nop;
	return OPT_GO;
}

int opt_parse(const struct opt_cmd *c, const struct opt *opts, int argc, char **argv,
	      void *ctx, int *nops)
{
	size_t n = 0;
	bool *given;
	int rc;

	msg_set_cmd(c->name);
	while (opts[n].name)
		n++;
	if (!(given = calloc(n + 1, sizeof(*given))))
		return msg_fail(_("out of memory"));
	rc = parse(c, opts, argc, argv, ctx, nops, given);
	free(given);
	return rc;
}
