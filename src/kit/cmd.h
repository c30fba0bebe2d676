/*
 * cmd.h - the subcommands. Each lives in src/cmd/cmd_<name>.c, exports
 * exactly this function, and prints its help for --help.
 */
#ifndef GPURENT_CMD_H
#define GPURENT_CMD_H

#include <stddef.h>

/* A row of main.c's command table. */
struct cmd_row {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* main.c's table, sorted by name, *n rows (for completion); static. */
const struct cmd_row *cmd_table(size_t *n);


int cmd_bench(int argc, char **argv);
int cmd_bill(int argc, char **argv);
int cmd_ckpt(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_ledger(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_models(int argc, char **argv);
int cmd_offers(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_release(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
