/*
 * cmd_release_int.h - what cmd_release.c (the options, where it runs, the
 * plan) hands cmd_release_run.c (the steps, the ledger, the report).
 */
#ifndef GPURENT_CMD_RELEASE_INT_H
#define GPURENT_CMD_RELEASE_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/box/release.h"
#include "core/box/secscan.h"
#include "core/market/provider.h"
#include "guard/action.h"
#include "kit/opt.h"

/* One release: cmd_release() owns it and every pointer it holds. */
struct rel_run {
	/* the options (opt_parse() writes them) */
	bool dry, no_ledger, wipe;
	const char *manifest, *preset_name, *on_release, *ledger_path;
	double timeout;
	struct opt_list keep_l, path_l;
	const char *dir;                     /* the operand (with --verify); NULL none */
	/* what they name, and where this runs */
	const struct provider_preset *preset; /* --preset's row; NULL none */
	struct rel_action ra_row;            /* its release row, when there is one */
	const struct rel_action *ra;         /* &ra_row; NULL none */
	const char *home, *shm;              /* $HOME, $GPURENT_SHM_PATH */
	struct rel_leftovers lo;             /* a releasing preset's provider leftovers */
	struct rel_host hf;
	enum rel_scope scope;
	char *mtab;                          /* the mount table (mlen bytes); owned, NULL none */
	size_t mlen;
	char cwd[4096], home_real[PATH_MAX], hmnt[PATH_MAX], htype[128], hsrc[512], host[256];
	/* the plan: what goes, what stays (held) */
	struct sec_facts *sf;                /* owned */
	struct rel_plan plan, held;
	const char **keeps;                  /* --keep resolved (nkeeps, each owned) */
	size_t nkeeps;
	size_t *keep_of;                     /* keeps[j] comes from keep_l.v[keep_of[j]] */
	bool *matched;                       /* keep_l.v[i] is inside or above something planned */
};

/* The steps of a planned release (verify, delete, histories, the action),
 * the ledger's record and the summary line: the exit status. */
int release_run(struct rel_run *r);

#endif
