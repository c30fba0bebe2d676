/*
 * guard.h - the guard of `gpurent run`: runs CMD in its own process group,
 * tees its output with timestamps to the terminal and a log, and fires the
 * stop action exactly once when CMD ends, idles, stalls, runs out of time
 * or budget, or the guard is told to stop; restarts CMD from its newest
 * checkpoint after a crash; records the run in the ledger. The command
 * (src/cmd/box/cmd_run.c) parses the options into struct guard_opts and calls
 * guard_run(). The rules: src/core/box/guard.h; the story: docs/guard.md.
 */
#ifndef GPURENT_GUARD_GUARD_H
#define GPURENT_GUARD_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/box/guard.h"
#include "guard/action.h"

/* One poll tick's readings of the job, for guard_opts.on_sample. */
struct guard_reading {
	double t;                    /* monotonic seconds */
	double proc_mem;             /* bytes NVML counts for the job's processes, summed over
				      * its GPUs; < 0 unknown (no NVML, or no per-process figures) */
	int nprocs;                  /* how many of the job's processes NVML listed */
	double dev_used;             /* bytes in use on the job's GPUs (every process); < 0 unknown */
	double dev_total;            /* bytes the job's GPUs show (MIG/vGPU: the slice's); 0 unknown */
	double util;                 /* busiest job GPU, percent; < 0 unknown */
	double cpu;                  /* the job's processes, percent of one core; < 0 unknown */
};

/* What the guard is told to do; every pointer is borrowed for the run. */
struct guard_opts {
	struct guard_limits lim;
	double grace_s, poll_s, backoff_s, hard_deadline_s;
	long restarts;
	bool keep_on_exit, dry_run, no_ledger;
	const char *log_dir, *ckpt_dir, *progress_file, *ledger_path, *billing, *tags;
	const char *token_env;       /* the variable CMD must not inherit; NULL: none */
	char currency[8];
	struct action_cfg action;    /* url and token already settled (action_url_load()) */
	/*
	 * --preset slurm inside a job (docs/slurm.md "The guard under Slurm"):
	 * USR1 or SIGTERM mean the time limit is near (GUARD_TIME_LIMIT); at
	 * the end the job is requeued (scontrol requeue) when the limit stopped
	 * it, a complete checkpoint exists and restart_count < requeues; it ends
	 * cleanly when CMD finished with status 0; otherwise the preset's
	 * scancel. Every attempt is recorded with these facts.
	 */
	struct guard_slurm {
		bool on;
		const char *job_id;      /* SLURM_JOB_ID, borrowed from the environment */
		long restart_count;      /* SLURM_RESTART_COUNT (0 when unset) */
		long requeues;           /* --requeues: the most restarts the job may have */
		bool rank0;              /* SLURM_PROCID unset or 0: this guard requeues */
		double queue_wait_s;     /* this attempt's; < 0 unknown */
		double time_limit_s;     /* the job's; < 0 unknown */
	} slurm;
	char **cmd;                  /* argv of CMD */
	/*
	 * Hooks for `gpurent probe` (src/cmd/probe/cmd_probe.c); all NULL (and
	 * cmd_out_to_stderr false) for `gpurent run`, which then behaves as
	 * without them. Each is called with hook_ctx.
	 */
	void *hook_ctx;
	/* each line of CMD's output (stdout or stderr, no newline) as it is
	 * tee'd, at monotonic time t */
	void (*on_line)(void *ctx, const char *line, double t);
	/* the first 256 bytes of --progress-file each time its mtime changes */
	void (*on_progress)(void *ctx, const char *content, double t);
	/* each poll tick while CMD runs (struct guard_reading below) */
	void (*on_sample)(void *ctx, const struct guard_reading *r);
	/* checked each tick and after each burst of output: true stops CMD
	 * (SIGTERM, --grace, SIGKILL) with reason GUARD_PROBE_DONE */
	bool (*should_stop)(void *ctx, double now);
	/* the status line's state ("step 12/30") into buf; NULL: "running" */
	void (*status)(void *ctx, char *buf, size_t n);
	bool cmd_out_to_stderr;      /* CMD's stdout goes to the guard's stderr (stdout kept for JSON) */
};

/*
 * Guard o->cmd until the end: returns the exit status for the command
 * (CMD's own, 128+signal, 127/126 when it could not be started, 1 on a
 * runtime failure of the guard). Prints its messages; owns nothing of o.
 */
int guard_run(const struct guard_opts *o);

#endif
