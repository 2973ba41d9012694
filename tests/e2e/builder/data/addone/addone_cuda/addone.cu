#include <ATen/core/Tensor.h>

__global__ void addone_kernel(float* out, const float* input, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = input[i] + 1.0f;
}

void addone(at::Tensor& out, const at::Tensor& input) {
  TORCH_CHECK(out.sizes() == input.sizes(), "addone: out has shape ", out.sizes(), ", input has shape ",
              input.sizes());
  TORCH_CHECK(input.is_cuda() && input.scalar_type() == at::kFloat, "input must be a float CUDA tensor");
  int64_t n = input.numel();
  int threads = 256;
  int blocks = static_cast<int>((n + threads - 1) / threads);
  addone_kernel<<<blocks, threads>>>(out.data_ptr<float>(), input.data_ptr<float>(), n);
}
