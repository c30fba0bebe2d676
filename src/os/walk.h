/*
 * walk.h - the I/O half of `gpurent manifest` and `gpurent verify`: list a
 * directory tree into a struct manifest (src/core/files/manifest.h), and read
 * and hash its files in parallel on the thread pool (src/base/pool.h),
 * with a progress line on a terminal.
 */
#ifndef GPURENT_WALK_H
#define GPURENT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/files/manifest.h"

struct walk_opts {
	bool follow_symlinks;   /* follow links to files and directories */
	bool skip_set;          /* leave out the file skip_dev/skip_ino (the manifest itself) */
	dev_t skip_dev;
	ino_t skip_ino;
	unsigned jobs;          /* threads that walk (and hash); 0: walk_default_jobs() */
	bool hash;              /* also read and hash every regular file (out->algo) as it is
				 * listed, with a progress line on a terminal */
	const char *label;      /* names that work on the progress line; NULL: "manifest" */
};

/* How deep directories may nest below the root (docs/manifest.md). */
#define WALK_MAX_DEPTH 256

/*
 * List every entry under the directory rootfd into out (already
 * initialised; entries are appended, unsorted) on o->jobs threads, several
 * directories and batches of files at once: regular files with their
 * size (and, with o->hash, their hash: walk_hash() then skips them),
 * symlinks (when not followed) with the size and hash (out->algo)
 * of their target text, and the entries that could not be listed, stat'ed
 * or followed as MF_UNREADABLE / MF_DIR_UNREADABLE with errno. FIFOs,
 * sockets and devices are MF_OTHER, never opened. Returns 0, -1 with a
 * message in err when memory runs out, or -2 (bad input) with "PATH:
 * directories nested deeper than 256 levels" in err when a directory lies
 * deeper than WALK_MAX_DEPTH (the walk recurses once per level).
 */
int walk_tree(int rootfd, const struct walk_opts *o, struct manifest *out, char *err, size_t errlen);

/*
 * Follow the symlink entry e (relative to rootfd) and record what it points
 * to: MF_FILE with its size, MF_OTHER, or MF_UNREADABLE with errno.
 */
void walk_follow(int rootfd, struct mf_entry *e);

/*
 * Hash the content of the entries m->v[idx[0..n)] (regular files relative
 * to rootfd) with m->algo on jobs threads, in jobs of up to 64 files or
 * 1 MiB; entries that already have a hash (o->hash in walk_tree) are left
 * as they are. Each gets its hash and the size
 * actually read, or becomes MF_UNREADABLE with errno. label names the work
 * on the progress line (shown on a terminal when it takes over a second).
 * Returns 0, or -1 with a message in err when the threads or memory
 * cannot be had.
 */
int walk_hash(int rootfd, struct manifest *m, const size_t *idx, size_t n, unsigned jobs,
	      const char *label, char *err, size_t errlen);

/* Default for --jobs: the usable CPUs (sys_usable_cpus()), at most 64. */
unsigned walk_default_jobs(void);


/*
 * Write the name for a human: backslash as "\\", newline and CR as "\n",
 * "\r" (as sha256sum shows them), other control bytes and invalid UTF-8
 * as "\xNN" (out.h), "." for the top. path is borrowed.
 */
void walk_put_path(FILE *f, const char *path);

#endif
