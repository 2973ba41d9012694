// Entry points of the swish kernel: forward and its gradient (one backend unit defines them).
#pragma once

#include <torch/torch.h>

// out = x * sigmoid(x). float32, contiguous, same shape.
void swish_forward(torch::Tensor& out, torch::Tensor const& x);
// grad_x = grad_out * (s + x * s * (1 - s)) with s = sigmoid(x).
void swish_backward(torch::Tensor& grad_x, torch::Tensor const& grad_out, torch::Tensor const& x);
