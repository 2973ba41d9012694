// CPU implementation of relu: a flat loop over contiguous memory, split across threads with
// at::parallel_for. The loop body is branch-free so the compiler vectorizes it.
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "../torch-ext/torch_binding.h"

namespace {

// Below this many elements a thread is not worth waking.
constexpr int64_t kGrainSize = 32768;

template <typename T>
void relu_contiguous(T* __restrict__ out, const T* __restrict__ input, int64_t numel) {
  at::parallel_for(0, numel, kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      // Computed in float so half/bfloat16 use the same select as float; `x < 0 ? 0 : x`
      // keeps NaN (the comparison is false), matching torch.relu.
      const float x = static_cast<float>(input[i]);
      out[i] = static_cast<T>(x < 0.0f ? 0.0f : x);
    }
  });
}

}  // namespace

void relu(torch::Tensor& out, torch::Tensor const& input) {
  TORCH_CHECK(input.device().is_cpu(), "relu: input must be a CPU tensor");
  TORCH_CHECK(out.device() == input.device(), "relu: out and input must be on the same device");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(),
              "relu: out and input must have the same dtype, got ", out.scalar_type(), " and ",
              input.scalar_type());
  TORCH_CHECK(out.sizes() == input.sizes(), "relu: out and input must have the same shape, got ",
              out.sizes(), " and ", input.sizes());
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(),
              "relu: out and input must be contiguous");

  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "relu_cpu", [&] {
        relu_contiguous<scalar_t>(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(),
                                  input.numel());
      });
}
