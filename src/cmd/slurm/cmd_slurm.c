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
#include <unistd.h>

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
	"gpurent slurm lint SCRIPT [--json] [--max-time DUR] [--partition P]\n"
	"  Report each problem as FILE:LINE: what, why, and the fix: near-directives\n"
	"  sbatch reads as comments (## SBATCH, # SBATCH, #sbatch), #SBATCH lines after\n"
	"  the first command, unknown options and bad values (sbatch 22.05's own list),\n"
	"  CUDA/PyTorch code with no GPU asked for, a time above the partition's limit\n"
	"  (scontrol when Slurm answers, or --max-time) and a run longer than it with\n"
	"  nothing to resume it, a missing output directory, conda activate without\n"
	"  the shell hook, mem with mem-per-cpu, gres with gpus, an array with one\n"
	"  output name for every task, DOS line endings, a missing or misplaced\n"
	"  shebang, a shebang option the shell cannot take, non-ASCII bytes in\n"
	"  directives, a template; notes for a kept alternative and a SPANK plugin's\n"
	"  option. Each line ends with its rule's id ([no-gpu]); --json prints an\n"
	"  array of {file, line, rule, severity, message}. Exit 1 when it finds\n"
	"  problems, 0 with none or only notes, 2 when SCRIPT cannot be read.\n"
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

/* Where lint judges the script from (slurm_lint_cmd() sets them before word()). */
static const char *lint_where = ".";   /* the directory one submits from, as said */
static const char *lint_base = ".";    /* where sbatch runs the job: it, or its --chdir under it */
static char lint_script_dir[4096] = ".";

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Whether an --output directory exists where sbatch runs the job (ctx: that
 * directory). An absolute one whose parent is not here either belongs to
 * another machine: true (not asserted).
 */
static bool dir_exists(const char *dir, void *ctx)
{
	char path[8192];
	const char *base = ctx, *slash;

	if (dir[0] != '/') {
		snprintf(path, sizeof(path), "%s/%s", base ? base : ".", dir);
		return is_dir(path);
	}
	if (is_dir(dir))
		return true;
	snprintf(path, sizeof(path), "%s", dir);
	slash = strrchr(path, '/');
	if (slash && slash > path)
		path[slash - path] = '\0';
	else
		return true;
	return !is_dir(path);
}

/* Whether a file the script sources by a relative path (next to the script) sets up conda;
 * true when it cannot be read (it may). */
