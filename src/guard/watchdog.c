/*
 * watchdog.c - the --hard-deadline watchdog (guard_int.h): a fork of the
 * guard in a session of its own that stops CMD's group and fires the stop
 * action if the guard is killed or hangs. It learns each attempt's group
 * before CMD can run (child_opts.on_fork), so no moment of the guard's
 * death leaves the job unwatched (docs/guard.md).
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

#include "base/i18n.h"
#include "guard/guard_int.h"

/* When the watchdog acts: after the guard's own deadline, its grace, and a
 * slack of 5% (1 s to 60 s) for the guard to finish (docs/guard.md). */
static double watchdog_after(const struct guard_opts *o)
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
	tee_say(g, _("hard deadline: the guard %s; the watchdog stops the job and fires the stop action"),
	    guard_gone ? _("was killed") : _("did not stop in time"));
	ev.reason = guard_reason_name(GUARD_DEADLINE);
	ev.exit_status = -1;
	ev.elapsed_s = mono() - g->t0;
	ev.cost = g->o->lim.price_per_hour > 0 ? guard_cost(&g->o->lim, ev.elapsed_s) : -1;
	ev.currency = g->o->currency;
	ev.host = g->host;
	ev.log_path = g->log_path;
	ev.ledger_id = g->ledger_id;
	if (action_fire(&g->o->action, &ev, tee_say_cb, g, err, sizeof(err)))
		tee_say(g, "%s", err);
	_exit(0);
}
void watchdog_arm(struct guard *g)
{
	int p[2];
	pid_t pid, me = getpid();

	if (pipe(p) < 0) {
		tee_say(g, _("--hard-deadline: pipe: %s; no watchdog"), strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		tee_say(g, _("--hard-deadline: fork: %s; no watchdog"), strerror(errno));
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
	tee_say(g, _("hard deadline in %.0f s: watchdog %ld armed (it stops the job and fires the stop action "
	    "at %.0f s if the guard has not)"), g->o->hard_deadline_s, (long)pid, watchdog_after(g->o));
}
static void watchdog_tell(struct guard *g, int32_t msg)
{
	if (g->wd_fd >= 0 && write(g->wd_fd, &msg, sizeof(msg)) < 0) {
		/* the watchdog is gone; the guard goes on */
	}
}
/* child_opts.on_fork: the watchdog learns the group before CMD can run. */
void watchdog_on_fork(pid_t pid, void *ctx)
{
	watchdog_tell(ctx, (int32_t)pid);
}
void watchdog_cancel(struct guard *g)
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
