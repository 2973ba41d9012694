// Tests of the embedded matrix and project variant enumeration (docs/variants.md).
#include "variant/project_variants.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kb::variant {
namespace {
namespace KB_UNITY_ID {

using config::Backend;
using config::BuildConfig;
using Names = std::vector<std::string>;

config::Version ver(const char* text) { return config::Version::parse(text).value(); }

const Matrix& matrix() {
  static const Matrix m = reference_matrix().value();
  return m;
}

config::KernelUnit unit(const char* name, Backend backend) {
  config::KernelUnit u;
  u.name = name;
  u.backend = backend;
  u.depends = {"torch"};
  return u;
}

BuildConfig torch_project(std::vector<Backend> backends, std::vector<Backend> unit_backends) {
  BuildConfig c;
  c.general.name = "relu";
  c.general.backends = std::move(backends);
  c.framework = config::TorchConfig{};
  for (Backend b : unit_backends) c.kernels.push_back(unit("k", b));
  return c;
}

Names names(const std::vector<ProjectVariant>& variants) {
  Names out;
  for (const auto& v : variants) out.push_back(v.name_text);
  return out;
}

Names names_of(const BuildConfig& c, std::optional<HostSystem> host) {
  auto r = project_variants(matrix(), c, host);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return names(r->variants);
}

const HostSystem x86_linux{"x86_64", "linux"};
const HostSystem arm_linux{"aarch64", "linux"};
const HostSystem arm_darwin{"aarch64", "darwin"};

TEST(ReferenceMatrix, ParsesEmbeddedFile) {
  auto m = reference_matrix();
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->format_version, 1);
  EXPECT_EQ(m->build_sets.size(), 29u);  // 15 entries expanded over toolkits and systems
}

TEST(ReferenceMatrix, TrackerSetsSayWhereTheyComeFrom) {
  // Sets of upstream's versions.nix snapshot have no source; sets read from upstream's tracker do.
  const auto& sets = matrix().build_sets;
  auto first = [&](const char* torch, Backend backend) {
    return *std::find_if(sets.begin(), sets.end(), [&](const BuildSet& s) { return s.torch == ver(torch) && s.backend == backend; });
  };
  EXPECT_EQ(first("2.13", Backend::rocm).source, "");
  EXPECT_NE(first("2.14", Backend::rocm).source.find("huggingface/kernels#807"), std::string::npos);
  EXPECT_NE(first("2.15", Backend::cuda).source.find("huggingface/kernels#832"), std::string::npos);
  EXPECT_FALSE(first("2.15", Backend::cuda).bundle);
  EXPECT_TRUE(std::none_of(sets.begin(), sets.end(), [](const BuildSet& s) { return s.torch == ver("2.12"); }));
}

TEST(ParseMatrix, RefusesUnknownFormatVersion) {
  auto m = parse_matrix(R"({"format_version": 2, "build_sets": []})");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("format_version 2"), std::string::npos);
  EXPECT_FALSE(parse_matrix(R"({"format_version": 1, "build_sets": [{"torch": "2.1", "backend": "gpu", "systems": []}]})"));
  EXPECT_FALSE(parse_matrix("not json"));
  auto bad_source = parse_matrix(
      R"({"format_version": 1, "build_sets": [{"torch": "2.14", "backend": "cpu", "systems": ["x86_64-linux"], "source": 816}]})");
  ASSERT_FALSE(bad_source);
  EXPECT_EQ(bad_source.error().message, "Invalid build matrix entry 0: `source` must be a non-empty string");
}

