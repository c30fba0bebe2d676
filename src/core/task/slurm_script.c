/*
 * slurm_script.c - the sbatch script rendered (slurm_script.h). The
 * directives and their forms follow sbatch(1) of Slurm 22.05
 * (data/sbatch_options.csv cites it), their quoting sbatch's own reader
 * (slurm_sbatch_arg()); the body activates the environment the way a batch
 * shell needs (no ~/.bashrc is read: conda's shell hook first), prints seed
 * 004 §4.2's versions probe and runs CMD under `gpurent run --preset slurm`.
 */
#include "core/task/slurm_script.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/i18n.h"
#include "base/quote.h"

/* ---- the values ---- */

static bool gres_type_ok(const char *s)
{
	if (strlen(s) > 63)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
			return false;
	return true;
}

int slurm_script_check(const struct slurm_emit *e, char *err, size_t errlen)
{
	const struct { const char *opt, *v; } vals[] = {
		{"--job-name", e->job_name}, {"--partition", e->partition}, {"--account", e->account},
		{"--gpu-type", e->gpu_type}, {"--log-dir", e->log_dir}, {"--ckpt-dir", e->ckpt_dir},
		{"--conda", e->conda_env}, {"--venv", e->venv}, {"--gpurent", e->gpurent}, {"--qos", e->qos},
	};

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const char *v = vals[i].v;
		if (!v)
			continue;
		if (!*v) {
			snprintf(err, errlen, _("%s: expected a value, got an empty one"), vals[i].opt);
			return -1;
		}
		if (quote_has_control(v, strlen(v))) {
			snprintf(err, errlen, _("%s: expected a value without control characters (a newline or "
				 "tab would break the script's lines), got '%s'"), vals[i].opt, v);
			return -1;
		}
	}
	if (e->gpu_type && !gres_type_ok(e->gpu_type)) {
		snprintf(err, errlen, _("--gpu-type: expected a GRES type (at most 63 letters, digits, '_', "
			 "'-' or '.', such as a100), got '%s'"), e->gpu_type);
		return -1;
	}
	if (e->log_dir && strchr(e->log_dir, '\\')) {
		snprintf(err, errlen, _("--log-dir: expected a directory without '\\' (Slurm then writes the "
			 "log names %%x and %%j as they are), got '%s'"), e->log_dir);
		return -1;
	}
	for (char *const *a = e->cmd; a && *a; a++)
		if (quote_has_control(*a, strlen(*a))) {
			snprintf(err, errlen, _("CMD: expected words without control characters (a newline or tab "
				 "would break the script's lines; put such a command in a script file), got '%s'"), *a);
			return -1;
		}
	return 0;
}

/* ---- the script ---- */

