// CUDA device code of relu, built on the vectorized elementwise launcher. No torch headers here
// (see relu_launch.h): the checks, device guard, stream and dtype dispatch are in relu_host.cpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "relu_launch.h"
#include "vectorized.cuh"

namespace {

// `Math` is the type the comparison runs in, torch's op-math type: float for the 16-bit types.
template <typename T, typename Math>
struct ReluOp {
  __device__ __forceinline__ T operator()(T value) const {
    const Math x = static_cast<Math>(value);
    // `x < 0 ? 0 : x` keeps NaN (the comparison is false), matching torch.relu.
    return static_cast<T>(x < Math(0) ? Math(0) : x);
  }
};

template <typename T, typename Math>
cudaError_t launch(void* out, const void* in, int64_t numel, cudaStream_t stream) {
  return relu_cuda::launch_unary(static_cast<T*>(out), static_cast<const T*>(in), numel, ReluOp<T, Math>{}, stream);
}

}  // namespace

namespace relu_cuda {

cudaError_t launch_relu(DType dtype, void* out, const void* in, int64_t numel, cudaStream_t stream) {
  switch (dtype) {
    case DType::f32: return launch<float, float>(out, in, numel, stream);
    case DType::f64: return launch<double, double>(out, in, numel, stream);
    case DType::f16: return launch<__half, float>(out, in, numel, stream);
    case DType::bf16: return launch<__nv_bfloat16, float>(out, in, numel, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace relu_cuda
