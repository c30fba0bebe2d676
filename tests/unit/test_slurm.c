/* test_slurm.c - sbatch scripts as facts (src/core/task/slurm.c): the options
 * table, the parser, each lint rule with a script that breaks it and one
 * that does not, Slurm's durations and the generator's decisions (issue 14). */
#include "testutil.h"

#include <math.h>

#include "core/task/slurm.h"
#include "core/task/slurm_script.h"

static struct slurm_optdb db;
static struct slurm_script sc;
static struct slurm_finding fs[64];
static char err[512];

static int setup(void **st)
{
	size_t len;
	char *buf = tu_read("data/sbatch_options.csv", &len);

	(void)st;
	assert_non_null(buf);
	if (slurm_optdb_load(buf, len, "sbatch_options.csv", &db, err, sizeof(err)))
		fail_msg("%s", err);
	free(buf);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	slurm_optdb_free(&db);
	return 0;
}

static bool dir_exists(const char *dir, void *ctx)
{
	(void)ctx;
	return strcmp(dir, "logs") != 0;   /* "logs" is missing, everything else there */
}

static size_t lint_env(const char *text, double max_time)
{
	struct slurm_lint_env env = {.max_time_s = max_time, .dir_exists = dir_exists};

	if (slurm_script_parse(text, strlen(text), "job.sh", &db, &sc, err, sizeof(err)))
		fail_msg("%s", err);
	return slurm_lint(&sc, &db, &env, fs, 64);
}

static size_t lint(const char *text)
{
	return lint_env(text, 0);
}

/* The finding with code c, or NULL. */
static const struct slurm_finding *has(size_t n, enum slurm_finding_code c)
{
	for (size_t i = 0; i < n && i < 64; i++)
		if (fs[i].code == c)
			return &fs[i];
	return NULL;
}

#define GOOD "#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=01:00:00\n"

static void test_table(void **st)
{
	const struct slurm_opt *o;

	(void)st;
	assert_true(db.n > 90);
	o = slurm_opt_find(&db, "gres");
	assert_non_null(o);
	assert_int_equal(o->arg, SLURM_ARG_REQUIRED);
	assert_int_equal(o->kind, SLURM_K_GRES);
	o = slurm_opt_short(&db, 'p');
	assert_non_null(o);
	assert_string_equal(o->name, "partition");
	assert_int_equal(slurm_opt_find(&db, "requeue")->arg, SLURM_ARG_NONE);
	assert_null(slurm_opt_find(&db, "gpu"));
}

static void test_table_bad(void **st)
{
	struct slurm_optdb d;
	const char *bad = "option,short,arg,kind,source\ntime,t,sometimes,time,x\n";

	(void)st;
	assert_int_equal(slurm_optdb_load(bad, strlen(bad), "o.csv", &d, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "o.csv:2: arg: expected none, required or optional"));
}

static void test_time(void **st)
{
	double s;

	(void)st;
	assert_int_equal(slurm_parse_time("90", &s), 0);
	assert_true(s == 5400);
	assert_int_equal(slurm_parse_time("5:30", &s), 0);
	assert_true(s == 330);
	assert_int_equal(slurm_parse_time("02:00:00", &s), 0);
	assert_true(s == 7200);
	assert_int_equal(slurm_parse_time("1-12", &s), 0);
	assert_true(s == 129600);
	assert_int_equal(slurm_parse_time("1-00:30", &s), 0);
	assert_true(s == 88200);
	assert_int_equal(slurm_parse_time("2-01:00:05", &s), 0);
	assert_true(s == 176405);
	assert_int_equal(slurm_parse_time("UNLIMITED", &s), 0);
	assert_true(s == -1);
	assert_int_equal(slurm_parse_time("2h", &s), -1);
	assert_int_equal(slurm_parse_time("1:2:3:4", &s), -1);
	assert_int_equal(slurm_parse_time("0", &s), 0);
	assert_true(s == -1);   /* sbatch: zero is no limit */
	/* in the days forms too (repro slurm-time-zero-days) */
	assert_int_equal(slurm_parse_time("0-00:00", &s), 0);
	assert_true(s == -1);
	assert_int_equal(slurm_parse_time("0-0", &s), 0);
	assert_true(s == -1);
	assert_int_equal(slurm_parse_time("0-00:00:00", &s), 0);
	assert_true(s == -1);
	assert_int_equal(slurm_parse_time("0-00:01", &s), 0);
	assert_true(s == 60);
	assert_int_equal(slurm_parse_time("", &s), -1);
	assert_int_equal(slurm_parse_time("1-", &s), -1);
	char b[32];
	slurm_format_time(7200, b, sizeof(b));
	assert_string_equal(b, "02:00:00");
	slurm_format_time(86400 + 61, b, sizeof(b));
	assert_string_equal(b, "1-00:02:00");
	/* --time=800000-00:00:00 prints as itself, not as one minute */
	assert_int_equal(slurm_parse_time("800000-00:00:00", &s), 0);
	slurm_format_time(s, b, sizeof(b));
	assert_string_equal(b, "800000-00:00:00");
	slurm_format_time(INFINITY, b, sizeof(b));
	assert_string_equal(b, "UNLIMITED");
	slurm_format_time(NAN, b, sizeof(b));
	assert_string_equal(b, "UNLIMITED");
	assert_int_equal(slurm_parse_time("UNLIMITED", &s), 0);
	slurm_format_time(s, b, sizeof(b));
	assert_string_equal(b, "UNLIMITED");
}

