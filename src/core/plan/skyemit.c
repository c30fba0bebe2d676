/*
 * skyemit.c - a SkyPilot task for a planned choice (skyemit.h). The
 * fields and their forms follow SkyPilot's yaml-spec.rst (the commit
 * docs/interop.md cites): resources.accelerators NAME:COUNT,
 * use_spot, infra CLOUD/REGION[/ZONE], disk_size in GB, autostop
 * {idle_minutes, down}, job_recovery {strategy}; num_nodes; envs.
 * Text from the user's task is written double-quoted with escapes, or as
 * a literal block where every character is one YAML reads as it is (no
 * U+0085, U+2028, U+2029: YAML line breaks), so that it reads back the same.
 */
#include "core/plan/skyemit.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/quote.h"
#include "core/text/units.h"
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

/* A YAML double-quoted scalar of s[0..n): \" \\, \xNN for the C0 and C1
 * controls, \N \L \P for the line breaks U+0085, U+2028, U+2029 (raw,
 * they would be folded), \uXXXX for the byte order mark and U+FFFE/FFFF;
 * other UTF-8 passes through. A byte that is no UTF-8 (a catalog's text)
 * becomes U+FFFD: YAML holds code points, not bytes. */
static void put_quoted(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = quote_utf8_at(u + i, n - i, &cp);
		if (!len) {
			fputs("\\uFFFD", f);
			i++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp == 0x85)
			fputs("\\N", f);
		else if (cp == 0x2028)
			fputs("\\L", f);
		else if (cp == 0x2029)
			fputs("\\P", f);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			fprintf(f, "\\x%02x", (unsigned)cp);
		else if (!yaml_plain_char(cp))
			fprintf(f, "\\u%04X", (unsigned)cp);
		else
			fwrite(u + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

static void put_quoted_cs(FILE *f, const struct cat_str *s)
{
	put_quoted(f, s->p, s->len);
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

/* Lines of text, each indented by ind spaces. */
static void put_block_lines(FILE *f, const char *t, int ind)
{
	const char *p = t;

	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n)
			fprintf(f, "%*s%.*s\n", ind, "", (int)n, p);
		else
			fputc('\n', f);
		p += n;
		if (*p == '\n')
			p++;
	}
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

int sky_emit_write(FILE *f, const struct sky_emit *e)
{
	const struct plan_choice *c = e->c;
	const struct offer *o = c->offer;
	const struct sky_res *want = e->doc && e->doc->ncand ? &e->doc->cand[0] : NULL;
	const char *cloud = sky_emit_cloud(o);
	double nodes = c->nodes > 1 ? c->nodes : 1;
	double ckpt_bytes = c->ckpt_write_s * e->po->ckpt_write_bw, disk_gb, rate, budget, runtime;
	double idle_s, stall_s;
	bool spot = c->mode == PLAN_SPOT, resumable = e->w->resumable;
	char a[64], b[64], delim[32], guard[512];
	const char *run;
	bool run_env;
	long idle_min;

	/* the plan's stop limits (planwords.c's checklist: 1.2x the finish; the
	 * budget, else stop_multiple x the expected cost) */
	runtime = c->wall_s * 1.2;
	budget = e->po->budget_usd > 0 ? e->po->budget_usd : c->cost.total * e->po->stop_multiple;
	rate = (spot ? o->spot_price : o->price);
	idle_s = fmax(SKY_EMIT_IDLE_MIN_S, 2 * c->ckpt_write_s);
	stall_s = fmax(SKY_EMIT_STALL_MIN_S, 2 * c->ckpt_write_s);
	idle_min = minutes(idle_s);
	if (want && want->autostop_idle_min > 0)
		idle_min = (long)ceil(want->autostop_idle_min);
	/* data, the newest complete checkpoint and the one being written, and
	 * the system; SkyPilot's default when that is less */
	disk_gb = want && want->disk_gb > 0 ? want->disk_gb :
		  fmax(SKY_EMIT_DISK_DEFAULT_GB, ceil((e->w->data_size + 2 * ckpt_bytes) / 1e9) +
		       SKY_EMIT_DISK_SYSTEM_GB);

	fprintf(f, "# SkyPilot task written by gpurent plan --emit sky (docs/interop.md)\n");
	fprintf(f, "# for choice #%d: ", e->rank);
	put_comment_text(f, o->provider.p, o->provider.len);
	fputc(' ', f);
	put_comment_text(f, o->instance.p, o->instance.len);
	if (o->region.len) {
		fprintf(f, " in ");
		put_comment_text(f, o->region.p, o->region.len);
	}
	fprintf(f, ", %s, expected %.2f %s, done in %s\n", spot ? "spot" : "on demand",
		c->cost.total / e->usd_per_unit, e->code, units_fmt_duration(c->wall_s, a, sizeof(a)));
	if (!cloud)
		fprintf(f, "# (not a SkyPilot cloud: infra is left out; pick the cloud yourself)\n");
	if (e->doc && e->doc->name[0]) {
		fprintf(f, "name: ");
		put_quoted(f, e->doc->name, strlen(e->doc->name));
		fputc('\n', f);
	}
	if (nodes > 1)
		fprintf(f, "num_nodes: %.0f\n", nodes);
	fprintf(f, "\nresources:\n");
	fprintf(f, "  accelerators: ");
	{
		/* per node: the offer's own GPUs, a fraction for a slice (L4:0.5) */
		char acc[128];
		snprintf(acc, sizeof(acc), "%.*s:%g", (int)o->gpu_name.len, o->gpu_name.p, o->gpus);
		put_quoted(f, acc, strlen(acc));
	}
	fputc('\n', f);
	fprintf(f, "  use_spot: %s\n", spot ? "true" : "false");
	if (cloud) {
		char infra[256];
		snprintf(infra, sizeof(infra), "%s%s%.*s%s%.*s", cloud, o->region.len ? "/" : "",
				 (int)o->region.len, o->region.p, o->region.len && o->zone.len ? "/" : "",
				 o->region.len ? (int)o->zone.len : 0, o->zone.p ? o->zone.p : "");
		fprintf(f, "  infra: ");
		put_quoted(f, infra, strlen(infra));
		fputc('\n', f);
		if (o->instance.len && o->host.len == 0) {
			fprintf(f, "  instance_type: ");
			put_quoted_cs(f, &o->instance);
			fputc('\n', f);
		}
	}
	fprintf(f, "  disk_size: %.0f\n", disk_gb);
	if (want && want->disk_tier[0])
		fprintf(f, "  disk_tier: %s\n", want->disk_tier);
	/* autodown: nothing of the job lives on the box once it ends (the
	 * checkpoints are in SKY_EMIT_CKPT_DIR, on storage you mount) */
	fprintf(f, "  autostop:\n    idle_minutes: %ld\n    down: true\n", idle_min);
	if (spot)
		/* a preempted spot job comes back on a new instance and resumes
		 * from the newest complete checkpoint (`sky jobs launch`) */
		fprintf(f, "  job_recovery:\n    strategy: FAILOVER\n");

	run = e->run_text && *e->run_text ? e->run_text : NULL;
	run_env = run && !block_chars_ok(run);   /* not printable as a block: an env holds it */
	if ((e->doc && e->doc->nenv) || run_env) {
		fprintf(f, "\nenvs:\n");
		for (size_t i = 0; e->doc && i < e->doc->nenv; i++) {
			fprintf(f, "  ");
			put_quoted(f, e->doc->env[i].key, strlen(e->doc->env[i].key));
			fprintf(f, ": ");
			put_quoted(f, e->doc->env[i].value, strlen(e->doc->env[i].value));
			fputc('\n', f);
		}
		if (run_env) {
			fprintf(f, "  GPURENT_JOB: ");   /* the task's run: script */
			put_quoted(f, run, strlen(run));
			fputc('\n', f);
		}
	}
	if (e->doc && (e->doc->has_workdir || e->doc->has_file_mounts))
		fprintf(f, "\n# Your task's %s%s%s: copy them here (gpurent reads them, it does not rewrite them).\n",
			e->doc->has_workdir ? "workdir" : "", e->doc->has_workdir && e->doc->has_file_mounts ? " and " : "",
			e->doc->has_file_mounts ? "file_mounts" : "");
	else
		fprintf(f, "\n# Your code and data: gpurent does not know where they live.\n");
	fprintf(f, "# workdir: .\n");
	fprintf(f, "# file_mounts:\n");
	fprintf(f, "#   %s:\n#     source: s3://YOUR-BUCKET/checkpoints   # persistent: a restart resumes\n",
		SKY_EMIT_CKPT_DIR);
	fprintf(f, "#     mode: MOUNT\n");
	if (e->setup_text && block_ok(e->setup_text)) {
		size_t sl = strlen(e->setup_text);
		fprintf(f, "\nsetup: |%s\n", e->setup_text[sl - 1] == '\n' ? "" : "-");
		put_block_lines(f, e->setup_text, 2);
	} else if (e->setup_text && *e->setup_text) {
		fprintf(f, "\nsetup: ");
		put_quoted(f, e->setup_text, strlen(e->setup_text));
		fputc('\n', f);
	} else {
		fprintf(f, "\n# setup: install your environment, and gpurent (README.md)\n");
	}

	money(a, sizeof(a), rate * 1.0, e);
	money(b, sizeof(b), budget / nodes, e);
	fprintf(f, "\n# gpurent run stops the box when the job ends, idles %ld min or prints nothing for\n"
		   "# %ld min, after 1.2x the planned time, or at the budget%s\n",
		idle_min, minutes(stall_s), nodes > 1 ? " (on each node: its share of it)" : "");
	fprintf(f, "run: |\n");
	snprintf(guard, sizeof(guard), "gpurent run --max-runtime %ldm --idle %ldm --stall %ldm --price %s --budget %s%s%s",
		 minutes(runtime), idle_min, minutes(stall_s), a, b,
		 resumable || spot ? " --ckpt-dir " : "", resumable || spot ? SKY_EMIT_CKPT_DIR : "");
	if (run && !run_env) {
		delimiter(run, delim, sizeof(delim));
		fprintf(f, "  cat > /tmp/gpurent-job.sh <<'%s'\n", delim);
		put_block_lines(f, run, 2);
		fprintf(f, "  %s\n", delim);
		fprintf(f, "  %s -- bash /tmp/gpurent-job.sh\n", guard);
	} else if (run) {
		fprintf(f, "  printf '%%s\\n' \"$GPURENT_JOB\" > /tmp/gpurent-job.sh\n");
		fprintf(f, "  %s -- bash /tmp/gpurent-job.sh\n", guard);
	} else {
		fprintf(f, "  %s -- python train.py   # your command\n", guard);
	}
	return ferror(f) ? -1 : 0;
}
