// Tests of VariantName::parse / to_string (docs/variants.md) and builder naming.
#include "variant/variant_name.h"

#include <gtest/gtest.h>

#include "variant/naming.h"

namespace kb::variant {
namespace {
namespace KB_UNITY_ID {

using config::Backend;

TEST(VariantNameParse, RoundTripsEveryPattern) {
  const char* names[] = {
      "torch212-cxx11-cu126-x86_64-linux", "torch213-cxx11-rocm72-x86_64-linux",
      "torch212-cxx11-xpu20253-x86_64-linux", "torch212-cxx11-cpu-aarch64-linux",
      "torch212-metal-aarch64-darwin", "torch212-cpu-aarch64-darwin", "torch27-cu124-x86_64-windows",
      "torch-stable-abi211-cu126-x86_64-linux", "torch-stable-abi211-cpu-aarch64-darwin",
      "tvm-ffi01-cu130-aarch64-linux", "tvm-ffi01-cpu-aarch64-darwin", "tvm-ffi012-cu126-x86_64-linux",
      "torch-cpu", "torch-cuda", "torch-rocm", "torch-metal", "torch-xpu", "torch-neuron", "torch-tpu",
      "torch-npu", "torch-universal", "torch26-cxx98-cu118-x86_64-linux", "torch210-cu128-x86_64-linux",
      "torch212-cxx11-cann80-aarch64-linux", "torch212-cxx11-neuron-x86_64-linux",
      "torch211-cxx11-tpu-x86_64-linux", "torch213-cxx11-cu130-aarch64-linux", "torch-stable-abi29-cu128-x86_64-linux",
  };
  for (const char* name : names) {
    auto parsed = VariantName::parse(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(parsed->to_string(), name);
  }
}

TEST(VariantNameParse, TorchArchComponents) {
  auto v = VariantName::parse("torch210-cxx11-cu128-x86_64-linux");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, VariantKind::torch_arch);
  EXPECT_EQ(v->framework_version, (MajorMinor{2, 10}));
  EXPECT_EQ(v->abi_tag, AbiTag::cxx11);
  EXPECT_EQ(v->compute.backend, Backend::cuda);
  EXPECT_EQ(v->compute.version, (MajorMinor{12, 8}));
  EXPECT_EQ(v->cpu, "x86_64");
  EXPECT_EQ(v->os, "linux");
}

TEST(VariantNameParse, GreedyComputeMajor) {
  EXPECT_EQ(VariantName::parse("torch212-cxx11-cu130-x86_64-linux")->compute.version, (MajorMinor{13, 0}));
  EXPECT_EQ(VariantName::parse("torch212-cxx11-xpu20253-x86_64-linux")->compute.version, (MajorMinor{2025, 3}));
  EXPECT_EQ(VariantName::parse("torch212-cxx11-rocm71-x86_64-linux")->compute.version, (MajorMinor{7, 1}));
}

TEST(VariantNameParse, LazyTvmFfiMajor) {
  EXPECT_EQ(VariantName::parse("tvm-ffi01-cpu-aarch64-darwin")->framework_version, (MajorMinor{0, 1}));
  EXPECT_EQ(VariantName::parse("tvm-ffi012-cpu-aarch64-darwin")->framework_version, (MajorMinor{0, 12}));
}

TEST(VariantNameParse, StableAbiAndNoarch) {
  auto stable = VariantName::parse("torch-stable-abi211-cu126-x86_64-linux");
  ASSERT_TRUE(stable);
  EXPECT_EQ(stable->kind, VariantKind::stable_abi);
  EXPECT_EQ(stable->framework_version, (MajorMinor{2, 11}));
  auto noarch = VariantName::parse("torch-universal");
  ASSERT_TRUE(noarch);
  EXPECT_TRUE(noarch->is_universal());
  EXPECT_EQ(VariantName::parse("torch-foo-bar")->noarch_backend, "foo-bar");
}

TEST(VariantNameParse, FrameworkAndArchStrings) {
  struct Case {
    const char* name;
    const char* framework;
    const char* arch;
  };
  const Case cases[] = {
      {"torch212-cxx11-cu126-x86_64-linux", "torch212-cxx11", "cu126-x86_64-linux"},
      {"torch26-cxx98-cu118-x86_64-linux", "torch26-cxx98", "cu118-x86_64-linux"},
      {"torch212-metal-aarch64-darwin", "torch212", "metal-aarch64-darwin"},
      {"torch-stable-abi211-cu126-x86_64-linux", "torch-stable-abi211", "cu126-x86_64-linux"},
      {"tvm-ffi012-cpu-aarch64-darwin", "tvm-ffi012", "cpu-aarch64-darwin"},
      {"torch-npu", "torch", "npu"},
      {"torch-foo-bar", "torch", "foo-bar"},
  };
  for (const auto& c : cases) {
    auto parsed = VariantName::parse(c.name);
    ASSERT_TRUE(parsed) << c.name;
    EXPECT_EQ(parsed->framework_string(), c.framework) << c.name;
    EXPECT_EQ(parsed->arch_string(), c.arch) << c.name;
  }
}

TEST(VariantNameParse, RejectsInvalidNames) {
  const char* invalid[] = {"", "torch", "foo", "torch212", "torch212-cu126-x86_64", "torch212-cxx11-cu126-x86_64-linux-extra",
                           "torchx12-cu126-x86_64-linux", "torch2-cu126-x86_64-linux", "torch212-cuda-x86_64-linux",
                           "torch212-cu1-x86_64-linux", "torch212-xpu-x86_64-linux", "torch-stable-abi2-cu126-x86_64-linux",
                           "torch-stable-abix-cpu-x86_64-linux", "tvm-ffi0-cpu-x86_64-linux", "tvm-ff01-cpu-x86_64-linux",
                           "tvm-ffi01-cpu-x86_64", "torch212-cxx11-gpu-x86_64-linux"};
  for (const char* name : invalid) EXPECT_FALSE(VariantName::parse(name).has_value()) << name;
}

TEST(ArchVariantName, Cxx11OnlyOnLinuxTorchArch) {
  ArchTarget t{VariantKind::torch_arch, {2, 12}, Backend::cuda, MajorMinor{12, 6}, "x86_64", "linux"};
  EXPECT_EQ(arch_variant_name(t)->to_string(), "torch212-cxx11-cu126-x86_64-linux");
  t.os = "windows";
  EXPECT_EQ(arch_variant_name(t)->to_string(), "torch212-cu126-x86_64-windows");
  ArchTarget metal{VariantKind::torch_arch, {2, 12}, Backend::metal, std::nullopt, "aarch64", "darwin"};
  EXPECT_EQ(arch_variant_name(metal)->to_string(), "torch212-metal-aarch64-darwin");
  ArchTarget stable{VariantKind::stable_abi, {2, 11}, Backend::cuda, MajorMinor{13, 0}, "aarch64", "linux"};
  EXPECT_EQ(arch_variant_name(stable)->to_string(), "torch-stable-abi211-cu130-aarch64-linux");
  ArchTarget tvm{VariantKind::tvm_ffi, {0, 1}, Backend::xpu, MajorMinor{2025, 3}, "x86_64", "linux"};
  EXPECT_EQ(arch_variant_name(tvm)->to_string(), "tvm-ffi01-xpu20253-x86_64-linux");
}

TEST(ArchVariantName, RefusesUnrepresentableToolkit) {
  ArchTarget t{VariantKind::torch_arch, {2, 12}, Backend::cuda, MajorMinor{12, 10}, "x86_64", "linux"};
  auto name = arch_variant_name(t);
  ASSERT_FALSE(name);
  EXPECT_NE(name.error().message.find("CUDA 12.10"), std::string::npos) << name.error().message;
  ArchTarget big_torch{VariantKind::torch_arch, {10, 0}, Backend::cpu, std::nullopt, "x86_64", "linux"};
  EXPECT_FALSE(arch_variant_name(big_torch));
  ArchTarget no_toolkit{VariantKind::torch_arch, {2, 12}, Backend::rocm, std::nullopt, "x86_64", "linux"};
  EXPECT_FALSE(arch_variant_name(no_toolkit));
}

TEST(ArchVariantName, RocmTwoDigitMinorIsNamedAsUpstreamNamesIt) {
  // Torch 2.14 ships ROCm 7.14 wheels; upstream's variant is `torch214-cxx11-rocm714-x86_64-linux`.
  ArchTarget t{VariantKind::torch_arch, {2, 14}, Backend::rocm, MajorMinor{7, 14}, "x86_64", "linux"};
  auto name = arch_variant_name(t);
  ASSERT_TRUE(name) << name.error().message;
  EXPECT_EQ(name->to_string(), "torch214-cxx11-rocm714-x86_64-linux");
  // Read back, the minor has one digit (as upstream's parser reads it); the text is the same.
  auto parsed = VariantName::parse(name->to_string());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->compute.version, (MajorMinor{71, 4}));
  EXPECT_EQ(parsed->compute.to_string(), "rocm714");
}

TEST(NoarchVariantName, CannIsNpu) {
  EXPECT_EQ(noarch_variant_name(Backend::cann).to_string(), "torch-npu");
  EXPECT_EQ(noarch_variant_name(Backend::metal).to_string(), "torch-metal");
}

TEST(NormalizeCpu, MapsSpellings) {
  EXPECT_EQ(*normalize_cpu("AMD64"), "x86_64");
  EXPECT_EQ(*normalize_cpu("arm64"), "aarch64");
  EXPECT_EQ(*normalize_cpu("ARM64"), "aarch64");
  auto bad = normalize_cpu("riscv64");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "Unsupported architecture: riscv64");
}

TEST(NormalizeOs, LowerCasesUnknown) {
  EXPECT_EQ(normalize_os("Darwin").os, "darwin");
  EXPECT_FALSE(normalize_os("Linux").unknown);
  auto other = normalize_os("FreeBSD");
  EXPECT_EQ(other.os, "freebsd");
  EXPECT_TRUE(other.unknown);
}

TEST(MajorMinorParsePrefix, TakesLeadingComponents) {
  EXPECT_EQ(MajorMinor::parse_prefix("2.12.0+cu126"), (MajorMinor{2, 12}));
  EXPECT_EQ(MajorMinor::parse_prefix("7.1.25424-1a2b"), (MajorMinor{7, 1}));
  EXPECT_EQ(MajorMinor::parse_prefix("26"), (MajorMinor{26, 0}));
  EXPECT_FALSE(MajorMinor::parse_prefix("abc"));
  EXPECT_EQ((MajorMinor{13, 0}).to_string(), "13.0");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::variant
