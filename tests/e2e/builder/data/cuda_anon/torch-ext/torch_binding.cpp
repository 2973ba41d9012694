#include <torch/library.h>

#include <ATen/cuda/CUDAContext.h>

#include "registration.h"
#include "torch_binding.h"

void scale_launch(float* out, const float* input, float factor, int64_t n, cudaStream_t stream);

void scale(at::Tensor& out, const at::Tensor& input, double factor) {
  TORCH_CHECK(out.sizes() == input.sizes(), "scale: out and input differ in shape");
  TORCH_CHECK(input.is_cuda() && input.scalar_type() == at::kFloat && input.is_contiguous(),
              "scale: input must be a contiguous float CUDA tensor");
  scale_launch(out.data_ptr<float>(), input.data_ptr<float>(), static_cast<float>(factor), input.numel(),
               at::cuda::getCurrentCUDAStream());
}

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("scale(Tensor! out, Tensor input, float factor) -> ()");
  ops.impl("scale", c10::kCUDA, &scale);
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
