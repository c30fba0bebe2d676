/*
 * fuzz.h - what every tests/fuzz/fuzz_<name>.c harness shares: the
 * libFuzzer entry point's prototype, the invariant check that aborts, and
 * the data files embedded in the build (build/embedded.c, tools/embed.c).
 */
#ifndef GPURENT_FUZZ_H
#define GPURENT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/market/catalog.h"
#include "core/model/gpu.h"
#include "core/model/model.h"

/* Called by libFuzzer, or by tests/fuzz/replay.c once per file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * An invariant the code's documentation promises. FUZZ_STRICT builds also
 * check the ones that fire on known, not yet fixed bugs (see
 * CONTRIBUTING.md "Fuzzing"); they are written FUZZ_STRICT_CHECK.
 */
#define FUZZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: fuzz invariant violated: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)
#ifdef FUZZ_STRICT
#define FUZZ_STRICT_CHECK(cond) FUZZ_CHECK(cond)
#else
#define FUZZ_STRICT_CHECK(cond) ((void)sizeof(cond))   /* not evaluated */
/* A loader's error "FNAME:LINE: column: ..." (csv.h, gpu.h, ...); one line
 * as CONTRIBUTING.md asks, but a quoted field with a newline is echoed as
 * it is (tests/fuzz/pending/), hence strict. */
#define FUZZ_CHECK_LOAD_ERR(err, fname) do { \
	FUZZ_CHECK(!strncmp((err), (fname), strlen(fname))); \
	FUZZ_STRICT_CHECK(fuzz_one_line(err)); \
} while (0)

#endif

/* Where harnesses sum bytes they read only to prove them readable. */
extern unsigned fuzz_sink;

/* build/embedded.c: the data files (data/NAME.csv), by base name, NULL-terminated. */
struct embedded_file { const char *name; const char *data; size_t len; };
extern const struct embedded_file embedded_files[];

/* The embedded data file name (its length in *len); aborts when absent. */
static inline const char *fuzz_data_file(const char *name, size_t *len)
{
	for (const struct embedded_file *f = embedded_files; f->name; f++)
		if (!strcmp(f->name, name)) {
			*len = f->len;
			return f->data;
		}
	fprintf(stderr, "fuzz: %s is not embedded\n", name);
	abort();
}

/* data/gpus.csv and data/models.csv as loaded once (kept until exit). */
static inline const struct gpu_db *fuzz_gpu_db(void)
{
	static struct gpu_db db;
	static int loaded;
	char err[512];
	size_t len;
	const char *buf;

	if (!loaded) {
		buf = fuzz_data_file("gpus.csv", &len);
		if (gpu_db_load(&db, buf, len, "gpus.csv", err, sizeof(err))) {
			fprintf(stderr, "fuzz: %s\n", err);
			abort();
		}
		loaded = 1;
	}
	return &db;
}

static inline const struct model_db *fuzz_model_db(void)
{
	static struct model_db db;
	static int loaded;
	char err[512];
	size_t len;
	const char *buf;

	if (!loaded) {
		buf = fuzz_data_file("models.csv", &len);
		if (model_db_load(&db, buf, len, "models.csv", err, sizeof(err))) {
			fprintf(stderr, "fuzz: %s\n", err);
			abort();
		}
		loaded = 1;
	}
	return &db;
}

/* data/offers.csv (prices in USD and CNY) as an offer set loaded once. */
static inline const struct offer_set *fuzz_offers(void)
{
	static struct currency rate_v[] = {{.code = "USD", .usd = 1}, {.code = "CNY", .usd = 0.1389}};
	static const struct currency_table rates = {rate_v, 2, 2};
	static struct offer_set s;
	static int loaded;
	struct catalog_opts o = {.gpus = NULL, .currencies = &rates};
	char err[512];
	size_t len;
	const char *buf;

	if (!loaded) {
		o.gpus = fuzz_gpu_db();
		buf = fuzz_data_file("offers.csv", &len);
		offer_set_init(&s);
		if (catalog_load(&s, buf, len, false, "offers.csv", &o, err, sizeof(err)) || !s.n) {
			fprintf(stderr, "fuzz: offers.csv: %s\n", err);
			abort();
		}
		loaded = 1;
	}
	return &s;
}

/* One aws p4d.24xlarge in us-east-1, 8 A100s, its host, on demand 32/h:
 * what the task readers' harnesses match every candidate against. */
static inline void fuzz_offer_p4d(struct offer *o)
{
	static const char prov[] = "aws", inst[] = "p4d.24xlarge", region[] = "us-east-1", gpu[] = "A100";

	memset(o, 0, sizeof(*o));
	o->provider = (struct cat_str){prov, sizeof(prov) - 1};
	o->instance = (struct cat_str){inst, sizeof(inst) - 1};
	o->region = (struct cat_str){region, sizeof(region) - 1};
	o->gpu_name = (struct cat_str){gpu, sizeof(gpu) - 1};
	o->gpu = gpu_db_find(fuzz_gpu_db(), gpu);
	o->gpu_mem = o->gpu ? o->gpu->memory_bytes : 40e9;
	o->gpus = 8;
	o->vcpus = 96;
	o->ram_gib = 1152;
	o->disk_gb = 8000;
	o->price = 32;
}

/* data[0..size) as a NUL-terminated string the caller frees (it stops at
 * the first NUL the input holds, as a C string would). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An error message is one non-empty line. */
static inline int fuzz_one_line(const char *err)
{
	return err[0] && !strchr(err, '\n');
}

/* A loader's error "FNAME:LINE: column: ..." (csv.h, gpu.h, ...); one line
 * as CONTRIBUTING.md asks, but a quoted field with a newline is echoed as
 * it is (tests/fuzz/pending/), hence strict. */
#define FUZZ_CHECK_LOAD_ERR(err, fname) do { \
	FUZZ_CHECK(!strncmp((err), (fname), strlen(fname))); \
	FUZZ_STRICT_CHECK(fuzz_one_line(err)); \
} while (0)

#endif
