// Entry point of the leaky-relu kernel, written against Torch's stable ABI only: the variant
// built with it loads into any Torch >= 2.11 without a rebuild.
#pragma once

#include <torch/csrc/stable/tensor.h>

// Returns x for x >= 0 and negative_slope * x otherwise, in a new tensor shaped like input.
// float32, float16 and bfloat16; NaN propagates.
torch::stable::Tensor leaky_relu(torch::stable::Tensor input, double negative_slope);
