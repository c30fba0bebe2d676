/*
 * shred.h - delete a file after overwriting its bytes with zeros, or a
 * directory tree that way, for `gpurent release`. Symlinks are removed,
 * never followed; other special files are unlinked. The limit, stated in
 * docs/release.md and by the command: on SSDs (wear levelling, TRIM) and
 * copy-on-write or journalling filesystems (btrfs, ZFS, overlayfs layers,
 * snapshots) the overwrite may not reach the blocks the data lived in;
 * only deleting the disk itself (the platform's release) ends those.
 */
#ifndef GPURENT_SHRED_H
#define GPURENT_SHRED_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Told of each path as it is (or, dry, would be) deleted: its size in
 * bytes (0 for a directory) and whether it is a directory. */
typedef void shred_fn(void *ctx, const char *path, uint64_t size, bool dir);

/* Is path to be kept (it and what is under it left alone)? */
typedef bool shred_keep_fn(void *ctx, const char *path);

/*
 * Delete path: a file (overwritten with zeros, fsync'ed, unlinked; only
 * unlinked when it has other hard links, whose content it shares), a
 * symlink or special file (unlinked), or a directory (its entries first,
 * in name order, then rmdir). zero false: files are unlinked without the
 * overwrite (bulky leftovers, not secrets). dry: delete nothing, tell
 * the same paths in the same order. A path keep (may be NULL) says to
 * keep is left, and so are the directories above it. Stops at the first
 * failure: -1 with "PATH: reason" in err; 0 done (a path that does not
 * exist is 0, nothing told).
 */
int shred_path(const char *path, bool zero, bool dry, shred_keep_fn *keep, shred_fn *fn, void *ctx,
	       char *err, size_t errlen);

#endif
