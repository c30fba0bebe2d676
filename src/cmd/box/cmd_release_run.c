/*
 * cmd_release_run.c - the steps of `gpurent release` once cmd_release.c
 * has planned them: verify, delete, clear histories, the release action,
 * each reported; then the ledger's record and the summary line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/market/billing.h"
#include "core/box/release.h"
#include "guard/action.h"
#include "os/child.h"
#include "os/shred.h"
#include "os/sys.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "base/out.h"
#include "cmd/box/cmd_release_int.h"

extern char **environ;

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

/* Step 1: `gpurent verify MANIFEST DIR` when --verify is given. 0 (and
 * *verify_state "ok" when it ran), or the exit status. */
static int step_verify(const struct rel_run *r, const char **verify_state)
{
	int v;

	if (!r->manifest) {
		printf(_("step 1/%d verify: skipped (no --verify MANIFEST DIR: nothing checks that your "
			 "results are copied)\n"), STEPS);
		return 0;
	}
	printf(_("step 1/%d verify: gpurent verify "), STEPS);
	out_puts_safe(stdout, r->manifest);
	putchar(' ');
	out_puts_safe(stdout, r->dir);
	putchar('\n');
	v = run_verify(r->manifest, r->dir);
	if (v != 0) {
		printf(_("step 1/%d verify: failed: nothing is deleted, the instance is not released\n"),
		       STEPS);
		return msg_fail(_("verify found differences (exit status %d): copy your results again, "
				  "then release"), v);
	}
	*verify_state = "ok";
	printf(_("step 1/%d verify: ok\n"), STEPS);
	return 0;
}

/* --wipe-credentials inside a Slurm job or on a network home: whose home
 * this is, before anything of it goes. */
static void say_whose_home(const struct rel_run *r)
{
	const struct passwd *pw = getpwuid(geteuid());
	char line[2048];
	const char *who = pw && pw->pw_name ? pw->pw_name : "?", *hr = *r->home_real ? r->home_real : "?";

	if (r->hf.home_fstype)
		snprintf(line, sizeof(line), _("  --wipe-credentials: the credentials and histories of "
					       "%s go: the home of %s (uid %u) on %s, on a %s "
					       "filesystem from %s"),
			 hr, who, (unsigned)geteuid(), r->host, r->hf.home_fstype, r->hsrc);
	else
		snprintf(line, sizeof(line), _("  --wipe-credentials: the credentials and histories of "
					       "%s go: the home of %s (uid %u) on %s, inside Slurm "
					       "job %s"),
			 hr, who, (unsigned)geteuid(), r->host, r->hf.slurm_job);
	out_puts_safe(stdout, line);
	putchar('\n');
}

/* Step 2 (credentials, leftovers and the --path given) or 3 (histories):
 * what stays and why (reason), then each deletion. true when one failed. */
static bool step_delete(const struct rel_run *r, int s, const char *reason, struct rel_counts *cnt)
{
	char err[1024] = "";
	size_t n = 0;

	for (size_t i = 0; i < r->plan.n; i++)
		n += (r->plan.v[i].cat == REL_HISTORY) == (s == 3);
	printf(s == 2 ? _("step 2/%d delete credentials, leftovers and your paths: %zu\n")
		      : _("step 3/%d clear shell histories: %zu\n"), STEPS, n);
	if (s == 2 && r->wipe && (r->hf.slurm_job || r->hf.home_fstype))
		say_whose_home(r);
	for (size_t i = 0; i < r->held.n; i++) {
		if ((r->held.v[i].cat == REL_HISTORY) != (s == 3))
			continue;
		printf(_("  kept %s "), msg_tr(release_cat_name(r->held.v[i].cat)));
		out_puts_safe(stdout, r->held.v[i].path);
		printf(": ");
		out_puts_safe(stdout, reason);
		putchar('\n');
	}
	for (size_t i = 0; i < r->plan.n; i++) {
		if ((r->plan.v[i].cat == REL_HISTORY) != (s == 3))
			continue;
		cnt->cat = r->plan.v[i].cat;
		if (shred_path(r->plan.v[i].path, r->plan.v[i].cat != REL_LEFTOVER, r->dry, kept, told, cnt,
			       err, sizeof(err))) {
			printf(_("step %d/%d: failed: %s\n"), s, STEPS, err);
			msg_error(_("%s; stopped here: the instance is not released"), err);
			return true;
		}
	}
	if (s == 2 && n)
		printf(_("  (files are overwritten with zeros before unlink; on SSDs and copy-on-write "
			 "filesystems such as btrfs, ZFS or overlayfs old blocks may survive until the "
			 "disk itself is deleted)\n"));
	if (s == 3)
		printf(_("  (a shell still running writes its history again when it exits: run "
			 "'unset HISTFILE' in it, or end it with 'kill -9 $$')\n"));
	return false;
}

/* Step 4 with an action: the preset's or --on-release's, once (with
 * --dry-run, what it would run); *status and answer (alen bytes) for the
 * ledger. true when it failed. */
