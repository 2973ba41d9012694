// CUDA implementation of relu, built on the vectorized elementwise launcher.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include "../torch-ext/torch_binding.h"
#include "vectorized.cuh"

namespace {

template <typename T>
struct ReluOp {
  __device__ __forceinline__ T operator()(T value) const {
    using Math = at::opmath_type<T>;
    const Math x = static_cast<Math>(value);
    // `x < 0 ? 0 : x` keeps NaN (the comparison is false), matching torch.relu.
    return static_cast<T>(x < Math(0) ? Math(0) : x);
  }
};

}  // namespace

void relu(torch::Tensor& out, torch::Tensor const& input) {
  TORCH_CHECK(input.is_cuda(), "relu: input must be a CUDA tensor");
  TORCH_CHECK(out.device() == input.device(), "relu: out and input must be on the same device");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(),
              "relu: out and input must have the same dtype, got ", out.scalar_type(), " and ",
              input.scalar_type());
  TORCH_CHECK(out.sizes() == input.sizes(), "relu: out and input must have the same shape, got ",
              out.sizes(), " and ", input.sizes());
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(),
              "relu: out and input must be contiguous");

  const c10::cuda::CUDAGuard device_guard(input.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "relu_cuda", [&] {
        relu_cuda::launch_unary(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(),
                                input.numel(), ReluOp<scalar_t>{});
      });
}
