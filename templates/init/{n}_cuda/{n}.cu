#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/torch.h>

#include "torch_binding.h"

template <typename scalar_t>
__global__ void {{ python_name }}_kernel(scalar_t *__restrict__ out, scalar_t const *__restrict__ input,
                                       int64_t n) {
  // Grid-stride loop, so any grid size covers any tensor size.
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    out[i] = input[i] + static_cast<scalar_t>(1);
  }
}

void {{ python_name }}(torch::Tensor &out, torch::Tensor const &input) {
  TORCH_CHECK(input.device().is_cuda(), "input must be a CUDA tensor");
  TORCH_CHECK(out.device() == input.device(), "out and input must be on the same device");
  TORCH_CHECK(out.sizes() == input.sizes(), "out and input must have the same shape");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(), "out and input must have the same dtype");
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(), "out and input must be contiguous");

  const int64_t n = input.numel();
  if (n == 0) return;
  const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const int threads = 256;
  const int64_t wanted_blocks = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(std::min<int64_t>(wanted_blocks, 65535));

  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "{{ python_name }}_cuda", [&] {
        {{ python_name }}_kernel<scalar_t><<<blocks, threads, 0, stream>>>(out.data_ptr<scalar_t>(),
                                                                         input.data_ptr<scalar_t>(), n);
      });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
