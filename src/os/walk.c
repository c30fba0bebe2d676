/*
 * walk.c - directory walking and parallel file hashing for manifests
 * (walk.h). Small files are read whole into the worker's buffer and
 * hashed in one call; big files stream through it in 1 MiB reads with
 * POSIX_FADV_SEQUENTIAL, so the kernel reads ahead.
 */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/pool.h"
#include "../core/units.h"
#include "../cli/out.h"
#include "sys.h"
#include "../util/util.h"

#define READ_BUF (1u << 20)     /* per worker; files up to MAP_MIN stream through it */
#define MAP_MIN (8u << 20)      /* files this big are hashed from the page cache in place */
#define MAP_WINDOW ((size_t)64 << 20)

/* ---- walking ---- */

struct walker {
	const struct walk_opts *o;
	struct manifest *out;
	struct hash_ctx link_hash;  /* hashes symlink targets */
	char *path;                 /* current relative path, owned */
	size_t cap;
	char target[4096];          /* a symlink's target text: here, not on the stack */
	/* open directories, for loops; the root is chain[0] */
	struct { dev_t dev; ino_t ino; } chain[WALK_MAX_DEPTH + 1];
	int depth;
	char *err;
	size_t errlen;
};

static int oom(struct walker *w)
{
	snprintf(w->err, w->errlen, "out of memory while listing the directory");
	return -1;
}

/* Make room for len+1 bytes in w->path. */
static int path_room(struct walker *w, size_t len)
{
	if (len + 1 > w->cap) {
		size_t ncap = w->cap ? w->cap : 256;
		char *np;
		while (ncap < len + 1)
			ncap *= 2;
		if (!(np = realloc(w->path, ncap)))
			return oom(w);
		w->path = np;
		w->cap = ncap;
	}
	return 0;
}

static int add(struct walker *w, size_t len, enum mf_kind kind, uint64_t size, int err)
{
	struct mf_entry *e = manifest_add(w->out, w->path, len, kind, size);

	if (!e)
		return oom(w);
	e->err = err;
	return 0;
}

static int walk_dir(struct walker *w, int dfd, size_t plen);

/* Descend into the directory name (in dfd) whose path is w->path[0..len). */
static int descend(struct walker *w, int dfd, const char *name, size_t len, const struct stat *st)
{
	int fd, rc;

	for (int i = 0; i < w->depth; i++)
		if (w->chain[i].dev == st->st_dev && w->chain[i].ino == st->st_ino)
			return add(w, len, MF_DIR_UNREADABLE, 0, ELOOP);
	if (w->depth > WALK_MAX_DEPTH) {
		/* the recursion is bounded here: one frame of a few hundred bytes per level */
		/* the path cut to 300 bytes, so that the line fits the caller's buffer */
		snprintf(w->err, w->errlen, "%.*s%s: directories nested deeper than %d levels",
			 (int)(len > 300 ? 300 : len), w->path, len > 300 ? "..." : "", WALK_MAX_DEPTH);
		return -2;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
		    (w->o->follow_symlinks ? 0 : O_NOFOLLOW));
	if (fd < 0)
		return add(w, len, MF_DIR_UNREADABLE, 0, errno);
	w->chain[w->depth].dev = st->st_dev;
	w->chain[w->depth].ino = st->st_ino;
	w->depth++;
	rc = walk_dir(w, fd, len);   /* closes fd */
	w->depth--;
	return rc;
}

static bool skipped(const struct walker *w, const struct stat *st)
{
	return w->o->skip_set && S_ISREG(st->st_mode) && st->st_dev == w->o->skip_dev &&
	       st->st_ino == w->o->skip_ino;
}

