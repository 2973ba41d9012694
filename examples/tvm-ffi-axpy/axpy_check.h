// Argument checks shared by the CPU and CUDA kernels: out = alpha * x + y on float32 tensors of
// one shape, contiguous, all on the device the kernel runs on.
#pragma once

#include <tvm/ffi/tvm_ffi.h>

inline bool is_float32(const tvm::ffi::TensorView& t) {
  DLDataType dtype = t.dtype();
  return dtype.code == kDLFloat && dtype.bits == 32 && dtype.lanes == 1;
}

inline void check_axpy_arguments(const tvm::ffi::TensorView& out, const tvm::ffi::TensorView& x,
                                 const tvm::ffi::TensorView& y, DLDeviceType device) {
  const tvm::ffi::TensorView* tensors[] = {&out, &x, &y};
  const char* names[] = {"out", "x", "y"};
  for (int i = 0; i < 3; ++i) {
    const auto& t = *tensors[i];
    if (!is_float32(t)) TVM_FFI_THROW(TypeError) << "axpy: `" << names[i] << "` must be float32";
    if (!t.IsContiguous()) TVM_FFI_THROW(ValueError) << "axpy: `" << names[i] << "` must be contiguous";
    if (t.device().device_type != device || t.device().device_id != out.device().device_id) {
      TVM_FFI_THROW(ValueError) << "axpy: `" << names[i] << "` is on another device than this kernel's";
    }
    if (t.ndim() != out.ndim()) TVM_FFI_THROW(ValueError) << "axpy: `" << names[i] << "` has another shape than `out`";
    for (int d = 0; d < t.ndim(); ++d) {
      if (t.size(d) != out.size(d)) TVM_FFI_THROW(ValueError) << "axpy: `" << names[i] << "` has another shape than `out`";
    }
  }
}
