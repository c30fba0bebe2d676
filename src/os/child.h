/*
 * child.h - child processes, the git run-command
 * way: everything prepared before fork, signals blocked around it, exec
 * failure reported through a close-on-exec pipe, waitpid retried on
 * EINTR, each child in its own process group so that the group can be
 * signalled and killed as a whole. The /proc readings are in proc.h.
 */
#ifndef GPURENT_RUN_CHILD_H
#define GPURENT_RUN_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct child_opts {
	const char *const *argv;   /* argv[0] is looked up in PATH unless it has a '/' */
	char *const *envp;         /* the child's whole environment */
	int in_fd;                 /* dup'ed to stdin; -1: /dev/null */
	bool capture;              /* stdout and stderr into pipes (else inherited) */
	bool err_null;             /* with capture: stderr to /dev/null, no pipe (err_fd -1) */
	bool new_session;          /* setsid() instead of setpgid(0, 0) */
	bool parent_death_term;    /* Linux: SIGTERM when the guard dies */
	/*
	 * Called in the parent right after fork, with the child's pid (its
	 * process group already set on both sides), before the child may
	 * exec: the child waits until it returns, and exits without running
	 * argv when the parent dies first. So whatever on_fork tells (the
	 * watchdog: the group to kill) is told before CMD can run. NULL: none.
	 */
	void (*on_fork)(pid_t pid, void *ctx);
	void *on_fork_ctx;         /* borrowed, passed to on_fork */
};

struct child {
	pid_t pid;                 /* also the process group id */
	int out_fd, err_fd;        /* read ends (non-blocking, close-on-exec); -1 */
};

/*
 * Start o->argv. Returns 0 with *c filled (the caller closes the fds and
 * waits for the pid), or -1 with a sentence in err and *exec_errno set
 * when the command could not be started (ENOENT: not found, EACCES: not
 * executable; the caller exits 127 or 126 as a shell does).
 */
int child_spawn(const struct child_opts *o, struct child *c, int *exec_errno,
		char *err, size_t errlen);

/*
 * waitpid(pid, status, flags), retried on EINTR. Returns its result.
 */
pid_t child_wait(pid_t pid, int *status, int flags);

/* The shell's exit status for a wait status: the code, or 128+signal. */
int child_exit_code(int status);

/* Does process group pgid still have a member (zombies included)? */
bool child_group_alive(pid_t pgid);

#endif
