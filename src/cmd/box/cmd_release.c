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
 * resolved (realpath of its directory) before any comparison.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/market/billing.h"
#include "core/box/release.h"
#include "core/market/provider.h"
#include "core/box/secscan.h"
#include "guard/action.h"
#include "os/child.h"
#include "os/credscan.h"
#include "os/shred.h"
#include "os/sys.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"

extern char **environ;

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

#define STEPS 4

struct rel_counts {
	long files[REL_CAT_COUNT];
	double bytes;
	bool dry;
	enum rel_cat cat;
	const char *const *keeps;   /* --keep, absolute */
	size_t nkeeps;
};

/* A --keep inside a --path directory stays, and so do the directories above it. */
static bool kept(void *ctx, const char *path)
{
	const struct rel_counts *c = ctx;

	return release_kept(path, c->keeps, c->nkeeps);
}

static void told(void *ctx, const char *path, uint64_t size, bool dir)
{
	struct rel_counts *c = ctx;

	if (dir)
		printf(c->dry ? _("  would remove directory %s ") : _("  removed directory %s "),
		       msg_tr(release_cat_name(c->cat)));
	else
		printf(c->dry ? _("  would delete %s ") : _("  deleted %s "), msg_tr(release_cat_name(c->cat)));
	out_puts_safe(stdout, path);
	if (!dir)
		printf(_(" (%llu bytes)"), (unsigned long long)size);
	putchar('\n');
	if (!dir) {
		c->files[c->cat]++;
		c->bytes += (double)size;
	}
}

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

/* Why release keeps a credential, a history or a leftover here: one clause. */
static void scope_words(enum rel_scope sc, const struct rel_host *h, const char *preset,
			const char *hmnt, char *out, size_t n)
{
	switch (sc) {
	case REL_SCOPE_SLURM_JOB:
		snprintf(out, n, _("inside Slurm job %s (SLURM_JOB_ID), whose home outlives the job; "
				   "--wipe-credentials deletes it"), h->slurm_job);
		break;
	case REL_SCOPE_NETWORK_HOME:
		snprintf(out, n, _("the home is on %s, a %s filesystem shared beyond this machine; "
				   "--wipe-credentials deletes it"), hmnt, h->home_fstype);
		break;
	case REL_SCOPE_STOP_ONLY:
		snprintf(out, n, h->action && h->action->effect == REL_ENDS_JOB
			 ? _("preset %s only ends the job: the machine and its home stay; "
			     "--wipe-credentials deletes it")
			 : _("preset %s only stops the machine: its disk and this file stay; "
			     "--wipe-credentials deletes it"), preset);
		break;
	case REL_SCOPE_NO_RELEASE:
		snprintf(out, n, _("no *-release preset or --on-release says this machine is given back; "
				   "--wipe-credentials deletes it"));
		break;
	case REL_SCOPE_WIPE:
		snprintf(out, n, "-");
		break;
	}
}

/* What a releasing preset leaves billing at the provider (data/release_leftovers.csv). */
static void say_provider_leftovers(const struct rel_leftovers *lo, const char *preset)
{
	bool any = false;

	for (size_t i = 0; i < lo->n; i++) {
		if (strcmp(lo->v[i].preset, preset))
			continue;
		if (!any)
			printf(_("  what the provider keeps billing after %s (data/release_leftovers.csv), "
				 "and the command that removes each:\n"), preset);
		any = true;
		printf("    - ");
		out_puts_safe(stdout, lo->v[i].keeps);
		printf(": ");
		out_puts_safe(stdout, lo->v[i].remove);
		printf(" (");
		out_puts_safe(stdout, lo->v[i].source);
		printf(")\n");
	}
}

/* `gpurent verify MANIFEST DIR` as a child of this same binary. */
static int run_verify(const char *manifest, const char *dir)
{
	char self[PATH_MAX], err[256];
	long n = sys_self_path(self, sizeof(self));
	const char *argv[] = {self, "verify", manifest, dir, NULL};
	struct child_opts co = {0};
	struct child c;
	int eno, st = 0;

	if (n <= 0) {
		msg_error(_("verify: cannot find this program: %s"), strerror(errno));
		return -1;
	}
	fflush(stdout);
	co.argv = argv;
	co.envp = environ;
	co.in_fd = -1;
	if (child_spawn(&co, &c, &eno, err, sizeof(err))) {
		msg_error("verify: %s", err);
		return -1;
	}
	if (child_wait(c.pid, &st, 0) < 0)
		return -1;
	return child_exit_code(st);
}

