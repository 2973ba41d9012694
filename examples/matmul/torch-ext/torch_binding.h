// Entry points of the matmul kernel. Each backend's unit (matmul_cpu/ or matmul_cuda/) defines
// the same function; the builder compiles exactly one of them into a variant.
#pragma once

#include <torch/torch.h>

// Writes a @ b into `out` (float32, row-major, contiguous): a is M×K, b is K×N, out is M×N.
// The example's compute-bound workload (2·M·N·K FLOPs over 4·(MK + KN + MN) bytes).
void matmul(torch::Tensor& out, torch::Tensor const& a, torch::Tensor const& b);
