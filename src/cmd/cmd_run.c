/*
 * cmd_run.c - `gpurent run [options] -- CMD [ARGS...]`: the guard on the
 * rented box. Runs CMD in its own process group, tees its output with
 * timestamps to the terminal and a log, and fires the stop action exactly
 * once when CMD ends, idles, stalls, runs out of time or budget, or the
 * guard is told to stop; restarts CMD from its newest checkpoint after a
 * crash; records the run in the ledger. The rules: src/core/guard.h;
 * the whole story: docs/guard.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../core/guard.h"
#include "../core/hot.h"
#include "../core/names.h"
#include "../core/units.h"
#include "../hw/nvml.h"
#include "../store/ledger.h"
#include "../os/ckpt_dir.h"
#include "cmd.h"
#include "../cli/common.h"
#include "../guard/action.h"
#include "../os/child.h"

extern char **environ;

static const char usage[] =
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
	"                       slurm, vastai (docs/guard.md: what each needs)\n"
	"  --dry-run            run CMD, but only say what the stop action would do\n"
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
	"On a terminal one status line shows elapsed time, cost, GPU use and state.\n"
	"Examples:\n"
	"  gpurent run --idle 20m --preset runpod --ckpt-dir /workspace/ckpt --restarts 3 -- python train.py\n"
	"  gpurent run --price 2.1 --budget 50 --on-stop 'shutdown -h now' -- ./train.sh\n";

struct run_opts {
	struct guard_limits lim;
	double grace_s, poll_s, backoff_s, hard_deadline_s;
	long restarts;
	bool keep_on_exit, dry_run, no_ledger;
	const char *log_dir, *ckpt_dir, *progress_file, *ledger_path, *billing, *tags;
	const char *preset, *token_env, *token_file, *stop_url_file;
	char currency[8];
	struct action_cfg action;
	char **cmd;                  /* argv of CMD, borrowed from main's argv */
};

/* One captured output stream of CMD. */
#define STREAM_LINE 8192
struct stream {
	int fd;                      /* read end; -1 once closed */
	int term_fd;                 /* 1 or 2 */
	const char *tag;             /* "out" or "err" in the log */
	bool cr;                     /* a '\r' came: the line restarts unless '\n' follows */
	size_t len;
	char *line;                  /* STREAM_LINE bytes, in struct guard's cold part */
};

/*
 * The guard's state, on the heap. The fields a poll tick reads come first
 * and fit in one page; the big buffers only output and records use come
 * last, so that a tick touches as few pages as it can (src/core/hot.h).
 */
struct guard {
	/* read or written on every tick */
	struct run_opts *o;
	struct child child;
	struct stream out, err;
	bool running;                /* the current attempt's leader has not been reaped */
	bool tty, status_shown, log_failed;
	bool gpu_mode;               /* idle judged from NVML (else CPU) */
	enum guard_reason reason;    /* why the guard stops; NONE while it goes on */
	double kill_at;              /* when to SIGKILL the group; 0: not pending */
	double killed_at;            /* when the group got SIGKILL; 0: not yet */
	double t0;                   /* monotonic start */
	double next_ledger;
	struct guard_state gs;
	pid_t self;                  /* getpid(), read once */
	pid_t watchdog;              /* the hard-deadline watchdog */
	struct nvml *nvml;
	size_t ngpu;
	int util_gpu;                /* busiest used GPU, -1 unknown */
	double mem_used, mem_total;  /* bytes, summed over used GPUs */
	double cpu_prev, cpu_prev_t, cpu_pct;
	double reaped_cpu;           /* CPU seconds of CMD's processes the guard reaped */
	struct proc_tree ptree;      /* CMD's processes, for the CPU fallback */
	struct timespec progress_mtime;
	unsigned gpus[64];
	/* the rest: at start, on output, on events, at the end */
	bool have_status;
	int status;                  /* CMD's last wait status */
	int exec_errno;
	int stop_signal;             /* the signal that stopped it (GUARD_SIGNAL) */
	double wall0;                /* unix start */
	int attempt, restarts;
	int log_fd;
	int wd_fd;
	int64_t ledger_id;
	pid_t ledger_pid;            /* a heartbeat still writing, 0 when none */
	int ledger_fd;               /* its reply pipe */
	char *command_line;
	char log_path[PATH_MAX];
	char gpu_type[96];
	char host[256];
	char problems[600];
	char line_buf[2][STREAM_LINE];
};

static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (write(sig_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a signal is already pending */
	}
	errno = saved;
}

/*
 * poll()'s timeout for s seconds: whole milliseconds, rounded up, at most
 * a day (the caller loops; an int of milliseconds overflows at 24.8 days).
 * Not libm's ceil: one page less per tick.
 */
GPURENT_HOT static int poll_ms(double s)
{
	int ms;

	if (!(s > 0))
		return 0;
	if (s > 86400)
		return 86400 * 1000;
	ms = (int)(s * 1000);
	return ms < s * 1000 ? ms + 1 : ms;
}

GPURENT_HOT static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("gpurent run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

/* ---- output: the terminal, the log, the status line ---- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void status_clear(struct guard *g)
{
	if (g->status_shown) {
		write_all(2, "\r\033[K", 4);
		g->status_shown = false;
	}
}

/* "2026-11-29T16:31:04.123Z" for the log, "16:31:04" for the terminal. */
static void stamps(char *log, size_t ln, char *term, size_t tn)
{
	struct timespec ts;
	struct tm utc, loc;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &utc);
	localtime_r(&ts.tv_sec, &loc);
	snprintf(log, ln, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
		 utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, (int)(ts.tv_nsec / 1000000) % 1000);
	snprintf(term, tn, "%02d:%02d:%02d", loc.tm_hour, loc.tm_min, loc.tm_sec);
}

static void log_write(struct guard *g, const char *p, size_t n)
{
	ssize_t w;

	if (g->log_fd < 0 || g->log_failed)
		return;
	do
		w = write(g->log_fd, p, n);
	while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w != n) {
		g->log_failed = true;
		status_clear(g);
		fprintf(stderr, "gpurent: %s: cannot write the log (%s); going on without it\n",
			g->log_path, w < 0 ? strerror(errno) : "short write");
	}
}

