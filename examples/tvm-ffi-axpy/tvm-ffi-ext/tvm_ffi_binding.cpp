// The functions the library exports through TVM-FFI (tvm_ffi.load_module(...).axpy_<backend>).
// Each build compiles only its backend's kernel unit, selected by CPU_KERNEL / CUDA_KERNEL.
#include <tvm/ffi/tvm_ffi.h>

#ifdef CPU_KERNEL
void axpy_cpu(tvm::ffi::TensorView out, tvm::ffi::TensorView x, tvm::ffi::TensorView y, double alpha);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_cpu, axpy_cpu);
#endif

#ifdef CUDA_KERNEL
void axpy_cuda(tvm::ffi::TensorView out, tvm::ffi::TensorView x, tvm::ffi::TensorView y, double alpha);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(axpy_cuda, axpy_cuda);
#endif
