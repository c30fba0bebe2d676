/*
 * cmd_plan.c - `gpurent plan [job.yaml] [--FIELD VALUE]... [--catalog P]...`:
 * estimate the job, price it on every offer under each billing mode, rank,
 * explain, advise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/names.h"
#include "core/plan/plan.h"
#include "core/market/campus.h"
#include "kit/cmd.h"
#include "cmd/estimate/calib.h"
#include "kit/common.h"
#include "cmd/plan/offers_load.h"
#include "kit/catcache.h"
#include "base/out.h"
#include "cmd/plan/plan_setup.h"
#include "cmd/plan/plan_serve.h"
#include "cmd/plan/planwords.h"
#include "cmd/plan/plan_render.h"
#include "cmd/plan/plan_emit.h"
#include "core/plan/skyemit.h"
#include "core/task/dstack.h"
#include "cmd/plan/dstackemit.h"
#include "cmd/slurm/slurmemit.h"
#include "kit/wlargs.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent plan [WORKLOAD.yaml [TASK.yaml]] [--FIELD VALUE]... [--sky TASK.yaml]\n"
	"                    [--catalog PATH]... [--by cost|time] [--top N] [--max-price PRICE]\n"
	"                    [--currency CODE] [--rate CODE=PER_USD] [--access NAME[,NAME]]\n"
	"                    [--exclude NAME[,NAME]] [--only NAME[,NAME]] [--trust-catalog] [--spot]\n"
	"                    [--stale-days N] [--setup DURATION] [--upload-bw BW] [--calibrate PROBE]\n"
	"                    [--ledger PATH] [--progress | --quiet]\n"
	"                    [--json | --emit sky | --emit dstack | [--partition P] --emit slurm -- CMD]\n"
	"\n"
	"Where and how to rent for a workload: estimate it (see 'gpurent help estimate'\n"
	"for its fields), keep the offers whose GPU memory fits with headroom (a sliced\n"
	"card only if the job fits the slice), time the job on each offer's GPUs (more\n"
	"than one GPU only where communication does not dominate; the communication\n"
	"not hidden behind compute is part of the time), price the whole job under\n"
	"each billing mode the offer allows - on-demand at its granularity, packages,\n"
	"spot at its expected cost with interruptions - plus set-up, data upload,\n"
	"storage and egress, then rank by total cost (--by time: by finish time).\n"
	"Constraints: the workload's deadline, budget and gpu/gpus fields,\n"
	"--max-price per instance-hour, and a SkyPilot task (docs/interop.md): the\n"
	"workload says what the job is, the task where it may run. The task is\n"
	"TASK.yaml or --sky TASK.yaml, read as SkyPilot reads it (its resources:\n"
	"accelerators as a name, NAME:COUNT, a list or a set, any_of, ordered,\n"
	"use_spot, cpus, memory, disk_size, infra with region and zone, instance_type;\n"
	"num_nodes: the job spans that many instances), or a resources: section in\n"
	"WORKLOAD.yaml; a pipeline's documents are planned in turn. A task alone\n"
	"works with the workload given as --FIELD options. A dstack configuration\n"
	"(a .dstack.yml, or a file whose type: is dstack's) is read as dstack reads\n"
	"it (docs/dstack.md): a task, service or dev-environment, its resources.gpu\n"
	"by name, memory and count with ranges (24GB..80GB:2, A100:2, 48GB, 1),\n"
	"nodes, spot_policy, max_price, backends, regions, instance_types; a fleet,\n"
	"gateway, volume or preset is no job and is refused. --emit dstack prints\n"
	"it back for the best choice dstack launches: resources.gpu, backends and\n"
	"regions for the offer, every other key as written. --spot plans spot only,\n"
	"as use_spot: true. --emit sky prints a SkyPilot task for the best choice on\n"
	"a SkyPilot cloud (a SkyPilot service for a service): the task's own keys as\n"
	"written, resources for the offer (instance_type only from SkyPilot's own\n"
	"catalog), use_spot only as the task or --spot says, and a run: inside\n"
	"'gpurent run' with the plan's stop limits.\n"
	"The job needs tokens (or samples) to be priced. Catalogs as in 'gpurent\n"
	"offers' (default: the bundled catalog, those 'gpurent catalog update'\n"
	"fetched, and ~/.sky/catalogs). The plan says how old the prices it ranked\n"
	"are (the oldest ranked offer's; each offer's in --json) and warns when\n"
	"they are older than --stale-days N (default 30; config stale_days).\n"
	"\n"
	"A service (task: infer with serve: 24x7, 8x5 or 12h, and a load: concurrency\n"
	"and user_tps, or rps with prompt_len and output_len) is priced by the month\n"
	"instead (docs/serve.md): the GPUs per replica (tensor parallel 1-8 when one\n"
	"GPU cannot hold the weights and KV cache), the replicas for the load, and\n"
	"the monthly cost on-demand, as a monthly package and on 1-/3-year reserved\n"
	"terms, plus egress and storage, ranked by the monthly total; no spot, no\n"
	"marketplace hosts, a budget alert instead of an auto-stop.\n"
	"\n"
	"Who you are: an offer that needs a membership (a campus cluster, an\n"
	"institution's pool: the offer format's access column) is planned only when\n"
	"--access names it; --exclude and --only take provider names or supply types\n"
	"(hyperscaler, ai-cloud, campus-hpc, serverless, marketplace). A row whose\n"
	"spot price is at or above its on-demand price is not ranked (the columns may\n"
	"be swapped) unless --trust-catalog; an offer far below the other offers of\n"
	"its GPU is marked '!' (docs/offers.md \"Suspect prices\").\n"
	"\n"
	"Money: one currency per answer: --currency (RMB and ¥ are CNY), else\n"
	"the currency the budget or --max-price was written in, else USD; a bare\n"
	"amount is in that currency; the rate and its source are printed once.\n"
	"\n"
	"Output: the order of magnitude when the cheapest plan runs over 7 days, the\n"
	"fastest over 30 days, or the cheapest costs over 10x the budget (naming the\n"
	"input that drives it); the top N (default 5), the fastest offer within 10%\n"
	"of the cheapest total, why each, spot against on-demand, what was excluded\n"
	"and why, the user class (A occasional runs, B long runs that must not lose\n"
	"progress, C a 24x7 service), what each supply type's offers came to, the\n"
	"billing mode, what would have to change when nothing fits, and a checklist\n"
	"(the budget stop is your budget, else 1.2x the expected cost; checkpoints by\n"
	"the kind of interruption: before each time limit on a queue, Young/Daly on\n"
	"spot, every 15-30 min on-demand).\n"
	"--setup (default 20m) is billed set-up per instance start; --upload-bw\n"
	"(default 100Mb/s) the dataset's upload speed.\n"
	"--emit slurm -- CMD prints the sbatch script (as 'gpurent slurm script'\n"
	"writes it) for the best campus-HPC choice, with the offer's partition, GRES\n"
	"type and QOS (data/access_slurm.csv, from each cluster's documentation);\n"
	"--partition P: the best campus offer in partition P (P is written as given\n"
	"for a cluster gpurent knows no partition of).\n"
	"--calibrate PROBE (an id from 'gpurent ledger probes', or latest; read from\n"
	"--ledger PATH or $GPURENT_LEDGER) times training on every offer's GPUs at the\n"
	"probe's MFU (the ratio of dense TFLOPS carries it to other cards); the memory\n"
	"fit stays the estimate's (docs/formulas.md \"Calibrated by a probe\").\n"
"Exit status: 0 ok, 1 nothing fits, 2 bad input.\n");

static double to_usd(const struct offers_ctx *c, const struct money *m)
{
	double r = offers_rate(c, m->code);
	return r > 0 ? m->amount * r : -1;
}


/* The items of NAME[,NAME] values (--access, --exclude, --only and the
 * workload's access), each an owned copy; free with names_free(). */
