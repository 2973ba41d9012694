// CUDA implementation of the activation ops (float32, float16, bfloat16), on the vectorized
// launchers of launch.cuh and the formulas of common/activation_math.h.
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include "../common/activation_math.h"
#include "../common/checks.h"
#include "../torch-ext/torch_binding.h"
#include "launch.cuh"

namespace {

template <typename Act>
void gated_op(const char* name, torch::Tensor& out, torch::Tensor const& input) {
  activation::check_gated(name, out, input);
  TORCH_CHECK(input.is_cuda(), name, ": input must be a CUDA tensor");
  const int64_t d = input.size(-1) / 2;
  if (out.numel() == 0) return;
  const c10::cuda::CUDAGuard device_guard(input.device());
  activation::dispatch_floating(name, input.scalar_type(), [&](auto tag) {
    using scalar_t = decltype(tag);
    activation_cuda::launch_gated(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(),
                                  out.numel() / d, d, Act{});
  });
}

template <typename Act>
void elementwise_op(const char* name, torch::Tensor& out, torch::Tensor const& input) {
  activation::check_elementwise(name, out, input);
  TORCH_CHECK(input.is_cuda(), name, ": input must be a CUDA tensor");
  const c10::cuda::CUDAGuard device_guard(input.device());
  activation::dispatch_floating(name, input.scalar_type(), [&](auto tag) {
    using scalar_t = decltype(tag);
    activation_cuda::launch_elementwise(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(),
                                        input.numel(), Act{});
  });
}

}  // namespace

void silu_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::Silu>("silu_and_mul", out, input);
}

void gelu_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::Gelu>("gelu_and_mul", out, input);
}

void gelu_tanh_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::GeluTanh>("gelu_tanh_and_mul", out, input);
}

void gelu_fast(torch::Tensor& out, torch::Tensor const& input) {
  elementwise_op<activation::GeluFast>("gelu_fast", out, input);
}

void gelu_tanh(torch::Tensor& out, torch::Tensor const& input) {
  elementwise_op<activation::GeluTanh>("gelu_tanh", out, input);
}
