/*
 * skyemit.h - `gpurent plan --emit sky`: a SkyPilot task for a planned
 * choice (docs/interop.md "SkyPilot task out"): resources for the offer
 * (accelerators, use_spot, infra, disk_size, autostop, job_recovery for
 * spot), the task's own name, num_nodes and envs, file_mounts/workdir left
 * to the user in comments, and a run: that wraps the user's command in
 * `gpurent run` with the plan's stop limits and checkpoint directory.
 */
#ifndef GPURENT_SKYEMIT_H
#define GPURENT_SKYEMIT_H

#include <stdio.h>

#include "core/plan/plan.h"
#include "core/task/skytask.h"

/* Where the emitted task keeps checkpoints (mount persistent storage there). */
#define SKY_EMIT_CKPT_DIR "/checkpoints"
/* SkyPilot's default disk_size, GB (yaml-spec.rst "resources.disk_size"). */
#define SKY_EMIT_DISK_DEFAULT_GB 256
/* Room for the image, the environment and logs beside data and
 * checkpoints, GB (assumption: docs/interop.md). */
#define SKY_EMIT_DISK_SYSTEM_GB 50
/* The guard's idle and stall limits: at least these, and at least twice
 * a checkpoint's write (docs/guard.md: longer than the longest stretch
 * the job legitimately leaves the GPUs idle or prints nothing). */
#define SKY_EMIT_IDLE_MIN_S (20 * 60.0)
#define SKY_EMIT_STALL_MIN_S (30 * 60.0)

struct sky_emit {
	const struct workload *w;
	const struct plan_opts *po;
	const struct plan_choice *c;  /* the choice the task is for */
	int rank;                     /* its rank in the plan, from 1 */
	const struct sky_doc *doc;    /* the user's task, or NULL */
	const char *run_text;         /* the task's run: script, or NULL */
	const char *setup_text;       /* the task's setup: script, or NULL */
	const char *code;             /* display currency */
	double usd_per_unit;          /* its USD value */
};

/*
 * The SkyPilot cloud name of an offer's provider ("aws", "runpod", ...),
 * or NULL when SkyPilot cannot launch on it (a domestic platform, a
 * campus cluster). Static.
 */
const char *sky_emit_cloud(const struct offer *o);

/* Write the task to f. Returns 0, or -1 (out of memory, a write error). */
int sky_emit_write(FILE *f, const struct sky_emit *e);

#endif
