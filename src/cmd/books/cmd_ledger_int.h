/*
 * cmd_ledger_int.h - what cmd_ledger.c (the dispatch and the readers) and
 * cmd_ledger_import.c (ledger add and ledger import) share.
 */
#ifndef GPURENT_CMD_LEDGER_INT_H
#define GPURENT_CMD_LEDGER_INT_H

#include <stddef.h>

/* `gpurent ledger`'s usage text (an N_() msgid), every subcommand's */
extern const char ledger_usage[];

/* v with two decimals (four below a cent), "-" when not finite; written
 * into buf (n bytes), which it returns */
char *ledger_fmt_money(double v, char *buf, size_t n);

struct gpu_db;
/* A GPU name's short name in data/gpus.csv (its first alias), or NULL when
 * unknown or db is NULL; borrowed from db (or a static buffer) */
const char *ledger_gpu_short(const struct gpu_db *db, const char *name);

/* The subcommands of cmd_ledger_import.c: the exit status */
int ledger_add_cmd(int argc, char **argv);
int ledger_import_cmd(int argc, char **argv);

#endif
