/*
 * netscan.c - listening sockets and their owners (netscan.h), from a /proc
 * root that the tests may redirect. Reads config files that may hold a
 * Jupyter token only into a buffer that is zeroed after the verdict.
 */
#define _GNU_SOURCE
#include "os/netscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/child.h"
#include "base/util.h"

extern char **environ;

#define READ_MAX (8u << 20)   /* /proc/net/tcp of a busy box: 150 bytes a socket */

const char *netscan_proc_root(void)
{
	const char *r = getenv("GPURENT_PROC_ROOT");

	return r && *r ? r : "/proc";
}

/* The whole of path into *buf (caller frees), at most max bytes; -1 when
 * unreadable. /proc files have no size: read until EOF. */
static int slurp(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t cap = 0, n = 0;
	char *b = NULL;
	struct stat st;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t got;
		if (util_grow((void **)&b, &cap, n + 4097, 1))
			break;
		got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n >= max)
			break;
	}
	close(fd);
	if (!b)
		return -1;
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static void wipe_free(char *b, size_t n)
{
	if (!b)
		return;
	explicit_bzero(b, n);
	free(b);
}

/* argv of pid from root/PID/cmdline into words (pointers into *store,
 * caller frees *store); returns how many. */
static size_t read_cmdline(const char *root, long pid, char **store, const char **words,
			   size_t max)
{
	char path[4096];
	size_t len, k = 0;

	snprintf(path, sizeof(path), "%s/%ld/cmdline", root, pid);
	if (slurp(path, 65536, store, &len))
		return 0;
	for (size_t i = 0; i < len && k < max; i += strlen(*store + i) + 1)
		words[k++] = *store + i;
	return k;
}

/* Jupyter's config files, concatenated (JUPYTER_CONFIG_DIR or ~/.jupyter). */
static char *jupyter_config(size_t *len)
{
	static const char *const names[] = {"jupyter_server_config.py", "jupyter_server_config.json",
					    "jupyter_notebook_config.py",
					    "jupyter_notebook_config.json"};
	const char *dir = getenv("JUPYTER_CONFIG_DIR"), *home = getenv("HOME");
	char base[4096], path[4200];
	char *all = NULL;
	size_t cap = 0, n = 0;

	*len = 0;
	if (dir && *dir)
		snprintf(base, sizeof(base), "%s", dir);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s/.jupyter", home);
	else
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *b;
		size_t l;
		snprintf(path, sizeof(path), "%s/%s", base, names[i]);
		if (slurp(path, 1u << 20, &b, &l))
			continue;
		if (!util_grow((void **)&all, &cap, n + l + 2, 1)) {
			memcpy(all + n, b, l);
			n += l;
			all[n++] = '\n';
			all[n] = '\0';
		}
		wipe_free(b, l);
	}
	*len = n;
	return all;
}

/* `sshd -T -f CONFIG` into buf (root only: sshd needs its host keys); 0
 * when it answered. */
