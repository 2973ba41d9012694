// The torch entry point of the CUTLASS/CuTe GEMM: checks the inputs, brings A and B into the
// layouts the kernel reads (cute_gemm.cuh), and launches it on the current stream through the
// torch-free launcher of gemm.cu (gemm_launch.h says why they are apart).
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include <cstdint>

#include "../torch-ext/torch_binding.h"
#include "gemm_launch.h"

namespace {

constexpr int64_t kAlignment = 8;  // elements per 128-bit load: K is padded to a multiple of it

bool aligned(torch::Tensor const& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0; }

// `t` (rows x k) as a contiguous, 16-byte aligned rows x k_padded tensor (zeros beyond k): zero
// columns add nothing to the dot products.
torch::Tensor k_contiguous(torch::Tensor const& t, int64_t k_padded) {
  if (t.size(1) == k_padded && t.is_contiguous() && aligned(t)) return t;
  auto padded = torch::zeros({t.size(0), k_padded}, t.options());
  padded.narrow(1, 0, t.size(1)).copy_(t);
  return padded;
}

void launch(cutlass_gemm::DType dtype, torch::Tensor const& a, torch::Tensor const& b_t, torch::Tensor& out) {
  const char* error = cutlass_gemm::launch_gemm(
      dtype, static_cast<int>(a.size(0)), static_cast<int>(b_t.size(0)), static_cast<int>(a.size(1)),
      a.data_ptr(), b_t.data_ptr(), out.data_ptr(), at::cuda::getCurrentCUDAStream());
  TORCH_CHECK(error == nullptr, "mm: the CUTLASS GEMM failed: ", error);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace

torch::Tensor mm(torch::Tensor const& a, torch::Tensor const& b) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "mm: a and b must be 2-D, got ", a.dim(), "-D and ", b.dim(), "-D");
  TORCH_CHECK(a.size(1) == b.size(0), "mm: shapes ", a.sizes(), " and ", b.sizes(), " cannot be multiplied");
  TORCH_CHECK(a.is_cuda() && b.is_cuda() && a.device() == b.device(), "mm: a and b must be on the same CUDA device, got ",
              a.device(), " and ", b.device());
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mm: a and b must have the same dtype, got ", a.scalar_type(),
              " and ", b.scalar_type());
  TORCH_CHECK(a.scalar_type() == at::kHalf || a.scalar_type() == at::kBFloat16,
              "mm: only float16 and bfloat16 are supported, got ", a.scalar_type());
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  TORCH_CHECK(m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX - kAlignment, "mm: dimensions must fit in 32 bits");

  const c10::cuda::CUDAGuard device_guard(a.device());
  auto out = torch::empty({m, n}, a.options());
  if (m == 0 || n == 0) return out;
  if (k == 0) return out.zero_();
  const int64_t k_padded = (k + kAlignment - 1) / kAlignment * kAlignment;
  auto a_k = k_contiguous(a, k_padded);
  auto b_t = k_contiguous(b.t(), k_padded);  // N x K, K contiguous: a copy unless b was a transposed view
  launch(a.scalar_type() == at::kHalf ? cutlass_gemm::DType::f16 : cutlass_gemm::DType::bf16, a_k, b_t, out);
  return out;
}