TEST(ProjectVariants, BundleRowsOfSpec) {
  // The spec's torch arch bundle rows (docs/variants.md), per system and backend.
  auto c = torch_project({Backend::cuda, Backend::rocm, Backend::xpu, Backend::cpu, Backend::metal},
                         {Backend::cuda, Backend::rocm, Backend::xpu, Backend::cpu, Backend::metal});
  auto r = project_variants(matrix(), c, x86_linux).value();
  Names bundle_cuda, bundle_xpu, bundle_rocm, bundle_cpu;
  for (const auto& v : r.variants) {
    if (!v.bundle) continue;
    if (v.backend == Backend::cuda) bundle_cuda.push_back(v.name_text);
    if (v.backend == Backend::xpu) bundle_xpu.push_back(v.name_text);
    if (v.backend == Backend::rocm) bundle_rocm.push_back(v.name_text);
    if (v.backend == Backend::cpu) bundle_cpu.push_back(v.name_text);
  }
  // Torch 2.15's CUDA 13.4 set is not in the bundle (a nightly when upstream added it).
  EXPECT_EQ(bundle_cuda, (Names{"torch213-cxx11-cu126-x86_64-linux", "torch213-cxx11-cu130-x86_64-linux",
                                "torch213-cxx11-cu132-x86_64-linux", "torch214-cxx11-cu126-x86_64-linux",
                                "torch214-cxx11-cu130-x86_64-linux", "torch214-cxx11-cu132-x86_64-linux"}));
  EXPECT_EQ(bundle_rocm, (Names{"torch213-cxx11-rocm71-x86_64-linux", "torch213-cxx11-rocm72-x86_64-linux",
                                "torch214-cxx11-rocm714-x86_64-linux"}));
  EXPECT_EQ(bundle_xpu, (Names{"torch213-cxx11-xpu20260-x86_64-linux", "torch214-cxx11-xpu20261-x86_64-linux"}));
  EXPECT_EQ(bundle_cpu, (Names{"torch213-cxx11-cpu-x86_64-linux", "torch214-cxx11-cpu-x86_64-linux"}));
  EXPECT_TRUE(std::any_of(r.variants.begin(), r.variants.end(),
                          [](const auto& v) { return v.name_text == "torch215-cxx11-cu134-x86_64-linux" && !v.bundle; }));
  // Metal has a unit but no x86_64-linux set: no variant at all here.
  EXPECT_EQ(std::count_if(r.variants.begin(), r.variants.end(), [](const auto& v) { return v.backend == Backend::metal; }), 0);

  auto darwin = names_of(c, arm_darwin);
  EXPECT_EQ(darwin, (Names{"torch213-cpu-aarch64-darwin", "torch213-metal-aarch64-darwin", "torch214-cpu-aarch64-darwin",
                           "torch214-metal-aarch64-darwin"}));
}

TEST(ProjectVariants, NonBundleSetIsListedButMarked) {
  auto c = torch_project({Backend::cpu}, {Backend::cpu});
  auto r = project_variants(matrix(), c, x86_linux).value();
  ASSERT_EQ(names(r.variants), (Names{"torch211-cxx11-cpu-x86_64-linux", "torch213-cxx11-cpu-x86_64-linux",
                                      "torch214-cxx11-cpu-x86_64-linux"}));
  EXPECT_FALSE(r.variants[0].bundle);
  EXPECT_TRUE(r.variants[1].bundle);
  EXPECT_FALSE(r.variants[0].buildable_here.has_value());
}

TEST(ProjectVariants, TorchProjectBackendWithoutKernelHasNoVariant) {
  // A noarch `torch-metal` of a [torch] project would import ops never compiled for metal.
  auto c = torch_project({Backend::metal, Backend::cuda, Backend::neuron, Backend::cann, Backend::tpu}, {Backend::cuda});
  auto r = project_variants(matrix(), c, arm_linux).value();
  EXPECT_EQ(r.variants.size(), 7u);  // torch 2.13 and 2.14 x 3 toolkits, torch 2.15 x CUDA 13.4
  for (const auto& v : r.variants) EXPECT_EQ(v.backend, Backend::cuda) << v.name_text;
  ASSERT_EQ(r.warnings.size(), 4u);
  EXPECT_EQ(r.warnings[1],
            "backend `metal` has no [kernel.*] unit; skipped (a [torch] project builds only backends with kernels)");
  EXPECT_EQ(backend_without_variant(c, Backend::cuda), std::nullopt);
  EXPECT_EQ(backend_without_variant(c, Backend::xpu), std::nullopt);  // not listed at all
}

