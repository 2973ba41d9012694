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

// sqrt(2 / pi), the constant of the tanh approximation of GELU.
constexpr float kSqrt2OverPi = 0.7978845608f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kInvSqrt2 = 0.70710678118654752f;

// x * sigmoid(x)
struct Silu {
  ACTIVATION_FN float operator()(float x) const { return x / (1.0f + expf(-x)); }
};

// Exact GELU: x * Phi(x).
struct Gelu {
  ACTIVATION_FN float operator()(float x) const { return 0.5f * x * (1.0f + erff(x * kInvSqrt2)); }
};

// GELU, tanh approximation (torch's approximate="tanh").
struct GeluTanh {
  ACTIVATION_FN float operator()(float x) const {
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
  }
};

// The "fast" GELU formulation: the tanh approximation factored as x * (1 + c x^2).
struct GeluFast {
  ACTIVATION_FN float operator()(float x) const {
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * x * (1.0f + kGeluCubic * x * x)));
  }
};

}  // namespace activation
