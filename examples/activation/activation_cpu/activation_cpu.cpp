// CPU implementation of the activation ops. Work is split across threads with
// at::parallel_for over the flat output; inner loops are plain, branch-free loops over
// contiguous memory (values widened to float) so the compiler can vectorize them.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "../common/activation_math.h"
#include "../common/checks.h"
#include "../torch-ext/torch_binding.h"

namespace {

// Transcendentals make each element costlier than a copy, so threads pay off sooner than for
// relu.
constexpr int64_t kGrainSize = 8192;

// out[r, j] = act(in[r, j]) * in[r, d + j] for rows r of 2d inputs, walking the flat output.
template <typename T, typename Act>
void gated(T* __restrict__ out, const T* __restrict__ in, int64_t rows, int64_t d, Act act) {
  at::parallel_for(0, rows * d, kGrainSize, [&](int64_t begin, int64_t end) {
    int64_t row = begin / d;
    int64_t col = begin - row * d;
    int64_t i = begin;
    while (i < end) {
      // One contiguous run inside a row: no index arithmetic in the inner loop.
      const int64_t run = std::min(d - col, end - i);
      const T* gate = in + row * 2 * d + col;
      const T* up = gate + d;
      T* dst = out + i;
      for (int64_t k = 0; k < run; ++k) {
        dst[k] = static_cast<T>(act(static_cast<float>(gate[k])) * static_cast<float>(up[k]));
      }
      i += run;
      ++row;
      col = 0;
    }
  });
}

template <typename T, typename Act>
void elementwise(T* __restrict__ out, const T* __restrict__ in, int64_t numel, Act act) {
  at::parallel_for(0, numel, kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<T>(act(static_cast<float>(in[i])));
  });
}

template <typename Act>
void gated_op(const char* name, torch::Tensor& out, torch::Tensor const& input) {
  activation::check_gated(name, out, input);
  TORCH_CHECK(input.device().is_cpu(), name, ": input must be a CPU tensor");
  const int64_t d = input.size(-1) / 2;
  if (out.numel() == 0) return;
  const int64_t rows = out.numel() / d;
  activation::dispatch_floating(name, input.scalar_type(), [&](auto tag) {
    using scalar_t = decltype(tag);
    gated<scalar_t>(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), rows, d, Act{});
  });
}

template <typename Act>
void elementwise_op(const char* name, torch::Tensor& out, torch::Tensor const& input) {
  activation::check_elementwise(name, out, input);
  TORCH_CHECK(input.device().is_cpu(), name, ": input must be a CPU tensor");
  activation::dispatch_floating(name, input.scalar_type(), [&](auto tag) {
    using scalar_t = decltype(tag);
    elementwise<scalar_t>(out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), input.numel(),
                          Act{});
  });
}

}  // namespace

void silu_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::Silu>("silu_and_mul", out, input);
}

void gelu_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::Gelu>("gelu_and_mul", out, input);
}

void gelu_tanh_and_mul(torch::Tensor& out, torch::Tensor const& input) {
  gated_op<activation::GeluTanh>("gelu_tanh_and_mul", out, input);
}

void gelu_fast(torch::Tensor& out, torch::Tensor const& input) {
  elementwise_op<activation::GeluFast>("gelu_fast", out, input);
}

void gelu_tanh(torch::Tensor& out, torch::Tensor const& input) {
  elementwise_op<activation::GeluTanh>("gelu_tanh", out, input);
}
