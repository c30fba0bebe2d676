/*
 * cuda.c - libcudart and libcublas loaded through src/os/dl.h (cuda.h): the few
 * prototypes and constants gpurent needs are declared here, no vendor
 * header; the functions are a table of pointers resolved by name. The
 * benchmarks time with CUDA events on the legacy default stream.
 */
/* The loaders' words: translated only where `gpurent env` sets hw_tr (base/i18n.h). */
#define I18N_HOOK hw_tr
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/dl.h"
#include "base/i18n.h"
#include "base/util.h"
#include "hw/cuda.h"
#include "hw/nvml.h"

#include "hw/cuda_abi.h"

/* The CUDA runtime and cuBLAS types: handles are pointers, enums ints.
 * The constants are in cuda_abi.h. */
typedef int cudaError_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;


struct cuda_fns {
	cudaError_t (*runtime_version)(int *);
	cudaError_t (*driver_version)(int *);
	cudaError_t (*device_count)(int *);
	cudaError_t (*set_device)(int);
	cudaError_t (*device_props)(void *, int);
	cudaError_t (*device_attr)(int *, int, int);
	cudaError_t (*pci_bus_id)(char *, int, int);
	cudaError_t (*mem_info)(size_t *, size_t *);
	cudaError_t (*malloc)(void **, size_t);
	cudaError_t (*free)(void *);
	cudaError_t (*malloc_host)(void **, size_t);
	cudaError_t (*free_host)(void *);
	cudaError_t (*memcpy)(void *, const void *, size_t, int);
	cudaError_t (*synchronize)(void);
	cudaError_t (*event_create)(cudaEvent_t *);
	cudaError_t (*event_destroy)(cudaEvent_t);
	cudaError_t (*event_record)(cudaEvent_t, cudaStream_t);
	cudaError_t (*event_synchronize)(cudaEvent_t);
	cudaError_t (*event_elapsed)(float *, cudaEvent_t, cudaEvent_t);
	const char *(*error_string)(cudaError_t);
	const char *(*error_name)(cudaError_t);
};

struct blas_fns {
	cublasStatus_t (*create)(cublasHandle_t *);
	cublasStatus_t (*destroy)(cublasHandle_t);
	cublasStatus_t (*set_math_mode)(cublasHandle_t, int);
	cublasStatus_t (*gemm_ex)(cublasHandle_t, int transa, int transb, int m, int n, int k,
				  const void *alpha, const void *a, int atype, int lda, const void *b,
				  int btype, int ldb, const void *beta, void *c, int ctype, int ldc,
				  int compute, int algo);
	const char *(*status_string)(cublasStatus_t);
};

struct cuda {
	struct dl_lib *rt, *blas;   /* kept loaded until exit: see cuda_close() */
	char rt_lib[160], blas_lib[160], blas_err[256];
	struct cuda_fns f;
	struct blas_fns b;
	cublasHandle_t handle;   /* created on first GEMM, for handle_dev */
	int handle_dev;
	bool too_new;            /* the runtime's major is newer than the driver's */
};

/* MUST list every member of struct cuda_fns / blas_fns once. */
#define F(m) offsetof(struct cuda_fns, m)
static const struct dl_sym rt_syms[] = {
	{{"cudaRuntimeGetVersion"}, F(runtime_version), true},
	{{"cudaDriverGetVersion"}, F(driver_version), true},
	{{"cudaGetDeviceCount"}, F(device_count), true},
	{{"cudaSetDevice"}, F(set_device), true},
	/* CUDA 12 renamed the struct's fill to _v2; CUDA 13 has the plain name again */
	{{"cudaGetDeviceProperties_v2", "cudaGetDeviceProperties"}, F(device_props), false},
	{{"cudaDeviceGetAttribute"}, F(device_attr), true},
	{{"cudaDeviceGetPCIBusId"}, F(pci_bus_id), false},
	{{"cudaMemGetInfo"}, F(mem_info), true},
	{{"cudaMalloc"}, F(malloc), true},
	{{"cudaFree"}, F(free), true},
	{{"cudaMallocHost"}, F(malloc_host), true},
	{{"cudaFreeHost"}, F(free_host), true},
	{{"cudaMemcpy"}, F(memcpy), true},
	{{"cudaDeviceSynchronize"}, F(synchronize), true},
	{{"cudaEventCreate"}, F(event_create), true},
	{{"cudaEventDestroy"}, F(event_destroy), true},
	{{"cudaEventRecord"}, F(event_record), true},
	{{"cudaEventSynchronize"}, F(event_synchronize), true},
	{{"cudaEventElapsedTime"}, F(event_elapsed), true},
	{{"cudaGetErrorString"}, F(error_string), false},
	{{"cudaGetErrorName"}, F(error_name), false},
};
#undef F
#define B(m) offsetof(struct blas_fns, m)
static const struct dl_sym blas_syms[] = {
	{{"cublasCreate_v2"}, B(create), true},
	{{"cublasDestroy_v2"}, B(destroy), true},
	{{"cublasSetMathMode"}, B(set_math_mode), false},
	{{"cublasGemmEx"}, B(gemm_ex), true},
	{{"cublasGetStatusString"}, B(status_string), false},
};
#undef B

