// Registers the GEMM op under this build's ops id (TORCH_EXTENSION_NAME, defined by the builder).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("mm(Tensor a, Tensor b) -> Tensor");
#if defined(CUDA_KERNEL)
  ops.impl("mm", torch::kCUDA, &mm);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
