/*
 * calib.c - a probe from the ledger calibrating an estimate (calib.h;
 * the rules and their limits: docs/formulas.md "Calibrated by a probe").
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/estimate/calib.h"
#include "base/msg.h"
#include "base/out.h"
#include "core/box/envcheck.h"

const char *calib_why(enum calib_skip s)
{
	switch (s) {
	case CALIB_OK: return _("taken from the probe");
	case CALIB_NO_MEMORY: return _("the probe read no GPU memory");
	case CALIB_SMALLER_CARD: return _("the card has less memory than the probed one, whose caching "
					"allocator held more than a smaller card's would");
	case CALIB_SERVING: return _("a serving engine reserves its share of the card at start: the probe "
				   "read the share, not the need");
	case CALIB_NO_GPU: return _("no GPU to scale to, or the probe's GPU is not in the GPU table");
	case CALIB_NO_RATE: return _("the probe has no MFU (or, for decoding, no tokens a second)");
	case CALIB_GPU_COUNT: return _("a decoding probe on another number of GPUs");
	case CALIB_NO_TIME: return _("the estimate computed no time");
	}
	return "?";
}

const char *calib_code(enum calib_skip s)
{
	static const char *const codes[] = {"ok", "no_memory", "smaller_card", "serving",
					    "no_gpu", "no_rate", "gpu_count", "no_time"};

	return (unsigned)s < sizeof(codes) / sizeof(codes[0]) ? codes[s] : "?";
}

char *calib_word_probe(const struct calib *c, char *buf, size_t n)
{
	const struct ledger_probe *p = c->p;
	time_t t = (time_t)floor(p->at);
	struct tm tm;
	char when[32] = "?", gesc[256];

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	/* the GPU's name is the ledger's text: escaped for the terminal (out.h) */
	snprintf(buf, n, _("probe %lld (%s, %dx %s)"), (long long)p->id, when,
		 p->gpu_count > 0 ? p->gpu_count : 1,
		 p->gpu ? out_safe(p->gpu, strlen(p->gpu), gesc, sizeof(gesc)) : "unknown GPU");
	return buf;
}

int calib_load(const char *ledger_path, const char *spec, const struct gpu_db *gdb,
	       const struct workload *w, struct calib *c)
{
	char path[4096], err[1024], word[160], *end;
	struct ledger *l = NULL;
	long long id = -1;
	int rc;

	memset(c, 0, sizeof(*c));
	if (strcmp(spec, "latest")) {
		errno = 0;
		id = strtoll(spec, &end, 10);
		if (!*spec || *end || errno || id < 1)
			return msg_usage(_("--calibrate: expected a probe id (gpurent ledger probes) or "
					 "'latest', got '%s'"), spec);
	}
	if (ledger_path && !*ledger_path)
		return msg_usage(_("--ledger: expected a file path, got ''"));
	if (!ledger_path) {
		if (ledger_default_path(path, sizeof(path), err, sizeof(err)))
			return msg_fail(_("--calibrate: %s"), err);
		ledger_path = path;
	}
	if (access(ledger_path, R_OK))
		return msg_fail(_("--calibrate: %s: no ledger there (%s); gpurent probe records probes in it"),
				ledger_path, strerror(errno));
	if (ledger_open_readonly(ledger_path, &l, err, sizeof(err)))
		return msg_fail(_("--calibrate: %s"), err);
	rc = ledger_probe_get(l, id, &c->rows_, err, sizeof(err));
	ledger_close(l);
	if (rc)
		return msg_fail(_("--calibrate %s: %s"), spec, err);
	c->p = &c->rows_.v[0];
	c->mem_skip = CALIB_NO_MEMORY;   /* until calib_apply() */
	c->time_skip = CALIB_NO_TIME;
	c->est_recommended = -1;
	c->probe_gpu = c->p->gpu ? envcheck_find_gpu(gdb, c->p->gpu, 0) : NULL;
	calib_word_probe(c, word, sizeof(word));
	/* docs/probe.md "Impossible readings": an MFU above 1 is a step faster
	 * than the card's dense peak allows; such a probe teaches nothing */
	if (c->p->mfu > 1) {
		rc = msg_fail(_("--calibrate %s: %s is impossible: its MFU of %.1f%% is above 100%%, steps faster "
				"than the card's dense peak allows (a wrong step count, units a step or GPU); "
				"nothing is calibrated from it"), spec, word, c->p->mfu * 100);
		calib_free(c);
		return rc;
	}
	if (c->p->workload_digest && c->p->workload_digest != workload_digest(w)) {
		c->digest_differs = true;
		if (id < 0) {
			rc = msg_fail(_("--calibrate latest: %s measured another workload (digest %016llx, "
					"this one %016llx); give --calibrate %lld to use it anyway"),
				      word, (unsigned long long)c->p->workload_digest,
				      (unsigned long long)workload_digest(w), (long long)c->p->id);
			calib_free(c);
			return rc;
		}
		msg_warn(_("--calibrate %s: %s measured another workload (digest %016llx, this one %016llx): "
			   "its figures are used as given"), spec, word,
			 (unsigned long long)c->p->workload_digest, (unsigned long long)workload_digest(w));
	}
	return 0;
}

