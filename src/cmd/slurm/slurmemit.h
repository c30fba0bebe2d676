/*
 * slurmemit.h - an sbatch script written (docs/slurm.md "The script"): the
 * one generator of `gpurent slurm script` and `plan --emit slurm`, so that
 * both write the same bytes for the same inputs. The lines are decided by
 * slurm_gen_plan() (src/core/task/slurm.h) and rendered by slurm_script_render()
 * (src/core/task/slurm_script.h); this file writes them and makes the log
 * directory.
 */
#ifndef GPURENT_SLURMEMIT_H
#define GPURENT_SLURMEMIT_H

#include <stdio.h>

#include "core/task/slurm_script.h"

/* Write the script to f; e has passed slurm_script_check(). 0, or -1 on a write error or out of memory. */
int slurm_emit_write(FILE *f, const struct slurm_emit *e);

/*
 * Make e's log directory (and its parents) in the current directory, where
 * sbatch is to run: Slurm opens --output before the script starts and
 * writes no log at all into a directory that is missing. 0, or -1 with a
 * sentence in err.
 */
int slurm_emit_mkdirs(const struct slurm_emit *e, char *err, size_t errlen);

#endif
