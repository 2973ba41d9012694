// Argument checks and the dtype dispatch shared by the CPU and CUDA units, so both accept and
// reject the same calls with the same messages.
#pragma once

#include <torch/torch.h>

namespace activation {

inline void check_same_device_and_dtype(const char* op, const torch::Tensor& out,
                                        const torch::Tensor& input) {
  TORCH_CHECK(out.device() == input.device(), op, ": out and input must be on the same device, got ",
              out.device(), " and ", input.device());
  TORCH_CHECK(out.scalar_type() == input.scalar_type(), op,
              ": out and input must have the same dtype, got ", out.scalar_type(), " and ",
              input.scalar_type());
  TORCH_CHECK(out.is_contiguous() && input.is_contiguous(), op,
              ": out and input must be contiguous");
}

// input [..., 2d] and out [..., d].
inline void check_gated(const char* op, const torch::Tensor& out, const torch::Tensor& input) {
  check_same_device_and_dtype(op, out, input);
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) % 2 == 0, op,
              ": the last dimension of input must be even, got shape ", input.sizes());
  auto expected = input.sizes().vec();
  expected.back() /= 2;
  TORCH_CHECK(out.sizes() == torch::IntArrayRef(expected), op, ": out must have shape ",
              torch::IntArrayRef(expected), " for input of shape ", input.sizes(), ", got ",
              out.sizes());
}

inline void check_elementwise(const char* op, const torch::Tensor& out,
                              const torch::Tensor& input) {
  check_same_device_and_dtype(op, out, input);
  TORCH_CHECK(out.sizes() == input.sizes(), op, ": out and input must have the same shape, got ",
              out.sizes(), " and ", input.sizes());
}

// Calls f(T{}) with T the C++ type of `dtype` (float, c10::Half or c10::BFloat16).
template <typename F>
void dispatch_floating(const char* op, at::ScalarType dtype, F&& f) {
  switch (dtype) {
    case at::ScalarType::Float:
      f(float{});
      break;
    case at::ScalarType::Half:
      f(c10::Half{});
      break;
    case at::ScalarType::BFloat16:
      f(c10::BFloat16{});
      break;
    default:
      TORCH_CHECK(false, op, ": unsupported dtype ", dtype,
                  "; expected float32, float16 or bfloat16");
  }
}

}  // namespace activation
