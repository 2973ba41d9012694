// The architecture rules (cuda_arch_runs_on, archs_cover_device) and apply_arch_check's walk over
// the candidates: skipping, reading only what it needs, the error (arch_check.h).
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "loader/arch_check.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

using config::Backend;

TEST(CudaArchRunsOn, PlainArchRunsOnSameMajorSameOrNewerMinor) {
  EXPECT_EQ(cuda_arch_runs_on("8.0", 8, 0), true);
  EXPECT_EQ(cuda_arch_runs_on("8.0", 8, 6), true);
  EXPECT_EQ(cuda_arch_runs_on("8.6", 8, 0), false);
  EXPECT_EQ(cuda_arch_runs_on("8.0", 9, 0), false);
  EXPECT_EQ(cuda_arch_runs_on("10.0", 10, 3), true);
}

TEST(CudaArchRunsOn, ArchSpecificRunsOnlyOnThatCapability) {
  EXPECT_EQ(cuda_arch_runs_on("9.0a", 9, 0), true);
  EXPECT_EQ(cuda_arch_runs_on("9.0a", 9, 1), false);
  EXPECT_EQ(cuda_arch_runs_on("10.0a", 10, 3), false);
  EXPECT_EQ(cuda_arch_runs_on("10.3a", 10, 3), true);
}

TEST(CudaArchRunsOn, FamilyRunsOnSameMajorSameOrNewerMinor) {
  EXPECT_EQ(cuda_arch_runs_on("10.0f", 10, 3), true);
  EXPECT_EQ(cuda_arch_runs_on("10.3f", 10, 0), false);
  EXPECT_EQ(cuda_arch_runs_on("10.0f", 12, 0), false);
}

TEST(CudaArchRunsOn, PtxRunsOnEveryNewerCapability) {
  EXPECT_EQ(cuda_arch_runs_on("8.0+PTX", 12, 1), true);
  EXPECT_EQ(cuda_arch_runs_on("8.0+PTX", 8, 0), true);
  EXPECT_EQ(cuda_arch_runs_on("8.6+PTX", 8, 0), false);
  EXPECT_EQ(cuda_arch_runs_on("9.0a+PTX", 9, 0), true);   // the suffix rules first
  EXPECT_EQ(cuda_arch_runs_on("9.0a+PTX", 10, 0), false);
}

TEST(CudaArchRunsOn, UnparsableIsUnknown) {
  for (const char* arch : {"sm_80", "8", "eight.0", "8.x", "", "+PTX", "8.0b", "compute_90"}) {
    EXPECT_EQ(cuda_arch_runs_on(arch, 8, 0), std::nullopt) << arch;
  }
}

TEST(ArchsCoverDevice, Cuda) {
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {"7.5", "9.0a"}, "9.0"));
  EXPECT_FALSE(archs_cover_device(Backend::cuda, {"7.5", "9.0a"}, "8.0"));
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {"7.5", "8.0+PTX"}, "12.0"));
  // Unparsable entries are ignored; none parsing: nothing known, the check passes.
  EXPECT_FALSE(archs_cover_device(Backend::cuda, {"sm_99", "9.0"}, "8.0"));
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {"sm_99", "future"}, "8.0"));
  // No archs declared, no device arch, an unparsable device capability: nothing to check.
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {}, "8.0"));
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {"9.0"}, ""));
  EXPECT_TRUE(archs_cover_device(Backend::cuda, {"9.0"}, "unknown"));
}

