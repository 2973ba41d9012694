// Entry points of the colliding-kernels example: one kernel unit per op and backend defines each.
#pragma once

#include <torch/torch.h>

// out[i] = x[i] * 2 + table[i % 4] + shift() with the twice unit's table and shift; float32,
// contiguous, out shaped like x, on the variant's device.
void twice(torch::Tensor& out, torch::Tensor const& x);
// The same with the thrice unit's factor 3, table and shift.
void thrice(torch::Tensor& out, torch::Tensor const& x);
