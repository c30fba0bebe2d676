/*
 * record.c - the run in the ledger (guard_int.h): at the start, once a
 * minute, at the end; each write in a short-lived child, so that the
 * long-lived guard never carries SQLite's pages.
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

#include "store/ledger.h"
#include "base/i18n.h"
#include "guard/guard_int.h"

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
	if (!out->rc && phase != 1 && g->o->slurm.on && g->o->slurm.job_id) {
		/* the attempt's Slurm facts: at the start, and with what the end did */
		const struct guard_slurm *s = &g->o->slurm;
		struct ledger_slurm ls = {
			.run_id = out->id, .job_id = s->job_id, .restart_count = s->restart_count,
			.queue_wait_s = s->queue_wait_s >= 0 ? s->queue_wait_s : NAN,
			.time_limit_s = s->time_limit_s >= 0 ? s->time_limit_s : NAN,
			.action = phase == 2 ? g->slurm_action : NULL,
		};
		out->rc = ledger_slurm_put(l, &ls, out->err, sizeof(out->err));
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
			tee_say(g, _("ledger: %s; this run is not recorded"), rep->err);
		if (phase == 0)
			g->ledger_id = -1;
	} else if (rep->rc) {
		tee_say(g, _("ledger: %s"), rep->err);
		if (phase == 0)
			g->ledger_id = -1;
	} else if (phase == 0) {
		g->ledger_id = rep->id;
	}
}
/* A heartbeat that outlived LEDGER_WAIT_S has ended (reaped): its reply, if any; then forget it. */
void record_heartbeat_done(struct guard *g)
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
void record_ledger(struct guard *g, int phase)
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
		record_heartbeat_done(g);
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
		close(guard_sig_pipe[0]);
		close(guard_sig_pipe[1]);
		close(p[0]);
		ledger_write(g, phase, &rep);
		tee_write_all(p[1], (const char *)&rep, sizeof(rep));
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