/* One directory entry, whose path is w->path[0..len). */
static int entry(struct walker *w, int dfd, const char *name, size_t len)
{
	struct stat st;
	char *target = w->target;
	ssize_t tn;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return add(w, len, MF_UNREADABLE, 0, errno);
	if (S_ISLNK(st.st_mode)) {
		struct mf_entry *e;
		if (w->o->follow_symlinks) {
			if (fstatat(dfd, name, &st, 0))
				return add(w, len, MF_UNREADABLE, 0, errno);
		} else {
			if ((tn = readlinkat(dfd, name, target, sizeof(w->target))) < 0)
				return add(w, len, MF_UNREADABLE, 0, errno);
			if ((size_t)tn >= sizeof(w->target))
				return add(w, len, MF_UNREADABLE, 0, ENAMETOOLONG);
			if (add(w, len, MF_SYMLINK, (uint64_t)tn, 0))
				return -1;
			e = &w->out->v[w->out->n - 1];
			if (hash_buffer(&w->link_hash, target, (size_t)tn, e->hash))
				return add(w, len, MF_UNREADABLE, 0, EIO);
			e->has_hash = true;
			return 0;
		}
	}
	if (skipped(w, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		return descend(w, dfd, name, len, &st);
	if (S_ISREG(st.st_mode))
		return add(w, len, MF_FILE, (uint64_t)st.st_size, 0);
	return add(w, len, MF_OTHER, 0, 0);
}

/* List dfd (whose path is w->path[0..plen), "" at the root); closes dfd. */
static int walk_dir(struct walker *w, int dfd, size_t plen)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(dfd);
		return add(w, plen, MF_DIR_UNREADABLE, 0, errno);
	}
	for (;;) {
		size_t nlen, len;
		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				rc = add(w, plen, MF_DIR_UNREADABLE, 0, errno);
			break;
		}
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		nlen = strlen(de->d_name);
		len = plen ? plen + 1 + nlen : nlen;
		if ((rc = path_room(w, len)))
			break;
		if (plen)
			w->path[plen] = '/';
		memcpy(w->path + (plen ? plen + 1 : 0), de->d_name, nlen + 1);
		if ((rc = entry(w, dirfd(d), de->d_name, len)))
			break;
	}
	closedir(d);
	return rc;
}

