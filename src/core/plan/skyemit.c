/*
 * skyemit.c - a SkyPilot task (or service) for a planned choice
 * (skyemit.h). The fields and their forms follow SkyPilot's task schema
 * (sky/utils/schemas.py, the commit tests/data/skypilot-task.schema.README
 * names): resources.accelerators NAME:COUNT (a slice as SkyPilot's
 * catalog counts it, A10:0.167), use_spot, infra CLOUD[/REGION[/ZONE]],
 * instance_type, disk_size in GB, autostop {idle_minutes, down},
 * job_recovery {strategy}; num_nodes; service {readiness_probe, replicas}.
 * The document goes out through libyaml's emitter, so every scalar reads
 * back as it was; text gpurent writes itself is a literal block only
 * where every character is one YAML reads as it is (no U+0085, U+2028,
 * U+2029: YAML line breaks), else double-quoted with escapes.
 */
#include "core/plan/skyemit.h"
#include "core/plan/skyemit_int.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "core/text/units.h"
#include "base/strbuf.h"
#include "base/util.h"

const char *sky_emit_cloud(const struct offer *o)
{
	return sky_cloud_of(&o->provider);
}

/* Whether YAML takes code point cp as it is, as content that is no line
 * break: its printable set (YAML 1.1 and 1.2 "c-printable") less the
 * breaks U+0085, U+2028, U+2029 and the byte order mark, which libyaml
 * and PyYAML read as a line end or drop. */
static bool yaml_plain_char(uint32_t cp)
{
	return cp == '\t' || (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff && cp != 0x2028 && cp != 0x2029) ||
	       (cp >= 0xe000 && cp <= 0xfffd && cp != 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/* Catalog text in a comment: what YAML takes as it is, other bytes (a
 * newline would end the comment) as \xNN. */
static void put_comment_text(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = quote_utf8_at(u + i, n - i, &cp);
		if (len && yaml_plain_char(cp)) {
			fwrite(u + i, 1, len, f);
			i += len;
		} else {
			for (size_t k = 0; k < (len ? len : 1); k++)
				fprintf(f, "\\x%02x", u[i + k]);
			i += len ? len : 1;
		}
	}
}

/* Whether every line of t can be a literal block's line: no byte but
 * printable UTF-8, tabs and newlines (yaml_plain_char()), and a first line
 * that starts with no blank (YAML takes the block's indent from it). */
static bool block_chars_ok(const char *t)
{
	const unsigned char *u = (const unsigned char *)t;
	size_t n = t ? strlen(t) : 0;

	if (!n || *t == ' ' || *t == '\t' || *t == '\n')
		return false;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = quote_utf8_at(u + i, n - i, &cp);
		if (!len || (cp != '\n' && !yaml_plain_char(cp)))
			return false;
		i += len;
	}
	return true;
}

/* Whether t reads back the same from a literal block, "|" when it ends in
 * one newline, "|-" when in none: block_chars_ok(), and no trailing empty
 * or blank-only line (chomping would take or keep them differently). */
static bool block_ok(const char *t)
{
	size_t n, last;

	if (!block_chars_ok(t))
		return false;
	n = strlen(t);
	if (t[n - 1] == '\n')
		n--;
	if (t[n - 1] == '\n')
		return false;
	for (last = n; last && t[last - 1] != '\n'; last--)
		;
	while (last < n && (t[last] == ' ' || t[last] == '\t'))
		last++;
	return last < n;
}

/* A heredoc delimiter that is no line of t. */
static void delimiter(const char *t, char *out, size_t n)
{
	for (int k = 0;; k++) {
		const char *p = t;
		bool clash = false;
		snprintf(out, n, k ? "GPURENT_JOB_EOF_%d" : "GPURENT_JOB_EOF", k);
		while (p && *p && !clash) {
			size_t len = strcspn(p, "\n");
			clash = len == strlen(out) && !strncmp(p, out, len);
			p += len;
			if (*p == '\n')
				p++;
		}
		if (!clash)
			return;
	}
}

/* money in the display currency, e.g. 54.10CNY (gpurent run reads it) */
static void money(char *out, size_t n, double usd, const struct sky_emit *e)
{
	snprintf(out, n, "%.2f%s", usd / e->usd_per_unit, e->code);
}

