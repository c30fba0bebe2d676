/*
 * cmd_ckpt.c - `gpurent ckpt <subcommand>`: checkpoint arithmetic. Today
 * `ckpt interval` (the optimal interval for work on interruptible
 * instances, spot.h); more subcommands join the sorted table below.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/ckpt.h"
#include "core/text/names.h"
#include "core/market/spot.h"
#include "core/text/units.h"
#include "os/ckpt_dir.h"
#include "kit/cmd.h"
#include "cmd/box/ckptwords.h"
#include "kit/common.h"
#include "kit/opt.h"

static const char usage[] = N_(
	"usage: gpurent ckpt <subcommand> [options]\n"
	"\n"
	"Checkpoint arithmetic for work on interruptible (spot) instances.\n"
	"\n"
	"Subcommands:\n"
	"  interval   the optimal checkpoint interval, overhead, wall time and cost\n"
	"  latest     the newest complete checkpoint in a directory\n"
	"  prune      remove all but the newest N complete checkpoints\n"
	"\n"
	"gpurent ckpt interval --write DUR --mtbf DUR [--restart DUR] [--work DUR]\n"
	"                      [--price PRICE] [--interval DUR] [--json]\n"
	"  --write DUR      time to write one checkpoint (90s)\n"
	"  --mtbf DUR       mean time between interruptions (6h); or\n"
	"  --interruptions N  interruptions per hour (0.25 = --mtbf 4h)\n"
	"  --restart DUR    from interruption to computing again (default 0)\n"
	"  --work DUR       the job's computation without interruptions (24h):\n"
	"                   prints its expected wall time\n"
	"  --price PRICE    price per instance-hour: prints the expected cost\n"
	"  --interval DUR   evaluate this interval instead of the optimum\n"
	"  --json           machine-readable output (schema gpurent.ckpt-interval/1)\n"
	"\n"
	"Young 1974: tau = sqrt(2 C M). Daly 2006: tau = sqrt(2CM)[1 + (1/3)sqrt(C/2M)\n"
	"+ (1/9)(C/2M)] - C for C < 2M, else M; expected wall time\n"
	"M e^(R/M) (e^((tau+C)/M) - 1) T/tau. Derivation in docs/billing.md.\n"
	"\n"
	"Example: gpurent ckpt interval --write 90s --mtbf 6h --restart 5m --work 24h --price 2.1\n"
	"\n"
	"gpurent ckpt latest DIR [--explain]\n"
	"  Print DIR/NAME of the newest complete checkpoint: the highest step number\n"
	"  in the name (step_1000 after step_999), temp files and torn ones ignored.\n"
	"  Complete: carrying a marker (NAME.complete, NAME.done; COMPLETE, DONE,\n"
	"  .complete, .metadata or trainer_state.json inside a directory) where the\n"
	"  directory uses markers, else any non-empty entry (written with the atomic\n"
	"  protocol: temp file, fsync, rename). Exit 1 when there is none.\n"
	"  --explain        say on stderr what each entry is and why\n"
	"\n"
	"gpurent ckpt prune DIR --keep N [--dry-run]\n"
	"  Remove complete checkpoints older than the newest N (with their markers),\n"
	"  torn ones older than the newest complete one, and the atomic protocol's\n"
	"  stale temp files. Entries newer than the newest complete one are kept.\n"
	"  --dry-run        print what would be removed\n"
	"\n"
	"Rules and the protocol: docs/checkpoints.md.\n");

static const char *fmt_min(double s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 2 * 3600)
		snprintf(buf, n, _("%.1f min"), s / 60);
	else
		snprintf(buf, n, "%.2f h", s / 3600);
	return buf;
}

/* The seeds' rule of thumb: checkpoint every 15 to 30 minutes (seed 000 §3.3). */
#define THUMB_LO (15 * 60.0)
#define THUMB_HI (30 * 60.0)

/* --write, --mtbf, --interval: a duration > 0, into o->dest (seconds). */
static int positive_duration(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	double x;

	(void)ctx;
	if (units_parse_duration(v, &x, err, n))
		return -1;
	if (!(x > 0)) {
		snprintf(err, n, _("expected a positive duration such as %s, got '%s'"), o->example, v);
		return -1;
	}
	*(double *)o->dest = x;
	return 0;
}

