/*
 * ledgeropt.c - the ledger's open for ledger and bill (ledgeropt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/ledgeropt.h"
#include "base/msg.h"

int ledgeropt_open(const char *path, struct ledger **l)
{
	char err[1024];

	if (path && !*path)
		return msg_usage(_("--ledger: expected a file path, got ''"));
	if (ledger_open(path, l, err, sizeof(err)))
		return msg_fail("%s", err);
	return 0;
}

int ledgeropt_dispatch(const struct opt_cmd *oc, const char *usage, int argc, char **argv)
{
	const char *path = NULL;
	char **args;
	int nops, rc;
	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_TABLE_END,
	};

	/* the operands (SUB and its arguments) move to argv[0..nops) */
	if ((rc = opt_parse(oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!nops) {
		fputs(_(usage), stderr);
		return EXIT_USAGE;
	}
	if (!path)
		return opt_run_sub(oc, nops, argv);
	for (size_t k = 0; k < oc->n_subs; k++) {
		if (strcmp(argv[0], oc->subs[k].name))
			continue;
		if (!(args = calloc((size_t)nops + 3, sizeof(*args))))
			return msg_fail(_("out of memory"));
		args[0] = argv[0];
		args[1] = (char *)"--ledger";
		args[2] = (char *)path;
		memcpy(args + 3, argv + 1, (size_t)(nops - 1) * sizeof(*args));
		rc = oc->subs[k].fn(nops + 2, args);
		free(args);
		return rc;
	}
	return opt_run_sub(oc, nops, argv);
}
