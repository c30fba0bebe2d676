/*
 * cmd_ledger.c - `gpurent ledger add|list|show|summary|export|import|path`: what
 * every run cost, for how long, on what, and what went wrong; read from and
 * written to the SQLite ledger (src/store/ledger.h, docs/ledger.md). add and
 * import, the runs written in, are cmd_ledger_import.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/text/csv.h"
#include "core/model/gpu.h"
#include "core/text/units.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/ledgeropt.h"
#include "kit/opt.h"
#include "base/out.h"
#include "base/util.h"
#include "cmd/books/cmd_ledger_int.h"

const char ledger_usage[] = N_(
	"usage: gpurent ledger [--ledger PATH] <subcommand> [options]\n"
	"\n"
	"The ledger of rented GPU runs: every `gpurent run` records itself; add the\n"
	"others by hand. Prices are stored as paid, never re-priced later.\n"
	"\n"
	"  ledger add --cost MONEY|--price MONEY [--currency CODE] [--duration DUR]\n"
	"             [--start TIME] [--end TIME] [--gpu NAME] [--gpus N]\n"
	"             [--billing MODE] [--host NAME] [--command CMD] [--tag TAG]...\n"
	"             [--notes TEXT] [--problems TEXT]\n"
	"      record a run by hand. MONEY may carry its currency (12.5CNY, $3,\n"
	"      \xC2\xA5" "12); one is required. --price is per hour for the whole\n"
	"      rental; without --cost, cost = price x duration. TIME is unix seconds\n"
	"      or ISO 8601 (2024-03-05, 2024-03-05T14:00, ...Z, ...+08:00; local time\n"
	"      without a zone). Without --start a run with --duration is taken to\n"
	"      have just ended. --gpu with no --gpus means one GPU.\n"
	"  ledger list [--limit N] [--json]\n"
	"      the N most recent runs, newest first (default 20; 0 = all)\n"
	"  ledger show ID [--json]\n"
	"      every recorded field of one run\n"
	"  ledger summary [--by day|week|month|tag|gpu] [--json]\n"
	"      runs, hours, GPU-hours and cost per group (default: month), each\n"
	"      currency on its own line, never added together; then the totals\n"
	"  ledger export --csv|--json\n"
	"      every run, oldest first, to standard output\n"
	"  ledger import --csv FILE\n"
	"      add the runs of a file 'ledger export --csv' wrote (another box's,\n"
	"      a spreadsheet kept by hand); runs already in the ledger are skipped;\n"
	"      a bad line stores nothing\n"
	"  ledger path\n"
	"      print where the ledger is\n"
	"  ledger probes [--limit N] [--json]\n"
	"      the N most recent `gpurent probe` measurements, newest first\n"
	"      (default 20; 0 = all); estimate and plan can be calibrated by them\n"
	"\n"
	"--ledger PATH (on any subcommand) or GPURENT_LEDGER picks the database;\n"
	"default $XDG_DATA_HOME/gpurent/ledger.db (~/.local/share/gpurent/ledger.db).\n"
	"Exit status: 0 ok, 1 runtime failure (unreadable, corrupted or foreign\n"
	"database; no such run), 2 bad input. Schema: docs/ledger.md.\n");

/* ---- formatting ---- */

char *ledger_fmt_money(double v, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (v != 0 && fabs(v) < 0.01)
		snprintf(buf, n, "%.4f", v);
	else
		snprintf(buf, n, "%.2f", v);
	return buf;
}

