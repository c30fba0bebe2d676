/*
 * shred.c - overwrite, then unlink (shred.h). The directory walk is in
 * name order so that a dry run tells exactly what the real one deletes.
 */
#define _GNU_SOURCE
#include "os/shred.h"
#include "base/i18n.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEPTH_MAX 256

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s: %s", path, what, strerror(errno));
	return -1;
}

/* Zeros over the file's bytes, then fsync. */
static int overwrite(const char *path, uint64_t size, char *err, size_t errlen)
{
	static const char zeros[65536];
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	uint64_t done = 0;

	if (fd < 0)
		return fail(err, errlen, path, _("cannot open it to overwrite"));
	while (done < size) {
		size_t n = size - done < sizeof(zeros) ? (size_t)(size - done) : sizeof(zeros);
		ssize_t w = write(fd, zeros, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return fail(err, errlen, path, _("cannot overwrite it"));
		}
		done += (uint64_t)w;
	}
	if (fsync(fd) && errno != EINVAL) {
		close(fd);
		return fail(err, errlen, path, "fsync");
	}
	close(fd);
	return 0;
}

static int sorted_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* 0 deleted, 1 something under it was kept (so it stays), -1 failed. */
static int shred_at(const char *path, bool zero, bool dry, shred_keep_fn *keep, shred_fn *fn,
		    void *ctx, int depth, char *err, size_t errlen)
{
	struct stat st;
	bool kept = false;

	if (keep && keep(ctx, path))
		return 1;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return fail(err, errlen, path, _("cannot read it"));
	}
	if (S_ISDIR(st.st_mode)) {
		struct dirent **names;
		int n, rc = 0;
		if (depth >= DEPTH_MAX) {
			snprintf(err, errlen, _("%s: nested more than %d levels deep"), path, DEPTH_MAX);
			return -1;
		}
		if ((n = scandir(path, &names, NULL, sorted_cmp)) < 0)
			return fail(err, errlen, path, _("cannot list it"));
		for (int i = 0; i < n; i++) {
			const char *nm = names[i]->d_name;
			char sub[4096];
			if (!rc && strcmp(nm, ".") && strcmp(nm, "..")) {
				if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, nm) >= sizeof(sub)) {
					snprintf(err, errlen, _("%s: a path inside is too long"), path);
					rc = -1;
				} else {
					rc = shred_at(sub, zero, dry, keep, fn, ctx, depth + 1, err, errlen);
					if (rc == 1) {
						kept = true;
						rc = 0;
					}
				}
			}
			free(names[i]);
		}
		free(names);
		if (rc)
			return rc;
		if (kept)
			return 1;
		if (!dry && rmdir(path))
			return fail(err, errlen, path, _("cannot remove the directory"));
		if (fn)
			fn(ctx, path, 0, true);
		return 0;
	}
	if (!dry) {
		/* a file with other hard links is only unlinked: zeros would reach
		 * the other names too (a dataset linked with cp -al) */
		if (zero && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_nlink == 1 &&
		    overwrite(path, (uint64_t)st.st_size, err, errlen))
			return -1;
		if (unlink(path))
			return fail(err, errlen, path, _("cannot unlink it"));
	}
	if (fn)
		fn(ctx, path, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0, false);
	return 0;
}

int shred_path(const char *path, bool zero, bool dry, shred_keep_fn *keep, shred_fn *fn, void *ctx,
	       char *err, size_t errlen)
{
	return shred_at(path, zero, dry, keep, fn, ctx, 0, err, errlen) < 0 ? -1 : 0;
}
