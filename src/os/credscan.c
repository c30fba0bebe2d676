/*
 * credscan.c - credential files, secret-named variables and leftovers
 * (credscan.h). A credential's text is read only into a buffer that is
 * counted by src/core/box/secscan.c and zeroed; nothing of it is kept.
 */
#define _GNU_SOURCE
#include "os/credscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define CRED_READ_MAX (1u << 20)
#define KEY_HEAD 128   /* enough for a PEM header or OpenSSH's cipher name, not a key */

/* Read at most max bytes of a regular file (not following a final
 * symlink) into a new buffer; -1 when not a regular file or unreadable. */
static int read_prefix(const char *path, size_t max, char **buf, size_t *len, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t n = 0;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || !(b = malloc(max + 1))) {
		close(fd);
		return -1;
	}
	while (n < max) {
		ssize_t got = read(fd, b + n, max - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static void add_cred(struct sec_facts *f, enum sec_cred kind, const char *path)
{
	struct sec_cred_file *c;
	struct stat st;
	char *b;
	size_t len;

	if (f->ncreds >= SEC_MAX_CREDS || strlen(path) >= sizeof(f->creds[0].path))
		return;   /* a path cut short would name another file */
	if (read_prefix(path, kind == SEC_CRED_SSH_KEY ? KEY_HEAD : CRED_READ_MAX, &b, &len, &st))
		return;
	c = &f->creds[f->ncreds];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->mode = (unsigned)(st.st_mode & 07777);
	if (kind == SEC_CRED_SSH_KEY) {
		c->key = secscan_key_kind(b, len);
		c->count = c->key != SEC_KEY_NOT_A_KEY;
	} else {
		secscan_cred_facts(kind, b, len, &c->count, &c->temporary);
	}
	explicit_bzero(b, len);
	free(b);
	if (c->count > 0)
		f->ncreds++;
}

/* Private keys in dir: every regular file but the public and bookkeeping ones. */
static void add_ssh_keys(struct sec_facts *f, const char *dir)
{
	static const char *const skip[] = {"authorized_keys", "authorized_keys2", "known_hosts",
					   "known_hosts.old", "config", "environment", "rc"};
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);
		bool ignore = nm[0] == '.' || (l > 4 && !strcmp(nm + l - 4, ".pub"));
		char path[4096];
		for (size_t k = 0; !ignore && k < ARRAY_SIZE(skip); k++)
			ignore = !strcmp(nm, skip[k]);
		if (!ignore) {
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, nm) < sizeof(path))
				add_cred(f, SEC_CRED_SSH_KEY, path);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

void credscan_files(struct sec_facts *f, const char *home, const char *cwd)
{
	static const struct {
		enum sec_cred kind;
		const char *rel;
	} places[] = {
		{SEC_CRED_AWS, ".aws/credentials"},
		{SEC_CRED_GCLOUD, ".config/gcloud/application_default_credentials.json"},
		{SEC_CRED_GCLOUD, ".config/gcloud/credentials.db"},
		{SEC_CRED_GCLOUD, ".config/gcloud/access_tokens.db"},
		{SEC_CRED_HF, ".cache/huggingface/token"},
		{SEC_CRED_NETRC, ".netrc"},
		{SEC_CRED_GIT, ".git-credentials"},
		{SEC_CRED_DOCKER, ".docker/config.json"},
	};
	char path[4096];

	if (home && *home) {
		const char *hf = getenv("HF_HOME");
		struct dirent **names;
		int n;
		for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
			snprintf(path, sizeof(path), "%s/%s", home, places[i].rel);
			add_cred(f, places[i].kind, path);
		}
		/* gcloud's per-account copies: legacy_credentials/ACCOUNT/adc.json */
		snprintf(path, sizeof(path), "%s/.config/gcloud/legacy_credentials", home);
		n = scandir(path, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			char p2[4200];
			if (names[i]->d_name[0] != '.') {
				if ((size_t)snprintf(p2, sizeof(p2), "%s/%s/adc.json", path,
						     names[i]->d_name) < sizeof(p2))
					add_cred(f, SEC_CRED_GCLOUD, p2);
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		if (hf && *hf) {
			char def[4096];
			snprintf(def, sizeof(def), "%s/.cache/huggingface", home);
			if (strcmp(hf, def)) {
				snprintf(path, sizeof(path), "%s/token", hf);
				add_cred(f, SEC_CRED_HF, path);
			}
		}
		snprintf(path, sizeof(path), "%s/.ssh", home);
		add_ssh_keys(f, path);
	}
	if (cwd && *cwd) {
		snprintf(path, sizeof(path), "%s/.env", cwd);
		add_cred(f, SEC_CRED_DOTENV, path);
	}
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

void credscan_env(struct sec_facts *f, char *const *envp)
{
	f->nenvnames = 0;
	for (; envp && *envp && f->nenvnames < SEC_MAX_ENVNAMES; envp++) {
		const char *eq = strchr(*envp, '=');
		size_t l = eq ? (size_t)(eq - *envp) : strlen(*envp);
		if (!l || l >= sizeof(f->envnames[0]) || !secscan_secret_name(*envp))
			continue;
		memcpy(f->envnames[f->nenvnames], *envp, l);
		f->envnames[f->nenvnames++][l] = '\0';
	}
	qsort(f->envnames, f->nenvnames, sizeof(f->envnames[0]), name_cmp);
}

const char *credscan_tmp_root(void)
{
	const char *r = getenv("GPURENT_TMP_ROOT");

	return r && *r ? r : "/tmp";
}

static void walk_left(struct sec_facts *f, const char *dir, int depth, double min, uid_t uid,
		      size_t *budget)
{
	DIR *d;
	struct dirent *e;

	if (depth > 8 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && *budget > 0 && f->nleftovers < SEC_MAX_LEFTOVERS) {
		struct stat st;
		char path[4096];
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		(*budget)--;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk_left(f, path, depth + 1, min, uid, budget);
		} else if (S_ISREG(st.st_mode) && st.st_uid == uid && (double)st.st_size >= min) {
			struct sec_leftover *l = &f->leftovers[f->nleftovers++];
			if ((size_t)snprintf(l->path, sizeof(l->path), "%s", path) >= sizeof(l->path)) {
				f->nleftovers--;
				continue;
			}
			l->size = (uint64_t)st.st_size;
		}
	}
	closedir(d);
}

static int left_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sec_leftover *)a)->path, ((const struct sec_leftover *)b)->path);
}

void credscan_leftovers(struct sec_facts *f, const char *const *roots, size_t n,
			double min_bytes)
{
	size_t k = 0, budget = 200000;   /* entries looked at, all roots together */

	f->nleftovers = 0;
	f->tmp_roots[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(f->tmp_roots + k, sizeof(f->tmp_roots) - k, "%s%s", i ? " " : "",
				 roots[i]);
		if (w > 0 && (size_t)w < sizeof(f->tmp_roots) - k)
			k += (size_t)w;
		walk_left(f, roots[i], 0, min_bytes, geteuid(), &budget);
	}
	qsort(f->leftovers, f->nleftovers, sizeof(f->leftovers[0]), left_cmp);
}