/* Local time "2024-03-05 14:00" (with seconds when sec). */
static char *fmt_local(double t, bool sec, char *buf, size_t n)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	if (!isfinite(t) || !localtime_r(&tt, &tm) ||
	    !strftime(buf, n, sec ? "%Y-%m-%d %H:%M:%S %z" : "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, n, "-");
	return buf;
}

/* ISO 8601 in UTC, "2024-03-05T06:00:00Z"; "" when unknown. */
/* The shortest decimal that reads back as exactly v ("" when unknown). */
static char *fmt_exact(double v, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!isfinite(v))
		return buf;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static double hours_of(const struct ledger_run *r)
{
	return isfinite(r->end) && isfinite(r->start) ? (r->end - r->start) / 3600.0 : NAN;
}

/* ---- parsing ---- */

/* Look a GPU name up in data/gpus.csv: its short name (first alias), or
 * NULL when unknown. Borrowed from db. */
const char *ledger_gpu_short(const struct gpu_db *db, const char *name)
{
	const struct gpu_spec *g;

	if (!db || !name || !(g = gpu_db_find(db, name)))
		return NULL;
	if (g->aliases[0]) {
		static char alias[64];
		snprintf(alias, sizeof(alias), "%.*s", (int)strcspn(g->aliases, "|"), g->aliases);
		return alias;
	}
	return g->name;
}

/* ---- output of runs ---- */

static void json_opt_num(struct json *j, const char *key, double v)
{
	if (isfinite(v))
		json_num(j, key, v);
	else
		json_null(j, key);
}

static void json_opt_count(struct json *j, const char *key, int v)
{
	if (v >= 0)
		json_int(j, key, v);
	else
		json_null(j, key);
}

static void json_opt_str(struct json *j, const char *key, const char *v)
{
	if (v)
		json_str(j, key, v);
	else
		json_null(j, key);
}

static void run_json(struct json *j, const struct ledger_entry *e)
{
	const struct ledger_run *r = &e->run;
	char buf[64];
	const char *t;

	json_obj_begin(j, NULL);
	json_num(j, "id", (double)e->id);
	json_str(j, "kind", r->kind ? r->kind : "");
	json_str(j, "status", e->status ? e->status : "");
	json_str(j, "start", out_utc(r->start, buf, sizeof(buf)));
	json_opt_num(j, "start_unix_seconds", r->start);
	if (isfinite(r->end))
		json_str(j, "end", out_utc(r->end, buf, sizeof(buf)));
	else
		json_null(j, "end");
	json_opt_num(j, "end_unix_seconds", r->end);
	json_opt_num(j, "duration_seconds", isfinite(r->end) ? r->end - r->start : NAN);
	json_opt_str(j, "command", r->command);
	json_opt_str(j, "host", r->host);
	json_opt_str(j, "gpu_type", r->gpu_type);
	json_opt_count(j, "gpu_count", r->gpu_count);
	json_opt_num(j, "price_per_hour", r->price_per_hour);
	json_opt_str(j, "currency", r->currency);
	json_opt_str(j, "billing_mode", r->billing_mode);
	json_opt_num(j, "cost", r->cost);
	json_opt_count(j, "exit_status", r->exit_status);
	json_opt_count(j, "restarts", r->restarts);
	json_opt_num(j, "idle_seconds", r->idle_seconds);
	json_opt_str(j, "stop_reason", r->stop_reason);
	json_opt_str(j, "log_path", r->log_path);
	json_arr_begin(j, "tags");
	for (t = r->tags; t && *t;) {
		size_t n = strcspn(t, ",");
		char tag[64];
		snprintf(tag, sizeof(tag), "%.*s", (int)n, t);
		json_str(j, NULL, tag);
		t += n + (t[n] == ',');
	}
	json_arr_end(j);
	json_opt_str(j, "notes", r->notes);
	json_opt_str(j, "problems", r->problems);
	json_num(j, "recorded_at_unix_seconds", e->recorded_at);
	json_obj_end(j);
}

static void runs_json(const struct ledger *l, const struct ledger_entries *es)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.ledger/1");
	json_str(&j, "ledger", ledger_path(l));
	json_arr_begin(&j, "runs");
	for (size_t i = 0; i < es->n; i++)
		run_json(&j, &es->v[i]);
	json_arr_end(&j);
	json_obj_end(&j);
}

/* What happened, in one word or two: "running", "exit 0", "idle (exit 143)". */
static char *fmt_state(const struct ledger_entry *e, char *buf, size_t n)
{
	const struct ledger_run *r = &e->run;

	if (e->status && !strcmp(e->status, "running"))
		snprintf(buf, n, "running");
	else if (r->stop_reason && r->exit_status >= 0 && strcmp(r->stop_reason, "exit"))
		snprintf(buf, n, "%s (exit %d)", r->stop_reason, r->exit_status);
	else if (r->exit_status >= 0)
		snprintf(buf, n, "exit %d", r->exit_status);
	else if (r->stop_reason)
		snprintf(buf, n, "%s", r->stop_reason);
	else
		snprintf(buf, n, "%s", r->kind ? r->kind : "-");
	return buf;
}

