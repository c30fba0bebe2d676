/*
 * walk.c - directory walking and parallel file hashing for manifests
 * (walk.h). Small files are read whole into the worker's buffer and
 * hashed in one call; big files stream through it in 1 MiB reads with
 * POSIX_FADV_SEQUENTIAL, so the kernel reads ahead.
 */
#define _GNU_SOURCE   /* O_NOATIME */
#include "os/progress.h"
#include "os/walk.h"

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

#include "base/pool.h"
#include "core/text/units.h"
#include "base/i18n.h"
#include "base/out.h"
#include "os/sys.h"
#include "base/util.h"

#define READ_BUF (1u << 20)     /* per worker; files up to MAP_MIN stream through it */
#define MAP_MIN (8u << 20)      /* files this big are hashed from the page cache in place */
#define MAP_WINDOW ((size_t)64 << 20)

/* ---- walking ---- */

/*
 * The walk runs on a work queue (pool.h): a job lists one directory, and
 * queues its subdirectories and its regular files in batches of up to
 * BATCH_FILES names; a batch is stat'ed (or, when hashing, opened, read
 * and hashed) by whichever thread takes it, relative to the directory's
 * descriptor. The type getdents gives (d_type) saves a stat on every
 * directory and, when hashing, on every file (the open file is fstat'ed).
 * Each thread gathers its entries in a manifest of its own; they are
 * moved into the caller's at the end.
 */
#define BATCH_FILES 64
#define BATCH_NAMES 8192        /* bytes of names in one batch */
#define SPLIT_MIN READ_BUF      /* a file this big hands the rest of its batch to another thread */
#define QUEUED_MAX 8            /* jobs queued per thread before a lister stops queueing batches */

enum { JOB_DIR, JOB_FILES, JOB_SORT };

struct wjob {
	struct workq_item item;    /* first: the queue links jobs through it */
	int kind;                  /* JOB_DIR or JOB_FILES */
};

struct dnode {
	struct wjob job;           /* first: the job that lists this directory */
	struct dnode *parent;      /* NULL at the root */
	struct dnode *next_node;   /* the list of the nodes a worker made, freed at the end */
	char *path;                /* owned: path[0..plen), "" at the root */
	size_t plen;
	const char *name;          /* in path: the name in the parent */
	dev_t dev;                 /* set when opened, for loops */
	ino_t ino;
	unsigned depth;            /* the root is 0 */
	DIR *d;                    /* open while refs > 0 */
	atomic_uint refs;          /* its listing, each child directory not yet opened, each batch */
};

struct fbatch {
	struct wjob job;
	struct dnode *dir;         /* holds a reference */
	unsigned n;
	size_t used;
	char names[BATCH_NAMES];   /* n names, each NUL-terminated */
};


struct walkstate {
	const struct walk_opts *o;
	bool hash;
	unsigned jobs;             /* threads */
	pthread_mutex_t lock;      /* the first error */
	atomic_bool failed;
	int rc;
	char *err;
	size_t errlen;
};

struct worker {
	struct hash_ctx h;
	unsigned char *buf;
	int rootfd;
	struct progress *pr;
};

struct wworker {
	struct walkstate *ws;
	struct manifest local;     /* this thread's entries */
	struct hash_ctx link_hash; /* hashes symlink targets */
	bool link_hash_ok, hw_ok;
	struct worker hw;          /* hashing: context and read buffer */
	struct dnode *nodes;       /* the nodes this thread made */
	char *path;                /* the current relative path, owned */
	size_t cap;
	char target[4096];         /* a symlink's target text */
};

static void hash_fd(struct worker *wk, int fd, const struct stat *st, struct mf_entry *e);
static void count_file(struct worker *wk);

/* Record the first error (later ones are dropped); returns rc. */
static int fail(struct wworker *w, int rc, const char *fmt, ...)
{
	struct walkstate *ws = w->ws;
	va_list ap;

	pthread_mutex_lock(&ws->lock);
	if (!atomic_load(&ws->failed)) {
		va_start(ap, fmt);
		vsnprintf(ws->err, ws->errlen, fmt, ap);
		va_end(ap);
		ws->rc = rc;
		atomic_store(&ws->failed, true);
	}
	pthread_mutex_unlock(&ws->lock);
	return rc;
}

