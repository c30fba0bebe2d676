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

#include "../core/ckpt.h"
#include "../core/names.h"
#include "../core/spot.h"
#include "../core/units.h"
#include "../os/ckpt_dir.h"
#include "cmd.h"
#include "../cli/common.h"

static const char usage[] =
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
	"Rules and the protocol: docs/checkpoints.md.\n";

static int ckpt_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ckpt_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpurent ckpt%s%s: ", sub ? " " : "", sub ? sub : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

static const char *fmt_min(double s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 2 * 3600)
		snprintf(buf, n, "%.1f min", s / 60);
	else
		snprintf(buf, n, "%.2f h", s / 3600);
	return buf;
}

/* The seeds' rule of thumb: checkpoint every 15 to 30 minutes (seed 000 §3.3). */
#define THUMB_LO (15 * 60.0)
#define THUMB_HI (30 * 60.0)

static int ckpt_interval(int argc, char **argv)
{
	static const char *const valued[] = {
		"--interruptions", "--interval", "--mtbf", "--price", "--restart", "--work", "--write",
	};
	struct spot_params sp = {0};
	struct spot_result res;
	double price = 0, lo_over, hi_over;
	bool json = false, have_price = false, have_write = false, have_mtbf = false;
	char err[256], a[32], b[32], c[32], code[8];

	for (int i = 2; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '='), *v = NULL;
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		const char *name = NULL;

		if (common_is_help(arg)) {
			fputs(usage, stdout);
			return common_finish(EXIT_OK);
		}
		if (!strcmp(arg, "--json")) {
			json = true;
			continue;
		}
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
			if (strlen(valued[k]) == len && !strncmp(arg, valued[k], len))
				name = valued[k];
		if (!name) {
			struct names_suggest sg;
			char key[64];
			snprintf(key, sizeof(key), "%.*s", (int)len, arg);
			if (arg[0] != '-')
				return ckpt_error("interval", "'%s': unexpected argument (see 'gpurent help ckpt')", arg);
			names_suggest_init(&sg, key);
			for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
				names_suggest_add(&sg, valued[k]);
			names_suggest_add(&sg, "--json");
			if (sg.best[0])
				return ckpt_error("interval", "%s: unknown option (did you mean '%s'?)", key, sg.best);
			return ckpt_error("interval", "%s: unknown option (see 'gpurent help ckpt')", key);
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else
			return ckpt_error("interval", "%s: expected a value", name);
		if (!strcmp(name, "--price")) {
			if (units_parse_money(v, &price, code, err, sizeof(err)))
				return ckpt_error("interval", "--price: %s", err);
			have_price = true;
		} else if (!strcmp(name, "--interruptions")) {
			double x;
			if (units_parse_count(v, &x, err, sizeof(err)) || !(x > 0))
				return ckpt_error("interval", "--interruptions: expected a rate per hour > 0 such as 0.25, got '%s'", v);
			sp.mtbf_s = 3600 / x;
			have_mtbf = true;
		} else {
			double x;
			if (units_parse_duration(v, &x, err, sizeof(err)))
				return ckpt_error("interval", "%s: %s", name, err);
			if (!strcmp(name, "--write")) {
				if (!(x > 0))
					return ckpt_error("interval", "--write: expected a positive duration such as 90s, got '%s'", v);
				sp.write_s = x;
				have_write = true;
			} else if (!strcmp(name, "--mtbf")) {
				if (!(x > 0))
					return ckpt_error("interval", "--mtbf: expected a positive duration such as 6h, got '%s'", v);
				sp.mtbf_s = x;
				have_mtbf = true;
			} else if (!strcmp(name, "--restart")) {
				sp.restart_s = x;
			} else if (!strcmp(name, "--work")) {
				sp.work_s = x;
			} else if (!strcmp(name, "--interval")) {
				if (!(x > 0))
					return ckpt_error("interval", "--interval: expected a positive duration such as 30m, got '%s'", v);
				sp.interval_s = x;
			}
		}
	}
	if (!have_write)
		return ckpt_error("interval", "--write: required: the time one checkpoint takes to write (e.g. --write 90s)");
	if (!have_mtbf)
		return ckpt_error("interval", "--mtbf: required: the mean time between interruptions (e.g. --mtbf 6h)");
	if (spot_evaluate(&sp, &res, err, sizeof(err)))
		return ckpt_error("interval", "--%s", err);
	/* the rule of thumb's ends, at the same C, R, M (docs/billing.md) */
	lo_over = spot_daly_wall(1, THUMB_LO, sp.write_s, sp.restart_s, sp.mtbf_s) - 1;
	hi_over = spot_daly_wall(1, THUMB_HI, sp.write_s, sp.restart_s, sp.mtbf_s) - 1;

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
		json_num(&j, "overhead_young_fraction", res.overhead_young);
		json_num(&j, "overhead_15min_fraction", lo_over);
		json_num(&j, "overhead_30min_fraction", hi_over);
		if (sp.work_s > 0) {
			json_num(&j, "work_seconds", sp.work_s);
			json_num(&j, "wall_seconds", res.wall_s);
			json_num(&j, "lost_seconds", res.lost_s);
			json_num(&j, "interruptions", res.interruptions);
			json_num(&j, "wall_no_checkpoint_seconds", res.wall_no_ckpt_s);
			if (have_price) {
				json_num(&j, "price_per_hour", price);
				json_num(&j, "cost", price * res.wall_s / 3600);
				json_num(&j, "cost_no_interruptions", price * sp.work_s / 3600);
				json_num(&j, "cost_no_checkpoint", price * res.wall_no_ckpt_s / 3600);
			}
		}
		json_obj_end(&j);
		return common_finish(EXIT_OK);
	}
	printf("Checkpoint every %s (Daly 2006; Young 1974: %s) for a %s write, MTBF %s",
	       fmt_min(res.daly_s, a, sizeof(a)), fmt_min(res.young_s, b, sizeof(b)),
	       fmt_min(sp.write_s, c, sizeof(c)), units_fmt_duration(sp.mtbf_s, err, sizeof(err)));
	printf(sp.restart_s > 0 ? ", restart %s.\n" : ".\n", fmt_min(sp.restart_s, a, sizeof(a)));
	if (sp.interval_s > 0)
		printf("Evaluated at the interval you gave: %s.\n", fmt_min(sp.interval_s, a, sizeof(a)));
	printf("Expected overhead: %.1f%% of the work (%s per hour of work: checkpoint writes, "
	       "lost work, restarts); at Young's interval %.1f%%.\n", res.overhead * 100,
	       fmt_min(res.overhead * 3600, a, sizeof(a)), res.overhead_young * 100);
	if (sp.work_s > 0) {
		printf("Job of %s of work: expected wall time %s (%s lost, %.1f interruptions expected); "
		       "without checkpoints %s.\n", fmt_min(sp.work_s, a, sizeof(a)),
		       fmt_min(res.wall_s, b, sizeof(b)), fmt_min(res.lost_s, c, sizeof(c)),
		       res.interruptions, units_fmt_duration(res.wall_no_ckpt_s, err, sizeof(err)));
		if (have_price)
			printf("Expected cost at %.2f/h: %.2f (%.2f if never interrupted; %.2f without checkpoints).\n",
			       price, price * res.wall_s / 3600, price * sp.work_s / 3600,
			       price * res.wall_no_ckpt_s / 3600);
	}
	printf("Rule of thumb (seed 000 §3.3: every 15-30 min): the optimum is %s it; "
	       "overhead at 15 min %.1f%%, at 30 min %.1f%%.\n",
	       res.interval_s < THUMB_LO ? "below" : res.interval_s > THUMB_HI ? "above" : "within",
	       lo_over * 100, hi_over * 100);
	return common_finish(EXIT_OK);
}