/* whole minutes, at least 1 */
static long minutes(double s)
{
	double m = ceil(s / 60);
	return m < 1 ? 1 : (long)m;
}

/* SkyPilot's accelerator names (skypilot-org/skypilot-catalog@03d79776
 * catalogs/v7/common/accelerators.csv, AcceleratorName; the GPUs only).
 * MUST stay sorted (strcmp): bsearch. */
static const char *const sky_accels[] = {
	"A10", "A100", "A100-80GB", "A100-80GB-SXM", "A10G", "A40", "A4000", "A6000", "B200", "GH200",
	"Gaudi", "H100", "H100-MEGA", "H100-NVL", "H100-NVLINK", "H100-SXM", "H200", "H200-SXM", "HL-205",
	"K80", "L4", "L40", "L40S", "M4000", "M60", "MI300X", "P100", "P4", "P4000", "RTX3060", "RTX3080",
	"RTX3090", "RTX4000-Ada", "RTX4060", "RTX4080", "RTX4090", "RTX5060", "RTX5090", "RTX6000",
	"RTX6000-Ada", "RTXA4000", "RTXA4500", "RTXA5000", "RTXA6000", "T4", "T4g", "V100", "V100-32GB",
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool sky_accel_known(const char *n)
{
	return bsearch(&n, sky_accels, sizeof(sky_accels) / sizeof(sky_accels[0]), sizeof(sky_accels[0]), cmp_name);
}

/*
 * The accelerator name SkyPilot knows for offer o: a SkyPilot catalog's
 * own (sky_names), else the first of the GPU's names in sky_accels, as
 * written or with its form factor dropped ("A100-80GB-PCIE" is SkyPilot's
 * A100-80GB), else the catalog's name as it is. Into out.
 */
static void accel_name(const struct offer *o, bool sky_names, char *out, size_t n)
{
	const char *p = o->gpu ? o->gpu->aliases : "";

	snprintf(out, n, "%.*s", (int)o->gpu_name.len, o->gpu_name.p);
	if (sky_names || sky_accel_known(out))
		return;
	for (int pass = 0; pass < 2; pass++)
		for (const char *q = p; *q;) {
			size_t len = strcspn(q, "|");
			char nm[64];
			snprintf(nm, sizeof(nm), "%.*s", (int)len, q);
			if (pass) {
				char *f = strstr(nm, "-PCIE");
				if (f)
					memmove(f, f + 5, strlen(f + 5) + 1);
			}
			if (sky_accel_known(nm)) {
				snprintf(out, n, "%s", nm);
				return;
			}
			q += len + (q[len] == '|');
		}
}

/* Keys of resources: gpurent writes for the offer; the task's own are
 * dropped (the choice replaces them). Sorted. */
static const char *const owned_res[] = {
	"accelerators", "any_of", "cloud", "infra", "instance_type", "ordered", "region", "use_spot", "zone",
};

static bool is_owned(const char *k)
{
	for (size_t i = 0; i < sizeof(owned_res) / sizeof(owned_res[0]); i++)
		if (!strcmp(owned_res[i], k))
			return true;
	return false;
}

/* What the writer works from: the figures of the choice, the user's
 * resources (res) and the chosen any_of / ordered entry (alt). */
struct em {
	yaml_emitter_t y;
	const struct sky_emit *e;
	const struct offer *o;
	const char *cloud;
	struct sky_kvm doc, res, alt;
	struct sky_anchors anch;      /* written so far */
	double nodes, disk_gb, rate, budget, runtime, stall_s;
	long idle_min, replicas;
	bool spot;
};

/* The candidate the choice matched, as written: the any_of / ordered
 * entry whose mapping starts on the candidate's line. */
static int pick_alt(struct em *m, struct sky_kv *list, size_t line)
{
	struct sky_evl *l = &list->val;
	size_t i = 1;

	while (l->n && l->v[0].type == YAML_SEQUENCE_START_EVENT && i < l->n &&
	       l->v[i].type != YAML_SEQUENCE_END_EVENT) {
		size_t j = i;
		int depth = 0;
		do {
			yaml_event_type_t t = l->v[j].type;
			depth += (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) -
				 (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT);
			j++;
		} while (depth > 0 && j < l->n);
		if (l->v[i].type == YAML_MAPPING_START_EVENT && l->v[i].start_mark.line + 1 == line) {
			struct sky_evl one = {.v = l->v + i, .n = j - i, .cap = j - i};
			struct sky_evl copy = {0};
			int rc;
			copy.v = malloc(one.n * sizeof(*copy.v));
			if (!copy.v)
				return -1;
			memcpy(copy.v, one.v, one.n * sizeof(*copy.v));
			copy.n = copy.cap = one.n;
			memset(one.v, 0, one.n * sizeof(*one.v));   /* moved */
			rc = sky_kvm_from_evl(&copy, &m->alt);
			sky_evl_free(&copy);
			return rc;
		}
		i = j;
	}
	return 0;
}

static int put_num(yaml_emitter_t *y, const char *key, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.15g", v);
	return sky_put_kv(y, key, b, YAML_PLAIN_SCALAR_STYLE);
}

/* Text gpurent wrote (a run script): a literal block where it reads back
 * the same, else double-quoted. */
static int put_text(yaml_emitter_t *y, const char *key, const char *t)
{
	return sky_put_kv(y, key, t, block_ok(t) ? YAML_LITERAL_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/* The resources mapping: the offer's, then the user's other keys (the
 * chosen alternative's over the base's), then what gpurent adds when the
 * task has none: ports for a service, disk_size, autostop, job_recovery. */
static int put_resources(struct em *m)
{
	yaml_emitter_t *y = &m->y;
	const struct offer *o = m->o;
	char b[256], acc[96];
	bool given;
	int rc;

	if (sky_put_scalar(y, "resources", YAML_PLAIN_SCALAR_STYLE) || sky_put_mapping(y, true))
		return -1;
	/* per node: the offer's own GPUs, a slice as its catalog counts it */
	accel_name(m->e->twin ? m->e->twin : o, m->e->sky_names || m->e->twin, acc, sizeof(acc));
	snprintf(b, sizeof(b), "%s:%g", acc, o->gpus);
	if (sky_put_kv(y, "accelerators", b, YAML_DOUBLE_QUOTED_SCALAR_STYLE))
		return -1;
	if (m->e->use_spot >= 0 && sky_put_kv(y, "use_spot", m->spot ? "true" : "false", YAML_PLAIN_SCALAR_STYLE))
		return -1;
	if (m->cloud) {
		if (m->e->sky_names && o->region.len)
			snprintf(b, sizeof(b), "%s/%.*s%s%.*s", m->cloud, (int)o->region.len, o->region.p,
				 o->zone.len && (o->zone.len != o->region.len || memcmp(o->zone.p, o->region.p, o->zone.len)) ? "/" : "",
				 o->zone.len && (o->zone.len != o->region.len || memcmp(o->zone.p, o->region.p, o->zone.len)) ?
				 (int)o->zone.len : 0, o->zone.p ? o->zone.p : "");
		else
			snprintf(b, sizeof(b), "%s", m->cloud);
		if (sky_put_kv(y, "infra", b, YAML_DOUBLE_QUOTED_SCALAR_STYLE))
			return -1;
		/* GCP: the host VM a GPU row was joined with is the instance type */
		const struct offer *io = m->e->twin ? m->e->twin : o;
		const struct cat_str *it = io->host.len ? &io->host : &io->instance;
		if ((m->e->sky_names || m->e->twin) && it->len) {
			snprintf(b, sizeof(b), "%.*s", (int)it->len, it->p);
			if (sky_put_kv(y, "instance_type", b, YAML_DOUBLE_QUOTED_SCALAR_STYLE))
				return -1;
		}
	}
	if (m->e->sc && !sky_kvm_get(&m->res, "ports") && !sky_kvm_get(&m->alt, "ports") &&
	    put_num(y, "ports", SKY_EMIT_SERVE_PORT))
		return -1;
	for (size_t i = 0; i < m->res.n; i++) {
		struct sky_kv *kv = &m->res.v[i];
		struct sky_kv *over = (struct sky_kv *)sky_kvm_get(&m->alt, kv->key);
		if (is_owned(kv->key))
			continue;
		if ((rc = sky_put_pair(y, over ? over : kv, &m->anch)))
			return rc;
	}
	for (size_t i = 0; i < m->alt.n; i++) {
		struct sky_kv *kv = &m->alt.v[i];
		if (!is_owned(kv->key) && !sky_kvm_get(&m->res, kv->key) && (rc = sky_put_pair(y, kv, &m->anch)))
			return rc;
	}
	given = sky_kvm_get(&m->res, "disk_size") || sky_kvm_get(&m->alt, "disk_size");
	if (!given && put_num(y, "disk_size", m->disk_gb))
		return -1;
	/* autodown: nothing of the job lives on the box once it ends (the
	 * checkpoints are in SKY_EMIT_CKPT_DIR, on storage you mount) */
	given = sky_kvm_get(&m->res, "autostop") || sky_kvm_get(&m->alt, "autostop");
	if (!given && !m->e->sc &&
	    (sky_put_scalar(y, "autostop", YAML_PLAIN_SCALAR_STYLE) || sky_put_mapping(y, true) ||
	     put_num(y, "idle_minutes", (double)m->idle_min) || sky_put_kv(y, "down", "true", YAML_PLAIN_SCALAR_STYLE) ||
	     sky_put_mapping(y, false)))
		return -1;
	/* a preempted spot job comes back on a new instance and resumes from
	 * the newest complete checkpoint (`sky jobs launch`) */
	given = sky_kvm_get(&m->res, "job_recovery") || sky_kvm_get(&m->alt, "job_recovery") ||
		sky_kvm_get(&m->res, "spot_recovery") || sky_kvm_get(&m->alt, "spot_recovery");
	if (!given && m->spot && !m->e->sc &&
	    (sky_put_scalar(y, "job_recovery", YAML_PLAIN_SCALAR_STYLE) || sky_put_mapping(y, true) ||
	     sky_put_kv(y, "strategy", "FAILOVER", YAML_PLAIN_SCALAR_STYLE) || sky_put_mapping(y, false)))
		return -1;
	return sky_put_mapping(y, false);
}

/* service: the task's own keys but the replica count, a readiness probe
 * when it has none, and the plan's replicas. */
static int put_service(struct em *m, struct sky_kv *given)
{
	yaml_emitter_t *y = &m->y;
	struct sky_kvm svc = {0};
	int rc = -1;

	if (given && sky_kvm_from_evl(&given->val, &svc))
		goto out;
	if (sky_put_scalar(y, "service", YAML_PLAIN_SCALAR_STYLE) || sky_put_mapping(y, true))
		goto out;
	if (!sky_kvm_get(&svc, "readiness_probe") && sky_put_kv(y, "readiness_probe", SKY_EMIT_PROBE_PATH,
								YAML_PLAIN_SCALAR_STYLE))
		goto out;
	for (size_t i = 0; i < svc.n; i++)
		if (strcmp(svc.v[i].key, "replicas") && strcmp(svc.v[i].key, "replica_policy") &&
		    (rc = sky_put_pair(y, &svc.v[i], &m->anch)))
			goto out;
	rc = -1;
	if (put_num(y, "replicas", (double)m->replicas) || sky_put_mapping(y, false))
		goto out;
	rc = 0;
out:
	sky_kvm_free(&svc);
	return rc;
}

/* The job's run: its script (or a placeholder) under `gpurent run` with
 * the plan's stop limits; a service's: the task's own, else the server
 * for the model on the replica's GPUs. Into b. */
static void run_text(const struct em *m, struct strbuf *b)
{
	const struct sky_emit *e = m->e;
	const char *run = e->doc && e->doc->run && *e->doc->run ? e->doc->run : NULL;
	char price[64], budget[64], guard[512], delim[32], dp[48] = "";

	if (e->sc) {
		const struct serve_choice *sc = e->sc;
		double per = sc->tp > 0 ? floor(m->o->gpus / sc->tp) : 1;
		const char *model = e->model_id ? e->model_id : "YOUR-MODEL";
		if (run) {
			strbuf_addstr(b, run);
			return;
		}
		/* more GPUs on the box than one engine takes: engines side by
		 * side (vLLM --data-parallel-size, SGLang --dp-size) */
		if (per > 1)
			snprintf(dp, sizeof(dp), e->w->framework == FW_SGLANG ? " --dp-size %.0f" :
				 " --data-parallel-size %.0f", per);
		if (e->w->framework == FW_SGLANG)
			strbuf_addf(b, "python -m sglang.launch_server --model-path %s --tp %d%s --port %d --host 0.0.0.0\n",
				    model, sc->tp, dp, SKY_EMIT_SERVE_PORT);
		else
			strbuf_addf(b, "vllm serve %s --tensor-parallel-size %d%s --port %d --host 0.0.0.0\n", model,
				    sc->tp, dp, SKY_EMIT_SERVE_PORT);
		return;
	}
	money(price, sizeof(price), m->rate, e);
	money(budget, sizeof(budget), m->budget / m->nodes, e);
	snprintf(guard, sizeof(guard), "gpurent run --max-runtime %ldm --idle %ldm --stall %ldm --price %s --budget %s%s%s",
		 minutes(m->runtime), m->idle_min, minutes(m->stall_s), price, budget,
		 e->w->resumable || m->spot ? " --ckpt-dir " : "", e->w->resumable || m->spot ? SKY_EMIT_CKPT_DIR : "");
	if (run) {
		delimiter(run, delim, sizeof(delim));
		strbuf_addf(b, "cat > /tmp/gpurent-job.sh <<'%s'\n%s%s%s\n", delim, run,
			    run[strlen(run) - 1] == '\n' ? "" : "\n", delim);
		strbuf_addf(b, "%s -- bash /tmp/gpurent-job.sh\n", guard);
	} else {
		strbuf_addf(b, "%s -- python train.py   # your command\n", guard);
	}
}

/* The comments above the task: what it is for, what gpurent left to the
 * user, and the plan's spot advice when the task does not take it. */
static void put_comments(FILE *f, const struct em *m)
{
	const struct sky_emit *e = m->e;
	const struct offer *o = m->o;
	const struct plan_choice *c = e->c;
	char a[64];

	fprintf(f, "# SkyPilot %s written by gpurent plan --emit sky (docs/interop.md)\n", e->sc ? "service" : "task");
	fprintf(f, "# for choice #%d: ", e->rank);
	put_comment_text(f, o->provider.p, o->provider.len);
	fputc(' ', f);
	put_comment_text(f, o->instance.p, o->instance.len);
	if (o->region.len) {
		fprintf(f, " in ");
		put_comment_text(f, o->region.p, o->region.len);
	}
	if (c)
		fprintf(f, ", %s, expected %.2f %s, done in %s\n", m->spot ? "spot" : "on demand",
			(m->spot || c->mode != PLAN_SPOT || !(c->on_demand_total > 0) ? c->cost.total : c->on_demand_total) /
			e->usd_per_unit, e->code, units_fmt_duration(c->wall_s, a, sizeof(a)));
	else
		fprintf(f, ", %ld replica%s of %d GPU%s, %.2f %s a month (%s)\n", m->replicas, m->replicas == 1 ? "" : "s",
			e->sc->tp, e->sc->tp == 1 ? "" : "s", e->sc->total / e->usd_per_unit, e->code,
			plan_mode_name(e->sc->mode));
	if (!m->cloud)
		fprintf(f, "# (not a SkyPilot cloud: infra is left out; pick the cloud yourself)\n");
	else if (!e->sky_names && e->twin) {
		const struct cat_str *it = e->twin->host.len ? &e->twin->host : &e->twin->instance;
		fprintf(f, "# instance_type: ");
		put_comment_text(f, it->p, it->len);
		fprintf(f, ", the same GPUs in SkyPilot's catalog for %s (the offer's own names are\n"
			   "# not SkyPilot's); the region is left to SkyPilot\n", m->cloud);
	} else if (!e->sky_names)
		fprintf(f, "# instance_type and region left out: the offer is not from SkyPilot's catalog for %s,\n"
			   "# so its names are not SkyPilot's; SkyPilot picks the instance for the accelerators\n",
			m->cloud);
	if (c && c->mode == PLAN_SPOT && !m->spot)
		fprintf(f, "# the plan advises spot (expected %.2f %s with restarts, against %.2f on demand):\n"
			   "# add use_spot: true under resources (or plan --spot) to take it\n",
			c->cost.total / e->usd_per_unit, e->code,
			(c->on_demand_total > 0 ? c->on_demand_total : c->cost.total) / e->usd_per_unit);
	if (!e->doc || !(e->doc->has_workdir || e->doc->has_file_mounts))
		fprintf(f, "# your code and data: gpurent does not know where they live; a workdir: or\n"
			   "# file_mounts: %s (persistent storage) lets a restart resume\n", SKY_EMIT_CKPT_DIR);
	if (!e->doc || !e->doc->has_setup)
		fprintf(f, "# setup: install your environment%s\n", e->sc ? "" : ", and gpurent (README.md)");
	if (c)
		fprintf(f, "# gpurent run stops the box when the job ends, idles %ld min or prints nothing for\n"
			   "# %ld min, after 1.2x the planned time, or at the budget%s\n",
			m->idle_min, minutes(m->stall_s), m->nodes > 1 ? " (on each node: its share of it)" : "");
}

/* The figures the task is written from (m->o and m->e set). */
static void figures(struct em *m)
{
	const struct sky_emit *e = m->e;
	const struct plan_choice *c = e->c;
	const struct sky_res *want = e->doc && e->doc->ncand ? &e->doc->cand[0] : NULL;
	double ckpt_bytes = c ? c->ckpt_write_s * e->po->ckpt_write_bw : 0;

	m->cloud = sky_emit_cloud(m->o);
	m->spot = e->use_spot == 1;
	m->nodes = c && c->nodes > 1 ? c->nodes : 1;
	m->replicas = e->sc ? (long)ceil(e->sc->instances) : 0;
	/* the plan's stop limits (planwords.c's checklist: 1.2x the finish;
	 * the budget, else stop_multiple x the expected cost of the mode the
	 * task is emitted in) */
	if (c) {
		double total = !m->spot && c->mode == PLAN_SPOT && c->on_demand_total > 0 ? c->on_demand_total :
			       c->cost.total;
		m->runtime = c->wall_s * 1.2;
		m->budget = e->po->budget_usd > 0 ? e->po->budget_usd : total * e->po->stop_multiple;
		m->rate = m->spot ? m->o->spot_price : m->o->price;
		m->idle_min = minutes(fmax(SKY_EMIT_IDLE_MIN_S, 2 * c->ckpt_write_s));
		m->stall_s = fmax(SKY_EMIT_STALL_MIN_S, 2 * c->ckpt_write_s);
	}
	if (want && want->autostop_idle_min > 0)
		m->idle_min = (long)ceil(want->autostop_idle_min);
	/* data, the newest complete checkpoint and the one being written, and
	 * the system; SkyPilot's default when that is less */
	m->disk_gb = fmax(SKY_EMIT_DISK_DEFAULT_GB,
			  ceil((e->w->data_size + 2 * ckpt_bytes) / 1e9) + SKY_EMIT_DISK_SYSTEM_GB);
}

static int emitter_write(void *data, unsigned char *buf, size_t size)
{
	return fwrite(buf, 1, size, data) == size;
}

/* The document: the task's keys in their order, those gpurent writes in
 * their place, then the ones the task did not have. */
static int put_doc(struct em *m)
{
	yaml_emitter_t *y = &m->y;
	const struct sky_emit *e = m->e;
	struct strbuf run = STRBUF_INIT;
	bool did_res = false, did_nodes = false, did_run = false, did_svc = false;
	int rc = -1;

	run_text(m, &run);
	if (run.oom)
		goto out;
	for (size_t i = 0; i < m->doc.n; i++) {
		struct sky_kv *kv = &m->doc.v[i];
		if (e->task_keys_only && !sky_task_key(kv->key))
			continue;
		if (!strcmp(kv->key, "resources")) {
			if (did_res)
				continue;
			if ((rc = put_resources(m)))
				goto out_rc;
			did_res = true;
		} else if (!strcmp(kv->key, "num_nodes")) {
			if (put_num(y, "num_nodes", m->nodes))
				goto out;
			did_nodes = true;
		} else if (!strcmp(kv->key, "run") && (e->c || !e->doc->run)) {
			if (run.len && put_text(y, "run", run.p))
				goto out;
			did_run = true;
		} else if (!strcmp(kv->key, "service") && e->sc) {
			if ((rc = put_service(m, kv)))
				goto out_rc;
			did_svc = true;
		} else if ((rc = sky_put_pair(y, kv, &m->anch))) {
			goto out_rc;
		}
	}
	if ((!did_res && (rc = put_resources(m))) || (!did_svc && e->sc && (rc = put_service(m, NULL))))
		goto out_rc;
	if (!did_nodes && m->nodes > 1 && put_num(y, "num_nodes", m->nodes))
		goto out;
	/* a task without a run has nothing for gpurent run to watch */
	if (!did_run && (!e->doc || !m->doc.n || e->sc) && !sky_kvm_get(&m->doc, "run") && put_text(y, "run", run.p))
		goto out;
	rc = 0;
	goto out_rc;
out:
	rc = -1;
out_rc:
	strbuf_release(&run);
	return rc;
}

int sky_emit_write(FILE *f, const struct sky_emit *e)
{
	struct em m;
	yaml_event_t ev;
	int rc = -1;

	memset(&m, 0, sizeof(m));
	m.e = e;
	m.o = e->c ? e->c->offer : e->sc->offer;
	figures(&m);
	if (e->src && (rc = sky_doc_read(e->src, e->src_len, e->doc_index, &m.doc)))
		goto out_doc;
	rc = -2;
	{
		struct sky_kv *r = (struct sky_kv *)sky_kvm_get(&m.doc, "resources");
		if (r && r->val.n && r->val.v[0].type == YAML_MAPPING_START_EVENT && sky_kvm_from_evl(&r->val, &m.res))
			goto out_doc;
		if (r && e->doc && e->c && e->c->offer) {
			/* the alternative the plan matched: the first that fits */
			for (size_t i = 0; i < e->doc->ncand; i++)
				if (sky_res_fits(&e->doc->cand[i], m.o, true)) {
					struct sky_kv *alt = (struct sky_kv *)sky_kvm_get(&m.res, "any_of");
					if (!alt)
						alt = (struct sky_kv *)sky_kvm_get(&m.res, "ordered");
					if (alt && pick_alt(&m, alt, e->doc->cand[i].line))
						goto out_doc;
					break;
				}
		}
	}
	rc = -1;
	put_comments(f, &m);
	if (!yaml_emitter_initialize(&m.y))
		goto out_doc;
	yaml_emitter_set_output(&m.y, emitter_write, f);
	yaml_emitter_set_unicode(&m.y, 1);
	yaml_emitter_set_width(&m.y, -1);
	yaml_emitter_set_indent(&m.y, 2);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || !yaml_emitter_emit(&m.y, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || !yaml_emitter_emit(&m.y, &ev) ||
	    sky_put_mapping(&m.y, true))
		goto out_em;
	if ((rc = put_doc(&m)))
		goto out_em;
	rc = -1;
	if (sky_put_mapping(&m.y, false) ||
	    !yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(&m.y, &ev) ||
	    !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(&m.y, &ev) || !yaml_emitter_flush(&m.y))
		goto out_em;
	rc = ferror(f) ? -1 : 0;
out_em:
	yaml_emitter_delete(&m.y);
out_doc:
	sky_kvm_free(&m.doc);
	sky_kvm_free(&m.res);
	sky_kvm_free(&m.alt);
	sky_anchors_free(&m.anch);
	return rc;
}

int sky_emit_copy(FILE *f, const char *src, size_t len, size_t index)
{
	struct sky_kvm doc;
	struct sky_anchors anch = {0};
	yaml_emitter_t y;
	yaml_event_t ev;
	int rc = sky_doc_read(src, len, index, &doc);

	if (rc)
		goto out_doc;
	rc = -1;
	if (!yaml_emitter_initialize(&y))
		goto out_doc;
	yaml_emitter_set_output(&y, emitter_write, f);
	yaml_emitter_set_unicode(&y, 1);
	yaml_emitter_set_width(&y, -1);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) || !yaml_emitter_emit(&y, &ev) ||
	    !yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) || !yaml_emitter_emit(&y, &ev) ||
	    sky_put_mapping(&y, true))
		goto out_em;
	for (size_t i = 0; i < doc.n; i++)
		if ((rc = sky_put_pair(&y, &doc.v[i], &anch)))
			goto out_em;
	rc = -1;
	if (sky_put_mapping(&y, false) || !yaml_document_end_event_initialize(&ev, 1) || !yaml_emitter_emit(&y, &ev) ||
	    !yaml_stream_end_event_initialize(&ev) || !yaml_emitter_emit(&y, &ev) || !yaml_emitter_flush(&y))
		goto out_em;
	rc = ferror(f) ? -1 : 0;
out_em:
	yaml_emitter_delete(&y);
out_doc:
	sky_kvm_free(&doc);
	sky_anchors_free(&anch);
	return rc;
}