/* Newest first; the unversioned names are only in -dev packages. */
static const char *const rt_libs[] = {
	"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so",
	"/usr/local/cuda/lib64/libcudart.so",
};

static void open_blas(struct cuda *c, int rt_major)
{
	char names[3][48];
	const char *list[3];
	size_t nn = 0;

	/* the cuBLAS of the runtime's major version; CUDA 11's is libcublas.so.11 */
	if (rt_major > 0)
		snprintf(names[nn++], sizeof(names[0]), "libcublas.so.%d", rt_major);
	snprintf(names[nn++], sizeof(names[0]), "libcublas.so");
	if (rt_major > 0)
		snprintf(names[nn++], sizeof(names[0]), "/usr/local/cuda/lib64/libcublas.so.%d", rt_major);
	for (size_t i = 0; i < nn; i++)
		list[i] = names[i];
	switch (dl_open(list, nn, blas_syms, ARRAY_SIZE(blas_syms), &c->b, &c->blas, c->blas_err,
			sizeof(c->blas_err))) {
	case 0:
		snprintf(c->blas_lib, sizeof(c->blas_lib), "%s", dl_name(c->blas));
		break;
	case DL_ENOTFOUND:
		snprintf(c->blas_err, sizeof(c->blas_err), "no cuBLAS (%s) on this machine", names[0]);
		break;
	default:   /* "libcublas.so.12 lacks cublasGemmEx", "... cannot be loaded: ..." */
		break;
	}
}

int cuda_open(struct cuda **out, bool blas, char *err, size_t errlen)
{
	struct cuda *c;
	int v = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	if (!(c = calloc(1, sizeof(*c)))) {
		snprintf(err, errlen, _("out of memory loading the CUDA runtime"));
		return -1;
	}
	c->handle_dev = -1;
	/*
	 * The newest runtime the driver runs: a CUDA 13 runtime under a driver
	 * for CUDA 12 fails with cudaErrorInsufficientDriver, while the
	 * libcudart.so.12 beside it would work. A runtime passed over stays
	 * loaded (unloading the CUDA runtime is unsafe, see cuda_close()).
	 */
	for (size_t i = 0; i < ARRAY_SIZE(rt_libs); i++) {
		struct dl_lib *dl;
		struct cuda_fns f;
		int drv = 0, rc;
		char rerr[192];

		if ((rc = dl_open(&rt_libs[i], 1, rt_syms, ARRAY_SIZE(rt_syms), &f, &dl, rerr,
				  sizeof(rerr)))) {
			if (rc != DL_ENOTFOUND && !c->rt)
				snprintf(err, errlen, "%s", rerr);
			continue;
		}
		if (f.runtime_version(&v) != CUDA_SUCCESS_)
			v = 0;
		if (f.driver_version(&drv) != CUDA_SUCCESS_)
			drv = 0;
		/* keep the first usable one; replace it only while it is too new */
		if (c->rt && !(c->too_new && drv > 0 && v / 1000 <= drv / 1000)) {
			dl_keep(dl);
			continue;
		}
		dl_keep(c->rt);
		c->rt = dl;
		c->f = f;
		c->too_new = drv > 0 && v / 1000 > drv / 1000;
		snprintf(c->rt_lib, sizeof(c->rt_lib), "%s", rt_libs[i]);
		if (!c->too_new)
			break;
	}
	if (!c->rt) {
		if (!err[0])
			snprintf(err, errlen, _("no CUDA runtime (libcudart) on this machine"));
		goto out_free;
	}
	if (c->f.runtime_version(&v) != CUDA_SUCCESS_)
		v = 0;
	if (blas)
		open_blas(c, v / 1000);
	else
		snprintf(c->blas_err, sizeof(c->blas_err), "cuBLAS not loaded");
	*out = c;
	return 0;

out_free:
	free(c);
	return -1;
}

