// Tests of CUDA/ROCm arch selection (docs/variants.md).
#include "variant/cuda_capabilities.h"

#include <gtest/gtest.h>

#include "variant/rocm_archs.h"

namespace kb::variant {
namespace {
namespace KB_UNITY_ID {

using Caps = std::vector<std::string>;

config::Version v(uint64_t major, uint64_t minor) { return config::Version({major, minor}); }

TEST(DefaultCudaCapabilities, ByNvccVersion) {
  EXPECT_EQ(default_cuda_capabilities(v(12, 6)), (Caps{"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0+PTX"}));
  EXPECT_EQ(default_cuda_capabilities(v(12, 8)).back(), "12.0+PTX");
  EXPECT_EQ(default_cuda_capabilities(v(12, 9)).size(), 11u);
  EXPECT_EQ(default_cuda_capabilities(v(13, 0)).front(), "7.5");
  EXPECT_EQ(default_cuda_capabilities(v(13, 2)).back(), "12.1+PTX");
}

TEST(CudaTargetCapabilities, StripsPtxAndSortsNaturally) {
  EXPECT_EQ(cuda_target_capabilities(v(12, 8)),
            (Caps{"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.1", "12.0"}));
}

TEST(CudaTargetCapabilities, AddsTenThreeAndTwelveOneFromNvcc129) {
  EXPECT_EQ(cuda_extra_capabilities(v(12, 8)), Caps{});
  EXPECT_EQ(cuda_extra_capabilities(v(12, 9)), (Caps{"10.3", "12.1"}));
  EXPECT_EQ(cuda_target_capabilities(v(12, 9)),
            (Caps{"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.1", "10.3", "12.0", "12.1"}));
  EXPECT_EQ(cuda_target_capabilities(v(13, 0)),
            (Caps{"7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"}));
  // Not in the default (distributable) list: built only when a unit asks for them.
  EXPECT_EQ(default_cuda_capabilities(v(12, 9)).size(), 11u);
}

TEST(IntersectCudaCapabilities, TenThreeAndTwelveOneNeedNvcc129) {
  auto t128 = cuda_target_capabilities(v(12, 8));
  auto t129 = cuda_target_capabilities(v(12, 9));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"9.0", "10.3a", "12.1"}, t128), (Caps{"9.0"}));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"9.0", "10.3a", "12.1"}, t129), (Caps{"9.0", "10.3a", "12.1"}));
  // A plain 10.0 request still covers the 10.3 target with its own 10.0 build.
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"10.0"}, t129), (Caps{"10.0"}));
  EXPECT_EQ(*cuda_gencode_flags({"10.3a", "12.1"}),
            (Caps{"-gencode", "arch=compute_103a,code=sm_103a", "-gencode", "arch=compute_121,code=sm_121"}));
}

TEST(NaturalLess, ComparesDigitRunsNumerically) {
  EXPECT_TRUE(natural_less("9.0", "10.0"));
  EXPECT_TRUE(natural_less("9.0", "9.0a"));
  EXPECT_TRUE(natural_less("9.0a", "10.0"));
  EXPECT_FALSE(natural_less("10.0", "9.0"));
  EXPECT_FALSE(natural_less("8.0", "8.0"));
}

TEST(IntersectCudaCapabilities, SpecExamples) {
  auto t126 = cuda_target_capabilities(v(12, 6));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"5.0", "7.5", "8.0", "9.0"}, t126), (Caps{"7.5", "8.0", "9.0"}));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"8.0+PTX"}, t126), (Caps{"8.0+PTX"}));
  auto t128 = cuda_target_capabilities(v(12, 8));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"7.5", "8.0", "8.6", "9.0", "9.0a"}, t128),
            (Caps{"7.5", "8.0", "8.6", "9.0a"}));
}

