// CUDA implementation of leaky_relu using only the stable ABI: torch::stable tensors and ops,
// the stable device guard, and the stable C shim for the current stream. Element types are
// CUDA's own (__half, __nv_bfloat16); the kernel uses 128-bit loads and stores when aligned.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/util/Exception.h>
#include <torch/headeronly/util/shim_utils.h>

#include <algorithm>
#include <cstdint>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;
constexpr int kBlocksPerSm = 2048 / kThreads;

template <typename T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

template <typename T>
__device__ __forceinline__ T leaky(T value, float slope) {
  const float x = to_float(value);
  return from_float<T>(x < 0.0f ? x * slope : x);
}

template <typename T, int V>
__global__ void __launch_bounds__(kThreads)
    leaky_relu_kernel(T* __restrict__ out, const T* __restrict__ in, int64_t numel, float slope) {
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
      for (int k = 0; k < V; ++k) packs[u].v[k] = leaky(packs[u].v[k], slope);
      out_packs[base + u * blockDim.x] = packs[u];
    }
  }
  const int64_t thread = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t p = full_tiles * tile + thread; p < n_packs; p += stride) {
    P pack = in_packs[p];
#pragma unroll
    for (int k = 0; k < V; ++k) pack.v[k] = leaky(pack.v[k], slope);
    out_packs[p] = pack;
  }
  for (int64_t i = n_packs * V + thread; i < numel; i += stride) out[i] = leaky(in[i], slope);
}

template <typename T>
void launch(void* out, const void* in, int64_t numel, float slope, int device,
            cudaStream_t stream) {
  if (numel == 0) return;
  constexpr int kPack = 16 / sizeof(T);
  int sms = 0;
  STD_TORCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) ==
                      cudaSuccess,
                  "leaky_relu: cannot query the device");
  const bool aligned = reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
  const int vec = aligned ? kPack : 1;
  const int64_t per_block = static_cast<int64_t>(kThreads) * kUnroll;
  const int64_t wanted = std::max<int64_t>(1, (numel / vec + per_block - 1) / per_block);
  const int grid = static_cast<int>(std::min<int64_t>(wanted, int64_t{sms} * kBlocksPerSm));
  T* o = static_cast<T*>(out);
  const T* i = static_cast<const T*>(in);
  if (aligned) {
    leaky_relu_kernel<T, kPack><<<grid, kThreads, 0, stream>>>(o, i, numel, slope);
  } else {
    leaky_relu_kernel<T, 1><<<grid, kThreads, 0, stream>>>(o, i, numel, slope);
  }
  const cudaError_t error = cudaGetLastError();
  STD_TORCH_CHECK(error == cudaSuccess, "leaky_relu: kernel launch failed: ",
                  cudaGetErrorString(error));
}

}  // namespace

torch::stable::Tensor leaky_relu(torch::stable::Tensor input, double negative_slope) {
  STD_TORCH_CHECK(input.is_cuda(), "leaky_relu: input must be a CUDA tensor");
  const int32_t device = input.get_device_index();
  const torch::stable::accelerator::DeviceGuard guard(device);
  const torch::stable::Tensor x = torch::stable::contiguous(input);
  torch::stable::Tensor out = torch::stable::empty_like(x);
  void* stream = nullptr;
  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(device, &stream));
  const auto s = static_cast<cudaStream_t>(stream);
  const float slope = static_cast<float>(negative_slope);
  using torch::headeronly::ScalarType;
  switch (x.scalar_type()) {
    case ScalarType::Float:
      launch<float>(out.mutable_data_ptr(), x.const_data_ptr(), x.numel(), slope, device, s);
      break;
    case ScalarType::Half:
      launch<__half>(out.mutable_data_ptr(), x.const_data_ptr(), x.numel(), slope, device, s);
      break;
    case ScalarType::BFloat16:
      launch<__nv_bfloat16>(out.mutable_data_ptr(), x.const_data_ptr(), x.numel(), slope, device,
                            s);
      break;
    default:
      STD_TORCH_CHECK(false, "leaky_relu: unsupported dtype ",
                      torch::headeronly::toString(x.scalar_type()),
                      "; expected float32, float16 or bfloat16");
  }
  return out;
}
