/*
 * ckpt_dir.c - read a checkpoint directory for the pure rules in
 * src/core/box/ckpt.c (ckpt_dir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/ckpt_dir.h"
#include "base/i18n.h"

/* Look inside a checkpoint directory: is it empty, does it hold a marker? */
static void dir_state(int dfd, const char *name, bool *empty, bool *marker)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	*empty = true;
	*marker = false;
	if (fd < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		*empty = false;
		if (ckpt_is_dir_marker(de->d_name))
			*marker = true;
	}
	closedir(d);
}

int ckpt_dir_read(const char *dir, struct ckpt_dir *out, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	size_t cap = 0;
	int dfd;

	out->v = NULL;
	out->n = 0;
	if (!(d = opendir(dir))) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		struct ckpt_entry *e;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, 0) < 0)
			continue;   /* vanished or a dangling link: not a checkpoint */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue;
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct ckpt_entry *nv = realloc(out->v, ncap * sizeof(*nv));
			if (!nv)
				goto out_nomem;
			out->v = nv;
			cap = ncap;
		}
		e = &out->v[out->n];
		memset(e, 0, sizeof(*e));
		if (!(e->name = strdup(de->d_name)))
			goto out_nomem;
		out->n++;
		e->is_dir = S_ISDIR(st.st_mode);
		e->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (e->is_dir)
			dir_state(dfd, de->d_name, &e->empty, &e->has_marker);
		else
			e->empty = st.st_size == 0;
	}
	closedir(d);
	return 0;
out_nomem:
	closedir(d);
	ckpt_dir_free(out);
	snprintf(err, errlen, _("%s: out of memory"), dir);
	return -1;
}

void ckpt_dir_free(struct ckpt_dir *d)
{
	for (size_t i = 0; i < d->n; i++)
		free((char *)d->v[i].name);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

int ckpt_dir_latest(const char *dir, char *path, size_t n, char *err, size_t errlen)
{
	struct ckpt_dir d;
	long i;
	int rc;

	if ((rc = ckpt_dir_read(dir, &d, err, errlen)))
		return rc > 0 ? 0 : -1;
	i = ckpt_latest(d.v, d.n);
	rc = 0;
	if (i >= 0) {
		const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
		if ((size_t)snprintf(path, n, "%s%s%s", dir, sep, d.v[i].name) >= n) {
			snprintf(err, errlen, _("%s: path too long"), dir);
			rc = -1;
		} else {
			rc = 1;
		}
	}
	ckpt_dir_free(&d);
	return rc;
}

/* Remove name under the directory dfd, recursively. */
static int remove_at(int dfd, const char *name, const char *shown, char *err, size_t errlen)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		goto out_errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, name, 0) < 0)
			goto out_errno;
		return 0;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto out_errno;
	if (!(d = fdopendir(fd))) {
		close(fd);
		goto out_errno;
	}
	while (!rc && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rc = remove_at(dirfd(d), de->d_name, shown, err, errlen);
	closedir(d);
	if (rc)
		return rc;
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		goto out_errno;
	return 0;
out_errno:
	snprintf(err, errlen, _("%s: cannot remove %s: %s"), shown, name, strerror(errno));
	return -1;
}

int ckpt_dir_remove(const char *dir, const char *name, char *err, size_t errlen)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	rc = remove_at(dfd, name, dir, err, errlen);
	close(dfd);
	return rc;
}