static bool sources_hook(const char *path, void *ctx)
{
	char full[8192], err[256], *buf;
	size_t len;
	bool r;

	(void)ctx;
	snprintf(full, sizeof(full), "%s/%s", lint_script_dir, path);
	if (common_read_file(full, &buf, &len, err, sizeof(err)))
		return true;
	r = slurm_text_conda_hook(buf, len);
	free(buf);
	return r;
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

/* The finding worded (what, why, the fix) into m (n bytes), without FILE:LINE. */
static void word(const struct slurm_finding *f, char *m, size_t n)
{
	char a[32], b[32];

	switch (f->code) {
	case SLF_CRLF:
		snprintf(m, n, "%s", _("DOS line endings (CR LF): sbatch refuses the script; "
			  "convert it with dos2unix or sed -i 's/\\r$//'"));
		break;
	case SLF_NO_SHEBANG:
		snprintf(m, n, "%s", _("no #! line: sbatch refuses a script without one; "
			  "make the first line #!/bin/bash"));
		break;
	case SLF_SHEBANG_MISPLACED:
		snprintf(m, n, "%s", _("#! below the first line: only the first line names the shell; "
			  "move it to line 1"));
		break;
	case SLF_NEAR_DIRECTIVE:
		if (f->num)
			snprintf(m, n, _("'%s %s' is a comment, not a directive: the job is queued and runs "
				  "with no GPU at all; write it as '#SBATCH %s'"), f->arg, f->value,
				f->value);
		else
			snprintf(m, n, _("'%s %s' is a comment, not a directive: sbatch reads only lines that "
				  "start with exactly #SBATCH; write it as '#SBATCH %s'"), f->arg,
				f->value, f->value);
		break;
	case SLF_AFTER_COMMAND:
		snprintf(m, n, _("#SBATCH %s comes after the first command (line %.0f): sbatch ignores it; "
			  "move it above line %.0f"), f->arg, f->num, f->num);
		break;
	case SLF_UNKNOWN_OPTION:
		if (f->suggest[0])
			snprintf(m, n, _("%s is no sbatch option: sbatch refuses the script; did you mean %s?"),
				f->arg, f->suggest);
		else
			snprintf(m, n, _("%s is no sbatch option: sbatch refuses the script; "
				  "see man sbatch for the options"), f->arg);
		break;
	case SLF_MISSING_VALUE:
		snprintf(m, n, _("%s needs a value: sbatch refuses the script; write %s=VALUE"), f->arg, f->arg);
		break;
	case SLF_UNEXPECTED_VALUE:
		snprintf(m, n, _("%s takes no value, got '%s': sbatch refuses the script; write %s alone"), f->arg, f->value, f->arg);
		break;
	case SLF_BAD_VALUE:
		snprintf(m, n, _("%s='%s' is not valid: sbatch refuses it or reads something else; expected %s"),
			f->arg, f->value, kind_words(f->kind));
		break;
	case SLF_NON_ASCII:
		snprintf(m, n, "%s", _("non-ASCII bytes in a directive: sbatch reads them as part of a value (a "
			  "full-width space separates no options, a smart quote quotes nothing); retype the line "
			  "in ASCII"));
		break;
	case SLF_NO_GPU:
		if (f->arg[0] && strcmp(f->arg, f->value))
			snprintf(m, n, _("%s runs here and the job shows it wants a GPU (%s), but the script asks for "
				 "no GPU: the job gets none and CUDA sees no device; add #SBATCH --gres=gpu:1 (or "
				 "--gpus=1) above the first command"), f->arg, f->value);
		else
			snprintf(m, n, _("the job shows it wants a GPU here (%s), but the script asks for no GPU: the "
				 "job gets none and CUDA sees no device; add #SBATCH --gres=gpu:1 (or --gpus=1) above "
				 "the first command"), f->value);
		break;
	case SLF_TIME_OVER_LIMIT:
		slurm_format_time(f->num, a, sizeof(a));
		slurm_format_time(f->num2, b, sizeof(b));
		snprintf(m, n, _("--time=%s is above the partition's limit of %s: the job stays pending "
			  "for ever (PartitionTimeLimit) or is refused; ask for %s at most"), a, b, b);
		break;
	case SLF_NO_RESUME:
		snprintf(m, n, "%s", _("the run is longer than one job may be, and nothing resumes it (no checkpoint, "
			  "no --signal, no --requeue): the work is lost at the limit; write checkpoints and "
			  "add #SBATCH --signal=B:USR1@120 and --requeue (gpurent slurm script does)"));
		break;
	case SLF_OUTPUT_DIR:
		if (f->value[0] == '/')
			snprintf(m, n, _("%s is in '%s', which does not exist: the job fails at its start and writes "
				 "no log to say why; mkdir -p %s before sbatch"), f->arg, f->value, f->value);
		else
			snprintf(m, n, _("%s is in '%s', which does not exist if you submit from %s: the job fails "
				 "at its start and writes no log to say why; make %s/%s first (mkdir -p)"), f->arg,
				 f->value, lint_where, lint_base, f->value + (strncmp(f->value, "./", 2) ? 0 : 2));
		break;
	case SLF_CONDA_NO_HOOK:
		snprintf(m, n, "%s", _("conda activate without conda's shell hook: a batch shell reads no ~/.bashrc, "
			  "so it fails (CondaError: run 'conda init' before 'conda activate'); put "
			  "eval \"$(conda shell.bash hook)\" before it"));
		break;
	case SLF_MEM_BOTH:
		snprintf(m, n, _("%s together with %s: sbatch takes only one way of asking for memory; "
			  "keep one of them"), f->arg, f->value);
		break;
	case SLF_GRES_AND_GPUS:
		snprintf(m, n, _("%s together with %s: Slurm keeps both GPU requests and sizes the job to meet "
			  "both (--gres=gpu:1 with --gpus=2 asks for two nodes); keep one of them"), f->arg, f->value);
		break;
	case SLF_SBATCH_STOP:
		if (f->num == SLURM_SBARG_COLON)
			snprintf(m, n, "%s", _("a word of the directive starts with ':': sbatch refuses the script "
				  "(Unexpected `:`); write OPTION=VALUE"));
		else
			snprintf(m, n, "%s", _("a quote is not closed on the line: sbatch refuses the script "
				  "(Unmatched quote); close it, or escape it as \\' or \\\""));
		break;
	case SLF_SHEBANG_OPTION:
		if (f->num == SLURM_SHEBANG_DASH)
			snprintf(m, n, _("the #! line's '%s' is no option of %s: its dash is not the ASCII '-', so "
				 "the kernel passes it as a file name and the job dies at its start ('%s: No such file "
				 "or directory'); type the '-' again"), f->arg, f->value, f->arg);
		else if (f->num == SLURM_SHEBANG_ENV_ARGS)
			snprintf(m, n, _("env takes '%s' on the #! line as one program's name: the job dies at its "
				 "start ('No such file or directory'); write #!/usr/bin/env -S %s, or #!/bin/bash "
				 "with the option"), f->arg, f->arg);
		else
			snprintf(m, n, _("the kernel passes '%s' on the #! line to %s as ONE argument, which it "
				 "refuses: the job dies at its start ('invalid option'); keep one cluster such as -l "
				 "or -le, and put the rest in the script as set -e, set -x"), f->arg, f->value);
		break;
	case SLF_TEMPLATE:
		snprintf(m, n, "%s", _("a template: sbatch fills in no {{ }}, {name}, $VAR or ${VAR} and reads "
			 "them as written (as options, values, file names); render it first, then lint what "
			 "it gives"));
		break;
	case SLF_KEPT_ALTERNATIVE:
		snprintf(m, n, _("note: '%s %s' is a comment beside an active #SBATCH line of the same option: "
			 "a kept alternative, which sbatch ignores (nothing to do if that is meant)"), f->arg,
			 f->value);
		break;
	case SLF_PLUGIN_OPTION:
		snprintf(m, n, _("note: %s is a SPANK plugin's option (such as NERSC's shifter), not sbatch's own: "
			 "sbatch takes it where that plugin is installed and refuses the script elsewhere "
			 "(unrecognized option)"), f->arg);
		break;
	case SLF_COUNT:
		m[0] = '\0';
		break;
	case SLF_ARRAY_OUTPUT:
		snprintf(m, n, _("--array with %s=%s: every task of the array writes the same file; "
			  "put %%a in the name (%%A_%%a)"), f->arg, f->value);
		break;
	}
}

/* The findings as text lines (FILE:LINE: what, why, fix [RULE]) or as a JSON array. */
static void lint_report(const char *file, const struct slurm_finding *fs, size_t n, size_t shown, bool json)
{
	char m[1600];
	struct json j;

	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	}
	for (size_t i = 0; i < shown; i++) {
		word(&fs[i], m, sizeof(m));
		if (!json) {
			put_line("%s:%zu: %s [%s]", file, fs[i].line, m, slurm_finding_id(fs[i].code));
			continue;
		}
		json_obj_begin(&j, NULL);
		json_str(&j, "file", file);
		json_int(&j, "line", (long)fs[i].line);
		json_str(&j, "rule", slurm_finding_id(fs[i].code));
		json_str(&j, "severity", slurm_finding_is_note(fs[i].code) ? "note" : "error");
		json_str(&j, "message", m);
		json_obj_end(&j);
	}
	if (json) {
		json_arr_end(&j);
		putchar('\n');
	} else if (n > shown) {
		put_line(_("%s: %zu more problems not shown"), file, n - shown);
	}
}

