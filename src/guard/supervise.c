/*
 * supervise.c - the guard's main loop (guard.h): setup, the attempts of
 * CMD, the poll loop with its signals, readings and stop paths, the
 * restarts and their back-off, the sweep of what an attempt leaves, and
 * the stop action at the end.
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

#include "base/msg.h"
#include "base/i18n.h"
#include "os/ckpt_dir.h"
#include "guard/guard_int.h"
#include "base/util.h"

extern char **environ;

int guard_sig_pipe[2] = {-1, -1};
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (write(guard_sig_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a signal is already pending */
	}
	errno = saved;
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
			tee_say(g, _("%s; idle is judged from the CPU use of CMD's processes instead "
			    "(below %g%% of one core)"), err, g->o->lim.idle_util);
		return;
	}
	choose_gpus(g);
	sample_gpus(g);
	if (g->ngpu) {
		struct nvml_device_info info;
		if (!nvml_device_info(g->nvml, g->gpus[0], &info, err, sizeof(err))) {
			snprintf(g->gpu_type, sizeof(g->gpu_type), "%s", info.name);
			/* what the process sees: with MIG on, its instance's memory */
			g->mem_visible = info.mig_current == 1 && info.mig_mem_total > 0 ?
					 (double)info.mig_mem_total : (double)info.mem_total;
		}
	}
	g->gpu_mode = g->ngpu > 0 && g->util_gpu >= 0;
	if (!g->gpu_mode && g->o->lim.idle_s > 0)
		tee_say(g, _("%s; idle is judged from the CPU use of CMD's processes instead (below %g%% of one core)"),
		    g->ngpu ? _("NVML gives no utilization for these GPUs (MIG?)") : _("no GPU is visible to the job"),
		    g->o->lim.idle_util);
	if (!g->gpu_mode && !(g->o->on_sample && g->ngpu)) {   /* the probe reads memory without utilisation */
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
			record_heartbeat_done(g);
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
			tee_say(g, _("the hard-deadline watchdog ended unexpectedly (status %d)"), child_exit_code(st));
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
	if (r == GUARD_MAX_RUNTIME && g->o->slurm.on) {
		slurm_guard_time_limit(g, 0, now);   /* the job's limit less the lead */
		return;
	}
	g->reason = r;
	switch (r) {
	case GUARD_IDLE:
		snprintf(msg, sizeof(msg), _("idle: %s below %g%% for %.0f s"), g->gpu_mode ? _("every GPU") : _("CPU use"),
			 g->o->lim.idle_util, guard_idle_for(&g->gs, now));
		break;
	case GUARD_STALL:
		snprintf(msg, sizeof(msg), _("stalled: no output%s for %.0f s"),
			 g->o->progress_file ? _(" and no progress-file change") : "", now - g->gs.last_activity);
		break;
	case GUARD_MAX_RUNTIME:
		snprintf(msg, sizeof(msg), _("max-runtime reached (%.0f s)"), g->o->lim.max_runtime_s);
		break;
	case GUARD_DEADLINE:
		snprintf(msg, sizeof(msg), _("hard deadline reached (%.0f s)"), g->o->hard_deadline_s);
		break;
	case GUARD_PROBE_DONE:
		snprintf(msg, sizeof(msg), _("the probe has its steps"));
		break;
	case GUARD_BUDGET:
		snprintf(msg, sizeof(msg), _("budget reached: %.2f %s of %.2f"), guard_cost(&g->o->lim, now - g->t0),
			 g->o->currency, g->o->lim.budget);
		break;
	default:
		snprintf(msg, sizeof(msg), "%s", guard_reason_name(r));
	}
	if (g->running) {
		tee_say(g, _("stopping: %s; SIGTERM to CMD, SIGKILL after %.0f s"), msg, g->o->grace_s);
		stop_group(g, SIGTERM, now);
	} else {
		tee_say(g, _("stopping: %s"), msg);
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

	if (g->o->slurm.on && (sig == SIGUSR1 || sig == SIGTERM)) {
		slurm_guard_time_limit(g, sig, now);
		return;
	}
	if (sig == SIGUSR1 || sig == SIGUSR2) {
		/* Slurm's --signal, submitit: "checkpoint now", for CMD, not a stop */
		if (g->child.pid > 0 && child_group_alive(g->child.pid)) {
			tee_say(g, _("got %s: passed to CMD"), name);
			kill(-g->child.pid, sig);
		}
		return;
	}
	if (g->reason) {
		/* told again while stopping: do not wait out the grace period */
		if (g->child.pid > 0 && child_group_alive(g->child.pid)) {
			tee_say(g, _("%s while stopping: killing CMD now"), name);
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
		tee_say(g, _("got %s: passed to CMD, which has %.0f s to save its state"), name, g->o->grace_s);
		stop_group(g, sig, now);
	} else {
		tee_say(g, _("got %s: stopping"), name);
	}
}
/* Drain the signal pipe: reap children, act on stop signals. */
static void handle_signals(struct guard *g, double now)
{
	unsigned char b[64];
	ssize_t r;

	while ((r = read(guard_sig_pipe[0], b, sizeof(b))) > 0)
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
	double cpu = proc_tree_cpu(&g->ptree, g->self, g->watchdog > 0 ? g->watchdog : -1, now,
				   g->o->on_sample ? 5 : 30);   /* the probe looks for new workers sooner */

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
/* The progress file's first bytes, for guard_opts.on_progress. */
static void progress_hook(struct guard *g, double now)
{
	char buf[257];
	ssize_t n = -1;
	int fd = open(g->o->progress_file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n < 0)
		return;
	buf[n] = '\0';
	g->o->on_progress(g->o->hook_ctx, buf, now);
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
		if (g->o->on_progress)
			progress_hook(g, now);
	}
}
/* The probe's readings of the job (guard_opts.on_sample); cpu_done: sample_cpu() ran this tick. */
static void sample_hook(struct guard *g, double now, bool cpu_done)
{
	struct guard_reading r = {.t = now, .proc_mem = -1, .dev_used = -1, .util = -1, .cpu = -1};
	bool any = false;

	if (!cpu_done)
		sample_cpu(g, now);
	r.cpu = g->cpu_pct;
	if (g->nvml && g->ngpu) {
		if (!g->gpu_mode)
			sample_gpus(g);
		r.util = g->util_gpu;
		r.dev_used = g->mem_total > 0 ? g->mem_used : -1;
		r.dev_total = g->mem_visible;
		r.proc_mem = 0;
		for (size_t i = 0; i < g->ngpu; i++) {
			uint64_t b;
			int m;
			if (nvml_device_procs_mem(g->nvml, g->gpus[i], (const int *)g->ptree.pids, g->ptree.n, &b, &m))
				continue;
			any = true;
			r.proc_mem += (double)b;
			r.nprocs += m;
		}
		if (!any)
			r.proc_mem = -1;
	}
	g->o->on_sample(g->o->hook_ctx, &r);
}
/* guard_opts.should_stop: the probe has what it came for. */
static void hook_stop(struct guard *g, double now)
{
	if (g->o->should_stop && !g->reason && g->running && g->o->should_stop(g->o->hook_ctx, now))
		begin_stop(g, GUARD_PROBE_DONE, now);
}
/* One poll tick: readings, the rules, the status line, the ledger. */
GPURENT_HOT static void tick(struct guard *g, double now, const char *state)
{
	double util = -1;
	enum guard_reason r;
	bool cpu_done = false;
	char st[128];

	if (g->gpu_mode) {
		sample_gpus(g);
		util = g->util_gpu;
	} else if (g->o->lim.idle_s > 0 && g->running) {
		sample_cpu(g, now);
		util = g->cpu_pct;
		cpu_done = true;
	}
	if (g->o->on_sample && g->running)
		sample_hook(g, now, cpu_done);
	check_progress_file(g, now);
	r = guard_poll(&g->o->lim, &g->gs, now, now - g->t0, util, g->running);
	if (r && !g->reason)
		begin_stop(g, r, now);
	hook_stop(g, now);
	if (g->o->status && g->running && !g->reason) {
		g->o->status(g->o->hook_ctx, st, sizeof(st));
		state = st;
	}
	if (now >= g->next_ledger) {
		g->next_ledger = now + 60;
		record_ledger(g, 1);
	}
	tee_status_draw(g, now, state);
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
			tee_say(g, _("--ckpt-dir: %s"), err);
		if (rc == 1)
			tee_say(g, _("attempt %d resumes from %s"), g->attempt, resume);
		else if (rc == 0)
			tee_say(g, _("attempt %d: no complete checkpoint in %s yet"), g->attempt, g->o->ckpt_dir);
		if (rc != 1)
			resume[0] = '\0';
	}
	if (!(env = attempt_env(g, resume[0] ? resume : NULL))) {
		tee_say(g, _("out of memory"));
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
		/* child.c's sentence is English (it may be stored); a person reads
		 * the exec failure in the locale's words */
		if (g->exec_errno == ENOENT && !strchr(co.argv[0], '/'))
			tee_say(g, _("%s: command not found"), co.argv[0]);
		else if (g->exec_errno)
			tee_say(g, _("%s: cannot run it: %s"), co.argv[0], strerror(g->exec_errno));
		else
			tee_say(g, "%s", err);
		g->have_status = true;
		g->status = (g->exec_errno == ENOENT ? 127 : 126) << 8;   /* as a shell reports it */
		return -1;
	}
	g->running = true;
	g->kill_at = g->killed_at = 0;
	g->out = (struct stream){.fd = g->child.out_fd, .term_fd = g->o->cmd_out_to_stderr ? 2 : 1, .tag = "out", .line = g->line_buf[0]};
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
		size_t n = proc_descendants(g->self, pids, ARRAY_SIZE(pids)), left = 0;

		for (size_t i = 0; i < n && i < ARRAY_SIZE(pids); i++)
			if (pids[i] != g->watchdog) {
				kill(pids[i], SIGKILL);
				left++;
			}
		if (!left && n <= ARRAY_SIZE(pids))
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
		struct pollfd p[3] = {{guard_sig_pipe[0], POLLIN, 0}, {g->out.fd, POLLIN, 0}, {g->err.fd, POLLIN, 0}};
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
			tee_say(g, _("grace period over: SIGKILL to CMD's process group"));
			kill(-g->child.pid, SIGKILL);
			g->kill_at = 0;
			g->killed_at = now;
		}
		if (g->killed_at && now >= g->killed_at + STUCK_S) {
			/* in uninterruptible sleep (a driver call), or a zombie nobody reaps */
			tee_say(g, _("CMD's processes are still there %.0f s after SIGKILL (stuck in the kernel?): "
			    "going on without them"), STUCK_S);
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
		got = p[1].revents && tee_stream_read(g, &g->out);
		if (p[2].revents && tee_stream_read(g, &g->err))
			got = true;
		if (got) {
			guard_activity(&g->gs, now);
			hook_stop(g, now);
		}
	}
	sweep(g);
	/* what is still in the pipes: every writer is gone now, so EOF comes */
	for (double until = mono() + 0.5; (g->out.fd >= 0 || g->err.fd >= 0) && mono() < until;) {
		struct pollfd p[2] = {{g->out.fd, POLLIN, 0}, {g->err.fd, POLLIN, 0}};
		if (poll(p, 2, 50) < 0 && errno != EINTR)
			break;
		tee_stream_read(g, &g->out);
		tee_stream_read(g, &g->err);
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
		struct pollfd p = {guard_sig_pipe[0], POLLIN, 0};
		double now = mono(), w;
		char state[64];

		if (now >= until)
			break;
		if (now >= next_tick || (due > 0 && now >= due)) {
			snprintf(state, sizeof(state), _("restarting in %.0f s"), until - now);
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
		snprintf(buf, n, _("CMD did not run"));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, _("CMD was ended by signal %d (%s), status %d"), WTERMSIG(st),
			 strsignal(WTERMSIG(st)), child_exit_code(st));
	else
		snprintf(buf, n, _("CMD exited with status %d"), child_exit_code(st));
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

	if (pipe(guard_sig_pipe) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(guard_sig_pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(guard_sig_pipe[i], F_SETFL, fcntl(guard_sig_pipe[i], F_GETFL) | O_NONBLOCK);
	}
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		sa.sa_flags = SA_RESTART | (sigs[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
		sigaction(sigs[i], &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

int guard_run(const struct guard_opts *o)
{
	struct guard *g;
	struct action_cfg act;
	char msg[256], err[1200];
	int code;

	sanitize_stdfds();
	if (!(g = calloc(1, sizeof(*g)))) {
		msg_error(_("out of memory"));
		return EXIT_RUNTIME;
	}
	g->o = o;
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
	g->wall0 = util_now_wall();
	g->gs.idle_total_s = 0;
	if (gethostname(g->host, sizeof(g->host)) < 0)
		snprintf(g->host, sizeof(g->host), "unknown");
	g->host[sizeof(g->host) - 1] = '\0';
	code = EXIT_RUNTIME;
	if (!(g->command_line = join_command(o->cmd))) {
		msg_error(_("out of memory"));
		goto out_free_guard;
	}
	if (tee_open_log(g)) {
		/* the job still runs and the stop action still fires: a box left
		 * idle because a log could not be written is the costlier loss */
		msg_error(_("%s; the output goes to the terminal only"), g->problems);
		snprintf(g->log_path, sizeof(g->log_path), "(none)");
	}
	if (install_signals()) {
		msg_error(_("pipe: %s"), strerror(errno));
		goto out_close_log;
	}
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);   /* orphans of CMD come back to the guard */
#endif
	tee_say(g, _("guarding: %s (log %s)"), g->command_line, g->log_path);
	setup_nvml(g);
	record_ledger(g, 0);
	g->next_ledger = mono() + 60;
	if (o->hard_deadline_s > 0) {
		if (o->dry_run)
			tee_say(g, _("dry run: --hard-deadline would arm a watchdog for %.0f s"), o->hard_deadline_s);
		else
			watchdog_arm(g);
	}

	for (;;) {
		if (start_attempt(g) == 0)
			supervise(g);
		describe_end(g, msg, sizeof(msg));
		if (!g->reason && g->have_status && abnormal(g->status) && g->restarts < o->restarts &&
		    !g->exec_errno) {
			double d = guard_backoff(o->backoff_s, ++g->restarts);
			tee_say(g, _("%s; restart %d of %ld in %.1f s"), msg, g->restarts, o->restarts, d);
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
		tee_say(g, _("%s after %.1f s"), msg, mono() - g->t0);
	else
		tee_say(g, _("stopped (%s); %s after %.1f s"), guard_reason_name(g->reason), msg, mono() - g->t0);
	act = o->action;
	if (o->slurm.on)
		slurm_guard_end(g, &act);
	if (g->reason == GUARD_EXIT && o->keep_on_exit) {
		tee_say(g, _("--keep-on-exit: the stop action is not fired"));
	} else if (act.shell || act.url || o->dry_run) {
		struct action_event ev = {
			.reason = guard_reason_name(g->reason),
			.exit_status = g->have_status ? child_exit_code(g->status) : -1,
			.elapsed_s = mono() - g->t0,
			.cost = o->lim.price_per_hour > 0 ? guard_cost(&o->lim, mono() - g->t0) : -1,
			.currency = o->currency,
			.host = g->host,
			.log_path = g->log_path,
			.ledger_id = g->ledger_id,
		};
		tee_say(g, _("firing the stop action (%s)"), ev.reason);
		if (action_fire(&act, &ev, tee_say_cb, g, err, sizeof(err))) {
			tee_say(g, "%s", err);
			snprintf(g->problems, sizeof(g->problems), "stop action failed: %.560s", err);
		}
	}
	if (o->lim.price_per_hour > 0)
		tee_say(g, _("cost %.2f %s (%.2f %s/h x %.1f s)"), guard_cost(&o->lim, mono() - g->t0), o->currency,
		    o->lim.price_per_hour, o->currency, mono() - g->t0);
	record_ledger(g, 2);
	code = g->have_status ? child_exit_code(g->status) : EXIT_RUNTIME;
	nvml_close(g->nvml);
	close(guard_sig_pipe[0]);
	close(guard_sig_pipe[1]);
out_close_log:
	tee_status_clear(g);
	if (g->log_fd >= 0)
		close(g->log_fd);
	free(g->command_line);
out_free_guard:
	free(g);
	fflush(stdout);
	return code;
}
