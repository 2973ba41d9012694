// Entry point of the lookup-table kernel (one backend unit defines it).
#pragma once

#include <torch/torch.h>

// out[i] = linear interpolation of (xs, ys) at input[i], clamped to the table's ends. xs must be
// strictly increasing; all tensors float32, contiguous, on the CPU; out has input's shape.
void interpolate(torch::Tensor& out, torch::Tensor const& input, torch::Tensor const& xs, torch::Tensor const& ys);