/* Seed 004 §3.5's script: the GPU request is a comment (line 4), so the job gets no GPU. */
static void test_seed(void **st)
{
	size_t len, n;
	char *buf = tu_read("tests/data/slurm/seed004.sbatch", &len);
	const struct slurm_finding *f;

	(void)st;
	assert_non_null(buf);
	assert_int_equal(slurm_script_parse(buf, len, "seed.sh", &db, &sc, err, sizeof(err)), 0);
	free(buf);
	assert_int_equal(sc.ndir, 5);
	assert_int_equal(sc.first_command, 8);
	assert_false(slurm_script_gpus(&sc));
	struct slurm_lint_env env = {.dir_exists = dir_exists};
	n = slurm_lint(&sc, &db, &env, fs, 64);
	f = has(n, SLF_NEAR_DIRECTIVE);
	assert_non_null(f);
	assert_int_equal(f->line, 4);
	assert_string_equal(f->arg, "## SBATCH");
	assert_true(f->num == 1);
	f = has(n, SLF_NO_GPU);
	assert_non_null(f);
	assert_int_equal(f->line, 9);
	assert_string_equal(f->arg, "python");
	assert_int_equal(has(n, SLF_CONDA_NO_HOOK)->line, 8);
	assert_int_equal(has(n, SLF_OUTPUT_DIR)->line, 7);
	assert_int_equal(n, 4);
	/* in line order */
	for (size_t i = 1; i < n; i++)
		assert_true(fs[i - 1].line <= fs[i].line);
}

static void test_clean(void **st)
{
	(void)st;
	assert_int_equal(lint(GOOD "python train.py\n"), 0);
}

