// The device side of the GEMM: CUTLASS's kernel for each dtype, behind the torch-free launcher
// of gemm_launch.h (which says why the torch side lives in gemm_host.cpp).
#include "gemm_launch.h"

#include "cute_gemm.cuh"

namespace cutlass_gemm {
namespace {

template <class Element>
const char* launch(int m, int n, int k, const void* a, const void* b_t, void* d, cudaStream_t stream) {
  cutlass::Status status = run_gemm<Element>(m, n, k, static_cast<Element const*>(a),
                                             static_cast<Element const*>(b_t), static_cast<Element*>(d), stream);
  return status == cutlass::Status::kSuccess ? nullptr : cutlassGetStatusString(status);
}

}  // namespace

const char* launch_gemm(DType dtype, int m, int n, int k, const void* a, const void* b_t, void* d,
                        cudaStream_t stream) {
  switch (dtype) {
    case DType::f16:
      return launch<cutlass::half_t>(m, n, k, a, b_t, d, stream);
    case DType::bf16:
      return launch<cutlass::bfloat16_t>(m, n, k, a, b_t, d, stream);
  }
  return "unknown dtype";
}

}  // namespace cutlass_gemm
