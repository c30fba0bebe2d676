/*
 * cmd_run.c - `gpurent run [options] -- CMD [ARGS...]`: the guard on the
 * rented box. This file is the command: its usage, its options, and the
 * call into the guard (src/guard/guard.h), which runs CMD, watches it and
 * fires the stop action. The rules: src/core/box/guard.h; the whole story:
 * docs/guard.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/guard.h"
#include "core/market/provider.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "guard/action.h"
#include "guard/guard.h"
#include "os/slurmctl.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent run [options] -- CMD [ARGS...]\n"
	"\n"
	"Run CMD under a guard that stops the box when the work is over, so that a\n"
	"finished, idle, stalled or runaway job does not bill all night. CMD runs in\n"
	"its own process group; its output goes, line by line with timestamps, to the\n"
	"terminal and to a log file. The stop action fires exactly once, on the first of:\n"
	"CMD ends; idle; stall; --max-runtime; --budget; SIGTERM, SIGINT, SIGHUP or\n"
	"SIGQUIT to the guard (forwarded to CMD, which gets --grace to checkpoint before\n"
	"the group is killed; another signal kills it at once). SIGUSR1 and SIGUSR2 are\n"
	"passed to CMD and do not stop it. Exit status: CMD's own (128+signal when a\n"
	"signal ended it).\n"
	"\n"
	"When to stop:\n"
	"  --idle DUR           stop when every GPU the job uses (CUDA_VISIBLE_DEVICES,\n"
	"                       else all) stays below --idle-util for DUR; without NVML,\n"
	"                       when CMD's process tree uses less CPU than that\n"
	"  --idle-util PCT      idle threshold, percent of a GPU or of one CPU core (5)\n"
	"  --stall DUR          stop when CMD prints nothing and --progress-file does not\n"
	"                       change for DUR (a hung loop)\n"
	"  --progress-file F    a file CMD touches as it makes progress\n"
	"  --max-runtime DUR    stop after DUR, restarts and back-off included\n"
	"  --price PRICE        what the box costs per hour (2.1, 1.88CNY): cost so far\n"
	"  --budget MONEY       stop when --price x elapsed reaches MONEY\n"
	"  --keep-on-exit       CMD's own end does not fire the stop action\n"
	"  --grace DUR          from SIGTERM to SIGKILL of CMD's group (30s)\n"
	"\n"
	"What to do:\n"
	"  --on-stop 'CMD'      run this with /bin/sh (e.g. 'shutdown -h now'); it sees\n"
	"                       GPURENT_STOP_REASON, GPURENT_EXIT_STATUS, GPURENT_STOP_COST\n"
	"  --stop-url URL       POST a JSON event to URL (libcurl); hidden from ps. Or:\n"
	"  --stop-url-file F    the URL from F (mode 600), else $GPURENT_STOP_URL; with\n"
	"  --token-env VAR      a bearer token read from environment variable VAR, or\n"
	"  --token-file FILE    from FILE (mode 600 or stricter); never shown anywhere\n"
	"  --stop-timeout DUR   per HTTP attempt, and for the --on-stop command (30s)\n"
	"  --stop-retries N     HTTP attempts after the first, with back-off (3)\n"
	"  --preset NAME        a platform's stop command: autodl, runpod, shutdown,\n"
	"                       slurm, vastai (docs/guard.md: what each needs); the\n"
	"                       releasing ones: aws-release, azure-release, gcp-release,\n"
	"                       runpod-release, vastai-release\n"
	"  --release            with --preset NAME: its -release variant, which deletes\n"
	"                       the instance and its disks instead of stopping it\n"
	"  --dry-run            run CMD, but only say what the stop action would do\n"
	"  --lead DUR           slurm: stop this long before the job's time limit (2m)\n"
	"  --requeues N         slurm: requeue while the job has restarted fewer times (20)\n"
	"  --hard-deadline DUR  stop at DUR; also arm a watchdog in its own session that\n"
	"                       fires the stop action if the guard itself is killed\n"
	"\n"
	"Restarts and checkpoints:\n"
	"  --restarts N         restart CMD after an abnormal end, up to N times (0)\n"
	"  --backoff DUR        first wait before a restart, doubling to 16x (10s)\n"
	"  --ckpt-dir DIR       export GPURENT_RESUME = the newest complete checkpoint in\n"
	"                       DIR (rules: gpurent help ckpt); GPURENT_ATTEMPT = 1, 2, ...\n"
	"\n"
	"Records:\n"
	"  --log-dir DIR        where the log goes (./gpurent-logs; use persistent storage)\n"
	"  --ledger PATH        the ledger database ($XDG_DATA_HOME/gpurent/ledger.db)\n"
	"  --no-ledger          do not record the run\n"
	"  --billing MODE       billing mode to record (per-second, hourly, spot, ...)\n"
	"  --tag TAGS           comma-separated tags to record\n"
	"  --poll DUR           how often to sample (1s)\n"
	"\n"
	"Inside a Slurm job, --preset slurm reads the job's time limit (SLURM_JOB_END_TIME,\n"
	"else scontrol show job): --max-runtime defaults to it less --lead. USR1 (the\n"
	"script's signal option) or SIGTERM is passed to CMD to checkpoint; then the job is\n"
	"requeued (scontrol requeue) when a complete checkpoint is in --ckpt-dir and it\n"
	"has restarted fewer than --requeues times; a CMD that ends with 0 ends the job;\n"
	"anything else cancels it (scancel). docs/slurm.md.\n"
	"\n"
	"On a terminal one status line shows elapsed time, cost, GPU use and state.\n"
	"Examples:\n"
	"  gpurent run --idle 20m --preset runpod --ckpt-dir /workspace/ckpt --restarts 3 -- python train.py\n"
	"  gpurent run --price 2.1 --budget 50 --on-stop 'shutdown -h now' -- ./train.sh\n");

/* The guard's options (guard.h), plus what only the command reads. */
struct run_opts {
	struct guard_opts g;
	const char *preset, *token_file, *stop_url_file;
	bool release;             /* --release: the preset's -release variant */
	char release_name[64];
	double lead_s;
	bool lead_given;
};

