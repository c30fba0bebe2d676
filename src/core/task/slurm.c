/*
 * slurm.c - sbatch scripts as facts (slurm.h): the options table, the script
 * parser, the lint rules and the generator's decisions. Pure. Rules and
 * their sources: docs/slurm.md.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/csv.h"
#include "core/text/names.h"
#include "core/task/slurm.h"
#include "core/task/slurm_int.h"
#include "base/i18n.h"

/* ---- the options table ---- */

static int opt_row(const struct csv *c, const struct csv_row *r, const char *fname, void *record,
		   char *err, size_t errlen)
{
	static const char *const args[] = {"none", "required", "optional"};
	static const char *const kinds[] = {"text", "flag", "time", "count", "range", "mem", "signal",
					    "open-mode", "gres", "gpus", "path", "array", "plugin"};
	struct slurm_opt *o = record;
	char shortname[8], arg[16], kind[16], src[512];
	size_t k;

	if (csv_field_str(c, r, "option", true, fname, o->name, sizeof(o->name), err, errlen) ||
	    csv_field_str(c, r, "short", false, fname, shortname, sizeof(shortname), err, errlen) ||
	    csv_field_str(c, r, "arg", true, fname, arg, sizeof(arg), err, errlen) ||
	    csv_field_str(c, r, "kind", true, fname, kind, sizeof(kind), err, errlen) ||
	    csv_field_str(c, r, "source", true, fname, src, sizeof(src), err, errlen))
		return -1;
	for (const char *p = o->name; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-')) {
			snprintf(err, errlen, _("%s:%zu: option: expected lower-case letters, digits and '-', got '%s'"),
				 fname, r->line, o->name);
			return -1;
		}
	if (strlen(shortname) > 1 || (shortname[0] && !isalpha((unsigned char)shortname[0]))) {
		snprintf(err, errlen, _("%s:%zu: short: expected one letter or nothing, got '%s'"), fname, r->line,
			 shortname);
		return -1;
	}
	o->shortname = shortname[0];
	for (k = 0; k < 3 && strcmp(arg, args[k]); k++)
		;
	if (k == 3) {
		snprintf(err, errlen, _("%s:%zu: arg: expected none, required or optional, got '%s'"), fname, r->line, arg);
		return -1;
	}
	o->arg = (enum slurm_arg)k;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[k]); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		snprintf(err, errlen, _("%s:%zu: kind: expected text, flag, time, count, range, mem, signal, "
			 "open-mode, gres, gpus, path, array or plugin, got '%s'"), fname, r->line, kind);
		return -1;
	}
	o->kind = (enum slurm_kind)k;
	return 0;
}

static int opt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slurm_opt *)a)->name, ((const struct slurm_opt *)b)->name);
}

int slurm_optdb_load(const char *buf, size_t len, const char *fname, struct slurm_optdb *db,
		     char *err, size_t errlen)
{
	void *v = NULL;
	size_t n = 0;

	db->opts = NULL;
	db->n = 0;
	if (csv_load_table(buf, len, fname, sizeof(struct slurm_opt), opt_row, &v, &n, err, errlen))
		return -1;
	qsort(v, n, sizeof(struct slurm_opt), opt_cmp);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(((struct slurm_opt *)v)[i].name, ((struct slurm_opt *)v)[i - 1].name)) {
			snprintf(err, errlen, _("%s: option: '%s' is listed twice"), fname, ((struct slurm_opt *)v)[i].name);
			free(v);
			return -1;
		}
	db->opts = v;
	db->n = n;
	return 0;
}

void slurm_optdb_free(struct slurm_optdb *db)
{
	free(db->opts);
	db->opts = NULL;
	db->n = 0;
}

const struct slurm_opt *slurm_opt_find(const struct slurm_optdb *db, const char *name)
{
	struct slurm_opt key = {0};

	if (strlen(name) >= sizeof(key.name) || !db->n)
		return NULL;
	memcpy(key.name, name, strlen(name));
	return bsearch(&key, db->opts, db->n, sizeof(key), opt_cmp);
}

