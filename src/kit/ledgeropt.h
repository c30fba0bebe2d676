/*
 * ledgeropt.h - the --ledger option of the commands that read and write
 * the ledger by subcommand (ledger, bill), and the open that reports.
 */
#ifndef GPURENT_CLI_LEDGEROPT_H
#define GPURENT_CLI_LEDGEROPT_H

#include "base/i18n.h"
#include "kit/opt.h"
#include "store/ledger.h"

/* --ledger PATH. The example is a path that exists everywhere and is
 * refused (exit 1): trying it never writes a ledger. */
#define LEDGER_OPT(p) {.name = "ledger", .type = OPT_FILE, .dest = (p), .arg = "PATH", \
	.help = N_("the ledger database"), .example = "/dev/null"}

/* Open the ledger at path (NULL: the default) into *l: 0, or the exit
 * status with its one line printed (2 for an empty path, 1 when it cannot
 * be opened). The caller closes *l. */
int ledgeropt_open(const char *path, struct ledger **l);

/*
 * `gpurent CMD [--ledger PATH] SUB [ARGS...]` for a command whose
 * subcommands are oc->subs (oc->flags OPT_STOP_AT_OPERAND): the --ledger
 * given before SUB is handed on after it, as if written there. No SUB
 * prints usage to stderr (exit 2); an unknown one is opt_run_sub()'s
 * error. Returns the subcommand's exit status.
 */
int ledgeropt_dispatch(const struct opt_cmd *oc, const char *usage, int argc, char **argv);

#endif