static void test_near(void **st)
{
	size_t n;

	(void)st;
	n = lint(GOOD "# SBATCH --mem=4G\n#sbatch -N 2\n#  SBATCH --nodes=5\n  #SBATCH --qos=x\npython t.py\n");
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fs[i].code, SLF_NEAR_DIRECTIVE);
	assert_string_equal(fs[0].arg, "# SBATCH");
	assert_string_equal(fs[1].arg, "#sbatch");
	assert_string_equal(fs[1].value, "-N 2");
	assert_true(fs[0].num == 0);
	/* a comment about sbatch is not one, nor how to submit (corpus 005-fasrc_..., 016-huggingface_nanotron-...) */
	assert_int_equal(lint(GOOD "# sbatchify the run\n# submit with sbatch\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "#   sbatch recursive-array.sh 1 60000\n#      sbatch --nodes=N run.sh\n./a\n"), 0);
	/* issue 28, the corpus's verdicts: a directive switched off with "##SBATCH" or "### #SBATCH"
	 * costs nothing (c074-ucr_hpcc-test_job.sh, c070-nsaph_aki-runscript.sh), unless it was the
	 * GPUs; "## SBATCH", "# SBATCH", "#sbatch" stay mistakes whatever they ask */
	assert_int_equal(lint(GOOD "##SBATCH --mail-user=a@b.c\n###SBATCH --account=x\n### #SBATCH -c 8\n./a\n"), 0);
	n = lint("#!/bin/bash\n##SBATCH --gpus=1\n#SBATCH -t 10\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_NEAR_DIRECTIVE);
	assert_true(fs[0].num == 1);
	assert_int_equal(lint(GOOD "## SBATCH --mail-user=a@b.c\n./a\n"), 1);
	/* a comment after '#' in any language is no non-ASCII directive (corpus c065-trajsim-...) */
	assert_int_equal(lint(GOOD "#SBATCH -J gpu-job   # \344\273\273\345\212\241\n./a\n"), 0);
}

static void test_after_command(void **st)
{
	size_t n;
	const struct slurm_finding *f;

	(void)st;
	n = lint(GOOD "module load cuda\n#SBATCH --mem=8G\npython t.py\n");
	f = has(n, SLF_AFTER_COMMAND);
	assert_non_null(f);
	assert_int_equal(f->line, 5);
	assert_true(f->num == 4);
	assert_string_equal(f->arg, "--mem");
	assert_int_equal(lint(GOOD "#SBATCH --mem=8G\nmodule load cuda\npython t.py\n"), 0);
}

static void test_unknown(void **st)
{
	size_t n;
	const struct slurm_finding *f;

	(void)st;
	n = lint(GOOD "#SBATCH --tiem=10\n#SBATCH --gpu=1\n#SBATCH -Z\npython t.py\n");
	f = has(n, SLF_UNKNOWN_OPTION);
	assert_non_null(f);
	assert_string_equal(f->arg, "--tiem");
	assert_string_equal(f->suggest, "--time");
	assert_string_equal(fs[1].arg, "--gpu");
	assert_string_equal(fs[1].suggest, "--gpus");
	assert_string_equal(fs[2].arg, "-Z");
	assert_int_equal(n, 3);
	assert_int_equal(lint(GOOD "#SBATCH -p gpu -N 1 --ntasks-per-node=1\npython t.py\n"), 0);
	assert_string_equal(slurm_script_get(&sc, "partition")->value, "gpu");
	assert_string_equal(slurm_script_get(&sc, "nodes")->value, "1");
}

static void test_values(void **st)
{
	size_t n;

	(void)st;
	n = lint(GOOD "#SBATCH --time=2h\n#SBATCH --cpus-per-task=eight\n#SBATCH --mem=16GiB\n"
		 "#SBATCH --signal=B:USR3@60\n#SBATCH --open-mode=add\n#SBATCH --gres=gpu:a100:two\n"
		 "#SBATCH --output\n#SBATCH --requeue=yes\npython t.py\n");
	assert_int_equal(n, 8);
	assert_int_equal(fs[0].code, SLF_BAD_VALUE);
	assert_int_equal(fs[0].kind, SLURM_K_TIME);
	assert_string_equal(fs[0].value, "2h");
	assert_int_equal(fs[1].kind, SLURM_K_COUNT);
	assert_int_equal(fs[2].kind, SLURM_K_MEM);
	assert_int_equal(fs[3].kind, SLURM_K_SIGNAL);
	assert_int_equal(fs[4].kind, SLURM_K_OPEN_MODE);
	assert_int_equal(fs[5].kind, SLURM_K_GRES);
	assert_int_equal(fs[6].code, SLF_MISSING_VALUE);
	assert_int_equal(fs[7].code, SLF_UNEXPECTED_VALUE);
	assert_int_equal(lint(GOOD "#SBATCH --time=1-12:00\n#SBATCH --cpus-per-task=8\n#SBATCH --mem=16G\n"
			      "#SBATCH --signal=B:USR1@120\n#SBATCH --open-mode=append\n"
			      "#SBATCH --output=%x-%j.out\n#SBATCH --requeue\npython t.py\n"), 0);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --gres=gpu:a100:2,tmpfs:10\npython t.py\n"), 0);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --gpus=a100:2\npython t.py\n"), 0);
	/* issue 28: what sbatch 22.05.8 takes (measured with --test-only): corpus
	 * 032-CSCfi_...-run-mahti-ray.sbatch's --mem=200GB and --tasks-per-node,
	 * 005-fasrc_...-recursive-array.sbatch's --array=[0-4], 045-ubccr_...'s --cluster */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --mem=200GB\n#SBATCH --array=[0-4]\n"
			      "#SBATCH --tasks-per-node=1\n#SBATCH --cluster=ub-hpc\n#SBATCH --tasks-per-n=1\n./a\n"), 0);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --mem-per-cpu=1gb\n./a\n"), 0);
	/* and what it refuses: 1.5G, a prefix of two options (getopt_long: "ambiguous") */
	n = lint("#!/bin/bash\n#SBATCH --mem=1.5G\n#SBATCH --clust=x\n./a\n");
	assert_int_equal(n, 2);
	assert_int_equal(fs[0].code, SLF_BAD_VALUE);
	assert_int_equal(fs[1].code, SLF_UNKNOWN_OPTION);
	/* NERSC's shifter options: a note (corpus 051-NERSC_sc23-dl-tutorial-submit_pm.sbatch) */
	n = lint("#!/bin/bash\n#SBATCH --image=nersc/pytorch:ngc-23.07-v0\n#SBATCH --module=gpu\n./a\n");
	assert_int_equal(n, 2);
	assert_int_equal(fs[0].code, SLF_PLUGIN_OPTION);
	assert_true(slurm_finding_is_note(fs[1].code));
}

