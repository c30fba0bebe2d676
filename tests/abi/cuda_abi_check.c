/*
 * cuda_abi_check.c - compiled (never run) against NVIDIA's own headers by
 * tests/cli/env.sh where a CUDA toolkit is installed: every constant that
 * src/hw/cuda_abi.h declares by hand must equal the vendor's, and the
 * device-property buffer must hold cudaDeviceProp with the name first.
 *   cc -fsyntax-only -I/usr/local/cuda/include tests/abi/cuda_abi_check.c
 */
#include <stddef.h>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <library_types.h>

#include "hw/cuda_abi.h"

/* as ints: the two sides are different enum types */
#define EQ(ours, theirs, what) _Static_assert((int)(ours) == (int)(theirs), what)

EQ(CUDA_SUCCESS_, cudaSuccess, "cudaSuccess");
EQ(CUDA_MEMCPY_H2D, cudaMemcpyHostToDevice, "cudaMemcpyHostToDevice");
EQ(CUDA_MEMCPY_D2H, cudaMemcpyDeviceToHost, "cudaMemcpyDeviceToHost");
EQ(CUDA_MEMCPY_D2D, cudaMemcpyDeviceToDevice, "cudaMemcpyDeviceToDevice");
EQ(CUDA_ATTR_CC_MAJOR, cudaDevAttrComputeCapabilityMajor, "cc major attribute");
EQ(CUDA_ATTR_CC_MINOR, cudaDevAttrComputeCapabilityMinor, "cc minor attribute");
EQ(CUDA_DT_R_32F, CUDA_R_32F, "CUDA_R_32F");
EQ(CUDA_DT_R_16F, CUDA_R_16F, "CUDA_R_16F");
EQ(CUDA_DT_R_16BF, CUDA_R_16BF, "CUDA_R_16BF");
EQ(CUDA_BLAS_OP_N, CUBLAS_OP_N, "CUBLAS_OP_N");
EQ(CUDA_BLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F, "CUBLAS_COMPUTE_32F");
EQ(CUDA_BLAS_GEMM_DEFAULT, CUBLAS_GEMM_DEFAULT, "CUBLAS_GEMM_DEFAULT");
EQ(CUDA_BLAS_DEFAULT_MATH, CUBLAS_DEFAULT_MATH, "CUBLAS_DEFAULT_MATH");
EQ(CUDA_BLAS_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS");
_Static_assert(offsetof(struct cudaDeviceProp, name) == 0, "cudaDeviceProp.name first");
_Static_assert(sizeof(((struct cudaDeviceProp *)0)->name) == CUDA_PROP_NAME_BYTES, "name[256]");
_Static_assert(sizeof(struct cudaDeviceProp) <= CUDA_PROP_BYTES, "property buffer large enough");

/* The prototypes src/hw/cuda.c declares, against the vendor's (enums
 * passed as int: same size and calling convention on every ABI CUDA runs on). */
_Static_assert(sizeof(cudaError_t) == sizeof(int), "cudaError_t is an int");
_Static_assert(sizeof(cublasStatus_t) == sizeof(int), "cublasStatus_t is an int");
_Static_assert(sizeof(cudaDataType) == sizeof(int), "cudaDataType is an int");
_Static_assert(sizeof(cublasComputeType_t) == sizeof(int), "cublasComputeType_t is an int");
_Static_assert(sizeof(cublasGemmAlgo_t) == sizeof(int), "cublasGemmAlgo_t is an int");
_Static_assert(sizeof(enum cudaMemcpyKind) == sizeof(int), "cudaMemcpyKind is an int");
