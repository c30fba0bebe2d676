/*
 * slurmemit.c - the sbatch script (slurmemit.h). The directives and their
 * forms follow sbatch(1) of Slurm 22.05 (data/sbatch_options.csv cites it);
 * the body activates the environment the way a batch shell needs (no
 * ~/.bashrc is read: conda's shell hook first), prints seed 004 §4.2's
 * versions probe and runs CMD under `gpurent run --preset slurm`.
 */
#include "slurmemit.h"
#include "gettext.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

/* s for /bin/sh: as is when plain, else in single quotes ('\'' for a quote). */
static void put_sh(FILE *f, const char *s)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[](){}<>|&;#~=%")]) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	}
	fputc('\'', f);
}

/* A directive value: sbatch splits directive lines on blanks and '#'. */
static void put_dir(FILE *f, const char *opt, const char *v)
{
	fprintf(f, "#SBATCH --%s=", opt);
	if (v[strcspn(v, " \t#'\"")])
		put_sh(f, v);
	else
		fputs(v, f);
	fputc('\n', f);
}

/* "# same as: gpurent slurm script ...": the options that write this script again. */
static void same_as(FILE *f, const struct slurm_emit *e, const char *job)
{
	const struct { const char *opt, *v; } strs[] = {
		{"--account", e->account}, {"--ckpt-dir", e->ckpt_dir}, {"--conda", e->conda_env},
		{"--gpu-type", e->gpu_type}, {"--gpurent", e->gpurent}, {"--job-name", job},
		{"--log-dir", e->log_dir}, {"--partition", e->partition}, {"--venv", e->venv},
	};
	const struct { const char *opt; double s; } durs[] = {
		{"--ckpt-write", e->in.ckpt_write_s}, {"--max-time", e->in.limit_s}, {"--time", e->in.time_s},
		{"--work", e->in.wall_s},
	};

	fputs("# same as: gpurent slurm script", f);
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i].v) {
			fprintf(f, " %s ", strs[i].opt);
			put_sh(f, strs[i].v);
		}
	fprintf(f, " --gpus %ld --nodes %ld", e->gpus_per_node > 0 ? e->gpus_per_node : 1, e->nodes > 0 ? e->nodes : 1);
	if (e->in.cpus_per_task > 0)
		fprintf(f, " --cpus %ld", e->in.cpus_per_task);
	if (e->in.mem_bytes > 0)
		fprintf(f, " --mem %.0fMiB", ceil(e->in.mem_bytes / (1024.0 * 1024)));
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++)
		if (durs[i].s > 0)
			fprintf(f, " %s %.0fs", durs[i].opt, durs[i].s);
	fprintf(f, " --requeues %ld --", e->requeues > 0 ? e->requeues : SLURM_EMIT_REQUEUES);
	for (char *const *a = e->cmd; a && *a; a++) {
		fputc(' ', f);
		put_sh(f, *a);
	}
	fputc('\n', f);
}

