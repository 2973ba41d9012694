// Registers the relu op under this build's ops id (TORCH_EXTENSION_NAME, defined by the
// builder), so that several builds of the kernel can live in one process.
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("relu(Tensor! out, Tensor input) -> ()");
#if defined(CUDA_KERNEL)
  ops.impl("relu", torch::kCUDA, &relu);
#elif defined(CPU_KERNEL)
  ops.impl("relu", torch::kCPU, &relu);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
