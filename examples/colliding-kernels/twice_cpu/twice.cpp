// The twice op on the CPU. Its helpers are deliberately not static: the thrice unit defines the
// same names (scale_factor, table, shift, Scaler::apply) with other values.
#include <torch/torch.h>

#include "../torch-ext/torch_binding.h"

int scale_factor() { return 2; }

float table[4] = {0.5f, 1.5f, 2.5f, 3.5f};

inline float shift() { return 0.25f; }

struct Scaler {
  float apply(float x) const;
};

float Scaler::apply(float x) const { return x * static_cast<float>(scale_factor()); }

void twice(torch::Tensor& out, torch::Tensor const& x) {
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
              "twice: x must be a contiguous float32 CPU tensor");
  TORCH_CHECK(out.device().is_cpu() && out.scalar_type() == torch::kFloat32 && out.is_contiguous() &&
                  out.sizes() == x.sizes(),
              "twice: out must be a contiguous float32 CPU tensor shaped like x");
  const float* in = x.data_ptr<float>();
  float* result = out.data_ptr<float>();
  const Scaler scaler;
  for (int64_t i = 0; i < x.numel(); ++i) result[i] = scaler.apply(in[i]) + table[i % 4] + shift();
}
