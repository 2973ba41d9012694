// out = alpha * x + y on a CUDA device, on the stream the caller's framework uses (TVM-FFI's
// environment stream: torch's current stream when called with torch tensors).
#include <cstdint>

#include <cuda_runtime.h>
#include <tvm/ffi/extra/c_env_api.h>

#include "axpy_check.h"

namespace {

__global__ void axpy_kernel(float* out, const float* x, const float* y, float alpha, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (; i < n; i += stride) out[i] = alpha * x[i] + y[i];
}

}  // namespace

void axpy_cuda(tvm::ffi::TensorView out, tvm::ffi::TensorView x, tvm::ffi::TensorView y, double alpha) {
  check_axpy_arguments(out, x, y, kDLCUDA);
  int64_t n = out.numel();
  if (n == 0) return;
  auto stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, out.device().device_id));
  constexpr int threads = 256;
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks > 65535) blocks = 65535;
  axpy_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      static_cast<float*>(out.data_ptr()), static_cast<const float*>(x.data_ptr()),
      static_cast<const float*>(y.data_ptr()), static_cast<float>(alpha), n);
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) TVM_FFI_THROW(RuntimeError) << "axpy: kernel launch failed: " << cudaGetErrorString(error);
}
