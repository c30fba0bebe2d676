/*
 * cmd_probe.c - `gpurent probe [options] [WORKLOAD.yaml] [--FIELD VALUE]...
 * -- CMD [ARGS...]`: run the first steps of a real job under the guard
 * (src/guard/guard.h, through its probe hooks), read its step lines and
 * its GPU memory, stop it, and report what they say (src/core/estimate/probe.h)
 * next to `gpurent estimate` for the same workload. The rules:
 * docs/probe.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/box/envcheck.h"
#include "core/estimate/estimate.h"
#include "core/model/gpu.h"
#include "core/box/guard.h"
#include "core/model/model.h"
#include "core/estimate/probe.h"
#include "core/text/units.h"
#include "core/model/workload.h"
#include "hw/nvml.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "cmd/probe/probewords.h"
#include "kit/wlargs.h"
#include "guard/guard.h"
#include "store/ledger.h"
#include "base/util.h"

static void print_usage(FILE *f)
{
	fputs(_("usage: gpurent probe [options] [WORKLOAD.yaml] [--FIELD VALUE]... -- CMD [ARGS...]\n"
	      "\n"
	      "Run the first steps of a real job and measure it before paying for the long\n"
	      "run: CMD runs under the guard (its own process group, its output teed to the\n"
	      "terminal and a log in ./gpurent-logs) until it has --steps steady steps after\n"
	      "its warm-up, or for --for; then it gets SIGTERM, and SIGKILL after --grace.\n"
	      "The report: the step time read from CMD's output (Hugging Face Trainer, tqdm,\n"
	      "torchtune, LitGPT, llm.c, DeepSpeed, 'step N', or --step-regex/--progress-file),\n"
	      "the peak GPU memory of CMD's processes (NVML), throughput and MFU when the\n"
	      "workload gives tokens a step, the diagnoses of a short run (warm-up, data\n"
	      "loading, slowing down, memory growing, a sliced card) with their fixes, the\n"
	      "estimate for the same workload next to the measurement, and the whole run at\n"
	      "this speed, with its cost at --price.\n"
	      "\n"
	      "How long:\n"
	      "  --steps N            steady steps to measure after the warm-up (30)\n"
	      "  --for DUR            measure for DUR instead of a number of steps\n"
	      "  --warmup K           skip the first K steps (default: detected, a step over\n"
	      "                       1.5x the steady median)\n"
	      "  --grace DUR          from SIGTERM to SIGKILL of CMD's group (10s)\n"
	      "Where the steps come from:\n"
	      "  --step-regex RE      an extended regular expression whose first group is\n"
	      "                       the step number\n"
	      "  --progress-file F    a file CMD rewrites with its step number\n"
	      "What it is measured against:\n"
	      "  WORKLOAD.yaml, --FIELD VALUE   the workload, as `gpurent estimate` takes it\n"
	      "  --price PRICE        what the box costs per hour (2.1, 1.88CNY)\n"
	      "Output and records:\n"
	      "  --json               print JSON (CMD's output then goes to stderr)\n"
	      "  --log-dir DIR        where CMD's log goes (./gpurent-logs)\n"
	      "  --ledger PATH        the ledger database ($XDG_DATA_HOME/gpurent/ledger.db)\n"
	      "  --no-ledger          do not record the probe\n"
	      "\n"
	      "CMD sees GPURENT_PROBE_TORCH_FILE: a PyTorch job that writes\n"
	      "torch.cuda.max_memory_allocated()/max_memory_reserved() there gets them in the\n"
	      "report (docs/probe.md). On a terminal one status line shows the steps so far.\n"
	      "Examples:\n"
	      "  gpurent probe --model llama-2-7b --micro-batch 4 --seq 2048 -- python train.py\n"
	      "  gpurent probe --steps 50 --price 2.1 examples/lora-7b.yaml -- ./train.sh\n"
	      "\nThe workload's fields (gpurent help estimate says more):\n"),
	      f);
	wlargs_print_fields(f);
}

/* What the hooks share with the command (guard_opts.hook_ctx). */
struct probe_run {
	struct probe p;
	long steps_wanted;       /* --steps */
	long warmup;             /* --warmup, -1: detect */
	double for_s;            /* --for, 0: by steps */
	double t0;
	bool stopped;            /* should_stop said yes */
	double dev_peak;         /* bytes in use on the job's GPUs at the most (every process) */
	double dev_total;        /* bytes the first job GPU shows */
	int nprocs;              /* the job's processes NVML listed, at the most */
	bool proc_reading;       /* NVML answered per-process for the job at least once */
};