int walk_tree(int rootfd, const struct walk_opts *o, struct manifest *out, char *err, size_t errlen)
{
	struct walker *w = calloc(1, sizeof(*w));
	struct stat st;
	int fd, rc = -1;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	w->o = o;
	w->out = out;
	w->err = err;
	w->errlen = errlen;
	if (hash_init(&w->link_hash, out->algo, err, errlen))
		goto out_free;
	if (path_room(w, 0))
		goto out_hash;
	w->path[0] = '\0';
	/* A descriptor of its own: fdopendir() takes it over, with its offset. */
	if ((fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "cannot list the directory: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_hash;
	}
	w->chain[0].dev = st.st_dev;
	w->chain[0].ino = st.st_ino;
	w->depth = 1;
	rc = walk_dir(w, fd, 0);
out_hash:
	hash_free(&w->link_hash);
out_free:
	free(w->path);
	free(w);
	return rc;
}

void walk_follow(int rootfd, struct mf_entry *e)
{
	struct stat st;

	if (fstatat(rootfd, e->path, &st, 0)) {
		e->kind = MF_UNREADABLE;
		e->err = errno;
	} else if (S_ISREG(st.st_mode)) {
		e->kind = MF_FILE;
		e->size = (uint64_t)st.st_size;
	} else {
		e->kind = MF_OTHER;
	}
	e->has_hash = false;
}


void walk_put_path(FILE *f, const char *path)
{
	if (!*path)
		fputc('.', f);
	while (*path) {
		size_t run = strcspn(path, "\\");
		/* control bytes and invalid UTF-8 as \xNN, newline and CR as \n, \r (out.h) */
		out_write_safe(f, path, run);
		path += run;
		if (*path == '\\') {
			fputs("\\\\", f);
			path++;
		}
	}
}

unsigned walk_default_jobs(void)
{
	int n = sys_usable_cpus();   /* affinity and cgroup quotas, not the host's CPUs */

	return n > 64 ? 64 : (unsigned)n;
}

/* ---- hashing ---- */

struct progress {
	const char *label;
	uint64_t total_bytes;
	size_t total_files;
	_Atomic uint64_t bytes;
	_Atomic size_t files;
	atomic_bool stop;
	bool shown;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	double start;              /* util_now_mono() */
};

struct worker {
	struct hash_ctx h;
	unsigned char *buf;
	int rootfd;
	struct progress *pr;
};

static double since(const double *t0)
{
	return util_now_mono() - *t0;
}

static void unreadable(struct mf_entry *e, int err)
{
	e->kind = MF_UNREADABLE;
	e->err = err ? err : EIO;
	e->has_hash = false;
}

/*
 * A file that shrinks while it is mapped raises SIGBUS on the pages past
 * its new end; the worker that touched them jumps back and reports the
 * file unreadable instead of the process dying.
 */
static _Thread_local sigjmp_buf *bus_jump;

static void on_sigbus(int sig)
{
	if (bus_jump)
		siglongjmp(*bus_jump, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/*
 * Hash [0, size) of fd through windows of MAP_WINDOW bytes, asking the
 * kernel to read the next window ahead. Returns 0, -1 when the file cannot
 * be mapped (the caller falls back to read()), or -2 when the file shrank
 * under the mapping or the hash failed.
 */
static int hash_mapped(struct worker *wk, int fd, uint64_t size)
{
	sigjmp_buf jb;
	volatile uint64_t off = 0;
	void *volatile p = NULL;
	volatile size_t n = 0;
	int r;

	if (sigsetjmp(jb, 1)) {
		bus_jump = NULL;
		munmap(p, n);
		return -2;
	}
	for (; off < size; off += n) {
		n = size - off < MAP_WINDOW ? (size_t)(size - off) : MAP_WINDOW;
		p = mmap(NULL, n, PROT_READ, MAP_SHARED, fd, (off_t)off);
		if (p == MAP_FAILED) {
			p = NULL;
			return off ? -2 : -1;
		}
		posix_madvise(p, n, POSIX_MADV_SEQUENTIAL);
		if (off + n < size)
			posix_fadvise(fd, (off_t)(off + n), MAP_WINDOW, POSIX_FADV_WILLNEED);
		bus_jump = &jb;
		r = hash_update(&wk->h, p, n);
		bus_jump = NULL;
		munmap(p, n);
		p = NULL;
		if (r)
			return -2;
		atomic_fetch_add_explicit(&wk->pr->bytes, n, memory_order_relaxed);
	}
	return 0;
}

/* Worker: read and hash one file (an mf_entry *). */
static void hash_job(void *state, void *job)
{
	struct worker *wk = state;
	struct mf_entry *e = job;
	uint64_t total = 0;
	size_t fill = 0;
	bool streaming = false;
	struct stat st;
	int fd;

	fd = openat(wk->rootfd, e->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		unreadable(e, errno);
		return;
	}
	if (fstat(fd, &st)) {
		unreadable(e, errno);
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		/* Replaced by a FIFO or device since the walk: never read those. */
		e->kind = MF_OTHER;
		e->has_hash = false;
		goto out_close;
	}
	if (st.st_size >= (off_t)MAP_MIN) {
		/* Big files: hash the page cache in place, no copy (half the CPU of read()). */
		int r;
		if (hash_begin(&wk->h))
			goto out_hash_error;
		r = hash_mapped(wk, fd, (uint64_t)st.st_size);
		if (r == -2) {
			unreadable(e, EIO);
			goto out_close;
		}
		if (r == 0) {
			/* Whatever was appended since the fstat() is read below. */
			streaming = true;
			total = (uint64_t)st.st_size;
			if (lseek(fd, st.st_size, SEEK_SET) < 0) {
				unreadable(e, errno);
				goto out_close;
			}
		}
	}
	if (!streaming && st.st_size > (off_t)READ_BUF)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		ssize_t k = read(fd, wk->buf + fill, READ_BUF - fill);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			unreadable(e, errno);
			goto out_close;
		}
		if (k == 0)
			break;
		fill += (size_t)k;
		total += (uint64_t)k;
		if (fill == READ_BUF) {
			if (!streaming && hash_begin(&wk->h))
				goto out_hash_error;
			streaming = true;
			if (hash_update(&wk->h, wk->buf, fill))
				goto out_hash_error;
			atomic_fetch_add_explicit(&wk->pr->bytes, fill, memory_order_relaxed);
			fill = 0;
		}
	}
	/* Small files: one read, one call, no streaming state. */
	if (streaming ? hash_update(&wk->h, wk->buf, fill) || hash_final(&wk->h, e->hash)
		      : hash_buffer(&wk->h, wk->buf, fill, e->hash))
		goto out_hash_error;
	atomic_fetch_add_explicit(&wk->pr->bytes, fill, memory_order_relaxed);
	e->size = total;
	e->has_hash = true;
	goto out_close;
out_hash_error:
	unreadable(e, EIO);
out_close:
	close(fd);
	atomic_fetch_add_explicit(&wk->pr->files, 1, memory_order_relaxed);
}

static void progress_draw(struct progress *pr, bool last)
{
	char done[32], all[32], rate[32];
	double t = since(&pr->start);
	uint64_t b = atomic_load(&pr->bytes);

	units_fmt_bytes((double)b, done, sizeof(done));
	units_fmt_bytes((double)pr->total_bytes, all, sizeof(all));
	units_fmt_bytes(t > 0 ? (double)b / t : 0, rate, sizeof(rate));
	fprintf(stderr, "\r%s: %s / %s, %zu / %zu files, %s/s  ", pr->label, done, all,
		atomic_load(&pr->files), pr->total_files, rate);
	if (last)
		fputc('\n', stderr);
	fflush(stderr);
	pr->shown = true;
}

/* Draws the progress line every 200 ms once the work has taken a second. */
static void *progress_main(void *arg)
{
	struct progress *pr = arg;
	struct timespec until;

	pthread_mutex_lock(&pr->lock);
	while (!atomic_load(&pr->stop)) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pr->wake, &pr->lock, &until);
		if (!atomic_load(&pr->stop) && since(&pr->start) >= 1.0)
			progress_draw(pr, false);
	}
	pthread_mutex_unlock(&pr->lock);
	return NULL;
}

