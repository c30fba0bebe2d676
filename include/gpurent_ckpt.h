/*
 * gpurent_ckpt.h - checkpoints that survive a kill at any moment, for C
 * programs. Header-only: copy this file next to your code.
 *
 *   gpurent_ckpt_write(dir, "step_1200.bin", buf, len);   // atomic
 *   gpurent_ckpt_latest(dir, path, sizeof(path), &step);  // newest whole one
 *
 * The atomic protocol: write a temp file in the same directory
 * (".NAME.tmp.XXXXXX", hidden, so nobody mistakes it for a checkpoint),
 * fsync it, rename it over NAME, fsync the directory. A kill or power loss
 * at any point leaves either the old set of checkpoints or the new one,
 * never a torn file under a checkpoint's name.
 *
 * gpurent_ckpt_latest() applies the same rules as `gpurent ckpt latest`
 * (docs/checkpoints.md): names carry a step number (the last digits once
 * extensions are stripped, compared as numbers: step_1000 after step_999);
 * temp files are ignored; where any checkpoint has a completion marker
 * (NAME.complete, NAME.done, or COMPLETE/DONE/.complete/.done/.metadata/
 * trainer_state.json inside a directory) only marked ones count; otherwise
 * empty files and directories are torn and ignored.
 *
 * Needs POSIX (compile with -D_POSIX_C_SOURCE=200809L or _DEFAULT_SOURCE).
 * Functions return 0 on success and -1 with errno set on failure, except
 * where written otherwise. Public domain / CC0, like the rest is MIT.
 */
#ifndef GPURENT_CKPT_PUBLIC_H
#define GPURENT_CKPT_PUBLIC_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define GPURENT_CKPT_PATH_MAX 4096

/* An open checkpoint being written: write to fd, then commit or abort. */
struct gpurent_ckpt_file {
	int fd;
	char tmp[GPURENT_CKPT_PATH_MAX];
	char path[GPURENT_CKPT_PATH_MAX];
	char dir[GPURENT_CKPT_PATH_MAX];
};

/* Open a temp file for dir/name. On success f->fd is writable. */
static inline int gpurent_ckpt_begin(struct gpurent_ckpt_file *f, const char *dir, const char *name)
{
	f->fd = -1;
	if (!name[0] || strchr(name, '/')) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(f->dir, sizeof(f->dir), "%s", dir[0] ? dir : ".") >= sizeof(f->dir) ||
	    (size_t)snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name) >= sizeof(f->path) ||
	    (size_t)snprintf(f->tmp, sizeof(f->tmp), "%s/.%s.tmp.XXXXXX", f->dir, name) >= sizeof(f->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((f->fd = mkstemp(f->tmp)) < 0)
		return -1;
	(void)fchmod(f->fd, 0644);   /* mkstemp made it 0600 */
	return 0;
}

/* Write all of buf to fd, retrying short writes and EINTR. */
static inline int gpurent_ckpt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = (const char *)buf;

	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Drop a checkpoint being written: close and remove the temp file. */
static inline void gpurent_ckpt_abort(struct gpurent_ckpt_file *f)
{
	int saved = errno;

	if (f->fd >= 0) {
		close(f->fd);
		unlink(f->tmp);
		f->fd = -1;
	}
	errno = saved;
}

/* fsync, close, rename over the final name, fsync the directory. */
static inline int gpurent_ckpt_commit(struct gpurent_ckpt_file *f)
{
	int dfd, rc;

	if (fsync(f->fd) < 0) {
		gpurent_ckpt_abort(f);
		return -1;
	}
	rc = close(f->fd);
	f->fd = -1;
	if (rc < 0 || rename(f->tmp, f->path) < 0) {
		int saved = errno;
		unlink(f->tmp);
		errno = saved;
		return -1;
	}
	if ((dfd = open(f->dir, O_RDONLY | O_DIRECTORY)) < 0)
		return -1;
	rc = fsync(dfd);
	close(dfd);
	return rc;
}

/* Write len bytes of buf as dir/name, atomically. */
static inline int gpurent_ckpt_write(const char *dir, const char *name, const void *buf, size_t len)
{
	struct gpurent_ckpt_file f;

	if (gpurent_ckpt_begin(&f, dir, name) < 0)
		return -1;
	if (gpurent_ckpt_write_all(f.fd, buf, len) < 0) {
		gpurent_ckpt_abort(&f);
		return -1;
	}
	return gpurent_ckpt_commit(&f);
}

/* --- finding the newest complete checkpoint --------------------------- */

static inline int gpurent_ckpt__ends_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* 1 for a temporary file name. */
static inline int gpurent_ckpt_is_temp(const char *name)
{
	static const char *const endings[] = {"~", ".part", ".partial", ".incomplete", ".lock", ".swp"};
	const char *dot = strrchr(name, '.');
	size_t i;

	if (!name[0] || name[0] == '.' || !strncasecmp(name, "tmp", 3))
		return 1;
	for (const char *p = name; *p; p++)
		if (!strncasecmp(p, ".tmp", 4))
			return 1;
	for (i = 0; i < sizeof(endings) / sizeof(endings[0]); i++)
		if (gpurent_ckpt__ends_ci(name, endings[i]))
			return 1;
	if (dot && strlen(dot + 1) == 6) {
		int alnum = 1, lower = 1;
		for (const char *p = dot + 1; *p; p++) {
			alnum = alnum && isalnum((unsigned char)*p);
			lower = lower && islower((unsigned char)*p);
		}
		if (alnum && !lower)
			return 1;
	}
	return 0;
}