const struct slurm_opt *slurm_opt_short(const struct slurm_optdb *db, char c)
{
	for (size_t i = 0; i < db->n; i++)
		if (c && db->opts[i].shortname == c)
			return &db->opts[i];
	return NULL;
}

/* ---- durations ---- */

/* Up to 4 unsigned numbers separated by ':' from p; -1 when not that. */
static int colon_fields(const char *p, const char *end, long v[4])
{
	int n = 0;

	while (p < end) {
		long x = 0;
		int digits = 0;
		while (p < end && isdigit((unsigned char)*p)) {
			if (x > 100000000L)
				return -1;
			x = x * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits || n == 4)
			return -1;
		v[n++] = x;
		if (p < end) {
			if (*p != ':')
				return -1;
			if (++p == end)
				return -1;
		}
	}
	return n;
}

int slurm_parse_time(const char *v, double *s)
{
	const char *dash = strchr(v, '-'), *end = v + strlen(v);
	long f[4], days = 0;
	int n;

	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE")) {
		*s = -1;
		return 0;
	}
	if (dash) {
		long d[4];
		if (colon_fields(v, dash, d) != 1)
			return -1;
		days = d[0];
		if ((n = colon_fields(dash + 1, end, f)) < 1 || n > 3)
			return -1;
		/* days-hours, days-hours:minutes, days-hours:minutes:seconds */
		*s = days * 86400.0 + f[0] * 3600.0 + (n > 1 ? f[1] * 60.0 : 0) + (n > 2 ? (double)f[2] : 0);
	} else {
		if ((n = colon_fields(v, end, f)) < 1 || n > 3)
			return -1;
		/* minutes, minutes:seconds, hours:minutes:seconds */
		if (n == 1)
			*s = f[0] * 60.0;
		else if (n == 2)
			*s = f[0] * 60.0 + (double)f[1];
		else
			*s = f[0] * 3600.0 + f[1] * 60.0 + (double)f[2];
	}
	/* sbatch(1) --time: "A time limit of zero requests that no time limit
	 * be imposed", in the days forms too (0-00:00) */
	if (*s == 0)
		*s = -1;
	return 0;
}

void slurm_format_time(double s, char *buf, size_t n)
{
	double m = ceil(s / 60 - 1e-9);
	long long mins;

	/* no limit (slurm_parse_time()'s -1), not a duration, or beyond any
	 * day count Slurm prints: as sbatch writes no limit */
	if (isnan(s) || s < 0 || m >= 1e15) {
		snprintf(buf, n, "UNLIMITED");
		return;
	}
	mins = m > 0 ? (long long)m : 1;
	long long d = mins / 1440, h = mins % 1440 / 60, mm = mins % 60;

	if (d)
		snprintf(buf, n, "%lld-%02lld:%02lld:00", d, h, mm);
	else
		snprintf(buf, n, "%02lld:%02lld:00", h, mm);
}

/* ---- value checks ---- */

static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

static bool count_ok(const char *v)
{
	return all_digits(v, strlen(v)) && strlen(v) < 9 && atol(v) > 0;
}

/* sbatch 22.05.8 takes 100, 100M, 100mb, 0GB; refuses 100KiB, 1.5G, 100Mx (measured with
 * sbatch --test-only on the test cluster, docs/slurm.md) */
static bool mem_ok(const char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[n - 1] == 'B' || v[n - 1] == 'b') && strchr("KMGTkmgt", v[n - 2]))
		n--;
	if (n && strchr("KMGTkmgt", v[n - 1]))
		n--;
	return all_digits(v, n) && n < 12;
}

static bool range_ok(const char *v)
{
	const char *dash = strchr(v, '-');

	if (!dash)
		return count_ok(v);
	return all_digits(v, (size_t)(dash - v)) && all_digits(dash + 1, strlen(dash + 1));
}