static int slurm_lint_cmd(int argc, char **argv)
{
	struct slurm_optdb db;
	struct slurm_script *s;
	struct slurm_finding fs[128];
	struct slurm_lint_env env = {0};
	const char *partition = NULL, *file, *slash;
	double max_time = 0;
	char *buf = NULL, err[1200], base[8192], cwd[4096];
	size_t len, n, shown, problems = 0;
	bool json = false;
	int rc;
	const struct opt opts[] = {
		OPT_BOOL("json", &json, N_("the findings as a JSON array")),
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
	/* --output is relative to where sbatch runs the job: the script's --chdir, else the
	 * directory one submits from (here); an absolute --chdir not here is another machine's */
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	{
		const struct slurm_directive *cd = slurm_script_get(s, "chdir");
		if (cd && cd->value[0] == '/')
			snprintf(base, sizeof(base), "%s", cd->value);
		else if (cd && cd->value[0] && strcmp(cd->value, "."))
			snprintf(base, sizeof(base), "%s/%s", cwd, cd->value);
		else
			snprintf(base, sizeof(base), "%s", cwd);
		env.dir_exists = cd && cd->value[0] == '/' && !is_dir(cd->value) ? NULL : dir_exists;
	}
	/* an absolute --chdir: the job starts there wherever one submits from */
	{
		const struct slurm_directive *cd = slurm_script_get(s, "chdir");
		lint_where = cd && cd->value[0] == '/' ? base : cwd;
	}
	lint_base = base;
	slash = strrchr(file, '/');
	snprintf(lint_script_dir, sizeof(lint_script_dir), "%.*s", slash ? (int)(slash - file) : 1,
		 slash ? file : ".");
	env.sources_hook = sources_hook;
	env.ctx = base;
	n = slurm_lint(s, &db, &env, fs, sizeof(fs) / sizeof(fs[0]));
	shown = n < sizeof(fs) / sizeof(fs[0]) ? n : sizeof(fs) / sizeof(fs[0]);
	lint_report(file, fs, n, shown, json);
	for (size_t i = 0; i < shown; i++)
		problems += !slurm_finding_is_note(fs[i].code);
	/* notes alone (a kept alternative) are no problem */
	rc = msg_finish(problems || n > shown ? EXIT_RUNTIME : EXIT_OK);
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
