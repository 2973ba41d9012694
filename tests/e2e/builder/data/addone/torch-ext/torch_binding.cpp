#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("addone(Tensor! out, Tensor input) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("addone", c10::kCPU, &addone);
#elif defined(CUDA_KERNEL)
  ops.impl("addone", c10::kCUDA, &addone);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
