// The GEMM kernel type: CUTLASS 3.x's universal GEMM over an Ampere-style CuTe mainloop
// (cp.async multistage pipeline with predicated global loads, ldmatrix, mma.sync 16x8x16 with
// float32 accumulation). The same sm_80 instructions run on sm_90 (H100).
//
// Layouts (CUTLASS 3 convention, problem M x N x K): A is M x K with K contiguous (a row-major
// torch tensor); B is given as N x K with K contiguous (B^T of a row-major K x N tensor); D is
// M x N row-major. Global loads are 128-bit, so K must be a multiple of 8 and A/B 16-byte aligned
// (the caller pads); M and N may be anything (predicated loads, bounds-checked epilogue).
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/default_epilogue.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/collective/collective_mma.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/gemm.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/numeric_types.h>

namespace cutlass_gemm {

// The tensor-core instruction for each input type (float32 accumulators).
template <class Element>
struct MmaInstruction;
template <>
struct MmaInstruction<cutlass::half_t> {
  using type = cute::SM80_16x8x16_F32F16F16F32_TN;
};
template <>
struct MmaInstruction<cutlass::bfloat16_t> {
  using type = cute::SM80_16x8x16_F32BF16BF16F32_TN;
};

template <class Element>
struct GemmConfig {
  using TileShape = cute::Shape<cute::_128, cute::_128, cute::_64>;  // CTA tile M x N x K
  static constexpr int kStages = 3;                                   // 3 x 32 KiB of shared memory

  // 2 x 2 warps; the 32 x 32 x 16 permutation lets ldmatrix feed two MMAs along N per warp.
  using TiledMma = cute::TiledMMA<cute::MMA_Atom<typename MmaInstruction<Element>::type>,
                                  cute::Layout<cute::Shape<cute::_2, cute::_2, cute::_1>>,
                                  cute::Tile<cute::_32, cute::_32, cute::_16>>;

  // K-major shared-memory tiles of 8 x 64 elements, swizzled so that ldmatrix is conflict-free.
  using SmemLayoutAtom = decltype(cute::composition(
      cute::Swizzle<3, 3, 3>{}, cute::Layout<cute::Shape<cute::_8, cute::_64>, cute::Stride<cute::_64, cute::_1>>{}));
  using SmemCopyAtom = cute::Copy_Atom<cute::SM75_U32x4_LDSM_N, Element>;

  // 128 threads copy a 16 x 64 slab per step, 8 contiguous elements (128 bits) each, cp.async.
  using GmemTiledCopy = decltype(cute::make_tiled_copy(
      cute::Copy_Atom<cute::SM80_CP_ASYNC_CACHEALWAYS<cute::uint128_t>, Element>{},
      cute::Layout<cute::Shape<cute::_16, cute::_8>, cute::Stride<cute::_8, cute::_1>>{},
      cute::Layout<cute::Shape<cute::_1, cute::_8>>{}));

  using StrideA = cutlass::gemm::TagToStrideA_t<cutlass::layout::RowMajor>;     // M x K, K contiguous
  using StrideB = cutlass::gemm::TagToStrideB_t<cutlass::layout::ColumnMajor>;  // N x K, K contiguous
  using StrideD = cutlass::gemm::TagToStrideC_t<cutlass::layout::RowMajor>;     // M x N, N contiguous

  using Mainloop = cutlass::gemm::collective::CollectiveMma<
      cutlass::gemm::MainloopSm80CpAsync<kStages>, TileShape, Element, StrideA, Element, StrideB, TiledMma,
      GmemTiledCopy, SmemLayoutAtom, SmemCopyAtom, cute::identity,   // A
      GmemTiledCopy, SmemLayoutAtom, SmemCopyAtom, cute::identity>;  // B

  // D = 1 * accumulator (beta = 0: C is not read), converted to Element, bounds-checked per element.
  using Epilogue = cutlass::epilogue::collective::DefaultEpilogue<
      Element, StrideD, StrideD, cutlass::epilogue::thread::LinearCombination<Element, 1, float, float>,
      cutlass::gemm::EpilogueDefault>;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
};

// Runs D = A @ B^T (see the layout note above) on `stream`; returns CUTLASS's status.
template <class Element>
cutlass::Status run_gemm(int m, int n, int k, Element const* a, Element const* b_t, Element* d, cudaStream_t stream) {
  using Config = GemmConfig<Element>;
  using Gemm = typename Config::Gemm;
  // Packed strides (row, unit, batch) of the three matrices; one batch.
  typename Config::StrideA stride_a{int64_t(k), cute::Int<1>{}, int64_t(m) * k};
  typename Config::StrideB stride_b{int64_t(k), cute::Int<1>{}, int64_t(n) * k};
  typename Config::StrideD stride_d{int64_t(n), cute::Int<1>{}, int64_t(m) * n};
  typename Gemm::Arguments arguments{cutlass::gemm::GemmUniversalMode::kGemm,
                                     {m, n, k, 1},
                                     {a, stride_a, b_t, stride_b},
                                     {{1.0f, 0.0f}, d, stride_d, d, stride_d}};
  Gemm gemm;
  cutlass::Status status = gemm.can_implement(arguments);
  if (status != cutlass::Status::kSuccess) return status;
  status = gemm.initialize(arguments, nullptr, stream);  // no workspace: one CTA per output tile
  if (status != cutlass::Status::kSuccess) return status;
  return gemm.run(stream);
}

}  // namespace cutlass_gemm