/* What a stop-only preset leaves billing, in words. */
static void say_stop_cost(const struct rel_action *ra, const char *cwd)
{
	struct billing_db db = {0};
	const struct billing_profile *p;
	struct statvfs s;
	double gb = 0;

	if (!statvfs(cwd, &s))
		gb = (double)(s.f_blocks - s.f_bfree) * (double)s.f_frsize / 1e9;
	if (!ra->billing || common_load_billing(&db) || !(p = billing_find(&db, ra->billing))) {
		msg_warn(_("preset %s only stops the instance: its disk (and a public IP) keep billing at "
			   "the provider's price until you release it in the console"), ra->preset);
		billing_db_free(&db);
		return;
	}
	/* docs/release.md "What a stop keeps billing" */
	if (p->storage_bills_stopped)
		msg_warn(_("preset %s only stops the instance: its storage keeps billing, about %.2f %s a "
			   "day for the %.0f GB used here (data/billing.csv '%s': storage %.2f %s per "
			   "GB-month, stopped %.3f %s an hour)"),
			 ra->preset, release_stopped_per_day(p, gb), p->currency, gb, p->name,
			 p->storage_gb_month, p->currency, p->stopped_per_hour, p->currency);
	else
		msg_warn(_("preset %s only stops the instance: about %.2f %s a day while stopped "
			   "(data/billing.csv '%s': storage not billed while stopped, stopped %.3f %s an "
			   "hour)"),
			 ra->preset, release_stopped_per_day(p, gb), p->currency, p->name,
			 p->stopped_per_hour, p->currency);
	if (ra->better)
		msg_note(_("preset %s deletes the instance and its disks instead"), ra->better);
	billing_db_free(&db);
}

static void say_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("  ");
	out_puts_safe(stdout, line);
	putchar('\n');
}

