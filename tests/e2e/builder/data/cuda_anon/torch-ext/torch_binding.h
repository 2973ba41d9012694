#pragma once

#include <torch/torch.h>

void scale(torch::Tensor& out, const torch::Tensor& input, double factor);
