/*
 * fake_cuda.c - a stand-in libcudart.so.13 that is also libcublas.so.13 (one
 * file, two names), for tests/cli/env.sh: `gpurent bench` walks its whole
 * GPU path on a machine without a GPU. Device memory is host memory
 * (malloc, so ASan sees overruns); copies and GEMMs touch the first and
 * last byte of every buffer instead of moving data, and advance a virtual
 * clock by what they would take at the scripted rates, so the measured
 * figures are known in advance:
 *
 *   FAKE_CUDA_DEVICES   device count (default 1; 0: cudaErrorNoDevice)
 *   FAKE_CUDA_NAME      device name (default "NVIDIA H100 80GB HBM3")
 *   FAKE_CUDA_CC        compute capability (default 9.0)
 *   FAKE_CUDA_FREE_MIB  free device memory (default 512)
 *   GEMM: 500 TFLOP/s in fp16/bf16, 50 in fp32; device copy 3000 GB/s
 *   (read + write); host<->device 50 GB/s each way.
 *
 * It checks what a real CUDA would reject: unknown enum values, a GEMM or
 * copy on freed or too-small buffers, events never created. At exit it
 * reports allocations that were never freed ("fake_cuda: N leaked").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OK 0
#define E_VALUE 1            /* cudaErrorInvalidValue */
#define E_NODEV 100          /* cudaErrorNoDevice */
#define E_DEVICE 101         /* cudaErrorInvalidDevice */
#define B_INVALID 7          /* CUBLAS_STATUS_INVALID_VALUE */

#define MAXALLOC 256

static double vclock;        /* seconds of virtual device time */
static struct { void *p; size_t n; int host; } allocs[MAXALLOC];
static int live;

static int env_int(const char *k, int dflt)
{
	const char *v = getenv(k);

	return v && *v ? atoi(v) : dflt;
}

static int track(void *p, size_t n, int host)
{
	for (int i = 0; i < MAXALLOC; i++)
		if (!allocs[i].p) {
			allocs[i].p = p, allocs[i].n = n, allocs[i].host = host;
			live++;
			return 0;
		}
	return -1;
}

static int untrack(void *p, int host)
{
	for (int i = 0; i < MAXALLOC; i++)
		if (allocs[i].p == p && allocs[i].host == host) {
			allocs[i].p = NULL;
			live--;
			return 0;
		}
	return -1;
}

/* The allocation holding [p, p+n), or -1. */
static int inside(const void *p, size_t n)
{
	for (int i = 0; i < MAXALLOC; i++) {
		const char *a = allocs[i].p;
		if (a && (const char *)p >= a && (const char *)p + n <= a + allocs[i].n)
			return i;
	}
	return -1;
}

/* Touch both ends of a buffer: ASan stops on an overrun, a wrong size fails. */
static int touch(const void *p, size_t n)
{
	volatile const char *c = p;
	char x;

	if (!p || !n)
		return -1;
	x = c[0];
	x = (char)(x + c[n - 1]);
	(void)x;
	return 0;
}

__attribute__((destructor)) static void report(void)
{
	if (live)
		fprintf(stderr, "fake_cuda: %d allocations leaked\n", live);
}

/* ---- the runtime ---- */

int cudaRuntimeGetVersion(int *v) { *v = 13000; return OK; }
int cudaDriverGetVersion(int *v) { *v = 13000; return OK; }

int cudaGetDeviceCount(int *n)
{
	*n = env_int("FAKE_CUDA_DEVICES", 1);
	return *n > 0 ? OK : E_NODEV;
}

int cudaSetDevice(int d)
{
	return d >= 0 && d < env_int("FAKE_CUDA_DEVICES", 1) ? OK : E_DEVICE;
}

int cudaGetDeviceProperties(void *prop, int d)
{
	const char *name = getenv("FAKE_CUDA_NAME");

	if (cudaSetDevice(d))
		return E_DEVICE;
	memset(prop, 0, 1024);   /* cudaDeviceProp is about 1 KiB; gpurent passes more */
	snprintf(prop, 256, "%s", name && *name ? name : "NVIDIA H100 80GB HBM3");
	return OK;
}

int cudaDeviceGetAttribute(int *v, int attr, int d)
{
	const char *cc = getenv("FAKE_CUDA_CC");
	int ma = 9, mi = 0;

	if (cudaSetDevice(d))
		return E_DEVICE;
	if (cc && *cc)
		sscanf(cc, "%d.%d", &ma, &mi);
	if (attr == 75)   /* cudaDevAttrComputeCapabilityMajor */
		*v = ma;
	else if (attr == 76)
		*v = mi;
	else
		return E_VALUE;
	return OK;
}

int cudaDeviceGetPCIBusId(char *buf, int len, int d)
{
	if (cudaSetDevice(d))
		return E_DEVICE;
	snprintf(buf, (size_t)len, "0000:3B:00.0");
	return OK;
}

int cudaMemGetInfo(size_t *freeb, size_t *total)
{
	*freeb = (size_t)env_int("FAKE_CUDA_FREE_MIB", 512) << 20;
	*total = (size_t)81559 << 20;
	return OK;
}

