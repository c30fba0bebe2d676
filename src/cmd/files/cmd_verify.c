/*
 * cmd_verify.c - `gpurent verify MANIFEST [DIR]`: compare a directory
 * with a manifest (gpurent's, any checksum tool's, BSD --tag or hashdeep
 * format, detected; the hash from the tag, header, --hash, file name or
 * an unambiguous digest length) and list what is missing, extra, resized,
 * changed or unreadable. BLAKE3 files are hashed by the b3sum program.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/files/manifest.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "os/b3sum.h"
#include "os/crypto.h"
#include "kit/opt.h"
#include "base/out.h"
#include "os/walk.h"

static const char usage[] = N_(
	"usage: gpurent verify MANIFEST [DIR] [--hash NAME] [--quick] [--follow-symlinks] [-j N]\n"
	"\n"
	"Check DIR (default: the current directory) against MANIFEST, written by\n"
	"`gpurent manifest`, md5sum, sha1sum, sha256sum, sha512sum, b2sum, b3sum,\n"
	"xxhsum (plain, BSD tag or NUL-ended lines; LF or CRLF), md5deep or\n"
	"`hashdeep -l` (paths are relative to DIR). The hash comes from the line's\n"
	"tag, hashdeep's header, --hash, the file name (SHA256SUMS, *.md5, *.xxh64,\n"
	"...) or the digest length when only one hash has it; 32, 64 or 128 hex\n"
	"digits with no other sign are refused, asking for --hash. Every problem gets one line, in path order:\n"
	"  missing          recorded, not there\n"
	"  extra            there, not recorded\n"
	"  size-changed     another size than recorded\n"
	"  content-changed  same size, another hash (or a link became a file, ...)\n"
	"  unreadable       there, but cannot be read (permissions, a FIFO, a\n"
	"                   dangling symlink, a directory that cannot be listed)\n"
	"then a summary with the count of each.\n"
	"\n"
	"  --hash NAME        the hash of a checksum file: md5, sha1, sha256, sha512,\n"
	"                     blake2b, blake3 (through the b3sum program), xxh32, xxh64,\n"
	"                     xxh128 or xxh3 (XXH3-128 or XXH3-64 by the length)\n"
	"  --quick            compare names and sizes only, without reading the files\n"
	"                     (sha256sum files hold no sizes: names only)\n"
	"  --follow-symlinks  for sha256sum and hashdeep manifests: also walk into\n"
	"                     linked directories (listed links are always followed, as\n"
	"                     sha256sum -c does); gpurent manifests say in their header\n"
	"  -j, --jobs N       hashing threads (default: the number of CPUs)\n"
	"  --progress, -q/--quiet  the progress line (done/total, bytes/s, time\n"
	"                     left) even in a pipe, or never; by default only on\n"
	"                     a terminal, after a second\n"
	"\n"
	"Exit status: 0 everything matches, 1 anything differs or cannot be read,\n"
	"2 bad usage, a malformed manifest (one line: FILE:LINE: what was expected) or\n"
	"directories nested more than 256 levels deep.\n");

static void print_issue(const struct mf_issue *is)
{
	const struct mf_entry *w = is->want, *h = is->have;
	char label[32];

	/* "content-changed:" is the longest label: names line up after it. */
	snprintf(label, sizeof(label), "%s:", manifest_problem_name(is->what));
	printf("%-17s", label);
	walk_put_path(stdout, w ? w->path : h->path);
	switch (is->what) {
	case MF_SIZE_CHANGED:
		printf(_(" (%llu -> %llu bytes)"), (unsigned long long)w->size,
		       (unsigned long long)h->size);
		break;
	case MF_CONTENT_CHANGED:
		if (w->kind != h->kind)
			printf(_(" (was a %s, now a %s)"), w->kind == MF_SYMLINK ? _("symlink") : _("file"),
			       h->kind == MF_SYMLINK ? _("symlink") : _("file"));
		break;
	case MF_UNREADABLE_FILE:
		if (h->kind == MF_OTHER)
			printf(_(" (not a regular file)"));
		else if (h->kind == MF_DIR_UNREADABLE)
			printf(_(" (directory cannot be listed: %s)"), strerror(h->err));
		else if (h->err)
			printf(" (%s)", strerror(h->err));
		break;
	default:
		break;
	}
	putchar('\n');
}

