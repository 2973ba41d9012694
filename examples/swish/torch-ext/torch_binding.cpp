// Registers the swish ops under this build's ops id (TORCH_EXTENSION_NAME).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("swish_forward(Tensor! out, Tensor x) -> ()");
  ops.def("swish_backward(Tensor! grad_x, Tensor grad_out, Tensor x) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("swish_forward", torch::kCPU, &swish_forward);
  ops.impl("swish_backward", torch::kCPU, &swish_backward);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
