/*
 * cmd_slurm.c - `gpurent slurm script|lint`: write an sbatch script for a
 * job (the generator of src/core/task/slurm_script.c, shared with plan --emit
 * slurm), and check one for the mistakes sbatch takes silently (the rules:
 * src/core/task/slurm.h; the words: here). The story: docs/slurm.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/estimate/estimate.h"
#include "core/model/gpu.h"
#include "core/model/model.h"
#include "core/text/names.h"
#include "core/task/slurm.h"
#include "core/model/workload.h"
#include "os/slurmctl.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"
#include "cmd/slurm/slurmemit.h"

static const char usage[] = N_(
	"usage: gpurent slurm <subcommand> [options]\n"
	"\n"
	"Campus clusters on Slurm: write the job script, and check one.\n"
	"\n"
	"gpurent slurm script [WORKLOAD.yaml] [options] -- CMD [ARGS...]\n"
	"  Print an sbatch script that runs CMD under gpurent run with the slurm\n"
	"  preset: GPUs, CPUs and memory, a time limit from the workload's estimate\n"
	"  bounded by the partition's (scontrol, or --max-time), logs in a directory\n"
	"  it makes now, the signal B:USR1@LEAD so that the job checkpoints before the\n"
	"  limit, and requeue with open-mode append when the work takes more than one job.\n"
	"  --partition P      the partition (queue)\n"
	"  --account A        the account to charge\n"
	"  --gpus N           GPUs per node (the workload's gpus / nodes, else 1)\n"
	"  --gpu T, --gpu-type T\n"
	"                     a GRES type the partition has (a100): gres gpu:T:N; the\n"
	"                     cluster's own name for its cards (sinfo -o %G shows them)\n"
	"  --qos Q            the quality of service the partition needs (debug)\n"
	"  --nodes N          nodes (the workload's, else 1): srun starts one guard each\n"
	"  --cpus N           CPUs per task (default 8 per GPU, seed 004's script)\n"
	"  --mem SIZE         memory per node (default 32GB per GPU)\n"
	"  --time DUR         each job's time (default: the estimate + 20%, at least\n"
	"                     10 min, + the lead; at most the partition's limit)\n"
	"  --work DUR         the job's compute time (default: the workload's estimate)\n"
	"  --max-time DUR     the partition's limit (default: scontrol show partition)\n"
	"  --ckpt-write DUR   one checkpoint's write: the lead is twice it, >= 2 min\n"
	"  --job-name NAME    the job's name (the command's)\n"
	"  --log-dir DIR      Slurm's logs and the guard's (slurm-logs)\n"
	"  --ckpt-dir DIR     checkpoints; GPURENT_RESUME points at the newest (checkpoints)\n"
	"  --conda ENV        conda activate ENV (after conda's shell hook); or\n"
	"  --venv DIR         source DIR/bin/activate\n"
	"  --requeues N       requeue at most N times (20)\n"
	"  --gpurent PATH     the gpurent the job runs (gpurent, from PATH)\n"
	"\n"
	"gpurent slurm lint SCRIPT [--max-time DUR] [--partition P]\n"
	"  Report each problem as FILE:LINE: what, why, and the fix: near-directives\n"
	"  sbatch reads as comments (## SBATCH, # SBATCH, #sbatch), #SBATCH lines after\n"
	"  the first command, unknown options and bad values (sbatch 22.05's own list),\n"
	"  CUDA/PyTorch code with no GPU asked for, a time above the partition's limit\n"
	"  (scontrol when Slurm answers, or --max-time) and a run longer than it with\n"
	"  nothing to resume it, a missing output directory, conda activate without\n"
	"  the shell hook, mem with mem-per-cpu, gres with gpus, an array with one\n"
	"  output name for every task, DOS line endings, a missing or misplaced\n"
	"  shebang, non-ASCII bytes in directives. Exit 1 when it finds problems, 2\n"
	"  when SCRIPT cannot be read.\n"
	"\n"
	"Examples:\n"
	"  gpurent slurm script examples/resnet50-imagenet.yaml --partition gpu --conda torch -- python train.py\n"
	"  gpurent slurm lint job.sbatch --max-time 24h\n");

/* data/sbatch_options.csv, loaded. 0, or the exit status after the message. */
static int load_optdb(struct slurm_optdb *db)
{
	const char *buf, *path;
	char *owned = NULL, err[512];
	size_t len;
	int rc;

	if ((rc = common_data_file("sbatch_options.csv", &buf, &len, &owned, &path)))
		return rc;
	rc = slurm_optdb_load(buf, len, path, db, err, sizeof(err));
	free(owned);
	return rc ? msg_usage("%s", err) : 0;
}

