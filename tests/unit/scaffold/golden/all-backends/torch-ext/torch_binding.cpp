#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

// The op is registered under this build's ops id (TORCH_EXTENSION_NAME, defined by the
// builder), so several builds of the kernel can be loaded in one process.
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("my_kernel(Tensor! out, Tensor input) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("my_kernel", torch::kCPU, &my_kernel);
#elif defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
  ops.impl("my_kernel", torch::kCUDA, &my_kernel);
#elif defined(METAL_KERNEL)
  ops.impl("my_kernel", torch::kMPS, &my_kernel);
#elif defined(XPU_KERNEL)
  ops.impl("my_kernel", torch::kXPU, &my_kernel);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
