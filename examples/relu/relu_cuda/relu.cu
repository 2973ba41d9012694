// CUDA device code of relu, built on the vectorized elementwise launcher. No torch headers here
// (see relu_launch.h): the checks, device guard, stream and dtype dispatch are in relu_host.cpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "relu_launch.h"
#include "vectorized.cuh"

namespace {

// The value in torch's op-math type (float for the 16-bit types), through the explicit
// conversion functions: torch.utils.cpp_extension compiles with __CUDA_NO_HALF_CONVERSIONS__ and
// __CUDA_NO_BFLOAT16_CONVERSIONS__, which remove the implicit ones.
__device__ __forceinline__ float to_math(float v) { return v; }
__device__ __forceinline__ double to_math(double v) { return v; }
__device__ __forceinline__ float to_math(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_math(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T zero();
template <>
__device__ __forceinline__ float zero<float>() { return 0.0f; }
template <>
__device__ __forceinline__ double zero<double>() { return 0.0; }
template <>
__device__ __forceinline__ __half zero<__half>() { return __float2half(0.0f); }
template <>
__device__ __forceinline__ __nv_bfloat16 zero<__nv_bfloat16>() { return __float2bfloat16(0.0f); }

template <typename T>
struct ReluOp {
  __device__ __forceinline__ T operator()(T value) const {
    // `x < 0 ? 0 : x` keeps NaN (the comparison is false), matching torch.relu; a value that is
    // not negative comes back unchanged (the round trip through the op-math type is exact).
    return to_math(value) < 0 ? zero<T>() : value;
  }
};

template <typename T>
cudaError_t launch(void* out, const void* in, int64_t numel, cudaStream_t stream) {
  return relu_cuda::launch_unary(static_cast<T*>(out), static_cast<const T*>(in), numel, ReluOp<T>{}, stream);
}

}  // namespace

namespace relu_cuda {

cudaError_t launch_relu(DType dtype, void* out, const void* in, int64_t numel, cudaStream_t stream) {
  switch (dtype) {
    case DType::f32: return launch<float>(out, in, numel, stream);
    case DType::f64: return launch<double>(out, in, numel, stream);
    case DType::f16: return launch<__half>(out, in, numel, stream);
    case DType::bf16: return launch<__nv_bfloat16>(out, in, numel, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace relu_cuda