static bool signal_ok(const char *v)
{
	static const char *const sigs[] = {"HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM",
					   "USR1", "USR2", "URG", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "XCPU"};
	const char *at = strchr(v, '@'), *p = v;
	char name[16];
	size_t n;

	if ((p[0] == 'B' || p[0] == 'R') && p[1] == ':')
		p += 2;
	else if (p[0] == 'R' && p[1] == 'B' && p[2] == ':')
		p += 3;
	n = at ? (size_t)(at - p) : strlen(p);
	if (!n || n >= sizeof(name))
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	if (at && !(all_digits(at + 1, strlen(at + 1)) && atol(at + 1) <= 65535))
		return false;
	if (all_digits(name, n))
		return atol(name) > 0 && atol(name) < 65;
	if (!strncasecmp(name, "SIG", 3))
		memmove(name, name + 3, strlen(name + 3) + 1);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(name, sigs[i]))
			return true;
	return false;
}

/* [type:]count for --gpus*, count >= 1. */
static bool gpus_ok(const char *v)
{
	const char *c = strrchr(v, ':');

	return count_ok(c ? c + 1 : v) && (!c || c > v);
}

/* name[[:type]:count][,...] */
static bool gres_ok(const char *v)
{
	const char *p = v;

	if (!*v)
		return false;
	while (*p) {
		const char *e = strchr(p, ','), *end = e ? e : p + strlen(p), *c1 = memchr(p, ':', (size_t)(end - p));
		if (end == p || c1 == p)
			return false;
		if (c1) {
			const char *c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1)), *cnt = c2 ? c2 + 1 : c1 + 1;
			/* gpu:2, gpu:a100:2, gpu:a100 (count 1) */
			if (c2 && !all_digits(cnt, (size_t)(end - cnt)))
				return false;
			if (!c2 && end == c1 + 1)
				return false;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return true;
}

static bool array_ok(const char *v)
{
	size_t n = strlen(v);

	/* "[0-4]", "[1-3,5]": sbatch 22.05.8 takes the brackets (measured, docs/slurm.md) */
	if (n > 2 && v[0] == '[' && v[n - 1] == ']') {
		char in[256];
		slurm_copy_n(in, sizeof(in), v + 1, n - 2);
		return array_ok(in);
	}
	if (!*v)
		return false;
	for (const char *p = v; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr(",-:%", *p))
			return false;
	return isdigit((unsigned char)v[0]);
}

static bool value_ok(enum slurm_kind k, const char *v)
{
	double t;

	switch (k) {
	case SLURM_K_TIME: return !slurm_parse_time(v, &t);
	case SLURM_K_COUNT: return count_ok(v);
	case SLURM_K_RANGE: return range_ok(v);
	case SLURM_K_MEM: return mem_ok(v);
	case SLURM_K_SIGNAL: return signal_ok(v);
	case SLURM_K_OPEN_MODE: return !strcmp(v, "append") || !strcmp(v, "truncate");
	case SLURM_K_GRES: return gres_ok(v);
	case SLURM_K_GPUS: return gpus_ok(v);
	case SLURM_K_PATH: return *v != '\0';
	case SLURM_K_ARRAY: return array_ok(v);
	default: return true;
	}
}

void slurm_output_dir(const char *pattern, char *buf, size_t n)
{
	const char *slash = strrchr(pattern, '/');

	if (!slash) {
		buf[0] = '\0';
		return;
	}
	if (slash == pattern) {
		slurm_copy_n(buf, n, "/", 1);
		return;
	}
	slurm_copy_n(buf, n, pattern, (size_t)(slash - pattern));
}

/* ---- lint ---- */

struct sink {
	struct slurm_finding *out;
	size_t max, n;
	struct slurm_finding spare;   /* where findings past max are written, then dropped */
};

static struct slurm_finding *add(struct sink *k, enum slurm_finding_code code, size_t line)
{
	struct slurm_finding *f = k->n < k->max ? &k->out[k->n] : &k->spare;

	k->n++;
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->line = line;
	return f;
}

/* The closest documented option to a word (names.h's rule), "" when none is
 * close; those sharing its first letter are offered first, so win a tie. */
static void suggest(const struct slurm_optdb *db, const char *word, char *out, size_t n)
{
	struct names_suggest sg;

	names_suggest_init(&sg, word);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < db->n; i++)
			if ((db->opts[i].name[0] == word[0]) == (pass == 0))
				names_suggest_add(&sg, db->opts[i].name);
	out[0] = '\0';
	if (sg.best[0])
		snprintf(out, n, "--%.40s", sg.best);
}

