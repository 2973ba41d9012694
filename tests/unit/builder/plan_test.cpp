// Tests of build planning: arch variants per toolchain, noarch variants, stable ABI refusal.
#include <gtest/gtest.h>

#include <algorithm>

#include "builder/plan.h"
#include "config/reader.h"

using namespace kb::builder;

namespace {
kb::config::BuildConfig parse(const std::string& framework) {
  auto outcome = kb::config::parse_build_toml(R"([general]
name = "k1"
version = 1
edition = 5
license = "MIT"
backends = ["cpu", "cuda", "xpu"]

)" + framework + R"(
[kernel.k_cpu]
backend = "cpu"
depends = ["torch"]
src = ["k_cpu/k.cpp"]

[kernel.k_cuda]
backend = "cuda"
depends = ["torch"]
src = ["k_cuda/k.cu"]
)", "build.toml");
  EXPECT_TRUE(outcome.parsed) << (outcome.errors.empty() ? "" : outcome.errors.front().message);
  return outcome.parsed->config;
}

Toolchain toolchain(bool with_nvcc) {
  Toolchain t;
  t.python = "/venv/bin/python";
  t.machine = "x86_64";
  t.system = "Linux";
  t.torch_version = "2.11.0+cu130";
  t.torch_cuda = "13.0";
  if (with_nvcc) t.cuda = CudaToolkit{"/usr/local/cuda/bin/nvcc", {13, 0}, "/usr/local/cuda"};
  return t;
}

std::vector<std::string> names(const BuildPlan& plan) {
  std::vector<std::string> out;
  for (const auto& v : plan.variants) out.push_back(v.name);
  return out;
}
}  // namespace

TEST(plan_build, ArchVariantsThenNoarch) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\n");
  std::vector<Toolchain> toolchains = {toolchain(true)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan) << plan.error().message;
  // xpu is listed without a kernel: no variant (a noarch torch-xpu would import missing ops).
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux",
                                                    "torch211-cxx11-cu130-x86_64-linux"}));
  EXPECT_EQ(plan->variants[1].flavour, Flavour::torch_arch);
  EXPECT_NE(std::find(plan->notes.begin(), plan->notes.end(),
                      "backend `xpu` has no [kernel.*] unit; skipped (a [torch] project builds only backends with kernels)"),
            plan->notes.end());
}

TEST(plan_build, NotesMissingToolkit) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\n");
  std::vector<Toolchain> toolchains = {toolchain(false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux"}));
  ASSERT_FALSE(plan->notes.empty());
  EXPECT_NE(plan->notes.front().find("missing nvcc"), std::string::npos);
}

TEST(plan_build, StableAbiNamesAndRefusal) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\nstable-abi = \"2.10\"\n");
  std::vector<Toolchain> toolchains = {toolchain(true)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->variants[0].name, "torch-stable-abi210-cpu-x86_64-linux");
  auto too_new = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\nstable-abi = \"2.12\"\n");
  auto refused = plan_build(too_new, toolchains);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "Torch version 2.11 is less than the stable ABI version 2.12. Cannot build with stable ABI targeting a newer version of Torch.");
}

