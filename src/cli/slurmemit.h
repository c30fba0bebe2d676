/*
 * slurmemit.h - an sbatch script written (docs/slurm.md "The script"): the
 * one generator of `gpurent slurm script` and `plan --emit slurm`, so that
 * both write the same bytes for the same inputs. The lines it writes are
 * decided by slurm_gen_plan() (src/core/slurm.h); this file words them.
 */
#ifndef GPURENT_SLURMEMIT_H
#define GPURENT_SLURMEMIT_H

#include <stdio.h>

#include "../core/slurm.h"

/* Where the script keeps logs and checkpoints unless told (relative to the submit directory). */
#define SLURM_EMIT_LOG_DIR "slurm-logs"
#define SLURM_EMIT_CKPT_DIR "checkpoints"
/* The guard's idle and stall limits in the script (as skyemit.h's). */
#define SLURM_EMIT_IDLE "20m"
#define SLURM_EMIT_STALL "30m"
/* Requeues the guard asks for at most (gpurent run --requeues). */
#define SLURM_EMIT_REQUEUES 20

/* What the script is for; every pointer borrowed, NULL/0 for "not given". */
struct slurm_emit {
	const char *job_name;         /* NULL: CMD's base name */
	const char *partition, *account, *gpu_type;
	long nodes, gpus_per_node;
	struct slurm_gen g;           /* slurm_gen_plan()'s decisions */
	const char *log_dir, *ckpt_dir;
	const char *conda_env;        /* conda activate ENV (with the shell hook), or */
	const char *venv;             /* source VENV/bin/activate */
	const char *gpurent;          /* the gpurent the job runs ("gpurent") */
	long requeues;
	char *const *cmd;             /* CMD's argv, NULL-terminated */
	struct slurm_gen_in in;       /* what g was decided from (the "same as" line) */
};

/* Write the script to f. 0, or -1 on a write error. */
int slurm_emit_write(FILE *f, const struct slurm_emit *e);

/*
 * Make e's log directory (and its parents) in the current directory, where
 * sbatch is to run: Slurm opens --output before the script starts and
 * writes no log at all into a directory that is missing. 0, or -1 with a
 * sentence in err.
 */
int slurm_emit_mkdirs(const struct slurm_emit *e, char *err, size_t errlen);

#endif