static int sshd_dump(const char *config, char *buf, size_t cap)
{
	const char *argv[] = {"sshd", "-T", "-f", config, NULL};
	struct child_opts co = {0};
	struct child c;
	size_t len = 0;
	int status = 0, eno;
	char err[128];
	double t0;

	buf[0] = '\0';
	if (geteuid() != 0)
		return -1;
	co.argv = argv;
	co.envp = environ;
	co.in_fd = -1;
	co.capture = true;
	co.err_null = true;
	if (child_spawn(&co, &c, &eno, err, sizeof(err)))
		return -1;
	t0 = util_now_mono();
	for (;;) {
		struct pollfd p = {.fd = c.out_fd, .events = POLLIN};
		ssize_t got;
		if (util_now_mono() - t0 > 10) {
			kill(-c.pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, 500) < 0 && errno != EINTR)
			break;
		got = read(c.out_fd, buf + len, cap - 1 - len);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		buf[len] = '\0';
		if (len + 1 >= cap)
			break;
	}
	close(c.out_fd);
	kill(-c.pid, SIGKILL);
	child_wait(c.pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 && len ? 0 : -1;
}

static void judge_sshd(struct sec_listener *li)
{
	const char *conf = getenv("GPURENT_SSHD_CONFIG");
	char *dump, *b, err[256];
	size_t l;

	if (!conf || !*conf)
		conf = "/etc/ssh/sshd_config";
	if ((dump = malloc(65536)) && !sshd_dump(conf, dump, 65536) &&
	    !secscan_sshd_passwords(dump, strlen(dump), "sshd -T", false, &li->sshd_passwords, err,
				    sizeof(err)) && li->sshd_passwords != SEC_UNKNOWN) {
		snprintf(li->sshd_source, sizeof(li->sshd_source), "sshd -T");
		free(dump);
		return;
	}
	free(dump);
	if (slurp(conf, 1u << 20, &b, &l))
		return;
	/* absent from the file: OpenSSH's default, yes (sshd_config(5)) */
	if (!secscan_sshd_passwords(b, l, conf, true, &li->sshd_passwords, err, sizeof(err)))
		snprintf(li->sshd_source, sizeof(li->sshd_source), "%.63s", conf);
	free(b);
}

/* pid holding socket inode ino among root/PID/fd, or -1. */
static long owner_of(const char *root, uint64_t ino)
{
	char want[64], path[4096];
	DIR *d = opendir(root);
	struct dirent *e;
	long found = -1;

	if (!d)
		return -1;
	snprintf(want, sizeof(want), "socket:[%llu]", (unsigned long long)ino);
	while (found < 0 && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		DIR *fdd;
		struct dirent *fe;
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%ld/fd", root, pid);
		if (!(fdd = opendir(path)))
			continue;
		while ((fe = readdir(fdd))) {
			char link[128];
			ssize_t n = readlinkat(dirfd(fdd), fe->d_name, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (!strcmp(link, want)) {
				found = pid;
				break;
			}
		}
		closedir(fdd);
	}
	closedir(d);
	return found;
}

static void describe(const char *root, struct sec_listener *li)
{
	const char *words[256];
	char *store = NULL;
	size_t n = read_cmdline(root, li->pid, &store, words, ARRAY_SIZE(words));

	if (n) {
		const char *b = strrchr(words[0], '/');
		snprintf(li->proc, sizeof(li->proc), "%.63s", b ? b + 1 : words[0]);
		/* "sshd: /usr/sbin/sshd -D [listener] ...": the title, not a path */
		if (!strncmp(words[0], "sshd", 4))
			snprintf(li->proc, sizeof(li->proc), "sshd");
		li->kind = secscan_classify(words, n);
		if (li->kind == SEC_PROC_JUPYTER) {
			size_t cl;
			char *conf = jupyter_config(&cl);
			li->auth = secscan_jupyter_auth(words, n, conf, cl);
			wipe_free(conf, cl);
		} else if (li->kind == SEC_PROC_SSHD) {
			judge_sshd(li);
		}
	}
	free(store);
}

int netscan_listeners(struct sec_facts *f, char *err, size_t errlen)
{
	const char *root = netscan_proc_root();
	static const char *const files[] = {"net/tcp", "net/tcp6"};

	f->nlisteners = 0;
	f->net_read = false;
	for (size_t k = 0; k < ARRAY_SIZE(files); k++) {
		char path[4096], *b;
		size_t len, n;
		struct sec_sock *v;

		snprintf(path, sizeof(path), "%s/%s", root, files[k]);
		if (slurp(path, READ_MAX, &b, &len))
			continue;   /* no IPv6 (or no /proc): nothing listens there */
		if (secscan_parse_tcp(b, len, path, k == 1, &v, &n, err, errlen)) {
			free(b);
			f->net_read = false;
			return -1;
		}
		free(b);
		f->net_read = true;
		for (size_t i = 0; i < n && f->nlisteners < SEC_MAX_LISTENERS; i++) {
			struct sec_listener *li;
			if (v[i].state != 0x0A)
				continue;
			li = &f->listeners[f->nlisteners++];
			memset(li, 0, sizeof(*li));
			li->sock = v[i];
			li->sshd_passwords = SEC_UNKNOWN;
			li->pid = owner_of(root, v[i].inode);
			if (li->pid > 0)
				describe(root, li);
		}
		free(v);
	}
	return 0;
}