/* 1 and *step when the name carries a step number, else 0. */
static inline int gpurent_ckpt_step(const char *name, unsigned long long *step)
{
	size_t end = strlen(name), i, start;
	unsigned long long v = 0;

	for (;;) {   /* strip extensions with a letter in them */
		size_t d = end;
		int letter = 0;
		while (d > 0 && name[d - 1] != '.')
			d--;
		if (d <= 1 || end - (d - 1) > 13)
			break;
		for (i = d; i < end; i++)
			letter = letter || isalpha((unsigned char)name[i]);
		if (!letter)
			break;
		end = d - 1;
	}
	for (i = end; i > 0 && !isdigit((unsigned char)name[i - 1]); i--)
		;
	if (!i)
		return 0;
	for (start = i; start > 0 && isdigit((unsigned char)name[start - 1]); start--)
		;
	while (start < i - 1 && name[start] == '0')
		start++;
	if (i - start > 19)
		return 0;
	for (; start < i; start++)
		v = v * 10 + (unsigned long long)(name[start] - '0');
	*step = v;
	return 1;
}

/* Length of X when name is "X.complete" or "X.done" (any case), else 0. */
static inline size_t gpurent_ckpt__marker_base(const char *name)
{
	size_t n = strlen(name);
	if (gpurent_ckpt__ends_ci(name, ".complete") && n > 9)
		return n - 9;
	if (gpurent_ckpt__ends_ci(name, ".done") && n > 5)
		return n - 5;
	return 0;
}

/* Inside a checkpoint directory: does it hold a marker? Is it empty? */
static inline void gpurent_ckpt__dir_state(const char *path, int *marker, int *empty)
{
	static const char *const markers[] = {
		"COMPLETE", "DONE", ".complete", ".done", ".metadata", "trainer_state.json",
	};
	DIR *d = opendir(path);
	struct dirent *de;

	*marker = 0;
	*empty = 1;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		*empty = 0;
		for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++)
			if (!strcmp(de->d_name, markers[i]))
				*marker = 1;
	}
	closedir(d);
}

/*
 * The newest complete checkpoint in dir: writes "dir/NAME" into path and
 * its step into *step (may be NULL). Returns 1 when found, 0 when there is
 * none (or dir does not exist), -1 on another error (errno set).
 */
static inline int gpurent_ckpt_latest(const char *dir, char *path, size_t len, unsigned long long *step)
{
	char best[GPURENT_CKPT_PATH_MAX] = "", p[GPURENT_CKPT_PATH_MAX];
	unsigned long long best_step = 0;
	long long best_mtime = 0;
	int marker_mode = 0, pass;
	DIR *d;
	struct dirent *de;

	if (!(d = opendir(dir)))
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	/* pass 0 finds whether any entry has a marker; pass 1 chooses */
	for (pass = 0; pass < 2; pass++) {
		rewinddir(d);
		while ((de = readdir(d))) {
			const char *nm = de->d_name;
			unsigned long long s;
			struct stat st;
			size_t base = gpurent_ckpt__marker_base(nm);
			int marker = 0, empty = 0, complete;
			long long mt;

			if (gpurent_ckpt_is_temp(nm))
				continue;
			if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, nm) >= sizeof(p) || stat(p, &st) < 0)
				continue;
			if (base && !S_ISDIR(st.st_mode)) {
				/* a marker: does its checkpoint exist? */
				if (pass == 0 && (size_t)snprintf(p, sizeof(p), "%s/%.*s", dir, (int)base, nm) < sizeof(p) &&
				    access(p, F_OK) == 0)
					marker_mode = 1;
				continue;
			}
			if (S_ISDIR(st.st_mode))
				gpurent_ckpt__dir_state(p, &marker, &empty);
			else if (S_ISREG(st.st_mode))
				empty = st.st_size == 0;
			else
				continue;
			if (pass == 0) {
				marker_mode |= marker;
				continue;
			}
			if (!gpurent_ckpt_step(nm, &s))
				continue;
			if (!marker && !S_ISDIR(st.st_mode)) {
				char m[GPURENT_CKPT_PATH_MAX];
				static const char *const sfx[] = {".complete", ".done", ".COMPLETE", ".DONE"};
				for (size_t i = 0; i < 4 && !marker; i++)
					marker = (size_t)snprintf(m, sizeof(m), "%s%s", p, sfx[i]) < sizeof(m) &&
						 access(m, F_OK) == 0;
			}
			complete = marker || (!marker_mode && !empty);
			if (!complete)
				continue;
			mt = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
			if (best[0] && (s < best_step || (s == best_step && (mt < best_mtime ||
			    (mt == best_mtime && strcmp(nm, strrchr(best, '/') + 1) <= 0)))))
				continue;
			snprintf(best, sizeof(best), "%s", p);
			best_step = s;
			best_mtime = mt;
		}
	}
	closedir(d);
	if (!best[0])
		return 0;
	if ((size_t)snprintf(path, len, "%s", best) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (step)
		*step = best_step;
	return 1;
}

#endif