int slurm_emit_write(FILE *f, const struct slurm_emit *e)
{
	const char *log = e->log_dir ? e->log_dir : SLURM_EMIT_LOG_DIR;
	const char *ckpt = e->ckpt_dir ? e->ckpt_dir : SLURM_EMIT_CKPT_DIR;
	long nodes = e->nodes > 0 ? e->nodes : 1, gpn = e->gpus_per_node > 0 ? e->gpus_per_node : 1;
	char t[32], lead[32], buf[512], name[64];
	const char *job = e->job_name;

	if (!job && e->cmd && e->cmd[0]) {
		const char *b = strrchr(e->cmd[0], '/');
		snprintf(name, sizeof(name), "%s", b ? b + 1 : e->cmd[0]);
		job = name;
	}
	slurm_format_time(e->g.time_s, t, sizeof(t));
	snprintf(lead, sizeof(lead), "%.0f", e->g.lead_s);
	fputs("#!/bin/bash\n", f);
	if (job)
		put_dir(f, "job-name", job);
	if (e->partition)
		put_dir(f, "partition", e->partition);
	if (e->account)
		put_dir(f, "account", e->account);
	fprintf(f, "#SBATCH --nodes=%ld\n#SBATCH --ntasks-per-node=%ld\n", nodes, e->g.tasks_per_node);
	if (e->gpu_type)
		snprintf(buf, sizeof(buf), "gpu:%s:%ld", e->gpu_type, gpn);
	else
		snprintf(buf, sizeof(buf), "gpu:%ld", gpn);
	put_dir(f, "gres", buf);
	fprintf(f, "#SBATCH --cpus-per-task=%ld\n", e->g.cpus_per_task);
	if (fmod(e->g.mem_bytes, 1024.0 * 1024 * 1024) == 0)
		fprintf(f, "#SBATCH --mem=%.0fG\n", e->g.mem_bytes / (1024.0 * 1024 * 1024));
	else
		fprintf(f, "#SBATCH --mem=%.0fM\n", ceil(e->g.mem_bytes / (1024.0 * 1024)));
	fprintf(f, "#SBATCH --time=%s\n", t);
	snprintf(buf, sizeof(buf), "%s/%%x-%%j.out", log);
	put_dir(f, "output", buf);
	snprintf(buf, sizeof(buf), "%s/%%x-%%j.err", log);
	put_dir(f, "error", buf);
	/* B: the batch shell only, which is the guard itself (exec below); with
	 * srun every task's guard gets it */
	fprintf(f, "#SBATCH --signal=%sUSR1@%s\n", nodes > 1 ? "" : "B:", lead);
	if (e->g.chained)
		fputs("#SBATCH --requeue\n#SBATCH --open-mode=append\n", f);
	fputs("#\n", f);
	fputs("# Written by gpurent slurm script (docs/slurm.md).\n", f);
	fprintf(f, "# --time: %s\n", e->in.time_s > 0 ? "as given" : e->in.wall_s > 0 ?
		"the estimate, plus 20% (at least 10 min), plus the lead" : "the partition's limit");
	same_as(f, e, job);
	if (e->g.chained)
		fprintf(f, "# The work takes about %ld jobs of %s: at %s s before each job's limit the guard has\n"
			"# the job checkpoint (USR1), then requeues it; the next job resumes from the newest\n"
			"# complete checkpoint in %s ($GPURENT_RESUME).\n", e->g.jobs, t, lead, ckpt);
	else
		fprintf(f, "# One job of %s; %s s before its limit the guard has the job checkpoint (USR1).\n", t, lead);
	fputs("# Submit from this directory: sbatch THIS_FILE (the log directory must exist first).\n", f);
	fputs("mkdir -p ", f);
	put_sh(f, log);
	fputc(' ', f);
	put_sh(f, ckpt);
	fputc('\n', f);
	if (e->conda_env) {
		fputs("# a batch shell reads no ~/.bashrc: conda's shell hook before conda activate\n", f);
		fputs("eval \"$(conda shell.bash hook)\"\nconda activate ", f);
		put_sh(f, e->conda_env);
		fputc('\n', f);
	} else if (e->venv) {
		snprintf(buf, sizeof(buf), "%s/bin/activate", e->venv);
		fputs("source ", f);
		put_sh(f, buf);
		fputc('\n', f);
	}
	fputs("# the versions probe (seed 004 4.2): what this environment runs on\n", f);
	fputs("python -c 'import sys, torch, torchvision; print(sys.version); print(torch.__version__); "
	      "print(torchvision.__version__); print(torch.cuda.is_available())' ||\n"
	      "\techo \"versions probe: python with torch and torchvision is not in this environment\" >&2\n", f);
	fputs(nodes > 1 ? "srun --ntasks-per-node=1 " : "exec ", f);
	put_sh(f, e->gpurent ? e->gpurent : "gpurent");
	fputs(" run --preset slurm --ckpt-dir ", f);
	put_sh(f, ckpt);
	fprintf(f, " --lead %ss --requeues %ld --idle %s --stall %s --log-dir ", lead,
		e->requeues > 0 ? e->requeues : SLURM_EMIT_REQUEUES, SLURM_EMIT_IDLE, SLURM_EMIT_STALL);
	put_sh(f, log);
	fputs(" --", f);
	for (char *const *a = e->cmd; a && *a; a++) {
		fputc(' ', f);
		put_sh(f, *a);
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int slurm_emit_mkdirs(const struct slurm_emit *e, char *err, size_t errlen)
{
	const char *log = e->log_dir ? e->log_dir : SLURM_EMIT_LOG_DIR;
	char path[4096];
	size_t n = strlen(log);

	if (n >= sizeof(path)) {
		snprintf(err, errlen, _("%s: the path is too long"), log);
		return -1;
	}
	memcpy(path, log, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}
