// Tests of build planning: arch variants per toolchain, noarch variants, stable ABI refusal.
#include <gtest/gtest.h>

#include "build/plan.h"
#include "config/reader.h"

using namespace kb::build;

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
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux",
                                                    "torch211-cxx11-cu130-x86_64-linux", "torch-xpu"}));
  EXPECT_EQ(plan->variants[2].flavour, Flavour::noarch);
}

TEST(plan_build, NotesMissingToolkit) {
  auto config = parse("[torch]\nsrc = [\"torch-ext/b.cpp\"]\n");
  std::vector<Toolchain> toolchains = {toolchain(false)};
  auto plan = plan_build(config, toolchains);
  ASSERT_TRUE(plan);
  EXPECT_EQ(names(*plan), (std::vector<std::string>{"torch211-cxx11-cpu-x86_64-linux", "torch-xpu"}));
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
