/*
 * cmd.h - the subcommands. Each lives in src/cmd/cmd_<name>.c, exports
 * exactly this function, and prints its help for --help.
 */
#ifndef GPURENT_CMD_H
#define GPURENT_CMD_H

int cmd_bench(int argc, char **argv);
int cmd_ckpt(int argc, char **argv);
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
int cmd_run(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
