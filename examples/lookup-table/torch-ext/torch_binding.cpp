// Registers the interpolate op under this build's ops id (TORCH_EXTENSION_NAME).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("interpolate(Tensor! out, Tensor input, Tensor xs, Tensor ys) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("interpolate", torch::kCPU, &interpolate);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