void cuda_close(struct cuda *c)
{
	if (!c)
		return;
	if (c->handle)
		c->b.destroy(c->handle);
	dl_keep(c->rt);
	dl_keep(c->blas);
	/* The libraries stay loaded until exit: the CUDA runtime tears itself
	 * down in exit handlers that must still find its code, and cuBLAS
	 * keeps static C++ state that unloading would leak. */
	free(c);
}

const char *cuda_runtime_library(const struct cuda *c)
{
	return c ? c->rt_lib : "";
}

const char *cuda_blas_library(const struct cuda *c)
{
	return c ? c->blas_lib : "";
}

bool cuda_has_blas(const struct cuda *c)
{
	return c && c->blas;
}

const char *cuda_blas_error(const struct cuda *c)
{
	return c ? c->blas_err : "no CUDA runtime";
}

int cuda_runtime_version(const struct cuda *c)
{
	int v;

	return c && c->f.runtime_version(&v) == CUDA_SUCCESS_ ? v : -1;
}

int cuda_driver_version(const struct cuda *c)
{
	int v;

	return c && c->f.driver_version(&v) == CUDA_SUCCESS_ ? v : -1;
}

/* "cudaErrorInsufficientDriver: CUDA driver version is insufficient ..." into buf. */
static const char *cuda_strerror(const struct cuda *c, cudaError_t e, char *buf, size_t n)
{
	const char *name = c->f.error_name ? c->f.error_name(e) : NULL;
	const char *str = c->f.error_string ? c->f.error_string(e) : NULL;

	if (name && str)
		snprintf(buf, n, "%s: %s", name, str);
	else
		snprintf(buf, n, "CUDA error %d", e);
	return buf;
}

/* Call a CUDA function; on failure fill err with what and the error, goto label. */
#define CK(call, what, label) do { \
	cudaError_t e_ = (call); \
	if (e_ != CUDA_SUCCESS_) { \
		char eb_[160]; \
		snprintf(err, errlen, "%s: %s", (what), cuda_strerror(c, e_, eb_, sizeof(eb_))); \
		goto label; \
	} \
} while (0)

int cuda_device_count(const struct cuda *c, char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e;
	char eb[160];

	if (!c) {
		snprintf(err, errlen, _("no CUDA runtime"));
		return 0;
	}
	if ((e = c->f.device_count(&n)) != CUDA_SUCCESS_) {
		snprintf(err, errlen, _("no usable CUDA device (%s)"), cuda_strerror(c, e, eb, sizeof(eb)));
		return 0;
	}
	if (n <= 0)
		snprintf(err, errlen, _("no CUDA device"));
	return n > 0 ? n : 0;
}

int cuda_device_describe(const struct cuda *c, int dev, char *name, size_t namelen,
			 int *cc_major, int *cc_minor, size_t *mem_free, size_t *mem_total,
			 char *err, size_t errlen)
{
	char *prop = NULL;

	if (namelen)
		name[0] = '\0';
	*cc_major = *cc_minor = -1;
	*mem_free = *mem_total = 0;
	CK(c->f.set_device(dev), "cudaSetDevice", out_fail);
	CK(c->f.device_attr(cc_major, CUDA_ATTR_CC_MAJOR, dev), "cudaDeviceGetAttribute", out_fail);
	CK(c->f.device_attr(cc_minor, CUDA_ATTR_CC_MINOR, dev), "cudaDeviceGetAttribute", out_fail);
	CK(c->f.mem_info(mem_free, mem_total), "cudaMemGetInfo", out_fail);
	if (c->f.device_props && (prop = calloc(1, CUDA_PROP_BYTES))) {
		if (c->f.device_props(prop, dev) == CUDA_SUCCESS_) {
			prop[255] = '\0';   /* name[256] */
			snprintf(name, namelen, "%s", prop);
		}
		free(prop);
	}
	return 0;
out_fail:
	return -1;
}