int walk_hash(int rootfd, struct manifest *m, const size_t *idx, size_t n, unsigned jobs,
	      const char *label, char *err, size_t errlen)
{
	struct progress pr = {.label = label, .total_files = n};
	struct worker *wk;
	void **states;
	struct pool *p = NULL;
	pthread_t tid;
	bool progress = isatty(STDERR_FILENO) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
	size_t sub = 0, got = 0, window;
	unsigned started = 0;
	int rc = -1;

	if (!n)
		return 0;
	if (jobs > n)
		jobs = (unsigned)n;
	window = 64 * (size_t)jobs;
	for (size_t i = 0; i < n; i++)
		pr.total_bytes += m->v[idx[i]].size;
	wk = calloc(jobs, sizeof(*wk));
	states = calloc(jobs, sizeof(*states));
	if (!wk || !states) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	for (; started < jobs; started++) {
		struct worker *w = &wk[started];
		if (hash_init(&w->h, m->algo, err, errlen))
			goto out_workers;
		if (!(w->buf = aligned_alloc(4096, READ_BUF))) {
			hash_free(&w->h);
			snprintf(err, errlen, "out of memory");
			goto out_workers;
		}
		w->rootfd = rootfd;
		w->pr = &pr;
		states[started] = w;
	}
	install_sigbus();
	if (!(p = pool_new(jobs, (unsigned)window, hash_job, states, err, errlen)))
		goto out_workers;
	pr.start = util_now_mono();
	pthread_mutex_init(&pr.lock, NULL);
	pthread_cond_init(&pr.wake, NULL);
	if (progress && pthread_create(&tid, NULL, progress_main, &pr))
		progress = false;
	/* Results come back in submission order; keep at most window in flight. */
	while (got < n) {
		while (sub < n && sub - got < window)
			pool_submit(p, &m->v[idx[sub++]]);
		if (!pool_next(p, NULL))
			break;
		got++;
	}
	if (progress) {
		pthread_mutex_lock(&pr.lock);
		atomic_store(&pr.stop, true);
		pthread_cond_signal(&pr.wake);
		pthread_mutex_unlock(&pr.lock);
		pthread_join(tid, NULL);
		if (pr.shown)
			progress_draw(&pr, true);
	}
	pthread_cond_destroy(&pr.wake);
	pthread_mutex_destroy(&pr.lock);
	rc = 0;
	pool_free(p);
out_workers:
	for (unsigned i = 0; i < started; i++) {
		hash_free(&wk[i].h);
		free(wk[i].buf);
	}
out_free:
	free(states);
	free(wk);
	return rc;
}
