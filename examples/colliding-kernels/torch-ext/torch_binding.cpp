// Registers the twice and thrice ops under this build's ops id (TORCH_EXTENSION_NAME).
#include <torch/library.h>

#include "registration.h"
#include "torch_binding.h"

#if defined(CUDA_KERNEL)
#define COLLIDING_DEVICE torch::kCUDA
#elif defined(CPU_KERNEL)
#define COLLIDING_DEVICE torch::kCPU
#endif

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("twice(Tensor! out, Tensor x) -> ()");
  ops.def("thrice(Tensor! out, Tensor x) -> ()");
#if defined(COLLIDING_DEVICE)
  ops.impl("twice", COLLIDING_DEVICE, &twice);
  ops.impl("thrice", COLLIDING_DEVICE, &thrice);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