/* `ckpt latest` and `ckpt prune`: DIR plus the flags in `flags`, --keep N. */
static int ckpt_dir_args(int argc, char **argv, const char *sub, const char **dir,
			 bool *explain, bool *dry_run, long *keep)
{
	char err[160];

	*dir = NULL;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (common_is_help(a)) {
			fputs(usage, stdout);
			return common_finish(EXIT_OK);
		}
		if (explain && !strcmp(a, "--explain")) {
			*explain = true;
		} else if (dry_run && !strcmp(a, "--dry-run")) {
			*dry_run = true;
		} else if (keep && (!strcmp(a, "--keep") || !strncmp(a, "--keep=", 7))) {
			const char *v = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				return ckpt_error(sub, "--keep: expected a number of checkpoints to keep");
			if (units_parse_int(v, 1, 1000000, keep, err, sizeof(err)))
				return ckpt_error(sub, "--keep: %s (at least 1: the newest is never removed)", err);
		} else if (a[0] == '-' && a[1]) {
			return ckpt_error(sub, "%s: unknown option (see 'gpurent help ckpt')", a);
		} else if (!*dir) {
			*dir = a;
		} else {
			return ckpt_error(sub, "'%s': unexpected argument (one directory)", a);
		}
	}
	if (!*dir)
		return ckpt_error(sub, "expected a checkpoint directory (see 'gpurent help ckpt')");
	if (keep && *keep < 1)
		return ckpt_error(sub, "--keep N: required: how many complete checkpoints to keep");
	return -1;
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

	if ((rc = ckpt_dir_args(argc, argv, "latest", &dir, &explain, NULL, NULL)) >= 0)
		return rc;
	if ((rc = ckpt_dir_read(dir, &d, err, sizeof(err))) < 0) {
		common_error("ckpt latest: %s", err);
		return EXIT_RUNTIME;
	}
	if (rc > 0) {
		common_error("ckpt latest: %s: no such directory (no checkpoint yet)", dir);
		return EXIT_RUNTIME;
	}
	if (!(cls = calloc(d.n ? d.n : 1, sizeof(*cls)))) {
		ckpt_dir_free(&d);
		common_error("ckpt latest: out of memory");
		return EXIT_RUNTIME;
	}
	ckpt_classify(d.v, d.n, cls);
	best = ckpt_latest(d.v, d.n);
	if (explain)
		for (size_t i = 0; i < d.n; i++) {
			fprintf(stderr, "%s%s: %s", d.v[i].name, d.v[i].is_dir ? "/" : "", kind_name(cls[i].kind));
			if (cls[i].kind == CKPT_COMPLETE || cls[i].kind == CKPT_TORN)
				fprintf(stderr, ", step %llu", (unsigned long long)cls[i].step);
			if (cls[i].why && cls[i].why[0])
				fprintf(stderr, " (%s)", cls[i].why);
			fputs((long)i == best ? " <- latest\n" : "\n", stderr);
		}
	if (best >= 0)
		printf("%s%s%s\n", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", d.v[best].name);
	else
		common_error("ckpt latest: %s: no complete checkpoint", dir);
	free(cls);
	ckpt_dir_free(&d);
	return best >= 0 ? common_finish(EXIT_OK) : EXIT_RUNTIME;
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

	if ((rc = ckpt_dir_args(argc, argv, "prune", &dir, NULL, &dry_run, &keep)) >= 0)
		return rc;
	if ((rc = ckpt_dir_read(dir, &d, err, sizeof(err))) != 0) {
		common_error("ckpt prune: %s", rc > 0 ? "no such directory" : err);
		return EXIT_RUNTIME;
	}
	if (!(victims = calloc(2 * d.n + 1, sizeof(*victims)))) {
		ckpt_dir_free(&d);
		common_error("ckpt prune: out of memory");
		return EXIT_RUNTIME;
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
			printf("would remove %s%s\n", path, e->is_dir ? "/" : "");
		} else if (ckpt_dir_remove(dir, e->name, err, sizeof(err)) < 0) {
			common_error("ckpt prune: %s", err);
			failed = 1;
		} else {
			printf("removed %s%s\n", path, e->is_dir ? "/" : "");
		}
		free(path);
	}
	free(victims);
	ckpt_dir_free(&d);
	rc = common_finish(EXIT_OK);
	return failed ? EXIT_RUNTIME : rc;
}

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* MUST stay sorted by name. */
static const struct subcommand subcommands[] = {
	{"interval", ckpt_interval},
	{"latest", ckpt_latest_cmd},
	{"prune", ckpt_prune_cmd},
};

int cmd_ckpt(int argc, char **argv)
{
	struct names_suggest sg;

	if (argc < 2)
		return ckpt_error(NULL, "expected a subcommand: interval, latest or prune (see 'gpurent help ckpt')");
	if (common_is_help(argv[1])) {
		fputs(usage, stdout);
		return common_finish(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc, argv);
	names_suggest_init(&sg, argv[1]);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		names_suggest_add(&sg, subcommands[i].name);
	if (sg.best[0])
		return ckpt_error(NULL, "'%s': unknown subcommand (did you mean '%s'?)", argv[1], sg.best);
	return ckpt_error(NULL, "'%s': unknown subcommand (see 'gpurent help ckpt')", argv[1]);
}
