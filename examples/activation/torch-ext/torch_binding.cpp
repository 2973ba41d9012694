// Registers the activation ops under this build's ops id (TORCH_EXTENSION_NAME).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

#if defined(CUDA_KERNEL)
#define ACTIVATION_DEVICE torch::kCUDA
#elif defined(CPU_KERNEL)
#define ACTIVATION_DEVICE torch::kCPU
#endif

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("silu_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_tanh_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_fast(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_tanh(Tensor! out, Tensor input) -> ()");
#if defined(ACTIVATION_DEVICE)
  ops.impl("silu_and_mul", ACTIVATION_DEVICE, &silu_and_mul);
  ops.impl("gelu_and_mul", ACTIVATION_DEVICE, &gelu_and_mul);
  ops.impl("gelu_tanh_and_mul", ACTIVATION_DEVICE, &gelu_tanh_and_mul);
  ops.impl("gelu_fast", ACTIVATION_DEVICE, &gelu_fast);
  ops.impl("gelu_tanh", ACTIVATION_DEVICE, &gelu_tanh);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
