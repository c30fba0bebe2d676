/*
 * cmd_manifest.c - `gpurent manifest DIR [-o FILE]`: record every regular
 * file under DIR with its size and content hash (and symlinks, not
 * followed), in gpurent's format or one sha256sum or hashdeep can check.
 */
#define _GNU_SOURCE   /* sync_file_range */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/files/manifest.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "os/crypto.h"
#include "kit/opt.h"
#include "base/out.h"
#include "os/walk.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent manifest DIR [-o FILE] [--hash NAME]\n"
	"                        [--format gpurent|sha256sum|hashdeep|bsd] [--follow-symlinks] [-j N]\n"
	"\n"
	"Record every regular file under DIR: its path relative to DIR, size and\n"
	"content hash, plus the file count and total bytes, so that `gpurent verify`\n"
	"can later tell whether the data arrived whole. Files are hashed in\n"
	"parallel; the lines are sorted by path.\n"
	"\n"
	"  -o, --output FILE    write the manifest to FILE (atomically); default stdout\n"
	"  --hash NAME          xxh3 (XXH3-128, default), sha256, md5, sha1, sha512,\n"
	"                       blake2b, xxh32, xxh64 or xxh3-64 (xxhsum -H3)\n"
	"  --format NAME        gpurent (default; sizes, symlinks, a header with counts),\n"
	"                       sha256sum (the lines of the tool for the hash: sha256sum,\n"
	"                       md5sum, b2sum, xxhsum, ...; checkable by 'TOOL -c';\n"
	"                       sha256 by default), bsd (their BSD tag lines) or hashdeep\n"
	"                       (checkable by 'hashdeep -a -k FILE -r -l .' from inside\n"
	"                       DIR; md5, sha1 or sha256)\n"
	"  --follow-symlinks    hash what symlinks point to; by default a symlink is\n"
	"                       recorded as a link (gpurent format) and not followed\n"
	"  -j, --jobs N         hashing threads (default: the number of CPUs)\n"
	"  --progress, -q/--quiet  the progress line (done/total, bytes/s, time\n"
	"                       left) even in a pipe, or never; by default only\n"
	"                       on a terminal, after a second\n"
	"\n"
	"Names with spaces, newlines, backslashes or any other bytes are escaped as\n"
	"sha256sum escapes them. FIFOs, sockets and devices are left out. Exit status:\n"
	"0 written, 1 a file could not be read or the manifest not written, 2 bad usage\n"
	"or directories nested more than 256 levels deep.\n");

#define WRITE_CHUNK ((size_t)1 << 20)

/* Write buf to path atomically: temp file beside it, fsync, rename, fsync the directory. */
static int write_atomic(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	char *tmp, *dir, *slash;
	size_t n = strlen(path) + 16;
	int fd, dfd, rc = -1;

	if (!(tmp = malloc(n)) || !(dir = malloc(n))) {
		free(tmp);
		snprintf(err, errlen, _("out of memory"));
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
		snprintf(err, errlen, _("%s: cannot create: %s"), path, strerror(errno));
		goto out_free;
	}
	/* a MiB at a time, each handed to writeback as soon as it is written,
	 * so the disk works while the rest is copied: the fsync below then
	 * waits for less (an 11 MB manifest: write 9 ms, then fsync 7.6 ms) */
	for (size_t off = 0; off < len;) {
		size_t want = len - off < WRITE_CHUNK ? len - off : WRITE_CHUNK;
		ssize_t k = write(fd, buf + off, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, _("%s: write error: %s"), path, strerror(errno));
			goto out_unlink;
		}
#ifdef SYNC_FILE_RANGE_WRITE
		(void)sync_file_range(fd, (off_t)off, (off_t)k, SYNC_FILE_RANGE_WRITE);   /* a hint */
#endif
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
		snprintf(err, errlen, _("%s: write error: %s"), path, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path)) {
		snprintf(err, errlen, _("%s: cannot write: %s"), path, strerror(errno));
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


/* The command line, for the hashdeep header's "## $" line. */
static void command_line(int argc, char **argv, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "gpurent");

	for (int i = 0; i < argc && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, " %s", argv[i]);
}

/* Every name can be written in format: 0, or -1 with the message said.
 * The files' positions go into idx (*nidx of them), to be hashed. */
static int names_fit(const struct manifest *m, enum mf_format format, enum hash_algo algo, size_t *idx,
		     size_t *nidx)
{
	for (size_t i = 0; i < m->n; i++) {
		if (!manifest_path_fits(format, algo, m->v[i].path)) {
			if (format == MF_HASHDEEP)
				msg_error(_("%s: a name with a newline cannot be written in the hashdeep "
					    "format (use --format gpurent or sha256sum)"), m->v[i].path);
			else
				msg_error(_("%s: a name with a newline or a final carriage return cannot "
					    "be written in xxhsum's format (xxhsum 0.8.1 does not escape "
					    "names; use --format gpurent)"), m->v[i].path);
			return -1;
		}
		if (m->v[i].kind == MF_FILE)
			idx[(*nidx)++] = i;
	}
	return 0;
}