TEST(ArchsCoverDevice, Rocm) {
  EXPECT_TRUE(archs_cover_device(Backend::rocm, {"gfx90a", "gfx942"}, "gfx942"));
  EXPECT_TRUE(archs_cover_device(Backend::rocm, {"gfx90a"}, "gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(archs_cover_device(Backend::rocm, {"gfx90a", "gfx942"}, "gfx1100"));
  EXPECT_TRUE(archs_cover_device(Backend::rocm, {}, "gfx1100"));
}

TEST(ArchsCoverDevice, OtherBackendsPass) {
  EXPECT_TRUE(archs_cover_device(Backend::xpu, {"pvc"}, "8.0"));
  EXPECT_TRUE(archs_cover_device(Backend::cpu, {"9.0"}, "8.0"));
}

// On a CUDA 12.8 system both fit; cu128 is preferred.
const std::string kCu128 = "torch211-cxx11-cu128-x86_64-linux";
const std::string kCu126 = "torch211-cxx11-cu126-x86_64-linux";
const std::string kNoarch = "torch-cuda";

SystemInfo cuda_device(const std::string& arch) {
  SystemInfo s;
  s.backend = s.detected_backend = "cuda";
  s.backend_version = s.detected_backend_version = "12.8";
  s.torch_version = "2.11";
  s.cxx11 = true;
  s.device_arch = arch;
  return s;
}

metadata::Metadata cuda_metadata(std::vector<std::string> archs) {
  metadata::Metadata m;
  m.name = "demo";
  m.backend = Backend::cuda;
  m.archs = std::move(archs);
  return m;
}

struct Reader {
  Reader() = default;
  explicit Reader(std::map<std::string, metadata::Metadata> metadata) : by_variant(std::move(metadata)) {}
  std::map<std::string, metadata::Metadata> by_variant;
  std::vector<std::string> read;
  CandidateMetadata fn() {
    return [this](const std::string& variant) -> util::Result<metadata::Metadata> {
      read.push_back(variant);
      return by_variant.at(variant);
    };
  }
};

TEST(ApplyArchCheck, SkipsToTheNextBestThatRuns) {
  Reader reader({{kCu128, cuda_metadata({"9.0a", "10.0"})}, {kCu126, cuda_metadata({"8.0", "9.0"})},
                 {kNoarch, cuda_metadata({})}});
  auto selection = select_variant({kCu126, kCu128, kNoarch}, cuda_device("8.6"));
  ASSERT_EQ(selection.best, kCu128);
  ASSERT_TRUE(apply_arch_check(selection, cuda_device("8.6"), reader.fn()));
  EXPECT_EQ(selection.best, kCu126);
  EXPECT_EQ(reader.read, (std::vector<std::string>{kCu128, kCu126}));  // the noarch one not read
  ASSERT_EQ(selection.arch_skipped.size(), 1u);
  EXPECT_EQ(selection.arch_skipped[0].variant, kCu128);
  EXPECT_NE(selection.trace().find(kCu128 + ": built for 9.0a, 10.0, not for this device's CUDA capability 8.6"),
            std::string::npos);
  EXPECT_NE(selection.trace().find(kCu126 + " compatible, preferred"), std::string::npos);
}

TEST(ApplyArchCheck, NoDeviceArchReadsNothing) {
  Reader reader;
  auto selection = select_variant({kCu128}, cuda_device(""));
  ASSERT_TRUE(apply_arch_check(selection, cuda_device(""), reader.fn()));
  EXPECT_EQ(selection.best, kCu128);
  EXPECT_TRUE(reader.read.empty());
}

TEST(ApplyArchCheck, NoneRunsGivesTheArchError) {
  Reader reader({{kCu128, cuda_metadata({"9.0a"})}, {kCu126, cuda_metadata({"10.0", "12.0"})}});
  auto system = cuda_device("8.0");
  auto selection = select_variant({kCu126, kCu128}, system);
  ASSERT_TRUE(apply_arch_check(selection, system, reader.fn()));
  EXPECT_FALSE(selection.best);
  ASSERT_EQ(selection.arch_skipped.size(), 2u);
  auto error = no_variant_error(VariantSource{"org/demo (revision: main)", false}, {kCu126, kCu128}, selection, system);
  EXPECT_EQ(error.kind, util::ErrorKind::generic);  // RuntimeError, not the not-found of no variant
  EXPECT_EQ(error.message,
            "Kernel org/demo (revision: main) has no variant built for this device (CUDA capability 8.0); the "
            "variants for this system declare these architectures:\n\n`" +
                kCu128 + "`: 9.0a\n`" + kCu126 + "`: 10.0, 12.0");
  ASSERT_EQ(error.hints.size(), 1u);
  EXPECT_NE(error.hints[0].find("`check_arch=False`"), std::string::npos);
}

TEST(ApplyArchCheck, RocmDeviceAgainstGfxList) {
  SystemInfo system;
  system.backend = system.detected_backend = "rocm";
  system.backend_version = system.detected_backend_version = "7.0";
  system.torch_version = "2.11";
  system.cxx11 = true;
  system.device_arch = "gfx1100";
  const std::string rocm = "torch211-cxx11-rocm70-x86_64-linux";
  metadata::Metadata m;
  m.name = "demo";
  m.backend = Backend::rocm;
  m.archs = {"gfx90a", "gfx942"};
  Reader reader({{rocm, m}});
  auto selection = select_variant({rocm}, system);
  ASSERT_TRUE(apply_arch_check(selection, system, reader.fn()));
  EXPECT_FALSE(selection.best);
  EXPECT_NE(arch_error("k", selection, system).message.find("ROCm architecture gfx1100"), std::string::npos);
  system.device_arch = "gfx942:sramecc+:xnack-";
  selection = select_variant({rocm}, system);
  ASSERT_TRUE(apply_arch_check(selection, system, reader.fn()));
  EXPECT_EQ(selection.best, rocm);
}

TEST(ApplyArchCheck, UnreadableMetadataIsAnError) {
  auto selection = select_variant({kCu128}, cuda_device("9.0"));
  auto status = apply_arch_check(selection, cuda_device("9.0"), [](const std::string&) -> util::Result<metadata::Metadata> {
    return util::Error(util::ErrorKind::io, "no metadata.json");
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "no metadata.json");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