/*
 * At most w bytes of s, on one line, "..." when cut (never mid-UTF-8):
 * control bytes and invalid UTF-8 escaped for the terminal (out.h).
 */
static char *clip(const char *s, size_t w, char *buf, size_t n)
{
	size_t len;

	if (!s)
		s = "";
	out_safe(s, strlen(s), buf, n);
	len = strlen(buf);
	if (len > w && w > 3 && w < n) {
		size_t cut = w - 3;
		while (cut > 0 && ((unsigned char)buf[cut] & 0xC0) == 0x80)
			cut--;
		memcpy(buf + cut, "...", 4);
	}
	return buf;
}

/* ---- ledger list / show / export ---- */

/* The options of a listing (--ledger, --limit N, --json) parsed and the
 * ledger opened in *l: OPT_GO, or the exit status (--help and
 * --list-options included: nothing opened). */
static int listing_open(const char *name, const char *limit_help, int argc, char **argv,
			long *limit, bool *json, struct ledger **l)
{
	const char *path = NULL;
	int rc;
	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_LONG("limit", limit, 0, 100000000, "N", limit_help),
		OPT_BOOL("json", json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = name, .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	return (rc = ledgeropt_open(path, l)) ? rc : OPT_GO;
}

static int ledger_list_cmd(int argc, char **argv)
{
	struct ledger_entries es;
	struct ledger *l;
	bool json = false;
	char err[1024];
	long limit = 20;
	int rc;

	if ((rc = listing_open("ledger list", N_("the N most recent runs (0 = all)"), argc, argv, &limit, &json, &l)) != OPT_GO)
		return rc;
	if (ledger_list(l, LEDGER_NEWEST_FIRST, (size_t)limit, &es, err, sizeof(err))) {
		ledger_close(l);
		return msg_fail("%s", err);
	}
	if (json) {
		runs_json(l, &es);
	} else if (!es.n) {
		printf(_("no runs recorded in %s\n"), ledger_path(l));
	} else {
		/* the empty cells of width 0 are the format's double spaces */
		static const int hw[] = {5, 0, -16, 7, 0, -14, 14, 0, -14, -14, 0};
		const char *const hc[] = {"ID", "", _("START"), _("HOURS"), "", "GPU", _("COST"), "", _("STATE"),
					  _("TAGS"), _("COMMAND / PROBLEMS")};
		out_heading(stdout, hw, hc, ARRAY_SIZE(hw));
		for (size_t i = 0; i < es.n; i++) {
			const struct ledger_entry *e = &es.v[i];
			const struct ledger_run *r = &e->run;
			char when[32], hours[16], gpu[80], cost[48], m[32], state[64], tags[64], what[256];
			double h = hours_of(r);
			if (isfinite(h))
				snprintf(hours, sizeof(hours), "%.2f", h);
			else
				snprintf(hours, sizeof(hours), "-");
			if (r->gpu_type && r->gpu_count >= 0)
				snprintf(gpu, sizeof(gpu), "%dx %s", r->gpu_count, r->gpu_type);
			else
				snprintf(gpu, sizeof(gpu), "%s", r->gpu_type ? r->gpu_type : "-");
			snprintf(cost, sizeof(cost), "%s %s", ledger_fmt_money(r->cost, m, sizeof(m)),
				 r->currency ? r->currency : "");
			snprintf(what, sizeof(what), "%s%s%s", r->command ? r->command : "",
				 r->command && r->problems ? " / " : "", r->problems ? r->problems : "");
			printf("%5lld  %-16s %7s  %-14s %14s  %-14s %-14s %s\n", (long long)e->id,
			       fmt_local(r->start, false, when, sizeof(when)), hours,
			       clip(gpu, 14, (char[80]){0}, 80), cost,
			       clip(fmt_state(e, state, sizeof(state)), 63, (char[256]){0}, 256),
			       clip(r->tags ? r->tags : "-", 14, tags, sizeof(tags)),
			       clip(what, 60, (char[256]){0}, 256));
		}
	}
	ledger_entries_free(&es);
	ledger_close(l);
	return msg_finish(EXIT_OK);
}

/* A label of `ledger show` padded to 13 terminal columns (translated words are wide). */
static void show_label(const char *label)
{
	size_t w = out_width(label);

	printf("%s%*s", label, w < 13 ? (int)(13 - w) + 1 : 1, "");
}


/* The ledger's kind and status of a run, worded for the reader (the stored
 * values, "guard", "manual", "running", "finished", are the JSON's); another
 * value as stored, escaped. */
static const char *kind_word(const char *kind, char *buf, size_t n)
{
	if (kind && !strcmp(kind, "guard"))
		return _("guarded by gpurent run");
	if (kind && !strcmp(kind, "manual"))
		return _("added by hand");
	return clip(kind ? kind : "?", 200, buf, n);
}

static const char *status_word(const char *status, char *buf, size_t n)
{
	if (status && !strcmp(status, "finished"))
		return _("finished");
	if (status && !strcmp(status, "running"))
		return _("running");
	return clip(status ? status : "?", 200, buf, n);
}
static int ledger_show_cmd(int argc, char **argv)
{
	const char *path = NULL, *id_s;
	struct ledger_entry e;
	struct ledger *l;
	bool json = false;
	char err[1024], buf[64], m[32];
	long id;
	int rc, nops;
	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_BOOL("json", &json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger show", .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 1, .operands = N_("one run ID")};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!nops)
		return msg_usage(_("expected a run ID (see 'gpurent ledger list')"));
	id_s = argv[0];
	if (units_parse_int(id_s, 1, LONG_MAX, &id, err, sizeof(err)))
		return msg_usage(_("%s: expected a run ID, a whole number >= 1"), id_s);
	if ((rc = ledgeropt_open(path, &l)))
		return rc;
	if (ledger_get(l, id, &e, err, sizeof(err))) {
		ledger_close(l);
		return msg_fail("%s", err);
	}
	if (json) {
		struct ledger_entries one = {&e, 1};
		runs_json(l, &one);
	} else {
		const struct ledger_run *r = &e.run;
		double h = hours_of(r);
#define LINE(label, ...) do { show_label(_(label)); printf(__VA_ARGS__); putchar('\n'); } while (0)
/* a stored string, escaped for the terminal (out.h) */
#define LINE_STR(label, v) do { show_label(_(label)); out_puts_safe(stdout, v); putchar('\n'); } while (0)
		char sa[256], sb[256];
		printf(_("run %lld (%s, %s)\n"), (long long)e.id, kind_word(r->kind, sa, sizeof(sa)),
		       status_word(e.status, sb, sizeof(sb)));
		LINE(N_("start"), "%s (%.0f)", fmt_local(r->start, true, buf, sizeof(buf)), r->start);
		if (isfinite(r->end))
			LINE(N_("end"), "%s (%.0f)", fmt_local(r->end, true, buf, sizeof(buf)), r->end);
		if (isfinite(h))
			LINE(N_("duration"), "%.2f h", h);
		if (r->command)
			LINE_STR(N_("command"), r->command);
		if (r->host)
			LINE_STR(N_("host"), r->host);
		if (r->gpu_type || r->gpu_count >= 0)
			LINE(N_("gpu"), "%s x %d", clip(r->gpu_type ? r->gpu_type : "?", 200, sa, sizeof(sa)),
			     r->gpu_count);
		if (isfinite(r->price_per_hour))
			LINE(N_("price"), "%s %s/h%s%s%s", ledger_fmt_money(r->price_per_hour, m, sizeof(m)),
			     r->currency ? r->currency : "", r->billing_mode ? " (" : "",
			     r->billing_mode ? clip(r->billing_mode, 200, sa, sizeof(sa)) : "",
			     r->billing_mode ? ")" : "");
		else if (r->billing_mode)
			LINE_STR(N_("billing"), r->billing_mode);
		LINE(N_("cost"), "%s %s", ledger_fmt_money(r->cost, m, sizeof(m)), r->currency ? r->currency : "");
		if (r->exit_status >= 0)
			LINE(N_("exit status"), "%d", r->exit_status);
		if (r->stop_reason)
			LINE_STR(N_("stop reason"), r->stop_reason);
		if (r->restarts >= 0)
			LINE(N_("restarts"), "%d", r->restarts);
		if (isfinite(r->idle_seconds))
			LINE(N_("idle"), "%.0f s", r->idle_seconds);
		if (r->log_path)
			LINE_STR(N_("log"), r->log_path);
		if (r->tags)
			LINE_STR(N_("tags"), r->tags);
		if (r->notes)
			LINE_STR(N_("notes"), r->notes);
		if (r->problems)
			LINE_STR(N_("problems"), r->problems);
		LINE(N_("recorded"), "%s", fmt_local(e.recorded_at, true, buf, sizeof(buf)));
#undef LINE_STR
#undef LINE
	}
	ledger_entry_free(&e);
	ledger_close(l);
	return msg_finish(EXIT_OK);
}

/* One CSV field, RFC 4180 (out.h): quoted when it holds a comma, quote or line break. */
static void csv_field(const char *s, bool last)
{
	if (!s)
		s = "";
	out_csv_field(stdout, s, strlen(s));
	fputs(last ? "\r\n" : ",", stdout);
}

static void csv_num(double v)
{
	char buf[40];

	csv_field(fmt_exact(v, buf, sizeof(buf)), false);
}

static void csv_count(int v)
{
	char buf[16] = "";

	if (v >= 0)
		snprintf(buf, sizeof(buf), "%d", v);
	csv_field(buf, false);
}

static int ledger_export_cmd(int argc, char **argv)
{
	const char *path = NULL;
	struct ledger_entries es;
	struct ledger *l;
	bool json = false, csv = false;
	char err[1024], buf[64];
	int rc;

	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_BOOL("csv", &csv, N_("every run as CSV")),
		OPT_BOOL("json", &json, N_("every run as JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger export", .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if (json == csv)
		return msg_usage(_("expected one of --csv or --json"));
	if ((rc = ledgeropt_open(path, &l)))
		return rc;
	if (ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err))) {
		ledger_close(l);
		return msg_fail("%s", err);
	}
	if (json) {
		runs_json(l, &es);
	} else {
		fputs("id,kind,status,start,end,start_unix,end_unix,hours,command,host,gpu_type,"
		      "gpu_count,price_per_hour,currency,billing_mode,cost,exit_status,restarts,"
		      "idle_seconds,stop_reason,log_path,tags,notes,problems,recorded_at_unix\r\n", stdout);
		for (size_t i = 0; i < es.n; i++) {
			const struct ledger_entry *e = &es.v[i];
			const struct ledger_run *r = &e->run;
			snprintf(buf, sizeof(buf), "%lld", (long long)e->id);
			csv_field(buf, false);
			csv_field(r->kind, false);
			csv_field(e->status, false);
			csv_field(out_utc(r->start, buf, sizeof(buf)), false);
			csv_field(out_utc(r->end, buf, sizeof(buf)), false);
			csv_num(r->start);
			csv_num(r->end);
			csv_num(hours_of(r));
			csv_field(r->command, false);
			csv_field(r->host, false);
			csv_field(r->gpu_type, false);
			csv_count(r->gpu_count);
			csv_num(r->price_per_hour);
			csv_field(r->currency, false);
			csv_field(r->billing_mode, false);
			csv_num(r->cost);
			csv_count(r->exit_status);
			csv_count(r->restarts);
			csv_num(r->idle_seconds);
			csv_field(r->stop_reason, false);
			csv_field(r->log_path, false);
			csv_field(r->tags, false);
			csv_field(r->notes, false);
			csv_field(r->problems, false);
			csv_field(fmt_exact(e->recorded_at, buf, sizeof(buf)), true);
		}
	}
	ledger_entries_free(&es);
	ledger_close(l);
	return msg_finish(EXIT_OK);
}

/* ---- ledger summary ---- */

static void total_json(struct json *j, const struct ledger_total *t, bool key)
{
	json_obj_begin(j, NULL);
	if (key)
		json_str(j, "key", t->key);
	json_str(j, "currency", t->currency);
	json_int(j, "runs", (long)t->runs);
	json_int(j, "running", (long)t->running);
	json_int(j, "runs_without_cost", (long)t->runs_without_cost);
	json_num(j, "cost", t->cost);
	json_num(j, "hours", t->hours);
	json_num(j, "gpu_hours", t->gpu_hours);
	json_obj_end(j);
}

static void total_line(const char *key, const struct ledger_total *t)
{
	char m[32], k[256];

	/* the key is a stored tag or GPU name: escaped for the terminal (out.h) */
	const char *shown = out_safe(key, strlen(key), k, sizeof(k));
	size_t w = out_width(shown);

	/* padded by terminal columns: a tag or the translated "total" may be wide */
	printf("%s%*s %-8s %6zu %9.2f %10.2f %14s\n", shown, w < 16 ? (int)(16 - w) : 0, "",
	       t->currency[0] ? t->currency : "-",
	       t->runs, t->hours, t->gpu_hours, ledger_fmt_money(t->cost, m, sizeof(m)));
}

static int ledger_summary_cmd(int argc, char **argv)
{
	static const char *const by_names[] = {"day", "week", "month", "tag", "gpu", NULL};
	const char *path = NULL;
	struct ledger_summary sum = {0}, all = {0};
	struct ledger_entries es = {0};
	struct ledger *l = NULL;
	struct gpu_db gdb;
	char (*shorts)[64] = NULL;
	bool json = false, have_gdb = false;
	enum ledger_by by;
	char err[1024];
	int rc = EXIT_RUNTIME, by_i = 2;
	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_ONEOF("by", &by_i, by_names, "KEY", N_("group by day, week, month, tag or gpu")),
		OPT_BOOL("json", &json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger summary", .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if (ledger_by_parse(by_names[by_i], &by) || by == LEDGER_BY_ALL)
		return msg_usage(_("--by: expected day, week, month, tag or gpu, got '%s'"), by_names[by_i]);
	if ((rc = ledgeropt_open(path, &l)))
		return rc;
	rc = EXIT_RUNTIME;
	if (ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, sizeof(err)))
		goto out_error;
	if (by == LEDGER_BY_GPU && !common_load_data(&gdb, NULL)) {
		/* One card, one group: "NVIDIA GeForce RTX 4090" (NVML) and "4090"
		 * (typed) both count as RTX4090. shorts[k] is the short name of
		 * gdb.v[k]; the entries borrow them until the end. */
		have_gdb = true;
		if (gdb.n && !(shorts = calloc(gdb.n, sizeof(*shorts)))) {
			snprintf(err, sizeof(err), "%s", _("out of memory"));
			goto out_error;
		}
		for (size_t i = 0; i < es.n; i++) {
			const struct gpu_spec *g = es.v[i].run.gpu_type ?
				gpu_db_find(&gdb, es.v[i].run.gpu_type) : NULL;
			size_t k;
			if (!g)
				continue;
			k = (size_t)(g - gdb.v);
			if (!shorts[k][0])
				snprintf(shorts[k], sizeof(shorts[k]), "%s", ledger_gpu_short(&gdb, g->name));
			es.v[i].run.gpu_type = shorts[k];
		}
	}
	if (ledger_summarize(&es, by, &sum, err, sizeof(err)) ||
	    ledger_summarize(&es, LEDGER_BY_ALL, &all, err, sizeof(err)))
		goto out_error;
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.ledger-summary/1");
		json_str(&j, "ledger", ledger_path(l));
		json_str(&j, "by", ledger_by_name(by));
		json_arr_begin(&j, "groups");
		for (size_t i = 0; i < sum.n; i++)
			total_json(&j, &sum.v[i], true);
		json_arr_end(&j);
		json_arr_begin(&j, "totals");
		for (size_t i = 0; i < all.n; i++)
			total_json(&j, &all.v[i], false);
		json_arr_end(&j);
		json_obj_end(&j);
	} else if (!es.n) {
		printf(_("no runs recorded in %s\n"), ledger_path(l));
	} else {
		size_t running = 0, nocost = 0;
		static const char *const heads[][2] = {{"day", N_("DAY")}, {"week", N_("WEEK")},
						       {"month", N_("MONTH")}, {"tag", N_("TAG")},
						       {"gpu", N_("GPU")}};
		char up[16];
		const char *head = up;
		snprintf(up, sizeof(up), "%s", ledger_by_name(by));
		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		for (size_t h = 0; h < ARRAY_SIZE(heads); h++)
			if (!strcmp(heads[h][0], ledger_by_name(by)))
				head = _(heads[h][1]);
		static const int hw[] = {-16, -8, 6, 9, 10, 14};
		const char *const hc[] = {head, _("CURRENCY"), _("RUNS"), _("HOURS"), _("GPU-HOURS"), _("COST")};
		out_heading(stdout, hw, hc, ARRAY_SIZE(hw));
		for (size_t i = 0; i < sum.n; i++)
			total_line(sum.v[i].key, &sum.v[i]);
		printf("\n");
		for (size_t i = 0; i < all.n; i++) {
			total_line(_("total"), &all.v[i]);
			running += all.v[i].running;
			nocost += all.v[i].runs_without_cost;
		}
		if (all.n > 1)
			printf("%s", _("Each currency is totalled apart; none is converted.\n"));
		if (by == LEDGER_BY_TAG)
			printf("%s", _("A run with several tags counts under each; the totals count it once.\n"));
		if (running)
			printf(Q_("%zu run still running: no hours counted for it yet.\n",
				  "%zu runs still running: no hours counted for them yet.\n", running), running);
		if (nocost)
			printf(Q_("%zu run recorded no cost.\n", "%zu runs recorded no cost.\n", nocost), nocost);
	}
	rc = msg_finish(EXIT_OK);
	goto out_free;
out_error:
	msg_error("%s", err);
out_free:
	ledger_summary_free(&sum);
	ledger_summary_free(&all);
	ledger_entries_free(&es);
	free(shorts);
	if (have_gdb)
		gpu_db_free(&gdb);
	ledger_close(l);
	return rc;
}

/* ---- ledger probes ---- */

static void probe_json(struct json *j, const struct ledger_probe *p)
{
	char buf[64];

	json_obj_begin(j, NULL);
	json_num(j, "id", (double)p->id);
	json_str(j, "taken", out_utc(p->at, buf, sizeof(buf)));
	json_opt_num(j, "taken_unix_seconds", p->at);
	json_str(j, "host", p->host ? p->host : "");
	json_opt_str(j, "gpu", p->gpu);
	json_opt_count(j, "gpu_count", p->gpu_count > 0 ? p->gpu_count : -1);
	if (p->workload_digest) {
		snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)p->workload_digest);
		json_str(j, "workload_digest", buf);
	} else {
		json_null(j, "workload_digest");
	}
	json_opt_str(j, "model", p->model);
	json_num(j, "steps", (double)p->steps);
	json_num(j, "warmup_steps", (double)p->warmup);
	json_opt_num(j, "steady_step_seconds", p->steady_step_s > 0 ? p->steady_step_s : NAN);
	json_opt_num(j, "peak_memory_bytes", p->peak_mem > 0 ? p->peak_mem : NAN);
	json_opt_num(j, "memory_growth_bytes_per_step", p->mem_growth);
	json_str(j, "unit", p->units_are_samples ? "sample" : "token");
	json_opt_num(j, "units_per_step", p->units_per_step > 0 ? p->units_per_step : NAN);
	json_opt_num(j, "units_per_second", p->units_per_s > 0 ? p->units_per_s : NAN);
	json_opt_num(j, "mfu_fraction", p->mfu > 0 ? p->mfu : NAN);
	json_opt_num(j, "gpu_util_median_percent", p->util_median >= 0 ? p->util_median : NAN);
	json_opt_num(j, "cpu_median_percent", p->cpu_median >= 0 ? p->cpu_median : NAN);
	json_arr_begin(j, "diagnoses");
	for (const char *d = p->diagnoses; d && *d;) {
		size_t n = strcspn(d, ",");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), d);
		if (*name)
			json_str(j, NULL, name);
		d += n + (d[n] == ',');
	}
	json_arr_end(j);
	json_opt_str(j, "command", p->command);
	json_obj_end(j);
}