/* Each entry that could not be read, said; the symlinks a format other
 * than gpurent leaves out, noted; the FIFOs, sockets and devices counted
 * into *others. 0, or -1 when one could not be read (no manifest then). */
static int entries_read(const struct manifest *m, enum mf_format format, size_t *others)
{
	size_t bad = 0, links = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct mf_entry *e = &m->v[i];
		if (e->kind == MF_UNREADABLE || e->kind == MF_DIR_UNREADABLE) {
			msg_error(e->kind == MF_DIR_UNREADABLE ? _("%s: cannot list: %s") : _("%s: cannot read: %s"),
				  e->path, strerror(e->err));
			bad++;
		}
		links += e->kind == MF_SYMLINK;
		*others += e->kind == MF_OTHER;
	}
	if (bad) {
		msg_error(Q_("%zu entry could not be read; no manifest written",
			     "%zu entries could not be read; no manifest written", bad), bad);
		return -1;
	}
	if (links && format != MF_GPURENT)
		msg_note(Q_("note: %zu symlink left out: the %s format cannot record "
			    "links (--follow-symlinks records what they point to)",
			    "note: %zu symlinks left out: the %s format cannot record "
			    "links (--follow-symlinks records what they point to)", links),
			 links, manifest_format_name(format));
	return 0;
}

/* sha256sum lines name no hash: a note when neither the digits' length
 * nor the file's name (out; to_stdout: none) tells which (docs/manifest.md). */
static void note_unnamed_hash(enum hash_algo algo, bool to_stdout, const char *out)
{
	enum hash_algo by_name, by_len;
	const char *names;
	bool any;

	if (manifest_algo_by_length(2 * hash_size(algo), &by_len, &names) != 1 &&
	    (to_stdout || manifest_algo_by_filename(out, &by_name, &any) ||
	     (by_name != algo && !(any && algo == HASH_XXH3))))
		msg_note(_("note: %zu hex digits could be %s: name the file *.%s (or give "
			   "verify --hash %s) so that the hash is known when it is checked"),
			 2 * hash_size(algo), names, algo == HASH_XXH3 ? "xxh128" : hash_name(algo),
			 algo == HASH_XXH3 ? "xxh128" : hash_name(algo));
}

/* The line a manifest written to out says: files, bytes, hash, format,
 * time since t0 and rate; then the entries left out (others). */
static void say_written(const struct manifest *m, const char *out, enum mf_format format,
			enum hash_algo algo, size_t others, double t0)
{
	struct mf_totals t;
	char b[32], rate[32], oesc[8192];
	double sec;

	manifest_totals(m, &t);
	sec = util_now_mono() - t0;
	units_fmt_bytes((double)t.bytes, b, sizeof(b));
	units_fmt_bytes(sec > 0 ? (double)t.bytes / sec : 0, rate, sizeof(rate));
	printf(_("%s: %llu files, %s"), out_safe(out, strlen(out), oesc, sizeof(oesc)),
	       (unsigned long long)t.files, b);
	if (t.symlinks && format == MF_GPURENT)
		printf(_(", %llu symlinks"), (unsigned long long)t.symlinks);
	printf(_(" (%s, %s format) in %.2f s, %s/s\n"), hash_name(algo),
	       manifest_format_name(format), sec, rate);
	if (others)
		printf(_("left out: %zu FIFOs, sockets or devices\n"), others);
}