int cudaMalloc(void **p, size_t n)
{
	if (!n || !(*p = malloc(n)) || track(*p, n, 0))
		return 2;   /* cudaErrorMemoryAllocation */
	return OK;
}

int cudaFree(void *p)
{
	if (p && untrack(p, 0))
		return E_VALUE;
	free(p);
	return OK;
}

int cudaMallocHost(void **p, size_t n)
{
	if (!n || !(*p = malloc(n)) || track(*p, n, 1))
		return 2;
	return OK;
}

int cudaFreeHost(void *p)
{
	if (p && untrack(p, 1))
		return E_VALUE;
	free(p);
	return OK;
}

int cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
	int d = inside(dst, n), s = inside(src, n);

	/* 1 H2D, 2 D2H, 3 D2D; the device side must be one of our allocations */
	if (kind < 1 || kind > 3 || touch(dst, n) || touch(src, n))
		return E_VALUE;
	if ((kind != 2 && (d < 0 || allocs[d].host)) || (kind != 1 && (s < 0 || allocs[s].host)))
		return E_VALUE;
	if (kind == 3)
		vclock += 2.0 * (double)n / 3000e9;
	else
		vclock += (double)n / 50e9;
	if (kind == 1 && n <= 64)
		memcpy(dst, src, n);
	return OK;
}

int cudaDeviceSynchronize(void) { return OK; }

struct fake_event { double t; int magic; };

int cudaEventCreate(struct fake_event **e)
{
	if (!(*e = malloc(sizeof(**e))))
		return 2;
	(*e)->t = -1;
	(*e)->magic = 0x5eed;
	return OK;
}

int cudaEventDestroy(struct fake_event *e)
{
	if (!e || e->magic != 0x5eed)
		return E_VALUE;
	e->magic = 0;
	free(e);
	return OK;
}

int cudaEventRecord(struct fake_event *e, void *stream)
{
	if (!e || e->magic != 0x5eed || stream)
		return E_VALUE;
	e->t = vclock;
	return OK;
}

int cudaEventSynchronize(struct fake_event *e)
{
	return e && e->magic == 0x5eed && e->t >= 0 ? OK : E_VALUE;
}

int cudaEventElapsedTime(float *ms, struct fake_event *a, struct fake_event *b)
{
	if (cudaEventSynchronize(a) || cudaEventSynchronize(b))
		return E_VALUE;
	*ms = (float)((b->t - a->t) * 1e3);
	return OK;
}

const char *cudaGetErrorName(int e)
{
	return e == E_NODEV ? "cudaErrorNoDevice" : e == E_VALUE ? "cudaErrorInvalidValue" :
	       "cudaErrorFake";
}

const char *cudaGetErrorString(int e)
{
	return e == E_NODEV ? "no CUDA-capable device is detected" : "fake error";
}

/* ---- cuBLAS ---- */

struct fake_handle { int magic, math; };

int cublasCreate_v2(struct fake_handle **h)
{
	if (!(*h = malloc(sizeof(**h))))
		return 3;   /* CUBLAS_STATUS_ALLOC_FAILED */
	(*h)->magic = 0xb1a5;
	(*h)->math = 0;
	return OK;
}

int cublasDestroy_v2(struct fake_handle *h)
{
	if (!h || h->magic != 0xb1a5)
		return 1;   /* CUBLAS_STATUS_NOT_INITIALIZED */
	h->magic = 0;
	free(h);
	return OK;
}

int cublasSetMathMode(struct fake_handle *h, int mode)
{
	if (!h || h->magic != 0xb1a5 || mode < 0 || mode > 3)
		return B_INVALID;
	h->math = mode;
	return OK;
}

const char *cublasGetStatusString(int s)
{
	return s == B_INVALID ? "CUBLAS_STATUS_INVALID_VALUE" : "CUBLAS_STATUS_FAKE";
}

int cublasGemmEx(struct fake_handle *h, int ta, int tb, int m, int n, int k, const void *alpha,
		 const void *a, int at, int lda, const void *b, int bt, int ldb, const void *beta,
		 void *c, int ct, int ldc, int compute, int algo)
{
	size_t el = at == 0 ? 4 : 2;

	/* what gpurent asks for: no transposes, square, one type, FP32 compute
	 * (CUBLAS_COMPUTE_32F = 68), the default algorithm (-1), float scalars */
	if (!h || h->magic != 0xb1a5 || ta || tb || m <= 0 || m != n || n != k || lda != m ||
	    ldb != k || ldc != m || at != bt || bt != ct || (at != 0 && at != 2 && at != 14) ||
	    compute != 68 || algo != -1 || !alpha || !beta ||
	    *(const float *)alpha != 1.0f || *(const float *)beta != 0.0f)
		return B_INVALID;
	if (inside(a, (size_t)m * k * el) < 0 || inside(b, (size_t)k * n * el) < 0 ||
	    inside(c, (size_t)m * n * el) < 0 || touch(a, (size_t)m * k * el) ||
	    touch(b, (size_t)k * n * el) || touch(c, (size_t)m * n * el))
		return B_INVALID;
	vclock += 2.0 * m * n * (double)k / (at == 0 ? 50e12 : 500e12);
	return OK;
}
