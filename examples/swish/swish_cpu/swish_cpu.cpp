// CPU swish forward and backward: flat loops over contiguous float32 memory.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>

#include "../torch-ext/torch_binding.h"

namespace {

void check(torch::Tensor const& t, torch::Tensor const& like, const char* what) {
  TORCH_CHECK(t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous(),
              "swish: ", what, " must be a contiguous float32 CPU tensor");
  TORCH_CHECK(t.sizes() == like.sizes(), "swish: ", what, " has shape ", t.sizes(), ", expected ", like.sizes());
}

inline float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

}  // namespace

void swish_forward(torch::Tensor& out, torch::Tensor const& x) {
  check(x, x, "x");
  check(out, x, "out");
  const float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  at::parallel_for(0, x.numel(), 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = in[i] * sigmoid(in[i]);
  });
}

void swish_backward(torch::Tensor& grad_x, torch::Tensor const& grad_out, torch::Tensor const& x) {
  check(x, x, "x");
  check(grad_out, x, "grad_out");
  check(grad_x, x, "grad_x");
  const float* in = x.data_ptr<float>();
  const float* g = grad_out.data_ptr<float>();
  float* o = grad_x.data_ptr<float>();
  at::parallel_for(0, x.numel(), 16384, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float s = sigmoid(in[i]);
      o[i] = g[i] * (s + in[i] * s * (1.0f - s));
    }
  });
}