/* s for /bin/sh: as is when plain, else in single quotes ('\'' for a quote). */
static void put_sh(struct strbuf *b, const char *s)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`!*?[](){}<>|&;#~=%")]) {
		strbuf_addstr(b, s);
		return;
	}
	strbuf_addstr(b, "'");
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(b, "'\\''");
		else
			strbuf_add(b, p, 1);
	}
	strbuf_addstr(b, "'");
}

/*
 * A directive value for sbatch's reader (slurm_sbatch_arg()): as is when it
 * holds no blank, '#', quote or '\\'; else in single quotes, where '\\' is
 * still an escape to sbatch ("\\\\"), and a quote is '\'' (the shell's
 * spelling, read the same by sbatch). No control byte comes here
 * (slurm_script_check()), so the line stays one line of the shell's too.
 */
static void put_dir(struct strbuf *b, const char *opt, const char *v)
{
	strbuf_addf(b, "#SBATCH --%s=", opt);
	if (!v[strcspn(v, " \t#'\"\\")]) {
		strbuf_addstr(b, v);
	} else {
		strbuf_addstr(b, "'");
		for (const char *p = v; *p; p++) {
			if (*p == '\'')
				strbuf_addstr(b, "'\\''");
			else if (*p == '\\')
				strbuf_addstr(b, "\\\\");
			else
				strbuf_add(b, p, 1);
		}
		strbuf_addstr(b, "'");
	}
	strbuf_addstr(b, "\n");
}

void slurm_script_log_pattern(struct strbuf *out, const char *dir, const char *file)
{
	for (const char *p = dir; *p; p++) {
		if (*p == '%')
			strbuf_addstr(out, "%");
		strbuf_add(out, p, 1);
	}
	strbuf_addf(out, "/%s", file);
}

const char *slurm_script_job_name(const struct slurm_emit *e)
{
	const char *b;

	if (e->job_name)
		return e->job_name;
	if (!e->cmd || !e->cmd[0])
		return NULL;
	b = strrchr(e->cmd[0], '/');
	b = b ? b + 1 : e->cmd[0];
	return *b ? b : NULL;
}

/* "# same as: gpurent slurm script ...": the options that write this script again. */
static void same_as(struct strbuf *b, const struct slurm_emit *e, const char *job)
{
	const struct { const char *opt, *v; } strs[] = {
		{"--account", e->account}, {"--ckpt-dir", e->ckpt_dir}, {"--conda", e->conda_env},
		{"--gpu-type", e->gpu_type}, {"--gpurent", e->gpurent}, {"--job-name", job},
		{"--log-dir", e->log_dir}, {"--partition", e->partition}, {"--qos", e->qos}, {"--venv", e->venv},
	};
	const struct { const char *opt; double s; } durs[] = {
		{"--ckpt-write", e->in.ckpt_write_s}, {"--max-time", e->in.limit_s}, {"--time", e->in.time_s},
		{"--work", e->in.wall_s},
	};

	strbuf_addstr(b, "# same as: gpurent slurm script");
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i].v) {
			strbuf_addf(b, " %s ", strs[i].opt);
			put_sh(b, strs[i].v);
		}
	strbuf_addf(b, " --gpus %ld --nodes %ld", e->gpus_per_node > 0 ? e->gpus_per_node : 1,
		    e->nodes > 0 ? e->nodes : 1);
	if (e->in.cpus_per_task > 0)
		strbuf_addf(b, " --cpus %ld", e->in.cpus_per_task);
	if (e->in.mem_bytes > 0)
		strbuf_addf(b, " --mem %.0fMiB", ceil(e->in.mem_bytes / (1024.0 * 1024)));
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++)
		if (durs[i].s > 0)
			strbuf_addf(b, " %s %.0fs", durs[i].opt, durs[i].s);
	strbuf_addf(b, " --requeues %ld --", e->requeues > 0 ? e->requeues : SLURM_EMIT_REQUEUES);
	for (char *const *a = e->cmd; a && *a; a++) {
		strbuf_addstr(b, " ");
		put_sh(b, *a);
	}
	strbuf_addstr(b, "\n");
}

void slurm_script_render(const struct slurm_emit *e, struct strbuf *b)
{
	const char *log = e->log_dir ? e->log_dir : SLURM_EMIT_LOG_DIR;
	const char *ckpt = e->ckpt_dir ? e->ckpt_dir : SLURM_EMIT_CKPT_DIR;
	long nodes = e->nodes > 0 ? e->nodes : 1, gpn = e->gpus_per_node > 0 ? e->gpus_per_node : 1;
	const char *job = slurm_script_job_name(e);
	struct strbuf v = STRBUF_INIT;
	char t[32], lead[32];

	slurm_format_time(e->g.time_s, t, sizeof(t));
	snprintf(lead, sizeof(lead), "%.0f", e->g.lead_s);
	strbuf_addstr(b, "#!/bin/bash\n");
	if (job)
		put_dir(b, "job-name", job);
	if (e->partition)
		put_dir(b, "partition", e->partition);
	if (e->account)
		put_dir(b, "account", e->account);
	if (e->qos)
		put_dir(b, "qos", e->qos);
	strbuf_addf(b, "#SBATCH --nodes=%ld\n#SBATCH --ntasks-per-node=%ld\n", nodes, e->g.tasks_per_node);
	if (e->gpu_type)
		strbuf_addf(&v, "gpu:%s:%ld", e->gpu_type, gpn);
	else
		strbuf_addf(&v, "gpu:%ld", gpn);
	put_dir(b, "gres", v.p ? v.p : "");
	strbuf_release(&v);
	strbuf_addf(b, "#SBATCH --cpus-per-task=%ld\n", e->g.cpus_per_task);
	if (fmod(e->g.mem_bytes, 1024.0 * 1024 * 1024) == 0)
		strbuf_addf(b, "#SBATCH --mem=%.0fG\n", e->g.mem_bytes / (1024.0 * 1024 * 1024));
	else
		strbuf_addf(b, "#SBATCH --mem=%.0fM\n", ceil(e->g.mem_bytes / (1024.0 * 1024)));
	strbuf_addf(b, "#SBATCH --time=%s\n", t);
	slurm_script_log_pattern(&v, log, "%x-%j.out");
	put_dir(b, "output", v.p ? v.p : "");
	strbuf_release(&v);
	slurm_script_log_pattern(&v, log, "%x-%j.err");
	put_dir(b, "error", v.p ? v.p : "");
	strbuf_release(&v);
	/* B: the batch shell only, which is the guard itself (exec below); with
	 * srun every task's guard gets it */
	strbuf_addf(b, "#SBATCH --signal=%sUSR1@%s\n", nodes > 1 ? "" : "B:", lead);
	if (e->g.chained)
		strbuf_addstr(b, "#SBATCH --requeue\n#SBATCH --open-mode=append\n");
	strbuf_addstr(b, "#\n");
	strbuf_addstr(b, "# Written by gpurent slurm script (docs/slurm.md).\n");
	strbuf_addf(b, "# --time: %s\n", e->in.time_s > 0 ? "as given" : e->in.wall_s > 0 ?
		    "the estimate, plus 20% (at least 10 min), plus the lead" : "the partition's limit");
	same_as(b, e, job);
	if (e->g.chained) {
		strbuf_addf(b, "# The work takes about %ld jobs of %s: at %s s before each job's limit the guard has\n"
			    "# the job checkpoint (USR1), then requeues it; the next job resumes from the newest\n"
			    "# complete checkpoint in ", e->g.jobs, t, lead);
		/* a comment line: the directory as the shell reads it elsewhere */
		strbuf_addstr(b, ckpt);
		strbuf_addstr(b, " ($GPURENT_RESUME).\n");
	} else {
		strbuf_addf(b, "# One job of %s; %s s before its limit the guard has the job checkpoint (USR1).\n",
			    t, lead);
	}
	strbuf_addstr(b, "# Submit from this directory: sbatch THIS_FILE (the log directory must exist first).\n");
	strbuf_addstr(b, "mkdir -p ");
	put_sh(b, log);
	strbuf_addstr(b, " ");
	put_sh(b, ckpt);
	strbuf_addstr(b, "\n");
	if (e->conda_env) {
		strbuf_addstr(b, "# a batch shell reads no ~/.bashrc: conda's shell hook before conda activate\n");
		strbuf_addstr(b, "eval \"$(conda shell.bash hook)\"\nconda activate ");
		put_sh(b, e->conda_env);
		strbuf_addstr(b, "\n");
	} else if (e->venv) {
		strbuf_addf(&v, "%s/bin/activate", e->venv);
		strbuf_addstr(b, "source ");
		put_sh(b, v.p ? v.p : "");
		strbuf_addstr(b, "\n");
		strbuf_release(&v);
	}
	strbuf_addstr(b, "# the versions probe (seed 004 4.2): what this environment runs on\n");
	strbuf_addstr(b, "python -c 'import sys, torch, torchvision; print(sys.version); print(torch.__version__); "
		      "print(torchvision.__version__); print(torch.cuda.is_available())' ||\n"
		      "\techo \"versions probe: python with torch and torchvision is not in this environment\" >&2\n");
	strbuf_addstr(b, nodes > 1 ? "srun --ntasks-per-node=1 " : "exec ");
	put_sh(b, e->gpurent ? e->gpurent : "gpurent");
	strbuf_addstr(b, " run --preset slurm --ckpt-dir ");
	put_sh(b, ckpt);
	strbuf_addf(b, " --lead %ss --requeues %ld --idle %s --stall %s --log-dir ", lead,
		    e->requeues > 0 ? e->requeues : SLURM_EMIT_REQUEUES, SLURM_EMIT_IDLE, SLURM_EMIT_STALL);
	put_sh(b, log);
	strbuf_addstr(b, " --");
	for (char *const *a = e->cmd; a && *a; a++) {
		strbuf_addstr(b, " ");
		put_sh(b, *a);
	}
	strbuf_addstr(b, "\n");
}