TEST(plan_build, NoarchProjectHasOnlyNoarchVariants) {
  auto config = parse("[torch-noarch]\n");
  std::vector<Toolchain> toolchains = {toolchain(true)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch-cpu", "torch-cuda", "torch-xpu"}));
  EXPECT_TRUE(plan->missing.empty());
}

namespace {
Toolchain torch_toolchain(const std::string& version, bool cuda) {
  Toolchain t = toolchain(cuda);
  t.python = "/venv" + version + "/bin/python";
  t.torch_version = version;
  if (!cuda) t.torch_cuda.reset();
  return t;
}

bool has_note(const BuildPlan& plan, const std::string& text) {
  return std::find(plan.notes.begin(), plan.notes.end(), text) != plan.notes.end();
}
}  // namespace

TEST(plan_build, TorchOutsideTheMatrixBuildsWithANote) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\n");
  std::vector<Toolchain> toolchains = {torch_toolchain("2.11.0", false), torch_toolchain("2.15.0", false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux", "torch215-cxx11-cpu-x86_64-linux"}));
  EXPECT_TRUE(has_note(*plan, "`torch215-cxx11-cpu-x86_64-linux` (torch 2.15.0) is not part of the release bundle: the "
                              "reference matrix has no bundle build set for it; it is built for use where that torch is installed"));
  // torch 2.11 CPU is in the matrix, but not in the bundle.
  EXPECT_TRUE(has_note(*plan, "`torch211-cxx11-cpu-x86_64-linux` (torch 2.11.0) is not part of the release bundle: the "
                              "reference matrix has no bundle build set for it; it is built for use where that torch is installed"));
}

TEST(plan_build, BundleVariantHasNoNote) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\n");
  std::vector<Toolchain> toolchains = {torch_toolchain("2.14.1", false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  for (const auto& note : plan->notes) EXPECT_EQ(note.find("release bundle"), std::string::npos) << note;
}

TEST(plan_build, TorchBoundsSkipToolchains) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\nminver = \"2.12\"\nmaxver = \"2.13\"\n");
  std::vector<Toolchain> toolchains = {torch_toolchain("2.11.0", false), torch_toolchain("2.13.0", false),
                                       torch_toolchain("2.15.0", false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch213-cxx11-cpu-x86_64-linux"}));
  EXPECT_TRUE(has_note(*plan, "not building cpu with `/venv2.15.0/bin/python` (torch 2.15.0): torch is outside [torch] minver/maxver"));
}

TEST(nothing_to_build, NamesWhatTheProjectNeedsAndTheToolchainsFound) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\nminver = \"2.12\"\nmaxver = \"2.13\"\n");
  std::vector<Toolchain> toolchains = {torch_toolchain("2.11.0", false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  ASSERT_TRUE(plan->variants.empty());
  auto error = nothing_to_build(config, toolchains, *plan);
  EXPECT_EQ(error.message, "Nothing to build for `k1`: no configured toolchain can build any of its variants");
  ASSERT_GE(error.causes.size(), 3u);
  EXPECT_EQ(error.causes[0], "the project needs backend cpu or cuda; torch >= 2.12, <= 2.13");
  EXPECT_EQ(error.causes[1], "toolchains found: `/venv2.11.0/bin/python` (torch 2.11.0)");
  EXPECT_TRUE(std::find(error.causes.begin(), error.causes.end(),
                        "not building cpu with `/venv2.11.0/bin/python` (torch 2.11.0): torch is outside [torch] minver/maxver") !=
              error.causes.end());
  ASSERT_EQ(error.hints.size(), 2u);
  EXPECT_EQ(error.hints[0].rfind("the reference matrix builds it with: Python with torch 2.13", 0), 0u) << error.hints[0];
}

// [tvm-ffi] projects: one tvm-ffi<MM>-<compute>-<cpu>-<os> variant per arch backend, MM from the
// toolchain's tvm_ffi (docs/variants.md); without tvm_ffi the toolchain builds nothing, with a note.
TEST(plan_build, TvmFfiVariantsFromTheToolchainsTvmFfi) {
  auto config = parse("[tvm-ffi]\nsrc = [\"tvm-ffi-ext/b.cpp\"]\n");
  Toolchain with_tvm = toolchain(true);
  with_tvm.tvm_ffi_version = "0.1.15.post2";
  auto plan = plan_build(config, {with_tvm});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"tvm-ffi01-cpu-x86_64-linux", "tvm-ffi01-cu130-x86_64-linux"}));
  EXPECT_EQ(plan->variants[0].flavour, Flavour::tvm_ffi);
  EXPECT_EQ(plan->variants[1].flavour, Flavour::tvm_ffi);
  EXPECT_NE(std::find(plan->notes.begin(), plan->notes.end(),
                      "backend `xpu` has no [kernel.*] unit; skipped (tvm-ffi kernels cannot be noarch)"),
            plan->notes.end());
  with_tvm.tvm_ffi_version = "1.2.0";
  EXPECT_EQ(names(*plan_build(config, {with_tvm})),
            (std::vector<std::string>{"tvm-ffi12-cpu-x86_64-linux", "tvm-ffi12-cu130-x86_64-linux"}));
  auto without = plan_build(config, {toolchain(true)});
  ASSERT_TRUE(without);
  EXPECT_TRUE(without->variants.empty());
  EXPECT_NE(std::find_if(without->notes.begin(), without->notes.end(),
                         [](const std::string& n) { return n.find("tvm_ffi is not installed") != std::string::npos; }),
            without->notes.end());
}