static void on_line(void *ctx, const char *line, double t)
{
	struct probe_run *r = ctx;

	probe_line(&r->p, line, t);
}

static void on_progress(void *ctx, const char *content, double t)
{
	struct probe_run *r = ctx;

	probe_progress(&r->p, content, t);
}

static void on_sample(void *ctx, const struct guard_reading *g)
{
	struct probe_run *r = ctx;

	if (g->dev_used > r->dev_peak)
		r->dev_peak = g->dev_used;
	if (g->dev_total > 0)
		r->dev_total = r->p.mem_visible = g->dev_total;
	if (g->nprocs > r->nprocs)
		r->nprocs = g->nprocs;
	if (g->proc_mem >= 0 && g->nprocs > 0)
		r->proc_reading = true;
	probe_sample(&r->p, g->t, g->proc_mem >= 0 && g->nprocs > 0 ? g->proc_mem : -1, g->util, g->cpu);
}

/* The steps counted so far after the warm-up (the warm-up as probe_finish() sees it). */
static long steady_steps(const struct probe_run *r)
{
	struct probe_inputs in = {.warmup = r->warmup};
	struct probe_result res;

	if (!r->p.nsteps)
		return 0;
	probe_finish(&r->p, &in, &res);
	return res.steps - res.warmup;
}

static bool should_stop(void *ctx, double now)
{
	struct probe_run *r = ctx;

	if (r->for_s > 0)
		r->stopped = now - r->t0 >= r->for_s;
	else
		r->stopped = (long)r->p.nsteps > r->steps_wanted && steady_steps(r) >= r->steps_wanted;
	return r->stopped;
}

static void status_line(void *ctx, char *buf, size_t n)
{
	struct probe_run *r = ctx;
	size_t k = r->p.nsteps;

	if (!k) {
		snprintf(buf, n, _("probe: waiting for the first step"));
		return;
	}
	if (k >= 2)
		snprintf(buf, n, _("probe: step %ld (%zu seen), last %.3g s"), r->p.step[k - 1], k,
			 r->p.t[k - 1] - r->p.t[k - 2]);
	else
		snprintf(buf, n, _("probe: step %ld"), r->p.step[0]);
}

/* The options of the command itself (the workload's are wlargs.h's). */
struct probe_opts {
	long steps, warmup;
	double for_s, grace_s;
	const char *step_regex, *progress_file, *ledger, *log_dir;
	bool json, no_ledger, steps_seen, for_seen, warmup_seen;
	struct opt_money price;
	bool price_seen;
};

/* PyTorch's own figures from GPURENT_PROBE_TORCH_FILE (docs/probe.md):
 * "max_memory_allocated BYTES" and "max_memory_reserved BYTES" lines. */
static void read_torch_file(const char *path, double *alloc, double *reserved)
{
	char line[256];
	FILE *f = fopen(path, "r");

	*alloc = *reserved = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char key[64];
		double v;
		if (sscanf(line, "%63s %lf", key, &v) != 2 || !isfinite(v) || v < 0)
			continue;
		if (!strcmp(key, "max_memory_allocated"))
			*alloc = v;
		else if (!strcmp(key, "max_memory_reserved"))
			*reserved = v;
	}
	fclose(f);
}

/* The first GPU the job sees (CUDA_VISIBLE_DEVICES' first index, else 0), as NVML names it. */
static bool nvml_gpu(char *name, size_t n, uint64_t *mem)
{
	struct nvml *nv;
	struct nvml_device_info info;
	char err[256];
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	unsigned idx = 0;
	bool ok;

	if (nvml_open(&nv, err, sizeof(err)))
		return false;
	if (cvd && *cvd >= '0' && *cvd <= '9')
		idx = (unsigned)strtoul(cvd, NULL, 10);
	ok = nvml_device_count(nv) > idx && !nvml_device_info(nv, idx, &info, err, sizeof(err)) && info.name[0];
	if (ok) {
		snprintf(name, n, "%s", info.name);
		*mem = info.mig_current == 1 && info.mig_mem_total ? info.mig_mem_total : info.mem_total;
	}
	nvml_close(nv);
	return ok;
}

