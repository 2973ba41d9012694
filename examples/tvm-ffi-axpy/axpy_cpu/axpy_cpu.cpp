// out = alpha * x + y on the CPU.
#include <cstdint>

#include "axpy_check.h"

void axpy_cpu(tvm::ffi::TensorView out, tvm::ffi::TensorView x, tvm::ffi::TensorView y, double alpha) {
  check_axpy_arguments(out, x, y, kDLCPU);
  const float* xs = static_cast<const float*>(x.data_ptr());
  const float* ys = static_cast<const float*>(y.data_ptr());
  float* outs = static_cast<float*>(out.data_ptr());
  const float a = static_cast<float>(alpha);
  for (int64_t i = 0, n = out.numel(); i < n; ++i) outs[i] = a * xs[i] + ys[i];
}
