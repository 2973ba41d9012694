#include <torch/torch.h>

#include "torch_binding.h"

// Reference CPU implementation: out = input + 1, element by element.
void {{ python_name }}(torch::Tensor &out, torch::Tensor const &input) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  TORCH_CHECK(out.device().is_cpu(), "out must be a CPU tensor");
  TORCH_CHECK(out.sizes() == input.sizes(), "out and input must have the same shape");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(), "out and input must have the same dtype");
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(), "out and input must be contiguous");

  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "{{ python_name }}_cpu", [&] {
        const scalar_t *in_ptr = input.data_ptr<scalar_t>();
        scalar_t *out_ptr = out.data_ptr<scalar_t>();
        const int64_t n = input.numel();
        for (int64_t i = 0; i < n; ++i) {
          out_ptr[i] = in_ptr[i] + static_cast<scalar_t>(1);
        }
      });
}