/* The auto-stop limits for the full run (docs/probe.md "The limits to set",
 * both assumptions): --max-runtime the run at this speed plus a fifth,
 * --stall 30 steady steps without a line, at least 10 minutes. */
#define PROBE_RUNTIME_MARGIN 1.2
#define PROBE_STALL_STEPS 30.0
#define PROBE_STALL_MIN_S 600.0
static double limit_runtime(const struct probe_result *r)
{
	return r->full_run_s > 0 ? r->full_run_s * PROBE_RUNTIME_MARGIN : 0;
}
static double limit_stall(const struct probe_result *r)
{
	return r->steady_step_s > 0 ? fmax(PROBE_STALL_MIN_S, PROBE_STALL_STEPS * r->steady_step_s) : 0;
}

/* A limit as an option takes it, rounded up: "2.5h", "10m". */
static void fmt_limit(double s, char *buf, size_t n)
{
	if (s >= 3600)
		snprintf(buf, n, "%.1fh", ceil(s / 360) / 10);
	else
		snprintf(buf, n, "%.0fm", ceil(s / 60));
}

/* A duration in words: "42 s", "3.5 h", "2.1 d". */
static void fmt_dur(double s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%.3g s", s);
	else if (s < 7200)
		snprintf(buf, n, _("%.1f min"), s / 60);
	else if (s < 172800)
		snprintf(buf, n, "%.1f h", s / 3600);
	else
		snprintf(buf, n, "%.1f d", s / 86400);
}

/* "+6.5%" for estimate/measured - 1; "" when either is unknown. */
static void fmt_err(double e, bool known, char *buf, size_t n)
{
	if (!known)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, _(", estimate %+.1f%%"), fabs(e) < 0.0005 ? 0.0 : e * 100);
}

struct report {
	const struct probe_result *r;
	const struct probe_inputs *in;
	const struct probe_run *run;
	const struct gpu_spec *gpu;
	const char *currency;
	bool have_est, units_samples;
	double torch_alloc, torch_reserved;
	int cmd_status;
};