TEST(ProjectVariants, TorchNoarchProjectOnlyNoarch) {
  BuildConfig c;
  c.general.backends = {Backend::cuda, Backend::rocm, Backend::xpu, Backend::neuron};
  c.framework = config::TorchNoarchConfig{};
  c.kernels.push_back(unit("ignored", Backend::cuda));
  EXPECT_EQ(names_of(c, x86_linux), (Names{"torch-cuda", "torch-neuron", "torch-rocm", "torch-xpu"}));
}

TEST(ProjectVariants, CudaAndTorchBounds) {
  auto c = torch_project({Backend::cuda}, {Backend::cuda});
  c.general.cuda = config::GeneralBackendConfig{};
  c.general.cuda->minver = ver("13.0");
  auto& torch = std::get<config::TorchConfig>(c.framework);
  torch.maxver = ver("2.13");
  EXPECT_EQ(names_of(c, x86_linux), (Names{"torch213-cxx11-cu130-x86_64-linux", "torch213-cxx11-cu132-x86_64-linux"}));
}

TEST(ProjectVariants, StableAbiNewestTorchPerToolkit) {
  auto c = torch_project({Backend::cuda, Backend::rocm, Backend::metal}, {Backend::cuda, Backend::rocm});
  config::StableAbi stable;
  stable.per_backend[Backend::cuda] = ver("2.11");
  std::get<config::TorchConfig>(c.framework).stable_abi = stable;
  auto r = project_variants(matrix(), c, x86_linux).value();
  EXPECT_EQ(names(r.variants),
            (Names{"torch-stable-abi211-cu126-x86_64-linux", "torch-stable-abi211-cu130-x86_64-linux",
                   "torch-stable-abi211-cu132-x86_64-linux", "torch213-cxx11-rocm71-x86_64-linux",
                   "torch213-cxx11-rocm72-x86_64-linux", "torch214-cxx11-rocm714-x86_64-linux",
                   "torch-stable-abi211-cu134-x86_64-linux"}));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.variants[i].build_set->torch, ver("2.14")) << r.variants[i].name_text;
    EXPECT_TRUE(r.variants[i].bundle) << r.variants[i].name_text;
  }
  EXPECT_EQ(r.variants[6].build_set->torch, ver("2.15"));
  EXPECT_FALSE(r.variants[6].bundle);
}

TEST(ProjectVariants, TvmFfiDedupesToNewestTorchAndSkipsNoarch) {
  BuildConfig c;
  c.general.backends = {Backend::cuda, Backend::cpu, Backend::xpu, Backend::neuron};
  c.framework = config::TvmFfiConfig{};
  c.kernels = {unit("a", Backend::cuda), unit("b", Backend::cpu), unit("c", Backend::xpu)};
  auto r = project_variants(matrix(), c, x86_linux).value();
  // Only the CUDA 13.2 sets of torch 2.13 and 2.14 build TVM-FFI now that torch 2.12 is gone.
  EXPECT_EQ(names(r.variants), (Names{"tvm-ffi01-cu132-x86_64-linux"}));
  EXPECT_EQ(r.variants[0].build_set->torch, ver("2.14"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "backend `neuron` has no [kernel.*] unit; skipped (tvm-ffi kernels cannot be noarch)");
}

TEST(ProjectVariants, AllSystemsWithoutHost) {
  auto c = torch_project({Backend::cpu}, {Backend::cpu});
  EXPECT_EQ(names_of(c, std::nullopt).size(), 1u + 3u + 3u);
}

TEST(ArchFormVariants, IncludesNoarchBackendSets) {
  auto c = torch_project({Backend::cuda, Backend::tpu, Backend::metal}, {Backend::cuda});
  auto r = arch_form_variants(matrix(), c, x86_linux).value();
  Names n = names(r);
  EXPECT_EQ(n.front(), "torch211-cxx11-tpu-x86_64-linux");
  EXPECT_EQ(n.size(), 1u + 7u);
  EXPECT_EQ(names(arch_form_variants(matrix(), c, arm_darwin).value()),
            (Names{"torch213-metal-aarch64-darwin", "torch214-metal-aarch64-darwin"}));
}

TEST(ThisHost, IsNormalised) {
  auto host = this_host();
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_TRUE(host->cpu == "x86_64" || host->cpu == "aarch64");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::variant
