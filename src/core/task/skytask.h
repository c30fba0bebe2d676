/*
 * skytask.h - a SkyPilot task file read as SkyPilot reads it (the spec:
 * SkyPilot's docs/source/reference/yaml-spec.rst, the commit is cited in
 * skytask.c and docs/interop.md): every document of a pipeline, its
 * name, num_nodes, envs, autostop and the whole resources: spec
 * (accelerators in every written form, any_of, ordered, use_spot, cpus
 * and memory with '+' and units, disk_size with units, disk_tier, infra
 * with cloud/region/zone, wildcards and k8s contexts, the older
 * cloud:/region:/zone:, instance_type), and the match of one candidate
 * resources set against one offer. Pure: no I/O.
 *
 * What the task says is where a job may run; what the job is (model,
 * method, tokens) is the workload's (workload.h). A task's keys that
 * change what runs where but that gpurent does not plan (pool,
 * execution, ...) are reported as notes, not errors; other top-level
 * keys are skipped at any length and nesting; a duplicate key is an
 * error.
 */
#ifndef GPURENT_SKYTASK_H
#define GPURENT_SKYTASK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"

/* Bounds on what a task may ask for (the reader refuses anything else). */
#define SKY_MAX_DOCS        64       /* documents in a pipeline */
#define SKY_MAX_CANDIDATES  64       /* resource sets after any_of/ordered and accelerator lists */
#define SKY_MAX_ACCEL_COUNT 1024     /* GPUs per node; fractions from 0.001 (L4:0.5) */
#define SKY_MIN_ACCEL_COUNT 0.001
#define SKY_MAX_CPUS        1e6
#define SKY_MAX_MEMORY_GIB  1e9
#define SKY_MAX_DISK_GB     1e9
#define SKY_MAX_NODES       100000
#define SKY_MAX_ENVS        256

/* How a document's candidates relate (yaml-spec.rst "resources.any_of",
 * "resources.ordered", and accelerators written as a list or a set). */
enum sky_pref {
	SKY_PREF_ONE,      /* a single resources set */
	SKY_PREF_ANY_OF,   /* any of them: the cheapest that fits wins */
	SKY_PREF_ORDERED,  /* in this order: the first that has a feasible offer wins */
};

/* One candidate resources set: what an offer must satisfy. Empty text and
 * 0 mean "not constrained". */
struct sky_res {
	size_t line;                 /* where this candidate was written */
	char accel[48];              /* GPU name as written ("" = any GPU, or none asked) */
	double accel_count;          /* GPUs per node; 1 when a name is given alone; may be fractional */
	int use_spot;                /* -1 unset, 0 no, 1 yes */
	double cpus, memory_gib;     /* minimums, or exact when *_exact ("8" vs "8+") */
	bool cpus_exact, memory_exact;
	double disk_gb;              /* disk_size, in GB (units read: 256GB, 1TB, 512) */
	char disk_tier[16];          /* low|medium|high|ultra|best, "" unset */
	/* where: from infra: (cloud[/region[/zone]], "*" wildcards, k8s/CONTEXT)
	 * or the older cloud:/region:/zone: keys; matched exactly, case-insensitive */
	char cloud[32], region[64], zone[64];
	bool k8s;                    /* infra: k8s or kubernetes[/CONTEXT]: region holds the context */
	char instance_type[96];
	bool autostop_given;         /* resources.autostop was written (any form) */
	double autostop_idle_min;    /* resources.autostop: idle minutes (true: 5, the spec's default) */
	bool autostop_down;          /* autostop: {down: true} */
	bool autostop_off;           /* autostop: false */
	char job_recovery[32];       /* job_recovery / spot_recovery strategy, "" unset */
	int nports;                  /* ports: how many were asked (carried, not priced) */
	/* a dstack gpu: spec (core/task/dstack.h), when dstack is set: accel
	 * (if any) names a card as gpuhunt does (A100: the 40 and 80 GB cards), the count
	 * and memory are ranges; 0 = no bound */
	bool dstack;
	char vendor[16];             /* nvidia, amd, google, intel, tenstorrent; "" any */
	double count_min, count_max; /* GPUs per node */
	double mem_min_gb, mem_max_gb, total_min_gb, total_max_gb;
};

/* A note on a key the reader skipped or did not plan (worded by the CLI). */
enum sky_note {
	SKY_NOTE_POOL = 1u << 0,        /* pool: a worker pool, not one job */
	SKY_NOTE_EXECUTION = 1u << 1,   /* execution: a job group's placement */
	SKY_NOTE_SERVICE = 1u << 2,     /* service: SkyServe replicas: plan prices one replica */
	SKY_NOTE_IMAGE = 1u << 3,       /* image_id: the image is not priced */
	SKY_NOTE_VOLUMES = 1u << 4,     /* volumes: not priced */
};

struct sky_env {
	char *key, *value;           /* owned; value "" for a null (a required env) */
	size_t line;
};

/* One document of the file. */
struct sky_doc {
	size_t line;                 /* where the document starts */
	char name[128];              /* "" when unnamed */
	long num_nodes;              /* 1 when not given */
	bool has_resources;
	enum sky_pref pref;
	struct sky_res *cand;        /* owned; ncand >= 1 (one unconstrained set when no resources:) */
	size_t ncand;
	struct sky_env *env;         /* owned */
	size_t nenv;
	bool has_run, has_setup, has_workdir, has_file_mounts;
	char *run, *setup;           /* owned; the scripts when written as text, else NULL */
	unsigned notes;              /* enum sky_note bits */
};

struct sky_task {
	struct sky_doc *doc;         /* owned */
	size_t ndoc;
	/* what the file is when it is not a task (no task key in any document):
	 * "admin policy", "SkyPilot config", "Kubernetes manifest", ...;
	 * NULL for a task (static text) */
	const char *not_a_task;
};

/*
 * Read buf[0..len) (a SkyPilot task file named fname) into t (zeroed by
 * the call). Returns 0; -1 with "FILE:LINE: FIELD: expected ..." in err
 * (one line, input bytes escaped). A file that holds no task key sets
 * t->not_a_task and returns -1 with a line saying what it looks like.
 * Release with sky_task_free() in both cases.
 */
int sky_task_parse(const char *buf, size_t len, const char *fname, struct sky_task *t,
		   char *err, size_t errlen);
void sky_task_free(struct sky_task *t);

/* Whether k is a top-level key of a SkyPilot task (yaml-spec.rst), for the
 * workload reader, which skips them. */
bool sky_task_key(const char *k);

/* SkyPilot's name of the cloud a catalog's provider is ("aws", "do",
 * "vast" for Vast.ai, ...), or NULL when SkyPilot has no such cloud (a
 * domestic platform, a campus cluster). Static. */
const char *sky_cloud_of(const struct cat_str *provider);

/*
 * Whether offer o satisfies candidate r (GPU name and count per node,
 * cpus, memory, disk, cloud/region/zone, instance type; use_spot only
 * when !ignore_spot: a spot-only task needs an offer with a spot price).
 * A catalog that does not state a host figure (0) is not held against it.
 */
bool sky_res_fits(const struct sky_res *r, const struct offer *o, bool ignore_spot);

#endif