#define run_usage_error msg_usage

/* ---- option parsing ---- */

/* A duration: units.h's (which reads "ms" too). */
static int parse_dur(const char *name, const char *v, double *out)
{
	char err[160];

	if (!units_parse_duration(v, out, err, sizeof(err)))
		return 0;
	return run_usage_error("%s: %s", name, err);
}

static int set_option(struct run_opts *o, const char *name, const char *v, char budget_cur[8])
{
	char err[200];
	long n;

	if (!strcmp(name, "--idle"))
		return parse_dur(name, v, &o->g.lim.idle_s);
	if (!strcmp(name, "--stall"))
		return parse_dur(name, v, &o->g.lim.stall_s);
	if (!strcmp(name, "--max-runtime"))
		return parse_dur(name, v, &o->g.lim.max_runtime_s);
	if (!strcmp(name, "--grace"))
		return parse_dur(name, v, &o->g.grace_s);
	if (!strcmp(name, "--lead")) {
		o->lead_given = true;
		if (parse_dur(name, v, &o->lead_s))
			return EXIT_USAGE;
		return o->lead_s > 0 ? 0 : run_usage_error(_("--lead: must be positive"));
	}
	if (!strcmp(name, "--poll")) {
		if (parse_dur(name, v, &o->g.poll_s))
			return EXIT_USAGE;
		if (o->g.poll_s < 0.01 || o->g.poll_s > 3600)
			return run_usage_error(_("--poll: expected 10ms to 1h, got '%s'"), v);
		return 0;
	}
	if (!strcmp(name, "--backoff"))
		return parse_dur(name, v, &o->g.backoff_s);
	if (!strcmp(name, "--stop-timeout")) {
		if (parse_dur(name, v, &o->g.action.timeout_s))
			return EXIT_USAGE;
		return o->g.action.timeout_s > 0 ? 0 : run_usage_error(_("--stop-timeout: must be positive"));
	}
	if (!strcmp(name, "--hard-deadline")) {
		if (parse_dur(name, v, &o->g.hard_deadline_s))
			return EXIT_USAGE;
		return o->g.hard_deadline_s > 0 ? 0 : run_usage_error(_("--hard-deadline: must be positive"));
	}
	if (!strcmp(name, "--idle-util")) {
		double pct;
		if (strchr(v, '%')) {
			if (units_parse_fraction(v, &pct, err, sizeof(err)))
				return run_usage_error(_("--idle-util: %s"), err);
			pct *= 100;
		} else {
			if (units_scan_number(v, &pct) || !(pct >= 0 && pct <= 100))
				return run_usage_error(_("--idle-util: expected a percentage 0-100 such as 5 or 5%%, got '%s'"), v);
		}
		o->g.lim.idle_util = pct;
		return 0;
	}
	if (!strcmp(name, "--price") || !strcmp(name, "--budget")) {
		double x;
		char code[8];
		if (units_parse_money(v, &x, code, err, sizeof(err)))
			return run_usage_error("%s: %s", name, err);
		if (!strcmp(name, "--price")) {
			o->g.lim.price_per_hour = x;
			snprintf(o->g.currency, sizeof(o->g.currency), "%s", code);
		} else {
			if (!(x > 0))
				return run_usage_error(_("--budget: expected an amount above 0, got '%s'"), v);
			o->g.lim.budget = x;
			snprintf(budget_cur, 8, "%s", code);
		}
		return 0;
	}
	if (!strcmp(name, "--restarts") || !strcmp(name, "--stop-retries") || !strcmp(name, "--requeues")) {
		if (units_parse_int(v, 0, 1000, &n, err, sizeof(err)))
			return run_usage_error("%s: %s", name, err);
		if (!strcmp(name, "--restarts"))
			o->g.restarts = n;
		else if (!strcmp(name, "--requeues"))
			o->g.slurm.requeues = n;
		else
			o->g.action.retries = (int)n;
		return 0;
	}
	if (!*v)
		return run_usage_error(_("%s: expected a value"), name);
	if (!strcmp(name, "--on-stop"))
		o->g.action.shell = v;
	else if (!strcmp(name, "--stop-url"))
		o->g.action.url = v;
	else if (!strcmp(name, "--stop-url-file"))
		o->stop_url_file = v;
	else if (!strcmp(name, "--token-env"))
		o->g.token_env = v;
	else if (!strcmp(name, "--token-file"))
		o->token_file = v;
	else if (!strcmp(name, "--preset"))
		o->preset = v;
	else if (!strcmp(name, "--log-dir"))
		o->g.log_dir = v;
	else if (!strcmp(name, "--ckpt-dir"))
		o->g.ckpt_dir = v;
	else if (!strcmp(name, "--progress-file"))
		o->g.progress_file = v;
	else if (!strcmp(name, "--ledger"))
		o->g.ledger_path = v;
	else if (!strcmp(name, "--billing"))
		o->g.billing = v;
	else if (!strcmp(name, "--tag"))
		o->g.tags = v;
	return 0;
}

