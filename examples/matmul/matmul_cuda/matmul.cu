// CUDA implementation of matmul: a shared-memory tiled SGEMM. Each 256-thread block computes a
// 64×64 tile of `out`, staging 64×16 of a and 16×64 of b in shared memory per step; each thread
// accumulates a 4×4 register block (rows ty + 16·i, columns tx + 16·j, so the reads of b's tile
// are consecutive across a warp). a's tile is stored transposed with one column of padding so the
// staging stores do not collide on a bank. Plain FP32 FMAs, no tensor cores: the example's
// compute-bound workload, compared in the benchmark with the device's FP32 peak.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/all.h>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int kTile = 64;     // rows and columns of out per block
constexpr int kStep = 16;     // K per shared-memory step
constexpr int kThreads = 256; // 16 × 16 threads, each 4 × 4 outputs
constexpr int kSide = 16;
constexpr int kPer = kTile / kSide;

__global__ void __launch_bounds__(kThreads)
    sgemm_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                int m, int n, int k) {
  __shared__ float a_tile[kStep][kTile + 1];
  __shared__ float b_tile[kStep][kTile];
  const int tx = threadIdx.x % kSide;
  const int ty = threadIdx.x / kSide;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  float acc[kPer][kPer] = {};

  for (int k0 = 0; k0 < k; k0 += kStep) {
    for (int l = threadIdx.x; l < kTile * kStep; l += kThreads) {
      const int r = l / kStep, kk = l % kStep;
      const int gr = row0 + r, gk = k0 + kk;
      a_tile[kk][r] = (gr < m && gk < k) ? a[static_cast<int64_t>(gr) * k + gk] : 0.0f;
    }
    for (int l = threadIdx.x; l < kStep * kTile; l += kThreads) {
      const int kk = l / kTile, c = l % kTile;
      const int gk = k0 + kk, gc = col0 + c;
      b_tile[kk][c] = (gk < k && gc < n) ? b[static_cast<int64_t>(gk) * n + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kStep; ++kk) {
      float av[kPer], bv[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) av[i] = a_tile[kk][ty + kSide * i];
#pragma unroll
      for (int j = 0; j < kPer; ++j) bv[j] = b_tile[kk][tx + kSide * j];
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPer; ++i) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int r = row0 + ty + kSide * i, c = col0 + tx + kSide * j;
      if (r < m && c < n) out[static_cast<int64_t>(r) * n + c] = acc[i][j];
    }
  }
}

}  // namespace

void matmul(torch::Tensor& out, torch::Tensor const& a, torch::Tensor const& b) {
  TORCH_CHECK(a.is_cuda(), "matmul: a must be a CUDA tensor");
  TORCH_CHECK(b.device() == a.device() && out.device() == a.device(),
              "matmul: out, a and b must be on the same device");
  TORCH_CHECK(a.scalar_type() == torch::kFloat32 && b.scalar_type() == torch::kFloat32 &&
                  out.scalar_type() == torch::kFloat32,
              "matmul: out, a and b must be float32");
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && out.dim() == 2, "matmul: out, a and b must be 2-D");
  TORCH_CHECK(a.size(1) == b.size(0), "matmul: a is ", a.sizes(), " but b is ", b.sizes());
  TORCH_CHECK(out.size(0) == a.size(0) && out.size(1) == b.size(1), "matmul: out must be ",
              a.size(0), "x", b.size(1), ", got ", out.sizes());
  TORCH_CHECK(a.is_contiguous() && b.is_contiguous() && out.is_contiguous(),
              "matmul: out, a and b must be contiguous");
  TORCH_CHECK(a.size(0) <= INT32_MAX && a.size(1) <= INT32_MAX && b.size(1) <= INT32_MAX,
              "matmul: dimensions must fit in 32 bits");
  const int m = static_cast<int>(a.size(0)), k = static_cast<int>(a.size(1)), n = static_cast<int>(b.size(1));
  if (m == 0 || n == 0) return;

  const c10::cuda::CUDAGuard device_guard(a.device());
  const dim3 grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  sgemm_tiled<<<grid, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), m, n, k);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