/*
 * BLAKE3 of the planned files of have (idx[0..n)) through the b3sum
 * program, named DIR/PATH. 0, or -1 with a sentence in err.
 */
static int b3_hash(const char *dir, struct manifest *have, const size_t *idx, size_t n,
		   char *err, size_t errlen)
{
	const char **paths = calloc(n ? n : 1, sizeof(*paths));
	unsigned char *out = malloc((n ? n : 1) * 32);
	bool *ok = calloc(n ? n : 1, sizeof(*ok));
	size_t dl = strlen(dir), made = 0;
	int rc = -1;

	if (!paths || !out || !ok) {
		snprintf(err, errlen, _("out of memory"));
		goto out_free;
	}
	for (; made < n; made++) {
		const char *rel = have->v[idx[made]].path;
		size_t rl = strlen(rel);
		char *p = malloc(dl + rl + 2);
		if (!p) {
			snprintf(err, errlen, _("out of memory"));
			goto out_free;
		}
		memcpy(p, dir, dl);
		p[dl] = '/';
		memcpy(p + dl + 1, rel, rl + 1);
		paths[made] = p;
	}
	if (b3sum_files(paths, n, out, ok, err, errlen))
		goto out_free;
	for (size_t i = 0; i < n; i++) {
		struct mf_entry *e = &have->v[idx[i]];
		if ((e->has_hash = ok[i]))
			memcpy(e->hash, out + 32 * i, 32);
	}
	rc = 0;
out_free:
	for (size_t i = 0; i < made; i++)
		free((char *)paths[i]);
	free(paths);
	free(out);
	free(ok);
	return rc;
}

