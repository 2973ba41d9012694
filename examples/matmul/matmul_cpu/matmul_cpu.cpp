// CPU implementation of matmul: rows of `out` split across threads with at::parallel_for; per
// row, the i-k-j order streams a row of b into a row of out so the inner loop is a contiguous
// multiply-add the compiler vectorizes. K is blocked so the touched rows of b stay in cache.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int64_t kBlockK = 128;

void check(torch::Tensor const& out, torch::Tensor const& a, torch::Tensor const& b) {
  TORCH_CHECK(a.device().is_cpu(), "matmul: a must be a CPU tensor");
  TORCH_CHECK(b.device() == a.device() && out.device() == a.device(),
              "matmul: out, a and b must be on the same device");
  TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32 &&
                  out.scalar_type() == torch::kFloat32,
              "matmul: out, a and b must be float32");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && out.dim() == 2, "matmul: out, a and b must be 2-D");
  TORCH_CHECK(a.size(1) == b.size(0), "matmul: a is ", a.sizes(), " but b is ", b.sizes());
  TORCH_CHECK(out.size(0) == a.size(0) && out.size(1) == b.size(1), "matmul: out must be ",
              a.size(0), "x", b.size(1), ", got ", out.sizes());
  TORCH_CHECK(a.is_contiguous() && b.is_contiguous() && out.is_contiguous(),
              "matmul: out, a and b must be contiguous");
}

}  // namespace

void matmul(torch::Tensor& out, torch::Tensor const& a, torch::Tensor const& b) {
  check(out, a, b);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const float* __restrict__ pa = a.data_ptr<float>();
  const float* __restrict__ pb = b.data_ptr<float>();
  float* __restrict__ po = out.data_ptr<float>();
  at::parallel_for(0, m, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::fill(po + i * n, po + (i + 1) * n, 0.0f);
    }
    for (int64_t k0 = 0; k0 < k; k0 += kBlockK) {
      const int64_t k1 = std::min(k, k0 + kBlockK);
      for (int64_t i = begin; i < end; ++i) {
        float* __restrict__ row = po + i * n;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const float scale = pa[i * k + kk];
          const float* __restrict__ brow = pb + kk * n;
          for (int64_t j = 0; j < n; ++j) row[j] += scale * brow[j];
        }
      }
    }
  });
}
