// CPU implementation of rms_norm: one row at a time (rows split across threads with
// at::parallel_for), the sum of squares accumulated in the op-math type.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>

#include "../torch-ext/torch_binding.h"

namespace {

template <typename T>
void rms_norm_rows(T* __restrict__ out, const T* __restrict__ input, const T* __restrict__ weight,
                   int64_t rows, int64_t hidden, double epsilon) {
  using Math = at::opmath_type<T>;
  // A row is worth a thread once the rows it covers hold a few thousand elements.
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(hidden, 1));
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const T* x = input + row * hidden;
      T* y = out + row * hidden;
      Math sum_of_squares = 0;
      for (int64_t i = 0; i < hidden; ++i) {
        const Math value = static_cast<Math>(x[i]);
        sum_of_squares += value * value;
      }
      const Math scale =
          Math(1) / std::sqrt(sum_of_squares / static_cast<Math>(hidden) + static_cast<Math>(epsilon));
      for (int64_t i = 0; i < hidden; ++i) {
        // Normalized value rounded to T before the weight, as the reference layers do.
        const T normalized = static_cast<T>(static_cast<Math>(x[i]) * scale);
        y[i] = static_cast<T>(static_cast<Math>(weight[i]) * static_cast<Math>(normalized));
      }
    }
  });
}

}  // namespace

void rms_norm(torch::Tensor& out, torch::Tensor const& input, torch::Tensor const& weight,
              double epsilon) {
  TORCH_CHECK(input.device().is_cpu(), "rms_norm: input must be a CPU tensor");
  TORCH_CHECK(out.device() == input.device() && weight.device() == input.device(),
              "rms_norm: out, input and weight must be on the same device");
  TORCH_CHECK(out.scalar_type() == input.scalar_type() && weight.scalar_type() == input.scalar_type(),
              "rms_norm: out, input and weight must have the same dtype");
  TORCH_CHECK(input.dim() >= 1, "rms_norm: input must have at least one dimension");
  TORCH_CHECK(out.sizes() == input.sizes(), "rms_norm: out and input must have the same shape");
  const int64_t hidden = input.size(-1);
  TORCH_CHECK(weight.dim() == 1 && weight.size(0) == hidden,
              "rms_norm: weight must be 1-D with the size of the last dimension (", hidden, ")");
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous() && weight.is_contiguous(),
              "rms_norm: out, input and weight must be contiguous");
  const int64_t rows = hidden == 0 ? 0 : input.numel() / hidden;
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "rms_norm_cpu", [&] {
        rms_norm_rows(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(),
                      rows, hidden, epsilon);
      });
}
