/*
 * cmd_release.c - `gpurent release`: the end of a rental (seed 000 §5.3,
 * seed 004 §5.1). In order, each step reported, stopping at the first
 * failure: verify the results' copy (`gpurent verify`), delete the
 * credentials `gpurent env` finds, the large leftovers in /tmp and
 * /dev/shm and the --path given (overwrite, then unlink: src/os/shred.c),
 * clear the shell histories, then the platform's release action, once;
 * the ledger records what was deleted by category and the action's answer.
 * Where it runs decides what it may touch (issue 26, release_scope()):
 * inside a Slurm job, on a network home, with a preset that only stops or
 * with none, only the --path given goes. Every --path and --keep is
 * resolved (realpath of its directory) before any comparison. This file
 * checks the options, finds where it runs and plans; the steps are
 * cmd_release_run.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/box/release.h"
#include "core/market/provider.h"
#include "core/box/secscan.h"
#include "guard/action.h"
#include "os/credscan.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "cmd/box/cmd_release_int.h"

static const char usage[] = N_(
	"usage: gpurent release [--dry-run] [--verify MANIFEST DIR] [--keep PATH]... [--path P]...\n"
	"                       [--preset NAME | --on-release CMD] [--stop-timeout DUR]\n"
	"                       [--wipe-credentials] [--ledger PATH] [--no-ledger]\n"
	"\n"
	"End a rental (seed 000 \xc2\xa7" "5.3: clean personal data before releasing the instance;\n"
	"seed 004 \xc2\xa7" "5.1: a stopped instance still bills for its disk and IP). In order,\n"
	"each step reported, stopping at the first failure:\n"
	"  1. verify     with --verify MANIFEST DIR: `gpurent verify MANIFEST DIR` on the\n"
	"                copy of your results; if it fails nothing is deleted or released\n"
	"  2. delete     each --path (a file or a directory), and on a box given back (a\n"
	"                *-release preset or --on-release CMD) the credentials that `gpurent\n"
	"                env` finds (~/.aws/credentials, gcloud keys, the Hugging Face token,\n"
	"                ~/.netrc, ~/.git-credentials, ~/.docker/config.json, private keys in\n"
	"                ~/.ssh, ./.env) and your files of 1 GiB or more in /tmp and\n"
	"                /dev/shm: overwritten with zeros, then unlinked (leftovers are only\n"
	"                unlinked). On SSDs and copy-on-write filesystems (btrfs, ZFS,\n"
	"                overlayfs) old blocks may survive the overwrite: only deleting the\n"
	"                disk (step 4) ends them. Inside a Slurm job, on a home on a network\n"
	"                filesystem (NFS, Lustre, GPFS, BeeGFS, CIFS, ...), with a preset that\n"
	"                only stops or ends a job, or with no action, only each --path goes:\n"
	"                release says per credential why it kept it, and --wipe-credentials\n"
	"                deletes them there too, saying whose home it is\n"
	"  3. histories  ~/.bash_history, ~/.zsh_history, ~/.python_history, fish's, ...\n"
	"                (only where step 2 deletes the credentials)\n"
	"  4. release    the platform's action, run once: --preset NAME: aws-release,\n"
	"                azure-release, gcp-release, runpod-release, vastai-release delete the\n"
	"                instance and the disks it was made with, and release lists what the\n"
	"                provider keeps billing after (other volumes, IPs, snapshots, images,\n"
	"                buckets: data/release_leftovers.csv) with the command that removes\n"
	"                each; slurm runs scancel: it ends the job and releases nothing;\n"
	"                autodl, runpod, shutdown, vastai only stop it, and release says what\n"
	"                its storage keeps billing a day. Or --on-release CMD (run with /bin/sh)\n"
	"Then the ledger records the release: when, what was deleted by category, the\n"
	"action and its answer (never a path's content, nor the --on-release command).\n"
	"\n"
	"  --dry-run            list exactly what would be deleted and run; change nothing\n"
	"  --verify MANIFEST DIR  check DIR against MANIFEST first (gpurent help verify)\n"
	"  --keep PATH          never delete PATH or anything under it (repeatable; it must\n"
	"                       exist and hold or lie under something release would delete)\n"
	"  --path P             also delete P, a file or directory of yours (repeatable; /,\n"
	"                       your home, a directory above it and a mount point are refused)\n"
	"  --preset NAME        the platform's action (docs/release.md: what each runs)\n"
	"  --on-release CMD     run CMD with /bin/sh instead of a preset\n"
	"  --stop-timeout DUR   how long the action may take (2m)\n"
	"  --ledger PATH        the ledger to record in (default: gpurent ledger path)\n"
	"  --no-ledger          do not record the release\n"
	"  --wipe-credentials   delete the credentials and histories even inside a Slurm job,\n"
	"                       on a network home or without a releasing action\n"
	"\n"
	"Exit status: 0 done, 1 a step failed (verify, a deletion, the action), 2 bad\n"
	"usage. See docs/release.md.\n");


/*
 * path as the kernel reaches it (issue 26, release-home-dot): made
 * absolute against cwd, trailing '/' dropped, then the realpath() of its
 * directory with the last name appended, so that '.', '..', '//' and
 * every symlink above the last name are folded. follow_last, a last
 * name of '.' or '..', or a trailing '/': the whole path through realpath(). 0, or -1 with
 * errno set (ENAMETOOLONG, or realpath's: ENOENT for a missing parent).
 */