int cuda_device_pci_bus_id(const struct cuda *c, int dev, char *buf, size_t n)
{
	char id[64] = "";

	if (n)
		buf[0] = '\0';
	if (!c || !c->f.pci_bus_id || c->f.pci_bus_id(id, (int)sizeof(id), dev) != CUDA_SUCCESS_)
		return -1;
	id[sizeof(id) - 1] = '\0';
	snprintf(buf, n, "%s", id);
	return 0;
}

const char *cuda_gemm_name(enum cuda_gemm_type t)
{
	switch (t) {
	case CUDA_GEMM_FP32: return "fp32";
	case CUDA_GEMM_FP16: return "fp16";
	case CUDA_GEMM_BF16: return "bf16";
	}
	return "?";
}

/* ---- benchmarks ---- */

/* splitmix64: reproducible inputs. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/*
 * Fill `bytes` of device memory at dst with random finite values of type
 * t in +-[1/16, 1): a host tile copied over and over. Zeros would run
 * cooler (and faster) than real data.
 */
static int fill_random(struct cuda *c, void *dst, size_t bytes, enum cuda_gemm_type t,
		       char *err, size_t errlen)
{
	const size_t tile = 4u << 20;
	uint64_t seed = 42 + (uint64_t)t;
	unsigned char *h = malloc(tile);
	int rc = -1;

	if (!h) {
		snprintf(err, errlen, "out of host memory");
		return -1;
	}
	if (t == CUDA_GEMM_FP32) {
		float *p = (float *)(void *)h;
		for (size_t i = 0; i < tile / sizeof(float); i++) {
			uint64_t r = mix(&seed);
			float v = (float)((r >> 40) % 15000 + 1000) / 16000.0f;
			p[i] = (r & 1) ? -v : v;
		}
	} else {
		uint16_t *p = (uint16_t *)(void *)h;
		for (size_t i = 0; i < tile / 2; i++) {
			uint64_t r = mix(&seed);
			unsigned sign = (unsigned)(r & 1) << 15;
			unsigned e = 11 + (unsigned)((r >> 1) & 3);     /* fp16: 2^-4 .. 2^-1 */
			if (t == CUDA_GEMM_FP16)
				p[i] = (uint16_t)(sign | e << 10 | ((r >> 8) & 0x3ff));
			else                                            /* bf16: bias 127 */
				p[i] = (uint16_t)(sign | (e + 112) << 7 | ((r >> 8) & 0x7f));
		}
	}
	for (size_t off = 0; off < bytes; off += tile) {
		size_t n = bytes - off < tile ? bytes - off : tile;
		CK(c->f.memcpy((char *)dst + off, h, n, CUDA_MEMCPY_H2D), "cudaMemcpy (fill)", out_free);
	}
	rc = 0;
out_free:
	free(h);
	return rc;
}

/* Events around a region of work on the default stream. */
struct timer {
	cudaEvent_t start, stop;
};

static int ev_timer_open(struct cuda *c, struct timer *t, char *err, size_t errlen)
{
	t->start = t->stop = NULL;
	CK(c->f.event_create(&t->start), "cudaEventCreate", out_fail);
	CK(c->f.event_create(&t->stop), "cudaEventCreate", out_destroy);
	return 0;
out_destroy:
	c->f.event_destroy(t->start);
	t->start = NULL;
out_fail:
	return -1;
}

static void ev_timer_close(struct cuda *c, struct timer *t)
{
	if (t->stop)
		c->f.event_destroy(t->stop);
	if (t->start)
		c->f.event_destroy(t->start);
}

/* Seconds between the events, after waiting for the stop one. */
static int ev_timer_seconds(struct cuda *c, struct timer *t, double *s, char *err, size_t errlen)
{
	float ms = 0;

	CK(c->f.event_synchronize(t->stop), "waiting for the GPU", out_fail);
	CK(c->f.event_elapsed(&ms, t->start, t->stop), "cudaEventElapsedTime", out_fail);
	*s = ms / 1e3;
	return 0;
out_fail:
	return -1;
}

/* Repetitions that fill budget_s given one took `one` seconds: 3 to 1000. */
static int reps_for(double budget_s, double one)
{
	double n = one > 0 ? budget_s / one : 1000;

	return n < 3 ? 3 : n > 1000 ? 1000 : (int)n;
}

