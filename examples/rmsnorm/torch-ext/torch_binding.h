// Entry point of the rmsnorm kernel. Each backend's unit (rmsnorm_cpu/ or rmsnorm_cuda/) defines
// it; the builder compiles exactly one of them into a variant.
#pragma once

#include <torch/torch.h>

// Writes input / sqrt(mean(input^2 over the last dimension) + epsilon) * weight into `out`.
// `input` and `out` are contiguous with the same shape and dtype; `weight` is contiguous, has
// the size of the last dimension and the same dtype. Accumulates in float (double for double).
void rms_norm(torch::Tensor& out, torch::Tensor const& input, torch::Tensor const& weight,
              double epsilon);
