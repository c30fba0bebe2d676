/*
 * proc.c - the /proc readings the guard needs (proc.h): the processes
 * under a pid, and the CPU time of that tree, read cheaply once a poll.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/hot.h"
#include "os/proc.h"

/* The unsigned number at *p, moving *p past it; -1 when there is none. */
GPURENT_HOT static int take_num(const char **p, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;

	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned long long)(*s++ - '0');
	*p = s;
	*out = v;
	return 0;
}

/*
 * Parse a /proc/PID/stat line: parent and CPU ticks (with reaped
 * children). By hand, not sscanf: this runs every second for days, and
 * the scanf machinery alone touches more pages than the rest of a tick.
 * After the command name: state, ppid (field 4), then fields 5-13, then
 * utime, stime, cutime, cstime (14-17), proc(5).
 */
GPURENT_HOT static int stat_parse(const char *buf, int *ppid, unsigned long long *ticks)
{
	const char *p = strrchr(buf, ')');   /* the command name may hold spaces and ')' */
	unsigned long long v, sum = 0;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	p += 3;   /* past ") S" */
	if (take_num(&p, &v) || v > 0x7fffffff)
		return -1;
	*ppid = (int)v;
	/* pgrp session tty_nr tpgid: tpgid is -1 without a terminal */
	for (int f = 5; f <= 13; f++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		while (*p && *p != ' ')
			p++;
	}
	for (int f = 14; f <= 17; f++) {
		if (take_num(&p, &v))
			return -1;
		sum += v;
	}
	*ticks = sum;
	return 0;
}

/*
 * Did opening a /proc file fail because its process (or thread) is gone?
 * Anything else (out of descriptors or memory) makes the reading unknown,
 * never "no processes": that would read as idle and stop a busy job.
 */
static bool gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

/* One process of a /proc scan and its parent. */
struct proc_row {
	pid_t pid, ppid;
};

/* Read every process; *rows is the caller's to free. Returns the count or -1. */
static long proc_scan(struct proc_row **rows)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0, cap = 256;
	struct proc_row *v;

	*rows = NULL;
	if (!d)
		return -1;
	if (!(v = malloc(cap * sizeof(*v)))) {
		closedir(d);
		return -1;
	}
	while ((de = readdir(d))) {
		char path[300], buf[512];
		unsigned long long ticks;
		int fd, ppid;
		ssize_t len;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (gone(errno))
				continue;
			closedir(d);
			free(v);
			return -1;
		}
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		if (stat_parse(buf, &ppid, &ticks))
			continue;
		if (n == cap) {
			struct proc_row *nv = realloc(v, 2 * cap * sizeof(*v));
			if (!nv) {
				/* a partial list could miss the busy process: unknown instead */
				closedir(d);
				free(v);
				return -1;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = (struct proc_row){(pid_t)atol(de->d_name), (pid_t)ppid};
	}
	closedir(d);
	*rows = v;
	return (long)n;
}

static int row_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proc_row *)a)->pid, y = ((const struct proc_row *)b)->pid;

	return (x > y) - (x < y);
}

/*
 * Mark the descendants of root in mark[] (root itself excluded), skipping
 * except's subtree. Sorts v by pid; one pass per generation.
 */
static void proc_mark(struct proc_row *v, size_t n, pid_t root, pid_t except, char *mark)
{
	bool changed = true;

	qsort(v, n, sizeof(*v), row_cmp);
	while (changed) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			struct proc_row key = {.pid = v[i].ppid};
			const struct proc_row *parent;

			if (mark[i] || v[i].pid == except || v[i].pid == root)
				continue;
			if (v[i].ppid == root) {
				mark[i] = changed = true;
				continue;
			}
			parent = bsearch(&key, v, n, sizeof(*v), row_cmp);
			if (parent && mark[parent - v])
				mark[i] = changed = true;
		}
	}
}

