/*
 * plan_emit.h - `plan --emit sky` at the command: which ranked choice the
 * task is for (the best on a cloud SkyPilot launches on, not spot-only
 * unless spot is asked), whether its names are SkyPilot's (it came from a
 * SkyPilot catalog), the task's own use_spot or --spot, and the words on
 * stderr about what was left out.
 */
#ifndef GPURENT_PLAN_EMIT_H
#define GPURENT_PLAN_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model/model.h"
#include "core/plan/plan.h"
#include "core/plan/serve.h"
#include "core/task/skytask.h"
#include "cmd/plan/offers_load.h"
#include "cmd/plan/plan_render.h"

/* What the task is written from; every pointer borrowed. */
struct plan_emit_in {
	const struct workload *w;
	const struct model_spec *arch;
	const struct plan_opts *po;
	const struct offers_ctx *c;
	const struct display *disp;
	const char *file;             /* the task file, for messages, or NULL */
	const struct sky_doc *doc;    /* the task document, or NULL */
	const char *src;              /* the task file's bytes, or NULL */
	size_t src_len, doc_index;
	bool task_keys_only;          /* src is the workload file: only its SkyPilot keys */
	bool spot;                    /* --spot */
	bool more;                    /* another document follows: end with --- */
};

/* The task for the best ranked job choice r SkyPilot can launch, or the
 * service for the best service choice s (one of r, s NULL): printed.
 * Returns the exit code (a message on stderr when not 0). */
int plan_emit_sky(const struct plan_emit_in *in, const struct plan_result *r, const struct serve_result *s);

#endif
