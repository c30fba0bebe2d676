/*
 * ckpt_dir.h - the I/O half of the checkpoint rules (src/core/box/ckpt.h):
 * read a checkpoint directory into entries, find the newest complete
 * checkpoint, remove the ones `prune` chooses. Used by `gpurent ckpt` and
 * by `gpurent run --ckpt-dir` (GPURENT_RESUME).
 */
#ifndef GPURENT_CKPT_DIR_H
#define GPURENT_CKPT_DIR_H

#include <stddef.h>

#include "core/box/ckpt.h"

struct ckpt_dir {
	struct ckpt_entry *v;   /* names owned by the list */
	size_t n;
};

/*
 * Read dir's entries (not "." and ".."): type, emptiness, a marker inside
 * directories, modification time. Returns 0 with *out filled (free with
 * ckpt_dir_free()), 1 when dir does not exist (out empty), or -1 with a
 * sentence in err.
 */
int ckpt_dir_read(const char *dir, struct ckpt_dir *out, char *err, size_t errlen);

void ckpt_dir_free(struct ckpt_dir *d);

/*
 * The newest complete checkpoint in dir as "dir/NAME" into path (n bytes).
 * Returns 1 found, 0 none (or no such directory), -1 with err.
 */
int ckpt_dir_latest(const char *dir, char *path, size_t n, char *err, size_t errlen);

/*
 * Remove dir/name: a file, or a directory with everything under it
 * (symlinks removed, never followed). 0, or -1 with a sentence in err.
 */
int ckpt_dir_remove(const char *dir, const char *name, char *err, size_t errlen);

#endif
