// Tests of the header-only build dependencies (cutlass_*, sycl_tla, metal-cpp): source from the
// environment variable, then the shared cache, else an error naming both.
#include <gtest/gtest.h>

#include "builder/header_deps.h"
#include "config/reader.h"
#include "util/fs.h"

using namespace kb::builder;
namespace fs = std::filesystem;

namespace {
kb::config::BuildConfig gemm(const std::string& depends) {
  auto outcome = kb::config::parse_build_toml(R"([general]
name = "gemm"
version = 1
edition = 5
license = "MIT"
backends = ["cuda"]

[torch]
src = ["torch-ext/b.cpp"]

[kernel.gemm_cuda]
backend = "cuda"
depends = [)" + depends + R"(]
src = ["gemm_cuda/gemm.cu"]
)", "build.toml");
  EXPECT_TRUE(outcome.parsed) << (outcome.errors.empty() ? "" : outcome.errors.front().message);
  return outcome.parsed->config;
}
}  // namespace

TEST(resolve_header_dependencies, MissingNamesTheVariableAndTheCache) {
  kb::util::TempDir dir;
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cuda, {}, dir.path());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "Kernel `gemm_cuda` depends on `cutlass_4_0`, but no CUTLASS 4.0 headers were found");
  ASSERT_EQ(result.error().hints.size(), 2u);
  EXPECT_EQ(result.error().hints[0], "set CUTLASS_SRC_DIR to a checkout of https://github.com/NVIDIA/cutlass at tag v4.0.x");
  EXPECT_EQ(result.error().hints[1], "or unpack it into `" + (dir.path() / "cutlass-4.0").string() + "` (shared by all projects)");
}

TEST(resolve_header_dependencies, FromTheEnvironmentWithAVersionNote) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "src/include/cutlass/cutlass.h", "#pragma once\n"));
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "src/include/cutlass/version.h",
                                          "#define CUTLASS_MAJOR 3\n#define CUTLASS_MINOR 9\n"));
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cuda,
                                            {{"CUTLASS_SRC_DIR", (dir.path() / "src").string()}}, dir.path() / "cache");
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->include_dirs, std::vector<fs::path>{dir.path() / "src/include"});
  ASSERT_EQ(result->notes.size(), 1u);
  EXPECT_EQ(result->notes[0], "CUTLASS_SRC_DIR has CUTLASS 3.9, kernel `gemm_cuda` names `cutlass_4_0`: using it as given");
}

TEST(resolve_header_dependencies, EnvironmentMustBeASourceTree) {
  kb::util::TempDir dir;
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cuda,
                                            {{"CUTLASS_SRC_DIR", dir.path().string()}}, dir.path());
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "CUTLASS_SRC_DIR=`" + dir.path().string() + "` is not a CUTLASS 4.0 source tree");
}

TEST(resolve_header_dependencies, FromTheSharedCache) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "cutlass-4.0/include/cutlass/cutlass.h", "#pragma once\n"));
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cuda, {}, dir.path());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->include_dirs, std::vector<fs::path>{dir.path() / "cutlass-4.0/include"});
  // Other backends' units are not asked for.
  EXPECT_TRUE(resolve_header_dependencies(gemm(R"("torch", "cutlass_4_0")"), kb::config::Backend::cpu, {}, fs::path("/none"))
                  ->include_dirs.empty());
}

TEST(resolve_header_dependencies, NvidiaCutlassWheelLayout) {
  // `pip install --target <cache>/cutlass-3.8 nvidia-cutlass==3.8.0.0` puts the headers here.
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "cutlass-3.8/cutlass_library/source/include/cutlass/cutlass.h", "x"));
  auto result = resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {}, dir.path());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->include_dirs, std::vector<fs::path>{dir.path() / "cutlass-3.8/cutlass_library/source/include"});
  // Missing, for a version with a pinned archive: the hint names it and the exact entry.
  kb::util::TempDir empty;
  auto missing = resolve_header_dependencies(gemm(R"("torch", "cutlass_3_8")"), kb::config::Backend::cuda, {}, empty.path());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().hints.size(), 2u);  // no fetch settings: the table is not consulted
}
