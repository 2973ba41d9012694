// Entry point of the CUTLASS/CuTe GEMM: the CUDA unit (gemm_cuda/) defines it.
#pragma once

#include <torch/torch.h>

// C = A @ B for 2-D float16 or bfloat16 CUDA tensors of one dtype on one device, accumulated in
// float32; any shapes (M x K) @ (K x N), any strides.
torch::Tensor mm(torch::Tensor const& a, torch::Tensor const& b);
