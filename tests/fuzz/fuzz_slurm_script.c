/*
 * fuzz_slurm_script.c - the sbatch script generator (src/core/task/slurm_script.c)
 * on fuzzer bytes as its option values, its output read back with the model
 * of sbatch's reader lint uses (slurm_sbatch_arg()): a value with a control
 * byte (or a GPU type that is no GRES type, a log directory with '\') is
 * refused; every other value reads back as given, each #SBATCH line is one
 * directive, and no value reaches a shell line before the first command.
 *
 * Input: one byte of flags (bit 0: two nodes; bit 1: chained jobs; bits
 * 2-3: GPUs per node - 1), then fields separated by \x01: job name,
 * partition, account, GPU type, log dir, checkpoint dir, conda env, venv,
 * gpurent, then CMD's words (none: "true"). An empty field is not given.
 */
#include "core/task/slurm_script.h"
#include "fuzz.h"

#include <stdbool.h>

#define NFIELDS 9
#define MAXCMD 16

static bool has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

static bool type_ok(const char *s)
{
	if (strlen(s) > 63)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

/* The next line of s from *pos into its bounds; false at the end. */
static bool next_line(const char *s, size_t len, size_t *pos, const char **line, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*line = s + *pos;
	nl = memchr(*line, '\n', len - *pos);
	FUZZ_CHECK(nl != NULL);   /* every line ends in a newline */
	*n = (size_t)(nl - *line);
	*pos += *n + 1;
	return true;
}

static bool starts(const char *line, size_t n, const char *prefix)
{
	return n >= strlen(prefix) && !memcmp(line, prefix, strlen(prefix));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct slurm_optdb db;
	static int loaded;
	static struct slurm_script sc;
	char *buf, *field[NFIELDS] = {0}, *cmd[MAXCMD + 1] = {0}, t[] = "true";
	struct slurm_emit e = {0};
	struct slurm_finding f[32];
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
	char err[1024], word[8192];
	const char *job, *line, *log;
	size_t len, nf = 0, nc = 0, pos = 0, n, wl, lineno = 0, mkdir_line = 0, execs = 0, ndir = 0;
	bool refuse = false;
	unsigned flags;

	if (!loaded) {
		const char *csv = fuzz_data_file("sbatch_options.csv", &len);
		FUZZ_CHECK(slurm_optdb_load(csv, len, "sbatch_options.csv", &db, err, sizeof(err)) == 0);
		loaded = 1;
	}
	if (size < 1 || size > 4096)
		return 0;
	flags = data[0];
	buf = malloc(size);
	FUZZ_CHECK(buf != NULL);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	/* the fields; a NUL ends the input's text (argv has none) */
	for (char *p = buf, *q; p; p = q) {
		q = strchr(p, '\x01');
		if (q)
			*q++ = '\0';
		if (nf < NFIELDS)
			field[nf++] = *p ? p : NULL;
		else if (nc < MAXCMD && *p)
			cmd[nc++] = p;
	}
	if (!nc)
		cmd[nc++] = t;
	e.job_name = field[0];
	e.partition = field[1];
	e.account = field[2];
	e.gpu_type = field[3];
	e.log_dir = field[4];
	e.ckpt_dir = field[5];
	e.conda_env = field[6];
	e.venv = e.conda_env ? NULL : field[7];
	e.gpurent = field[8];
	e.cmd = cmd;
	e.nodes = flags & 1 ? 2 : 1;
	e.gpus_per_node = (long)((flags >> 2) & 3) + 1;
	e.requeues = SLURM_EMIT_REQUEUES;
	e.in.nodes = e.nodes;
	e.in.gpus_per_node = e.gpus_per_node;
	e.in.wall_s = flags & 2 ? 30 * 3600.0 : 3600;
	e.in.limit_s = 86400;
	/* (a venv beside conda is not used, so not checked) */
	for (size_t i = 0; i < NFIELDS; i++)
		if (field[i] && has_control(field[i]) && !(i == 7 && e.conda_env))
			refuse = true;
	for (size_t i = 0; i < nc; i++)
		if (has_control(cmd[i]))
			refuse = true;
	if (e.gpu_type && !type_ok(e.gpu_type))
		refuse = true;
	if (e.log_dir && strchr(e.log_dir, '\\'))
		refuse = true;
	err[0] = '\0';
	FUZZ_CHECK(slurm_script_check(&e, err, sizeof(err)) == (refuse ? -1 : 0));
	if (refuse) {
		FUZZ_CHECK(!strncmp(err, "--", 2) || !strncmp(err, "CMD: ", 5));
		goto out;
	}
	FUZZ_CHECK(slurm_gen_plan(&e.in, &e.g, err, sizeof(err)) == 0);
	slurm_script_render(&e, &out);
	FUZZ_CHECK(!out.oom && out.p);
	job = slurm_script_job_name(&e);
	log = e.log_dir ? e.log_dir : SLURM_EMIT_LOG_DIR;

	/* the directives, one a line, each read back by sbatch's reader as one word */
	FUZZ_CHECK(next_line(out.p, out.len, &pos, &line, &n) && n == 11 && !memcmp(line, "#!/bin/bash", 11));
	lineno = 1;
	for (size_t k = 0;; k++) {
		const char *name = NULL, *value = NULL;
		size_t ap = 0;
		FUZZ_CHECK(next_line(out.p, out.len, &pos, &line, &n));
		lineno++;
		if (n == 1 && line[0] == '#')
			break;   /* the "#" that ends the directives */
		FUZZ_CHECK(starts(line, n, "#SBATCH "));
		ndir++;
		FUZZ_CHECK(slurm_sbatch_arg(line + 7, n - 7, &ap, word, sizeof(word), &wl) == SLURM_SBARG_WORD);
		FUZZ_CHECK(wl < sizeof(word));
		FUZZ_CHECK(slurm_sbatch_arg(line + 7, n - 7, &ap, err, sizeof(err), &wl) == SLURM_SBARG_END);
		FUZZ_CHECK(ap == n - 7);   /* nothing of the line left unread: no comment cut a value */
		/* the string values, in the order the script writes them */
		strbuf_release(&want);
		if (job && k == 0) {
			name = "job-name";
			value = job;
		} else if (!strncmp(word, "--partition=", 12)) {
			name = "partition";
			value = e.partition;
		} else if (!strncmp(word, "--account=", 10)) {
			name = "account";
			value = e.account;
		} else if (!strncmp(word, "--gres=", 7)) {
			name = "gres";
			if (e.gpu_type)
				strbuf_addf(&want, "gpu:%s:%ld", e.gpu_type, e.gpus_per_node);
			else
				strbuf_addf(&want, "gpu:%ld", e.gpus_per_node);
		} else if (!strncmp(word, "--output=", 9) || !strncmp(word, "--error=", 8)) {
			name = word[2] == 'o' ? "output" : "error";
			for (const char *p = log; *p; p++) {
				if (*p == '%')
					strbuf_addstr(&want, "%");   /* Slurm's pattern: %% is a % */
				strbuf_add(&want, p, 1);
			}
			strbuf_addstr(&want, word[2] == 'o' ? "/%x-%j.out" : "/%x-%j.err");
		}
		if (want.p)
			value = want.p;
		if (name) {
			FUZZ_CHECK(!strncmp(word + 2, name, strlen(name)) && word[2 + strlen(name)] == '=');
			FUZZ_CHECK(value && !strcmp(word + 3 + strlen(name), value));
		}
	}
	FUZZ_CHECK(ndir == (job ? 1u : 0u) + (e.partition ? 1u : 0u) + (e.account ? 1u : 0u) + 9 +
			   (e.g.chained ? 2u : 0u));
	/* below: comments up to mkdir, then only the script's own commands */
	while (next_line(out.p, out.len, &pos, &line, &n)) {
		lineno++;
		if (n && line[0] == '#')
			continue;
		if (!mkdir_line) {
			FUZZ_CHECK(starts(line, n, "mkdir -p "));
			mkdir_line = lineno;
			continue;
		}
		FUZZ_CHECK(starts(line, n, "eval \"$(conda shell.bash hook)\"") || starts(line, n, "conda activate ") ||
			   starts(line, n, "source ") || starts(line, n, "python -c 'import sys, torch") ||
			   starts(line, n, "\techo \"versions probe") || starts(line, n, "exec ") ||
			   starts(line, n, "srun --ntasks-per-node=1 "));
		if (starts(line, n, "exec ") || starts(line, n, "srun "))
			execs++;
	}
	FUZZ_CHECK(mkdir_line && execs == 1);

	/* lint reads it as the harness did: nothing sbatch would refuse or skip */
	FUZZ_CHECK(slurm_script_parse(out.p, out.len, "job.sh", &db, &sc, err, sizeof(err)) == 0);
	FUZZ_CHECK(sc.first_command == mkdir_line && sc.shebang_line == 1 && !sc.sbatch_stop_line);
	FUZZ_CHECK(sc.ndir == ndir && sc.nnear == 0);
	n = slurm_lint(&sc, &db, NULL, f, 32);
	/* (conda without the hook and a template are lint's guesses from words: a
	 * value may spell "conda activate", or "{{" in a job name) */
	for (size_t i = 0; i < n && i < 32; i++)
		FUZZ_CHECK(f[i].code == SLF_NON_ASCII || f[i].code == SLF_CONDA_NO_HOOK || f[i].code == SLF_TEMPLATE);
	/* lint keeps 255 bytes of a word ("--job-name=" and the value) */
	if (job && strlen("--job-name=") + strlen(job) < 255) {
		const struct slurm_directive *d = slurm_script_get(&sc, "job-name");
		FUZZ_CHECK(d && !strcmp(d->value, job));
	}
out:
	strbuf_release(&want);
	strbuf_release(&out);
	free(buf);
	return 0;
}
