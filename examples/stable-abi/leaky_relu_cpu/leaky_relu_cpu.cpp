// CPU implementation of leaky_relu using only the stable ABI: torch::stable tensors and ops,
// the header-only Half/BFloat16 types, and torch::stable::parallel_for for threading.
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/BFloat16.h>
#include <torch/headeronly/util/Exception.h>
#include <torch/headeronly/util/Half.h>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int64_t kGrainSize = 32768;

template <typename T>
void leaky_relu_contiguous(T* out, const T* in, int64_t numel, float slope) {
  torch::stable::parallel_for(0, numel, kGrainSize, [=](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float x = static_cast<float>(in[i]);
      // `x < 0` is false for NaN, which therefore passes through unchanged.
      out[i] = static_cast<T>(x < 0.0f ? x * slope : x);
    }
  });
}

}  // namespace

torch::stable::Tensor leaky_relu(torch::stable::Tensor input, double negative_slope) {
  STD_TORCH_CHECK(input.is_cpu(), "leaky_relu: input must be a CPU tensor");
  const torch::stable::Tensor x = torch::stable::contiguous(input);
  torch::stable::Tensor out = torch::stable::empty_like(x);
  const int64_t numel = x.numel();
  const float slope = static_cast<float>(negative_slope);
  using torch::headeronly::ScalarType;
  switch (x.scalar_type()) {
    case ScalarType::Float:
      leaky_relu_contiguous(static_cast<float*>(out.mutable_data_ptr()),
                            static_cast<const float*>(x.const_data_ptr()), numel, slope);
      break;
    case ScalarType::Half:
      leaky_relu_contiguous(static_cast<torch::headeronly::Half*>(out.mutable_data_ptr()),
                            static_cast<const torch::headeronly::Half*>(x.const_data_ptr()),
                            numel, slope);
      break;
    case ScalarType::BFloat16:
      leaky_relu_contiguous(static_cast<torch::headeronly::BFloat16*>(out.mutable_data_ptr()),
                            static_cast<const torch::headeronly::BFloat16*>(x.const_data_ptr()),
                            numel, slope);
      break;
    default:
      STD_TORCH_CHECK(false, "leaky_relu: unsupported dtype ",
                      torch::headeronly::toString(x.scalar_type()),
                      "; expected float32, float16 or bfloat16");
  }
  return out;
}
