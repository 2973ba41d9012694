// Registers the matmul op under this build's ops id (TORCH_EXTENSION_NAME, defined by the
// builder), so that several builds of the kernel can live in one process.
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("matmul(Tensor! out, Tensor a, Tensor b) -> ()");
#if defined(CUDA_KERNEL)
  ops.impl("matmul", torch::kCUDA, &matmul);
#elif defined(CPU_KERNEL)
  ops.impl("matmul", torch::kCPU, &matmul);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
