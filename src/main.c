/*
 * main.c - gpurent's entry point: global options, then the command table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit/cmd.h"
#include "kit/common.h"
#include "base/msg.h"
#include "core/text/names.h"
#include "base/util.h"

#ifndef GPURENT_VERSION
#define GPURENT_VERSION "0.1.0"
#endif

#define command cmd_row

/* MUST stay sorted by name (the help listing follows this order). */
static const struct command commands[] = {
	{"bench", cmd_bench, N_("measure this box: memory, CPU, disk, GPU GEMM TFLOPS and bandwidth vs nominal")},
	{"bill", cmd_bill, N_("import providers' billing exports and audit them: rounding, orphan disks, egress, leaks")},
	{"ckpt", cmd_ckpt, N_("checkpoints: the interval for spot (Young, Daly), the newest complete one, pruning")},
	{"completion", cmd_completion, N_("print a bash, zsh or fish completion script (commands, options, values)")},
	{"catalog", cmd_catalog, N_("fetch current price catalogs (update: the one command that uses the network); list them with their age")},
	{"config", cmd_config, N_("defaults set once: currency and rates, memberships, catalogs, ledger, preset, price")},
	{"cost", cmd_cost, N_("price a usage pattern under every billing mode; cheapest and break-even points")},
	{"env", cmd_env, N_("check the rented box: driver, CUDA and framework versions, sliced GPU, shm, disk")},
	{"estimate", cmd_estimate, N_("memory by component, fit per GPU tier, time and communication of a workload")},
	{"gpus", cmd_gpus, N_("list GPU specifications (memory, bandwidth, dense TFLOPS, interconnect)")},
	{"ledger", cmd_ledger, N_("the record of every rented run: cost, hours, GPU, problems; list, summary, export")},
	{"manifest", cmd_manifest, N_("record every file of a dataset directory with its size and hash")},
	{"models", cmd_models, N_("list model presets with parameter counts computed from the architecture")},
	{"offers", cmd_offers, N_("search GPU offers in price catalogs with a query; prices per GPU-hour")},
	{"plan", cmd_plan, N_("price a workload on every offer under each billing mode; rank, explain, advise")},
	{"probe", cmd_probe, N_("run the first steps of a job: step time, GPU memory, diagnoses, against the estimate")},
	{"release", cmd_release, N_("end a rental: verify the copy, delete credentials and leftovers, clear histories, release the instance")},
	{"report", cmd_report, N_("one HTML page of charts: spend by week and kind, runs, GPU-hours, audit findings")},
	{"run", cmd_run, N_("guard a job on the rented box: stop it and the box when done, idle or stalled")},
	{"slurm", cmd_slurm, N_("campus clusters on Slurm: write the sbatch script for a job, lint one")},
	{"verify", cmd_verify, N_("check a directory against a manifest: missing, extra, changed, unreadable files")},
};

const struct cmd_row *cmd_table(size_t *n)
{
	*n = ARRAY_SIZE(commands);
	return commands;
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "'X' is not a gpurent command", with the closest name when there is one. */
static int not_a_command(const char *what, const char *name)
{
	struct names_suggest sg;

	names_suggest_init(&sg, name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names_suggest_add(&sg, commands[i].name);
	names_suggest_add(&sg, "help");
	if (sg.best[0])
		return msg_usage(_("%s'%s' is not a gpurent command (did you mean '%s'?)"), what, name, sg.best);
	return msg_usage(_("%s'%s' is not a gpurent command (see 'gpurent help')"), what, name);
}

static void usage(FILE *f)
{
	fputs(_("usage: gpurent [--data-dir DIR] <command> [args]\n"
		"       gpurent help [command] | --version\n\n"
		"gpurent plans rented GPU compute: what a job needs, where and how to rent it.\n\n"
		"Commands:\n"), f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
	fprintf(f, "  %-10s %s\n", "help", _("show this list, or a command's help"));
	fputs(_("\nOptions:\n"
		"  --data-dir DIR  read the data files (gpus.csv, models.csv, offers.csv,\n"
		"                  billing.csv, currencies.csv) from DIR instead of the\n"
		"                  copies built into the binary (also GPURENT_DATA_DIR)\n"
		"  --version       print the version\n"
		"After a command: --help its help, --list-options its options and their\n"
		"types; --x v and --x=v are the same, durations need a unit (90s, 6h, 2d).\n\n"
		"Exit status: 0 ok, 1 runtime failure, 2 bad input or usage.\n"
		"See gpurent(1), docs/formulas.md and docs/accuracy.md.\n"), f);
}

static int help(const char *name)
{
	const struct command *c;
	char arg0[64], arg1[] = "--help";
	char *argv[] = {arg0, arg1, NULL};

	if (!name || !strcmp(name, "help")) {
		usage(stdout);
		return msg_finish(EXIT_OK);
	}
	if (!(c = find(name)))
		return not_a_command("help: ", name);
	snprintf(arg0, sizeof(arg0), "%s", name);
	return c->fn(2, argv);
}

int main(int argc, char **argv)
{
	const struct command *c;
	int i = 1;

	msg_init();
	common_data_dir = getenv("GPURENT_DATA_DIR");
	if (common_data_dir && !*common_data_dir)
		common_data_dir = NULL;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version")) {
			printf("gpurent %s\n", GPURENT_VERSION);
			return msg_finish(EXIT_OK);
		} else if ((!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
			return help(NULL);
		} else if (!strcmp(argv[i], "--data-dir") && i + 1 < argc) {
			common_data_dir = argv[++i];
		} else if (!strncmp(argv[i], "--data-dir=", 11)) {
			common_data_dir = argv[i] + 11;
		} else {
			return msg_usage(_("%s: unknown option (see 'gpurent help')"), argv[i]);
		}
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help"))
		return help(i + 1 < argc ? argv[i + 1] : NULL);
	if (!strcmp(argv[i], "version")) {
		printf("gpurent %s\n", GPURENT_VERSION);
		return msg_finish(EXIT_OK);
	}
	if (!(c = find(argv[i])))
		return not_a_command("", argv[i]);
	return c->fn(argc - i, argv + i);
}
