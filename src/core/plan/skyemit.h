/*
 * skyemit.h - `gpurent plan --emit sky`: a SkyPilot task for a planned
 * choice, or a SkyPilot service for a service plan (docs/interop.md
 * "SkyPilot task out"). The user's task document comes back with every
 * key gpurent does not change as it was written; resources get the
 * offer's accelerators, infra and, only where the offer came from
 * SkyPilot's own catalog, its instance_type; use_spot only as the task
 * or --spot says (the plan's spot advice is a comment); a service gets
 * service: with a readiness probe and the plan's replicas; run: wraps the
 * user's command in `gpurent run` with the plan's stop limits.
 */
#ifndef GPURENT_SKYEMIT_H
#define GPURENT_SKYEMIT_H

#include <stdio.h>

#include "core/plan/plan.h"
#include "core/plan/serve.h"
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

/* The port a service's replicas listen on when the task names none: vLLM's
 * OpenAI server default (vllm-project/vllm@00522333
 * vllm/entrypoints/openai/cli_args.py FrontendArgs.port = 8000; SGLang's
 * is 30000, so the run gives --port), and the probe path both serve
 * (GET /health; docs/interop.md). */
#define SKY_EMIT_SERVE_PORT 8000
#define SKY_EMIT_PROBE_PATH "/health"

struct sky_emit {
	const struct workload *w;
	const struct plan_opts *po;
	const struct plan_choice *c;  /* the job choice the task is for, or NULL */
	const struct serve_choice *sc;/* the service choice, or NULL (one of the two) */
	int rank;                     /* its rank in the plan, from 1 */
	const struct sky_doc *doc;    /* the user's task, or NULL */
	const char *src;              /* the task file's bytes (doc's stream), or NULL */
	size_t src_len;
	size_t doc_index;             /* doc's place in the stream, from 0 */
	/* src is the workload file with a resources: section: its own fields
	 * (model:, tokens:, ...) are gpurent's, not the task's; left out */
	bool task_keys_only;
	int use_spot;                 /* 1 the task or --spot asks spot, 0 the task says false, -1 unset */
	bool sky_names;               /* the offer's instance and region are SkyPilot catalog names */
	/* else, when one is loaded: an offer of SkyPilot's catalog for the same
	 * cloud, GPU and count, whose instance type (and GPU name) is written;
	 * the region is left to SkyPilot. NULL: none */
	const struct offer *twin;
	const char *model_id;         /* a service: the model's Hugging Face id, or NULL */
	const char *code;             /* display currency */
	double usd_per_unit;          /* its USD value */
};

/*
 * The SkyPilot cloud name of an offer's provider ("aws", "runpod", ...),
 * or NULL when SkyPilot cannot launch on it (a domestic platform, a
 * campus cluster). Static.
 */
const char *sky_emit_cloud(const struct offer *o);

/* Write the task to f. Returns 0; -1 out of memory or a write error; -2
 * when the task document cannot be carried over (not a mapping of scalar
 * keys, its resources: not a mapping). */
int sky_emit_write(FILE *f, const struct sky_emit *e);

/* Document index (as the task reader counts them) of the task file
 * src[0..len) written to f as it is: a pipeline's document that is no job
 * (its name: header) goes out with the jobs. 0, -1, -2 as above. */
int sky_emit_copy(FILE *f, const char *src, size_t len, size_t index);

#endif