int cmd_verify(int argc, char **argv)
{
	/* the names --hash takes; xxh3 means XXH3-128 or XXH3-64 by the digest's length */
	static const char *const hash_names[] = {"md5", "sha1", "sha256", "sha512", "blake2b",
						 "blake3", "xxh32", "xxh64", "xxh128", "xxh3",
						 "xxh3-128", "xxh3-64", NULL};
	static const enum hash_algo hash_algos[] = {HASH_MD5, HASH_SHA1, HASH_SHA256, HASH_SHA512,
						    HASH_BLAKE2B, HASH_BLAKE3, HASH_XXH32,
						    HASH_XXH64, HASH_XXH3, HASH_XXH3, HASH_XXH3,
						    HASH_XXH3_64};
	struct mf_parse_opts po = {0};
	int hash_i = 0;
	const char *mfile, *dir;
	bool quick = false, follow = false;
	unsigned jobs = walk_default_jobs();
	struct walk_opts wo = {0};
	struct manifest want, have;
	struct mf_diff d;
	struct stat st;
	size_t *idx = NULL, nidx, len;
	char err[512], *buf = NULL;
	int rootfd, rc = EXIT_RUNTIME, nops, r;
	long jobs_opt = 0;
	const struct opt opts[] = {
		{.name = "hash", .type = OPT_CHOICE, .dest = &hash_i, .choices = hash_names, .arg = "NAME",
		 .help = N_("the hash of a checksum file whose lines do not say it"),
		 .seen = &po.algo_set},
		OPT_BOOL("quick", &quick, N_("compare names and sizes only")),
		OPT_BOOL("follow-symlinks", &follow, N_("also walk into linked directories")),
		{.name = "jobs", .short_name = 'j', .type = OPT_INT, .dest = &jobs_opt, .arg = "N",
		 .help = N_("hashing threads (default: the number of CPUs)"), .min = 1, .max = 256},
		OPT_PROGRESS_FLAGS,
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "verify", .usage = usage, .flags = 0, .min_operands = 1,
				   .max_operands = -1, .operands = N_("a manifest file")};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (nops > 2)
		return msg_usage(_("expected a manifest and a directory, got also '%s'"), argv[2]);
	rc = EXIT_RUNTIME;
	mfile = argv[0];
	dir = nops > 1 ? argv[1] : ".";
	if (jobs_opt)
		jobs = (unsigned)jobs_opt;
	if (common_read_file(mfile, &buf, &len, err, sizeof(err)))
		return msg_usage("%s", err);
	po.algo = hash_algos[hash_i];
	po.xxh3_any = !strcmp(hash_names[hash_i], "xxh3");
	if (manifest_parse_opts(buf, len, mfile, &po, &want, err, sizeof(err))) {
		free(buf);
		return msg_usage("%s", err);
	}
	free(buf);
	if (want.format == MF_GPURENT && po.algo_set && want.algo != po.algo &&
	    !(po.xxh3_any && want.algo == HASH_XXH3_64)) {
		msg_error(_("--hash: %s's header says its hash is %s, not %s"), mfile,
			  hash_name(want.algo), hash_name(po.algo));
		manifest_free(&want);
		return EXIT_USAGE;
	}
	if (want.format == MF_GPURENT && follow && !want.follow_symlinks) {
		msg_error(_("--follow-symlinks: %s records symlinks as links (its header "
			    "says follow-symlinks: no)"), mfile);
		manifest_free(&want);
		return EXIT_USAGE;
	}
	if ((rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		msg_error(_("%s: cannot open directory: %s"), dir, strerror(errno));
		manifest_free(&want);
		return EXIT_USAGE;
	}
	if (!stat(mfile, &st)) {
		wo.skip_set = S_ISREG(st.st_mode);
		wo.skip_dev = st.st_dev;
		wo.skip_ino = st.st_ino;
	}
	wo.follow_symlinks = want.format == MF_GPURENT ? want.follow_symlinks : follow;
	wo.jobs = jobs;
	/* BLAKE3 is hashed by b3sum; the walk (symlink targets) needs an algorithm it has */
	manifest_init(&have, want.format, want.algo == HASH_BLAKE3 ? HASH_XXH3 : want.algo);
	hashing_set_crypto(crypto_hash_ops());   /* libcrypto, loaded on first use */
	have.follow_symlinks = wo.follow_symlinks;
	if ((r = walk_tree(rootfd, &wo, &have, err, sizeof(err)))) {
		rc = common_walk_error(dir, r, err);
		goto out_have;
	}
	manifest_sort(&have);
	/* sha256sum -c follows the links it is given: so do we, for formats without links. */
	if (!manifest_records_symlinks(&want))
		for (size_t i = 0; i < have.n; i++)
			if (have.v[i].kind == MF_SYMLINK && manifest_find(&want, have.v[i].path) >= 0)
				walk_follow(rootfd, &have.v[i]);
	if (!(idx = malloc((have.n ? have.n : 1) * sizeof(*idx)))) {
		msg_error(_("out of memory"));
		goto out_have;
	}
	nidx = quick ? 0 : manifest_plan(&want, &have, idx);
	if (want.algo == HASH_BLAKE3) {
		if (b3_hash(dir, &have, idx, nidx, err, sizeof(err))) {
			msg_error("%s", err);
			rc = EXIT_USAGE;
			goto out_idx;
		}
		have.algo = HASH_BLAKE3;
	} else if (walk_hash(rootfd, &have, idx, nidx, jobs, "verify", err, sizeof(err))) {
		msg_error("%s", err);
		goto out_idx;
	}
	if (manifest_compare(&want, &have, quick, &d)) {
		msg_error(_("out of memory"));
		goto out_idx;
	}
	for (size_t i = 0; i < d.n; i++)
		print_issue(&d.v[i]);
	if (!d.n) {
		char b[32], fesc[8192];
		units_fmt_bytes((double)d.matched_bytes, b, sizeof(b));
		printf(_("verify: OK: %zu entries"), d.matched);
		if (want.has_sizes)
			printf(", %s", b);
		printf(_(" match %s (%s)\n"), out_safe(mfile, strlen(mfile), fesc, sizeof(fesc)),
		       !quick ? hash_name(want.algo) :
		       want.has_sizes ? _("quick: names and sizes") : _("quick: names only"));
		rc = msg_finish(EXIT_OK);
	} else {
		printf(_("verify: FAILED: "));
		for (int p = 0; p < MF_NPROBLEMS; p++)
			printf("%zu %s%s", d.count[p], manifest_problem_name((enum mf_problem)p),
			       p + 1 < MF_NPROBLEMS ? ", " : "");
		printf(_(" (%zu recorded, %zu match%s)\n"), d.expected, d.matched,
		       quick ? _("; quick: names and sizes only") : "");
		rc = msg_finish(EXIT_RUNTIME);
	}
	mf_diff_free(&d);
out_idx:
	free(idx);
out_have:
	manifest_free(&have);
	manifest_free(&want);
	close(rootfd);
	return rc;
}