/* ---- lint ---- */

static bool dir_exists(const char *dir, void *ctx)
{
	struct stat st;
	char path[8192];
	const char *base = ctx;

	if (dir[0] == '/' || !base)
		snprintf(path, sizeof(path), "%s", dir);
	else
		snprintf(path, sizeof(path), "%s/%s", base, dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One line of the report on stdout, every byte from the script escaped (out.h). */
static void put_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put_line(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	out_puts_safe(stdout, line);
	putchar('\n');
}

static const char *kind_words(enum slurm_kind k)
{
	switch (k) {
	case SLURM_K_TIME: return _("a time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS");
	case SLURM_K_COUNT: return _("a whole number above 0");
	case SLURM_K_RANGE: return _("a count or MIN-MAX");
	case SLURM_K_MEM: return _("a size in megabytes, or with a suffix K, M, G or T (16G)");
	case SLURM_K_SIGNAL: return _("[B:|R:]SIGNAL[@SECONDS], such as B:USR1@120");
	case SLURM_K_OPEN_MODE: return _("append or truncate");
	case SLURM_K_GRES: return _("NAME[:TYPE][:COUNT][,...], such as gpu:1 or gpu:a100:2");
	case SLURM_K_GPUS: return _("[TYPE:]COUNT, such as 2 or a100:2");
	case SLURM_K_ARRAY: return _("indexes such as 0-9, 1,3,5, 0-15:4 or 0-99%10");
	default: return _("a value");
	}
}

static void say(const char *file, const struct slurm_finding *f)
{
	char a[32], b[32];

	switch (f->code) {
	case SLF_CRLF:
		put_line(_("%s:%zu: DOS line endings (CR LF): sbatch refuses the script; "
			  "convert it with dos2unix or sed -i 's/\\r$//'"), file, f->line);
		break;
	case SLF_NO_SHEBANG:
		put_line(_("%s:%zu: no #! line: sbatch refuses a script without one; "
			  "make the first line #!/bin/bash"), file, f->line);
		break;
	case SLF_SHEBANG_MISPLACED:
		put_line(_("%s:%zu: #! below the first line: only the first line names the shell; "
			  "move it to line 1"), file, f->line);
		break;
	case SLF_NEAR_DIRECTIVE:
		if (f->num)
			put_line(_("%s:%zu: '%s %s' is a comment, not a directive: the job is queued and runs "
				  "with no GPU at all; write it as '#SBATCH %s'"), file, f->line, f->arg, f->value,
				f->value);
		else
			put_line(_("%s:%zu: '%s %s' is a comment, not a directive: sbatch reads only lines that "
				  "start with exactly #SBATCH; write it as '#SBATCH %s'"), file, f->line, f->arg,
				f->value, f->value);
		break;
	case SLF_AFTER_COMMAND:
		put_line(_("%s:%zu: #SBATCH %s comes after the first command (line %.0f): sbatch ignores it; "
			  "move it above line %.0f"), file, f->line, f->arg, f->num, f->num);
		break;
	case SLF_UNKNOWN_OPTION:
		if (f->suggest[0])
			put_line(_("%s:%zu: %s is no sbatch option: sbatch refuses the script; did you mean %s?"),
				file, f->line, f->arg, f->suggest);
		else
			put_line(_("%s:%zu: %s is no sbatch option: sbatch refuses the script; "
				  "see man sbatch for the options"), file, f->line, f->arg);
		break;
	case SLF_MISSING_VALUE:
		put_line(_("%s:%zu: %s needs a value: sbatch refuses the script; write %s=VALUE"), file, f->line,
			f->arg, f->arg);
		break;
	case SLF_UNEXPECTED_VALUE:
		put_line(_("%s:%zu: %s takes no value, got '%s': sbatch refuses the script; write %s alone"), file,
			f->line, f->arg, f->value, f->arg);
		break;
	case SLF_BAD_VALUE:
		put_line(_("%s:%zu: %s='%s' is not valid: sbatch refuses it or reads something else; expected %s"),
			file, f->line, f->arg, f->value, kind_words(f->kind));
		break;
	case SLF_NON_ASCII:
		put_line(_("%s:%zu: non-ASCII bytes in a directive: sbatch reads them as part of a value (a "
			  "full-width space separates no options, a smart quote quotes nothing); retype the line "
			  "in ASCII"), file, f->line);
		break;
	case SLF_NO_GPU:
		put_line(_("%s:%zu: %s runs here but the script asks for no GPU: the job gets none and CUDA "
			  "sees no device; add #SBATCH --gres=gpu:1 (or --gpus=1) above the first command"),
			file, f->line, f->arg);
		break;
	case SLF_TIME_OVER_LIMIT:
		slurm_format_time(f->num, a, sizeof(a));
		slurm_format_time(f->num2, b, sizeof(b));
		put_line(_("%s:%zu: --time=%s is above the partition's limit of %s: the job stays pending "
			  "for ever (PartitionTimeLimit) or is refused; ask for %s at most"), file, f->line, a, b, b);
		break;
	case SLF_NO_RESUME:
		put_line(_("%s:%zu: the run is longer than one job may be, and nothing resumes it (no checkpoint, "
			  "no --signal, no --requeue): the work is lost at the limit; write checkpoints and "
			  "add #SBATCH --signal=B:USR1@120 and --requeue (gpurent slurm script does)"),
			file, f->line);
		break;
	case SLF_OUTPUT_DIR:
		put_line(_("%s:%zu: %s is in '%s', which does not exist: Slurm then writes no log and says "
			  "nothing; mkdir -p %s before sbatch"), file, f->line, f->arg, f->value, f->value);
		break;
	case SLF_CONDA_NO_HOOK:
		put_line(_("%s:%zu: conda activate without conda's shell hook: a batch shell reads no ~/.bashrc, "
			  "so it fails (CondaError: run 'conda init' before 'conda activate'); put "
			  "eval \"$(conda shell.bash hook)\" before it"), file, f->line);
		break;
	case SLF_MEM_BOTH:
		put_line(_("%s:%zu: %s together with %s: sbatch takes only one way of asking for memory; "
			  "keep one of them"), file, f->line, f->arg, f->value);
		break;
	case SLF_GRES_AND_GPUS:
		put_line(_("%s:%zu: %s together with %s: Slurm keeps both GPU requests and sizes the job to meet "
			  "both (--gres=gpu:1 with --gpus=2 asks for two nodes); keep one of them"), file, f->line,
			f->arg, f->value);
		break;
	case SLF_SBATCH_STOP:
		if (f->num == SLURM_SBARG_COLON)
			put_line(_("%s:%zu: a word of the directive starts with ':': sbatch refuses the script "
				  "(Unexpected `:`); write OPTION=VALUE"), file, f->line);
		else
			put_line(_("%s:%zu: a quote is not closed on the line: sbatch refuses the script "
				  "(Unmatched quote); close it, or escape it as \\' or \\\""), file, f->line);
		break;
	case SLF_ARRAY_OUTPUT:
		put_line(_("%s:%zu: --array with %s=%s: every task of the array writes the same file; "
			  "put %%a in the name (%%A_%%a)"), file, f->line, f->arg, f->value);
		break;
	}
}

static int slurm_lint_cmd(int argc, char **argv)
{
	struct slurm_optdb db;
	struct slurm_script *s;
	struct slurm_finding fs[128];
	struct slurm_lint_env env = {0};
	const char *partition = NULL, *file;
	double max_time = 0;
	char *buf = NULL, err[1200], base[4096];
	size_t len, n;
	int rc;
	const struct opt opts[] = {
		OPT_VAL(OPT_DURATION, "max-time", &max_time, "DUR", N_("the partition's time limit")),
		OPT_STR("partition", &partition, "P", N_("the partition whose limit applies (the script's)")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "slurm lint", .usage = usage, .min_operands = 1, .max_operands = 1,
				   .operands = N_("an sbatch script")};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	file = argv[0];
	if (common_read_file(file, &buf, &len, err, sizeof(err)))
		return msg_usage("%s", err);
	if ((rc = load_optdb(&db)))
		goto out_buf;
	if (!(s = malloc(sizeof(*s)))) {
		rc = msg_fail("%s", _("out of memory"));
		goto out_db;
	}
	if (slurm_script_parse(buf, len, file, &db, s, err, sizeof(err))) {
		rc = msg_usage("%s", err);
		goto out_s;
	}
	if (max_time > 0) {
		env.max_time_s = max_time;
	} else {
		const struct slurm_directive *p = slurm_script_get(s, "partition");
		env.max_time_s = slurmctl_partition_limit(partition ? partition : p ? p->value : NULL, NULL, 0);
	}
	/* --output is relative to where sbatch runs: the script's --chdir, else here */
	{
		const struct slurm_directive *cd = slurm_script_get(s, "chdir");
		snprintf(base, sizeof(base), "%s", cd ? cd->value : ".");
	}
	env.dir_exists = dir_exists;
	env.ctx = base;
	n = slurm_lint(s, &db, &env, fs, sizeof(fs) / sizeof(fs[0]));
	for (size_t i = 0; i < n && i < sizeof(fs) / sizeof(fs[0]); i++)
		say(file, &fs[i]);
	if (n > sizeof(fs) / sizeof(fs[0]))
		put_line(_("%s: %zu more problems not shown"), file, n - sizeof(fs) / sizeof(fs[0]));
	rc = msg_finish(n ? EXIT_RUNTIME : EXIT_OK);
out_s:
	free(s);
out_db:
	slurm_optdb_free(&db);
out_buf:
	free(buf);
	return rc;
}

/* ---- script ---- */

/* The estimate's wall time for a workload file; 0, or the exit status after the message. */
static int workload_wall(const char *file, struct workload *w, double *wall, char *err, size_t errlen)
{
	struct gpu_db gdb;
	struct model_db mdb;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct estimate *e;
	char *buf;
	size_t len;
	int bad, rc;

	if (common_read_file(file, &buf, &len, err, errlen))
		return msg_usage("%s", err);
	rc = workload_load_yaml(w, buf, len, file, err, errlen);
	free(buf);
	if (rc)
		return msg_usage("%s", err);
	if ((rc = common_load_data(&gdb, &mdb)))
		return rc;
	if (!(e = calloc(1, sizeof(*e)))) {
		rc = msg_fail("%s", _("out of memory"));
		goto out;
	}
	if (workload_resolve(w, &mdb, &gdb, &arch, &gpu, &bad, err, errlen) ||
	    estimate_run(w, &arch, gpu, e, err, errlen)) {
		rc = msg_usage("%s: %s", file, err);
		goto out_e;
	}
	*wall = e->have_time ? e->wall_seconds : 0;
	rc = 0;
out_e:
	free(e);
out:
	gpu_db_free(&gdb);
	model_db_free(&mdb);
	return rc;
}

static int slurm_script_cmd(int argc, char **argv)
{
	struct slurm_emit e = {0};
	struct slurm_gen_in in = {0};
	struct workload w;
	long gpus = 0, nodes = 0, requeues = SLURM_EMIT_REQUEUES;
	double time_s = 0, max_time = 0, ckpt_write = 0, work = 0, mem = 0;
	long cpus = 0;
	const char *partition = NULL, *account = NULL, *gpu_type = NULL, *job_name = NULL, *log_dir = NULL, *qos = NULL;
	const char *ckpt_dir = NULL, *conda = NULL, *venv = NULL, *gpurent = NULL, *file = NULL;
	char err[1200], pname[64] = "";
	int rc, nops, dash;
	const struct opt opts[] = {
		OPT_STR("account", &account, "A", N_("the account to charge")),
		OPT_PATH("ckpt-dir", &ckpt_dir, "DIR", N_("where the job keeps checkpoints")),
		OPT_VAL(OPT_DURATION, "ckpt-write", &ckpt_write, "DUR", N_("one checkpoint's write")),
		OPT_STR("conda", &conda, "ENV", N_("the conda environment to activate")),
		OPT_LONG("cpus", &cpus, 1, 4096, "N", N_("CPUs per task (8 per GPU)")),
		OPT_STR("gpu", &gpu_type, "T", N_("the GRES type of the GPUs (as --gpu-type)")),
		OPT_STR("gpu-type", &gpu_type, "T", N_("the GRES type of the GPUs")),
		OPT_LONG("gpus", &gpus, 1, 1024, "N", N_("GPUs per node")),
		OPT_PATH("gpurent", &gpurent, "PATH", N_("the gpurent the job runs")),
		OPT_STR("job-name", &job_name, "NAME", N_("the job's name")),
		{.name = "log-dir", .type = OPT_FILE, .dest = &log_dir, .arg = "DIR",
		 .help = N_("where Slurm and the guard write logs (made now)"), .example = "/tmp"},
		OPT_VAL(OPT_DURATION, "max-time", &max_time, "DUR", N_("the partition's time limit")),
		OPT_VAL(OPT_BYTES, "mem", &mem, "SIZE", N_("memory per node (32GB per GPU)")),
		OPT_LONG("nodes", &nodes, 1, 4096, "N", N_("nodes")),
		OPT_STR("partition", &partition, "P", N_("the partition (queue)")),
		OPT_STR("qos", &qos, "Q", N_("the quality of service the partition needs")),
		OPT_LONG("requeues", &requeues, 0, 10000, "N", N_("requeue at most N times")),
		OPT_VAL(OPT_DURATION, "time", &time_s, "DUR", N_("each job's time")),
		OPT_PATH("venv", &venv, "DIR", N_("the virtual environment to activate")),
		OPT_VAL(OPT_DURATION, "work", &work, "DUR", N_("the job's compute time (else the estimate's)")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "slurm script", .usage = usage, .flags = OPT_KEEP_DASHDASH,
				   .max_operands = -1};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	for (dash = 0; dash < nops && strcmp(argv[dash], "--"); dash++)
		;
	if (dash == nops || dash + 1 == nops)
		return msg_usage("%s", _("expected the command after --: gpurent slurm script [WORKLOAD.yaml] "
					 "[options] -- CMD [ARGS...]"));
	if (dash > 1)
		return msg_usage(_("'%s': expected at most one workload file before --"), argv[1]);
	if (dash == 1)
		file = argv[0];
	if (conda && venv)
		return msg_usage("%s", _("--conda and --venv: give one"));
	workload_init(&w);
	if (file && (rc = workload_wall(file, &w, &in.wall_s, err, sizeof(err))))
		return rc;
	if (work > 0)
		in.wall_s = work;
	if (!nodes)
		nodes = file && w.nodes > 0 ? w.nodes : 1;
	if (!gpus)
		gpus = file && w.gpus > 0 ? (w.gpus + nodes - 1) / nodes : 1;
	in.limit_s = max_time > 0 ? max_time : slurmctl_partition_limit(partition, pname, sizeof(pname));
	if (in.limit_s < 0)
		in.limit_s = 0;   /* UNLIMITED */
	in.time_s = time_s;
	in.ckpt_write_s = ckpt_write;
	in.nodes = nodes;
	in.gpus_per_node = gpus;
	in.cpus_per_task = cpus;
	in.mem_bytes = mem > 0 ? ceil(mem / 1048576) * 1048576 : 0;   /* whole MiB, as sbatch takes it */
	in.wall_s = in.wall_s > 0 ? round(in.wall_s) : 0;   /* whole seconds, as "same as" writes it */
	e.in = in;
	e.job_name = job_name;
	e.partition = partition;
	e.account = account;
	e.gpu_type = gpu_type;
	e.qos = qos;
	e.nodes = nodes;
	e.gpus_per_node = gpus;
	e.log_dir = log_dir;
	e.ckpt_dir = ckpt_dir;
	e.conda_env = conda;
	e.venv = venv;
	e.gpurent = gpurent;
	e.requeues = requeues;
	e.cmd = argv + dash + 1;
	/* before anything is made: a value that would break the script's lines is refused */
	if (slurm_script_check(&e, err, sizeof(err)))
		return msg_usage("%s", err);
	if (slurm_gen_plan(&e.in, &e.g, err, sizeof(err)))
		return msg_usage("%s", err);
	if (slurm_emit_mkdirs(&e, err, sizeof(err)))
		return msg_fail(_("the log directory: %s"), err);
	if (slurm_emit_write(stdout, &e))
		return msg_fail("%s", _("could not write the script"));
	if (e.g.chained)
		msg_note(_("the work takes about %ld jobs of the partition's limit, chained by requeue"), e.g.jobs);
	return msg_finish(EXIT_OK);
}

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* MUST stay sorted by name. */
static const struct subcommand subcommands[] = {
	{"lint", slurm_lint_cmd},
	{"script", slurm_script_cmd},
};

int cmd_slurm(int argc, char **argv)
{
	struct names_suggest sg;
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "slurm", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1};
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!nops)
		return msg_usage("%s", _("expected a subcommand: lint or script (see 'gpurent help slurm')"));
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[0], subcommands[i].name))
			return subcommands[i].fn(nops, argv);
	names_suggest_init(&sg, argv[0]);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		names_suggest_add(&sg, subcommands[i].name);
	if (sg.best[0])
		return msg_usage(_("'%s': unknown subcommand (did you mean '%s'?)"), argv[0], sg.best);
	return msg_usage(_("'%s': unknown subcommand (see 'gpurent help slurm')"), argv[0]);
}
