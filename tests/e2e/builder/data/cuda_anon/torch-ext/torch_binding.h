#pragma once

// ATen's Tensor rather than <torch/torch.h>: the same types, a fifth of the parse time.
#include <ATen/core/Tensor.h>

void scale(at::Tensor& out, const at::Tensor& input, double factor);
