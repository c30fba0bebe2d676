/*
 * slurm_script.h - the sbatch script rendered (docs/slurm.md "The script"):
 * the one generator of `gpurent slurm script` and `plan --emit slurm`
 * (src/cmd/slurm/slurmemit.c writes it out), here in the core so that the fuzz
 * harness reads what it renders back with sbatch's reader
 * (slurm_sbatch_arg()). The lines are decided by slurm_gen_plan(). Pure.
 */
#ifndef GPURENT_SLURM_SCRIPT_H
#define GPURENT_SLURM_SCRIPT_H

#include "base/strbuf.h"
#include "core/task/slurm.h"

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
	const char *partition, *account, *gpu_type, *qos;
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

/*
 * Whether every value of e can go into the script as it is: no control
 * byte (a newline would end an #SBATCH or comment line and start a command;
 * \v, \f, \r split sbatch's words), none empty, a GPU type that is one GRES
 * type (at most 63 letters, digits, '_', '-', '.'), a log directory without '\\' (it
 * turns off Slurm's %j and %x in --output). 0, or -1 with "--OPTION:
 * expected ..., got 'VALUE'" in err (the words of CMD as "CMD: ...").
 */
int slurm_script_check(const struct slurm_emit *e, char *err, size_t errlen);

/*
 * Append the script for e to out (a growing strbuf; out->oom when memory
 * ran out). e must have passed slurm_script_check(): values are quoted for
 * sbatch's reader in #SBATCH lines and for the shell elsewhere.
 */
void slurm_script_render(const struct slurm_emit *e, struct strbuf *out);

/* The job name the script gives (e->job_name, else CMD's base name); NULL none. Borrowed. */
const char *slurm_script_job_name(const struct slurm_emit *e);

/* The --output pattern of log directory dir's FILE (%x-%j.out): each '%' of
 * dir doubled, as Slurm's file name pattern reads it. Appended to out. */
void slurm_script_log_pattern(struct strbuf *out, const char *dir, const char *file);

#endif
