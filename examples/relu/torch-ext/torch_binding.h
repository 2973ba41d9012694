// Entry points of the relu kernel. Each backend's unit (relu_cpu/ or relu_cuda/) defines the
// same function; the builder compiles exactly one of them into a variant.
#pragma once

#include <torch/torch.h>

// Writes max(input, 0) into `out`. Both tensors must be contiguous, on the same device, and have
// the same shape and floating dtype. NaN inputs propagate, as with torch.relu.
void relu(torch::Tensor& out, torch::Tensor const& input);