static bool failed(const struct wworker *w)
{
	return atomic_load_explicit(&w->ws->failed, memory_order_relaxed);
}

static int oom(struct wworker *w)
{
	return fail(w, -1, "%s", _("out of memory while listing the directory"));
}

/* Make room for len+1 bytes in w->path. */
static int path_room(struct wworker *w, size_t len)
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

/* w->path = dir's path / name; *len gets its length. */
static int set_path(struct wworker *w, const struct dnode *dir, const char *name, size_t nlen,
		    size_t *len)
{
	size_t plen = dir->plen;

	*len = plen ? plen + 1 + nlen : nlen;
	if (path_room(w, *len))
		return -1;
	memcpy(w->path, dir->path, plen);
	if (plen)
		w->path[plen] = '/';
	memcpy(w->path + (plen ? plen + 1 : 0), name, nlen + 1);
	return 0;
}

static struct mf_entry *add_at(struct wworker *w, const char *path, size_t len, enum mf_kind kind,
			       uint64_t size, int err)
{
	struct mf_entry *e = manifest_add(&w->local, path, len, kind, size);

	if (!e) {
		oom(w);
		return NULL;
	}
	e->err = err;
	return e;
}

/* An entry for w->path[0..len); 0 or -1 (no memory). */
static int add(struct wworker *w, size_t len, enum mf_kind kind, uint64_t size, int err)
{
	return add_at(w, w->path, len, kind, size, err) ? 0 : -1;
}

static void node_put(struct dnode *n)
{
	if (atomic_fetch_sub(&n->refs, 1) == 1 && n->d) {
		closedir(n->d);
		n->d = NULL;
	}
}

/* Queue the directory w->path[0..len), a child of parent. */
static int push_dir(struct wworker *w, struct workq *q, struct dnode *parent, size_t len)
{
	struct dnode *c;

	if (parent->depth + 1 > WALK_MAX_DEPTH)
		/* the path cut to 300 bytes, so that the line fits the caller's buffer */
		return fail(w, -2, _("%.*s%s: directories nested deeper than %d levels"),
			    (int)(len > 300 ? 300 : len), w->path, len > 300 ? "..." : "", WALK_MAX_DEPTH);
	if (!(c = calloc(1, sizeof(*c))) || !(c->path = malloc(len + 1))) {
		free(c);
		return oom(w);
	}
	memcpy(c->path, w->path, len + 1);
	c->job.kind = JOB_DIR;
	c->parent = parent;
	c->plen = len;
	c->name = c->path + (parent->plen ? parent->plen + 1 : 0);
	c->depth = parent->depth + 1;
	c->next_node = w->nodes;
	w->nodes = c;
	atomic_fetch_add(&parent->refs, 1);
	workq_push(q, &c->job.item);
	return 0;
}

static bool skipped(const struct walk_opts *o, const struct stat *st)
{
	return o->skip_set && S_ISREG(st->st_mode) && st->st_dev == o->skip_dev &&
	       st->st_ino == o->skip_ino;
}

static int entry(struct wworker *w, struct workq *q, struct dnode *dir, const char *name, size_t len);

static struct fbatch *new_batch(struct wworker *w, struct dnode *dir)
{
	struct fbatch *b = malloc(sizeof(*b));

	if (!b) {
		oom(w);
		return NULL;
	}
	b->job.kind = JOB_FILES;
	b->dir = dir;
	b->n = 0;
	b->used = 0;
	atomic_fetch_add(&dir->refs, 1);
	return b;
}

/*
 * Open the regular file name in dir (path w->path[0..len)), read and hash
 * it. From a batch (b, the name's index i in it), a file that is no longer
 * a regular one goes through entry(), and a big one hands the rest of the
 * batch to another thread first.
 */