/*
 * Can the tree be walked through /proc/PID/task/TID/children (Linux 3.5+
 * with CONFIG_PROC_CHILDREN, as Debian, Ubuntu, RHEL and Fedora build
 * it)? That reads the tree's own processes only; the whole-/proc scan
 * reads every process on the box. GPURENT_PROC_WALK=scan forces the scan.
 */
static bool children_files(void)
{
	static int ok = -1;

	if (ok < 0) {
		const char *force = getenv("GPURENT_PROC_WALK");
		ok = force && !strcmp(force, "scan") ? 0 : access("/proc/thread-self/children", R_OK) == 0;
	}
	return ok;
}

static int push_pid(pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	if (*n == *cap) {
		pid_t *nv = realloc(*v, 2 * *cap * sizeof(**v));
		if (!nv)
			return -1;
		*v = nv;
		*cap *= 2;
	}
	(*v)[(*n)++] = pid;
	return 0;
}

/* Append the children of every thread of pid but except; 0, or -1 without memory. */
static int add_children(pid_t pid, pid_t except, pid_t **v, size_t *n, size_t *cap)
{
	char path[96];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return gone(errno) ? 0 : -1;   /* gone: no children */
	while (rc == 0 && (de = readdir(d))) {
		char buf[4096];
		unsigned long long cur = 0;
		bool in = false;
		ssize_t len;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/children", (long)pid, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (!gone(errno))
				rc = -1;   /* the thread is not gone: its children are unknown */
			continue;
		}
		/* "12 345 6789 ": pids split by spaces, maybe across reads */
		while (rc == 0 && ((len = read(fd, buf, sizeof(buf))) > 0 || (len < 0 && errno == EINTR)))
			for (ssize_t i = 0; i < len && rc == 0; i++) {
				if (buf[i] >= '0' && buf[i] <= '9') {
					cur = cur * 10 + (unsigned long long)(buf[i] - '0');
					in = true;
				} else if (in) {
					if ((pid_t)cur != except)
						rc = push_pid((pid_t)cur, v, n, cap);
					cur = 0;
					in = false;
				}
			}
		if (in && rc == 0 && (pid_t)cur != except)
			rc = push_pid((pid_t)cur, v, n, cap);
		close(fd);
	}
	closedir(d);
	return rc;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/*
 * root's descendants (not root), skipping except's subtree, breadth first
 * through the children files; sorted, each once (a process reparented to
 * root during the walk is seen twice). *out is the caller's to free.
 * Returns the count, or -1.
 */
static long proc_walk(pid_t root, pid_t except, pid_t **out)
{
	size_t n = 0, cap = 16, u = 0;
	pid_t *v = malloc(cap * sizeof(*v));

	*out = NULL;
	if (!v)
		return -1;
	if (add_children(root, except, &v, &n, &cap))
		goto fail;
	/* a bound, so that pid reuse racing the walk cannot make it endless */
	for (size_t i = 0; i < n && n < (1u << 20); i++)
		if (add_children(v[i], except, &v, &n, &cap))
			goto fail;
	qsort(v, n, sizeof(*v), pid_cmp);
	for (size_t i = 0; i < n; i++)
		if (!u || v[i] != v[u - 1])
			v[u++] = v[i];
	*out = v;
	return (long)u;
fail:
	free(v);
	return -1;
}

/* CPU ticks through an open /proc/PID/stat; -1 when the process is gone. */
GPURENT_HOT static long long fd_ticks(int fd)
{
	char buf[512];
	unsigned long long ticks;
	int ppid;
	ssize_t len = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

	if (len <= 0)
		return -1;
	buf[len] = '\0';
	return stat_parse(buf, &ppid, &ticks) ? -1 : (long long)ticks;
}

static void tree_close(struct proc_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	t->n = 0;
}

void proc_tree_reset(struct proc_tree *t)
{
	tree_close(t);
	t->next_scan = 0;
	t->gap = 2;
}