static void test_no_gpu(void **st)
{
	size_t n;

	(void)st;
	n = lint("#!/bin/bash\n#SBATCH --time=10\nsrun /opt/conda/bin/torchrun --nproc-per-node 2 t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_NO_GPU);
	assert_string_equal(fs[0].arg, "torchrun");
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --gpus-per-node=2\naccelerate launch t.py\n"), 0);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --time=10\n./make_data.sh\n"), 0);
	/* issue 28: python alone shows no wish for a GPU (17-open_r1-slurm-e2b_router.slurm on
	 * hopper-cpu, 47-bigscience-catalogue-get_sizes.slurm on cpu_p1) */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --gres=tmpfs:10\npython3.11 t.py\n"), 0);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --partition=hopper-cpu\nsrun python scripts/e2b_router.py\n"), 0);
	/* "module load python" runs no python (39-ViT_clouds-pipeline-mod021KM.sbatch) */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --partition=broadwl\nmodule load python\nwhich python\n"), 0);
	/* the signs: nvidia-smi, CUDA_*, torch.cuda, a launcher, a GPU partition */
	n = lint("#!/bin/bash\n#SBATCH --time=10\nnvidia-smi\npython3.11 t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].line, 3);
	assert_string_equal(fs[0].value, "nvidia-smi");
	assert_non_null(has(lint("#!/bin/bash\n#SBATCH -t 10\nexport CUDA_VISIBLE_DEVICES=0\npython t.py\n"), SLF_NO_GPU));
	assert_non_null(has(lint("#!/bin/bash\n#SBATCH -t 10\npython -c 'import torch; torch.cuda.init()'\n"), SLF_NO_GPU));
	n = lint("#!/bin/bash\n#SBATCH -p gpu\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].line, 3);
	assert_string_equal(fs[0].value, "--partition=gpu");
	/* never on a CPU partition, QOS or account, also with a sign */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --account=six@cpu\n#SBATCH --array=0-9\nnvidia-smi\n"), 0);
}

/* issue 28: the rules the corpus changed (tests/data/slurm-corpus/EXPECT), each broken and kept */
static void test_heredoc(void **st)
{
	size_t n;

	(void)st;
	/* the shape of corpus 017-NVIDIA_Megatron-LM-...-sbatch_mfsdp_deepseek_v3.sbatch: the
	 * #SBATCH lines are another script's, fed to sbatch by a heredoc */
	n = lint(GOOD "set -e\nsbatch <<EOF\n#!/bin/bash\n#SBATCH --nodes=your_own_nodes\n#SBATCH --tiem=1\n"
		 "EOF\npython t.py\n");
	assert_int_equal(n, 0);
	/* quoted and <<- delimiters; a here-string and a shift open none */
	n = lint(GOOD "cat << 'END' > w.sh\n#SBATCH --x\nEND\ncat <<-\"E2\"\n\t#SBATCH -y\n\tE2\n"
		 "read -ra A <<< \"$X\"\necho $((1<<3))\n#SBATCH --mem=1G\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_AFTER_COMMAND);
	assert_int_equal(fs[0].line, 12);
	/* a string over several lines */
	n = lint(GOOD "HDR=\"#!/bin/bash\n#SBATCH --gres=gpu:1\n\"\necho \"$HDR\" > w.sh\npython t.py\n");
	assert_int_equal(n, 0);
	/* a directive after the heredoc is still after the first command (37-CI_Failing_Bui-...) */
	n = lint(GOOD "mkdir -p out\n#SBATCH --output=./out/%A_%a.out\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_AFTER_COMMAND);
}

static void test_kept_alternative(void **st)
{
	size_t n;

	(void)st;
	/* shared/39-ViT_clouds-pipeline-mod021KM.sbatch: ##SBATCH --account beside #SBATCH --account */
	n = lint("#!/bin/bash\n##SBATCH --account=pi-foster\n#SBATCH --account=pi-chard\n#SBATCH -t 10\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_KEPT_ALTERNATIVE);
	assert_int_equal(fs[0].line, 2);
	assert_true(slurm_finding_is_note(fs[0].code));
	assert_string_equal(slurm_finding_id(fs[0].code), "kept-alternative");
	/* the short alias counts as the same option */
	n = lint("#!/bin/bash\n## SBATCH -p big\n#SBATCH --partition=small\n./a\n");
	assert_int_equal(fs[0].code, SLF_KEPT_ALTERNATIVE);
	/* alone it is the seed's mistake */
	n = lint("#!/bin/bash\n##SBATCH --gres=gpu:1\n#SBATCH --account=a\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_NEAR_DIRECTIVE);
	assert_false(slurm_finding_is_note(fs[0].code));
}

static void test_hetjob(void **st)
{
	size_t n;

	(void)st;
	/* each component its own --mem: no mem-both across them; a GPU in one is the job's */
	n = lint("#!/bin/bash\n#SBATCH --mem=4G\n#SBATCH -p cpu-part\n#SBATCH hetjob\n#SBATCH --mem-per-cpu=2G\n"
		 "#SBATCH --gres=gpu:1\nsrun --het-group=1 torchrun t.py\n");
	assert_int_equal(n, 0);
	assert_int_equal(sc.ncomp, 2);
	assert_int_equal(sc.dir[2].comp, 1);
	/* within one component sbatch refuses the pair */
	n = lint("#!/bin/bash\n#SBATCH --mem=4G\n#SBATCH packjob\n#SBATCH --mem=4G\n#SBATCH --mem-per-cpu=2G\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_MEM_BOTH);
	assert_int_equal(fs[0].line, 5);
}

static void test_template(void **st)
{
	size_t n;

	(void)st;
	/* shared/29-picotron-template-base_job.slurm: one finding for the template */
	n = lint("#!/bin/bash\n#SBATCH --nodes={{ nodes }}\n#SBATCH --gres=gpu:{{ n }}\n"
		 "#SBATCH --output={{ root }}/log_%j.out\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_TEMPLATE);
	assert_int_equal(fs[0].line, 2);
	/* corpus 059-boneta_jacques-...: str.format fields; $VAR is read as written too */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH -p {queue}\n#SBATCH --array={a}-{b}\n./a\n"), 1);
	assert_int_equal(fs[0].code, SLF_TEMPLATE);
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --output=$HOME/x.out\n./a\n"), 1);
	assert_int_equal(fs[0].code, SLF_TEMPLATE);
	/* '%j' and a '{' in a value are no template */
	assert_int_equal(lint("#!/bin/bash\n#SBATCH --job-name=a{1\n#SBATCH --output=%x-%j.out\n./a\n"), 0);
}

static void test_shebang(void **st)
{
	size_t n;

	(void)st;
	/* "#!/bin/sh \u2013l": bash 5.2 runs "–l" as the script: "–l: No such file or directory" */
	n = lint("#!/bin/sh \342\200\223l\n#SBATCH -t 10\n./a\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_SHEBANG_OPTION);
	assert_true(fs[0].num == SLURM_SHEBANG_DASH);
	assert_string_equal(fs[0].value, "sh");
	n = lint("#!/bin/bash -l -e\n./a\n");
	assert_int_equal(n, 1);
	assert_true(fs[0].num == SLURM_SHEBANG_OPTION);
	assert_string_equal(fs[0].arg, "-l -e");
	n = lint("#!/usr/bin/env bash -l\n./a\n");
	assert_true(n == 1 && fs[0].num == SLURM_SHEBANG_ENV_ARGS);
	/* what bash takes: 49-tutorials-basics-tfgpu.sh's -l, -lex, --login, a trailing blank (corpus 051) */
	assert_int_equal(lint("#!/bin/bash -l\n./a\n"), 0);
	assert_int_equal(lint("#!/bin/bash -lex\n./a\n"), 0);
	assert_int_equal(lint("#!/bin/bash --login\n./a\n"), 0);
	assert_int_equal(lint("#!/bin/bash \n./a\n"), 0);
	assert_int_equal(lint("#!/usr/bin/env -S bash -l\n./a\n"), 0);
	assert_int_equal(lint("#!/bin/env bash\n./a\n"), 0);
	/* another interpreter's options are its own */
	assert_int_equal(lint("#!/usr/bin/python3 -u -W x\n./a\n"), 0);
}

static void test_ids(void **st)
{
	(void)st;
	for (int c = SLF_CRLF; c < SLF_COUNT; c++)
		assert_true(slurm_finding_id((enum slurm_finding_code)c)[0] != '\0');
	assert_string_equal(slurm_finding_id(SLF_NO_GPU), "no-gpu");
	assert_string_equal(slurm_finding_id(SLF_SHEBANG_OPTION), "shebang-option");
	assert_string_equal(slurm_finding_id(SLF_COUNT), "");
}

static void test_time_limit(void **st)
{
	size_t n;

	(void)st;
	n = lint_env(GOOD "#SBATCH --time=2-00:00:00\npython t.py\n", 86400);
	assert_int_equal(n, 2);
	assert_int_equal(fs[0].code, SLF_TIME_OVER_LIMIT);
	assert_true(fs[0].num == 172800 && fs[0].num2 == 86400);
	assert_int_equal(fs[1].code, SLF_NO_RESUME);
	/* over the limit but resumable: only the limit is said */
	n = lint_env(GOOD "#SBATCH --time=2-00:00:00\n#SBATCH --requeue\npython t.py --resume\n", 86400);
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_TIME_OVER_LIMIT);
	assert_int_equal(lint_env(GOOD "python t.py\n", 86400), 0);
	assert_int_equal(lint_env(GOOD "#SBATCH --time=2-00:00:00\npython t.py\n", 0), 0);
}

static void test_pairs(void **st)
{
	size_t n;

	(void)st;
	n = lint(GOOD "#SBATCH --mem=8G\n#SBATCH --mem-per-cpu=2G\n#SBATCH --gpus=1\npython t.py\n");
	assert_int_equal(n, 2);
	assert_int_equal(fs[0].code, SLF_MEM_BOTH);
	assert_int_equal(fs[0].line, 5);
	assert_string_equal(fs[0].value, "--mem");
	assert_int_equal(fs[1].code, SLF_GRES_AND_GPUS);
	assert_int_equal(fs[1].line, 6);
	assert_int_equal(lint(GOOD "#SBATCH --mem-per-cpu=2G\n#SBATCH --gres=tmpfs:1\npython t.py\n"), 0);
}

static void test_array(void **st)
{
	size_t n;

	(void)st;
	n = lint(GOOD "#SBATCH --array=0-9%2\n#SBATCH --output=run-%A.out\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_ARRAY_OUTPUT);
	assert_int_equal(fs[0].line, 5);
	assert_int_equal(lint(GOOD "#SBATCH --array=0-9%2\n#SBATCH --output=run-%A_%a.out\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "#SBATCH --array=0-9\npython t.py\n"), 0);
}

static void test_output_dir(void **st)
{
	size_t n;

	(void)st;
	n = lint(GOOD "#SBATCH --error=logs/%j.err\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_OUTPUT_DIR);
	assert_string_equal(fs[0].value, "logs");
	assert_int_equal(lint(GOOD "#SBATCH --error=out/%j.err\npython t.py\n"), 0);
	char b[64];
	slurm_output_dir("/scratch/u/%j.out", b, sizeof(b));
	assert_string_equal(b, "/scratch/u");
	slurm_output_dir("x.out", b, sizeof(b));
	assert_string_equal(b, "");
}

static void test_conda(void **st)
{
	(void)st;
	assert_int_equal(has(lint(GOOD "conda activate env\npython t.py\n"), SLF_CONDA_NO_HOOK)->line, 4);
	assert_int_equal(lint(GOOD "source ~/miniconda3/etc/profile.d/conda.sh\nconda activate env\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "eval \"$(conda shell.bash hook)\"\nconda activate env\npython t.py\n"), 0);
	/* issue 28: shared/01-multi_gpu_trai-01_single_gpu-job.slurm's module load anaconda3 */
	assert_int_equal(lint(GOOD "module purge\nmodule load anaconda3/2023.9\nconda activate e\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "ml Miniforge3\nconda activate e\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "module load conda\nconda activate e\npython t.py\n"), 0);
	/* a module of something else is no hook */
	assert_non_null(has(lint(GOOD "module load cuda/12\nconda activate e\npython t.py\n"), SLF_CONDA_NO_HOOK));
	/* BigScience's start files: sourced from a variable's path, which may set it up */
	assert_int_equal(lint(GOOD "source $six_ALL_CCFRWORK/start-prod\nconda activate e\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "source ~/.bashrc\nconda activate e\npython t.py\n"), 0);
	assert_int_equal(lint(GOOD "source activate tf-cpu\nconda activate e\npython t.py\n"), 0);
	/* a venv's activate sets up no conda */
	assert_non_null(has(lint(GOOD "source /opt/venv/bin/activate\nconda activate e\npython t.py\n"),
			    SLF_CONDA_NO_HOOK));
	/* a file next to the script: lint asks env (the command reads it) */
	assert_int_equal(lint(GOOD ". scripts/setup.sh\nconda activate e\npython t.py\n"), 0);
	assert_int_equal(sc.nsourced, 1);
	assert_string_equal(sc.sourced[0].path, "scripts/setup.sh");
	assert_true(slurm_text_conda_hook("# x\nsource /opt/conda/etc/profile.d/conda.sh\n", 44));
	assert_false(slurm_text_conda_hook("export A=1\nmodule load gcc\n", 27));
	/* the hook after the activation does not count */
	assert_non_null(has(lint(GOOD "conda activate env\nsource conda.sh\npython t.py\n"), SLF_CONDA_NO_HOOK));
}

static void test_bytes(void **st)
{
	size_t n;

	(void)st;
	n = lint("#!/bin/bash\r\n#SBATCH --gres=gpu:1\r\npython t.py\r\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_CRLF);
	assert_int_equal(fs[0].line, 1);
	n = lint("#SBATCH --gres=gpu:1\n#!/bin/bash\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_SHEBANG_MISPLACED);
	assert_int_equal(fs[0].line, 2);
	n = lint("#SBATCH --gres=gpu:1\npython t.py\n");
	assert_int_equal(fs[0].code, SLF_NO_SHEBANG);
	assert_int_equal(n, 1);
	n = lint(GOOD "#SBATCH --job-name=\xe8\xae\xad\xe7\xbb\x83\npython t.py\n");
	assert_int_equal(n, 1);
	assert_int_equal(fs[0].code, SLF_NON_ASCII);
	assert_int_equal(fs[0].line, 4);
	/* non-ASCII in a command is fine */
	assert_int_equal(lint(GOOD "echo \xe8\xae\xad\npython t.py\n"), 0);
	assert_int_equal(slurm_script_parse("", 0, "e.sh", &db, &sc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "e.sh:1:"));
	/* NUL bytes and an endless line do not break it */
	assert_int_equal(slurm_script_parse("#SBATCH\0--x\n\0", 13, "n.sh", &db, &sc, err, sizeof(err)), 0);
}

static void test_gen(void **st)
{
	struct slurm_gen g;
	struct slurm_gen_in in = {.wall_s = 3 * 3600.0, .gpus_per_node = 2, .limit_s = 86400};

	(void)st;
	assert_int_equal(slurm_gen_plan(&in, &g, err, sizeof(err)), 0);
	/* 3 h + 20 % (36 min) + 120 s lead = 3 h 38 min */
	assert_true(g.time_s == 3 * 3600.0 + 36 * 60 + 120);
	assert_false(g.chained);
	assert_int_equal(g.jobs, 1);
	assert_int_equal(g.cpus_per_task, 16);
	assert_true(g.lead_s == 120);
	/* 60 h of work, a 24 h limit: jobs of 24 h, each computing 24 h - lead */
	in.wall_s = 60 * 3600.0;
	in.ckpt_write_s = 300;
	assert_int_equal(slurm_gen_plan(&in, &g, err, sizeof(err)), 0);
	assert_true(g.chained);
	assert_true(g.time_s == 86400);
	assert_true(g.lead_s == 600);
	assert_int_equal(g.jobs, 3);
	in = (struct slurm_gen_in){0};
	assert_int_equal(slurm_gen_plan(&in, &g, err, sizeof(err)), -1);
	in.time_s = 90;
	assert_int_equal(slurm_gen_plan(&in, &g, err, sizeof(err)), 0);
	assert_true(g.time_s == 120);
	assert_true(g.lead_s == 60);
}

/* The words of line as sbatch's reader gives them, joined by '|'; the status of the last read. */
static int words(const char *line, char *out, size_t n)
{
	size_t pos = 0, wl, o = 0;
	char w[256];
	int rc;

	out[0] = '\0';
	while ((rc = slurm_sbatch_arg(line, strlen(line), &pos, w, sizeof(w), &wl)) == SLURM_SBARG_WORD) {
		o += (size_t)snprintf(out + o, n - o, "%s%s", o ? "|" : "", w);
		assert_true(o < n);
		assert_int_equal(wl, strlen(w));
	}
	return rc;
}

/* sbatch's get_argument() (src/sbatch/opt.c), case by case (repro slurm-lint-backslash-hash). */
static void test_sbatch_arg(void **st)
{
	char b[512];

	(void)st;
	assert_int_equal(words(" --job-name=a\\ b -p x", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--job-name=a b|-p|x");
	assert_int_equal(words(" --gres=gpu:2#two-cards --time=5", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--gres=gpu:2");
	assert_int_equal(words(" --output=lo\\#gs/x.out", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--output=lo#gs/x.out");
	/* what the generator writes for "bob's run -x" */
	assert_int_equal(words(" --job-name='bob'\\''s run -x'", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--job-name=bob's run -x");
	/* '\' escapes inside quotes too; '#' and blanks inside quotes are the word's */
	assert_int_equal(words(" --account='a\\\\b # c' \"d\\\"e\"", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--account=a\\b # c|d\"e");
	/* isspace(): \v and \f separate words */
	assert_int_equal(words(" --account=a\vb\fc", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--account=a|b|c");
	/* an empty word ends the line; so does hetjob */
	assert_int_equal(words(" --x '' --time=5", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "--x");
	assert_int_equal(words(" hetjob --time=5", b, sizeof(b)), SLURM_SBARG_END);
	assert_string_equal(b, "");
	assert_int_equal(words(" --job-name='a b", b, sizeof(b)), SLURM_SBARG_UNMATCHED);
	assert_int_equal(words(" --time=5 :x", b, sizeof(b)), SLURM_SBARG_COLON);
	assert_string_equal(b, "--time=5");
}

/* lint reads as sbatch reads (repro slurm-lint-backslash-hash) */
static void test_lint_reader(void **st)
{
	size_t n;
	const struct slurm_directive *d;
	const struct slurm_finding *f;

	(void)st;
	n = lint("#!/bin/bash\n#SBATCH --gres=gpu:2#two-cards\n#SBATCH --time=01:00:00\n#SBATCH --job-name=a\\ b\n"
		 "python train.py\n");
	assert_int_equal(n, 0);
	assert_non_null(d = slurm_script_get(&sc, "job-name"));
	assert_string_equal(d->value, "a b");
	n = lint("#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=1:00:00#--gres=gpu:1\n#SBATCH --output=lo\\#gs/x.out\n"
		 "python train.py\n");
	assert_int_equal(n, 0);
	assert_non_null(d = slurm_script_get(&sc, "output"));
	assert_string_equal(d->value, "lo#gs/x.out");
	assert_non_null(d = slurm_script_get(&sc, "time"));
	assert_string_equal(d->value, "1:00:00");
	n = lint(GOOD "#SBATCH --job-name='bob'\\''s run -x'\npython t.py\n");
	assert_int_equal(n, 0);
	n = lint(GOOD "#SBATCH --job-name='bob\npython t.py\n");
	assert_non_null(f = has(n, SLF_SBATCH_STOP));
	assert_int_equal(f->line, 4);
	assert_true(f->num == SLURM_SBARG_UNMATCHED);
	/* a line of blanks and \f is no command to sbatch */
	n = lint("#!/bin/bash\n\f \n#SBATCH --gres=gpu:1\npython t.py\n");
	assert_null(has(n, SLF_AFTER_COMMAND));
	/* --time=0-00:00 is no limit, as --time=0 (repro slurm-time-zero-days) */
	n = lint_env("#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=0-00:00\npython t.py\n", 3600);
	assert_non_null(f = has(n, SLF_TIME_OVER_LIMIT));
	assert_true(f->num == -1);
}

/* The generator refuses what would break its lines and quotes for sbatch (repro slurm-script-newline). */
static void test_script(void **st)
{
	char py[] = "python", train[] = "train.py", nl[] = "a\nb";
	char *cmd[] = {py, train, NULL};
	struct slurm_emit e = {.cmd = cmd, .in = {.time_s = 3600}};
	struct strbuf b = STRBUF_INIT;
	const struct slurm_directive *d;

	(void)st;
	assert_int_equal(slurm_gen_plan(&e.in, &e.g, err, sizeof(err)), 0);
	e.job_name = "a\ntouch INJECTED #";
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--job-name: expected a value without control characters"));
	e.job_name = "ok";
	e.account = "a\vb";
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--account:"));
	e.account = NULL;
	e.gpu_type = "a100,license:x";
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), -1);
	e.gpu_type = NULL;
	e.log_dir = "lo\\gs";
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), -1);
	e.log_dir = "lo gs%1";
	cmd[1] = nl;
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "CMD:"));
	cmd[1] = train;
	e.job_name = "bob's \"run\" #1";
	e.account = "a\\b";
	e.partition = "p#1";
	assert_int_equal(slurm_script_check(&e, err, sizeof(err)), 0);
	slurm_script_render(&e, &b);
	assert_false(b.oom);
	assert_non_null(strstr(b.p, "#SBATCH --account='a\\\\b'\n"));
	assert_non_null(strstr(b.p, "#SBATCH --job-name='bob'\\''s \"run\" #1'\n"));
	assert_non_null(strstr(b.p, "#SBATCH --output='lo gs%%1/%x-%j.out'\n"));
	if (slurm_script_parse(b.p, b.len, "job.sh", &db, &sc, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(d = slurm_script_get(&sc, "job-name"));
	assert_string_equal(d->value, "bob's \"run\" #1");
	assert_non_null(d = slurm_script_get(&sc, "account"));
	assert_string_equal(d->value, "a\\b");
	assert_non_null(d = slurm_script_get(&sc, "partition"));
	assert_string_equal(d->value, "p#1");
	assert_non_null(d = slurm_script_get(&sc, "output"));
	assert_string_equal(d->value, "lo gs%%1/%x-%j.out");
	strbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_bad),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_near),
		cmocka_unit_test(test_after_command),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_no_gpu),
		cmocka_unit_test(test_heredoc),
		cmocka_unit_test(test_kept_alternative),
		cmocka_unit_test(test_hetjob),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_shebang),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_array),
		cmocka_unit_test(test_output_dir),
		cmocka_unit_test(test_conda),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_gen),
		cmocka_unit_test(test_sbatch_arg),
		cmocka_unit_test(test_lint_reader),
		cmocka_unit_test(test_script),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
