/*
 * slurm.c - the guard inside a Slurm job (guard_int.h, guard.h struct
 * guard_slurm): the time-limit signal passed to CMD to checkpoint, and
 * at the end the requeue, the clean end or the cancel. docs/slurm.md
 * "The guard under Slurm".
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "os/ckpt_dir.h"
#include "base/i18n.h"
#include "guard/guard_int.h"

/* scontrol(1) "requeue": the job goes back to pending, its script runs again from the top. */
#define SLURM_REQUEUE_CMD "scontrol requeue \"$SLURM_JOB_ID\""

void slurm_guard_time_limit(struct guard *g, int sig, double now)
{
	int fwd = sig ? sig : SIGUSR1;

	if (g->reason)
		return;   /* stopping already: the grace period runs (the next signal is Slurm's) */
	g->reason = GUARD_TIME_LIMIT;
	g->stop_signal = fwd;
	if (g->running && g->child.pid > 0 && child_group_alive(g->child.pid)) {
		tee_say(g, _("the job's time limit is near (%s): %s to CMD, which has %.0f s to checkpoint"),
		    sig == SIGTERM ? "SIGTERM" : sig ? "SIGUSR1" : "max-runtime",
		    fwd == SIGTERM ? "SIGTERM" : "SIGUSR1", g->o->grace_s);
		kill(-g->child.pid, fwd);
		if (!g->kill_at)
			g->kill_at = now + g->o->grace_s;
	} else {
		tee_say(g, _("the job's time limit is near: stopping"));
	}
}

void slurm_guard_end(struct guard *g, struct action_cfg *act)
{
	const struct guard_slurm *s = &g->o->slurm;
	char resume[PATH_MAX], err[PATH_MAX + 64];
	int rc;

	if (g->reason == GUARD_EXIT && g->have_status && WIFEXITED(g->status) && WEXITSTATUS(g->status) == 0) {
		tee_say(g, _("Slurm job %s: CMD finished its work; the job ends"), s->job_id);
		act->shell = NULL;
		g->slurm_action = "end";
		return;
	}
	if (g->reason != GUARD_TIME_LIMIT) {
		g->slurm_action = act->shell ? "scancel" : "none";
		return;   /* idle, stall, budget, a crash, a signal: the preset's action, as before */
	}
	act->shell = NULL;
	if (!g->o->ckpt_dir) {
		tee_say(g, _("Slurm job %s: no --ckpt-dir, so nothing to resume from: not requeued"), s->job_id);
		g->slurm_action = "end-no-checkpoint";
		return;
	}
	rc = ckpt_dir_latest(g->o->ckpt_dir, resume, sizeof(resume), err, sizeof(err));
	if (rc != 1) {
		tee_say(g, _("Slurm job %s: no complete checkpoint in %s%s%s: not requeued"), s->job_id, g->o->ckpt_dir,
		    rc < 0 ? ": " : "", rc < 0 ? err : "");
		g->slurm_action = "end-no-checkpoint";
		return;
	}
	if (s->restart_count >= s->requeues) {
		tee_say(g, _("Slurm job %s: restarted %ld times, the budget (--requeues %ld) is spent: not requeued"),
		    s->job_id, s->restart_count, s->requeues);
		g->slurm_action = "end-budget";
		return;
	}
	if (!s->rank0) {
		tee_say(g, _("Slurm job %s: the guard of task 0 requeues the job"), s->job_id);
		g->slurm_action = "end-task";
		return;
	}
	tee_say(g, _("Slurm job %s: work remains; requeued (restart %ld of at most %ld), to resume from %s"),
	    s->job_id, s->restart_count + 1, s->requeues, resume);
	act->shell = SLURM_REQUEUE_CMD;
	g->slurm_action = "requeue";
}
