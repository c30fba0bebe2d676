/*
 * cmd_manifest.c - `gpurent manifest DIR [-o FILE]`: record every regular
 * file under DIR with its size and content hash (and symlinks, not
 * followed), in gpurent's format or one sha256sum or hashdeep can check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/manifest.h"
#include "../core/units.h"
#include "cmd.h"
#include "../cli/common.h"
#include "../cli/out.h"
#include "../os/walk.h"

static const char usage[] =
	"usage: gpurent manifest DIR [-o FILE] [--hash xxh3|sha256]\n"
	"                        [--format gpurent|sha256sum|hashdeep] [--follow-symlinks] [-j N]\n"
	"\n"
	"Record every regular file under DIR: its path relative to DIR, size and\n"
	"content hash, plus the file count and total bytes, so that `gpurent verify`\n"
	"can later tell whether the data arrived whole. Files are hashed in\n"
	"parallel; the lines are sorted by path.\n"
	"\n"
	"  -o, --output FILE    write the manifest to FILE (atomically); default stdout\n"
	"  --hash NAME          xxh3 (XXH3-128, default) or sha256\n"
	"  --format NAME        gpurent (default; sizes, symlinks, a header with counts),\n"
	"                       sha256sum (checkable by 'sha256sum -c'; sha256 by default)\n"
	"                       or hashdeep (checkable by 'hashdeep -a -k FILE -r -l .'\n"
	"                       from inside DIR; sha256 only)\n"
	"  --follow-symlinks    hash what symlinks point to; by default a symlink is\n"
	"                       recorded as a link (gpurent format) and not followed\n"
	"  -j, --jobs N         hashing threads (default: the number of CPUs)\n"
	"\n"
	"Names with spaces, newlines, backslashes or any other bytes are escaped as\n"
	"sha256sum escapes them. FIFOs, sockets and devices are left out. Exit status:\n"
	"0 written, 1 a file could not be read or the manifest not written, 2 bad usage\n"
	"or directories nested more than 256 levels deep.\n";

/* Write buf to path atomically: temp file beside it, fsync, rename, fsync the directory. */
static int write_atomic(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	char *tmp, *dir, *slash;
	size_t n = strlen(path) + 16;
	int fd, dfd, rc = -1;

	if (!(tmp = malloc(n)) || !(dir = malloc(n))) {
		free(tmp);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(tmp, n, "%s.XXXXXX", path);
	snprintf(dir, n, "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	else
		strcpy(dir, ".");
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		goto out_free;
	}
	for (size_t off = 0; off < len;) {
		ssize_t k = write(fd, buf + off, len - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
			goto out_unlink;
		}
		off += (size_t)k;
	}
	/* mkstemp makes 0600; a manifest is as readable as any file the umask allows. */
	{
		mode_t um = umask(0);
		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		snprintf(err, errlen, "%s: write error: %s", path, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		goto out_unlink;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	rc = 0;
	goto out_free;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out_free:
	free(tmp);
	free(dir);
	return rc;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The command line, for the hashdeep header's "## $" line. */
static void command_line(int argc, char **argv, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "gpurent");

	for (int i = 0; i < argc && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, " %s", argv[i]);
}

int cmd_manifest(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL, *val;
	enum mf_format format = MF_GPURENT;
	enum hash_algo algo = HASH_XXH3;
	bool algo_set = false, follow = false, to_stdout;
	unsigned jobs = walk_default_jobs();
	struct walk_opts wo = {0};
	struct manifest m;
	struct mf_totals t;
	struct stat st;
	size_t *idx = NULL, nidx = 0, bad = 0, links = 0, others = 0, len;
	char err[512], cwd[4096], cmdline[1024], *text = NULL;
	double t0 = now();
	int rootfd, rc = EXIT_RUNTIME, r;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (common_is_help(a)) {
			fputs(usage, stdout);
			return common_finish(EXIT_OK);
		} else if ((r = walk_opt(argc, argv, &i, "--output", "-o", &val))) {
			if (r < 0)
				goto out_no_value;
			out = val;
		} else if ((r = walk_opt(argc, argv, &i, "--hash", NULL, &val))) {
			if (r < 0)
				goto out_no_value;
			if (hash_parse_name(val, &algo)) {
				walk_error("manifest", "--hash: expected xxh3 or sha256, got '%s'", val);
				return EXIT_USAGE;
			}
			algo_set = true;
		} else if ((r = walk_opt(argc, argv, &i, "--format", NULL, &val))) {
			if (r < 0)
				goto out_no_value;
			if (manifest_parse_format(val, &format)) {
				walk_error("manifest", "--format: expected gpurent, sha256sum or hashdeep, "
					   "got '%s'", val);
				return EXIT_USAGE;
			}
		} else if ((r = walk_opt(argc, argv, &i, "--jobs", "-j", &val))) {
			long n;
			if (r < 0)
				goto out_no_value;
			if (units_parse_int(val, 1, 256, &n, err, sizeof(err))) {
				walk_error("manifest", "--jobs: %s", err);
				return EXIT_USAGE;
			}
			jobs = (unsigned)n;
		} else if (!strcmp(a, "--follow-symlinks")) {
			follow = true;
		} else if (a[0] == '-' && a[1]) {
			walk_error("manifest", "%s: unknown option (see 'gpurent help manifest')", a);
			return EXIT_USAGE;
		} else if (dir) {
			walk_error("manifest", "expected one directory, got '%s' and '%s'", dir, a);
			return EXIT_USAGE;
		} else {
			dir = a;
		}
	}
	if (!dir) {
		walk_error("manifest", "expected a directory (usage: gpurent manifest DIR -o FILE)");
		return EXIT_USAGE;
	}
	if (format != MF_GPURENT && !algo_set)
		algo = HASH_SHA256;
	if (format == MF_HASHDEEP && algo != HASH_SHA256) {
		walk_error("manifest", "--hash: the hashdeep format holds sha256, not %s",
			   hash_name(algo));
		return EXIT_USAGE;
	}
	if ((rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		walk_error("manifest", "%s: cannot open directory: %s", dir, strerror(errno));
		return EXIT_USAGE;
	}
	/* Never record the manifest itself (an old copy, or stdout redirected into DIR). */
	to_stdout = !out || !strcmp(out, "-");
	if (to_stdout ? !fstat(STDOUT_FILENO, &st) : !stat(out, &st)) {
		wo.skip_set = S_ISREG(st.st_mode);
		wo.skip_dev = st.st_dev;
		wo.skip_ino = st.st_ino;
	}
	wo.follow_symlinks = follow;
	manifest_init(&m, format, algo);
	m.follow_symlinks = follow;
	if ((r = walk_tree(rootfd, &wo, &m, err, sizeof(err)))) {
		/* names from the tree are escaped for the terminal (out.h) */
		fputs("gpurent manifest: ", stderr);
		out_puts_safe(stderr, dir);
		/* -2: err starts with the path below dir */
		fputs(r != -2 ? ": " : dir[strlen(dir) - 1] == '/' ? "" : "/", stderr);
		out_puts_safe(stderr, err);
		fputc('\n', stderr);
		if (r == -2)
			rc = EXIT_USAGE;   /* nested deeper than WALK_MAX_DEPTH */
		goto out_free;
	}
	manifest_sort(&m);
	if (!(idx = malloc((m.n ? m.n : 1) * sizeof(*idx)))) {
		walk_error("manifest", "out of memory");
		goto out_free;
	}
	for (size_t i = 0; i < m.n; i++) {
		if (!manifest_path_fits(format, m.v[i].path)) {
			fprintf(stderr, "gpurent manifest: ");
			walk_put_path(stderr, m.v[i].path);
			fprintf(stderr, ": a name with a newline cannot be written in the hashdeep "
				"format (use --format gpurent or sha256sum)\n");
			goto out_free;
		}
		if (m.v[i].kind == MF_FILE)
			idx[nidx++] = i;
	}
	if (walk_hash(rootfd, &m, idx, nidx, jobs, "manifest", err, sizeof(err))) {
		walk_error("manifest", "%s", err);
		goto out_free;
	}
	for (size_t i = 0; i < m.n; i++) {
		const struct mf_entry *e = &m.v[i];
		if (e->kind == MF_UNREADABLE || e->kind == MF_DIR_UNREADABLE) {
			fprintf(stderr, "gpurent manifest: ");
			walk_put_path(stderr, e->path);
			fprintf(stderr, ": cannot %s: %s\n", e->kind == MF_DIR_UNREADABLE ? "list" : "read",
				strerror(e->err));
			bad++;
		}
		links += e->kind == MF_SYMLINK;
		others += e->kind == MF_OTHER;
	}
	if (bad) {
		walk_error("manifest", "%zu entr%s could not be read; no manifest written", bad,
			   bad == 1 ? "y" : "ies");
		goto out_free;
	}
	if (links && format != MF_GPURENT)
		walk_error("manifest", "note: %zu symlink%s left out: the %s format cannot record "
			   "links (--follow-symlinks records what they point to)", links,
			   links == 1 ? "" : "s", manifest_format_name(format));
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	if (format == MF_HASHDEEP && dir[0] != '/') {
		size_t k = strlen(cwd);
		snprintf(cwd + k, sizeof(cwd) - k, "/%s", dir);
	}
	command_line(argc, argv, cmdline, sizeof(cmdline));
	if (manifest_render(&m, dir[0] == '/' ? dir : cwd, cmdline, &text, &len, err, sizeof(err))) {
		walk_error("manifest", "%s", err);
		goto out_free;
	}
	if (to_stdout) {
		if (fwrite(text, 1, len, stdout) != len) {
			rc = common_finish(EXIT_RUNTIME);
			goto out_free;
		}
		rc = common_finish(EXIT_OK);
		goto out_free;
	}
	if (write_atomic(out, text, len, err, sizeof(err))) {
		walk_error("manifest", "%s", err);
		goto out_free;
	}
	manifest_totals(&m, &t);
	{
		char b[32], rate[32];
		double sec = now() - t0;
		units_fmt_bytes((double)t.bytes, b, sizeof(b));
		units_fmt_bytes(sec > 0 ? (double)t.bytes / sec : 0, rate, sizeof(rate));
		printf("%s: %llu files, %s", out, (unsigned long long)t.files, b);
		if (t.symlinks && format == MF_GPURENT)
			printf(", %llu symlinks", (unsigned long long)t.symlinks);
		printf(" (%s, %s format) in %.2f s, %s/s\n", hash_name(algo),
		       manifest_format_name(format), sec, rate);
		if (others)
			printf("left out: %zu FIFOs, sockets or devices\n", others);
	}
	rc = common_finish(EXIT_OK);
out_free:
	free(text);
	free(idx);
	manifest_free(&m);
	close(rootfd);
	return rc;
out_no_value:
	walk_error("manifest", "%s: expected a value", argv[argc - 1]);
	return EXIT_USAGE;
}