/*
 * --preset slurm inside a job: the job's facts (guard.h struct guard_slurm)
 * and --max-runtime from its time limit less the lead, unless given.
 * docs/slurm.md "The guard under Slurm".
 */
static void slurm_setup(struct run_opts *o)
{
	struct guard_slurm *s = &o->g.slurm;
	const char *rc = getenv("SLURM_RESTART_COUNT"), *procid = getenv("SLURM_PROCID");
	const char *end = getenv("SLURM_JOB_END_TIME");
	struct slurmctl_job j;
	char err[256];
	double left = -1;

	s->on = true;
	s->job_id = getenv("SLURM_JOB_ID");
	s->restart_count = rc && *rc ? strtol(rc, NULL, 10) : 0;
	if (s->restart_count < 0)
		s->restart_count = 0;
	s->rank0 = !procid || !*procid || !strcmp(procid, "0");
	s->queue_wait_s = s->time_limit_s = -1;
	if (end && *end) {   /* Slurm 23.02 and later set it (unix seconds) */
		char *e;
		double t = strtod(end, &e);
		if (e != end && !*e && t > 0)
			left = t - util_now_wall();
	}
	if (!slurmctl_job(s->job_id, &j, err, sizeof(err))) {
		s->queue_wait_s = j.queue_wait_s;
		s->time_limit_s = j.time_limit_s;
		if (left < 0)
			left = j.time_left_s;
	} else {
		msg_warn(_("--preset slurm: %s; the job's time limit and queue wait are not known"), err);
	}
	if (o->g.lim.max_runtime_s <= 0 && left > 0) {
		o->g.lim.max_runtime_s = left - o->lead_s > 1 ? left - o->lead_s : 1;
		msg_note(_("Slurm job %s: %.0f s left; --max-runtime %.0f s (--lead %.0f s before the limit)"),
			 s->job_id, left, o->g.lim.max_runtime_s, o->lead_s);
	}
	/* CMD's checkpoint must be over while the job can still be requeued */
	if (o->g.grace_s > o->lead_s / 2)
		o->g.grace_s = o->lead_s / 2;
}

/* Returns -1 to go on, else the exit code. */
struct run_ctx {
	struct run_opts *o;
	char budget_cur[8];
};

