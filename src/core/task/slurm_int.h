/*
 * slurm_int.h - what slurm.c (the table, the values, lint) and
 * slurm_parse.c (the script's reader) share inside src/core/task; not for
 * other folders.
 */
#ifndef GPURENT_SLURM_INT_H
#define GPURENT_SLURM_INT_H

#include <stdbool.h>
#include <stddef.h>

/* src[0..len) into dst (cap bytes), cut there, always terminated. */
void slurm_copy_n(char *dst, size_t cap, const char *src, size_t len);
/* Whether a --gres value asks for GPUs (gpu, gpu:2, gpu:a100:2, in a list). */
bool slurm_gres_has_gpu(const char *v);

#endif