/* root's descendants but except's subtree from a scan of /proc; *out is the caller's. -1 without /proc. */
static long scan_members(pid_t root, pid_t except, pid_t **out)
{
	struct proc_row *v;
	long n, m = 0;
	char *mark;

	*out = NULL;
	if ((n = proc_scan(&v)) < 0)
		return -1;
	if (!(mark = calloc(n ? (size_t)n : 1, 1)) || !(*out = malloc((n ? (size_t)n : 1) * sizeof(**out)))) {
		free(mark);
		free(v);
		return -1;
	}
	proc_mark(v, (size_t)n, root, except, mark);
	for (long i = 0; i < n; i++)
		if (mark[i])
			(*out)[m++] = v[i].pid;
	free(mark);
	free(v);
	return m;
}

/* The tree's members, from the children files or a scan of /proc; -1 when unknown. */
static long tree_members(pid_t root, pid_t except, pid_t **out)
{
	return children_files() ? proc_walk(root, except, out) : scan_members(root, except, out);
}

size_t proc_descendants(pid_t root, pid_t *out, size_t max)
{
	pid_t *w;
	long n = tree_members(root, -1, &w);

	if (n < 0 && children_files())
		n = scan_members(root, -1, &w);   /* the walk failed part way: try the scan */
	if (n < 0)
		return 0;
	for (long i = 0; i < n && (size_t)i < max; i++)
		out[i] = w[i];
	free(w);
	return (size_t)n;
}

GPURENT_HOT double proc_tree_cpu(struct proc_tree *t, pid_t root, pid_t except, double now, double rescan_s)
{
	static long hz;
	unsigned long long ticks = 0;
	pid_t *w;
	long n;

	if (!hz && (hz = sysconf(_SC_CLK_TCK)) <= 0)
		hz = 100;
	if (now < t->next_scan) {
		for (size_t i = 0; i < t->n;) {
			long long k = fd_ticks(t->fds[i]);
			if (k < 0) {
				/* gone: its CPU is in its parent's cutime, read below */
				if (t->fds[i] >= 0)
					close(t->fds[i]);
				t->fds[i] = t->fds[--t->n];
				t->pids[i] = t->pids[t->n];
				continue;
			}
			ticks += (unsigned long long)k;
			i++;
		}
		return (double)ticks / (double)hz;
	}
	tree_close(t);   /* replaced below: their descriptors are free for the look */
	if ((n = tree_members(root, except, &w)) < 0)
		return -1;
	for (long i = 0; i < n; i++) {
		char path[64];
		long long k;
		int fd;

		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)w[i]);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			if (gone(errno))
				continue;
			tree_close(t);
			free(w);
			return -1;
		}
		if ((k = fd_ticks(fd)) < 0) {
			close(fd);   /* gone since */
			continue;
		}
		ticks += (unsigned long long)k;
		if (t->n == t->cap) {
			size_t ncap = t->cap ? 2 * t->cap : 16;
			pid_t *np = realloc(t->pids, ncap * sizeof(*np));
			int *nf = np ? realloc(t->fds, ncap * sizeof(*nf)) : NULL;
			if (np)
				t->pids = np;
			if (nf)
				t->fds = nf;
			if (!np || !nf) {
				/* a member the polls would miss would read as idle: unknown instead */
				close(fd);
				tree_close(t);
				free(w);
				return -1;
			}
			t->cap = ncap;
		}
		t->pids[t->n] = w[i];
		t->fds[t->n++] = fd;
	}
	free(w);
	if (!(t->gap > 0))
		t->gap = 2;
	t->next_scan = now + (t->gap < rescan_s ? t->gap : rescan_s);
	t->gap = rescan_s;
	return (double)ticks / (double)hz;
}

void proc_tree_free(struct proc_tree *t)
{
	tree_close(t);
	free(t->pids);
	free(t->fds);
	*t = (struct proc_tree){0};
}
