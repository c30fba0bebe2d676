/*
 * ledgeropt.c - the ledger's open for ledger and bill (ledgeropt.h).
 */
#include "ledgeropt.h"
#include "msg.h"

int ledgeropt_open(const char *path, struct ledger **l)
{
	char err[1024];

	if (path && !*path)
		return msg_usage(_("--ledger: expected a file path, got ''"));
	if (ledger_open(path, l, err, sizeof(err)))
		return msg_fail("%s", err);
	return 0;
}
