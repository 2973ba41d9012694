// select_variant's CPU fallback (docs/loader.md) and no_variant_error's hints (selection.h).
#include <gtest/gtest.h>

#include "loader/selection.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

const std::string kCpu = "torch211-cxx11-cpu-x86_64-linux";
const std::string kCuda = "torch211-cxx11-cu128-x86_64-linux";

SystemInfo cuda_without_device() {
  SystemInfo s;
  s.backend = "cuda";
  s.backend_version = "12.8";
  s.detected_backend = "cuda";
  s.detected_backend_version = "12.8";
  s.torch_version = "2.11";
  s.cxx11 = true;
  s.device_available = false;
  return s;
}

TEST(SelectVariant, FallsBackToCpuWithoutDevice) {
  auto selection = select_variant({kCpu}, cuda_without_device());
  ASSERT_TRUE(selection.best);
  EXPECT_EQ(*selection.best, kCpu);
  ASSERT_TRUE(selection.fallback_from);
  EXPECT_EQ(selection.fallback_from->backend, "cuda");
  EXPECT_EQ(selection.fallback_from->compute, "cu128");
  EXPECT_NE(fallback_warning("org/k", selection).find("`backend=\"cpu\"`"), std::string::npos);
}

TEST(SelectVariant, NoFallbackWhenSomethingFits) {
  auto selection = select_variant({kCpu, kCuda}, cuda_without_device());
  EXPECT_EQ(selection.best, kCuda);
  EXPECT_FALSE(selection.fallback_from);
  EXPECT_EQ(fallback_warning("org/k", selection), "");
  selection = select_variant({kCpu, "torch-universal"}, cuda_without_device());
  EXPECT_EQ(selection.best, "torch-universal");
  EXPECT_FALSE(selection.fallback_from);
}

TEST(SelectVariant, NoFallbackWithDeviceOrExplicitBackend) {
  auto system = cuda_without_device();
  system.device_available = true;
  EXPECT_FALSE(select_variant({kCpu}, system).best);
  system = cuda_without_device();
  system.backend_explicit = true;
  auto selection = select_variant({kCpu}, system);
  EXPECT_FALSE(selection.best);
  EXPECT_FALSE(selection.fallback_from);
  ASSERT_EQ(selection.decisions.size(), 1u);  // the trace of the backend asked for
  EXPECT_EQ(selection.decisions[0].reason, "backend (cpu) does not match selected backend (cu128)");
}

TEST(NoVariantError, ListsRejectionsAndFixes) {
  auto system = cuda_without_device();
  system.backend_explicit = true;
  std::vector<std::string> names = {kCpu, "junk"};
  auto error = no_variant_error(VariantSource{"org/k (revision: v1)", false}, names, select_variant(names, system),
                                system);
  EXPECT_EQ(error.kind, util::ErrorKind::not_found);
  EXPECT_EQ(error.message, "Cannot find a build variant for this system in org/k (revision: v1):\n\n" + kCpu +
                               ": backend (cpu) does not match selected backend (cu128)");
  ASSERT_EQ(error.hints.size(), 3u);
  EXPECT_EQ(error.hints[0], "pass `backend=\"cpu\"` to load the cpu variant `" + kCpu + "`");
  EXPECT_EQ(error.hints[1], "this system needs a `cu128` variant for Torch 2.11 on x86_64-linux: build one with "
                            "`kernel-builder build` and upload it with `kernel-builder upload`");
  EXPECT_EQ(error.hints[2], "not variant names, ignored: `junk`");
}

TEST(NoVariantError, SuggestsDetectedBackendWhenCpuWasAskedFor) {
  auto system = cuda_without_device();
  system.backend = "cpu";
  system.backend_version = "";
  system.backend_explicit = true;
  std::vector<std::string> names = {kCuda};
  auto error = no_variant_error(VariantSource{"/p", true}, names, select_variant(names, system), system);
  ASSERT_FALSE(error.hints.empty());
  EXPECT_EQ(error.hints[0], "pass `backend=\"cuda\"` to load the cuda variant `" + kCuda + "`");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
