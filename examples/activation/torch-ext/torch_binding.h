// Entry points of the activation kernel. The CPU unit and the CUDA unit each define all of
// them; a variant contains exactly one of the two.
#pragma once

#include <torch/torch.h>

// Gated activations: input [..., 2d] -> out [..., d] with out = act(input[..., :d]) * input[..., d:].
void silu_and_mul(torch::Tensor& out, torch::Tensor const& input);
void gelu_and_mul(torch::Tensor& out, torch::Tensor const& input);
void gelu_tanh_and_mul(torch::Tensor& out, torch::Tensor const& input);

// Elementwise activations: out has the shape of input.
void gelu_fast(torch::Tensor& out, torch::Tensor const& input);
void gelu_tanh(torch::Tensor& out, torch::Tensor const& input);
