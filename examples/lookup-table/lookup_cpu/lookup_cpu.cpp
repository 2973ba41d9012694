// CPU piecewise-linear interpolation over a table given at run time (binary search per element).
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>

#include "../torch-ext/torch_binding.h"

void interpolate(torch::Tensor& out, torch::Tensor const& input, torch::Tensor const& xs, torch::Tensor const& ys) {
  const std::array<const torch::Tensor*, 4> all = {&out, &input, &xs, &ys};
  for (const torch::Tensor* t : all) {
    TORCH_CHECK(t->device().is_cpu() && t->scalar_type() == torch::kFloat && t->is_contiguous(),
                "interpolate: tensors must be contiguous float32 CPU tensors");
  }
  TORCH_CHECK(xs.dim() == 1 && xs.sizes() == ys.sizes() && xs.numel() >= 2, "interpolate: xs and ys must be 1-D, same size, >= 2");
  TORCH_CHECK(out.sizes() == input.sizes(), "interpolate: out must have input's shape");
  const float* x = xs.data_ptr<float>();
  const float* y = ys.data_ptr<float>();
  const int64_t n = xs.numel();
  const float* in = input.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, input.numel(), 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float v = in[i];
      if (v <= x[0]) { o[i] = y[0]; continue; }
      if (v >= x[n - 1]) { o[i] = y[n - 1]; continue; }
      const int64_t hi = std::upper_bound(x, x + n, v) - x;  // x[hi - 1] <= v < x[hi]
      const float t = (v - x[hi - 1]) / (x[hi] - x[hi - 1]);
      o[i] = y[hi - 1] + t * (y[hi] - y[hi - 1]);
    }
  });
}
