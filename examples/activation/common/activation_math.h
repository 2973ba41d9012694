// The activation functions, in float, shared by the CPU and CUDA units so both compute the
// same formulas. Half and bfloat16 inputs are widened to float, computed, and rounded once.
#pragma once

#include <math.h>

#if defined(__CUDACC__)
#define ACTIVATION_FN __host__ __device__ __forceinline__
#else
#define ACTIVATION_FN inline
#endif

namespace activation {

// e^x. On the GPU the hardware exp2 (ex2.approx, flushing subnormals): a few instructions
// instead of a few dozen, which keeps the ops memory-bound; its error (a few ulp for the
// arguments that matter) is far below what float16/bfloat16 can show and within float32 test
// tolerances. Subnormal results only arise where they are added to 1, so flushing them to zero
// changes nothing; without the flush each call pays for range checks and rescaling.
ACTIVATION_FN float exp_fast(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.4426950408889634f));
  return y;
#else
  return expf(x);
#endif
}

// a / b for b >= 1 (every quotient here is x / (1 + e^t)). On the GPU a hardware reciprocal
// (rcp.approx, 1 ulp) and a multiply: IEEE division is a multi-instruction sequence that made the
// tanh-form GELUs compute-bound on an H200 (72 % of copy bandwidth in fp16, 0.86x torch). For
// b = inf (e^t overflowed) the reciprocal is 0, the quotient's limit.
ACTIVATION_FN float div_fast(float a, float b) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  return a * r;
#else
  return a / b;
#endif
}

// sqrt(2 / pi), the constant of the tanh approximation of GELU.
constexpr float kSqrt2OverPi = 0.7978845608f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kInvSqrt2 = 0.70710678118654752f;

// x * sigmoid(x)
struct Silu {
  ACTIVATION_FN float operator()(float x) const { return div_fast(x, 1.0f + exp_fast(-x)); }
};

// Exact GELU: x * Phi(x).
struct Gelu {
  ACTIVATION_FN float operator()(float x) const { return 0.5f * x * (1.0f + erff(x * kInvSqrt2)); }
};

// 0.5 x (1 + tanh(u)) rewritten as x * sigmoid(2u) = x / (1 + e^(-2u)): one exp and one
// division instead of tanh, and no cancellation in 1 + tanh(u) for negative u.
ACTIVATION_FN float half_x_one_plus_tanh(float x, float u) {
  return div_fast(x, 1.0f + exp_fast(-2.0f * u));
}

// GELU, tanh approximation (torch's approximate="tanh"): 0.5 x (1 + tanh(c (x + 0.044715 x^3))).
struct GeluTanh {
  ACTIVATION_FN float operator()(float x) const {
    return half_x_one_plus_tanh(x, kSqrt2OverPi * (x + kGeluCubic * x * x * x));
  }
};

// The "fast" GELU: 0.5 x (1 + tanh(0.7978845608 x (1 + 0.044715 x^2))).
struct GeluFast {
  ACTIVATION_FN float operator()(float x) const {
    return half_x_one_plus_tanh(x, kSqrt2OverPi * x * (1.0f + kGeluCubic * x * x));
  }
};

}  // namespace activation