struct names {
	char **v;
	size_t n, cap;
};

static int name_push(const char *item, size_t len, int pos, void *ctx)
{
	struct names *s = ctx;
	void *v = s->v;

	(void)pos;
	if (util_grow(&v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -1;
	s->v = v;
	if (!(s->v[s->n] = strndup(item, len)))
		return -1;
	s->n++;
	return 0;
}

/* Add the items of list. 0, or -1 out of memory. */
static int names_add(struct names *s, const char *list)
{
	return names_each(list, name_push, s);
}

static void names_free(struct names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * The SkyPilot task: the task file (a second operand or --sky), read as a
 * task only, which must be one; else the workload file, when it holds
 * task keys (a workload file with a resources: section). t owns what it
 * reads (sky_task_free()). Returns 0, or 2 after the message.
 */
static int read_task(const char *file, bool must, struct sky_task *t, char **src, size_t *src_len)
{
	char *buf = NULL, err[512];
	size_t len = 0;

	memset(t, 0, sizeof(*t));
	if (!file)
		return 0;
	if (common_read_file(file, &buf, &len, err, sizeof(err)))
		return msg_usage("%s", err);
	if (sky_task_parse(buf, len, file, t, err, sizeof(err))) {
		bool plain = t->not_a_task != NULL;
		free(buf);
		sky_task_free(t);
		return plain && !must ? 0 : msg_usage("%s", err);
	}
	*src = buf;   /* --emit sky writes the task's own keys back */
	*src_len = len;
	return 0;
}

/* The notes on a document's keys that change what runs where but are not
 * planned (skytask.h enum sky_note). */
static void doc_notes(const struct sky_doc *d)
{
	static const struct {
		unsigned bit;
		const char *words;
	} t[] = {
		{SKY_NOTE_POOL, N_("pool: a pool of workers, not one job; each worker is planned as this job")},
		{SKY_NOTE_EXECUTION, N_("execution: a job group's placement is not planned; each job is, in turn")},
		{SKY_NOTE_SERVICE, N_("service: SkyServe replicas; plan prices one replica (a service by the month: "
				      "task infer, serve)")},
		{SKY_NOTE_IMAGE, N_("image_id: the image is not priced")},
		{SKY_NOTE_VOLUMES, N_("volumes: not priced")},
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (d->notes & t[i].bit)
			printf("note: %s\n", _(t[i].words));
}

/* Whether a document is a job to plan: one with resources or a run. */
static bool doc_is_job(const struct sky_doc *d)
{
	return d->has_resources || d->has_run || d->ncand > 1;
}

/* data/access_slurm.csv: the partitions of campus offers. 0, or the exit status after the message. */
static int load_campus(struct campus_db *db)
{
	const char *buf, *path;
	char *owned = NULL, err[512];
	size_t len;
	int rc;

	if ((rc = common_data_file("access_slurm.csv", &buf, &len, &owned, &path)))
		return rc;
	rc = campus_db_load(db, buf, len, path, err, sizeof(err));
	free(owned);
	return rc ? msg_usage("%s", err) : 0;
}

/* The best ranked campus-HPC choice that runs in partition want (NULL: any);
 * *row: its Slurm facts, NULL when data/access_slurm.csv has none (then
 * want, when given, is written as it is). NULL when none. */
static const struct plan_choice *slurm_choice(const struct plan_result *r, const struct campus_db *db,
					      const char *want, const struct campus_slurm **row)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct plan_choice *c = &r->ranked[i];
		if (c->offer->supply != SUPPLY_CAMPUS_HPC)
			continue;
		*row = campus_db_find(db, c->offer);
		if (!want || !*row || !strcasecmp((*row)->partition, want))
			return c;
	}
	*row = NULL;
	return NULL;
}

/*
 * --emit slurm: the sbatch script for the best ranked campus-HPC choice,
 * written by the generator of `gpurent slurm script` (slurmemit.h) from
 * the plan's figures (plan_slurm_in(): its compute time, the queue's time
 * limit, one checkpoint's write, the GPUs and CPUs of the offer) and the
 * offer's partition, GRES type and QOS (data/access_slurm.csv).
 * CMD: the words after --; partition: --partition, or NULL.
 */
static int emit_slurm(const struct plan_result *r, char **cmd, const char *partition)
{
	struct slurm_emit e = {0};
	struct campus_db db;
	const struct campus_slurm *row = NULL;
	const struct plan_choice *c;
	char err[256];
	int rc;

	if ((rc = load_campus(&db)))
		return rc;
	if (!(c = slurm_choice(r, &db, partition, &row))) {
		if (partition && slurm_choice(r, &db, NULL, &row))
			msg_error(_("--emit slurm: none of the ranked campus offers runs in partition '%s' (the "
				    "best runs in '%s'; run without --emit for the plan)"), partition, row->partition);
		else
			msg_error(_("--emit slurm: none of the %zu ranked offers is a campus cluster (give --access "
				    "NAME for the clusters you may use)"), r->n);
		rc = EXIT_RUNTIME;
		goto out;
	}
	plan_slurm_in(c, &e.in);
	e.nodes = e.in.nodes;
	e.gpus_per_node = e.in.gpus_per_node;
	e.partition = row ? row->partition : partition;
	e.gpu_type = row && row->gres_type[0] ? row->gres_type : NULL;
	e.qos = row && row->qos[0] ? row->qos : NULL;
	e.requeues = SLURM_EMIT_REQUEUES;
	e.cmd = cmd;
	if (slurm_script_check(&e, err, sizeof(err))) {
		rc = msg_usage(_("--emit slurm: %s"), err);
		goto out;
	}
	if (slurm_gen_plan(&e.in, &e.g, err, sizeof(err))) {
		rc = msg_fail(_("--emit slurm: %s"), err);
		goto out;
	}
	if (slurm_emit_mkdirs(&e, err, sizeof(err))) {
		rc = msg_fail(_("--emit slurm: the log directory: %s"), err);
		goto out;
	}
	if (slurm_emit_write(stdout, &e)) {
		rc = msg_fail("%s", _("--emit slurm: could not write the script"));
		goto out;
	}
	if (!row)
		msg_note(_("--emit slurm: gpurent knows no partition for %.*s %.*s (data/access_slurm.csv): %s"),
			 (int)c->offer->provider.len, c->offer->provider.p, (int)c->offer->instance.len,
			 c->offer->instance.p, partition ? _("the one --partition gave is written") :
			 _("the cluster's default partition runs it; --partition P names one"));
	msg_note(_("--emit slurm: %.0f chained jobs, %.1f h of queue waits assumed (the offer's queue_wait "
		   "each)"), c->chunks > 1 ? c->chunks : 1, c->queue_s / 3600);
	rc = EXIT_OK;
out:
	campus_db_free(&db);
	return rc;
}

struct plan_cmd;
static int emit_dstack(const struct plan_cmd *x, const struct plan_result *r);

/* One `gpurent plan`: its options, then what it loaded and printed. */
struct plan_cmd {
	struct workload w;             /* the workload as given */
	struct plan_opts po;
	const char *file, *task_file, *sky_opt, *currency, *calibrate, *ledger;
	struct opt_list catalogs, rates, access, excl, only;
	struct names acc, exn, onn;    /* their items: po.access, exclude, only */
	struct opt_money max_price;
	bool json, have_max_price, trust;
	long top;
	int by, emit;                  /* emit: 0 none, 1 sky, 2 slurm, 3 dstack */
	char **slurm_cmd;              /* --emit slurm: the words after -- */
	const char *partition;         /* --partition: --emit slurm's */
	struct sky_task task;
	struct dstack_conf dstack;     /* a dstack configuration's (is_dstack), its task moved to task */
	bool is_dstack;
	char *task_src;                /* the task file's bytes (owned), or NULL */
	size_t task_len;
	bool spot;                     /* --spot: spot only, as use_spot: true */
	struct sky_doc spot_doc;       /* --spot without a task: one candidate, use_spot: true */
	struct sky_res spot_res;
	struct offers_ctx c;
	struct model_db mdb;
	struct plan_setup ps;
	struct calib cal;
	struct display disp;
	long stale_days;               /* --stale-days (config stale_days), default 30 */
	size_t njobs;
	bool served;                   /* a service plan reports its catalogs itself */
	int worst;
};

/*
 * A dstack configuration as the task (the task file, else the workload
 * file): read as dstack's (core/task/dstack.h), its candidates moved to
 * x->task, its max_price as --max-price (dollars per hour) unless given.
 * 0 (x->is_dstack says whether it was one), or 2 after the message.
 */
static int plan_dstack(struct plan_cmd *x)
{
	const char *file = x->task_file ? x->task_file : x->file;
	char *buf = NULL, err[512];
	size_t len = 0;
	int rc;

	if (!file)
		return 0;
	/* a dstack file as the workload beside another task: it would be dropped */
	if (x->task_file && x->file) {
		if (common_read_file(x->file, &buf, &len, err, sizeof(err)))
			return msg_usage("%s", err);
		rc = dstack_file_is(buf, len, x->file);
		free(buf);
		buf = NULL;
		if (rc)
			return msg_usage(_("%s: a dstack configuration, not a workload: give it alone, or as the task "
					   "beside a workload file"), x->file);
	}
	if (common_read_file(file, &buf, &len, err, sizeof(err)))
		return msg_usage("%s", err);
	if (!dstack_file_is(buf, len, file)) {
		free(buf);
		return 0;
	}
	rc = dstack_parse(buf, len, file, &x->dstack, err, sizeof(err));
	free(buf);
	if (rc)
		return msg_usage("%s", err);
	x->is_dstack = true;
	x->task = x->dstack.task;
	memset(&x->dstack.task, 0, sizeof(x->dstack.task));
	if (x->dstack.max_price > 0 && !x->have_max_price) {
		x->max_price.amount = x->dstack.max_price;
		snprintf(x->max_price.code, sizeof(x->max_price.code), "USD");
		x->max_price.has_code = true;
		x->have_max_price = true;
	}
	return 0;
}

/* The command line into x (the workload, the options, the task).
 * OPT_GO, or the exit status (help printed, or an error reported). */
static int plan_args(struct plan_cmd *x, int argc, char **argv)
{
	static const char *const by_names[] = {"cost", "time", NULL};
	static const char *const emit_names[] = {"none", "sky", "slurm", "dstack", NULL};
	int rc;

	/* --emit slurm: the job's command after -- (the script runs it) */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			x->slurm_cmd = argv + i + 1;
			argc = i;
			break;
		}
	workload_init(&x->w);
	plan_opts_default(&x->po);
	x->top = x->po.top;
	x->by = x->po.by == PLAN_BY_TIME;
	x->stale_days = 30;   /* docs/offers.md "How old the prices are": a judgement, the config's stale_days */
	{
		struct opt own[] = {
			{.name = "access", .type = OPT_LIST, .dest = &x->access, .arg = "NAME[,NAME]",
			 .help = N_("memberships you hold (campus clusters, institution pools)"), .example = "SJTU-HPC"},
			OPT_ONEOF("by", &x->by, by_names, "cost|time", N_("rank by total cost or by finish time")),
			{.name = "calibrate", .type = OPT_STRING, .dest = &x->calibrate, .arg = "PROBE",
			 .help = N_("time training at a recorded probe's MFU (an id, or latest)"), .example = "latest"},
			{.name = "catalog", .type = OPT_LIST, .dest = &x->catalogs, .arg = "PATH",
			 .help = N_("a SkyPilot catalog file or folder, or an offers CSV"),
			 .example = "tests/data/offers-mixed.csv"},
			OPT_STR("currency", &x->currency, "CODE", N_("show money in this currency (RMB and ¥ are CNY)")),
			OPT_ONEOF("emit", &x->emit, emit_names, "sky|slurm|dstack",
				  N_("print a SkyPilot task (a Slurm script, a dstack configuration) for the best choice "
				     "instead of the plan")),
			{.name = "exclude", .type = OPT_LIST, .dest = &x->excl, .arg = "NAME[,NAME]",
			 .help = N_("leave out these providers or supply types"), .example = "marketplace"},
			OPT_BOOL("json", &x->json, N_("print JSON")),
			{.name = "ledger", .type = OPT_FILE, .dest = &x->ledger, .arg = "PATH",
			 .help = N_("the ledger --calibrate reads"), .example = "/dev/null"},
			{.name = "max-price", .type = OPT_MONEY, .dest = &x->max_price, .arg = "PRICE",
			 .help = N_("the most an instance may cost per hour"), .seen = &x->have_max_price},
			{.name = "only", .type = OPT_LIST, .dest = &x->only, .arg = "NAME[,NAME]",
			 .help = N_("plan only these providers or supply types"), .example = "ai-cloud"},
			OPT_STR("partition", &x->partition, "P",
				N_("--emit slurm: the campus partition to run in (the best offer in it)")),
			{.name = "rate", .type = OPT_LIST, .dest = &x->rates, .arg = "CODE=N",
			 .help = N_("units of CODE per USD"), .example = "CNY=7.2"},
			OPT_VAL(OPT_DURATION, "setup", &x->po.setup_s, "DUR", N_("set-up time on each new box")),
			OPT_LONG("stale-days", &x->stale_days, 1, 36500, "N",
				 N_("warn when the prices ranked are older than N days (default 30)")),
			OPT_BOOL("spot", &x->spot, N_("spot only, as a task's use_spot: true (--emit sky writes it)")),
			{.name = "sky", .type = OPT_STRING, .dest = &x->sky_opt, .arg = "TASK.yaml",
			 .help = N_("a SkyPilot task: where the job may run"), .example = "tests/data/sky-a100.yaml"},
			OPT_LONG("top", &x->top, 1, 1000, "N", N_("how many offers to show")),
			OPT_BOOL("trust-catalog", &x->trust,
				 N_("rank rows whose spot price is at or above on-demand (on their on-demand price)")),
			OPT_VAL(OPT_BANDWIDTH, "upload-bw", &x->po.upload_bw, "BW", N_("upload bandwidth to the box")),
			OPT_PROGRESS_FLAGS,
			OPT_TABLE_END,
		};
		const struct opt_cmd oc = {.name = "plan", .usage = usage, .max_operands = -1, .operands = NULL};
		if ((rc = wlargs_parse(&oc, own, argc, argv, &x->w, &x->file, &x->task_file)) != OPT_GO)
			return rc;
	}
	if (x->sky_opt && x->task_file)
		return msg_usage(_("--sky %s: a task file was also given as '%s': give one"), x->sky_opt,
				 x->task_file);
	if (x->sky_opt)
		x->task_file = x->sky_opt;
	if (x->emit && x->json)
		return msg_usage("%s", _("--emit sky prints a task, --json a plan: give one"));
	if ((x->emit == 2) != (x->slurm_cmd && *x->slurm_cmd))
		return msg_usage("%s", x->emit == 2 ? _("--emit slurm: give the job's command after --") :
				 _("a command after --: only with --emit slurm"));
	if (x->partition && x->emit != 2)
		return msg_usage("%s", _("--partition: only with --emit slurm (the plan ranks every partition)"));
	if ((rc = plan_dstack(x)))
		return rc;
	if (!x->is_dstack &&
	    (rc = read_task(x->task_file ? x->task_file : x->file, x->task_file != NULL, &x->task, &x->task_src,
			    &x->task_len)))
		return rc;
	if (x->emit == 3 && x->is_dstack && x->dstack.flow)
		return msg_usage(_("--emit dstack: %s is one flow mapping ({...}); write it as block YAML to have "
				   "its keys carried"), x->task_file ? x->task_file : x->file);
	if (x->spot) {   /* every candidate asks spot; without a task, one that asks nothing else */
		for (size_t d = 0; d < x->task.ndoc; d++)
			for (size_t i = 0; i < x->task.doc[d].ncand; i++)
				x->task.doc[d].cand[i].use_spot = 1;
		x->spot_res.use_spot = 1;
		x->spot_doc.cand = &x->spot_res;
		x->spot_doc.ncand = 1;
		x->spot_doc.num_nodes = 1;
	}
	x->po.top = (int)x->top;
	x->po.by = x->by ? PLAN_BY_TIME : PLAN_BY_COST;
	return OPT_GO;
}

/* --access, --exclude, --only (and the workload's access) as the plan's
 * name lists. 0, or the exit code (out of memory, reported). */
static int plan_lists(struct plan_cmd *x)
{
	for (size_t i = 0; i < x->access.n; i++)
		if (names_add(&x->acc, x->access.v[i]))
			goto out_nomem;
	for (size_t i = 0; i < x->excl.n; i++)
		if (names_add(&x->exn, x->excl.v[i]))
			goto out_nomem;
	for (size_t i = 0; i < x->only.n; i++)
		if (names_add(&x->onn, x->only.v[i]))
			goto out_nomem;
	if (x->w.access[0] && names_add(&x->acc, x->w.access))   /* the workload's access: too */
		goto out_nomem;
	x->po.access = (const char *const *)x->acc.v;
	x->po.naccess = x->acc.n;
	x->po.exclude = (const char *const *)x->exn.v;
	x->po.nexclude = x->exn.n;
	x->po.only = (const char *const *)x->onn.v;
	x->po.nonly = x->onn.n;
	return 0;
out_nomem:
	msg_error(_("out of memory"));
	return EXIT_RUNTIME;
}

/* --calibrate: the probe's figures on the workload wd (resolved: arch,
 * gpu); the time through x->w, the memory fit through x->po. 0, or the
 * exit code (message printed). */
static int plan_calibrate(struct plan_cmd *x, struct workload *wd, const struct model_spec *arch,
			  const struct gpu_spec *gpu)
{
	struct calib *cal = &x->cal;
	struct estimate ce;
	char err[512];
	int rc;

	if ((rc = calib_load(x->ledger, x->calibrate, &x->c.gdb, wd, cal)))
		return rc;
	/* what the probe can give: timed on the workload's GPU or the probed one */
	if (!estimate_run(wd, arch, gpu ? gpu : cal->probe_gpu, &ce, err, sizeof(err)))
		calib_apply(cal, wd, gpu ? gpu : cal->probe_gpu, &ce);
	if (cal->time_skip == CALIB_OK && !calib_plan_workload(cal, &x->w))
		cal->time_skip = CALIB_NO_RATE;
	/* the memory fit: the probe's peak per GPU on cards of at least
	 * the probed one's memory (calib.h; not for serving engines) */
	if (cal->probe_gpu && cal->mem_total > 0 && cal->mem_skip != CALIB_NO_MEMORY &&
	    cal->mem_skip != CALIB_SERVING) {
		x->po.probe_mem_per_gpu = cal->mem_total;
		x->po.probe_card_mem = cal->probe_gpu->memory_bytes;
	}
	x->disp.cal = cal;
	return 0;
}

/* One currency per answer, --max-price and the budget in USD, the job's
 * size required (wd: the workload as resolved). 0, or the exit code
 * (message printed). */
static int plan_money(struct plan_cmd *x, const struct workload *wd)
{
	const char *currency = x->currency;
	const struct currency *cu;

	/* one currency per answer: --currency, else the one a money value
	 * was written in (the budget, then --max-price), else USD */
	if (!currency && workload_is_set(&x->w, "budget") && x->w.budget.code_given)
		currency = x->w.budget.code;
	if (!currency && x->have_max_price && x->max_price.has_code)
		currency = x->max_price.code;
	if (!currency)
		currency = "USD";
	cu = currency_find(&x->c.currencies, currency);
	if (!cu || cu->usd <= 0) {
		msg_error(_("--currency: unknown currency '%s' (see data/currencies.csv, or --rate %s=N)"), currency,
			  currency);
		return EXIT_USAGE;
	}
	snprintf(x->disp.code, sizeof(x->disp.code), "%s", cu->code);
	x->disp.fx.code = x->disp.code;
	x->disp.fx.usd_per_unit = cu->usd;
	x->disp.cu = cu;
	/* a bare amount is in the display currency */
	if (x->have_max_price) {
		struct money m = {.amount = x->max_price.amount};
		snprintf(m.code, sizeof(m.code), "%s", x->max_price.has_code ? x->max_price.code : x->disp.code);
		x->po.max_price_usd = to_usd(&x->c, &m);
		if (x->po.max_price_usd < 0) {
			msg_error(_("--max-price: unknown currency '%s' (see data/currencies.csv, or --rate)"), m.code);
			return EXIT_USAGE;
		}
	}
	if (!plan_serve_wanted(wd) && !workload_is_set(&x->w, "tokens") && !workload_is_set(&x->w, "samples"))
		return wlargs_field_error(x->file, &x->w, -1,
					  _("tokens: missing required field (plan prices the whole job: give tokens or samples)"));
	if (workload_is_set(&x->w, "budget")) {
		struct money m = x->w.budget;
		if (!m.code_given)
			snprintf(m.code, sizeof(m.code), "%s", x->disp.code);
		x->po.budget_usd = to_usd(&x->c, &m);
		if (x->po.budget_usd < 0)
			return wlargs_field_error(x->file, &x->w, workload_field_index("budget"),
						  _("budget: unknown currency (see data/currencies.csv, or --rate CODE=N)"));
	}
	return 0;
}

/* The rates, the workload as given (checked once before any catalog is
 * read), the calibration and the money. 0, or the exit code (message
 * printed). */
static int plan_inputs(struct plan_cmd *x)
{
	struct workload wd;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	char err[512];
	int rc, bad;

	for (size_t i = 0; i < x->rates.n; i++)
		if ((rc = offers_set_rate(&x->c, x->rates.v[i])))
			return rc;
	/* a dstack service's model: when it names a preset and --model does not */
	if (x->is_dstack && x->dstack.model[0] && !workload_is_set(&x->w, "model") &&
	    model_db_find(&x->mdb, x->dstack.model) && workload_set(&x->w, "model", x->dstack.model, 0, err, sizeof(err)))
		return msg_usage("%s: model: %s", x->task_file ? x->task_file : x->file, err);
	wd = x->w;
	if (workload_resolve(&wd, &x->mdb, &x->c.gdb, &arch, &gpu, &bad, err, sizeof(err)))
		return wlargs_field_error(x->file, &wd, bad, err);
	if (x->calibrate && (rc = plan_calibrate(x, &wd, &arch, gpu)))
		return rc;
	return plan_money(x, &wd);
}

/* A pipeline's document d of ndoc: its heading and notes (not with
 * --json or --emit). Whether it is a job to plan. */
static bool doc_heading(const struct plan_cmd *x, const struct sky_doc *doc, size_t d, size_t ndoc)
{
	bool words = !x->json && !x->emit;

	if (doc && ndoc > 1 && words) {
		/* the task's name and file are the user's text: escaped (out.h) */
		const char *tf = x->task_file ? x->task_file : x->file;
		char fesc[8192], nesc[4 * sizeof(doc->name)];
		printf(_("%sTask document %zu of %zu (%s line %zu)%s%s\n"), d ? "\n\n" : "", d + 1, ndoc,
		       out_safe(tf, strlen(tf), fesc, sizeof(fesc)), doc->line, doc->name[0] ? ": " : "",
		       out_safe(doc->name, strlen(doc->name), nesc, sizeof(nesc)));
	}
	if (doc && words)
		doc_notes(doc);
	if (x->is_dstack && words)
		printf(_("note: a dstack %s: planned on dstack's backends within its resources, regions and "
			 "spot_policy; the job itself is the workload's (--FIELD options)\n"), dstack_kind_name(x->dstack.kind));
	if (doc && ndoc > 1 && !doc_is_job(doc)) {
		if (words)
			printf("%s", _("no resources and no run: not a job, not planned\n"));
		return false;
	}
	return true;
}

/* A warning on stderr when the oldest price ranked is older than
 * --stale-days, with the command that refreshes fetched catalogs. */
static void warn_stale(const struct plan_cmd *x, const struct plan_result *r)
{
	double t;
	const struct offer *o = plan_oldest_price(r, &x->c, &t);

	plan_warn_stale(&x->c, o, t, x->stale_days);
}

/* --emit sky for document doc: the job plan r or the service plan s. */
static int emit_sky(const struct plan_cmd *x, const struct workload *wd, const struct model_spec *arch,
		    const struct sky_doc *doc, const struct plan_result *r, const struct serve_result *s, bool more)
{
	struct plan_emit_in in = {.w = wd, .arch = arch, .po = &x->po, .c = &x->c, .disp = &x->disp, .doc = doc,
				  .file = x->task_file ? x->task_file : x->file, .spot = x->spot, .more = more};

	if (doc && x->task_src) {
		in.src = x->task_src;
		in.src_len = x->task_len;
		in.doc_index = (size_t)(doc - x->task.doc);
		in.task_keys_only = !x->task_file;   /* the workload file's resources: section */
	}
	return plan_emit_sky(&in, r, s);
}

/* The plan r of document doc (NULL: none) printed as asked: its exit status. */
static int plan_output(struct plan_cmd *x, const struct workload *wd, const struct model_spec *arch,
		       const struct plan_result *r, const struct sky_doc *doc, bool more)
{
	if (x->emit == 2) {
		if (!r->n)
			msg_error(_("--emit slurm: no offer fits; run without --emit for what was excluded"));
		return r->n ? emit_slurm(r, x->slurm_cmd, x->partition) : EXIT_RUNTIME;
	}
	if (x->emit == 3)
		return emit_dstack(x, r);
	if (x->emit) {
		int one = r->n ? emit_sky(x, wd, arch, doc, r, NULL, more) : EXIT_RUNTIME;
		if (!r->n)
			msg_error(_("--emit sky: no offer fits; run without --emit for what was excluded"));
		return one;
	}
	x->disp.oc = &x->c;
	x->disp.stale_days = x->stale_days;
	warn_stale(x, r);
	if (x->json) {
		plan_render_json(wd, arch, &x->po, r, &x->disp);
	} else {
		plan_render_calib(wd, &x->disp);
		plan_render_table(wd, arch, &x->po, r, &x->disp);
	}
	return r->n ? EXIT_OK : EXIT_RUNTIME;
}

/* Document d of ndoc planned (a service by the month, a job by plan_run)
 * and printed; x->worst the worst exit status so far. 0, or the exit
 * code of an error (reported). */
static int plan_doc(struct plan_cmd *x, size_t d, size_t ndoc)
{
	const struct sky_doc *doc = x->task.ndoc ? &x->task.doc[d] : NULL;
	const char *tf = x->task_file ? x->task_file : x->file;
	struct workload wd;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct plan_result r;
	char err[512];
	int rc, bad, one;

	if (!doc_heading(x, doc, d, ndoc)) {
		/* --emit sky: a pipeline's header document goes out as it is */
		if (x->emit == 1 && x->task_src) {
			rc = sky_emit_copy(stdout, x->task_src, x->task_len, d);
			if (rc == -1)
				return msg_fail("%s", _("--emit sky: could not write the task"));
			if (!rc && d + 1 < ndoc)
				printf("---\n");
		}
		return 0;
	}
	wd = x->w;
	/* the task's num_nodes, unless the workload says nodes */
	if (doc && doc->num_nodes > 1 && !workload_is_set(&x->w, "nodes")) {
		char n[32];
		snprintf(n, sizeof(n), "%ld", doc->num_nodes);
		if (workload_set(&wd, "nodes", n, 0, err, sizeof(err)))
			return msg_usage(_("%s:%zu: num_nodes: %s"), tf, doc->line, err);
	}
	if (workload_resolve(&wd, &x->mdb, &x->c.gdb, &arch, &gpu, &bad, err, sizeof(err)))
		return doc && doc->num_nodes > 1 && bad == workload_field_index("nodes") ?
		       msg_usage(_("%s:%zu: num_nodes: %s"), tf, doc->line, err) :
		       wlargs_field_error(x->file, &wd, bad, err);
	x->po.task = doc ? doc : x->spot ? &x->spot_doc : NULL;   /* the reference GPU: plan_setup_run() */
	if (x->json && x->njobs)
		printf(",\n");
	if (plan_serve_wanted(&wd) && x->emit == 3)
		return msg_usage("%s", _("--emit dstack: a service by the month is planned per replica, not emitted; "
				 "plan it without --emit, or as a job"));
	if (plan_serve_wanted(&wd) && x->emit == 1) {   /* a SkyPilot service */
		struct serve_result sr;
		if ((rc = plan_serve_plan(&wd, &arch, &x->c, &x->po, &sr)))
			return rc;
		one = sr.n ? emit_sky(x, &wd, &arch, doc, NULL, &sr, d + 1 < ndoc) : EXIT_RUNTIME;
		if (!sr.n)
			msg_error(_("--emit sky: no offer serves the load; run without --emit for what was excluded"));
		serve_result_free(&sr);
		x->worst = one > x->worst ? one : x->worst;
		x->njobs++;
		x->served = true;
		return 0;
	}
	if (plan_serve_wanted(&wd)) {
		one = plan_serve_cmd(&wd, &arch, &x->c, &x->po, x->disp.code, x->disp.fx.usd_per_unit, x->json,
				     x->stale_days);
		x->worst = one > x->worst ? one : x->worst;
		x->njobs++;
		x->served = true;
		return 0;
	}
	if ((rc = plan_setup_run(&x->c, x->file, &wd, &arch, gpu, &x->po, &r)))
		return rc;
	x->njobs++;
	one = plan_output(x, &wd, &arch, &r, doc, d + 1 < ndoc);
	x->worst = one > x->worst ? one : x->worst;
	plan_result_free(&r);
	return 0;
}

/* Every document of a pipeline in order (one plan without a task), then
 * the catalogs read. The exit status. */
static int plan_docs(struct plan_cmd *x)
{
	size_t ndoc = x->task.ndoc ? x->task.ndoc : 1;
	int rc;

	if (x->json && ndoc > 1)
		printf("[\n");
	for (size_t d = 0; d < ndoc; d++)
		if ((rc = plan_doc(x, d, ndoc)))
			return rc;
	if (x->json && ndoc > 1)
		printf("]\n");
	if (!x->json && !x->emit && !x->served) {
		printf("\n%s\n", _("Catalogs"));
		offers_report(stdout, &x->c);
	}
	return x->served ? x->worst : msg_finish(x->c.bad_rows ? EXIT_USAGE : x->worst);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_cmd xs = {0}, *x = &xs;
	int rc;

	x->worst = EXIT_OK;
	if ((rc = plan_args(x, argc, argv)) != OPT_GO || (rc = plan_lists(x)))
		goto out_opts;
	if ((rc = offers_init(&x->c, "plan")))
		goto out_opts;
	if (common_load_data(NULL, &x->mdb)) {
		rc = EXIT_RUNTIME;
		offers_free(&x->c);
		goto out_opts;
	}
	if ((rc = plan_inputs(x)))
		goto out;
	x->c.trust_catalog = x->trust;
	if ((rc = plan_setup_load(&x->ps, &x->c, (char **)x->catalogs.v, x->catalogs.n, &x->po)))
		goto out;
	rc = plan_docs(x);
out:
	plan_setup_free(&x->ps);
	calib_free(&x->cal);
	model_db_free(&x->mdb);
	offers_free(&x->c);
out_opts:
	opt_list_free(&x->catalogs);
	opt_list_free(&x->rates);
	opt_list_free(&x->access);
	opt_list_free(&x->excl);
	opt_list_free(&x->only);
	names_free(&x->acc);
	names_free(&x->exn);
	names_free(&x->onn);
	sky_task_free(&x->task);
	dstack_free(&x->dstack);
	free(x->task_src);
	return rc;
}

/* --emit dstack: the configuration for the best ranked choice dstack
 * launches (a dstack backend, whole GPUs). */
static int emit_dstack(const struct plan_cmd *x, const struct plan_result *r)
{
	struct dstack_emit e = {.dc = x->is_dstack ? &x->dstack : NULL, .code = x->disp.code,
				.usd_per_unit = x->disp.fx.usd_per_unit};

	if (!r->n) {
		msg_error(_("--emit dstack: no offer fits; run without --emit for what was excluded"));
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < r->n && !e.c; i++)
		if (dstack_emit_can(&r->ranked[i])) {
			e.c = &r->ranked[i];
			e.rank = (int)i + 1;
		}
	if (!e.c) {
		msg_error(_("--emit dstack: none of the %zu ranked offers is on a dstack backend with whole GPUs "
			    "(give --catalog with a cloud's offers, or --top more)"), r->n);
		return EXIT_RUNTIME;
	}
	if (e.rank > 1)
		msg_warn(_("--emit dstack: choice #%d, the best ranked that dstack launches"), e.rank);
	if (dstack_emit_write(stdout, &e))
		return msg_fail("%s", _("--emit dstack: could not write the configuration"));
	return EXIT_OK;
}
