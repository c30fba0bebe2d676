/*
 * testutil.h - shared helpers for the cmocka unit tests: load the data
 * files from the source tree ($GPURENT_ROOT, default "."), build and
 * estimate a workload from "--field value" text.
 */
#ifndef GPURENT_TESTUTIL_H
#define GPURENT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/market/catalog.h"
#include "core/estimate/estimate.h"
#include "core/model/gpu.h"
#include "core/model/model.h"
#include "core/model/workload.h"
#include "base/util.h"

static inline char *tu_read(const char *rel, size_t *len)
{
	const char *root = getenv("GPURENT_ROOT");
	char path[8192];
	FILE *f;
	char *buf;
	long n;

	*len = 0;
	if (rel[0] == '/')
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct gpu_db tu_gdb;
static struct model_db tu_mdb;

static inline int tu_setup(void **state)
{
	size_t len;
	char err[512], *buf;

	(void)state;
	buf = tu_read("data/gpus.csv", &len);
	if (!buf || gpu_db_load(&tu_gdb, buf, len, "data/gpus.csv", err, sizeof(err))) {
		fprintf(stderr, "setup: %s\n", buf ? err : "cannot read data/gpus.csv");
		free(buf);
		return -1;
	}
	free(buf);
	buf = tu_read("data/models.csv", &len);
	if (!buf || model_db_load(&tu_mdb, buf, len, "data/models.csv", err, sizeof(err))) {
		fprintf(stderr, "setup: %s\n", buf ? err : "cannot read data/models.csv");
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

static inline int tu_teardown(void **state)
{
	(void)state;
	gpu_db_free(&tu_gdb);
	model_db_free(&tu_mdb);
	return 0;
}

/*
 * Parse "--field value --flag --no-flag" into w (flags as the CLI takes
 * them), resolve and estimate. Returns 0, or -1 with the message in err.
 */
static inline int tu_estimate_args(const char *args, struct workload *w, struct model_spec *arch,
				   struct estimate *e, char *err, size_t errlen)
{
	char buf[1024], *tok, *save = NULL, *pending = NULL;
	const struct gpu_spec *gpu;
	int bad;

	workload_init(w);
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (pending) {
			if (workload_set(w, pending, tok, 0, err, errlen))
				return -1;
			pending = NULL;
			continue;
		}
		if (strncmp(tok, "--", 2)) {
			snprintf(err, errlen, "bad test arg %s", tok);
			return -1;
		}
		tok += 2;
		{
			int idx = workload_field_index(tok);
			if (idx >= 0 && workload_fields[idx].type == F_BOOL) {
				if (workload_set(w, tok, "true", 0, err, errlen))
					return -1;
			} else if (idx < 0 && !strncmp(tok, "no-", 3)) {
				if (workload_set(w, tok + 3, "false", 0, err, errlen))
					return -1;
			} else {
				pending = tok;
			}
		}
	}
	if (workload_resolve(w, &tu_mdb, &tu_gdb, arch, &gpu, &bad, err, errlen))
		return -1;
	return estimate_run(w, arch, gpu, e, err, errlen);
}

/* Estimate or fail the test. */
static inline void tu_est(const char *args, struct workload *w, struct model_spec *arch,
			  struct estimate *e)
{
	char err[512];

	if (tu_estimate_args(args, w, arch, e, err, sizeof(err))) {
		fprintf(stderr, "estimate %s: %s\n", args, err);
		fail();
	}
}

/* The workload args is refused, its message naming field; else fail. */
static inline void tu_est_refused(const char *args, const char *field)
{
	struct workload w;
	struct model_spec m;
	struct estimate e;
	char err[512];

	if (!tu_estimate_args(args, &w, &m, &e, err, sizeof(err))) {
		fprintf(stderr, "estimate %s: accepted, expected %s refused\n", args, field);
		fail();
	}
	if (!strstr(err, field)) {
		fprintf(stderr, "estimate %s: %s (does not name %s)\n", args, err, field);
		fail();
	}
}

/*
 * A hand-made offer appended to s (grown as needed; the caller frees s->v):
 * provider, instance and gpu borrowed (string literals), the GPU looked up
 * in tu_gdb (its memory, else 80 GB), n GPUs at price_h USD an
 * instance-hour, spot at spot_h (0: none), ai-cloud. Fails the test when
 * out of memory.
 */
static inline struct offer *tu_offer(struct offer_set *s, const char *provider, const char *instance,
				     const char *gpu, double n, double price_h, double spot_h)
{
	struct offer *o;
	void *v = s->v;

	if (util_grow(&v, &s->cap, s->n + 1, sizeof(*s->v)))
		fail_msg("out of memory");
	s->v = v;
	o = &s->v[s->n++];
	memset(o, 0, sizeof(*o));
	o->provider = (struct cat_str){provider, (uint32_t)strlen(provider)};
	o->instance = (struct cat_str){instance, (uint32_t)strlen(instance)};
	o->gpu_name = (struct cat_str){gpu, (uint32_t)strlen(gpu)};
	o->gpu = gpu_db_find(&tu_gdb, gpu);
	o->gpus = n;
	o->gpu_mem = o->gpu ? o->gpu->memory_bytes : 80e9;
	o->price = price_h;
	o->spot_price = spot_h;
	o->supply = SUPPLY_AI_CLOUD;
	return o;
}

/* tu_offer() on demand at 1.0/h, spot 0.5/h, in region, with a host of
 * 16 vCPUs, 64 GiB and 500 GB disk (the task readers' tests). */
static inline struct offer *tu_offer_in(struct offer_set *s, const char *provider, const char *region,
					const char *gpu, double n)
{
	struct offer *o = tu_offer(s, provider, "inst", gpu, n, 1.0, 0.5);

	o->region = (struct cat_str){region, (uint32_t)strlen(region)};
	o->vcpus = 16;
	o->ram_gib = 64;
	o->disk_gb = 500;
	return o;
}

#define assert_near(a, b, rel) do { \
	double a_ = (a), b_ = (b); \
	if (!(b_ == 0 ? a_ == 0 : (a_ - b_) / b_ <= (rel) && (b_ - a_) / b_ <= (rel))) \
		fail_msg("%s = %.6g, expected %.6g within %.1f%%", #a, a_, b_, (rel) * 100); \
} while (0)

#define assert_between(a, lo, hi) do { \
	double a_ = (a); \
	if (!(a_ >= (lo) && a_ <= (hi))) \
		fail_msg("%s = %.6g, expected between %.6g and %.6g", #a, a_, (double)(lo), (double)(hi)); \
} while (0)

#endif
