/*
 * cuda.h - the CUDA runtime (libcudart) and cuBLAS behind a narrow door,
 * for `gpurent env` (which runtime is installed) and `gpurent bench` (GEMM
 * TFLOPS, device and host<->device bandwidth). Both libraries are loaded
 * at run time through src/os/dl.h, no vendor header: a table of function pointers
 * with the few prototypes and constants declared in cuda.c (checked
 * against the real headers by tests/cli/env.sh where a toolkit is
 * installed). No library, no driver or no GPU is a sentence, never a
 * crash. Nothing here prints.
 */
#ifndef GPURENT_CUDA_H
#define GPURENT_CUDA_H

#include <stdbool.h>
#include <stddef.h>

/* A loaded libcudart (and perhaps libcublas). Opaque. */
struct cuda;

/*
 * Load libcudart (libcudart.so.13, .12, .11.0, then libcudart.so, then
 * /usr/local/cuda/lib64) and, when blas, the libcublas of the same major
 * version. Returns 0 with *out set (caller releases with cuda_close()),
 * or -1 with *out = NULL and one sentence in err ("no CUDA runtime
 * (libcudart) on this machine"). A missing cuBLAS is not an error:
 * cuda_has_blas() says so, with the reason in cuda_blas_error().
 */
int cuda_open(struct cuda **out, bool blas, char *err, size_t errlen);

/* Destroy the cuBLAS handle and free c. The libraries stay loaded until
 * the process exits (unloading the CUDA runtime is unsafe). NULL is fine. */
void cuda_close(struct cuda *c);

/* File names loaded ("libcudart.so.12"); "" when none. Borrowed until cuda_close(). */
const char *cuda_runtime_library(const struct cuda *c);
const char *cuda_blas_library(const struct cuda *c);
bool cuda_has_blas(const struct cuda *c);
const char *cuda_blas_error(const struct cuda *c);

/* cudaRuntimeGetVersion (12040), and cudaDriverGetVersion: the CUDA the
 * driver runs (0 when there is no driver). -1 on failure or NULL. */
int cuda_runtime_version(const struct cuda *c);
int cuda_driver_version(const struct cuda *c);

/*
 * Number of CUDA devices. Returns >= 1, or 0 with the reason in err
 * ("no CUDA driver (cudaErrorInsufficientDriver)", "no CUDA device").
 */
int cuda_device_count(const struct cuda *c, char *err, size_t errlen);

/* Device dev's name (cudaGetDeviceProperties), compute capability and
 * memory. 0, or -1 with err. */
int cuda_device_describe(const struct cuda *c, int dev, char *name, size_t namelen,
			 int *cc_major, int *cc_minor, size_t *mem_free, size_t *mem_total,
			 char *err, size_t errlen);

/* Device dev's PCI bus id ("0000:3B:00.0", cudaDeviceGetPCIBusId) into
 * buf, to match NVML's view of the same card. 0, or -1 (buf ""). */
int cuda_device_pci_bus_id(const struct cuda *c, int dev, char *buf, size_t n);

enum cuda_gemm_type { CUDA_GEMM_FP32, CUDA_GEMM_FP16, CUDA_GEMM_BF16 };

/* "fp32", "fp16", "bf16". Static. */
const char *cuda_gemm_name(enum cuda_gemm_type t);

/* One measurement. */
struct cuda_measure {
	double value;     /* FLOP/s or bytes/s */
	double seconds;   /* timed, by CUDA events */
	int iters;        /* timed repetitions */
	size_t size;      /* n of an n x n x n GEMM, or bytes per copy */
};

/*
 * C = A x B in type t (n x n x n, FP32 accumulate, cublasGemmEx, random
 * inputs), timed by CUDA events over as many repetitions as fit in
 * budget_s seconds (3 at least) after one warm-up. value = 2 n^3 iters /
 * seconds. Needs cuBLAS. 0, or -1 with err (out of memory, type not
 * supported on this GPU ...). Frees everything it allocated.
 */
int cuda_bench_gemm(struct cuda *c, int dev, enum cuda_gemm_type t, int n, double budget_s,
		    struct cuda_measure *out, char *err, size_t errlen);

/*
 * cudaMemcpy device-to-device of `bytes`: value = 2 x bytes x iters /
 * seconds (each byte is read and written, as CUDA's bandwidthTest counts).
 * 0, or -1 with err.
 */
int cuda_bench_d2d(struct cuda *c, int dev, size_t bytes, double budget_s,
		   struct cuda_measure *out, char *err, size_t errlen);

/*
 * cudaMemcpy from pinned host memory to the device (*h2d) and back
 * (*d2h), `bytes` each: value = bytes x iters / seconds. 0, or -1 with err.
 */
int cuda_bench_host(struct cuda *c, int dev, size_t bytes, double budget_s,
		    struct cuda_measure *h2d, struct cuda_measure *d2h, char *err, size_t errlen);

#endif