static int hash_named(struct wworker *w, struct workq *q, struct dnode *dir, const char *name,
		      size_t len, struct fbatch *b, unsigned i)
{
	const struct walk_opts *o = w->ws->o;
	struct mf_entry *e;
	struct stat st;
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (o->follow_symlinks ? 0 : O_NOFOLLOW);
	/* O_NOATIME: reading a dataset is no reason to write its inodes; only
	 * the owner (or CAP_FOWNER) may ask, others are refused and open plainly */
	int fd = openat(dirfd(dir->d), name, flags | O_NOATIME);
	int rc = 0;

	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd(dir->d), name, flags);

	if (fd < 0) {
		if (errno == ELOOP && b)
			return entry(w, q, dir, name, len);   /* a symlink since it was listed */
		return add(w, len, MF_UNREADABLE, 0, errno);
	}
	if (fstat(fd, &st)) {
		rc = add(w, len, MF_UNREADABLE, 0, errno);
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		/* replaced since it was listed: never read FIFOs or devices */
		return b ? entry(w, q, dir, name, len) : add(w, len, MF_OTHER, 0, 0);
	}
	if (skipped(o, &st))
		goto out_close;
	if (b && st.st_size >= (off_t)SPLIT_MIN && i + 1 < b->n) {
		/* the names after this one go to a batch of their own */
		struct fbatch *rest = new_batch(w, dir);
		const char *p = name + strlen(name) + 1;
		if (!rest) {
			rc = -1;
			goto out_close;
		}
		rest->used = b->used - (size_t)(p - b->names);
		rest->n = b->n - i - 1;
		memcpy(rest->names, p, rest->used);
		b->n = i + 1;
		b->used = (size_t)(p - b->names);
		workq_push(q, &rest->job.item);
	}
	if (!(e = add_at(w, w->path, len, MF_FILE, (uint64_t)st.st_size, 0))) {
		rc = -1;
		goto out_close;
	}
	hash_fd(&w->hw, fd, &st, e);
	count_file(&w->hw);
out_close:
	close(fd);
	return rc;
}