static int gemm_once(struct cuda *c, enum cuda_gemm_type t, int n, void *a, void *b, void *d,
		     char *err, size_t errlen)
{
	static const float one = 1.0f, zero = 0.0f;
	int dt = t == CUDA_GEMM_FP32 ? CUDA_DT_R_32F : t == CUDA_GEMM_FP16 ? CUDA_DT_R_16F :
		 CUDA_DT_R_16BF;
	cublasStatus_t s;

	/* column-major C = 1 * A B + 0 * C; FP32 compute: alpha/beta are floats */
	s = c->b.gemm_ex(c->handle, CUDA_BLAS_OP_N, CUDA_BLAS_OP_N, n, n, n, &one, a, dt, n, b, dt, n,
			 &zero, d, dt, n, CUDA_BLAS_COMPUTE_32F, CUDA_BLAS_GEMM_DEFAULT);
	if (s != CUDA_BLAS_STATUS_SUCCESS) {
		const char *msg = c->b.status_string ? c->b.status_string(s) : NULL;
		snprintf(err, errlen, "cublasGemmEx (%s, n=%d): %s (status %d)", cuda_gemm_name(t), n,
			 msg ? msg : "failed", s);
		return -1;
	}
	return 0;
}

int cuda_bench_gemm(struct cuda *c, int dev, enum cuda_gemm_type t, int n, double budget_s,
		    struct cuda_measure *out, char *err, size_t errlen)
{
	size_t el = t == CUDA_GEMM_FP32 ? 4 : 2, bytes = (size_t)n * (size_t)n * el;
	void *a = NULL, *b = NULL, *d = NULL;
	struct timer tm = {NULL, NULL};
	double one, s;
	int reps, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!c->blas) {
		snprintf(err, errlen, "%s", c->blas_err);
		return -1;
	}
	CK(c->f.set_device(dev), "cudaSetDevice", out_fail);
	if (c->handle && c->handle_dev != dev) {
		c->b.destroy(c->handle);
		c->handle = NULL;
	}
	if (!c->handle) {
		cublasStatus_t st = c->b.create(&c->handle);
		if (st != CUDA_BLAS_STATUS_SUCCESS) {
			c->handle = NULL;
			snprintf(err, errlen, "cublasCreate: status %d", st);
			goto out_fail;
		}
		c->handle_dev = dev;
		if (c->b.set_math_mode)
			c->b.set_math_mode(c->handle, CUDA_BLAS_DEFAULT_MATH);
	}
	CK(c->f.malloc(&a, bytes), "cudaMalloc (A)", out_fail);
	CK(c->f.malloc(&b, bytes), "cudaMalloc (B)", out_free_a);
	CK(c->f.malloc(&d, bytes), "cudaMalloc (C)", out_free_b);
	if (fill_random(c, a, bytes, t, err, errlen) || fill_random(c, b, bytes, t, err, errlen) ||
	    ev_timer_open(c, &tm, err, errlen))
		goto out_free_d;
	/* warm-up: loads the kernel, lets cuBLAS pick it, wakes the clocks */
	if (gemm_once(c, t, n, a, b, d, err, errlen))
		goto out_timer;
	CK(c->f.synchronize(), "warm-up GEMM", out_timer);
	CK(c->f.event_record(tm.start, NULL), "cudaEventRecord", out_timer);
	if (gemm_once(c, t, n, a, b, d, err, errlen))
		goto out_timer;
	CK(c->f.event_record(tm.stop, NULL), "cudaEventRecord", out_timer);
	if (ev_timer_seconds(c, &tm, &one, err, errlen))
		goto out_timer;
	reps = reps_for(budget_s, one);
	CK(c->f.event_record(tm.start, NULL), "cudaEventRecord", out_timer);
	for (int i = 0; i < reps; i++)
		if (gemm_once(c, t, n, a, b, d, err, errlen))
			goto out_timer;
	CK(c->f.event_record(tm.stop, NULL), "cudaEventRecord", out_timer);
	if (ev_timer_seconds(c, &tm, &s, err, errlen))
		goto out_timer;
	out->seconds = s;
	out->iters = reps;
	out->size = (size_t)n;
	out->value = s > 0 ? 2.0 * (double)n * (double)n * (double)n * reps / s : 0;
	rc = 0;
out_timer:
	ev_timer_close(c, &tm);
out_free_d:
	c->f.free(d);