static void render_text(const struct report *rp)
{
	const struct probe_result *r = rp->r;
	const struct probe_inputs *in = rp->in;
	char a[64], b[64], e[64], ev[400];
	const char *unit = rp->units_samples ? _("samples") : _("tokens");

	printf(_("probe: %ld step%s read (%s), %ld warm-up step%s excluded\n"), r->steps, r->steps == 1 ? "" : "s",
	       _(probe_word_logger(r->logger)), r->warmup, r->warmup == 1 ? "" : "s");
	if (r->steps > 0 && r->first_step_s > 0) {
		fmt_dur(r->first_step_s, a, sizeof(a));
		printf(_("  first step        %s\n"), a);
	}
	if (r->steady_step_s > 0) {
		fmt_dur(r->steady_step_s, a, sizeof(a));
		fmt_err(r->step_error, rp->have_est && in->est_step_s > 0, e, sizeof(e));
		printf(_("  steady step       %s (median%s)\n"), a, e);
		if (r->first_third_s > 0 && r->last_third_s > 0) {
			fmt_dur(r->first_third_s, a, sizeof(a));
			fmt_dur(r->last_third_s, b, sizeof(b));
			printf(_("  first/last third  %s / %s\n"), a, b);
		}
	}
	if (r->peak_mem > 0) {
		fmt_err(r->mem_error, rp->have_est && in->est_mem > 0, e, sizeof(e));
		printf(_("  peak GPU memory   %.2f GB (NVML, the job's %d process%s%s)\n"), r->peak_mem / 1e9,
		       rp->run->nprocs, rp->run->nprocs == 1 ? "" : "es", e);
	} else if (rp->run->dev_peak > 0) {
		printf(_("  GPU memory in use %.2f GB on the job's GPUs (every process: an upper bound)\n"),
		       rp->run->dev_peak / 1e9);
	}
	if (rp->torch_reserved > 0 || rp->torch_alloc > 0)
		printf(_("  PyTorch           %.2f GB allocated, %.2f GB reserved at the most\n"), rp->torch_alloc / 1e9,
		       rp->torch_reserved / 1e9);
	if (rp->run->dev_total > 0 && in->nominal_mem > 0)
		printf(_("  visible memory    %.2f GB (datasheet %.0f GB)\n"), rp->run->dev_total / 1e9,
		       in->nominal_mem / 1e9);
	else if (rp->run->dev_total > 0)
		printf(_("  visible memory    %.2f GB\n"), rp->run->dev_total / 1e9);
	/* one sentence a case: a translation joins its parts in its own way */
	if (r->util_median >= 0 && r->cpu_median >= 0)
		printf(_("  utilisation       GPU %.0f%%, job CPU %.0f%% of a core (medians)\n"), r->util_median,
		       r->cpu_median);
	else if (r->util_median >= 0)
		printf(_("  utilisation       GPU %.0f%% (median)\n"), r->util_median);
	else if (r->cpu_median >= 0)
		printf(_("  utilisation       job CPU %.0f%% of a core (median; no GPU reading)\n"), r->cpu_median);
	if (r->units_per_s > 0)
		printf(_("  throughput        %s %s/s (%s a step)\n"), units_fmt_count(r->units_per_s, a, sizeof(a)), unit,
		       units_fmt_count(in->units_per_step, b, sizeof(b)));
	if (r->mfu > 0 && rp->gpu)
		printf(r->mfu > 1 ? _("  MFU               %.1f%% of %s's dense peak (%.0f TFLOP/s a GPU): impossible, "
				      "above the peak (see the diagnoses)\n") :
		       _("  MFU               %.1f%% of %s's dense peak (%.0f TFLOP/s a GPU)\n"), r->mfu * 100,
		       rp->gpu->name, in->peak_flops / 1e12);
	if (rp->have_est) {
		if (in->est_mem > 0)
			printf(_("  estimate memory   %.2f GB a GPU (gpurent estimate)\n"), in->est_mem / 1e9);
		if (in->est_step_s > 0) {
			fmt_dur(in->est_step_s, a, sizeof(a));
			printf(_("  estimate step     %s\n"), a);
		}
	}
	if (r->full_run_s > 0) {
		fmt_dur(r->full_run_s, a, sizeof(a));
		printf(_("  full run          %s %s at this speed: %s"), units_fmt_count(in->work, b, sizeof(b)), unit, a);
		if (r->full_run_cost > 0)
			printf(_(", %.2f %s at %.4g %s/h"), r->full_run_cost, rp->currency, in->price_per_hour,
			       rp->currency);
		printf("\n");
	}
	if (limit_runtime(r) > 0) {
		fmt_limit(limit_runtime(r), a, sizeof(a));
		fmt_limit(limit_stall(r), b, sizeof(b));
		printf(_("  to guard it       gpurent run --max-runtime %s --stall %s ... -- CMD\n"), a, b);
	}
	if (r->ndiags) {
		printf(_("diagnoses:\n"));
		for (int i = 0; i < r->ndiags; i++) {
			probe_word_evidence(&r->diags[i], true, ev, sizeof(ev));
			printf(_("  %s: %s\n"), msg_tr(probe_word_title(r->diags[i].code)), ev);
			if (*probe_word_fix(r->diags[i].code))
				printf(_("    fix: %s\n"), msg_tr(probe_word_fix(r->diags[i].code)));
		}
	} else {
		printf(_("diagnoses: none\n"));
	}
}

