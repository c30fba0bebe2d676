/*
 * cmd_release.c - `gpurent release`: the end of a rental (seed 000 §5.3,
 * seed 004 §5.1). In order, each step reported, stopping at the first
 * failure: verify the results' copy (`gpurent verify`), delete the
 * credentials `gpurent env` finds, the large leftovers in /tmp and
 * /dev/shm and the --path given (overwrite, then unlink: src/os/shred.c),
 * clear the shell histories, then the platform's release action, once;
 * the ledger records what was deleted by category and the action's answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/billing.h"
#include "../core/release.h"
#include "../core/secscan.h"
#include "../guard/action.h"
#include "../os/child.h"
#include "../os/credscan.h"
#include "../os/shred.h"
#include "../os/sys.h"
#include "../store/ledger.h"
#include "cmd.h"
#include "../cli/common.h"
#include "../cli/opt.h"
#include "../cli/out.h"

extern char **environ;

static const char usage[] = N_(
	"usage: gpurent release [--dry-run] [--verify MANIFEST DIR] [--keep PATH]... [--path P]...\n"
	"                       [--preset NAME | --on-release CMD] [--stop-timeout DUR]\n"
	"                       [--ledger PATH] [--no-ledger]\n"
	"\n"
	"End a rental (seed 000 \xc2\xa7" "5.3: clean personal data before releasing the instance;\n"
	"seed 004 \xc2\xa7" "5.1: a stopped instance still bills for its disk and IP). In order,\n"
	"each step reported, stopping at the first failure:\n"
	"  1. verify     with --verify MANIFEST DIR: `gpurent verify MANIFEST DIR` on the\n"
	"                copy of your results; if it fails nothing is deleted or released\n"
	"  2. delete     the credentials that `gpurent env` finds (~/.aws/credentials,\n"
	"                gcloud keys, the Hugging Face token, ~/.netrc, ~/.git-credentials,\n"
	"                ~/.docker/config.json, private keys in ~/.ssh, ./.env), your files\n"
	"                of 1 GiB or more in /tmp and /dev/shm, and each --path (a file or\n"
	"                a directory): overwritten with zeros, then unlinked (leftovers are\n"
	"                only unlinked). On SSDs and copy-on-write filesystems (btrfs, ZFS,\n"
	"                overlayfs) old blocks may survive the overwrite: only deleting\n"
	"                the disk (step 4) ends them\n"
	"  3. histories  ~/.bash_history, ~/.zsh_history, ~/.python_history, fish's, ...\n"
	"  4. release    the platform's action, run once: --preset NAME (aws-release,\n"
	"                azure-release, gcp-release, runpod-release, vastai-release, slurm\n"
	"                delete the instance and its disks; autodl, runpod, shutdown, vastai\n"
	"                only stop it, and release says what its storage keeps billing a\n"
	"                day) or --on-release CMD (run with /bin/sh)\n"
	"Then the ledger records the release: when, what was deleted by category, the\n"
	"action and its answer (never a path's content, nor the --on-release command).\n"
	"\n"
	"  --dry-run            list exactly what would be deleted and run; change nothing\n"
	"  --verify MANIFEST DIR  check DIR against MANIFEST first (gpurent help verify)\n"
	"  --keep PATH          never delete PATH or anything under it (repeatable)\n"
	"  --path P             also delete P, a file or directory of yours (repeatable)\n"
	"  --preset NAME        the platform's action (docs/release.md: what each runs)\n"
	"  --on-release CMD     run CMD with /bin/sh instead of a preset\n"
	"  --stop-timeout DUR   how long the action may take (2m)\n"
	"  --ledger PATH        the ledger to record in (default: gpurent ledger path)\n"
	"  --no-ledger          do not record the release\n"
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

/* path made absolute against cwd, without a trailing '/'. */
static int absolute(const char *path, const char *cwd, char *out, size_t n)
{
	size_t l;

	if ((size_t)snprintf(out, n, path[0] == '/' ? "%s" : "%s/%s", path[0] == '/' ? path : cwd,
			     path) >= n)
		return -1;
	l = strlen(out);
	while (l > 1 && out[l - 1] == '/')
		out[--l] = '\0';
	return 0;
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
	bool dry = false, no_ledger = false;
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
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "release", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 1, .operands = N_("DIR (after --verify MANIFEST)")};
	const struct action_preset *preset = NULL;
	const struct rel_action *ra = NULL;
	const char **keeps = NULL, *home = getenv("HOME"), *shm = getenv("GPURENT_SHM_PATH");
	struct sec_facts *sf = NULL;
	struct rel_plan plan = {0};
	struct rel_counts cnt = {0};
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
		if (!(preset = action_preset_find(preset_name)) || !(ra = release_action(preset_name))) {
			msg_usage(_("--preset %s: unknown preset (gpurent help release lists them)"), preset_name);
			goto out_lists;
		}
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
	if (!(keeps = calloc(keep_l.n + 1, sizeof(*keeps))) || !(sf = calloc(1, sizeof(*sf)))) {
		msg_error(_("out of memory"));
		rc = EXIT_RUNTIME;
		goto out_plan;
	}
	for (size_t i = 0; i < keep_l.n; i++) {
		char *k = malloc(4096);
		if (!k || absolute(keep_l.v[i], cwd, k, 4096)) {
			free(k);
			msg_usage(_("--keep %s: path too long"), keep_l.v[i]);
			goto out_plan;
		}
		keeps[i] = k;
	}
	/* the plan: credentials and leftovers as env finds them, the --path given, histories */
	credscan_files(sf, home, cwd);
	{
		const char *roots[2] = {credscan_tmp_root(), shm && *shm ? shm : "/dev/shm"};
		credscan_leftovers(sf, roots, strcmp(roots[0], roots[1]) ? 2 : 1, SEC_LARGE_FILE_BYTES);
	}
	for (size_t i = 0; i < sf->ncreds; i++)
		if (release_plan_add(&plan, REL_CREDENTIAL, sf->creds[i].path, keeps, keep_l.n) < 0)
			goto out_nomem;
	for (size_t i = 0; i < sf->nleftovers; i++)
		if (release_plan_add(&plan, REL_LEFTOVER, sf->leftovers[i].path, keeps, keep_l.n) < 0)
			goto out_nomem;
	for (size_t i = 0; i < path_l.n; i++) {
		struct stat st;
		if (!*path_l.v[i] || absolute(path_l.v[i], cwd, buf, sizeof(buf))) {
			msg_usage(_("--path: expected a path, got '%s'"), path_l.v[i]);
			goto out_plan;
		}
		if (lstat(buf, &st)) {
			msg_usage(_("--path %s: %s"), path_l.v[i], strerror(errno));
			goto out_plan;
		}
		if (!strcmp(buf, "/") || (home && !strcmp(buf, home))) {
			msg_usage(_("--path %s: refusing to delete / or your whole home directory"), path_l.v[i]);
			goto out_plan;
		}
		if (release_plan_add(&plan, REL_PATH, buf, keeps, keep_l.n) < 0)
			goto out_nomem;
	}
	for (size_t i = 0; home && *home && release_histories[i]; i++) {
		struct stat st;
		snprintf(buf, sizeof(buf), "%s/%s", home, release_histories[i]);
		if (!lstat(buf, &st) && release_plan_add(&plan, REL_HISTORY, buf, keeps, keep_l.n) < 0)
			goto out_nomem;
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
	cnt.nkeeps = keep_l.n;
	for (int s = 2; s <= 3; s++) {
		size_t n = 0;
		step = s;
		for (size_t i = 0; i < plan.n; i++)
			n += (plan.v[i].cat == REL_HISTORY) == (s == 3);
		printf(s == 2 ? _("step 2/%d delete credentials, leftovers and your paths: %zu\n")
			      : _("step 3/%d clear shell histories: %zu\n"), STEPS, n);
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
			if (dry) {
				printf(_("  would run: "));
				out_puts_safe(stdout, shell);
				putchar('\n');
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
			.effect = ra ? (ra->effect == REL_RELEASES ? "release" : "stop") : NULL,
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
	free(sf);
	for (size_t i = 0; keeps && i < keep_l.n; i++)
		free((void *)keeps[i]);
	free(keeps);
out_lists:
	opt_list_free(&keep_l);
	opt_list_free(&path_l);
	return rc;
}