static int finding_cmp(const void *a, const void *b)
{
	const struct slurm_finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (int)x->code - (int)y->code;
}

/* The rules' ids, shared with the corpus's verdicts (tests/data/slurm-corpus/EXPECT). */
static const char *const finding_ids[SLF_COUNT] = {
	[SLF_CRLF] = "crlf", [SLF_NO_SHEBANG] = "no-shebang", [SLF_SHEBANG_MISPLACED] = "shebang-misplaced",
	[SLF_NEAR_DIRECTIVE] = "near-directive", [SLF_AFTER_COMMAND] = "after-command",
	[SLF_UNKNOWN_OPTION] = "unknown-option", [SLF_MISSING_VALUE] = "missing-value",
	[SLF_UNEXPECTED_VALUE] = "unexpected-value", [SLF_BAD_VALUE] = "bad-value", [SLF_NON_ASCII] = "non-ascii",
	[SLF_NO_GPU] = "no-gpu", [SLF_TIME_OVER_LIMIT] = "time-over-limit", [SLF_NO_RESUME] = "no-resume",
	[SLF_OUTPUT_DIR] = "output-dir", [SLF_CONDA_NO_HOOK] = "conda-no-hook", [SLF_MEM_BOTH] = "mem-both",
	[SLF_GRES_AND_GPUS] = "gres-and-gpus", [SLF_ARRAY_OUTPUT] = "array-output",
	[SLF_SBATCH_STOP] = "sbatch-stop", [SLF_SHEBANG_OPTION] = "shebang-option", [SLF_TEMPLATE] = "template",
	[SLF_KEPT_ALTERNATIVE] = "kept-alternative", [SLF_PLUGIN_OPTION] = "plugin-option",
};

const char *slurm_finding_id(enum slurm_finding_code c)
{
	return c > 0 && c < SLF_COUNT && finding_ids[c] ? finding_ids[c] : "";
}

bool slurm_finding_is_note(enum slurm_finding_code c)
{
	return c == SLF_KEPT_ALTERNATIVE || c == SLF_PLUGIN_OPTION;
}

/* What lint keeps of one component of a (heterogeneous) job. */
struct comp_facts {
	const struct slurm_directive *mem, *mem_cpu, *gres_gpu, *gpus, *time, *array, *signal, *requeue;
};
#define LINT_MAX_COMP 16

/* The header: line endings, sbatch's stop, the "#!" line, a template, near-directives. */
static void lint_head(const struct slurm_script *s, struct sink *k)
{
	struct slurm_finding *f;

	if (s->crlf_line)
		add(k, SLF_CRLF, s->crlf_line);
	if (s->sbatch_stop_line && s->sbatch_stop_line != s->template_line) {
		f = add(k, SLF_SBATCH_STOP, s->sbatch_stop_line);
		f->num = s->sbatch_stop;
	}
	if (s->shebang_line != 1) {
		if (s->shebang_line)
			add(k, SLF_SHEBANG_MISPLACED, s->shebang_line);
		else
			add(k, SLF_NO_SHEBANG, 1);
	} else if (s->shebang_bad) {
		f = add(k, SLF_SHEBANG_OPTION, 1);
		f->num = s->shebang_bad;
		snprintf(f->arg, sizeof(f->arg), "%s", s->shebang_arg);
		snprintf(f->value, sizeof(f->value), "%s", s->shebang_prog);
	}
	/* one finding for a template, whatever it leaves unfilled */
	if (s->template_line)
		add(k, SLF_TEMPLATE, s->template_line);
	for (size_t i = 0; i < s->nnear; i++) {
		/* a directive switched off the usual way costs nothing, unless it was the GPUs */
		if (!s->near[i].kept && s->near[i].idiom && !s->near[i].gpu)
			continue;
		f = add(k, s->near[i].kept ? SLF_KEPT_ALTERNATIVE : SLF_NEAR_DIRECTIVE, s->near[i].line);
		snprintf(f->arg, sizeof(f->arg), "%s", s->near[i].text);
		snprintf(f->value, sizeof(f->value), "%s", s->near[i].rest);
		f->num = s->near[i].gpu;
	}
}