/* A message of the guard's own: stderr and the log. */
static void say(struct guard *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct guard *g, const char *fmt, ...)
{
	char msg[1200], line[1400], ls[64], ts[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	status_clear(g);
	fprintf(stderr, "gpurent: %s\n", msg);
	stamps(ls, sizeof(ls), ts, sizeof(ts));
	n = snprintf(line, sizeof(line), "%s gpurent | %s\n", ls, msg);
	log_write(g, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void say_cb(void *ctx, const char *line)
{
	say(ctx, "%s", line);
}

/* Emit the pending line of s to the terminal and the log. */
static void stream_emit(struct guard *g, struct stream *s)
{
	char ls[64], ts[64], head[160];
	int hn;

	stamps(ls, sizeof(ls), ts, sizeof(ts));
	status_clear(g);
	hn = snprintf(head, sizeof(head), "%s ", ts);
	write_all(s->term_fd, head, (size_t)hn);
	write_all(s->term_fd, s->line, s->len);
	write_all(s->term_fd, "\n", 1);
	hn = snprintf(head, sizeof(head), "%s %s | ", ls, s->tag);
	if (g->log_fd >= 0 && !g->log_failed) {
		char buf[STREAM_LINE + 80];
		memcpy(buf, head, (size_t)hn);
		memcpy(buf + hn, s->line, s->len);
		buf[(size_t)hn + s->len] = '\n';
		log_write(g, buf, (size_t)hn + s->len + 1);
	}
	s->len = 0;
}

static void stream_feed(struct guard *g, struct stream *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (s->cr) {
			s->cr = false;
			if (ch != '\n')
				s->len = 0;   /* a progress bar redrew the line: keep the last state */
		}
		if (ch == '\n') {
			stream_emit(g, s);
		} else if (ch == '\r') {
			s->cr = true;
		} else {
			if (s->len == STREAM_LINE)
				stream_emit(g, s);
			s->line[s->len++] = ch;
		}
	}
}

/* Read what is there; returns true when something came. Closes at EOF. */
static bool stream_read(struct guard *g, struct stream *s)
{
	char buf[4096];
	bool got = false;

	while (s->fd >= 0) {
		ssize_t r = read(s->fd, buf, sizeof(buf));
		if (r > 0) {
			stream_feed(g, s, buf, (size_t)r);
			got = true;
			if ((size_t)r < sizeof(buf))
				break;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (s->len)
			stream_emit(g, s);
		close(s->fd);
		s->fd = -1;
	}
	return got;
}

static void fmt_clock(double s, char *buf, size_t n)
{
	long t = (long)s;

	snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

GPURENT_HOT static void status_draw(struct guard *g, double now, const char *state)
{
	char line[256], el[32], cost[48] = "", use[64] = "";
	double elapsed = now - g->t0;

	if (!g->tty)
		return;
	fmt_clock(elapsed, el, sizeof(el));
	if (g->o->lim.price_per_hour > 0)
		snprintf(cost, sizeof(cost), " | %.2f %s", guard_cost(&g->o->lim, elapsed), g->o->currency);
	if (g->gpu_mode && g->util_gpu >= 0)
		snprintf(use, sizeof(use), " | GPU %d%% %.1f/%.1f GB", g->util_gpu, g->mem_used / 1e9,
			 g->mem_total / 1e9);
	else if (g->cpu_pct >= 0 && !g->gpu_mode && g->o->lim.idle_s > 0)
		snprintf(use, sizeof(use), " | CPU %.0f%%", g->cpu_pct);
	snprintf(line, sizeof(line), "\r\033[Kgpurent %s%s%s | %s", el, cost, use, state);
	write_all(2, line, strlen(line));
	g->status_shown = true;
}

/* ---- option parsing ---- */

/* A duration: units.h's, plus "ms". */
static int parse_dur(const char *name, const char *v, double *out)
{
	char err[160], num[64];
	size_t n = strlen(v);

	if (n > 2 && n < sizeof(num) && !strcmp(v + n - 2, "ms")) {
		snprintf(num, sizeof(num), "%.*s", (int)(n - 2), v);
		if (!units_parse_duration(num, out, err, sizeof(err)) && !strpbrk(num, "smhdw")) {
			*out /= 1000;
			return 0;
		}
	} else if (!units_parse_duration(v, out, err, sizeof(err))) {
		return 0;
	}
	return run_usage_error("%s: expected a duration such as 500ms, 90s, 30m or 6h, got '%s'", name, v);
}

static const char *const run_valued[] = {
	"--backoff", "--billing", "--budget", "--ckpt-dir", "--grace", "--hard-deadline", "--idle",
	"--idle-util", "--ledger", "--log-dir", "--max-runtime", "--on-stop", "--poll", "--preset",
	"--price", "--progress-file", "--restarts", "--stall", "--stop-retries", "--stop-timeout",
	"--stop-url", "--stop-url-file", "--tag", "--token-env", "--token-file",
};
static const char *const run_flags[] = {"--dry-run", "--keep-on-exit", "--no-ledger"};

static int unknown_option(const char *key)
{
	struct names_suggest sg;

	names_suggest_init(&sg, key);
	for (size_t k = 0; k < sizeof(run_valued) / sizeof(run_valued[0]); k++)
		names_suggest_add(&sg, run_valued[k]);
	for (size_t k = 0; k < sizeof(run_flags) / sizeof(run_flags[0]); k++)
		names_suggest_add(&sg, run_flags[k]);
	if (sg.best[0])
		return run_usage_error("%s: unknown option (did you mean '%s'?)", key, sg.best);
	return run_usage_error("%s: unknown option (see 'gpurent help run')", key);
}

static int set_option(struct run_opts *o, const char *name, const char *v, char budget_cur[8])
{
	char err[200];
	long n;

	if (!strcmp(name, "--idle"))
		return parse_dur(name, v, &o->lim.idle_s);
	if (!strcmp(name, "--stall"))
		return parse_dur(name, v, &o->lim.stall_s);
	if (!strcmp(name, "--max-runtime"))
		return parse_dur(name, v, &o->lim.max_runtime_s);
	if (!strcmp(name, "--grace"))
		return parse_dur(name, v, &o->grace_s);
	if (!strcmp(name, "--poll")) {
		if (parse_dur(name, v, &o->poll_s))
			return EXIT_USAGE;
		if (o->poll_s < 0.01 || o->poll_s > 3600)
			return run_usage_error("--poll: expected 10ms to 1h, got '%s'", v);
		return 0;
	}
	if (!strcmp(name, "--backoff"))
		return parse_dur(name, v, &o->backoff_s);
	if (!strcmp(name, "--stop-timeout")) {
		if (parse_dur(name, v, &o->action.timeout_s))
			return EXIT_USAGE;
		return o->action.timeout_s > 0 ? 0 : run_usage_error("--stop-timeout: must be positive");
	}
	if (!strcmp(name, "--hard-deadline")) {
		if (parse_dur(name, v, &o->hard_deadline_s))
			return EXIT_USAGE;
		return o->hard_deadline_s > 0 ? 0 : run_usage_error("--hard-deadline: must be positive");
	}
	if (!strcmp(name, "--idle-util")) {
		double pct;
		char *end;
		if (strchr(v, '%')) {
			if (units_parse_fraction(v, &pct, err, sizeof(err)))
				return run_usage_error("--idle-util: %s", err);
			pct *= 100;
		} else {
			pct = strtod(v, &end);
			if (end == v || *end || !(pct >= 0 && pct <= 100))
				return run_usage_error("--idle-util: expected a percentage 0-100 such as 5 or 5%%, got '%s'", v);
		}
		o->lim.idle_util = pct;
		return 0;
	}
	if (!strcmp(name, "--price") || !strcmp(name, "--budget")) {
		double x;
		char code[8];
		if (units_parse_money(v, &x, code, err, sizeof(err)))
			return run_usage_error("%s: %s", name, err);
		if (!strcmp(name, "--price")) {
			o->lim.price_per_hour = x;
			snprintf(o->currency, sizeof(o->currency), "%s", code);
		} else {
			if (!(x > 0))
				return run_usage_error("--budget: expected an amount above 0, got '%s'", v);
			o->lim.budget = x;
			snprintf(budget_cur, 8, "%s", code);
		}
		return 0;
	}
	if (!strcmp(name, "--restarts") || !strcmp(name, "--stop-retries")) {
		if (units_parse_int(v, 0, 1000, &n, err, sizeof(err)))
			return run_usage_error("%s: %s", name, err);
		if (!strcmp(name, "--restarts"))
			o->restarts = n;
		else
			o->action.retries = (int)n;
		return 0;
	}
	if (!*v)
		return run_usage_error("%s: expected a value", name);
	if (!strcmp(name, "--on-stop"))
		o->action.shell = v;
	else if (!strcmp(name, "--stop-url"))
		o->action.url = v;
	else if (!strcmp(name, "--stop-url-file"))
		o->stop_url_file = v;
	else if (!strcmp(name, "--token-env"))
		o->token_env = v;
	else if (!strcmp(name, "--token-file"))
		o->token_file = v;
	else if (!strcmp(name, "--preset"))
		o->preset = v;
	else if (!strcmp(name, "--log-dir"))
		o->log_dir = v;
	else if (!strcmp(name, "--ckpt-dir"))
		o->ckpt_dir = v;
	else if (!strcmp(name, "--progress-file"))
		o->progress_file = v;
	else if (!strcmp(name, "--ledger"))
		o->ledger_path = v;
	else if (!strcmp(name, "--billing"))
		o->billing = v;
	else if (!strcmp(name, "--tag"))
		o->tags = v;
	return 0;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct run_opts *o)
{
	char budget_cur[8] = "";
	int i;

	o->lim.idle_util = 5;
	o->grace_s = 30;
	o->poll_s = 1;
	o->backoff_s = 10;
	o->log_dir = "gpurent-logs";
	o->action.timeout_s = 30;
	o->action.retries = 3;
	snprintf(o->currency, sizeof(o->currency), "USD");
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *v, *name = NULL;
		size_t len;
		int rc;

		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		if (arg[0] != '-')
			break;   /* CMD starts here */
		if (common_is_help(arg)) {
			fputs(usage, stdout);
			return common_finish(EXIT_OK);
		}
		if (!strcmp(arg, "--dry-run")) {
			o->dry_run = o->action.dry_run = true;
			continue;
		}
		if (!strcmp(arg, "--keep-on-exit")) {
			o->keep_on_exit = true;
			continue;
		}
		if (!strcmp(arg, "--no-ledger")) {
			o->no_ledger = true;
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (size_t k = 0; k < sizeof(run_valued) / sizeof(run_valued[0]); k++)
			if (strlen(run_valued[k]) == len && !strncmp(arg, run_valued[k], len))
				name = run_valued[k];
		if (!name) {
			char key[64];
			snprintf(key, sizeof(key), "%.*s", (int)len, arg);
			return unknown_option(key);
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else
			return run_usage_error("%s: expected a value", name);
		if ((rc = set_option(o, name, v, budget_cur)))
			return rc;
	}
	if (i >= argc)
		return run_usage_error("expected a command to run after the options: gpurent run [options] -- CMD [ARGS...]");
	o->cmd = argv + i;
	if (o->lim.budget > 0 && !(o->lim.price_per_hour > 0))
		return run_usage_error("--budget: needs --price (what the box costs per hour)");
	if (budget_cur[0] && strcmp(budget_cur, o->currency))
		return run_usage_error("--budget is in %s but --price in %s", budget_cur, o->currency);
	if (o->preset) {
		const struct action_preset *p = action_preset_find(o->preset);
		if (!p) {
			struct names_suggest sg;
			names_suggest_init(&sg, o->preset);
			for (const struct action_preset *q = action_presets; q->name; q++)
				names_suggest_add(&sg, q->name);
			return run_usage_error("--preset %s: unknown preset%s%s%s (autodl, runpod, shutdown, slurm, vastai)",
					       o->preset, sg.best[0] ? " (did you mean '" : "",
					       sg.best, sg.best[0] ? "'?)" : "");
		}
		if (o->action.shell)
			return run_usage_error("--preset and --on-stop: give one stop command");
		for (size_t k = 0; p->vars[k]; k++) {
			const char *val = getenv(p->vars[k]);
			if (val && *val)
				continue;
			if (!o->dry_run)
				return run_usage_error("--preset %s: needs the environment variable %s "
						       "(set on the platform's own machines; see docs/guard.md)",
						       p->name, p->vars[k]);
			fprintf(stderr, "gpurent run: warning: --preset %s needs %s, which is not set\n",
				p->name, p->vars[k]);
		}
		o->action.shell = p->shell;
	}
	if ((o->token_env || o->token_file) && !o->action.url && !o->stop_url_file && !getenv("GPURENT_STOP_URL"))
		return run_usage_error("--token-env/--token-file: give --stop-url too");
	if (o->token_env && o->token_file)
		return run_usage_error("--token-env and --token-file: give one");
	if (o->action.url && strncmp(o->action.url, "http://", 7) && strncmp(o->action.url, "https://", 8))
		return run_usage_error("--stop-url: expected an http:// or https:// URL");
	return -1;
}

/* ---- setup ---- */

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int open_log(struct guard *g)
{
	struct tm tm;
	time_t t = time(NULL);
	char cwd[PATH_MAX / 2];
	const char *dir_prefix = "";

	localtime_r(&t, &tm);
	if (mkdir_p(g->o->log_dir) < 0) {
		snprintf(g->problems, sizeof(g->problems), "no log: --log-dir %.200s: %s", g->o->log_dir,
			 strerror(errno));
		return -1;
	}
	if (g->o->log_dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		dir_prefix = cwd;
	snprintf(g->log_path, sizeof(g->log_path), "%s%s%s/run-%04d%02d%02d-%02d%02d%02d-%ld.log",
		 dir_prefix, dir_prefix[0] ? "/" : "", g->o->log_dir, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (long)getpid());
	g->log_fd = open(g->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (g->log_fd < 0) {
		snprintf(g->problems, sizeof(g->problems), "no log: %.300s: %s", g->log_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The GPUs the job uses: CUDA_VISIBLE_DEVICES (indices or UUIDs), else all. */
static void choose_gpus(struct guard *g)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	unsigned count = nvml_device_count(g->nvml);
	char buf[1024], *tok, *save = NULL;

	g->ngpu = 0;
	if (!cvd) {
		for (unsigned i = 0; i < count && g->ngpu < 64; i++)
			g->gpus[g->ngpu++] = i;
		return;
	}
	snprintf(buf, sizeof(buf), "%s", cvd);
	for (tok = strtok_r(buf, ",", &save); tok && g->ngpu < 64; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long idx;
		while (*tok == ' ')
			tok++;
		if (!strncmp(tok, "GPU-", 4)) {
			for (unsigned i = 0; i < count; i++) {
				struct nvml_device_info info;
				char e[128];
				if (!nvml_device_info(g->nvml, i, &info, e, sizeof(e)) &&
				    !strncmp(info.uuid, tok, strlen(tok)))
					g->gpus[g->ngpu++] = i;
			}
			continue;
		}
		if (!strncmp(tok, "MIG-", 4)) {   /* a MIG slice: judge by its parent cards, all of them */
			g->ngpu = 0;
			for (unsigned i = 0; i < count && g->ngpu < 64; i++)
				g->gpus[g->ngpu++] = i;
			return;
		}
		idx = strtol(tok, &end, 10);
		if (end == tok || idx < 0)
			break;   /* CUDA stops at the first invalid entry */
		if ((unsigned long)idx < count)
			g->gpus[g->ngpu++] = (unsigned)idx;
	}
}

/* Sample the GPUs the job uses. */
GPURENT_HOT static void sample_gpus(struct guard *g)
{
	g->util_gpu = -1;
	g->mem_used = g->mem_total = 0;
	for (size_t i = 0; i < g->ngpu; i++) {
		struct nvml_sample s;
		if (nvml_device_sample(g->nvml, g->gpus[i], &s))
			continue;
		if (s.util_gpu > g->util_gpu)
			g->util_gpu = s.util_gpu;
		g->mem_used += (double)s.mem_used;
		g->mem_total += (double)s.mem_total;
	}
}

static void setup_nvml(struct guard *g)
{
	char err[256];

	if (nvml_open(&g->nvml, err, sizeof(err))) {
		if (g->o->lim.idle_s > 0)
			say(g, "%s; idle is judged from the CPU use of CMD's processes instead "
			    "(below %g%% of one core)", err, g->o->lim.idle_util);
		return;
	}
	choose_gpus(g);
	sample_gpus(g);
	if (g->ngpu) {
		struct nvml_device_info info;
		if (!nvml_device_info(g->nvml, g->gpus[0], &info, err, sizeof(err)))
			snprintf(g->gpu_type, sizeof(g->gpu_type), "%s", info.name);
	}
	g->gpu_mode = g->ngpu > 0 && g->util_gpu >= 0;
	if (!g->gpu_mode && g->o->lim.idle_s > 0)
		say(g, "%s; idle is judged from the CPU use of CMD's processes instead (below %g%% of one core)",
		    g->ngpu ? "NVML gives no utilization for these GPUs (MIG?)" : "no GPU is visible to the job",
		    g->o->lim.idle_util);
	if (!g->gpu_mode) {
		nvml_close(g->nvml);
		g->nvml = NULL;
	}
}

/* "a b 'c d'" for the ledger and messages. */
static char *join_command(char **argv)
{
	size_t n = 1;
	char *s, *p;

	for (char **a = argv; *a; a++)
		n += 4 * strlen(*a) + 3;
	if (!(s = p = malloc(n)))
		return NULL;
	for (char **a = argv; *a; a++) {
		bool plain = **a && !(*a)[strcspn(*a, " \t\n'\"\\$`!*?[](){}<>|&;#~")];
		if (a != argv)
			*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", *a);
			continue;
		}
		*p++ = '\'';
		for (const char *c = *a; *c; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	return s;
}

/* ---- the ledger: opened for each write, so that the guard stays small ---- */

static void ledger_fill(struct guard *g, struct ledger_run *r, double now)
{
	double elapsed = now - g->t0;

	ledger_run_init(r);
	r->start = g->wall0;
	r->command = g->command_line;
	r->host = g->host;
	r->gpu_type = g->gpu_type[0] ? g->gpu_type : NULL;
	r->gpu_count = g->nvml || g->ngpu ? (int)g->ngpu : -1;
	if (g->o->lim.price_per_hour > 0) {
		r->price_per_hour = g->o->lim.price_per_hour;
		r->currency = g->o->currency;
		r->cost = guard_cost(&g->o->lim, elapsed);
	}
	r->billing_mode = g->o->billing;
	r->restarts = g->restarts;
	r->idle_seconds = g->gs.idle_total_s;
	r->log_path = g->log_path;
	r->tags = g->o->tags;
}

/* What the ledger child reports back. */
struct ledger_reply {
	int rc;              /* 0, or the ledger's error (message in err) */
	int opened;          /* the ledger could be opened */
	int64_t id;
	char err[512];
};

/* In the child: one ledger write, whose outcome goes into *out. */
static void ledger_write(struct guard *g, int phase, struct ledger_reply *out)
{
	struct ledger *l;
	struct ledger_run r;

	if (ledger_open(g->o->ledger_path, &l, out->err, sizeof(out->err))) {
		out->rc = -1;
		return;
	}
	out->opened = 1;
	ledger_fill(g, &r, mono());
	out->id = g->ledger_id;
	if (phase == 0) {
		out->rc = ledger_begin_run(l, &r, &out->id, out->err, sizeof(out->err));
	} else if (phase == 1) {
		out->rc = ledger_update_run(l, g->ledger_id, &r, out->err, sizeof(out->err));
	} else {
		/* the start's wall clock plus monotonic time since: a clock step
		 * (NTP on a fresh box) cannot put the end before the start */
		r.end = g->wall0 + (mono() - g->t0);
		r.exit_status = g->have_status ? child_exit_code(g->status) : -1;
		r.stop_reason = guard_reason_name(g->reason);
		r.problems = g->problems[0] ? g->problems : NULL;
		r.notes = g->o->dry_run ? "dry run: the stop action was not carried out" : NULL;
		out->rc = ledger_finish_run(l, g->ledger_id, &r, out->err, sizeof(out->err));
	}
	ledger_close(l);
}

/* How long the guard waits for a heartbeat's write before it goes on. */
#define LEDGER_WAIT_S 2.0

/* What a ledger write came to. */
static void ledger_report(struct guard *g, int phase, struct ledger_reply *rep)
{
	rep->err[sizeof(rep->err) - 1] = '\0';
	if (rep->rc && !rep->opened) {
		if (phase != 1)
			say(g, "ledger: %s; this run is not recorded", rep->err);
		if (phase == 0)
			g->ledger_id = -1;
	} else if (rep->rc) {
		say(g, "ledger: %s", rep->err);
		if (phase == 0)
			g->ledger_id = -1;
	} else if (phase == 0) {
		g->ledger_id = rep->id;
	}
}

/* A heartbeat that outlived LEDGER_WAIT_S has ended (reaped): its reply, if any; then forget it. */
static void ledger_heartbeat_done(struct guard *g)
{
	struct ledger_reply rep = {.rc = -1};

	if (read(g->ledger_fd, &rep, sizeof(rep)) == (ssize_t)sizeof(rep))
		ledger_report(g, 1, &rep);
	close(g->ledger_fd);
	g->ledger_fd = -1;
	g->ledger_pid = 0;
}

/*
 * Record the run: phase 0 at the start (gets the id), 1 while it runs, 2 at
 * the end. SQLite does its work in a short-lived child process, so that
 * the guard, which lives as long as the job, never carries SQLite's pages
 * and caches (bench/guard.sh: peak RSS). A connection is never shared
 * across fork: the child opens its own.
 */
static void ledger_record(struct guard *g, int phase)
{
	struct ledger_reply rep = {.rc = -1};
	int p[2], st;
	pid_t pid;
	size_t got = 0;

	if (g->o->no_ledger || (phase && g->ledger_id < 0))
		return;
	if (g->ledger_pid > 0) {
		if (phase == 1)
			return;   /* the last heartbeat is still waiting for the lock */
		/* the end's record supersedes it; SQLite rolls the killed write back */
		kill(g->ledger_pid, SIGKILL);
		child_wait(g->ledger_pid, &st, 0);
		ledger_heartbeat_done(g);
	}
	if (pipe(p) < 0)
		goto out_inline;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		goto out_inline;
	}
	if (pid == 0) {
		/* a Ctrl-C for the guard's group must not reach the guard's pipe twice */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGUSR1, SIG_IGN);
		signal(SIGUSR2, SIG_IGN);
		signal(SIGCHLD, SIG_DFL);
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		close(p[0]);
		ledger_write(g, phase, &rep);
		write_all(p[1], (const char *)&rep, sizeof(rep));
		_exit(0);
	}
	close(p[1]);
	if (phase == 1) {
		/*
		 * A heartbeat must not stall the guard (signals, output, the
		 * watchdog's deadline) while another process holds the ledger
		 * locked: wait LEDGER_WAIT_S at most, then let it finish on its
		 * own; reap() collects it. (Till then the CPU fallback may count it with
		 * CMD's processes: a writer waiting on a lock uses next to nothing, and
		 * more CPU can only make CMD look busier, never idle.)
		 */
		struct pollfd pf = {p[0], POLLIN, 0};
		double until = mono() + LEDGER_WAIT_S;
		int pr;

		while ((pr = poll(&pf, 1, poll_ms(until - mono()))) < 0 && errno == EINTR)
			;
		if (pr == 0) {
			g->ledger_pid = pid;
			g->ledger_fd = p[0];
			return;
		}
	}
	while (got < sizeof(rep)) {
		ssize_t r = read(p[0], (char *)&rep + got, sizeof(rep) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(p[0]);
	child_wait(pid, &st, 0);
	if (got != sizeof(rep)) {
		rep.rc = -1;
		rep.opened = 1;
		snprintf(rep.err, sizeof(rep.err), "the ledger writer died (status %d)", child_exit_code(st));
	}
	goto out_report;
out_inline:
	ledger_write(g, phase, &rep);
out_report:
	ledger_report(g, phase, &rep);
}

/* ---- the hard-deadline watchdog ---- */

/* When the watchdog acts: after the guard's own deadline, its grace, and a
 * slack of 5% (1 s to 60 s) for the guard to finish (docs/guard.md). */
static double watchdog_after(const struct run_opts *o)
{
	return o->hard_deadline_s + o->grace_s + fmin(60, fmax(1, 0.05 * o->hard_deadline_s));
}

/*
 * In the watchdog: read what the guard said. Each attempt's process group
 * (told before CMD can exec: child_opts.on_fork), 0 to cancel; EOF when
 * the guard is gone. Non-blocking: drains what is there.
 */
static void watchdog_read(int fd, pid_t *pgid, bool *guard_gone)
{
	int32_t msg;
	ssize_t r;

	for (;;) {
		r = read(fd, &msg, sizeof(msg));
		if (r == (ssize_t)sizeof(msg) && msg > 0)
			*pgid = msg;
		else if (r == (ssize_t)sizeof(msg))
			_exit(0);   /* cancelled: the guard ended cleanly */
		else if (r < 0 && errno == EINTR)
			continue;
		else if (r < 0 && errno == EAGAIN)
			return;
		else {
			*guard_gone = true;   /* EOF (or a broken pipe): the guard is gone */
			return;
		}
	}
}

/*
 * SIGTERM to CMD's group, SIGKILL after --grace. A group whose leader is
 * gone still takes the signal while any member is left; one SIGKILL is
 * enough even for a member that forks meanwhile (the kernel restarts a
 * fork that races with a group signal).
 */
static void watchdog_kill_group(struct guard *g, pid_t pgid)
{
	if (pgid <= 0 || !child_group_alive(pgid))
		return;
	kill(-pgid, SIGTERM);
	for (double until = mono() + g->o->grace_s; mono() < until && child_group_alive(pgid);)
		usleep(20000);
	kill(-pgid, SIGKILL);
}

/*
 * In the watchdog, a fork of the guard in its own session: wait for the
 * deadline unless the guard cancels. The guard is gone when the pipe
 * reads EOF or, should a descendant still hold the pipe's other end, when
 * the watchdog's parent is no longer the guard (it was reparented).
 */
static void watchdog_main(struct guard *g, int fd, pid_t guard_pid)
{
	double deadline = g->t0 + watchdog_after(g->o);
	bool guard_gone = false;
	pid_t pgid = -1;
	struct action_event ev = {0};
	char err[1024];

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		double left = deadline - mono();
		struct pollfd p = {fd, POLLIN, 0};

		if (!guard_gone)
			watchdog_read(fd, &pgid, &guard_gone);
		if (!guard_gone && getppid() != guard_pid) {
			watchdog_read(fd, &pgid, &guard_gone);   /* what it said before it died */
			guard_gone = true;
		}
		if (left <= 0)
			break;
		/* wake at least twice a second for the getppid() look */
		if (guard_gone)
			p.fd = -1;
		poll(&p, 1, poll_ms(fmin(left, 0.5)));
	}
	if (!guard_gone && getppid() == guard_pid)
		kill(guard_pid, SIGKILL);   /* the guard hung past its own deadline (and is still ours: no pid reuse) */
	watchdog_kill_group(g, pgid);
	say(g, "hard deadline: the guard %s; the watchdog stops the job and fires the stop action",
	    guard_gone ? "was killed" : "did not stop in time");
	ev.reason = guard_reason_name(GUARD_DEADLINE);
	ev.exit_status = -1;
	ev.elapsed_s = mono() - g->t0;
	ev.cost = g->o->lim.price_per_hour > 0 ? guard_cost(&g->o->lim, ev.elapsed_s) : -1;
	ev.currency = g->o->currency;
	ev.host = g->host;
	ev.log_path = g->log_path;
	ev.ledger_id = g->ledger_id;
	if (action_fire(&g->o->action, &ev, say_cb, g, err, sizeof(err)))
		say(g, "%s", err);
	_exit(0);
}

static void watchdog_arm(struct guard *g)
{
	int p[2];
	pid_t pid, me = getpid();

	if (pipe(p) < 0) {
		say(g, "--hard-deadline: pipe: %s; no watchdog", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		say(g, "--hard-deadline: fork: %s; no watchdog", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		struct sigaction dfl = {0};
		int maxfd = (int)sysconf(_SC_OPEN_MAX), nul = open("/dev/null", O_RDWR);

		setsid();
		dfl.sa_handler = SIG_DFL;
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				sigaction(s, &dfl, NULL);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		for (int fd = 3; fd < (maxfd > 0 && maxfd < 65536 ? maxfd : 1024); fd++)
			if (fd != p[0] && fd != g->log_fd)
				close(fd);
		g->tty = false;
		watchdog_main(g, p[0], me);
	}
	close(p[0]);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	g->watchdog = pid;
	g->wd_fd = p[1];
	say(g, "hard deadline in %.0f s: watchdog %ld armed (it stops the job and fires the stop action "
	    "at %.0f s if the guard has not)", g->o->hard_deadline_s, (long)pid, watchdog_after(g->o));
}

static void watchdog_tell(struct guard *g, int32_t msg)
{
	if (g->wd_fd >= 0 && write(g->wd_fd, &msg, sizeof(msg)) < 0) {
		/* the watchdog is gone; the guard goes on */
	}
}

/* child_opts.on_fork: the watchdog learns the group before CMD can run. */
static void watchdog_on_fork(pid_t pid, void *ctx)
{
	watchdog_tell(ctx, (int32_t)pid);
}

static void watchdog_cancel(struct guard *g)
{
	int st;

	if (g->watchdog <= 0)
		return;
	watchdog_tell(g, 0);
	kill(g->watchdog, SIGKILL);
	child_wait(g->watchdog, &st, 0);
	g->watchdog = -1;
	close(g->wd_fd);
	g->wd_fd = -1;
}

/* ---- the processes ---- */

/* Reap every child that ended: CMD's leader, orphans handed to the guard. */
static void reap(struct guard *g)
{
	struct rusage ru;
	int st;
	pid_t pid;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0 || (pid < 0 && errno == EINTR)) {
		if (pid < 0)
			continue;
		if (pid == g->ledger_pid && g->ledger_pid > 0) {
			ledger_heartbeat_done(g);
			continue;
		}
		if (pid != g->watchdog)   /* CMD's leader or an orphan of its tree */
			g->reaped_cpu += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
					 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (pid == g->child.pid && g->running) {
			g->running = false;
			g->have_status = true;
			g->status = st;
		} else if (pid == g->watchdog) {
			g->watchdog = -1;
			say(g, "the hard-deadline watchdog ended unexpectedly (status %d)", child_exit_code(st));
		}
	}
}

/* Ask the group to stop with sig; SIGKILL follows after --grace. */
static void stop_group(struct guard *g, int sig, double now)
{
	if (g->child.pid > 0 && child_group_alive(g->child.pid)) {
		kill(-g->child.pid, sig);
		if (!g->kill_at)
			g->kill_at = now + g->o->grace_s;
	}
}

static void begin_stop(struct guard *g, enum guard_reason r, double now)
{
	char msg[200];

	if (g->reason)
		return;
	g->reason = r;
	switch (r) {
	case GUARD_IDLE:
		snprintf(msg, sizeof(msg), "idle: %s below %g%% for %.0f s", g->gpu_mode ? "every GPU" : "CPU use",
			 g->o->lim.idle_util, guard_idle_for(&g->gs, now));
		break;
	case GUARD_STALL:
		snprintf(msg, sizeof(msg), "stalled: no output%s for %.0f s",
			 g->o->progress_file ? " and no progress-file change" : "", now - g->gs.last_activity);
		break;
	case GUARD_MAX_RUNTIME:
		snprintf(msg, sizeof(msg), "max-runtime reached (%.0f s)", g->o->lim.max_runtime_s);
		break;
	case GUARD_DEADLINE:
		snprintf(msg, sizeof(msg), "hard deadline reached (%.0f s)", g->o->hard_deadline_s);
		break;
	case GUARD_BUDGET:
		snprintf(msg, sizeof(msg), "budget reached: %.2f %s of %.2f", guard_cost(&g->o->lim, now - g->t0),
			 g->o->currency, g->o->lim.budget);
		break;
	default:
		snprintf(msg, sizeof(msg), "%s", guard_reason_name(r));
	}
	if (g->running) {
		say(g, "stopping: %s; SIGTERM to CMD, SIGKILL after %.0f s", msg, g->o->grace_s);
		stop_group(g, SIGTERM, now);
	} else {
		say(g, "stopping: %s", msg);
	}
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	default: return "a signal";
	}
}

static void on_guard_signal(struct guard *g, int sig, double now)
{
	const char *name = sig_name(sig);

	if (sig == SIGUSR1 || sig == SIGUSR2) {
		/* Slurm's --signal, submitit: "checkpoint now", for CMD, not a stop */
		if (g->child.pid > 0 && child_group_alive(g->child.pid)) {
			say(g, "got %s: passed to CMD", name);
			kill(-g->child.pid, sig);
		}
		return;
	}
	if (g->reason) {
		/* told again while stopping: do not wait out the grace period */
		if (g->child.pid > 0 && child_group_alive(g->child.pid)) {
			say(g, "%s while stopping: killing CMD now", name);
			kill(-g->child.pid, SIGKILL);
			g->kill_at = 0;
			if (!g->killed_at)
				g->killed_at = now;
		}
		return;
	}
	g->reason = GUARD_SIGNAL;
	g->stop_signal = sig;
	if (g->running) {
		say(g, "got %s: passed to CMD, which has %.0f s to save its state", name, g->o->grace_s);
		stop_group(g, sig, now);
	} else {
		say(g, "got %s: stopping", name);
	}
}

/* Drain the signal pipe: reap children, act on stop signals. */
static void handle_signals(struct guard *g, double now)
{
	unsigned char b[64];
	ssize_t r;

	while ((r = read(sig_pipe[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < r; i++)
			if (b[i] == SIGCHLD)
				reap(g);
			else
				on_guard_signal(g, b[i], now);
}

/* The CPU use of CMD's processes, percent of one core since the last call. */
GPURENT_HOT static void sample_cpu(struct guard *g, double now)
{
	/* a look for CMD's processes at most every 30 s; one pread of each in between */
	double cpu = proc_tree_cpu(&g->ptree, g->self, g->watchdog > 0 ? g->watchdog : -1, now, 30);

	if (cpu < 0) {
		g->cpu_pct = -1;
		return;
	}
	cpu += g->reaped_cpu;   /* those the guard reaped itself (reap()) */
	if (g->cpu_prev_t > 0 && now > g->cpu_prev_t) {
		g->cpu_pct = (cpu - g->cpu_prev) / (now - g->cpu_prev_t) * 100;
		if (!(g->cpu_pct > 0))
			g->cpu_pct = 0;
	} else {
		g->cpu_pct = -1;
	}
	g->cpu_prev = cpu;
	g->cpu_prev_t = now;
}

GPURENT_HOT static void check_progress_file(struct guard *g, double now)
{
	struct stat st;

	if (!g->o->progress_file || stat(g->o->progress_file, &st) < 0)
		return;
	if (st.st_mtim.tv_sec != g->progress_mtime.tv_sec || st.st_mtim.tv_nsec != g->progress_mtime.tv_nsec) {
		if (g->progress_mtime.tv_sec || g->progress_mtime.tv_nsec)
			guard_activity(&g->gs, now);
		g->progress_mtime = st.st_mtim;
	}
}

/* One poll tick: readings, the rules, the status line, the ledger. */
GPURENT_HOT static void tick(struct guard *g, double now, const char *state)
{
	double util = -1;
	enum guard_reason r;

	if (g->gpu_mode) {
		sample_gpus(g);
		util = g->util_gpu;
	} else if (g->o->lim.idle_s > 0 && g->running) {
		sample_cpu(g, now);
		util = g->cpu_pct;
	}
	check_progress_file(g, now);
	r = guard_poll(&g->o->lim, &g->gs, now, now - g->t0, util, g->running);
	if (r && !g->reason)
		begin_stop(g, r, now);
	if (now >= g->next_ledger) {
		g->next_ledger = now + 60;
		ledger_record(g, 1);
	}
	status_draw(g, now, state);
}

/* The environment of attempt n: the guard's, less the token, plus GPURENT_*. */
static char **attempt_env(struct guard *g, const char *resume)
{
	size_t count = 0, n = 0;
	char **env, buf[PATH_MAX + 32];
	const char *tv = g->o->token_env;
	size_t tl = tv ? strlen(tv) : 0;

	for (char **e = environ; *e; e++)
		count++;
	if (!(env = calloc(count + 8, sizeof(*env))))
		return NULL;
	for (char **e = environ; *e; e++) {
		if (!strncmp(*e, "GPURENT_RESUME=", 15) || !strncmp(*e, "GPURENT_ATTEMPT=", 16) ||
		    !strncmp(*e, "GPURENT_LOG=", 12) || !strncmp(*e, "GPURENT_CKPT_DIR=", 17))
			continue;
		if (tv && !strncmp(*e, tv, tl) && (*e)[tl] == '=')
			continue;
		env[n++] = strdup(*e);
	}
	snprintf(buf, sizeof(buf), "GPURENT_ATTEMPT=%d", g->attempt);
	env[n++] = strdup(buf);
	if (g->log_fd >= 0) {
		snprintf(buf, sizeof(buf), "GPURENT_LOG=%s", g->log_path);
		env[n++] = strdup(buf);
	}
	if (resume) {
		snprintf(buf, sizeof(buf), "GPURENT_RESUME=%s", resume);
		env[n++] = strdup(buf);
	}
	if (g->o->ckpt_dir) {
		snprintf(buf, sizeof(buf), "GPURENT_CKPT_DIR=%s", g->o->ckpt_dir);
		env[n++] = strdup(buf);
	}
	if (!getenv("PYTHONUNBUFFERED"))   /* Python buffers a pipe: lines would come late */
		env[n++] = strdup("PYTHONUNBUFFERED=1");
	env[n] = NULL;
	for (size_t i = 0; i < n; i++)
		if (!env[i]) {
			for (size_t k = 0; k < n; k++)
				free(env[k]);
			free(env);
			return NULL;
		}
	return env;
}

static void env_free(char **env)
{
	if (!env)
		return;
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

static int start_attempt(struct guard *g)
{
	char resume[PATH_MAX] = "", err[PATH_MAX + 64];
	struct child_opts co = {0};
	char **env;
	int rc;

	g->attempt++;
	if (g->o->ckpt_dir) {
		rc = ckpt_dir_latest(g->o->ckpt_dir, resume, sizeof(resume), err, sizeof(err));
		if (rc < 0)
			say(g, "--ckpt-dir: %s", err);
		if (rc == 1)
			say(g, "attempt %d resumes from %s", g->attempt, resume);
		else if (rc == 0)
			say(g, "attempt %d: no complete checkpoint in %s yet", g->attempt, g->o->ckpt_dir);
		if (rc != 1)
			resume[0] = '\0';
	}
	if (!(env = attempt_env(g, resume[0] ? resume : NULL))) {
		say(g, "out of memory");
		return -1;
	}
	co.argv = (const char *const *)g->o->cmd;
	co.envp = env;
	co.in_fd = isatty(0) ? -1 : 0;
	co.capture = true;
	co.parent_death_term = true;
	if (g->wd_fd >= 0) {
		co.on_fork = watchdog_on_fork;
		co.on_fork_ctx = g;
	}
	rc = child_spawn(&co, &g->child, &g->exec_errno, err, sizeof(err));
	env_free(env);
	if (rc) {
		say(g, "%s", err);
		g->have_status = true;
		g->status = (g->exec_errno == ENOENT ? 127 : 126) << 8;   /* as a shell reports it */
		return -1;
	}
	g->running = true;
	g->kill_at = g->killed_at = 0;
	g->out = (struct stream){.fd = g->child.out_fd, .term_fd = 1, .tag = "out", .line = g->line_buf[0]};
	g->err = (struct stream){.fd = g->child.err_fd, .term_fd = 2, .tag = "err", .line = g->line_buf[1]};
	guard_start(&g->gs, mono());
	g->cpu_prev_t = 0;
	proc_tree_reset(&g->ptree);   /* a new CMD: look for its processes now */
	return 0;
}

/* After the leader ended: no process of the attempt may outlive it. */
static void sweep(struct guard *g)
{
	pid_t pids[256];

	if (g->child.pid > 0 && child_group_alive(g->child.pid))
		kill(-g->child.pid, SIGKILL);
	proc_tree_reset(&g->ptree);   /* the attempt is over: its descriptors are free for the look */
	/*
	 * Descendants that left the group (setsid) are still the guard's
	 * (subreaper). Kill and reap in rounds until none is left: a round
	 * sees at most 256, and the killed are listed until reaped. Bounded,
	 * for a process stuck in the kernel that SIGKILL cannot end.
	 */
	for (int round = 0; round < 100; round++) {
		size_t n = proc_descendants(g->self, pids, sizeof(pids) / sizeof(pids[0])), left = 0;

		for (size_t i = 0; i < n && i < sizeof(pids) / sizeof(pids[0]); i++)
			if (pids[i] != g->watchdog) {
				kill(pids[i], SIGKILL);
				left++;
			}
		if (!left && n <= sizeof(pids) / sizeof(pids[0]))
			break;
		reap(g);
		if (round)
			poll(NULL, 0, 10);   /* let the kernel finish them */
	}
	reap(g);
}

/*
 * When a limit falls due before the next tick, the loops look then too;
 * 0 when none does, or when stopping already. Due but not fired (rounding
 * kept the rule from firing): look again in a millisecond.
 */
GPURENT_HOT static double next_due(struct guard *g, double now, bool running)
{
	double due = g->reason ? 0 : guard_next_due(&g->o->lim, &g->gs, g->t0, running);

	return due > 0 && due <= now ? now + 0.001 : due;
}

/* How long after SIGKILL the guard waits for CMD's processes before it goes on. */
#define STUCK_S 10.0

/* Run one attempt to its end: the event loop. */
GPURENT_HOT __attribute__((noinline)) static void supervise(struct guard *g)
{
	double next_tick = mono(), due = 0;
	bool leftovers_told = false;

	for (;;) {
		struct pollfd p[3] = {{sig_pipe[0], POLLIN, 0}, {g->out.fd, POLLIN, 0}, {g->err.fd, POLLIN, 0}};
		double now = mono(), wait_s;
		const char *state;
		bool got;

		if (!g->running) {
			if (!child_group_alive(g->child.pid))
				break;
			if (!leftovers_told) {
				/* CMD's leader is gone; what it left in its group gets the same grace */
				kill(-g->child.pid, SIGTERM);
				if (!g->kill_at)
					g->kill_at = now + g->o->grace_s;
				leftovers_told = true;
			}
		}
		if (g->kill_at && now >= g->kill_at) {
			say(g, "grace period over: SIGKILL to CMD's process group");
			kill(-g->child.pid, SIGKILL);
			g->kill_at = 0;
			g->killed_at = now;
		}
		if (g->killed_at && now >= g->killed_at + STUCK_S) {
			/* in uninterruptible sleep (a driver call), or a zombie nobody reaps */
			say(g, "CMD's processes are still there %.0f s after SIGKILL (stuck in the kernel?): "
			    "going on without them", STUCK_S);
			break;
		}
		if (now >= next_tick || (due > 0 && now >= due)) {
			state = g->reason ? "stopping" : g->running ? "running" : "ending";
			tick(g, now, state);
			if (now >= next_tick) {
				next_tick += g->o->poll_s;
				if (next_tick < now)
					next_tick = now + g->o->poll_s;
			}
		}
		due = next_due(g, now, g->running);
		wait_s = (due > 0 && due < next_tick ? due : next_tick) - now;
		if (!g->running && wait_s > 0.01)
			wait_s = 0.01;   /* leftovers: look again soon */
		if (g->kill_at && wait_s > g->kill_at - now)
			wait_s = g->kill_at - now;
		if (g->killed_at && wait_s > g->killed_at + STUCK_S - now)
			wait_s = g->killed_at + STUCK_S - now;
		if (poll(p, 3, poll_ms(wait_s)) < 0 && errno != EINTR)
			break;
		now = mono();
		if (p[0].revents)
			handle_signals(g, now);
		got = p[1].revents && stream_read(g, &g->out);
		if (p[2].revents && stream_read(g, &g->err))
			got = true;
		if (got)
			guard_activity(&g->gs, now);
	}
	sweep(g);
	/* what is still in the pipes: every writer is gone now, so EOF comes */
	for (double until = mono() + 0.5; (g->out.fd >= 0 || g->err.fd >= 0) && mono() < until;) {
		struct pollfd p[2] = {{g->out.fd, POLLIN, 0}, {g->err.fd, POLLIN, 0}};
		if (poll(p, 2, 50) < 0 && errno != EINTR)
			break;
		stream_read(g, &g->out);
		stream_read(g, &g->err);
	}
	if (g->out.fd >= 0)
		close(g->out.fd);
	if (g->err.fd >= 0)
		close(g->err.fd);
	g->out.fd = g->err.fd = -1;
}

/* Wait before restart n, still obeying signals, max-runtime and budget. */
static void back_off(struct guard *g, double delay)
{
	double until = mono() + delay, next_tick = mono(), due = 0;

	while (!g->reason) {
		struct pollfd p = {sig_pipe[0], POLLIN, 0};
		double now = mono(), w;
		char state[64];

		if (now >= until)
			break;
		if (now >= next_tick || (due > 0 && now >= due)) {
			snprintf(state, sizeof(state), "restarting in %.0f s", until - now);
			tick(g, now, state);
			if (now >= next_tick)
				next_tick = now + g->o->poll_s;
		}
		due = next_due(g, now, false);
		w = fmin(fmin(until, next_tick), due > 0 ? due : until) - now;
		if (poll(&p, 1, poll_ms(w)) > 0)
			handle_signals(g, mono());
	}
}

static bool abnormal(int status)
{
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static void describe_end(struct guard *g, char *buf, size_t n)
{
	int st = g->status;

	if (!g->have_status)
		snprintf(buf, n, "CMD did not run");
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "CMD was ended by signal %d (%s), status %d", WTERMSIG(st),
			 strsignal(WTERMSIG(st)), child_exit_code(st));
	else
		snprintf(buf, n, "CMD exited with status %d", child_exit_code(st));
}

/* Make sure 0, 1 and 2 are open (git's sanitize_stdfds): else a pipe the
 * guard creates could land there and be mistaken for CMD's stdin or stdout. */
static void sanitize_stdfds(void)
{
	int fd = open("/dev/null", O_RDWR);

	while (fd >= 0 && fd <= 2)
		fd = dup(fd);
	if (fd > 2)
		close(fd);
}

static int install_signals(void)
{
	struct sigaction sa = {0};
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};

	if (pipe(sig_pipe) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(sig_pipe[i], F_SETFL, fcntl(sig_pipe[i], F_GETFL) | O_NONBLOCK);
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sa.sa_flags = SA_RESTART | (sigs[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct guard *g;
	char msg[256], err[1200], *url = NULL;
	int rc, code;

	if ((rc = parse_args(argc, argv, &o)) >= 0)
		return rc;
	sanitize_stdfds();
	if (action_url_load(&o.action, o.stop_url_file, argc, argv, &url, err, sizeof(err)))
		return run_usage_error("%s", err);
	if ((o.token_env || o.token_file) && !o.action.url) {
		action_token_free(url);
		return run_usage_error("--token-env/--token-file: give --stop-url too");
	}
	if ((o.token_env && action_token_from_env(o.token_env, &o.action.token, err, sizeof(err))) ||
	    (o.token_file && action_token_from_file(o.token_file, &o.action.token, err, sizeof(err)))) {
		action_token_free(url);
		return run_usage_error("%s", err);
	}
	o.action.token_from = o.token_env ? o.token_env : o.token_file;
	if (o.hard_deadline_s > 0)
		o.lim.deadline_s = o.hard_deadline_s;

	if (!(g = calloc(1, sizeof(*g)))) {
		common_error("run: out of memory");
		action_token_free(o.action.token);
		action_token_free(url);
		return EXIT_RUNTIME;
	}
	g->o = &o;
	g->self = getpid();
	g->log_fd = g->wd_fd = g->ledger_fd = -1;
	g->watchdog = -1;
	g->ledger_id = -1;
	g->util_gpu = -1;
	g->cpu_pct = -1;
	g->child.pid = -1;
	g->out.fd = g->err.fd = -1;
	g->tty = isatty(2) && !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
	g->t0 = mono();
	g->wall0 = wall();
	g->gs.idle_total_s = 0;
	if (gethostname(g->host, sizeof(g->host)) < 0)
		snprintf(g->host, sizeof(g->host), "unknown");
	g->host[sizeof(g->host) - 1] = '\0';
	code = EXIT_RUNTIME;
	if (!(g->command_line = join_command(o.cmd))) {
		common_error("run: out of memory");
		goto out_free_token;
	}
	if (open_log(g)) {
		/* the job still runs and the stop action still fires: a box left
		 * idle because a log could not be written is the costlier loss */
		common_error("run: %s; the output goes to the terminal only", g->problems);
		snprintf(g->log_path, sizeof(g->log_path), "(none)");
	}
	if (install_signals()) {
		common_error("run: pipe: %s", strerror(errno));
		goto out_close_log;
	}
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);   /* orphans of CMD come back to the guard */
#endif
	say(g, "guarding: %s (log %s)", g->command_line, g->log_path);
	setup_nvml(g);
	ledger_record(g, 0);
	g->next_ledger = mono() + 60;
	if (o.hard_deadline_s > 0) {
		if (o.dry_run)
			say(g, "dry run: --hard-deadline would arm a watchdog for %.0f s", o.hard_deadline_s);
		else
			watchdog_arm(g);
	}

	for (;;) {
		if (start_attempt(g) == 0)
			supervise(g);
		describe_end(g, msg, sizeof(msg));
		if (!g->reason && g->have_status && abnormal(g->status) && g->restarts < o.restarts &&
		    !g->exec_errno) {
			double d = guard_backoff(o.backoff_s, ++g->restarts);
			say(g, "%s; restart %d of %ld in %.1f s", msg, g->restarts, o.restarts, d);
			back_off(g, d);
			if (!g->reason)
				continue;
		}
		break;
	}
	if (!g->reason)
		g->reason = GUARD_EXIT;
	proc_tree_free(&g->ptree);   /* its descriptors: the stop action may need them */
	watchdog_cancel(g);
	if (g->reason == GUARD_EXIT)
		say(g, "%s after %.1f s", msg, mono() - g->t0);
	else
		say(g, "stopped (%s); %s after %.1f s", guard_reason_name(g->reason), msg, mono() - g->t0);
	if (g->reason == GUARD_EXIT && o.keep_on_exit) {
		say(g, "--keep-on-exit: the stop action is not fired");
	} else if (o.action.shell || o.action.url || o.dry_run) {
		struct action_event ev = {
			.reason = guard_reason_name(g->reason),
			.exit_status = g->have_status ? child_exit_code(g->status) : -1,
			.elapsed_s = mono() - g->t0,
			.cost = o.lim.price_per_hour > 0 ? guard_cost(&o.lim, mono() - g->t0) : -1,
			.currency = o.currency,
			.host = g->host,
			.log_path = g->log_path,
			.ledger_id = g->ledger_id,
		};
		say(g, "firing the stop action (%s)", ev.reason);
		if (action_fire(&o.action, &ev, say_cb, g, err, sizeof(err))) {
			say(g, "%s", err);
			snprintf(g->problems, sizeof(g->problems), "stop action failed: %.560s", err);
		}
	}
	if (o.lim.price_per_hour > 0)
		say(g, "cost %.2f %s (%.2f %s/h x %.1f s)", guard_cost(&o.lim, mono() - g->t0), o.currency,
		    o.lim.price_per_hour, o.currency, mono() - g->t0);
	ledger_record(g, 2);
	code = g->have_status ? child_exit_code(g->status) : EXIT_RUNTIME;
	nvml_close(g->nvml);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
out_close_log:
	status_clear(g);
	if (g->log_fd >= 0)
		close(g->log_fd);
	free(g->command_line);
out_free_token:
	free(g);
	action_token_free(o.action.token);
	action_token_free(url);
	fflush(stdout);
	return code;
}
