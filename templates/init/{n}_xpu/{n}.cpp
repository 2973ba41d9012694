#include <c10/xpu/XPUStream.h>
#include <sycl/sycl.hpp>
#include <torch/torch.h>

#include "torch_binding.h"

void {{ python_name }}(torch::Tensor &out, torch::Tensor const &input) {
  TORCH_CHECK(input.device().is_xpu(), "input must be an XPU tensor");
  TORCH_CHECK(out.device() == input.device(), "out and input must be on the same device");
  TORCH_CHECK(out.sizes() == input.sizes(), "out and input must have the same shape");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(), "out and input must have the same dtype");
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(), "out and input must be contiguous");

  const int64_t n = input.numel();
  if (n == 0) return;
  sycl::queue &queue = c10::xpu::getCurrentXPUStream().queue();
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "{{ python_name }}_xpu", [&] {
        scalar_t *out_ptr = out.data_ptr<scalar_t>();
        const scalar_t *in_ptr = input.data_ptr<scalar_t>();
        queue.parallel_for(sycl::range<1>(static_cast<size_t>(n)), [=](sycl::id<1> i) {
          out_ptr[i] = in_ptr[i] + static_cast<scalar_t>(1);
        });
      });
}
