// Registers leaky_relu through the stable-ABI registration macros under this build's ops id.
#include <torch/csrc/stable/library.h>

#include "registration.h"
#include "torch_binding.h"

STABLE_TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("leaky_relu(Tensor input, float negative_slope) -> Tensor");
}

#if defined(CUDA_KERNEL)
STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CUDA, ops) {
  ops.impl("leaky_relu", TORCH_BOX(&leaky_relu));
}
#elif defined(CPU_KERNEL)
STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CPU, ops) {
  ops.impl("leaky_relu", TORCH_BOX(&leaky_relu));
}
#endif

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