int cmd_manifest(int argc, char **argv)
{
	/* xxh3 is XXH3-128, as in every gpurent release; xxhsum -H3's 64-bit XXH3 is xxh3-64 */
	static const char *const hash_names[] = {"xxh3", "sha256", "xxh3-128", "xxh128", "sha-256",
						 "md5", "sha1", "sha512", "blake2b", "xxh32",
						 "xxh64", "xxh3-64", NULL};
	static const enum hash_algo hash_algos[] = {HASH_XXH3, HASH_SHA256, HASH_XXH3, HASH_XXH3,
						    HASH_SHA256, HASH_MD5, HASH_SHA1, HASH_SHA512,
						    HASH_BLAKE2B, HASH_XXH32, HASH_XXH64,
						    HASH_XXH3_64};
	/* in enum mf_format order */
	static const char *const format_names[] = {"gpurent", "sha256sum", "hashdeep", "bsd", NULL};
	const char *dir, *out = NULL;
	enum mf_format format = MF_GPURENT;
	enum hash_algo algo = HASH_XXH3;
	bool algo_set = false, follow = false, to_stdout;
	unsigned jobs = walk_default_jobs();
	struct walk_opts wo = {0};
	struct manifest m;
	struct stat st;
	size_t *idx = NULL, nidx = 0, others = 0, len;
	char err[512], cwd[4096], cmdline[1024], *text = NULL, **args;
	double t0 = util_now_mono();
	int rootfd, rc = EXIT_RUNTIME, hash_i = 0, format_i = 0, r;
	long jobs_opt = 0;
	const struct opt opts[] = {
		{.name = "output", .short_name = 'o', .type = OPT_FILE, .dest = &out, .arg = "FILE",
		 .help = N_("write the manifest to FILE (atomically); default stdout"), .example = "-"},
		{.name = "hash", .type = OPT_CHOICE, .dest = &hash_i, .choices = hash_names, .arg = "NAME",
		 .help = N_("xxh3 (XXH3-128, default), sha256, md5, sha1, sha512, blake2b, xxh32, "
			    "xxh64 or xxh3-64"), .seen = &algo_set},
		OPT_ONEOF("format", &format_i, format_names, "NAME",
			  N_("gpurent, sha256sum (any *sum tool's lines), hashdeep or bsd (BSD tag lines)")),
		OPT_BOOL("follow-symlinks", &follow, N_("hash what symlinks point to")),
		{.name = "jobs", .short_name = 'j', .type = OPT_INT, .dest = &jobs_opt, .arg = "N",
		 .help = N_("hashing threads (default: the number of CPUs)"), .min = 1, .max = 256},
		OPT_PROGRESS_FLAGS,
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "manifest", .usage = usage, .flags = 0, .min_operands = 1,
				   .max_operands = -1, .operands = N_("a directory")};
	int nops;

	/* opt_parse reorders its argv: parse a copy, argv goes into the header */
	if (!(args = malloc(((size_t)argc + 1) * sizeof(*args))))
		return msg_fail(_("out of memory"));
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	args[argc] = NULL;
	rc = opt_parse(&oc, opts, argc, args, NULL, &nops);
	dir = args[0];
	if (rc == OPT_GO && nops > 1)
		rc = msg_usage(_("expected one directory, got '%s' and '%s'"), dir, args[1]);
	free(args);
	if (rc != OPT_GO)
		return rc;
	rc = EXIT_RUNTIME;
	algo = hash_algos[hash_i];
	format = (enum mf_format)format_i;
	if (jobs_opt)
		jobs = (unsigned)jobs_opt;
	if (format != MF_GPURENT && !algo_set)
		algo = HASH_SHA256;
	if (format == MF_HASHDEEP && algo != HASH_SHA256 && algo != HASH_SHA1 && algo != HASH_MD5)
		return msg_usage(_("--hash: the hashdeep format holds md5, sha1 or sha256, not %s"),
				 hash_name(algo));
	if ((rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return msg_usage(_("%s: cannot open directory: %s"), dir, strerror(errno));
	/* Never record the manifest itself (an old copy, or stdout redirected into DIR). */
	to_stdout = !out || !strcmp(out, "-");
	if (to_stdout ? !fstat(STDOUT_FILENO, &st) : !stat(out, &st)) {
		wo.skip_set = S_ISREG(st.st_mode);
		wo.skip_dev = st.st_dev;
		wo.skip_ino = st.st_ino;
	}
	wo.follow_symlinks = follow;
	wo.jobs = jobs;
	wo.hash = true;   /* hashed as listed: walk_hash() below finds them done */
	manifest_init(&m, format, algo);
	hashing_set_crypto(crypto_hash_ops());   /* libcrypto, loaded on first use */
	m.follow_symlinks = follow;
	if ((r = walk_tree(rootfd, &wo, &m, err, sizeof(err)))) {
		rc = common_walk_error(dir, r, err);
		goto out_free;
	}
	manifest_sort(&m);
	if (!(idx = malloc((m.n ? m.n : 1) * sizeof(*idx)))) {
		msg_error(_("out of memory"));
		goto out_free;
	}
	if (names_fit(&m, format, algo, idx, &nidx))
		goto out_free;
	if (walk_hash(rootfd, &m, idx, nidx, jobs, "manifest", err, sizeof(err))) {
		msg_error("%s", err);
		goto out_free;
	}
	if (entries_read(&m, format, &others))
		goto out_free;
	if (format == MF_SHA256SUM && algo != HASH_XXH3_64)
		note_unnamed_hash(algo, to_stdout, out);
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	if (format == MF_HASHDEEP && dir[0] != '/') {
		size_t k = strlen(cwd);
		snprintf(cwd + k, sizeof(cwd) - k, "/%s", dir);
	}
	command_line(argc, argv, cmdline, sizeof(cmdline));
	if (manifest_render(&m, dir[0] == '/' ? dir : cwd, cmdline, &text, &len, err, sizeof(err))) {
		msg_error("%s", err);
		goto out_free;
	}
	if (to_stdout) {
		if (fwrite(text, 1, len, stdout) != len) {
			rc = msg_finish(EXIT_RUNTIME);
			goto out_free;
		}
		rc = msg_finish(EXIT_OK);
		goto out_free;
	}
	if (write_atomic(out, text, len, err, sizeof(err))) {
		msg_error("%s", err);
		goto out_free;
	}
	say_written(&m, out, format, algo, others, t0);
	rc = msg_finish(EXIT_OK);
out_free:
	free(text);
	free(idx);
	manifest_free(&m);
	close(rootfd);
	return rc;
}
