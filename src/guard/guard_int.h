/*
 * guard_int.h - what the files of the guard share (the .c files of src/guard): its
 * state and the functions one file gives the others. Not for commands.
 * The layout of struct guard is part of the guard's overhead budget: the
 * fields a poll tick reads come first and fit in one page (src/base/hot.h,
 * docs/guard.md "Overhead"); keep it so.
 */
#ifndef GPURENT_GUARD_INT_H
#define GPURENT_GUARD_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/box/guard.h"
#include "base/hot.h"
#include "hw/nvml.h"
#include "os/child.h"
#include "os/proc.h"
#include "guard/guard.h"
#include "base/util.h"

/* One captured output stream of CMD. */
#define STREAM_LINE 8192
struct stream {
	int fd;                      /* read end; -1 once closed */
	int term_fd;                 /* 1 or 2 */
	const char *tag;             /* "out" or "err" in the log */
	bool cr;                     /* a '\r' came: the line restarts unless '\n' follows */
	bool bar;                    /* the line restarted after a '\r' (a progress bar) */
	size_t len;
	char *line;                  /* STREAM_LINE bytes, in struct guard's cold part */
};
/*
 * The guard's state, on the heap. The fields a poll tick reads come first
 * and fit in one page; the big buffers only output and records use come
 * last, so that a tick touches as few pages as it can (src/base/hot.h).
 */
struct guard {
	/* read or written on every tick */
	const struct guard_opts *o;
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
	double mem_visible;          /* bytes the first job GPU shows (a MIG slice's own), 0 unknown */
	const char *slurm_action;    /* --preset slurm: what the end did ("requeue", "end", ...); NULL running */
	char line_buf[2][STREAM_LINE];
};

/* The self-pipe the signal handler writes to (supervise.c); -1 when closed. */
extern int guard_sig_pipe[2];

/* Monotonic seconds. */
GPURENT_HOT static inline double mono(void)
{
	return util_now_mono();   /* inlined: the tick stays in .text.hot */
}

/*
 * poll()'s timeout for s seconds: whole milliseconds, rounded up, at most
 * a day (the caller loops; an int of milliseconds overflows at 24.8 days).
 * Not libm's ceil: one page less per tick.
 */
GPURENT_HOT static inline int poll_ms(double s)
{
	int ms;

	if (!(s > 0))
		return 0;
	if (s > 86400)
		return 86400 * 1000;
	ms = (int)(s * 1000);
	return ms < s * 1000 ? ms + 1 : ms;
}

/* ---- tee.c: the terminal, the log, the status line ---- */

/* write(2) all of p, retrying EINTR; gives up silently on an error. */
void tee_write_all(int fd, const char *p, size_t n);
/* Erase the status line if one is shown. */
void tee_status_clear(struct guard *g);
/* A message of the guard's own ("gpurent: ..."): stderr and the log. */
void tee_say(struct guard *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* tee_say() for action_fire(): ctx is the struct guard. */
void tee_say_cb(void *ctx, const char *line);
/* Read what CMD wrote to s; true when something came. Closes s at EOF. */
bool tee_stream_read(struct guard *g, struct stream *s);
/* Redraw the status line (a terminal only). */
void tee_status_draw(struct guard *g, double now, const char *state);
/* Make --log-dir and open the log: 0, or -1 with the reason in g->problems. */
int tee_open_log(struct guard *g);

/* ---- record.c: the ledger ---- */

/* Record the run: phase 0 at the start (sets g->ledger_id), 1 while it runs, 2 at the end. */
void record_ledger(struct guard *g, int phase);
/* The heartbeat writer g->ledger_pid was reaped: take its reply and forget it. */
void record_heartbeat_done(struct guard *g);

/* ---- slurm.c: --preset slurm inside a job (guard.h struct guard_slurm) ---- */

/* The time limit is near (sig: USR1, or SIGTERM; 0: --max-runtime): tell CMD (sig, else USR1). */
void slurm_guard_time_limit(struct guard *g, int sig, double now);
/*
 * At the end: the action to fire into *act (a copy of the options'):
 * `scontrol requeue` when the limit stopped a job that has a complete
 * checkpoint and restarts left, none for a finished job or one that cannot
 * go on, else the preset's scancel. Sets g->slurm_action; says why.
 */
void slurm_guard_end(struct guard *g, struct action_cfg *act);

/* ---- watchdog.c: the hard-deadline watchdog ---- */

/* Fork the watchdog (g->watchdog, g->wd_fd); says so, or why not. */
void watchdog_arm(struct guard *g);
/* child_opts.on_fork: tell the watchdog CMD's group before CMD can run (ctx: the guard). */
void watchdog_on_fork(pid_t pid, void *ctx);
/* Cancel and reap the watchdog (a clean end). */
void watchdog_cancel(struct guard *g);

#endif
