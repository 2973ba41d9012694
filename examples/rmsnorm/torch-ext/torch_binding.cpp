// Registers the rmsnorm op under this build's ops id (TORCH_EXTENSION_NAME).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

#if defined(CUDA_KERNEL)
#define RMSNORM_DEVICE torch::kCUDA
#elif defined(CPU_KERNEL)
#define RMSNORM_DEVICE torch::kCPU
#endif

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("rms_norm(Tensor! out, Tensor input, Tensor weight, float epsilon) -> ()");
#if defined(RMSNORM_DEVICE)
  ops.impl("rms_norm", RMSNORM_DEVICE, &rms_norm);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