static void render_json(const struct report *rp)
{
	const struct probe_result *r = rp->r;
	const struct probe_inputs *in = rp->in;
	struct json j;
	char ev[400];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.probe/1");
	json_str(&j, "logger", probe_logger_name(r->logger));
	json_int(&j, "steps", r->steps);
	json_int(&j, "warmup", r->warmup);
	json_num(&j, "first_step_s", r->first_step_s);
	json_num(&j, "steady_step_s", r->steady_step_s);
	json_num(&j, "first_third_s", r->first_third_s);
	json_num(&j, "last_third_s", r->last_third_s);
	json_num(&j, "peak_mem", r->peak_mem);
	json_int(&j, "processes", rp->run->nprocs);
	json_num(&j, "device_mem_peak", rp->run->dev_peak);
	json_num(&j, "visible_mem", rp->run->dev_total);
	json_num(&j, "nominal_mem", in->nominal_mem);
	json_num(&j, "torch_max_allocated", rp->torch_alloc);
	json_num(&j, "torch_max_reserved", rp->torch_reserved);
	json_num(&j, "mem_growth_per_step", r->mem_growth);
	if (r->util_median >= 0)
		json_num(&j, "util_median", r->util_median);
	else
		json_null(&j, "util_median");
	if (r->cpu_median >= 0)
		json_num(&j, "cpu_median", r->cpu_median);
	else
		json_null(&j, "cpu_median");
	json_str(&j, "units", rp->units_samples ? "samples" : "tokens");
	json_num(&j, "units_per_step", in->units_per_step);
	json_num(&j, "units_per_s", r->units_per_s);
	json_num(&j, "mfu", r->mfu);
	json_bool(&j, "mfu_impossible", r->mfu > 1);
	json_str(&j, "gpu", rp->gpu ? rp->gpu->name : "");
	json_obj_begin(&j, "estimate");
	json_bool(&j, "available", rp->have_est);
	json_num(&j, "mem", in->est_mem);
	json_num(&j, "step_s", in->est_step_s);
	json_num(&j, "mem_error", r->mem_error);
	json_num(&j, "step_error", r->step_error);
	json_obj_end(&j);
	json_obj_begin(&j, "full_run");
	json_num(&j, "work", in->work);
	json_num(&j, "seconds", r->full_run_s);
	json_num(&j, "cost", r->full_run_cost);
	json_num(&j, "price_per_hour", in->price_per_hour);
	json_str(&j, "currency", rp->currency);
	json_num(&j, "max_runtime_s", limit_runtime(r));
	json_num(&j, "stall_s", limit_stall(r));
	json_obj_end(&j);
	json_arr_begin(&j, "diagnoses");
	for (int i = 0; i < r->ndiags; i++) {
		probe_word_evidence(&r->diags[i], false, ev, sizeof(ev));
		json_obj_begin(&j, NULL);
		json_str(&j, "code", probe_diag_name(r->diags[i].code));
		json_num(&j, "a", r->diags[i].a);
		json_num(&j, "b", r->diags[i].b);
		json_int(&j, "steps", r->diags[i].steps);
		json_str(&j, "evidence", ev);
		json_str(&j, "fix", probe_word_fix(r->diags[i].code));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_int(&j, "cmd_status", rp->cmd_status);
	json_obj_end(&j);
}

/*
 * Record the probe in the ledger's probes table (src/store/ledger.h:
 * struct ledger_probe, ledger_probe_add(); workload_digest() names the
 * workload, so that --calibrate can tell a probe of another job).
 */
static void record_probe(const struct probe_opts *po, const struct probe_result *r,
			 const struct probe_inputs *in, const struct workload *w, const char *model,
			 const char *gpu, char **cmd)
{
	char path[4096], err[512], host[256] = "unknown", diags[256] = "";
	struct ledger *l = NULL;
	int64_t id = -1;
	size_t k = 0;

	for (int i = 0; i < r->ndiags && k < sizeof(diags) - 32; i++)
		k += (size_t)snprintf(diags + k, sizeof(diags) - k, "%s%s", i ? "," : "",
				      probe_diag_name(r->diags[i].code));
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	{
		struct ledger_probe lp = {
			.at = util_now_wall(),
			.host = host,
			.gpu = gpu && *gpu ? gpu : NULL,
			.gpu_count = in->gpus > 0 ? (int)in->gpus : 0,
			.workload_digest = w ? workload_digest(w) : 0,
			.model = model,
			.steps = r->steps,
			.warmup = r->warmup,
			.steady_step_s = r->steady_step_s,
			.peak_mem = r->peak_mem,
			.mem_growth = r->mem_growth,
			.units_per_step = in->units_per_step,
			.units_per_s = r->units_per_s,
			.units_are_samples = in->units_are_samples,
			.mfu = r->mfu,
			.util_median = r->util_median,
			.cpu_median = r->cpu_median,
			.diagnoses = diags,
			.command = cmd[0],
		};
		if (po->ledger)
			snprintf(path, sizeof(path), "%s", po->ledger);
		else if (ledger_default_path(path, sizeof(path), err, sizeof(err)))
			goto fail;
		if (ledger_open(path, &l, err, sizeof(err)) || ledger_probe_add(l, &lp, &id, err, sizeof(err)))
			goto fail;
		ledger_close(l);
		msg_note(_("probe recorded in the ledger as probe %lld (gpurent ledger probes)"), (long long)id);
		return;
	}
fail:
	ledger_close(l);
	msg_warn(_("the probe is not recorded: %s"), err);
}

/* CMD (cmd) under the guard with the probe's hooks (g filled from po;
 * prices in cur), PyTorch's memory file read into rp: CMD's exit status. */
static int run_guarded(const struct probe_opts *po, struct probe_run *run, const char *cur, char **cmd,
		       struct guard_opts *g, struct report *rp)
{
	char torch_path[4096];
	int status;

	snprintf(torch_path, sizeof(torch_path), "%s/gpurent-probe-%ld.torch",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
	unlink(torch_path);
	setenv("GPURENT_PROBE_TORCH_FILE", torch_path, 1);
	run->steps_wanted = po->steps;
	run->warmup = po->warmup_seen ? po->warmup : -1;
	run->for_s = po->for_seen ? po->for_s : 0;
	run->t0 = util_now_mono();
	run->p.t0 = run->t0;
	g->grace_s = po->grace_s;
	g->poll_s = 0.1;   /* ten readings a second: the memory rule wants several a third */
	g->no_ledger = true;   /* the probe's record is the probes table, not a run */
	g->log_dir = po->log_dir;
	g->progress_file = po->progress_file;
	g->lim.price_per_hour = po->price_seen ? po->price.amount : 0;
	snprintf(g->currency, sizeof(g->currency), "%s", cur);
	g->action.timeout_s = 30;
	g->cmd = cmd;
	g->hook_ctx = run;
	g->on_line = on_line;
	g->on_progress = po->progress_file ? on_progress : NULL;
	g->on_sample = on_sample;
	g->should_stop = should_stop;
	g->status = status_line;
	g->cmd_out_to_stderr = po->json;
	status = guard_run(g);
	unsetenv("GPURENT_PROBE_TORCH_FILE");
	read_torch_file(torch_path, &rp->torch_alloc, &rp->torch_reserved);
	unlink(torch_path);
	return status;
}

/* The estimate of workload w (model arch) on gpu, what the run is
 * measured against, into in: true, or false with a warning. */
static bool estimate_inputs(const struct workload *w, const struct model_spec *arch, const struct gpu_spec *gpu,
			    struct probe_inputs *in)
{
	struct estimate e;
	char err[512];

	if (estimate_run(w, arch, gpu, &e, err, sizeof(err))) {
		msg_warn(_("no estimate to measure against: %s"), err);
		return false;
	}
	in->units_are_samples = e.work_is_samples;
	in->gpus = w->gpus > 0 ? w->gpus : 1;
	in->units_per_step = (double)(w->micro_batch > 0 ? w->micro_batch : 1) *
			     (double)(w->grad_accum > 0 ? w->grad_accum : 1) * (double)in->gpus *
			     (e.work_is_samples ? 1.0 : (double)(w->seq > 0 ? w->seq : 1));
	in->flops_per_unit = e.flops_per_unit;
	in->peak_flops = e.peak_flops;
	in->work = e.work;
	in->est_mem = e.mem.total;
	in->est_step_s = e.have_time && e.steps > 0 ? e.wall_seconds / e.steps : 0;
	return true;
}

/* ---- the options ---- */

int cmd_probe(int argc, char **argv)
{
	struct probe_opts po = {.steps = 30, .warmup = -1, .grace_s = 10, .log_dir = "gpurent-logs"};
	struct probe_run run = {0};
	struct guard_opts g = {0};
	struct workload w;
	struct gpu_db gdb = {0};
	struct model_db mdb = {0};
	struct model_spec arch;
	const struct gpu_spec *wgpu = NULL, *ngpu = NULL, *gpu;
	struct probe_inputs in = {0};
	struct probe_result res;
	struct report rp = {0};
	const char *file = NULL;
	char err[512], gname[96], cur[8] = "USD";
	uint64_t gmem = 0;
	bool wl_given = false, have_est = false, data_loaded = false;
	int rc, bad, dd = -1, status;
	const struct opt own[] = {
		{.name = "for", .type = OPT_DURATION, .dest = &po.for_s, .arg = "DUR", .example = "10m",
		 .seen = &po.for_seen, .help = N_("measure for DUR instead of a number of steps")},
		OPT_VALB(OPT_DURATION, "grace", &po.grace_s, 0, 3600, "DUR", N_("from SIGTERM to SIGKILL of CMD's group (10s)")),
		OPT_BOOL("json", &po.json, N_("print JSON")),
		OPT_PATH("ledger", &po.ledger, "PATH", N_("the ledger database")),
		{.name = "log-dir", .type = OPT_FILE, .dest = &po.log_dir, .arg = "DIR", .example = "gpurent-logs",
		 .help = N_("where CMD's log goes")},
		{.name = "no-ledger", .type = OPT_FLAG, .dest = &po.no_ledger, .help = N_("do not record the probe")},
		{.name = "price", .type = OPT_MONEY, .dest = &po.price, .arg = "PRICE", .example = "2.1",
		 .seen = &po.price_seen, .help = N_("what the box costs per hour")},
		{.name = "progress-file", .type = OPT_FILE, .dest = &po.progress_file, .arg = "F",
		 .example = "README.md", .help = N_("a file CMD rewrites with its step number")},
		{.name = "step-regex", .type = OPT_STRING, .dest = &po.step_regex, .arg = "RE",
		 .example = "step.([0-9]+)", .help = N_("a regular expression whose first group is the step")},
		{.name = "steps", .type = OPT_INT, .dest = &po.steps, .min = 1, .max = PROBE_MAX_STEPS / 2,
		 .arg = "N", .example = "30", .seen = &po.steps_seen, .help = N_("steady steps to measure (30)")},
		{.name = "warmup", .type = OPT_INT, .dest = &po.warmup, .min = 0, .max = PROBE_MAX_STEPS / 2,
		 .arg = "K", .example = "2", .seen = &po.warmup_seen, .help = N_("skip the first K steps")},
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "probe", .max_operands = -1, .usage_fn = print_usage};

	/* the options and the workload end at "--"; CMD is what follows */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
	workload_init(&w);
	if ((rc = wlargs_parse(&oc, own, dd < 0 ? argc : dd, argv, &w, &file, NULL)) != OPT_GO)
		return rc;
	if (dd < 0 || dd + 1 >= argc)
		return msg_usage(_("expected a command to run after the options: gpurent probe [options] -- CMD [ARGS...]"));
	if (po.for_seen && po.steps_seen)
		return msg_usage(_("--steps and --for: give one"));
	if (po.for_seen && !(po.for_s > 0))
		return msg_usage(_("--for: must be positive"));
	if (probe_init(&run.p, po.step_regex, 0, err, sizeof(err)))
		return msg_usage("%s", err);
	if (po.price_seen && !(po.price.amount >= 0))
		return msg_usage(_("--price: expected an amount of 0 or more"));
	if (po.price_seen)
		snprintf(cur, sizeof(cur), "%s", po.price.code);
	for (size_t k = 0; k < workload_nfields; k++)
		wl_given |= workload_index_set(&w, (int)k);
	wl_given |= file != NULL;
	if ((rc = common_load_data(&gdb, &mdb)))
		goto out_probe;
	data_loaded = true;
	if (wl_given && workload_resolve(&w, &mdb, &gdb, &arch, &wgpu, &bad, err, sizeof(err))) {
		rc = wlargs_field_error(file, &w, bad, err);
		goto out_data;
	}

	/* the run */
	status = run_guarded(&po, &run, cur, argv + dd + 1, &g, &rp);

	/* what it is measured against */
	if (nvml_gpu(gname, sizeof(gname), &gmem))
		ngpu = envcheck_find_gpu(&gdb, gname, gmem);
	gpu = wgpu ? wgpu : ngpu;
	in.warmup = run.warmup;
	in.price_per_hour = g.lim.price_per_hour;
	in.nominal_mem = ngpu ? ngpu->memory_bytes : wgpu ? wgpu->memory_bytes : 0;
	if (wl_given)
		have_est = estimate_inputs(&w, &arch, gpu, &in);
	probe_finish(&run.p, &in, &res);

	if (!po.no_ledger)
		record_probe(&po, &res, &in, wl_given ? &w : NULL, wl_given ? arch.name : NULL,
			     ngpu || !wgpu ? gname : wgpu->name, g.cmd);

	rp.r = &res;
	rp.in = &in;
	rp.run = &run;
	rp.gpu = gpu;
	rp.currency = cur;
	rp.have_est = have_est;
	rp.units_samples = in.units_are_samples;
	rp.cmd_status = status;
	if (po.json)
		render_json(&rp);
	else
		render_text(&rp);
	/* CMD stopped by the probe, or done on its own: the probe's own success */
	rc = msg_finish(run.stopped || status == 0 ? EXIT_OK : status);
out_data:
	if (data_loaded) {
		gpu_db_free(&gdb);
		model_db_free(&mdb);
	}
out_probe:
	probe_free(&run.p);
	return rc;
}
