/*
 * cuda_abi.h - the few constants of the CUDA runtime and cuBLAS ABI that
 * src/hw/cuda.c uses, as in NVIDIA's driver_types.h, library_types.h and
 * cublas_api.h (CUDA 11 to 13), under names of our own so that no vendor
 * header is needed. tests/abi/cuda_abi_check.c compiles them against the
 * real headers (tests/cli/env.sh runs it where a toolkit is installed).
 */
#ifndef GPURENT_CUDA_ABI_H
#define GPURENT_CUDA_ABI_H

enum {
	CUDA_SUCCESS_ = 0,                   /* cudaSuccess */
	CUDA_MEMCPY_H2D = 1,                 /* cudaMemcpyHostToDevice */
	CUDA_MEMCPY_D2H = 2,                 /* cudaMemcpyDeviceToHost */
	CUDA_MEMCPY_D2D = 3,                 /* cudaMemcpyDeviceToDevice */
	CUDA_ATTR_CC_MAJOR = 75,             /* cudaDevAttrComputeCapabilityMajor */
	CUDA_ATTR_CC_MINOR = 76,             /* cudaDevAttrComputeCapabilityMinor */
	CUDA_DT_R_32F = 0,                   /* CUDA_R_32F */
	CUDA_DT_R_16F = 2,                   /* CUDA_R_16F */
	CUDA_DT_R_16BF = 14,                 /* CUDA_R_16BF */
	CUDA_BLAS_OP_N = 0,                  /* CUBLAS_OP_N */
	CUDA_BLAS_COMPUTE_32F = 68,          /* CUBLAS_COMPUTE_32F (no TF32 under default math) */
	CUDA_BLAS_GEMM_DEFAULT = -1,         /* CUBLAS_GEMM_DEFAULT */
	CUDA_BLAS_DEFAULT_MATH = 0,          /* CUBLAS_DEFAULT_MATH */
	CUDA_BLAS_STATUS_SUCCESS = 0,        /* CUBLAS_STATUS_SUCCESS */
};

/* cudaDeviceProp begins with char name[256] in every version; the rest of
 * its layout changes between versions, so a generous buffer receives it. */
#define CUDA_PROP_NAME_BYTES 256
#define CUDA_PROP_BYTES 16384

#endif