static int resolve(const char *path, const char *cwd, bool follow_last, char *out, size_t n)
{
	char abs[PATH_MAX * 2], dir[PATH_MAX], *slash, *last;
	size_t l;

	if ((size_t)snprintf(abs, sizeof(abs), path[0] == '/' ? "%s" : "%s/%s",
			     path[0] == '/' ? path : cwd, path) >= sizeof(abs) || n < PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	l = strlen(abs);
	if (l > 1 && abs[l - 1] == '/')
		follow_last = true;   /* "link/" names the directory the link leads to */
	while (l > 1 && abs[l - 1] == '/')
		abs[--l] = '\0';
	slash = strrchr(abs, '/');
	last = slash + 1;
	if (follow_last || !*last || !strcmp(last, ".") || !strcmp(last, ".."))
		return realpath(abs, out) ? 0 : -1;
	*slash = '\0';
	if (!realpath(slash == abs ? "/" : abs, dir))
		return -1;
	if ((size_t)snprintf(out, n, "%s/%s", strcmp(dir, "/") ? dir : "", last) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* The mount table: $GPURENT_MOUNT_TABLE (tests plant one), else
 * /proc/self/mountinfo, else /proc/mounts. NULL (len 0) when none reads. */
static char *read_mounts(size_t *len)
{
	const char *env = getenv("GPURENT_MOUNT_TABLE");
	const char *const tries[] = {env && *env ? env : "/proc/self/mountinfo", "/proc/mounts"};
	char err[512], *buf = NULL;

	*len = 0;
	for (size_t i = 0; i < (env && *env ? 1u : 2u); i++)
		if (!common_read_file(tries[i], &buf, len, err, sizeof(err)))
			return buf;
	return NULL;
}

/* Is dir (resolved) a mount point: in the table, or on another device than its parent? */
static bool mount_point(const char *dir, const char *mtab, size_t mlen)
{
	char mnt[8], type[8], src[8], parent[PATH_MAX + 4];
	struct stat a, b;
	bool is = false;

	if (mtab)
		release_mount_of(mtab, mlen, dir, mnt, sizeof(mnt), type, sizeof(type), src, sizeof(src), &is);
	if (is)
		return true;
	if (lstat(dir, &a) || !S_ISDIR(a.st_mode))
		return false;
	snprintf(parent, sizeof(parent), "%s/..", dir);
	return !stat(parent, &b) && (a.st_dev != b.st_dev || a.st_ino == b.st_ino);
}

/* The value of SLURM_JOB_ID (or the older SLURM_JOBID); NULL outside a job. */
static const char *slurm_job(void)
{
	const char *v = getenv("SLURM_JOB_ID");

	if (!v || !*v)
		v = getenv("SLURM_JOBID");
	return v && *v ? v : NULL;
}

static int no_memory(void)
{
	msg_error(_("out of memory"));
	return EXIT_RUNTIME;
}

/* --preset NAME: its rows, and the environment it needs (with --dry-run
 * a warning for each missing). 0, or the exit status. */
static int check_preset(struct rel_run *r)
{
	if (!(r->preset = provider_preset_find(r->preset_name)) || !release_action(r->preset_name, &r->ra_row))
		return msg_usage(_("--preset %s: unknown preset (gpurent help release lists them)"),
				 r->preset_name);
	r->ra = &r->ra_row;
	for (size_t k = 0; r->preset->vars[k]; k++) {
		const char *v = getenv(r->preset->vars[k]);
		if (v && *v)
			continue;
		if (!r->dry)
			return msg_usage(_("--preset %s: needs the environment variable %s (docs/release.md)"),
					 r->preset->name, r->preset->vars[k]);
		msg_warn(_("--preset %s needs %s, which is not set"), r->preset->name, r->preset->vars[k]);
	}
	return 0;
}

/* A releasing preset: what its provider keeps billing (data/release_leftovers.csv). */
static int load_leftovers(struct rel_run *r)
{
	const char *dbuf, *path;
	char *owned = NULL, err[1024] = "";
	size_t len;
	int rc;

	if ((rc = common_data_file("release_leftovers.csv", &dbuf, &len, &owned, &path)))
		return rc;
	if (release_leftovers_load(dbuf, len, path, &r->lo, err, sizeof(err))) {
		free(owned);
		return msg_usage("%s", err);
	}
	free(owned);   /* lo copied what it keeps into its own table */
	return 0;
}

/* The options once parsed (nops operands): what goes together, the
 * preset, the working directory. 0, or the exit status. */
static int check_options(struct rel_run *r, int nops)
{
	int rc;

	if (!getcwd(r->cwd, sizeof(r->cwd))) {
		msg_error(_("cannot read the working directory: %s"), strerror(errno));
		return EXIT_RUNTIME;
	}
	if (nops && !r->manifest)
		return msg_usage(_("%s: a directory operand goes with --verify MANIFEST"), r->dir);
	if (r->manifest && !nops)
		return msg_usage(_("--verify MANIFEST: expected the directory to check after it"));
	if (r->preset_name && r->on_release)
		return msg_usage(_("--preset and --on-release: give one release action"));
	if (r->preset_name && (rc = check_preset(r)))
		return rc;
	if (r->on_release && !*r->on_release)
		return msg_usage(_("--on-release: expected a command, got ''"));
	if (r->ra && r->ra->effect == REL_RELEASES)
		return load_leftovers(r);
	return 0;
}

/* Where this runs: a Slurm job, a home on a network filesystem (issue 26). */
static void host_scope(struct rel_run *r)
{
	r->mtab = read_mounts(&r->mlen);
	if (r->home && *r->home) {
		if (resolve(r->home, r->cwd, true, r->home_real, sizeof(r->home_real)))
			snprintf(r->home_real, sizeof(r->home_real), "%s", r->home);
		if (r->mtab && release_mount_of(r->mtab, r->mlen, r->home_real, r->hmnt, sizeof(r->hmnt),
						r->htype, sizeof(r->htype), r->hsrc, sizeof(r->hsrc), NULL) == 1 &&
		    release_network_fs(r->htype))
			r->hf.home_fstype = r->htype;
	}
	r->hf.slurm_job = slurm_job();
	r->hf.action = r->ra;
	r->hf.command = r->on_release != NULL;
	r->hf.wipe = r->wipe;
	r->scope = release_scope(&r->hf);
}

/* Every --keep resolved: its own name (a symlink kept as a link) and what
 * it leads to. 0, or the exit status. */
static int resolve_keeps(struct rel_run *r)
{
	for (size_t i = 0; i < r->keep_l.n; i++) {
		const char *arg = r->keep_l.v[i];
		char *k = malloc(PATH_MAX), *t = malloc(PATH_MAX);
		struct stat st;
		if (!k || !t) {
			free(k);
			free(t);
			return no_memory();
		}
		if (!*arg || resolve(arg, r->cwd, false, k, PATH_MAX) || lstat(k, &st)) {
			msg_usage(_("--keep %s: %s"), arg, *arg ? strerror(errno) : _("expected a path"));
			free(k);
			free(t);
			return EXIT_USAGE;
		}
		r->keep_of[r->nkeeps] = i;
		r->keeps[r->nkeeps++] = k;
		if (!resolve(arg, r->cwd, true, t, PATH_MAX) && strcmp(t, k)) {
			r->keep_of[r->nkeeps] = i;
			r->keeps[r->nkeeps++] = t;
		} else {
			free(t);
		}
	}
	return 0;
}

/* A --keep inside or above p: one that guards something release would delete. */
static void mark_keeps(struct rel_run *r, const char *p)
{
	for (size_t j = 0; j < r->nkeeps; j++)
		if (release_within(p, r->keeps[j]) || release_within(r->keeps[j], p))
			r->matched[r->keep_of[j]] = true;
}

/* Each --path resolved, refused when it is /, the home or above it, or a
 * mount point, and planned. 0, or the exit status. */
static int plan_paths(struct rel_run *r)
{
	const char *home = r->home;
	char buf[4096];

	for (size_t i = 0; i < r->path_l.n; i++) {
		const char *arg = r->path_l.v[i];
		struct stat st;
		if (!*arg)
			return msg_usage(_("--path: expected a path, got '%s'"), arg);
		if (resolve(arg, r->cwd, false, buf, sizeof(buf)) || lstat(buf, &st))
			return msg_usage(_("--path %s: %s"), arg, strerror(errno));
		if (!strcmp(buf, "/") || (*r->home_real && !strcmp(buf, r->home_real)) ||
		    (home && *home && !strcmp(buf, home)))
			return msg_usage(_("--path %s: refusing to delete / or your whole home directory "
					   "(it is %s)"),
					 arg, buf);
		if ((*r->home_real && release_within(r->home_real, buf)) ||
		    (home && *home && release_within(home, buf)))
			return msg_usage(_("--path %s: refusing to delete %s, a directory above your home "
					   "directory"),
					 arg, buf);
		if (mount_point(buf, r->mtab, r->mlen))
			return msg_usage(_("--path %s: refusing to delete %s, a mount point (name what is "
					   "inside it instead)"), arg, buf);
		if (release_plan_add(&r->plan, REL_PATH, buf, r->keeps, r->nkeeps) < 0)
			return no_memory();
		mark_keeps(r, buf);
	}
	return 0;
}

/* Credentials, leftovers and histories as `gpurent env` finds them:
 * planned on a box given back, held otherwise. 0, or the exit status. */
static int plan_found(struct rel_run *r)
{
	const struct sec_facts *sf = r->sf;
	size_t nhist = 0;
	char buf[4096];

	while (release_histories[nhist])
		nhist++;
	for (size_t i = 0; i < sf->ncreds + sf->nleftovers + nhist; i++) {
		enum rel_cat cat = i < sf->ncreds ? REL_CREDENTIAL : i < sf->ncreds + sf->nleftovers
			? REL_LEFTOVER : REL_HISTORY;
		const char *p;
		struct stat st;
		if (cat == REL_CREDENTIAL) {
			p = sf->creds[i].path;
		} else if (cat == REL_LEFTOVER) {
			p = sf->leftovers[i - sf->ncreds].path;
		} else {
			size_t h = i - sf->ncreds - sf->nleftovers;
			if (!r->home || !*r->home)
				break;
			snprintf(buf, sizeof(buf), "%s/%s", r->home, release_histories[h]);
			if (lstat(buf, &st))
				continue;
			p = buf;
		}
		mark_keeps(r, p);
		if (release_plan_add(r->scope == REL_SCOPE_WIPE ? &r->plan : &r->held, cat, p, r->keeps,
				     r->nkeeps) < 0)
			return no_memory();
	}
	return 0;
}

/* The plan: credentials and leftovers as env finds them, the --path
 * given, histories; every --keep must guard something in it. 0, or the
 * exit status. */
static int plan_all(struct rel_run *r)
{
	const char *roots[2] = {NULL, r->shm && *r->shm ? r->shm : "/dev/shm"};
	int rc;

	credscan_files(r->sf, r->home, r->cwd);
	roots[0] = credscan_tmp_root();
	credscan_leftovers(r->sf, roots, strcmp(roots[0], roots[1]) ? 2 : 1, SEC_LARGE_FILE_BYTES);
	if ((rc = plan_paths(r)) || (rc = plan_found(r)))
		return rc;
	for (size_t j = 0; j < r->nkeeps; j++)
		if (!r->matched[r->keep_of[j]])
			return msg_usage(_("--keep %s: nothing release would delete is there or under it "
					   "(it is %s)"),
					 r->keep_l.v[r->keep_of[j]], r->keeps[j]);
	release_plan_sort(&r->plan);
	return 0;
}

int cmd_release(int argc, char **argv)
{
	struct rel_run r = {.timeout = 120, .home = getenv("HOME"), .shm = getenv("GPURENT_SHM_PATH")};
	const struct opt opts[] = {
		OPT_BOOL("dry-run", &r.dry, N_("list what would be deleted and run; change nothing")),
		{.name = "keep", .type = OPT_LIST, .dest = &r.keep_l, .arg = "PATH", .example = "README.md",
		 .help = N_("never delete PATH or anything under it (repeatable)")},
		{.name = "ledger", .type = OPT_FILE, .dest = &r.ledger_path, .arg = "PATH", .example = "ledger.db",
		 .help = N_("the ledger to record in")},
		OPT_BOOL("no-ledger", &r.no_ledger, N_("do not record the release")),
		{.name = "on-release", .type = OPT_STRING, .dest = &r.on_release, .arg = "CMD", .example = "true",
		 .help = N_("run CMD with /bin/sh instead of a preset")},
		{.name = "path", .type = OPT_LIST, .dest = &r.path_l, .arg = "P", .example = "README.md",
		 .help = N_("also delete P, a file or directory (repeatable)")},
		{.name = "preset", .type = OPT_STRING, .dest = &r.preset_name, .arg = "NAME", .example = "slurm",
		 .help = N_("the platform's release action")},
		{.name = "stop-timeout", .type = OPT_DURATION, .dest = &r.timeout, .arg = "DUR", .example = "2m",
		 .min = 1, .max = 86400, .help = N_("how long the action may take (2m)")},
		{.name = "verify", .type = OPT_FILE, .dest = &r.manifest, .arg = "MANIFEST",
		 .example = "data.manifest", .help = N_("check the operand DIR against MANIFEST first")},
		OPT_BOOL("wipe-credentials", &r.wipe,
			 N_("delete credentials and histories even inside a Slurm job, on a network home or "
			    "without a releasing action")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "release", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 1, .operands = N_("DIR (after --verify MANIFEST)")};
	size_t nk;
	int rc, nops = 0;

	rc = opt_parse(&oc, opts, argc, argv, NULL, &nops);
	if (rc != OPT_GO)
		goto out_lists;
	r.dir = nops ? argv[0] : NULL;
	if ((rc = check_options(&r, nops)))
		goto out_lists;
	nk = r.keep_l.n;
	if (!(r.keeps = calloc(2 * nk + 1, sizeof(*r.keeps))) || !(r.sf = calloc(1, sizeof(*r.sf))) ||
	    !(r.keep_of = calloc(2 * nk + 1, sizeof(*r.keep_of))) ||
	    !(r.matched = calloc(nk + 1, sizeof(*r.matched)))) {
		rc = no_memory();
		goto out_plan;
	}
	host_scope(&r);
	if ((rc = resolve_keeps(&r)) || (rc = plan_all(&r)))
		goto out_plan;
	rc = release_run(&r);
out_plan:
	release_plan_free(&r.plan);
	release_plan_free(&r.held);
	release_leftovers_free(&r.lo);
	free(r.mtab);
	free(r.sf);
	for (size_t i = 0; r.keeps && i < r.nkeeps; i++)
		free((void *)r.keeps[i]);
	free(r.keeps);
	free(r.keep_of);
	free(r.matched);
out_lists:
	opt_list_free(&r.keep_l);
	opt_list_free(&r.path_l);
	return rc;
}
