/*
 * child.c - start and wait for child processes (child.h): the one
 * child-process API of gpurent. Modelled on git's run-command.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <locale.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/hot.h"
#include "os/child.h"

/*
 * The C library's words for errno e in English whatever the locale: err's
 * sentences reach the ledger (the guard's stop action), which stays English.
 * Callers that show an exec failure to a person word it from *exec_errno.
 * The C locale object is made once; only the main thread spawns children.
 */
static const char *eng_strerror(int e)
{
	static locale_t c_loc;

	if (!c_loc)
		c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return c_loc ? strerror_l(e, c_loc) : strerror(e);
}

/* Find name in PATH (the guard's own); *path is the caller's to free. */
static int locate(const char *name, char **path, int *eno)
{
	const char *p = getenv("PATH");
	int found_noexec = 0;

	if (strchr(name, '/')) {
		if (!(*path = strdup(name)))
			return *eno = ENOMEM, -1;
		return 0;
	}
	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
		size_t n = dlen + strlen(name) + 3;
		char *cand = malloc(n);
		struct stat st;

		if (!cand)
			return *eno = ENOMEM, -1;
		snprintf(cand, n, "%.*s%s%s", (int)dlen, dlen ? p : ".", "/", name);
		if (!stat(cand, &st) && S_ISREG(st.st_mode)) {
			if (!access(cand, X_OK)) {
				*path = cand;
				return 0;
			}
			found_noexec = 1;
		}
		free(cand);
		p += dlen + (colon ? 1 : 0);
		if (!colon)
			break;
	}
	*eno = found_noexec ? EACCES : ENOENT;
	return -1;
}

/* pipe() with both ends close-on-exec (the guard is single-threaded). */
static int pipe_cloexec(int fd[2])
{
	if (pipe(fd))
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_exec(const struct child_opts *o, const char *path, pid_t parent,
		       int in_fd, int out_w, int err_w, int notify_w, const int hold[2])
{
	struct sigaction dfl;
	sigset_t none;
	int eno;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	if (o->new_session)
		setsid();
	else
		setpgid(0, 0);
#ifdef __linux__
	if (o->parent_death_term) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)   /* the guard died before prctl */
			_exit(128 + SIGTERM);
	}
#else
	(void)parent;
#endif
	if (hold[0] >= 0) {
		/* wait for the parent's on_fork(); EOF: it died before */
		char go = 0;
		ssize_t r;

		close(hold[1]);
		do
			r = read(hold[0], &go, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1)
			_exit(128 + SIGTERM);
	}
	if (in_fd >= 0 && in_fd != 0)
		dup2(in_fd, 0);
	if (out_w >= 0) {
		dup2(out_w, 1);
		dup2(err_w, 2);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(path, (char *const *)o->argv, o->envp);
	eno = errno;
	while (write(notify_w, &eno, sizeof(eno)) < 0 && errno == EINTR)
		;
	_exit(eno == ENOENT ? 127 : 126);
}

int child_spawn(const struct child_opts *o, struct child *c, int *exec_errno,
		char *err, size_t errlen)
{
	int notify[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, hold[2] = {-1, -1};
	int in_fd = o->in_fd, null_fd = -1, eno = 0, rc = -1;
	sigset_t all, old;
	char *path = NULL;
	pid_t pid, parent = getpid();
	ssize_t got;

	c->pid = -1;
	c->out_fd = c->err_fd = -1;
	*exec_errno = 0;
	if (locate(o->argv[0], &path, &eno)) {
		*exec_errno = eno;
		snprintf(err, errlen, "%s: %s", o->argv[0],
			 eno == ENOENT ? "command not found" : eng_strerror(eno));
		return -1;
	}
	if (in_fd < 0 && (in_fd = null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/dev/null: %s", eng_strerror(errno));
		goto out_free_path;
	}
	if (o->capture && o->err_null &&
	    (errp[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "/dev/null: %s", eng_strerror(errno));
		goto out_close;
	}
	if (pipe_cloexec(notify) || (o->capture && (pipe_cloexec(out) || (!o->err_null && pipe_cloexec(errp)))) ||
	    (o->on_fork && pipe_cloexec(hold))) {
		snprintf(err, errlen, "pipe: %s", eng_strerror(errno));
		goto out_close;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		child_exec(o, path, parent, in_fd, out[1], errp[1], notify[1], hold);
	if (pid > 0 && !o->new_session)
		setpgid(pid, pid);   /* both sides set it: no race with a kill(-pgid) */
	if (pid > 0 && o->on_fork) {
		char go = 1;

		o->on_fork(pid, o->on_fork_ctx);
		while (write(hold[1], &go, 1) < 0 && errno == EINTR)
			;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", eng_strerror(errno));
		goto out_close;
	}
	close(notify[1]);
	notify[1] = -1;
	do
		got = read(notify[0], &eno, sizeof(eno));
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof(eno)) {
		int st;
		child_wait(pid, &st, 0);
		*exec_errno = eno;
		snprintf(err, errlen, "%s: cannot run it: %s", o->argv[0], eng_strerror(eno));
		goto out_close;
	}
	c->pid = pid;
	if (o->capture) {
		c->out_fd = out[0];
		c->err_fd = errp[0];
		out[0] = errp[0] = -1;
		fcntl(c->out_fd, F_SETFL, fcntl(c->out_fd, F_GETFL) | O_NONBLOCK);
		if (c->err_fd >= 0)
			fcntl(c->err_fd, F_SETFL, fcntl(c->err_fd, F_GETFL) | O_NONBLOCK);
	}
	rc = 0;
out_close:
	for (int i = 0; i < 2; i++) {
		if (notify[i] >= 0)
			close(notify[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (hold[i] >= 0)
			close(hold[i]);
	}
	if (null_fd >= 0)
		close(null_fd);
out_free_path:
	free(path);
	return rc;
}

pid_t child_wait(pid_t pid, int *status, int flags)
{
	pid_t r;

	do
		r = waitpid(pid, status, flags);
	while (r < 0 && errno == EINTR);
	return r;
}

int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

bool child_group_alive(pid_t pgid)
{
	return pgid > 0 && (kill(-pgid, 0) == 0 || errno == EPERM);
}