static bool step_action(const struct rel_run *r, const char **status, char *answer, size_t alen)
{
	const char *shell = r->preset ? r->preset->shell : r->on_release;
	struct action_cfg a = {.shell = shell, .timeout_s = r->timeout};
	struct action_event ev = {.reason = "release", .exit_status = 0, .cost = -1,
				  .host = r->host, .ledger_id = -1};
	char err[1024] = "";

	if (r->preset) {
		printf(_("step 4/%d release: %s: "), STEPS, r->preset->name);
		out_puts_safe(stdout, shell);
		putchar('\n');
	} else {
		printf(_("step 4/%d release: --on-release\n"), STEPS);
	}
	if (r->ra && r->ra->effect == REL_STOPS)
		say_stop_cost(r->ra, r->cwd);
	if (r->ra && r->ra->effect == REL_ENDS_JOB) {
		char line[1024];
		snprintf(line, sizeof(line), _("  scancel ends Slurm job %s and frees its allocation: "
					       "it releases nothing, and your home and the cluster's "
					       "filesystems keep every file release did not delete"),
			 r->hf.slurm_job ? r->hf.slurm_job : "$SLURM_JOB_ID");
		out_puts_safe(stdout, line);
		putchar('\n');
	}
	if (r->dry) {
		printf(_("  would run: "));
		out_puts_safe(stdout, shell);
		putchar('\n');
		if (r->ra && r->ra->effect == REL_RELEASES)
			say_provider_leftovers(&r->lo, r->preset->name);
		return false;
	}
	fflush(stdout);
	if (action_fire(&a, &ev, say_line, NULL, err, sizeof(err))) {
		*status = "failed";
		/* the preset's text is ours; a command of the user's may hold a secret */
		snprintf(answer, alen, "%.255s", r->preset ? err : "the --on-release command failed");
		printf(_("step 4/%d release: failed\n"), STEPS);
		msg_error("%s", err);
		return true;
	}
	*status = "done";
	snprintf(answer, alen, "exit status 0");
	printf(_("step 4/%d release: done\n"), STEPS);
	if (r->ra && r->ra->effect == REL_RELEASES)
		say_provider_leftovers(&r->lo, r->preset->name);
	return false;
}

/* The ledger's record of a release that ran: counts by category, the
 * verify, the action's status and answer; a warning when it cannot. */
static void record(const struct rel_run *r, const struct rel_counts *cnt, const char *verify_state,
		   const char *status, const char *answer)
{
	struct ledger *l = NULL;
	struct ledger_release lr = {
		.at = (double)time(NULL), .host = r->host, .verify = verify_state,
		.credentials = cnt->files[REL_CREDENTIAL], .leftovers = cnt->files[REL_LEFTOVER],
		.paths = cnt->files[REL_PATH], .histories = cnt->files[REL_HISTORY],
		.bytes = cnt->bytes,
		.action = r->preset ? r->preset->name : r->on_release ? "command" : NULL,
		.effect = r->ra ? (r->ra->effect == REL_RELEASES ? "release" : "stop") : NULL,   /* scancel: stop */
		.status = status, .answer = answer,
	};
	int64_t id;
	char lerr[512], path[4096];

	if (r->ledger_path)
		snprintf(path, sizeof(path), "%s", r->ledger_path);
	if ((!r->ledger_path && ledger_default_path(path, sizeof(path), lerr, sizeof(lerr))) ||
	    ledger_open(path, &l, lerr, sizeof(lerr)) ||
	    ledger_release_add(l, &lr, &id, lerr, sizeof(lerr)))
		msg_warn(_("the release is not recorded: %s"), lerr);
	else
		printf(_("recorded in the ledger as release %lld\n"), (long long)id);
	ledger_close(l);
}

int release_run(struct rel_run *r)
{
	struct rel_counts cnt = {.dry = r->dry, .keeps = r->keeps, .nkeeps = r->nkeeps};
	const char *verify_state = "skipped", *status = "none";
	char reason[1024], answer[256] = "";
	bool failed = false;
	int rc;

	if (gethostname(r->host, sizeof(r->host)))
		snprintf(r->host, sizeof(r->host), "(unknown host)");
	r->host[sizeof(r->host) - 1] = '\0';
	if (r->dry)
		printf(_("gpurent release --dry-run on %s: nothing is changed\n"), r->host);
	else
		printf(_("gpurent release on %s\n"), r->host);

	/* 1. verify */
	if ((rc = step_verify(r, &verify_state)))
		return rc;
	/* 2. delete; 3. histories */
	scope_words(r->scope, &r->hf, r->preset_name, r->hmnt, reason, sizeof(reason));
	for (int s = 2; s <= 3 && !failed; s++)
		failed = step_delete(r, s, reason, &cnt);
	/* 4. the release action, once */
	if (!failed) {
		if (!r->preset && !r->on_release)
			printf(_("step 4/%d release: no --preset or --on-release given: the instance keeps "
				 "billing until you release it in the platform's console\n"), STEPS);
		else
			failed = step_action(r, &status, answer, sizeof(answer));
	} else {
		status = "not run";
	}
	if (!r->dry && !r->no_ledger)
		record(r, &cnt, verify_state, status, answer);
	if (!failed && !r->dry)
		printf(_("released: %ld credential, %ld leftover, %ld path and %ld history files deleted "
			 "(%.0f bytes)\n"), cnt.files[REL_CREDENTIAL], cnt.files[REL_LEFTOVER],
		       cnt.files[REL_PATH], cnt.files[REL_HISTORY], cnt.bytes);
	return msg_finish(failed ? EXIT_RUNTIME : EXIT_OK);
}
