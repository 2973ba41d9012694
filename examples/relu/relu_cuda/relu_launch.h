// The boundary between relu's torch side (relu_host.cpp) and its device code (relu.cu). Plain C++
// and CUDA runtime types only: relu.cu includes no torch header, so nvcc, which parses a .cu once
// per GPU architecture plus once for the host, no longer parses torch's headers five times (they
// were most of the CUDA variant's build time); relu_host.cpp is ordinary C++ that the builder's
// torch header cache serves.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace relu_cuda {

enum class DType { f32, f64, f16, bf16 };

// out[i] = max(in[i], 0) (NaN kept) for `numel` contiguous elements of `dtype`, on `stream`.
// Returns the launch's error (cudaSuccess when it launched, or for numel == 0).
cudaError_t launch_relu(DType dtype, void* out, const void* in, int64_t numel, cudaStream_t stream);

}  // namespace relu_cuda
