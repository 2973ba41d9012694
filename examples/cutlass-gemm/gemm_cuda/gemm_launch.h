// The boundary between the GEMM's torch side (gemm_host.cpp) and its device code (gemm.cu). Plain
// C++ and CUDA runtime types only: gemm.cu includes no torch header, so nvcc, which parses a .cu
// once for the host and once per GPU architecture, parses CUTLASS alone (one architecture here:
// 37 s, against 114 s when the same file also included torch); gemm_host.cpp is ordinary C++.
#pragma once

#include <cuda_runtime_api.h>

namespace cutlass_gemm {

enum class DType { f16, bf16 };

// D = A @ B^T on `stream` for M x K `a` and N x K `b_t` (K contiguous, K a multiple of 8, 16-byte
// aligned) into M x N row-major `d`, all of `dtype` (cute_gemm.cuh has the layouts). Returns
// nullptr when the kernel was launched, else CUTLASS's description of why it was not.
const char* launch_gemm(DType dtype, int m, int n, int k, const void* a, const void* b_t, void* d,
                        cudaStream_t stream);

}  // namespace cutlass_gemm