TEST(IntersectCudaCapabilities, EmptyIsAnError) {
  auto t126 = cuda_target_capabilities(v(12, 6));
  auto r = intersect_cuda_capabilities("relu", {"99999.0"}, t126);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "CUDA kernel: relu, empty set of capabilities after intersection (kernel: 99999.0, supported: "
            "7.0;7.2;7.5;8.0;8.6;8.7;8.9;9.0)");
}

TEST(IntersectCudaCapabilities, FamilyWithoutTargetIsDropped) {
  auto t126 = cuda_target_capabilities(v(12, 6));
  // 10.0a has no 10.0 target on CUDA 12.6; 8.0 remains.
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"8.0", "10.0a"}, t126), (Caps{"8.0"}));
  auto t130 = cuda_target_capabilities(v(13, 0));
  EXPECT_EQ(*intersect_cuda_capabilities("k", {"8.0", "9.0a", "10.0f+PTX"}, t130), (Caps{"8.0", "9.0a", "10.0f+PTX"}));
}

TEST(UnitCudaCapabilities, DefaultsWithoutRequest) {
  EXPECT_EQ(*unit_cuda_capabilities("k", std::nullopt, v(12, 6)), default_cuda_capabilities(v(12, 6)));
  EXPECT_EQ(*unit_cuda_capabilities("k", Caps{"8.0"}, v(12, 6)), (Caps{"8.0"}));
}

TEST(CudaGencodeFlags, SassAndPtx) {
  EXPECT_EQ(*cuda_gencode_flags({"8.0", "9.0a", "10.0f", "12.0+PTX"}),
            (Caps{"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=sm_90a", "-gencode",
                  "arch=compute_100f,code=sm_100f", "-gencode", "arch=compute_120,code=sm_120", "-gencode",
                  "arch=compute_120,code=compute_120"}));
  EXPECT_FALSE(cuda_gencode_flags({"sm80"}));
}

TEST(SplitCompileReproducible, BelowTenWithNvcc13Only) {
  EXPECT_TRUE(split_compile_reproducible(v(13, 0), {"7.5", "8.0", "8.6", "8.9", "9.0", "9.0a", "8.0+PTX"}));
  EXPECT_TRUE(split_compile_reproducible(v(13, 2), {"9.0"}));
  EXPECT_FALSE(split_compile_reproducible(v(13, 0), {"9.0", "10.0"}));
  EXPECT_FALSE(split_compile_reproducible(v(13, 0), {"12.0"}));
  EXPECT_FALSE(split_compile_reproducible(v(13, 0), default_cuda_capabilities(v(13, 0))));
  EXPECT_FALSE(split_compile_reproducible(v(12, 9), {"9.0"}));  // not measured
  EXPECT_FALSE(split_compile_reproducible(v(13, 0), {"sm90"}));
}

TEST(IntersectRocmArchs, SpecExample) {
  EXPECT_EQ(*intersect_rocm_archs("k", {"gfx90a", "gfx940", "gfx942", "gfx1100"}), (Caps{"gfx1100", "gfx90a", "gfx942"}));
  auto r = intersect_rocm_archs("relu_rocm", {"gfx940"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "ROCm kernel: relu_rocm, empty set of architectures after intersection (kernel: gfx940, supported: "
            "gfx906;gfx908;gfx90a;gfx942;gfx950;gfx1030;gfx1100;gfx1101;gfx1200;gfx1201)");
  EXPECT_EQ(*unit_rocm_archs("k", std::nullopt), supported_rocm_archs());
  EXPECT_EQ(rocm_offload_flags({"gfx942"}), (Caps{"--offload-arch=gfx942"}));
}

TEST(RecordedArchs, UnionSortedBytewise) {
  EXPECT_EQ(recorded_archs({{"7.5", "10.0"}, {"9.0+PTX", "7.5"}}), (Caps{"10.0", "7.5", "9.0+PTX"}));
  EXPECT_EQ(recorded_archs({default_cuda_capabilities(v(12, 6))}),
            (Caps{"7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0+PTX"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::variant
