#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

// The op is registered under this build's ops id (TORCH_EXTENSION_NAME, defined by the
// builder), so several builds of the kernel can be loaded in one process.
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("{{ python_name }}(Tensor! out, Tensor input) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("{{ python_name }}", torch::kCPU, &{{ python_name }});
#elif defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
  ops.impl("{{ python_name }}", torch::kCUDA, &{{ python_name }});
#elif defined(METAL_KERNEL)
  ops.impl("{{ python_name }}", torch::kMPS, &{{ python_name }});
#elif defined(XPU_KERNEL)
  ops.impl("{{ python_name }}", torch::kXPU, &{{ python_name }});
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