static int value_cb(const struct opt *op, const char *v, void *ctx, char *err, size_t errlen)
{
	struct run_ctx *c = ctx;
	char name[64];

	(void)err;
	(void)errlen;
	snprintf(name, sizeof(name), "--%s", op->name);
	return set_option(c->o, name, v, c->budget_cur) ? OPT_REPORTED : 0;
}

#define VAL(t, n, a, ex) {.name = (n), .type = (t), .cb = value_cb, .raw = true, .arg = (a), .example = (ex)}

/*
 * Returns OPT_GO to go on, else the exit code. The options are parsed from
 * a copy of argv (*copy, the caller frees it; o->g.cmd points into it), so
 * that argv itself stays whole for action_url_load() to scrub.
 */
static int parse_args(int argc, char **argv, struct run_opts *o, char ***copy)
{
	struct run_ctx c = {.o = o};
	const struct opt opts[] = {
		VAL(OPT_DURATION, "backoff", "DUR", "1s"),
		VAL(OPT_STRING, "billing", "PROFILE", "hourly"),
		VAL(OPT_MONEY, "budget", "MONEY", "50"),
		VAL(OPT_FILE, "ckpt-dir", "DIR", "."),
		OPT_BOOL("dry-run", &o->g.dry_run, N_("run CMD, but only say what the stop action would do")),
		VAL(OPT_DURATION, "grace", "DUR", "30s"),
		VAL(OPT_DURATION, "hard-deadline", "DUR", "6h"),
		VAL(OPT_DURATION, "idle", "DUR", "20m"),
		VAL(OPT_DURATION, "lead", "DUR", "2m"),
		VAL(OPT_PERCENT, "idle-util", "PCT", "5"),
		OPT_BOOL("keep-on-exit", &o->g.keep_on_exit, N_("CMD's own end does not fire the stop action")),
		VAL(OPT_FILE, "ledger", "PATH", "ledger.db"),
		VAL(OPT_FILE, "log-dir", "DIR", "gpurent-logs"),
		VAL(OPT_DURATION, "max-runtime", "DUR", "6h"),
		{.name = "no-ledger", .type = OPT_FLAG, .dest = &o->g.no_ledger,
		 .help = N_("do not record the run in the ledger")},
		VAL(OPT_STRING, "on-stop", "CMD", "true"),
		VAL(OPT_DURATION, "poll", "DUR", "1s"),
		VAL(OPT_STRING, "preset", "NAME", "shutdown"),
		VAL(OPT_MONEY, "price", "PRICE", "2.1"),
		VAL(OPT_FILE, "progress-file", "F", "README.md"),
		OPT_BOOL("release", &o->release, N_("with --preset: the variant that deletes the instance and its disks")),
		{.name = "requeues", .type = OPT_INT, .cb = value_cb, .raw = true, .arg = "N", .example = "3"},
		{.name = "restarts", .type = OPT_INT, .cb = value_cb, .raw = true, .arg = "N", .example = "3"},
		VAL(OPT_DURATION, "stall", "DUR", "30m"),
		{.name = "stop-retries", .type = OPT_INT, .cb = value_cb, .raw = true, .arg = "N", .example = "3"},
		VAL(OPT_DURATION, "stop-timeout", "DUR", "30s"),
		VAL(OPT_STRING, "stop-url", "URL", "http://127.0.0.1:9/stop"),
		VAL(OPT_FILE, "stop-url-file", "F", "/dev/null"),
		VAL(OPT_STRING, "tag", "TAGS", "lora"),
		VAL(OPT_STRING, "token-env", "VAR", "HOME"),
		VAL(OPT_FILE, "token-file", "FILE", "/dev/null"),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "run", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1};
	char **av;
	int rc, nops;

	o->g.lim.idle_util = 5;
	o->g.grace_s = 30;
	o->g.poll_s = 1;
	o->g.backoff_s = 10;
	o->g.log_dir = "gpurent-logs";
	o->g.action.timeout_s = 30;
	o->g.action.retries = 3;
	o->g.slurm.requeues = 20;
	o->lead_s = 120;
	snprintf(o->g.currency, sizeof(o->g.currency), "USD");
	if (!(av = calloc((size_t)argc + 1, sizeof(*av))))
		return msg_fail("%s", _("out of memory"));
	memcpy(av, argv, (size_t)argc * sizeof(*av));
	*copy = av;
	if ((rc = opt_parse(&oc, opts, argc, av, &c, &nops)) != OPT_GO)
		return rc;
	o->g.action.dry_run = o->g.dry_run;
	if (nops < 1)
		return run_usage_error(_("expected a command to run after the options: gpurent run [options] -- CMD [ARGS...]"));
	o->g.cmd = av;
	{
		char *budget_cur = c.budget_cur;
	if (o->g.lim.budget > 0 && !(o->g.lim.price_per_hour > 0))
		return run_usage_error(_("--budget: needs --price (what the box costs per hour)"));
	if (budget_cur[0] && strcmp(budget_cur, o->g.currency))
		return run_usage_error(_("--budget is in %s but --price in %s"), budget_cur, o->g.currency);
	if (o->release && !o->preset)
		return run_usage_error(_("--release: needs --preset NAME (the platform)"));
	if (o->release && strcmp(o->preset, "slurm") &&
	    (strlen(o->preset) < 8 || strcmp(o->preset + strlen(o->preset) - 8, "-release"))) {
		/* slurm's scancel already ends the allocation: it is its own release */
		snprintf(o->release_name, sizeof(o->release_name), "%s-release", o->preset);
		if (!provider_preset_find(o->release_name))
			return run_usage_error(_("--release: preset %s has no release variant (docs/release.md "
					       "says what the platform allows)"), o->preset);
		o->preset = o->release_name;
	}
	if (o->preset) {
		const struct provider_preset *p = provider_preset_find(o->preset);
		if (!p) {
			struct names_suggest sg;
			names_suggest_init(&sg, o->preset);
			const struct provider_preset *q;
			for (size_t i = 0; (q = provider_preset_at(i)); i++)
				names_suggest_add(&sg, q->name);
			if (sg.best[0])
				return run_usage_error(_("--preset %s: unknown preset (did you mean '%s'?) "
							 "(gpurent help run lists them)"), o->preset, sg.best);
			return run_usage_error(_("--preset %s: unknown preset (gpurent help run lists them)"),
					       o->preset);
		}
		if (o->g.action.shell)
			return run_usage_error(_("--preset and --on-stop: give one stop command"));
		for (size_t k = 0; p->vars[k]; k++) {
			const char *val = getenv(p->vars[k]);
			if (val && *val)
				continue;
			if (!o->g.dry_run)
				return run_usage_error(_("--preset %s: needs the environment variable %s "
						       "(set on the platform's own machines; see docs/guard.md)"),
						       p->name, p->vars[k]);
			msg_warn(_("--preset %s needs %s, which is not set"), p->name, p->vars[k]);
		}
		o->g.action.shell = p->shell;
		if (!strcmp(p->name, "slurm") && getenv("SLURM_JOB_ID") && *getenv("SLURM_JOB_ID"))
			slurm_setup(o);
	} else if (o->lead_given) {
		return run_usage_error(_("--lead: only with --preset slurm"));
	}
	if ((o->g.token_env || o->token_file) && !o->g.action.url && !o->stop_url_file && !getenv("GPURENT_STOP_URL"))
		return run_usage_error(_("--token-env/--token-file: give --stop-url too"));
	if (o->g.token_env && o->token_file)
		return run_usage_error(_("--token-env and --token-file: give one"));
	if (o->g.action.url && strncmp(o->g.action.url, "http://", 7) && strncmp(o->g.action.url, "https://", 8))
		return run_usage_error(_("--stop-url: expected an http:// or https:// URL"));
	}
	return OPT_GO;
}

