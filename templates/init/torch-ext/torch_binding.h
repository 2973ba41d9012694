#pragma once

#include <torch/torch.h>

// Writes `input + 1` into `out`. Each backend's kernel unit defines this function; the builder
// compiles exactly one backend into each variant.
void {{ python_name }}(torch::Tensor &out, torch::Tensor const &input);
