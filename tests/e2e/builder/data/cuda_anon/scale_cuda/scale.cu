#include <cstdint>

#include <cuda_runtime.h>

namespace {

__global__ void scale_kernel(float* out, const float* input, float factor, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = input[i] * factor;
}

}  // namespace

void scale_launch(float* out, const float* input, float factor, int64_t n, cudaStream_t stream) {
  int threads = 256;
  int blocks = static_cast<int>((n + threads - 1) / threads);
  scale_kernel<<<blocks, threads, 0, stream>>>(out, input, factor, n);
}
