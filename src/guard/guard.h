/*
 * guard.h - the guard of `gpurent run`: runs CMD in its own process group,
 * tees its output with timestamps to the terminal and a log, and fires the
 * stop action exactly once when CMD ends, idles, stalls, runs out of time
 * or budget, or the guard is told to stop; restarts CMD from its newest
 * checkpoint after a crash; records the run in the ledger. The command
 * (src/cmd/cmd_run.c) parses the options into struct guard_opts and calls
 * guard_run(). The rules: src/core/guard.h; the story: docs/guard.md.
 */
#ifndef GPURENT_GUARD_GUARD_H
#define GPURENT_GUARD_GUARD_H

#include <stdbool.h>

#include "../core/guard.h"
#include "action.h"

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
	char **cmd;                  /* argv of CMD */
};

/*
 * Guard o->cmd until the end: returns the exit status for the command
 * (CMD's own, 128+signal, 127/126 when it could not be started, 1 on a
 * runtime failure of the guard). Prints its messages; owns nothing of o.
 */
int guard_run(const struct guard_opts *o);

#endif