/* One entry of dir, stat'ed, whose path is w->path[0..len). */
static int entry(struct wworker *w, struct workq *q, struct dnode *dir, const char *name, size_t len)
{
	const struct walk_opts *o = w->ws->o;
	int dfd = dirfd(dir->d);
	struct stat st;
	ssize_t tn;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return add(w, len, MF_UNREADABLE, 0, errno);
	if (S_ISLNK(st.st_mode)) {
		struct mf_entry *e;
		if (o->follow_symlinks) {
			if (fstatat(dfd, name, &st, 0))
				return add(w, len, MF_UNREADABLE, 0, errno);
		} else {
			if ((tn = readlinkat(dfd, name, w->target, sizeof(w->target))) < 0)
				return add(w, len, MF_UNREADABLE, 0, errno);
			if ((size_t)tn >= sizeof(w->target))
				return add(w, len, MF_UNREADABLE, 0, ENAMETOOLONG);
			if (!(e = add_at(w, w->path, len, MF_SYMLINK, (uint64_t)tn, 0)))
				return -1;
			if (hash_buffer(&w->link_hash, w->target, (size_t)tn, e->hash)) {
				e->kind = MF_UNREADABLE;
				e->err = EIO;
			} else {
				e->has_hash = true;
			}
			return 0;
		}
	}
	if (skipped(o, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		return push_dir(w, q, dir, len);
	if (S_ISREG(st.st_mode))
		return w->ws->hash ? hash_named(w, q, dir, name, len, NULL, 0)
				   : add(w, len, MF_FILE, (uint64_t)st.st_size, 0);
	return add(w, len, MF_OTHER, 0, 0);
}

/* Stat (or hash) every name of the batch b; frees it. */
static void run_batch(struct workq *q, struct wworker *w, struct fbatch *b)
{
	const char *p = b->names;

	for (unsigned i = 0; i < b->n && !failed(w); i++) {
		size_t nlen = strlen(p), len;
		if (set_path(w, b->dir, p, nlen, &len))
			break;
		if (w->ws->hash)
			hash_named(w, q, b->dir, p, len, b, i);
		else
			entry(w, q, b->dir, p, len);
		p += nlen + 1;
	}
	node_put(b->dir);
	free(b);
}

/* Open the directory n in its parent; 0 when it can be listed. */
static int open_dir(struct wworker *w, struct dnode *n)
{
	struct stat st;
	int fd = openat(dirfd(n->parent->d), n->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
			(w->ws->o->follow_symlinks ? 0 : O_NOFOLLOW));
	int e = errno;

	node_put(n->parent);
	if (fd < 0) {
		add_at(w, n->path, n->plen, MF_DIR_UNREADABLE, 0, e);
		return -1;
	}
	if (fstat(fd, &st)) {
		add_at(w, n->path, n->plen, MF_DIR_UNREADABLE, 0, errno);
		close(fd);
		return -1;
	}
	for (const struct dnode *a = n->parent; a; a = a->parent)
		if (a->dev == st.st_dev && a->ino == st.st_ino) {
			add_at(w, n->path, n->plen, MF_DIR_UNREADABLE, 0, ELOOP);
			close(fd);
			return -1;
		}
	n->dev = st.st_dev;
	n->ino = st.st_ino;
	if (!(n->d = fdopendir(fd))) {
		add_at(w, n->path, n->plen, MF_DIR_UNREADABLE, 0, errno);
		close(fd);
		return -1;
	}
	atomic_store(&n->refs, 1);
	return 0;
}

/* List the directory n: queue its subdirectories, batch its files. */
static void list_dir(struct workq *q, struct wworker *w, struct dnode *n)
{
	struct fbatch *b = NULL;
	struct dirent *de;

	if (!n->d) {
		if (failed(w)) {
			node_put(n->parent);
			return;
		}
		if (open_dir(w, n))
			return;
	}
	while (!failed(w)) {
		size_t nlen, len;
		errno = 0;
		if (!(de = readdir(n->d))) {
			if (errno)
				add_at(w, n->path, n->plen, MF_DIR_UNREADABLE, 0, errno);
			break;
		}
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		nlen = strlen(de->d_name);
		if (set_path(w, n, de->d_name, nlen, &len))
			break;
		switch (de->d_type) {
		case DT_DIR:
			push_dir(w, q, n, len);
			break;
		case DT_REG:
			if (b && (b->n == BATCH_FILES || b->used + nlen + 1 > BATCH_NAMES)) {
				/* with enough queued already, the lister does this one itself:
				 * a directory of millions of files queues a few batches, not all */
				if (workq_queued(q) >= QUEUED_MAX * w->ws->jobs)
					run_batch(q, w, b);
				else
					workq_push(q, &b->job.item);
				b = NULL;
			}
			if (!b && !(b = new_batch(w, n)))
				break;
			memcpy(b->names + b->used, de->d_name, nlen + 1);
			b->used += nlen + 1;
			b->n++;
			break;
		case DT_FIFO:
		case DT_SOCK:
		case DT_CHR:
		case DT_BLK:
			add(w, len, MF_OTHER, 0, 0);
			break;
		default:   /* DT_LNK, or DT_UNKNOWN where the file system does not say */
			entry(w, q, n, de->d_name, len);
			break;
		}
	}
	if (b)
		run_batch(q, w, b);   /* the last batch here, while the directory is warm */
	node_put(n);
}

/* Sorting one thread's entries, on any thread, once the walk is done. */
struct sjob {
	struct wjob job;
	struct manifest *m;
};

static void walk_job(struct workq *q, void *state, struct workq_item *item)
{
	struct wjob *j = (struct wjob *)item;

	if (j->kind == JOB_DIR)
		list_dir(q, state, (struct dnode *)j);
	else if (j->kind == JOB_FILES)
		run_batch(q, state, (struct fbatch *)j);
	else
		manifest_sort(((struct sjob *)j)->m);
}

static int cmp_path(const struct mf_entry *a, const struct mf_entry *b)
{
	return strcmp(a->path, b->path);
}

/*
 * v holds nruns sorted runs back to back, run r at v[bounds[r]..bounds[r+1]);
 * merge them, pairs at a time, into one sorted run. With no memory for the
 * second buffer v is left as it is (the caller sorts it anyway).
 */
static void merge_runs(struct mf_entry *v, size_t *bounds, size_t nruns)
{
	size_t total = bounds[nruns];
	struct mf_entry *tmp, *src = v, *dst;

	if (nruns < 2 || !(tmp = malloc(total * sizeof(*tmp))))
		return;
	dst = tmp;
	while (nruns > 1) {
		size_t w = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			size_t a = bounds[r], b = bounds[r + 1];
			size_t end = r + 1 < nruns ? bounds[r + 2] : bounds[r + 1], i = a, j = b, o = a;
			while (i < b && j < end)   /* a last odd run has j == end: copied */
				dst[o++] = cmp_path(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
			memcpy(dst + o, src + i, (b - i) * sizeof(*dst));
			o += b - i;
			memcpy(dst + o, src + j, (end - j) * sizeof(*dst));
			bounds[w++] = a;
		}
		bounds[w] = total;
		nruns = w;
		struct mf_entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, total * sizeof(*v));
	free(tmp);
}

static void install_sigbus(void);

int walk_tree(int rootfd, const struct walk_opts *o, struct manifest *out, char *err, size_t errlen)
{
	unsigned jobs = o->jobs ? o->jobs : walk_default_jobs();
	struct walkstate ws = {.o = o, .hash = o->hash, .err = err, .errlen = errlen};
	struct progress *pr = NULL;
	struct wworker *wk = NULL;
	char empty[1] = "";
	struct dnode root = {.job.kind = JOB_DIR, .path = empty, .name = "."};
	struct workq *q = NULL;
	void **states = NULL;
	struct sjob *sorts = NULL;
	size_t *bounds = NULL;
	struct stat st;
	bool shown = false;
	unsigned made = 0;
	size_t total = 0;
	int fd, rc = -1;

	if (jobs > 256)
		jobs = 256;
	ws.jobs = jobs;
	pthread_mutex_init(&ws.lock, NULL);
	wk = calloc(jobs, sizeof(*wk));
	states = calloc(jobs, sizeof(*states));
	sorts = calloc(jobs, sizeof(*sorts));
	bounds = calloc(jobs + 1, sizeof(*bounds));
	pr = calloc(1, sizeof(*pr));
	if (!wk || !states || !sorts || !bounds || !pr) {
		snprintf(err, errlen, "%s", _("out of memory"));
		goto out_free;
	}
	for (; made < jobs; made++) {
		struct wworker *w = &wk[made];
		w->ws = &ws;
		manifest_init(&w->local, out->format, out->algo);
		states[made] = w;
		if (hash_init(&w->link_hash, out->algo, err, errlen))
			goto out_workers;
		w->link_hash_ok = true;
		if (o->hash) {
			if (hash_init(&w->hw.h, out->algo, err, errlen))
				goto out_workers;
			w->hw_ok = true;
			if (!(w->hw.buf = aligned_alloc(4096, READ_BUF))) {
				snprintf(err, errlen, "%s", _("out of memory"));
				goto out_workers;
			}
			w->hw.rootfd = rootfd;
			w->hw.pr = pr;
		}
	}
	/* A descriptor of its own: fdopendir() takes it over, with its offset. */
	if ((fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(fd, &st) ||
	    !(root.d = fdopendir(fd))) {
		snprintf(err, errlen, _("cannot list the directory: %s"), strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_workers;
	}
	root.dev = st.st_dev;
	root.ino = st.st_ino;
	atomic_store(&root.refs, 1);
	if (o->hash)
		install_sigbus();
	if (!(q = workq_new(jobs, walk_job, states, err, errlen))) {
		closedir(root.d);
		goto out_workers;
	}
	pr->label = o->label ? o->label : "manifest";
	pr->units = N_("files");   /* open-ended: the files are hashed as they are listed */
	if (o->hash)
		shown = progress_begin(pr);
	workq_push(q, &root.job.item);
	workq_wait(q);
	if (shown)
		progress_end(pr);
	if (atomic_load(&ws.failed)) {
		workq_free(q);
		rc = ws.rc;
		goto out_workers;
	}
	/* each thread's entries sorted on all threads, merged below: the caller's
	 * manifest_sort() then finds them in order */
	for (unsigned i = 0; i < made; i++) {
		sorts[i] = (struct sjob){.job.kind = JOB_SORT, .m = &wk[i].local};
		workq_push(q, &sorts[i].job.item);
	}
	workq_wait(q);
	workq_free(q);
	/* every thread's entries into out */
	for (unsigned i = 0; i < made; i++)
		total += wk[i].local.n;
	if (out->cap - out->n < total) {
		struct mf_entry *nv = realloc(out->v, (out->n + total) * sizeof(*nv));
		if (!nv) {
			snprintf(err, errlen, "%s", _("out of memory while listing the directory"));
			goto out_workers;
		}
		out->v = nv;
		out->cap = out->n + total;
	}
	bounds[0] = 0;
	for (unsigned i = 0; i < made; i++) {
		struct manifest *l = &wk[i].local;
		if (l->n)
			memcpy(out->v + out->n + bounds[i], l->v, l->n * sizeof(*l->v));
		bounds[i + 1] = bounds[i] + l->n;
		l->n = 0;   /* the paths are out's now */
	}
	merge_runs(out->v + out->n, bounds, made);
	out->n += total;
	rc = 0;
out_workers:
	for (unsigned i = 0; i < made; i++) {
		struct wworker *w = &wk[i];
		for (struct dnode *n = w->nodes, *next; n; n = next) {
			next = n->next_node;
			free(n->path);
			free(n);
		}
		manifest_free(&w->local);
		if (w->link_hash_ok)
			hash_free(&w->link_hash);
		if (w->hw_ok)
			hash_free(&w->hw.h);
		free(w->hw.buf);
		free(w->path);
	}
out_free:
	pthread_mutex_destroy(&ws.lock);
	free(pr);
	free(bounds);
	free(sorts);
	free(states);
	free(wk);
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
		progress_add(wk->pr, 0, n);
	}
	return 0;
}

static void count_file(struct worker *wk)
{
	progress_add(wk->pr, 1, 0);
}

/*
 * Read and hash the open regular file fd (st: its fstat) into e: its hash
 * and the size read, or MF_UNREADABLE. Does not close fd.
 */
static void hash_fd(struct worker *wk, int fd, const struct stat *st, struct mf_entry *e)
{
	uint64_t total = 0;
	size_t fill = 0;
	bool streaming = false;

	if (st->st_size >= (off_t)MAP_MIN) {
		/* Big files: hash the page cache in place, no copy (half the CPU of read()). */
		int r;
		if (hash_begin(&wk->h))
			goto out_hash_error;
		r = hash_mapped(wk, fd, (uint64_t)st->st_size);
		if (r == -2) {
			unreadable(e, EIO);
			return;
		}
		if (r == 0) {
			/* Whatever was appended since the fstat() is read below. */
			streaming = true;
			total = (uint64_t)st->st_size;
			if (lseek(fd, st->st_size, SEEK_SET) < 0) {
				unreadable(e, errno);
				return;
			}
		}
	}
	if (!streaming && st->st_size > (off_t)READ_BUF)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (;;) {
		size_t want = READ_BUF - fill;
		ssize_t k = read(fd, wk->buf + fill, want);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			unreadable(e, errno);
			return;
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
			progress_add(wk->pr, 0, fill);
			fill = 0;
		} else if ((size_t)k < want && st->st_size > 0 && total >= (uint64_t)st->st_size) {
			/* A short read that reached the size fstat() gave is the end of a
			 * regular file: the read() that would return 0 is saved (one
			 * system call in four for a small file). Files that say 0 bytes
			 * (/proc, FUSE) are read until read() returns 0. */
			break;
		}
	}
	/* Small files: one read, one call, no streaming state. */
	if (streaming ? hash_update(&wk->h, wk->buf, fill) || hash_final(&wk->h, e->hash)
		      : hash_buffer(&wk->h, wk->buf, fill, e->hash))
		goto out_hash_error;
	progress_add(wk->pr, 0, fill);
	e->size = total;
	e->has_hash = true;
	return;
out_hash_error:
	unreadable(e, EIO);
}

/* One job of walk_hash(): the entries m->v[idx[from..to)]. */
struct hrange {
	struct manifest *m;
	const size_t *idx;
	size_t from, to;
};

/* Worker: open, read and hash a range of files (a struct hrange *). */
static void hash_job(void *state, void *job)
{
	struct worker *wk = state;
	const struct hrange *r = job;

	for (size_t i = r->from; i < r->to; i++) {
		struct mf_entry *e = &r->m->v[r->idx[i]];
		struct stat st;
		int fd;

		if (e->has_hash)
			continue;   /* hashed by the walk */
		fd = openat(wk->rootfd, e->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			unreadable(e, errno);
		} else {
			if (fstat(fd, &st))
				unreadable(e, errno);
			else if (!S_ISREG(st.st_mode)) {
				/* Replaced by a FIFO or device since the walk: never read those. */
				e->kind = MF_OTHER;
				e->has_hash = false;
			} else
				hash_fd(wk, fd, &st, e);
			close(fd);
		}
		count_file(wk);
	}
}

/* A range ends after this many files or once it holds this many bytes. */
#define RANGE_FILES 64
#define RANGE_BYTES READ_BUF

int walk_hash(int rootfd, struct manifest *m, const size_t *idx, size_t n, unsigned jobs,
	      const char *label, char *err, size_t errlen)
{
	struct progress pr = {.label = label, .units = N_("files")};
	struct worker *wk = NULL;
	struct hrange *ranges = NULL;
	void **states = NULL;
	struct pool *p = NULL;
	bool progress;
	size_t nr = 0, sub = 0, got = 0, window, todo = 0;
	unsigned started = 0;
	int rc = -1;

	for (size_t i = 0; i < n; i++)
		if (!m->v[idx[i]].has_hash) {
			todo++;
			pr.total_bytes += m->v[idx[i]].size;
		}
	if (!todo)
		return 0;   /* nothing, or all hashed by the walk */
	pr.total_units = todo;
	/* Jobs of up to RANGE_FILES files or RANGE_BYTES: one hand-off per file is the cost
	 * on small files, and big files still spread over the threads. */
	if (!(ranges = malloc(n * sizeof(*ranges)))) {
		snprintf(err, errlen, "%s", _("out of memory"));
		return -1;
	}
	for (size_t i = 0; i < n;) {
		size_t from = i;
		uint64_t bytes = 0;
		while (i < n && i - from < RANGE_FILES && bytes < RANGE_BYTES)
			bytes += m->v[idx[i++]].size;
		ranges[nr++] = (struct hrange){.m = m, .idx = idx, .from = from, .to = i};
	}
	if (jobs > nr)
		jobs = (unsigned)nr;
	window = 16 * (size_t)jobs;
	wk = calloc(jobs, sizeof(*wk));
	states = calloc(jobs, sizeof(*states));
	if (!wk || !states) {
		snprintf(err, errlen, "%s", _("out of memory"));
		goto out_free;
	}
	for (; started < jobs; started++) {
		struct worker *w = &wk[started];
		if (hash_init(&w->h, m->algo, err, errlen))
			goto out_workers;
		if (!(w->buf = aligned_alloc(4096, READ_BUF))) {
			hash_free(&w->h);
			snprintf(err, errlen, "%s", _("out of memory"));
			goto out_workers;
		}
		w->rootfd = rootfd;
		w->pr = &pr;
		states[started] = w;
	}
	install_sigbus();
	if (!(p = pool_new(jobs, (unsigned)window, hash_job, states, err, errlen)))
		goto out_workers;
	progress = progress_begin(&pr);
	/* Results come back in submission order; keep at most window in flight. */
	while (got < nr) {
		while (sub < nr && sub - got < window)
			pool_submit(p, &ranges[sub++]);
		if (!pool_next(p, NULL))
			break;
		got++;
	}
	if (progress)
		progress_end(&pr);
	rc = 0;
	pool_free(p);
out_workers:
	for (unsigned i = 0; i < started; i++) {
		hash_free(&wk[i].h);
		free(wk[i].buf);
	}
out_free:
	free(ranges);
	free(states);
	free(wk);
	return rc;
}
