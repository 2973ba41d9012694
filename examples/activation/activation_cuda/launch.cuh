// Bandwidth-oriented launchers of the activation ops: 128-bit loads and stores where the
// pointers (and, for gated ops, the row length) allow it, kUnroll independent packs per thread,
// one tile of packs per block (grid-stride beyond the grid limit). Leftovers that
// do not fill a whole tile are handled after the main loop, which therefore has no bounds checks.
#pragma once

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>

#include <algorithm>
#include <cstdint>

namespace activation_cuda {

constexpr int kThreads = 256;
// Packs each thread handles per tile. Measured on an H200 (2^24-2^28 elements, fp16/fp32, one
// launch after an L2 flush): one 16-byte pack per thread, one tile per block, ran at 99-101 % of
// a device-to-device copy; 4 packs per thread at 95-98 %. Many short blocks keep enough loads
// in flight; raise it only with a measurement that says so.
constexpr int kUnroll = 1;
constexpr int64_t kMaxGrid = 0x7fffffff;

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <typename T, typename Act>
__device__ __forceinline__ T apply(Act act, T x) {
  return static_cast<T>(act(static_cast<float>(x)));
}

template <typename T, typename Act>
__device__ __forceinline__ T apply_gated(Act act, T gate, T up) {
  return static_cast<T>(act(static_cast<float>(gate)) * static_cast<float>(up));
}

// out[i] = act(in[i]); V elements per pack (V == 1 when the pointers are not 16-byte aligned).
template <typename T, int V, typename Act>
__global__ void __launch_bounds__(kThreads)
    elementwise_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t numel, Act act) {
  using P = Pack<T, V>;
  const P* __restrict__ in_packs = reinterpret_cast<const P*>(in);
  P* __restrict__ out_packs = reinterpret_cast<P*>(out);
  const int64_t n_packs = numel / V;
  const int64_t tile = static_cast<int64_t>(blockDim.x) * kUnroll;
  const int64_t full_tiles = n_packs / tile;

  for (int64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    const int64_t base = t * tile + threadIdx.x;
    P packs[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) packs[u] = in_packs[base + u * blockDim.x];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) packs[u].v[k] = apply(act, packs[u].v[k]);
      out_packs[base + u * blockDim.x] = packs[u];
    }
  }

  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = full_tiles * tile + thread; p < n_packs; p += stride) {
    P pack = in_packs[p];
#pragma unroll
    for (int k = 0; k < V; ++k) pack.v[k] = apply(act, pack.v[k]);
    out_packs[p] = pack;
  }
  for (int64_t i = n_packs * V + thread; i < numel; i += stride) out[i] = apply(act, in[i]);
}

// out[r, j] = act(in[r, j]) * in[r, dp + j], in packs of V elements: dp = d / V packs per output
// row, 2 * dp per input row. Index is the integer type of pack indices (32-bit when they fit:
// the row division is then much cheaper).
template <typename T, int V, typename Index, typename Act>
__global__ void __launch_bounds__(kThreads)
    gated_kernel(T* __restrict__ out, const T* __restrict__ in, Index n_packs, Index dp, Act act) {
  using P = Pack<T, V>;
  const P* __restrict__ in_packs = reinterpret_cast<const P*>(in);
  P* __restrict__ out_packs = reinterpret_cast<P*>(out);
  const Index tile = static_cast<Index>(blockDim.x) * kUnroll;
  const Index full_tiles = n_packs / tile;

  for (Index t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    const Index base = t * tile + threadIdx.x;
    P gate[kUnroll];
    P up[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const Index p = base + u * blockDim.x;
      const Index row = p / dp;
      const Index first = p + row * dp;  // row * 2dp + (p - row * dp)
      gate[u] = in_packs[first];
      up[u] = in_packs[first + dp];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < V; ++k) gate[u].v[k] = apply_gated(act, gate[u].v[k], up[u].v[k]);
      out_packs[base + u * blockDim.x] = gate[u];
    }
  }

  const Index stride = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index p = full_tiles * tile + blockIdx.x * blockDim.x + threadIdx.x; p < n_packs;
       p += stride) {
    const Index row = p / dp;
    const Index first = p + row * dp;
    P gate = in_packs[first];
    const P up = in_packs[first + dp];
#pragma unroll
    for (int k = 0; k < V; ++k) gate.v[k] = apply_gated(act, gate.v[k], up.v[k]);
    out_packs[p] = gate;
  }
}

// One tile per block: short-lived blocks let the block scheduler balance the SMs to the end
// (as torch's own elementwise kernels do). The kernels still loop (grid-stride) in case the
// tile count exceeds the grid limit.
inline int grid_size(int64_t work_items) {
  const int64_t per_block = static_cast<int64_t>(kThreads) * kUnroll;
  const int64_t wanted = std::max<int64_t>(1, (work_items + per_block - 1) / per_block);
  return static_cast<int>(std::min<int64_t>(wanted, kMaxGrid));
}

inline bool aligned_16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <typename T, typename Act>
void launch_elementwise(T* out, const T* in, int64_t numel, Act act) {
  if (numel == 0) return;
  constexpr int kPack = 16 / sizeof(T);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (aligned_16(out) && aligned_16(in)) {
    elementwise_kernel<T, kPack>
        <<<grid_size(numel / kPack), kThreads, 0, stream>>>(out, in, numel, act);
  } else {
    elementwise_kernel<T, 1><<<grid_size(numel), kThreads, 0, stream>>>(out, in, numel, act);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename T, int V, typename Act>
void launch_gated_packed(T* out, const T* in, int64_t rows, int64_t d, Act act,
                         cudaStream_t stream) {
  const int64_t n_packs = rows * (d / V);
  const int grid = grid_size(n_packs);
  // The kernel forms input pack indices up to 2 * n_packs.
  if (2 * n_packs <= static_cast<int64_t>(UINT32_MAX)) {
    gated_kernel<T, V, uint32_t><<<grid, kThreads, 0, stream>>>(
        out, in, static_cast<uint32_t>(n_packs), static_cast<uint32_t>(d / V), act);
  } else {
    gated_kernel<T, V, uint64_t><<<grid, kThreads, 0, stream>>>(
        out, in, static_cast<uint64_t>(n_packs), static_cast<uint64_t>(d / V), act);
  }
}

// Packs need 16-byte aligned pointers and rows that are a whole number of packs.
template <typename T, typename Act>
void launch_gated(T* out, const T* in, int64_t rows, int64_t d, Act act) {
  if (rows == 0 || d == 0) return;
  constexpr int kPack = 16 / sizeof(T);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (aligned_16(out) && aligned_16(in) && d % kPack == 0) {
    launch_gated_packed<T, kPack>(out, in, rows, d, act, stream);
  } else {
    launch_gated_packed<T, 1>(out, in, rows, d, act, stream);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace activation_cuda
