// The torch side of relu's CUDA unit: argument checks, device guard, current stream and dtype
// dispatch, then the torch-free launcher of relu.cu (relu_launch.h says why they are apart).
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include "../torch-ext/torch_binding.h"
#include "relu_launch.h"

namespace {

// The launcher's name for each dtype AT_DISPATCH lets through (same layouts: at::Half is
// __half's, at::BFloat16 is __nv_bfloat16's).
template <typename T>
constexpr relu_cuda::DType dtype_of();
template <>
constexpr relu_cuda::DType dtype_of<float>() { return relu_cuda::DType::f32; }
template <>
constexpr relu_cuda::DType dtype_of<double>() { return relu_cuda::DType::f64; }
template <>
constexpr relu_cuda::DType dtype_of<at::Half>() { return relu_cuda::DType::f16; }
template <>
constexpr relu_cuda::DType dtype_of<at::BFloat16>() { return relu_cuda::DType::bf16; }

}  // namespace

void relu(torch::Tensor& out, torch::Tensor const& input) {
  TORCH_CHECK(input.is_cuda(), "relu: input must be a CUDA tensor");
  TORCH_CHECK(out.device() == input.device(), "relu: out and input must be on the same device");
  TORCH_CHECK(out.scalar_type() == input.scalar_type(),
              "relu: out and input must have the same dtype, got ", out.scalar_type(), " and ",
              input.scalar_type());
  TORCH_CHECK(out.sizes() == input.sizes(), "relu: out and input must have the same shape, got ",
              out.sizes(), " and ", input.sizes());
  TORCH_CHECK(input.is_contiguous() && out.is_contiguous(),
              "relu: out and input must be contiguous");

  const c10::cuda::CUDAGuard device_guard(input.device());
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "relu_cuda", [&] {
        C10_CUDA_CHECK(relu_cuda::launch_relu(dtype_of<scalar_t>(), out.data_ptr(), input.data_ptr(),
                                              input.numel(), at::cuda::getCurrentCUDAStream()));
      });
}