/* --interruptions N per hour > 0: o->dest gets the MTBF, 3600 / N seconds. */
static int interruptions(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	double x = strtod(v, NULL);   /* a number: the parser checked */

	(void)ctx;
	if (!(x > 0)) {
		snprintf(err, n, _("expected a rate per hour > 0 such as 0.25, got '%s'"), v);
		return -1;
	}
	*(double *)o->dest = 3600 / x;
	return 0;
}

/* An overhead fraction as "12.3%", or "over 1000%" past CKPT_OVERHEAD_MAX
 * (docs/checkpoints.md "Bounds"). */
static const char *pct_bounded(double f, char *buf, size_t n)
{
	if (!(f <= CKPT_OVERHEAD_MAX))
		snprintf(buf, n, _("over %.0f%%"), CKPT_OVERHEAD_MAX * 100);
	else
		snprintf(buf, n, "%.1f%%", f * 100);
	return buf;
}

/* A figure for JSON: the value, or null past its bound (never inf). */
static void bounded_json(struct json *j, const char *key, double v, double max)
{
	if (v <= max)
		json_num(j, key, v);
	else
		json_null(j, key);
}

static int ckpt_interval(int argc, char **argv)
{
	struct spot_params sp = {0};
	struct spot_result res;
	struct opt_money price_m = {0};
	double price = 0, lo_over, hi_over;
	bool no_ckpt_ok;
	bool json = false, have_price = false, have_write = false, have_mtbf = false;
	char err[256], a[32], b[32], c[32];
	int rc;
	/* --mtbf and --interruptions both set the MTBF: the last one given wins */
	const struct opt opts[] = {
		{.name = "write", .type = OPT_DURATION, .cb = positive_duration, .dest = &sp.write_s,
		 .arg = "DUR", .help = N_("time to write one checkpoint"), .example = "90s",
		 .seen = &have_write},
		{.name = "mtbf", .type = OPT_DURATION, .cb = positive_duration, .dest = &sp.mtbf_s,
		 .arg = "DUR", .help = N_("mean time between interruptions"), .example = "6h",
		 .seen = &have_mtbf},
		{.name = "interruptions", .type = OPT_NUMBER, .cb = interruptions, .dest = &sp.mtbf_s,
		 .arg = "N", .help = N_("interruptions per hour"), .example = "0.25", .seen = &have_mtbf},
		OPT_VAL(OPT_DURATION, "restart", &sp.restart_s, "DUR",
			N_("from interruption to computing again")),
		OPT_VAL(OPT_DURATION, "work", &sp.work_s, "DUR",
			N_("the job's computation without interruptions")),
		{.name = "price", .type = OPT_MONEY, .dest = &price_m, .arg = "PRICE",
		 .help = N_("price per instance-hour"), .seen = &have_price},
		{.name = "interval", .type = OPT_DURATION, .cb = positive_duration, .dest = &sp.interval_s,
		 .arg = "DUR", .help = N_("evaluate this interval instead of the optimum"), .example = "30m"},
		OPT_BOOL("json", &json, N_("machine-readable output")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ckpt interval", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	price = price_m.amount;
	if (!have_write)
		return msg_usage(_("--write: required: the time one checkpoint takes to write (e.g. --write 90s)"));
	if (!have_mtbf)
		return msg_usage(_("--mtbf: required: the mean time between interruptions (e.g. --mtbf 6h)"));
	if (sp.write_s + sp.restart_s >= sp.mtbf_s) {
		char w[32], m[32];
		/* docs/billing.md "Checkpoint interval": no interval lets work outrun the interruptions */
		return msg_fail(_("cannot make progress: one checkpoint write (%s) takes at least the mean "
				  "time between interruptions (%s); write faster or find a steadier box"),
				units_fmt_duration(sp.write_s + sp.restart_s, w, sizeof(w)),
				units_fmt_duration(sp.mtbf_s, m, sizeof(m)));
	}
	if (spot_evaluate(&sp, &res, err, sizeof(err)))
		return msg_usage("--%s", err);
	if (!(res.overhead <= CKPT_OVERHEAD_MAX)) {
		char w[32], m[32];
		/* docs/checkpoints.md "Bounds": past 1000% the figure is not worth printing */
		return msg_fail(_("cannot make useful progress: the expected overhead %s exceeds %.0f%% "
				  "(the job would take more than %.0fx its work) for a %s write and restart, "
				  "MTBF %s; write faster or find a steadier box"),
				sp.interval_s > 0 ? _("at the interval you gave") : _("at the optimal interval"),
				CKPT_OVERHEAD_MAX * 100, CKPT_OVERHEAD_MAX + 1,
				units_fmt_duration(sp.write_s + sp.restart_s, w, sizeof(w)),
				units_fmt_duration(sp.mtbf_s, m, sizeof(m)));
	}
	if (have_price && !(price * (1 + CKPT_OVERHEAD_MAX) * sp.work_s / 3600 <= CKPT_MONEY_MAX))
		return msg_usage(_("--price: the cost could exceed %.0e (price x %.0f x the work): check --price "
				   "and --work (docs/checkpoints.md \"Bounds\")"), CKPT_MONEY_MAX,
				 CKPT_OVERHEAD_MAX + 1);
	/* the rule of thumb's ends, at the same C, R, M (docs/billing.md) */
	lo_over = spot_daly_wall(1, THUMB_LO, sp.write_s, sp.restart_s, sp.mtbf_s) - 1;
	hi_over = spot_daly_wall(1, THUMB_HI, sp.write_s, sp.restart_s, sp.mtbf_s) - 1;
	no_ckpt_ok = res.wall_no_ckpt_s <= CKPT_NO_CKPT_MAX_STRETCH * sp.work_s;

	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.ckpt-interval/1");
		json_num(&j, "write_seconds", sp.write_s);
		json_num(&j, "mtbf_seconds", sp.mtbf_s);
		json_num(&j, "restart_seconds", sp.restart_s);
		json_num(&j, "young_interval_seconds", res.young_s);
		json_num(&j, "daly_interval_seconds", res.daly_s);
		json_num(&j, "interval_seconds", res.interval_s);
		json_num(&j, "overhead_fraction", res.overhead);
		bounded_json(&j, "overhead_young_fraction", res.overhead_young, CKPT_OVERHEAD_MAX);
		bounded_json(&j, "overhead_15min_fraction", lo_over, CKPT_OVERHEAD_MAX);
		bounded_json(&j, "overhead_30min_fraction", hi_over, CKPT_OVERHEAD_MAX);
		if (sp.work_s > 0) {
			json_num(&j, "work_seconds", sp.work_s);
			json_num(&j, "wall_seconds", res.wall_s);
			json_num(&j, "lost_seconds", res.lost_s);
			bounded_json(&j, "interruptions", res.interruptions, CKPT_INTERRUPTIONS_MAX);
			json_bool(&j, "no_checkpoint_viable", no_ckpt_ok);
			bounded_json(&j, "wall_no_checkpoint_seconds", res.wall_no_ckpt_s,
				     CKPT_NO_CKPT_MAX_STRETCH * sp.work_s);
			if (have_price) {
				json_num(&j, "price_per_hour", price);
				json_num(&j, "cost", price * res.wall_s / 3600);
				json_num(&j, "cost_no_interruptions", price * sp.work_s / 3600);
				bounded_json(&j, "cost_no_checkpoint", price * res.wall_no_ckpt_s / 3600,
					     price * CKPT_NO_CKPT_MAX_STRETCH * sp.work_s / 3600);
			}
		}
		json_obj_end(&j);
		return msg_finish(EXIT_OK);
	}
	printf(_("Checkpoint every %s (Daly 2006; Young 1974: %s) for a %s write, MTBF %s"),
	       fmt_min(res.daly_s, a, sizeof(a)), fmt_min(res.young_s, b, sizeof(b)),
	       fmt_min(sp.write_s, c, sizeof(c)), units_fmt_duration(sp.mtbf_s, err, sizeof(err)));
	/* TRANSLATORS: the end of the "Checkpoint every ..." sentence */
	printf(sp.restart_s > 0 ? _(", restart %s.\n") : _(".\n"), fmt_min(sp.restart_s, a, sizeof(a)));
	if (sp.interval_s > 0)
		printf(_("Evaluated at the interval you gave: %s.\n"), fmt_min(sp.interval_s, a, sizeof(a)));
	printf(_("Expected overhead: %.1f%% of the work (%s per hour of work: checkpoint writes, "
	       "lost work, restarts); at Young's interval %s.\n"), res.overhead * 100,
	       fmt_min(res.overhead * 3600, a, sizeof(a)), pct_bounded(res.overhead_young, b, sizeof(b)));
	if (sp.work_s > 0) {
		char n[32];
		if (res.interruptions > CKPT_INTERRUPTIONS_MAX)
			snprintf(n, sizeof(n), "over %.0f", CKPT_INTERRUPTIONS_MAX);
		else
			snprintf(n, sizeof(n), "%.1f", res.interruptions);
		printf(_("Job of %s of work: expected wall time %s (%s lost, %s interruptions expected); "),
		       fmt_min(sp.work_s, a, sizeof(a)), fmt_min(res.wall_s, b, sizeof(b)),
		       fmt_min(res.lost_s, c, sizeof(c)), n);
		if (no_ckpt_ok)
			printf(_("without checkpoints %s.\n"), units_fmt_duration(res.wall_no_ckpt_s, err, sizeof(err)));
		else
			printf(_("without checkpoints not viable (over %.0fx the work: restarts without end).\n"),
			       CKPT_NO_CKPT_MAX_STRETCH);
		if (have_price) {
			printf(_("Expected cost at %.2f/h: %.2f (%.2f if never interrupted; "), price,
			       price * res.wall_s / 3600, price * sp.work_s / 3600);
			if (no_ckpt_ok)
				printf(_("%.2f without checkpoints).\n"), price * res.wall_no_ckpt_s / 3600);
			else
				printf(_("without checkpoints not viable).\n"));
		}
	}
	printf(_("Rule of thumb (seed 000 §3.3: every 15-30 min): the optimum is %s it; "
	       "overhead at 15 min %s, at 30 min %s.\n"),
	       /* TRANSLATORS: where the optimum lies against the 15-30 min range */
	       res.interval_s < THUMB_LO ? _("below") : res.interval_s > THUMB_HI ? _("above") : _("within"),
	       pct_bounded(lo_over, a, sizeof(a)), pct_bounded(hi_over, b, sizeof(b)));
	return msg_finish(EXIT_OK);
}

/* `ckpt latest` and `ckpt prune`: DIR plus the flags given (NULL: not an
 * option of sub), --keep N. Returns OPT_GO or the exit status. */
static int ckpt_dir_args(int argc, char **argv, const char *sub, const char **dir,
			 bool *explain, bool *dry_run, long *keep)
{
	struct opt opts[4];
	size_t n = 0;
	int rc;

	if (explain)
		opts[n++] = (struct opt)OPT_BOOL("explain", explain, N_("say on stderr what each entry is and why"));
	if (dry_run)
		opts[n++] = (struct opt)OPT_BOOL("dry-run", dry_run, N_("print what would be removed"));
	if (keep)
		opts[n++] = (struct opt)OPT_LONG("keep", keep, 1, 1000000, "N",
						 N_("keep the newest N complete checkpoints"));
	opts[n] = (struct opt)OPT_TABLE_END;
	{
		const struct opt_cmd oc = {.name = sub, .usage = usage, .flags = 0, .min_operands = 1,
				   .max_operands = 1, .operands = N_("a checkpoint directory")};
		if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
			return rc;
	}
	*dir = argv[0];
	if (keep && *keep < 1)
		return msg_usage(_("--keep N: required: how many complete checkpoints to keep"));
	return OPT_GO;
}

static const char *kind_name(enum ckpt_kind k)
{
	switch (k) {
	case CKPT_COMPLETE: return "complete";
	case CKPT_TORN: return "torn";
	case CKPT_TEMP: return "temporary";
	case CKPT_MARKER: return "marker";
	default: return "not a checkpoint";
	}
}

static int ckpt_latest_cmd(int argc, char **argv)
{
	struct ckpt_dir d;
	struct ckpt_class *cls;
	const char *dir;
	bool explain = false;
	char err[512];
	long best;
	int rc;

	if ((rc = ckpt_dir_args(argc, argv, "ckpt latest", &dir, &explain, NULL, NULL)) != OPT_GO)
		return rc;
	if ((rc = ckpt_dir_read(dir, &d, err, sizeof(err))) < 0)
		return msg_fail("%s", err);
	if (rc > 0)
		return msg_fail(_("%s: no such directory (no checkpoint yet)"), dir);
	if (!(cls = calloc(d.n ? d.n : 1, sizeof(*cls)))) {
		ckpt_dir_free(&d);
		return msg_fail(_("out of memory"));
	}
	ckpt_classify(d.v, d.n, cls);
	ckpt_word_classes(cls, d.n);
	best = ckpt_latest(d.v, d.n);
	if (explain)
		for (size_t i = 0; i < d.n; i++) {
			char line[1024], step[48] = "", why[600] = "", name[1024];
			if (cls[i].kind == CKPT_COMPLETE || cls[i].kind == CKPT_TORN)
				snprintf(step, sizeof(step), ", step %llu", (unsigned long long)cls[i].step);
			if (cls[i].why && cls[i].why[0])
				snprintf(why, sizeof(why), " (%s)", cls[i].why);
			/* the name comes from the disk: escaped for the terminal (msg.h) */
			snprintf(line, sizeof(line), "%s%s: %s%s%s%s", msg_escape(d.v[i].name, name, sizeof(name)),
				 d.v[i].is_dir ? "/" : "", kind_name(cls[i].kind), step, why,
				 (long)i == best ? " <- latest" : "");
			fprintf(stderr, "%s\n", line);
		}
	if (best >= 0)
		printf("%s%s%s\n", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", d.v[best].name);
	else
		msg_error(_("%s: no complete checkpoint"), dir);
	free(cls);
	ckpt_dir_free(&d);
	return best >= 0 ? msg_finish(EXIT_OK) : EXIT_RUNTIME;
}

static int ckpt_prune_cmd(int argc, char **argv)
{
	struct ckpt_dir d;
	const char *dir;
	bool dry_run = false;
	long keep = 0;
	size_t *victims, nv;
	char err[512];
	int rc, failed = 0;

	if ((rc = ckpt_dir_args(argc, argv, "ckpt prune", &dir, NULL, &dry_run, &keep)) != OPT_GO)
		return rc;
	if ((rc = ckpt_dir_read(dir, &d, err, sizeof(err))) != 0)
		return msg_fail("%s", rc > 0 ? _("no such directory") : err);
	if (!(victims = calloc(2 * d.n + 1, sizeof(*victims)))) {
		ckpt_dir_free(&d);
		return msg_fail(_("out of memory"));
	}
	nv = ckpt_prune(d.v, d.n, (size_t)keep, victims);
	for (size_t k = 0; k < nv; k++) {
		const struct ckpt_entry *e = &d.v[victims[k]];
		size_t n = strlen(dir) + strlen(e->name) + 2;
		char *path = malloc(n);

		if (!path) {
			failed = 1;
			break;
		}
		snprintf(path, n, "%s/%s", dir, e->name);
		if (dry_run) {
			printf(_("would remove %s%s\n"), path, e->is_dir ? "/" : "");
		} else if (ckpt_dir_remove(dir, e->name, err, sizeof(err)) < 0) {
			msg_error("%s", err);
			failed = 1;
		} else {
			printf(_("removed %s%s\n"), path, e->is_dir ? "/" : "");
		}
		free(path);
	}
	free(victims);
	ckpt_dir_free(&d);
	rc = msg_finish(EXIT_OK);
	return failed ? EXIT_RUNTIME : rc;
}

/* MUST stay sorted by name. */
static const struct opt_sub subcommands[] = {
	{"interval", ckpt_interval},
	{"latest", ckpt_latest_cmd},
	{"prune", ckpt_prune_cmd},
};

int cmd_ckpt(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "ckpt", .usage = usage, .flags = OPT_STOP_AT_OPERAND, .min_operands = 0,
				   .max_operands = -1, .operands = NULL, .subs = subcommands,
				   .n_subs = sizeof(subcommands) / sizeof(subcommands[0])};
	int rc, nops;

	/* the subcommand and its arguments move to argv[0..nops) */
	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!nops)
		return msg_usage(_("expected a subcommand: interval, latest or prune (see 'gpurent help ckpt')"));
	return opt_run_sub(&oc, nops, argv);
}