int cmd_release(int argc, char **argv)
{
	bool dry = false, no_ledger = false, wipe = false;
	const char *manifest = NULL, *preset_name = NULL, *on_release = NULL, *ledger_path = NULL;
	double timeout = 120;
	struct opt_list keep_l = {0}, path_l = {0};
	const struct opt opts[] = {
		OPT_BOOL("dry-run", &dry, N_("list what would be deleted and run; change nothing")),
		{.name = "keep", .type = OPT_LIST, .dest = &keep_l, .arg = "PATH", .example = "README.md",
		 .help = N_("never delete PATH or anything under it (repeatable)")},
		{.name = "ledger", .type = OPT_FILE, .dest = &ledger_path, .arg = "PATH", .example = "ledger.db",
		 .help = N_("the ledger to record in")},
		OPT_BOOL("no-ledger", &no_ledger, N_("do not record the release")),
		{.name = "on-release", .type = OPT_STRING, .dest = &on_release, .arg = "CMD", .example = "true",
		 .help = N_("run CMD with /bin/sh instead of a preset")},
		{.name = "path", .type = OPT_LIST, .dest = &path_l, .arg = "P", .example = "README.md",
		 .help = N_("also delete P, a file or directory (repeatable)")},
		{.name = "preset", .type = OPT_STRING, .dest = &preset_name, .arg = "NAME", .example = "slurm",
		 .help = N_("the platform's release action")},
		{.name = "stop-timeout", .type = OPT_DURATION, .dest = &timeout, .arg = "DUR", .example = "2m",
		 .min = 1, .max = 86400, .help = N_("how long the action may take (2m)")},
		{.name = "verify", .type = OPT_FILE, .dest = &manifest, .arg = "MANIFEST",
		 .example = "data.manifest", .help = N_("check the operand DIR against MANIFEST first")},
		OPT_BOOL("wipe-credentials", &wipe,
			 N_("delete credentials and histories even inside a Slurm job, on a network home or "
			    "without a releasing action")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "release", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 1, .operands = N_("DIR (after --verify MANIFEST)")};
	const struct provider_preset *preset = NULL;
	struct rel_action ra_row;
	const struct rel_action *ra = NULL;
	const char **keeps = NULL, *home = getenv("HOME"), *shm = getenv("GPURENT_SHM_PATH");
	struct sec_facts *sf = NULL;
	struct rel_plan plan = {0}, held = {0};
	struct rel_counts cnt = {0};
	struct rel_leftovers lo = {0};
	struct rel_host hf = {0};
	enum rel_scope scope;
	size_t nkeeps = 0, mlen = 0, nhist = 0;
	size_t *keep_of = NULL;
	bool *matched = NULL;
	char *mtab = NULL, home_real[PATH_MAX] = "", hmnt[PATH_MAX] = "", htype[128] = "", hsrc[512] = "";
	char reason[1024];
	char cwd[4096], buf[4096], host[256], err[1024] = "", answer[256] = "";
	const char *verify_state = "skipped", *status = "none";
	int rc, nops = 0, step = 0;
	bool failed = false;

	rc = opt_parse(&oc, opts, argc, argv, NULL, &nops);
	if (rc != OPT_GO)
		goto out_lists;
	rc = EXIT_USAGE;
	if (!getcwd(cwd, sizeof(cwd))) {
		msg_error(_("cannot read the working directory: %s"), strerror(errno));
		rc = EXIT_RUNTIME;
		goto out_lists;
	}
	if (nops && !manifest) {
		msg_usage(_("%s: a directory operand goes with --verify MANIFEST"), argv[0]);
		goto out_lists;
	}
	if (manifest && !nops) {
		msg_usage(_("--verify MANIFEST: expected the directory to check after it"));
		goto out_lists;
	}
	if (preset_name && on_release) {
		msg_usage(_("--preset and --on-release: give one release action"));
		goto out_lists;
	}
	if (preset_name) {
		if (!(preset = provider_preset_find(preset_name)) || !release_action(preset_name, &ra_row)) {
			msg_usage(_("--preset %s: unknown preset (gpurent help release lists them)"), preset_name);
			goto out_lists;
		}
		ra = &ra_row;
		for (size_t k = 0; preset->vars[k]; k++) {
			const char *v = getenv(preset->vars[k]);
			if (v && *v)
				continue;
			if (!dry) {
				msg_usage(_("--preset %s: needs the environment variable %s (docs/release.md)"),
					  preset->name, preset->vars[k]);
				goto out_lists;
			}
			msg_warn(_("--preset %s needs %s, which is not set"), preset->name, preset->vars[k]);
		}
	}
	if (on_release && !*on_release) {
		msg_usage(_("--on-release: expected a command, got ''"));
		goto out_lists;
	}
	if (ra && ra->effect == REL_RELEASES) {
		const char *dbuf, *path;
		char *owned = NULL;
		size_t len;
		if ((rc = common_data_file("release_leftovers.csv", &dbuf, &len, &owned, &path)))
			goto out_lists;
		if (release_leftovers_load(dbuf, len, path, &lo, err, sizeof(err))) {
			free(owned);
			rc = msg_usage("%s", err);
			goto out_lists;
		}
		free(owned);   /* lo copied what it keeps into its own table */
	}
	rc = EXIT_USAGE;
	if (!(keeps = calloc(2 * keep_l.n + 1, sizeof(*keeps))) || !(sf = calloc(1, sizeof(*sf))) ||
	    !(keep_of = calloc(2 * keep_l.n + 1, sizeof(*keep_of))) ||
	    !(matched = calloc(keep_l.n + 1, sizeof(*matched)))) {
		msg_error(_("out of memory"));
		rc = EXIT_RUNTIME;
		goto out_plan;
	}
	/* where this runs: a Slurm job, a home on a network filesystem (issue 26) */
	mtab = read_mounts(&mlen);
	if (home && *home) {
		if (resolve(home, cwd, true, home_real, sizeof(home_real)))
			snprintf(home_real, sizeof(home_real), "%s", home);
		if (mtab && release_mount_of(mtab, mlen, home_real, hmnt, sizeof(hmnt), htype, sizeof(htype),
					     hsrc, sizeof(hsrc), NULL) == 1 && release_network_fs(htype))
			hf.home_fstype = htype;
	}
	hf.slurm_job = slurm_job();
	hf.action = ra;
	hf.command = on_release != NULL;
	hf.wipe = wipe;
	scope = release_scope(&hf);
	/* every --keep resolved: its own name (a symlink kept as a link) and what it leads to */
	for (size_t i = 0; i < keep_l.n; i++) {
		char *k = malloc(PATH_MAX), *t = malloc(PATH_MAX);
		struct stat st;
		if (!k || !t) {
			free(k);
			free(t);
			goto out_nomem;
		}
		if (!*keep_l.v[i] || resolve(keep_l.v[i], cwd, false, k, PATH_MAX) || lstat(k, &st)) {
			msg_usage(_("--keep %s: %s"), keep_l.v[i], *keep_l.v[i] ? strerror(errno) :
				  _("expected a path"));
			free(k);
			free(t);
			goto out_plan;
		}
		keep_of[nkeeps] = i;
		keeps[nkeeps++] = k;
		if (!resolve(keep_l.v[i], cwd, true, t, PATH_MAX) && strcmp(t, k)) {
			keep_of[nkeeps] = i;
			keeps[nkeeps++] = t;
		} else {
			free(t);
		}
	}
	/* the plan: credentials and leftovers as env finds them, the --path given, histories */
	credscan_files(sf, home, cwd);
	{
		const char *roots[2] = {credscan_tmp_root(), shm && *shm ? shm : "/dev/shm"};
		credscan_leftovers(sf, roots, strcmp(roots[0], roots[1]) ? 2 : 1, SEC_LARGE_FILE_BYTES);
	}
	for (size_t i = 0; i < path_l.n; i++) {
		struct stat st;
		if (!*path_l.v[i]) {
			msg_usage(_("--path: expected a path, got '%s'"), path_l.v[i]);
			goto out_plan;
		}
		if (resolve(path_l.v[i], cwd, false, buf, sizeof(buf)) || lstat(buf, &st)) {
			msg_usage(_("--path %s: %s"), path_l.v[i], strerror(errno));
			goto out_plan;
		}
		if (!strcmp(buf, "/") || (*home_real && !strcmp(buf, home_real)) ||
		    (home && *home && !strcmp(buf, home))) {
			msg_usage(_("--path %s: refusing to delete / or your whole home directory (it is %s)"),
				  path_l.v[i], buf);
			goto out_plan;
		}
		if ((*home_real && release_within(home_real, buf)) || (home && *home && release_within(home, buf))) {
			msg_usage(_("--path %s: refusing to delete %s, a directory above your home directory"),
				  path_l.v[i], buf);
			goto out_plan;
		}
		if (mount_point(buf, mtab, mlen)) {
			msg_usage(_("--path %s: refusing to delete %s, a mount point (name what is inside it "
				    "instead)"), path_l.v[i], buf);
			goto out_plan;
		}
		if (release_plan_add(&plan, REL_PATH, buf, keeps, nkeeps) < 0)
			goto out_nomem;
		for (size_t j = 0; j < nkeeps; j++)
			if (release_within(keeps[j], buf) || release_within(buf, keeps[j]))
				matched[keep_of[j]] = true;
	}
	/* credentials, leftovers and histories: deleted only on a box given back */
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
			if (!home || !*home)
				break;
			snprintf(buf, sizeof(buf), "%s/%s", home, release_histories[h]);
			if (lstat(buf, &st))
				continue;
			p = buf;
		}
		for (size_t j = 0; j < nkeeps; j++)
			if (release_within(p, keeps[j]) || release_within(keeps[j], p))
				matched[keep_of[j]] = true;
		if (release_plan_add(scope == REL_SCOPE_WIPE ? &plan : &held, cat, p, keeps, nkeeps) < 0)
			goto out_nomem;
	}
	for (size_t j = 0; j < nkeeps; j++)
		if (!matched[keep_of[j]]) {
			msg_usage(_("--keep %s: nothing release would delete is there or under it (it is %s)"),
				  keep_l.v[keep_of[j]], keeps[j]);
			goto out_plan;
		}
	release_plan_sort(&plan);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "(unknown host)");
	host[sizeof(host) - 1] = '\0';
	if (dry)
		printf(_("gpurent release --dry-run on %s: nothing is changed\n"), host);
	else
		printf(_("gpurent release on %s\n"), host);

	/* 1. verify */
	step = 1;
	if (manifest) {
		int v;
		printf(_("step 1/%d verify: gpurent verify "), STEPS);
		out_puts_safe(stdout, manifest);
		putchar(' ');
		out_puts_safe(stdout, argv[0]);
		putchar('\n');
		v = run_verify(manifest, argv[0]);
		if (v != 0) {
			printf(_("step 1/%d verify: failed: nothing is deleted, the instance is not released\n"),
			       STEPS);
			rc = msg_fail(_("verify found differences (exit status %d): copy your results again, "
					"then release"), v);
			goto out_plan;
		}
		verify_state = "ok";
		printf(_("step 1/%d verify: ok\n"), STEPS);
	} else {
		printf(_("step 1/%d verify: skipped (no --verify MANIFEST DIR: nothing checks that your "
			 "results are copied)\n"), STEPS);
	}

	/* 2. delete; 3. histories */
	cnt.dry = dry;
	cnt.keeps = keeps;
	cnt.nkeeps = nkeeps;
	scope_words(scope, &hf, preset_name, hmnt, reason, sizeof(reason));
	for (int s = 2; s <= 3; s++) {
		size_t n = 0;
		step = s;
		for (size_t i = 0; i < plan.n; i++)
			n += (plan.v[i].cat == REL_HISTORY) == (s == 3);
		printf(s == 2 ? _("step 2/%d delete credentials, leftovers and your paths: %zu\n")
			      : _("step 3/%d clear shell histories: %zu\n"), STEPS, n);
		if (s == 2 && wipe && (hf.slurm_job || hf.home_fstype)) {
			/* whose home this is, before anything of it goes */
			const struct passwd *pw = getpwuid(geteuid());
			char line[2048];
			const char *who = pw && pw->pw_name ? pw->pw_name : "?", *hr = *home_real ? home_real : "?";
			if (hf.home_fstype)
				snprintf(line, sizeof(line), _("  --wipe-credentials: the credentials and histories of "
							       "%s go: the home of %s (uid %u) on %s, on a %s "
							       "filesystem from %s"),
					 hr, who, (unsigned)geteuid(), host, hf.home_fstype, hsrc);
			else
				snprintf(line, sizeof(line), _("  --wipe-credentials: the credentials and histories of "
							       "%s go: the home of %s (uid %u) on %s, inside Slurm "
							       "job %s"),
					 hr, who, (unsigned)geteuid(), host, hf.slurm_job);
			out_puts_safe(stdout, line);
			putchar('\n');
		}
		for (size_t i = 0; i < held.n; i++) {
			if ((held.v[i].cat == REL_HISTORY) != (s == 3))
				continue;
			printf(_("  kept %s "), msg_tr(release_cat_name(held.v[i].cat)));
			out_puts_safe(stdout, held.v[i].path);
			printf(": ");
			out_puts_safe(stdout, reason);
			putchar('\n');
		}
		for (size_t i = 0; i < plan.n; i++) {
			if ((plan.v[i].cat == REL_HISTORY) != (s == 3))
				continue;
			cnt.cat = plan.v[i].cat;
			if (shred_path(plan.v[i].path, plan.v[i].cat != REL_LEFTOVER, dry, kept, told, &cnt,
				       err, sizeof(err))) {
				printf(_("step %d/%d: failed: %s\n"), s, STEPS, err);
				msg_error(_("%s; stopped here: the instance is not released"), err);
				failed = true;
				break;
			}
		}
		if (failed)
			break;
		if (s == 2 && n)
			printf(_("  (files are overwritten with zeros before unlink; on SSDs and copy-on-write "
				 "filesystems such as btrfs, ZFS or overlayfs old blocks may survive until the "
				 "disk itself is deleted)\n"));
		if (s == 3)
			printf(_("  (a shell still running writes its history again when it exits: run "
				 "'unset HISTFILE' in it, or end it with 'kill -9 $$')\n"));
	}

	/* 4. the release action, once */
	if (!failed) {
		step = 4;
		if (!preset && !on_release) {
			printf(_("step 4/%d release: no --preset or --on-release given: the instance keeps "
				 "billing until you release it in the platform's console\n"), STEPS);
		} else {
			const char *shell = preset ? preset->shell : on_release;
			if (preset) {
				printf(_("step 4/%d release: %s: "), STEPS, preset->name);
				out_puts_safe(stdout, shell);
				putchar('\n');
			} else {
				printf(_("step 4/%d release: --on-release\n"), STEPS);
			}
			if (ra && ra->effect == REL_STOPS)
				say_stop_cost(ra, cwd);
			if (ra && ra->effect == REL_ENDS_JOB) {
				char line[1024];
				snprintf(line, sizeof(line), _("  scancel ends Slurm job %s and frees its allocation: "
							       "it releases nothing, and your home and the cluster's "
							       "filesystems keep every file release did not delete"),
					 hf.slurm_job ? hf.slurm_job : "$SLURM_JOB_ID");
				out_puts_safe(stdout, line);
				putchar('\n');
			}
			if (dry) {
				printf(_("  would run: "));
				out_puts_safe(stdout, shell);
				putchar('\n');
				if (ra && ra->effect == REL_RELEASES)
					say_provider_leftovers(&lo, preset->name);
			} else {
				struct action_cfg a = {.shell = shell, .timeout_s = timeout};
				struct action_event ev = {.reason = "release", .exit_status = 0, .cost = -1,
							  .host = host, .ledger_id = -1};
				fflush(stdout);
				if (action_fire(&a, &ev, say_line, NULL, err, sizeof(err))) {
					status = "failed";
					failed = true;
					/* the preset's text is ours; a command of the user's may hold a secret */
					snprintf(answer, sizeof(answer), "%.255s",
						 preset ? err : "the --on-release command failed");
					printf(_("step 4/%d release: failed\n"), STEPS);
					msg_error("%s", err);
				} else {
					status = "done";
					snprintf(answer, sizeof(answer), "exit status 0");
					printf(_("step 4/%d release: done\n"), STEPS);
					if (ra && ra->effect == REL_RELEASES)
						say_provider_leftovers(&lo, preset->name);
				}
			}
		}
	}

	if (!dry && !no_ledger) {
		struct ledger *l = NULL;
		struct ledger_release lr = {
			.at = (double)time(NULL), .host = host, .verify = verify_state,
			.credentials = cnt.files[REL_CREDENTIAL], .leftovers = cnt.files[REL_LEFTOVER],
			.paths = cnt.files[REL_PATH], .histories = cnt.files[REL_HISTORY],
			.bytes = cnt.bytes,
			.action = preset ? preset->name : on_release ? "command" : NULL,
			.effect = ra ? (ra->effect == REL_RELEASES ? "release" : "stop") : NULL,   /* scancel: stop */
			.status = step < 4 ? "not run" : status, .answer = answer,
		};
		int64_t id;
		char lerr[512], path[4096];
		if (ledger_path)
			snprintf(path, sizeof(path), "%s", ledger_path);
		if ((!ledger_path && ledger_default_path(path, sizeof(path), lerr, sizeof(lerr))) ||
		    ledger_open(path, &l, lerr, sizeof(lerr)) ||
		    ledger_release_add(l, &lr, &id, lerr, sizeof(lerr)))
			msg_warn(_("the release is not recorded: %s"), lerr);
		else
			printf(_("recorded in the ledger as release %lld\n"), (long long)id);
		ledger_close(l);
	}
	if (!failed && !dry)
		printf(_("released: %ld credential, %ld leftover, %ld path and %ld history files deleted "
			 "(%.0f bytes)\n"), cnt.files[REL_CREDENTIAL], cnt.files[REL_LEFTOVER],
		       cnt.files[REL_PATH], cnt.files[REL_HISTORY], cnt.bytes);
	rc = msg_finish(failed ? EXIT_RUNTIME : EXIT_OK);
	goto out_plan;
out_nomem:
	msg_error(_("out of memory"));
	rc = EXIT_RUNTIME;
out_plan:
	release_plan_free(&plan);
	release_plan_free(&held);
	release_leftovers_free(&lo);
	free(mtab);
	free(sf);
	for (size_t i = 0; keeps && i < nkeeps; i++)
		free((void *)keeps[i]);
	free(keeps);
	free(keep_of);
	free(matched);
out_lists:
	opt_list_free(&keep_l);
	opt_list_free(&path_l);
	return rc;
}