/* The guard's part of the options (src/guard/guard.h). */
int cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	char err[1200], *url = NULL, **av = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &o, &av)) != OPT_GO) {
		free(av);
		return rc;
	}
	/* the URL's secrets leave argv before anything forks (action.h) */
	if (action_url_load(&o.g.action, o.stop_url_file, argc, argv, &url, err, sizeof(err))) {
		free(av);
		return run_usage_error("%s", err);
	}
	if ((o.g.token_env || o.token_file) && !o.g.action.url) {
		rc = run_usage_error(_("--token-env/--token-file: give --stop-url too"));
		goto out_free_url;
	}
	if ((o.g.token_env && action_token_from_env(o.g.token_env, &o.g.action.token, err, sizeof(err))) ||
	    (o.token_file && action_token_from_file(o.token_file, &o.g.action.token, err, sizeof(err)))) {
		rc = run_usage_error("%s", err);
		goto out_free_url;
	}
	o.g.action.token_from = o.g.token_env ? o.g.token_env : o.token_file;
	if (o.g.hard_deadline_s > 0)
		o.g.lim.deadline_s = o.g.hard_deadline_s;
	rc = guard_run(&o.g);
	action_token_free(o.g.action.token);
out_free_url:
	action_token_free(url);
	free(av);
	return rc;
}