/* One directive: the option, its place, its value; what the pair rules need into c. */
static void lint_directive(const struct slurm_script *s, const struct slurm_optdb *db, struct sink *k,
			   const struct slurm_directive *d, struct comp_facts *c)
{
	const struct slurm_opt *o = d->name[0] ? slurm_opt_find(db, d->name) : NULL;
	struct slurm_finding *f;

	/* below the first command sbatch reads nothing: one finding a line, whatever the words */
	if (d->after_command) {
		if (!o || (k->n && k->n <= k->max && k->out[k->n - 1].code == SLF_AFTER_COMMAND &&
			   k->out[k->n - 1].line == d->line))
			return;
		f = add(k, SLF_AFTER_COMMAND, d->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
		f->num = (double)s->first_command;
		return;
	}
	if (!o) {
		f = add(k, SLF_UNKNOWN_OPTION, d->line);
		snprintf(f->arg, sizeof(f->arg), "%s", d->word);
		if (d->word[0] == '-' && d->word[1] == '-')
			suggest(db, d->word + 2, f->suggest, sizeof(f->suggest));
		return;
	}
	if (o->kind == SLURM_K_PLUGIN) {
		f = add(k, SLF_PLUGIN_OPTION, d->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
		return;
	}
	if (o->arg == SLURM_ARG_REQUIRED && !d->has_value) {
		f = add(k, SLF_MISSING_VALUE, d->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
		return;
	}
	if (o->arg == SLURM_ARG_NONE && d->has_value && strchr(d->word, '-') && d->word[1] == '-' &&
	    !strchr(d->value, ' ')) {
		/* "--requeue=yes": sbatch refuses it */
		f = add(k, SLF_UNEXPECTED_VALUE, d->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
		snprintf(f->value, sizeof(f->value), "%s", d->value);
		return;
	}
	if (d->has_value && o->arg != SLURM_ARG_NONE && !value_ok(o->kind, d->value)) {
		f = add(k, SLF_BAD_VALUE, d->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
		snprintf(f->value, sizeof(f->value), "%s", d->value);
		f->kind = o->kind;
		return;
	}
	if (!strcmp(o->name, "mem"))
		c->mem = d;
	else if (!strcmp(o->name, "mem-per-cpu"))
		c->mem_cpu = d;
	else if (!strcmp(o->name, "gres") && slurm_gres_has_gpu(d->value))
		c->gres_gpu = d;
	else if (!strcmp(o->name, "gpus") || !strncmp(o->name, "gpus-per-", 9))
		c->gpus = d;
	else if (!strcmp(o->name, "time"))
		c->time = d;
	else if (!strcmp(o->name, "array"))
		c->array = d;
	else if (!strcmp(o->name, "signal"))
		c->signal = d;
	else if (!strcmp(o->name, "requeue"))
		c->requeue = d;
}

/* The pairs sbatch refuses or that do not mean what they say, in one component (sbatch checks each). */
static void lint_pairs(struct sink *k, const struct comp_facts *c)
{
	struct slurm_finding *f;

	if (c->mem && c->mem_cpu) {
		const struct slurm_directive *second = c->mem->line > c->mem_cpu->line ? c->mem : c->mem_cpu;
		f = add(k, SLF_MEM_BOTH, second->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", second->name);
		snprintf(f->value, sizeof(f->value), "--%s", second == c->mem ? c->mem_cpu->name : c->mem->name);
	}
	if (c->gres_gpu && c->gpus) {
		const struct slurm_directive *second = c->gres_gpu->line > c->gpus->line ? c->gres_gpu : c->gpus;
		f = add(k, SLF_GRES_AND_GPUS, second->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", second->name);
		snprintf(f->value, sizeof(f->value), "--%s", second == c->gpus ? c->gres_gpu->name : c->gpus->name);
	}
}

static bool contains_ci(const char *v, const char *what)
{
	size_t wl = strlen(what);

	for (; *v; v++)
		if (!strncasecmp(v, what, wl))
			return true;
	return false;
}

/* Whether a directive (any component) with one of names has a value containing what. */
static const struct slurm_directive *dir_says(const struct slurm_script *s, const char *const *names,
					      const char *what)
{
	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		if (d->after_command || d->templ)
			continue;
		for (const char *const *n = names; *n; n++)
			if (!strcmp(d->name, *n) && contains_ci(d->value, what))
				return d;
	}
	return NULL;
}

/*
 * A job that shows it wants a GPU (a sign in a command, or a partition
 * named for GPUs) and asks for none in any component; never a job on a CPU
 * partition, QOS, account, constraint or job name ("multicpu").
 */
static void lint_gpu(const struct slurm_script *s, struct sink *k)
{
	static const char *const place[] = {"partition", "qos", "account", "constraint", "job-name", NULL};
	static const char *const part[] = {"partition", NULL};
	const struct slurm_directive *p;
	struct slurm_finding *f;

	/* no directive at all: the resources come on sbatch's command line (or a heredoc's script) */
	if (!s->ndir || slurm_script_gpus(s) || dir_says(s, place, "cpu"))
		return;
	if (s->gpu_hint_line) {
		f = add(k, SLF_NO_GPU, s->gpu_hint_line);
		snprintf(f->arg, sizeof(f->arg), "%s", s->gpu_cmd_line == s->gpu_hint_line ? s->gpu_cmd : "");
		snprintf(f->value, sizeof(f->value), "%s", s->gpu_hint);
	} else if ((p = dir_says(s, part, "gpu"))) {
		f = add(k, SLF_NO_GPU, s->gpu_cmd_line ? s->gpu_cmd_line : p->line);
		snprintf(f->arg, sizeof(f->arg), "%s", s->gpu_cmd);
		snprintf(f->value, sizeof(f->value), "--partition=%.200s", p->value);
	}
}

static void lint_time(const struct slurm_script *s, const struct slurm_lint_env *env, struct sink *k,
		      const struct comp_facts *c)
{
	struct slurm_finding *f;
	double t = 0;

	if (!c->time || !env || env->max_time_s <= 0)
		return;
	slurm_parse_time(c->time->value, &t);
	if (t >= 0 && t <= env->max_time_s)
		return;
	f = add(k, SLF_TIME_OVER_LIMIT, c->time->line);
	f->num = t;
	f->num2 = env->max_time_s;
	if (!c->signal && !c->requeue && !s->checkpoints) {
		f = add(k, SLF_NO_RESUME, c->time->line);
		f->num = t;
		f->num2 = env->max_time_s;
	}
}

/* --output and --error: a directory not there where sbatch runs, and an array's one name. */
static void lint_outputs(const struct slurm_script *s, const struct slurm_lint_env *env, struct sink *k,
			 const struct comp_facts *cf)
{
	struct slurm_finding *f;

	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		char dir[256];
		if (d->after_command || d->templ || (strcmp(d->name, "output") && strcmp(d->name, "error")) ||
		    !d->has_value)
			continue;
		slurm_output_dir(d->value, dir, sizeof(dir));
		if (dir[0] && !strchr(dir, '%') && env && env->dir_exists && !env->dir_exists(dir, env->ctx)) {
			f = add(k, SLF_OUTPUT_DIR, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", d->name);
			snprintf(f->value, sizeof(f->value), "%s", dir);
		}
		/* each task its own file: %a (the index) or %j (each task's own job
		 * id) does it; /dev/null is one file on purpose */
		if (cf[d->comp < LINT_MAX_COMP ? d->comp : LINT_MAX_COMP - 1].array && !strstr(d->value, "%a") &&
		    !strstr(d->value, "%j") && strcmp(d->value, "/dev/null")) {
			f = add(k, SLF_ARRAY_OUTPUT, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", d->name);
			snprintf(f->value, sizeof(f->value), "%s", d->value);
		}
	}
}

/* conda activate with no hook before it, in the script or a file it sources next to it. */
static void lint_conda(const struct slurm_script *s, const struct slurm_lint_env *env, struct sink *k)
{
	if (!s->conda_line || s->conda_hook)
		return;
	for (size_t i = 0; i < s->nsourced; i++)
		if (!env || !env->sources_hook || env->sources_hook(s->sourced[i].path, env->ctx))
			return;
	add(k, SLF_CONDA_NO_HOOK, s->conda_line);
}

size_t slurm_lint(const struct slurm_script *s, const struct slurm_optdb *db,
		  const struct slurm_lint_env *env, struct slurm_finding *out, size_t max)
{
	struct sink k = {.out = out, .max = max};
	struct comp_facts cf[LINT_MAX_COMP];
	size_t non_ascii_line = 0;
	unsigned nc = s->ncomp < 1 ? 1 : s->ncomp > LINT_MAX_COMP ? LINT_MAX_COMP : s->ncomp;

	memset(cf, 0, sizeof(cf));
	lint_head(s, &k);
	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		if (d->non_ascii && d->line != non_ascii_line && !d->templ) {
			add(&k, SLF_NON_ASCII, d->line);
			non_ascii_line = d->line;
		}
		/* a template's line is said once (lint_head()), not option by option */
		if (!d->templ)
			lint_directive(s, db, &k, d, &cf[d->comp < nc ? d->comp : nc - 1]);
	}
	for (unsigned c = 0; c < nc; c++)
		lint_pairs(&k, &cf[c]);
	lint_gpu(s, &k);
	lint_time(s, env, &k, &cf[0]);
	lint_outputs(s, env, &k, cf);
	lint_conda(s, env, &k);
	qsort(out, k.n < max ? k.n : max, sizeof(*out), finding_cmp);
	return k.n;
}

/* ---- the generator's facts ---- */

int slurm_gen_plan(const struct slurm_gen_in *in, struct slurm_gen *out, char *err, size_t errlen)
{
	long gpn = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
	double lead, want, usable;

	memset(out, 0, sizeof(*out));
	/* docs/slurm.md "Lead time": twice one checkpoint write, at least 2 minutes */
	lead = in->ckpt_write_s > 0 ? 2 * in->ckpt_write_s : SLURM_GEN_LEAD_S;
	if (lead < SLURM_GEN_LEAD_S)
		lead = SLURM_GEN_LEAD_S;
	lead = ceil(lead / 10) * 10;
	if (lead > 65535)
		lead = 65535;   /* sbatch(1) --signal: sig_time at most 65535 s */
	if (in->time_s > 0) {
		want = in->time_s;
	} else if (in->wall_s > 0) {
		/* docs/slurm.md "Time": the estimate, plus 20 % (at least 10 minutes), plus the lead */
		double margin = in->wall_s * SLURM_GEN_MARGIN;
		want = in->wall_s + (margin > SLURM_GEN_MARGIN_MIN_S ? margin : SLURM_GEN_MARGIN_MIN_S) + lead;
	} else if (in->limit_s > 0) {
		want = in->limit_s;
	} else {
		snprintf(err, errlen, _("no time to ask for: give --time, a workload with its work, or the partition's limit"));
		return -1;
	}
	out->time_s = ceil(want / 60 - 1e-9) * 60;
	out->jobs = 1;
	if (in->limit_s > 0 && out->time_s > in->limit_s) {
		out->time_s = floor(in->limit_s / 60) * 60;
		if (out->time_s < 60)
			out->time_s = 60;
		out->chained = true;
	}
	if (lead * 2 > out->time_s)
		lead = floor(out->time_s / 2 / 10) * 10;   /* a short job: half its time at most */
	if (in->wall_s > 0 && in->wall_s > out->time_s - lead)
		out->chained = true;   /* the work does not fit in one job, whatever its --time */
	if (out->chained) {
		/* each job computes until the lead, then checkpoints (docs/slurm.md "Chained jobs") */
		usable = out->time_s - lead;
		double work = in->wall_s > 0 ? in->wall_s : want;
		out->jobs = usable > 0 ? (long)ceil(work / usable - 1e-9) : 1;
		if (out->jobs < 2)
			out->jobs = 2;
	}
	out->lead_s = lead;
	out->cpus_per_task = in->cpus_per_task > 0 ? in->cpus_per_task : gpn * SLURM_GEN_CPUS_PER_GPU;
	out->mem_bytes = in->mem_bytes > 0 ? in->mem_bytes : (double)gpn * SLURM_GEN_MEM_PER_GPU;
	out->tasks_per_node = 1;
	return 0;
}
