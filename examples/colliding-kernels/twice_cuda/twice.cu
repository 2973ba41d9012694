// The twice op on CUDA. Its helpers are deliberately not static: the thrice unit defines the same
// names (scale_factor, the __device__ table, shift, the scale_kernel kernel) with other values.
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/all.h>

#include "../torch-ext/torch_binding.h"

int scale_factor() { return 2; }

__device__ float table[4] = {0.5f, 1.5f, 2.5f, 3.5f};

inline float shift() { return 0.25f; }

__global__ void scale_kernel(float* out, const float* in, int64_t n, float factor, float bias) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor + table[i % 4] + bias;
}

void twice(torch::Tensor& out, torch::Tensor const& x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
              "twice: x must be a contiguous float32 CUDA tensor");
  TORCH_CHECK(out.is_cuda() && out.scalar_type() == torch::kFloat32 && out.is_contiguous() &&
                  out.sizes() == x.sizes() && out.device() == x.device(),
              "twice: out must be a contiguous float32 CUDA tensor shaped like x on its device");
  const int64_t n = x.numel();
  if (n == 0) return;
  const c10::cuda::CUDAGuard device_guard(x.device());
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  scale_kernel<<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(
      out.data_ptr<float>(), x.data_ptr<float>(), n, static_cast<float>(scale_factor()), shift());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