/* The target and the probed GPU are the same card. */
static bool same_gpu(const struct calib *c, const struct gpu_spec *gpu)
{
	return gpu && c->probe_gpu && !strcmp(gpu->name, c->probe_gpu->name);
}

static void apply_memory(struct calib *c, const struct workload *w, const struct gpu_spec *gpu,
			 struct estimate *e)
{
	const struct ledger_probe *p = c->p;
	double probed;

	c->est_total = e->mem.total;
	c->est_recommended = e->recommended;
	c->est_gpu_fits = e->gpu_fits;
	if (!(p->peak_mem > 0) || !isfinite(p->peak_mem)) {
		c->mem_skip = CALIB_NO_MEMORY;
		return;
	}
	if (e->mem.reserved_share > 0) {
		c->mem_skip = CALIB_SERVING;
		return;
	}
	if (!c->probe_gpu) {
		c->mem_skip = CALIB_NO_GPU;
		return;
	}
	probed = c->probe_gpu->memory_bytes;
	c->mem_total = p->peak_mem / (p->gpu_count > 0 ? p->gpu_count : 1);
	/* the tiers at least the probed card's size: the measured figure */
	e->recommended = -1;
	for (int i = 0; i < EST_NTIERS; i++) {
		double cap = e->tiers[i].gb * 1e9;
		if (cap >= probed) {
			e->tiers[i].used = c->mem_total / cap;
			e->tiers[i].fits = c->mem_total <= cap;
		}
		if (e->recommended < 0 && e->tiers[i].used <= 1 - w->headroom)
			e->recommended = i;
	}
	if (gpu && gpu->memory_bytes < probed) {
		c->mem_skip = CALIB_SMALLER_CARD;
		return;
	}
	if (gpu) {
		e->gpu_used = c->mem_total / gpu->memory_bytes;
		e->gpu_fits = c->mem_total <= gpu->memory_bytes;
	}
	c->mem_skip = CALIB_OK;
}

static void apply_time(struct calib *c, const struct workload *w, const struct gpu_spec *gpu,
		       struct estimate *e)
{
	const struct ledger_probe *p = c->p;
	double G = (double)(w->gpus > 0 ? w->gpus : 1);

	c->est_wall_s = e->wall_seconds;
	c->est_mfu = e->mfu;
	c->mfu = p->mfu > 0 && isfinite(p->mfu) ? p->mfu : 0;
	c->memory_bound = w->task == TASK_INFER;
	if (!gpu || !c->probe_gpu) {
		c->time_skip = CALIB_NO_GPU;
		return;
	}
	if (!e->have_time) {
		c->time_skip = CALIB_NO_TIME;
		return;
	}
	if (c->memory_bound) {
		/* decode reads the weights and the KV cache a token: bandwidth-bound */
		double rate = p->units_per_s;
		if (!(rate > 0) || !isfinite(rate) || !(e->decode_tokens_per_second > 0) ||
		    !(c->probe_gpu->mem_bw > 0) || !(gpu->mem_bw > 0)) {
			c->time_skip = CALIB_NO_RATE;
			return;
		}
		if (p->gpu_count > 0 && p->gpu_count != w->gpus) {
			c->time_skip = CALIB_GPU_COUNT;
			return;
		}
		c->scale = same_gpu(c, gpu) ? 1 : gpu->mem_bw / c->probe_gpu->mem_bw;
		e->decode_seconds = e->work / (rate * c->scale);
		e->decode_tokens_per_second = rate * c->scale;
		e->wall_seconds = e->prefill_seconds + e->decode_seconds;
	} else {
		/* compute-bound: the probe's MFU at the target's dense peak */
		double peak = estimate_peak_flops(gpu, w->precision);
		double probed = estimate_peak_flops(c->probe_gpu, w->precision);
		if (!(c->mfu > 0) || !(peak > 0) || !(probed > 0) || !(e->flops_total > 0)) {
			c->time_skip = CALIB_NO_RATE;
			return;
		}
		c->scale = same_gpu(c, gpu) ? 1 : peak / probed;
		e->wall_seconds = e->flops_total / (c->mfu * peak * G);
		e->mfu = c->mfu;
		e->eff_flops = peak * c->mfu;
	}
	c->wall_s = e->wall_seconds;
	e->gpu_hours = e->wall_seconds * G / 3600;
	c->time_skip = CALIB_OK;
}

void calib_apply(struct calib *c, const struct workload *w, const struct gpu_spec *gpu,
		 struct estimate *e)
{
	if (!c->p)
		return;
	apply_memory(c, w, gpu, e);
	apply_time(c, w, gpu, e);
}

bool calib_plan_workload(const struct calib *c, struct workload *w)
{
	char v[32];
	char err[128];

	if (!c->p || w->task == TASK_INFER || !(c->p->mfu > 0) || !(c->p->mfu <= 1))
		return false;
	snprintf(v, sizeof(v), "%.6g", c->p->mfu);
	return !workload_set(w, "mfu", v, 0, err, sizeof(err));
}

void calib_free(struct calib *c)
{
	if (!c)
		return;
	ledger_probe_rows_free(&c->rows_);
	c->p = NULL;
}