out_free_b:
	c->f.free(b);
out_free_a:
	c->f.free(a);
out_fail:
	return rc;
}

/* Time reps of one cudaMemcpy after a warm-up; *s seconds for reps copies. */
static int time_copies(struct cuda *c, void *dst, const void *src, size_t bytes, int kind,
		       double budget_s, int *reps, double *s, char *err, size_t errlen)
{
	struct timer tm;
	double one;
	int rc = -1;

	if (ev_timer_open(c, &tm, err, errlen))
		return -1;
	CK(c->f.memcpy(dst, src, bytes, kind), "cudaMemcpy (warm-up)", out_timer);
	CK(c->f.synchronize(), "cudaMemcpy (warm-up)", out_timer);
	CK(c->f.event_record(tm.start, NULL), "cudaEventRecord", out_timer);
	CK(c->f.memcpy(dst, src, bytes, kind), "cudaMemcpy", out_timer);
	CK(c->f.event_record(tm.stop, NULL), "cudaEventRecord", out_timer);
	if (ev_timer_seconds(c, &tm, &one, err, errlen))
		goto out_timer;
	*reps = reps_for(budget_s, one);
	CK(c->f.event_record(tm.start, NULL), "cudaEventRecord", out_timer);
	for (int i = 0; i < *reps; i++)
		CK(c->f.memcpy(dst, src, bytes, kind), "cudaMemcpy", out_timer);
	CK(c->f.event_record(tm.stop, NULL), "cudaEventRecord", out_timer);
	if (ev_timer_seconds(c, &tm, s, err, errlen))
		goto out_timer;
	rc = 0;
out_timer:
	ev_timer_close(c, &tm);
	return rc;
}

int cuda_bench_d2d(struct cuda *c, int dev, size_t bytes, double budget_s,
		   struct cuda_measure *out, char *err, size_t errlen)
{
	void *a = NULL, *b = NULL;
	double s;
	int reps, rc = -1;

	memset(out, 0, sizeof(*out));
	CK(c->f.set_device(dev), "cudaSetDevice", out_fail);
	CK(c->f.malloc(&a, bytes), "cudaMalloc", out_fail);
	CK(c->f.malloc(&b, bytes), "cudaMalloc", out_free_a);
	if (fill_random(c, a, bytes, CUDA_GEMM_FP32, err, errlen) ||
	    time_copies(c, b, a, bytes, CUDA_MEMCPY_D2D, budget_s, &reps, &s, err, errlen))
		goto out_free_b;
	out->seconds = s;
	out->iters = reps;
	out->size = bytes;
	out->value = s > 0 ? 2.0 * (double)bytes * reps / s : 0;   /* read + write */
	rc = 0;
out_free_b:
	c->f.free(b);
out_free_a:
	c->f.free(a);
out_fail:
	return rc;
}

int cuda_bench_host(struct cuda *c, int dev, size_t bytes, double budget_s,
		    struct cuda_measure *h2d, struct cuda_measure *d2h, char *err, size_t errlen)
{
	void *host = NULL, *d = NULL;
	double s;
	int reps, rc = -1;

	memset(h2d, 0, sizeof(*h2d));
	memset(d2h, 0, sizeof(*d2h));
	CK(c->f.set_device(dev), "cudaSetDevice", out_fail);
	CK(c->f.malloc_host(&host, bytes), "cudaMallocHost (pinned)", out_fail);
	CK(c->f.malloc(&d, bytes), "cudaMalloc", out_free_host);
	memset(host, 0x5a, bytes);
	if (time_copies(c, d, host, bytes, CUDA_MEMCPY_H2D, budget_s, &reps, &s, err, errlen))
		goto out_free_d;
	h2d->seconds = s;
	h2d->iters = reps;
	h2d->size = bytes;
	h2d->value = s > 0 ? (double)bytes * reps / s : 0;
	if (time_copies(c, host, d, bytes, CUDA_MEMCPY_D2H, budget_s, &reps, &s, err, errlen))
		goto out_free_d;
	d2h->seconds = s;
	d2h->iters = reps;
	d2h->size = bytes;
	d2h->value = s > 0 ? (double)bytes * reps / s : 0;
	rc = 0;
out_free_d:
	c->f.free(d);
out_free_host:
	c->f.free_host(host);
out_fail:
	return rc;
}