static int ledger_probes_cmd(int argc, char **argv)
{
	struct ledger_probe_rows rows;
	struct ledger *l;
	bool json = false;
	char err[1024];
	long limit = 20;
	int rc;

	if ((rc = listing_open("ledger probes", N_("the N most recent probes (0 = all)"), argc, argv, &limit, &json, &l)) != OPT_GO)
		return rc;
	if (ledger_probe_list(l, (size_t)limit, &rows, err, sizeof(err))) {
		ledger_close(l);
		return msg_fail("%s", err);
	}
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.ledger-probes/1");
		json_str(&j, "ledger", ledger_path(l));
		json_arr_begin(&j, "probes");
		for (size_t i = 0; i < rows.n; i++)
			probe_json(&j, &rows.v[i]);
		json_arr_end(&j);
		json_obj_end(&j);
	} else if (!rows.n) {
		printf(_("no probes recorded in %s (gpurent probe records them)\n"), ledger_path(l));
	} else {
		static const int hw[] = {5, 0, -16, -24, -18, 9, 10, 12, 5, 0, 0};
		const char *const hc[] = {"ID", "", _("TAKEN"), "GPU", _("MODEL"), _("STEP"), _("PEAK MEM"),
					  _("RATE"), "MFU", "", _("DIAGNOSES")};
		out_heading(stdout, hw, hc, ARRAY_SIZE(hw));
		for (size_t i = 0; i < rows.n; i++) {
			const struct ledger_probe *p = &rows.v[i];
			char when[32], gpu[96], step[32], mem[32], rate[48], mfu[16];
			if (p->gpu && p->gpu_count > 0)
				snprintf(gpu, sizeof(gpu), "%dx %s", p->gpu_count, p->gpu);
			else
				snprintf(gpu, sizeof(gpu), "%s", p->gpu ? p->gpu : "-");
			if (p->steady_step_s > 0)
				units_fmt_duration(p->steady_step_s, step, sizeof(step));
			else
				snprintf(step, sizeof(step), "-");
			if (p->peak_mem > 0)
				units_fmt_bytes(p->peak_mem, mem, sizeof(mem));
			else
				snprintf(mem, sizeof(mem), "-");
			if (p->units_per_s > 0)
				snprintf(rate, sizeof(rate), "%.0f %s/s", p->units_per_s,
					 p->units_are_samples ? "smp" : "tok");
			else
				snprintf(rate, sizeof(rate), "-");
			if (p->mfu > 0)
				snprintf(mfu, sizeof(mfu), "%.0f%%", p->mfu * 100);
			else
				snprintf(mfu, sizeof(mfu), "-");
			printf("%5lld  %-16s %-24s %-18s %9s %10s %12s %5s  %s\n", (long long)p->id,
			       fmt_local(p->at, false, when, sizeof(when)), clip(gpu, 24, (char[96]){0}, 96),
			       clip(p->model ? p->model : "-", 18, (char[96]){0}, 96), step, mem, rate, mfu,
			       p->diagnoses && *p->diagnoses ? p->diagnoses : "-");
		}
	}
	ledger_probe_rows_free(&rows);
	ledger_close(l);
	return msg_finish(EXIT_OK);
}

static int ledger_path_cmd(int argc, char **argv)
{
	const char *path = NULL;
	char buf[4096], err[256];
	int rc;

	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger path", .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if (!path) {
		if (ledger_default_path(buf, sizeof(buf), err, sizeof(err)))
			return msg_fail("%s", err);
		path = buf;
	}
	printf("%s\n", path);
	return msg_finish(EXIT_OK);
}

/* MUST stay sorted by name. */
static const struct opt_sub subs[] = {
	{"add", ledger_add_cmd},
	{"export", ledger_export_cmd},
	{"import", ledger_import_cmd},
	{"list", ledger_list_cmd},
	{"path", ledger_path_cmd},
	{"probes", ledger_probes_cmd},
	{"show", ledger_show_cmd},
	{"summary", ledger_summary_cmd},
};

int cmd_ledger(int argc, char **argv)
{
	const struct opt_cmd oc = {.name = "ledger", .usage = ledger_usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1, .subs = subs, .n_subs = ARRAY_SIZE(subs)};

	return ledgeropt_dispatch(&oc, ledger_usage, argc, argv);
}
