// CUDA implementation of rms_norm: one block per row; each thread sums the squares of a strided
// slice in the op-math type, the block reduces them (warp shuffles, then shared memory), and
// every thread then writes its slice.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;

template <typename Math>
__device__ Math block_sum(Math value) {
  __shared__ Math partial[kThreads / kWarp];
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    value += __shfl_xor_sync(0xffffffff, value, offset);
  }
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (lane == 0) {
    partial[warp] = value;
  }
  __syncthreads();
  Math total = 0;
  for (int i = 0; i < kThreads / kWarp; ++i) {
    total += partial[i];
  }
  return total;
}

template <typename T>
__global__ void rms_norm_kernel(T* __restrict__ out, const T* __restrict__ input,
                                const T* __restrict__ weight, int64_t hidden, float epsilon) {
  using Math = at::opmath_type<T>;
  const T* x = input + blockIdx.x * hidden;
  T* y = out + blockIdx.x * hidden;
  Math sum_of_squares = 0;
  for (int64_t i = threadIdx.x; i < hidden; i += kThreads) {
    const Math value = static_cast<Math>(x[i]);
    sum_of_squares += value * value;
  }
  const Math total = block_sum(sum_of_squares);
  const Math scale = Math(1) / sqrt(total / static_cast<Math>(hidden) + static_cast<Math>(epsilon));
  for (int64_t i = threadIdx.x; i < hidden; i += kThreads) {
    const T normalized = static_cast<T>(static_cast<Math>(x[i]) * scale);
    y[i] = static_cast<T>(static_cast<Math>(weight[i]) * static_cast<Math>(normalized));
  }
}

}  // namespace

void rms_norm(torch::Tensor& out, torch::Tensor const& input, torch::Tensor const& weight,
              double epsilon) {
  TORCH_CHECK(input.is_cuda(), "rms_norm: input must be a CUDA tensor");
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
  if (rows == 0) {
    return;
  }
  const c10::cuda::CUDAGuard device_guard(input.device());
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "rms_norm_cuda", [&] {
        rms_norm_kernel<scalar_t><<<rows, kThreads, 0, stream>>>(
            out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), hidden,
            static_cast<float>(epsilon));
      });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
