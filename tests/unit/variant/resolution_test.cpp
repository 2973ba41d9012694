// Conformance cases (docs/variants.md), acceptance reason texts and trace properties.
#include "variant/resolution.h"

#include <gtest/gtest.h>

#include "variant/acceptance.h"

namespace kb::variant {
namespace {
namespace KB_UNITY_ID {

using config::Backend;
using Names = std::vector<std::string>;

const Names set_a = {"torch210-cxx11-cu128-x86_64-linux", "torch210-cxx11-cu126-x86_64-linux",
                     "torch210-cxx11-cu130-x86_64-linux", "torch210-cxx11-rocm70-x86_64-linux",
                     "torch210-cxx11-cpu-x86_64-linux",   "torch210-cpu-aarch64-darwin",
                     "torch210-metal-aarch64-darwin",     "torch-cuda",
                     "torch-cpu"};
const Names metal_set = {"torch210-cpu-aarch64-darwin", "torch210-metal-aarch64-darwin", "torch-metal"};
const Names universal_set = {"torch210-cxx11-cu128-x86_64-linux", "torch-universal"};
const Names cuda_only = {"torch210-cxx11-cu126-x86_64-linux", "torch210-cxx11-cu128-x86_64-linux",
                         "torch210-cxx11-cu130-x86_64-linux"};
const Names stable_set = {"torch-stable-abi211-cu128-x86_64-linux", "torch210-cxx11-cu128-x86_64-linux", "torch-cuda"};

// The default system of §10: x86_64 Linux, Torch 2.10 with the C++11 ABI, no TVM-FFI.
SystemDescription sys(Backend backend, std::optional<MajorMinor> version = std::nullopt) {
  SystemDescription s;
  s.backend = backend;
  s.backend_version = version;
  s.torch_version = MajorMinor{2, 10};
  s.cxx11 = true;
  return s;
}

SystemDescription darwin(Backend backend, std::optional<std::string> macos) {
  SystemDescription s = sys(backend);
  s.cpu = "aarch64";
  s.os = "darwin";
  s.cxx11 = std::nullopt;
  s.macos_version = std::move(macos);
  return s;
}

SystemDescription with_torch(SystemDescription s, MajorMinor torch) {
  s.torch_version = torch;
  return s;
}

struct Case {
  const char* name;
  Names variants;
  SystemDescription system;
  std::optional<std::string> best;
};

std::vector<Case> conformance_cases() {
  SystemDescription aarch64_cuda = sys(Backend::cuda, MajorMinor{12, 8});
  aarch64_cuda.cpu = "aarch64";
  return {
      {"cuda_exact", set_a, sys(Backend::cuda, MajorMinor{12, 8}), "torch210-cxx11-cu128-x86_64-linux"},
      {"cuda_best_older_minor", set_a, sys(Backend::cuda, MajorMinor{12, 9}), "torch210-cxx11-cu128-x86_64-linux"},
      {"cuda_no_newer_minor", set_a, sys(Backend::cuda, MajorMinor{12, 5}), "torch-cuda"},
      {"cuda_no_different_major", set_a, sys(Backend::cuda, MajorMinor{11, 8}), "torch-cuda"},
      {"rocm", set_a, sys(Backend::rocm, MajorMinor{7, 0}), "torch210-cxx11-rocm70-x86_64-linux"},
      {"rocm_two_digit_minor", {"torch214-cxx11-rocm72-x86_64-linux", "torch214-cxx11-rocm714-x86_64-linux"},
       with_torch(sys(Backend::rocm, MajorMinor{7, 14}), {2, 14}), "torch214-cxx11-rocm714-x86_64-linux"},
      {"cpu_linux", set_a, sys(Backend::cpu), "torch210-cxx11-cpu-x86_64-linux"},
      {"cpu_darwin", set_a, darwin(Backend::cpu, std::nullopt), "torch210-cpu-aarch64-darwin"},
      {"metal_darwin", set_a, darwin(Backend::metal, "26.0"), "torch210-metal-aarch64-darwin"},
      {"metal_old_macos", metal_set, darwin(Backend::metal, "15.7"), "torch-metal"},
      {"metal_unknown_macos", metal_set, darwin(Backend::metal, std::nullopt), "torch-metal"},
      {"metal_new_macos", metal_set, darwin(Backend::metal, "26.1"), "torch210-metal-aarch64-darwin"},
      {"noarch_fallback", set_a, aarch64_cuda, "torch-cuda"},
      {"no_match", set_a, with_torch(sys(Backend::rocm, MajorMinor{7, 0}), {2, 9}), std::nullopt},
      {"universal_any_backend", universal_set, with_torch(sys(Backend::rocm, MajorMinor{7, 0}), {2, 9}), "torch-universal"},
      {"universal_last_resort", universal_set, sys(Backend::cuda, MajorMinor{12, 8}), "torch210-cxx11-cu128-x86_64-linux"},
      {"specific_noarch_over_universal", {"torch-universal", "torch-cuda"},
       with_torch(sys(Backend::cuda, MajorMinor{12, 8}), {2, 9}), "torch-cuda"},
      {"no_newer_minor_no_noarch", cuda_only, sys(Backend::cuda, MajorMinor{12, 5}), std::nullopt},
      {"no_different_major_no_noarch", cuda_only, sys(Backend::cuda, MajorMinor{11, 8}), std::nullopt},
      {"stable_abi_accepted", stable_set, with_torch(sys(Backend::cuda, MajorMinor{12, 8}), {2, 11}),
       "torch-stable-abi211-cu128-x86_64-linux"},
      {"stable_abi_newer_torch", stable_set, with_torch(sys(Backend::cuda, MajorMinor{12, 8}), {2, 12}),
       "torch-stable-abi211-cu128-x86_64-linux"},
      {"stable_abi_rejected_newer_abi", stable_set, sys(Backend::cuda, MajorMinor{12, 8}),
       "torch210-cxx11-cu128-x86_64-linux"},
      {"stable_abi_newest_preferred",
       {"torch-stable-abi29-cu128-x86_64-linux", "torch-stable-abi211-cu128-x86_64-linux"},
       with_torch(sys(Backend::cuda, MajorMinor{12, 8}), {2, 12}), "torch-stable-abi211-cu128-x86_64-linux"},
      {"tagless_over_tagged", {"torch210-cxx11-cu128-x86_64-linux", "torch210-cu128-x86_64-linux"},
       sys(Backend::cuda, MajorMinor{12, 8}), "torch210-cu128-x86_64-linux"},
      {"stable_abi_over_torch", {"torch-stable-abi211-cu128-x86_64-linux", "torch211-cxx11-cu128-x86_64-linux"},
       with_torch(sys(Backend::cuda, MajorMinor{12, 8}), {2, 11}), "torch-stable-abi211-cu128-x86_64-linux"},
  };
}

TEST(ResolveVariants, ConformanceCases) {
  for (const Case& c : conformance_cases()) {
    Resolution r = resolve_variants(c.variants, c.system);
    EXPECT_EQ(r.best, c.best) << c.name;
    // Trace property: every input exactly once; accepted list = accepted trace entries in order.
    ASSERT_EQ(r.trace.size(), c.variants.size()) << c.name;
    for (const auto& name : c.variants) {
      int count = 0;
      for (const auto& line : r.trace) count += line.rfind(name + " ", 0) == 0 || line.rfind(name + ":", 0) == 0;
      EXPECT_EQ(count, 1) << c.name << " " << name;
    }
    Names accepted_in_trace;
    for (const auto& d : r.decisions) {
      if (d.accepted()) accepted_in_trace.push_back(d.name);
    }
    EXPECT_EQ(r.accepted, accepted_in_trace) << c.name;
    if (c.best) {
      EXPECT_EQ(r.trace.front(), *c.best + " compatible, preferred ✅") << c.name;
    }
    // Accepted decisions precede rejected ones.
    bool seen_rejected = false;
    for (const auto& d : r.decisions) {
      if (!d.accepted()) seen_rejected = true;
      EXPECT_FALSE(seen_rejected && d.accepted()) << c.name;
    }
  }
}

TEST(ResolveVariants, MetalOldMacosReason) {
  Resolution r = resolve_variants(metal_set, darwin(Backend::metal, "15.7"));
  ASSERT_EQ(r.trace.size(), 3u);
  EXPECT_EQ(r.trace[0], "torch-metal compatible, preferred ✅");
  EXPECT_EQ(r.trace[1], "torch210-cpu-aarch64-darwin: backend (cpu) does not match selected backend (metal)");
  EXPECT_EQ(r.trace[2],
            "torch210-metal-aarch64-darwin: Metal kernels require macOS 26.0 or later, system macOS version is 15.7");
  Resolution unknown = resolve_variants({"torch210-metal-aarch64-darwin"}, darwin(Backend::metal, std::nullopt));
  EXPECT_EQ(unknown.trace[0],
            "torch210-metal-aarch64-darwin: Metal kernels require macOS 26.0 or later, system macOS version is None");
}

TEST(ResolveVariants, FullTraceOfCudaExact) {
  Resolution r = resolve_variants(set_a, sys(Backend::cuda, MajorMinor{12, 8}));
  EXPECT_EQ(r.trace, (Names{
                         "torch210-cxx11-cu128-x86_64-linux compatible, preferred ✅",
                         "torch210-cxx11-cu126-x86_64-linux compatible ✅",
                         "torch-cuda compatible ✅",
                         // Rejected: untagged Torch arch names rank before tagged ones (a2), then by name.
                         "torch210-cpu-aarch64-darwin: CPU (aarch64) does not match system CPU (x86_64)",
                         "torch210-metal-aarch64-darwin: CPU (aarch64) does not match system CPU (x86_64)",
                         "torch210-cxx11-cpu-x86_64-linux: backend (cpu) does not match selected backend (cu128)",
                         "torch210-cxx11-cu130-x86_64-linux: CUDA version (13.0) is not compatible with system CUDA version (12.8)",
                         "torch210-cxx11-rocm70-x86_64-linux: backend (rocm70) does not match selected backend (cu128)",
                         "torch-cpu: backend (cpu) does not match system backend (cuda) and is not universal",
                     }));
}

TEST(RejectionReason, TextsPrintLikePython) {
  auto v = [](const char* n) { return *VariantName::parse(n); };
  SystemDescription s = sys(Backend::cuda, MajorMinor{12, 8});
  EXPECT_EQ(rejection_reason(v("torch29-cxx11-cu128-x86_64-linux"), s),
            "Torch version (2.9) does not match environment Torch version (2.10)");
  SystemDescription no_torch = s;
  no_torch.torch_version.reset();
  EXPECT_EQ(rejection_reason(v("torch210-cxx11-cu128-x86_64-linux"), no_torch),
            "Torch version (2.10) does not match environment Torch version (None)");
  EXPECT_EQ(rejection_reason(v("torch-stable-abi211-cu128-x86_64-linux"), no_torch),
            "Torch stable ABI version (2.11) is too new for environment Torch version (None)");
  EXPECT_EQ(rejection_reason(v("torch210-cxx98-cu128-x86_64-linux"), s),
            "Torch CXX11 ABI (False) does not match environment Torch CXX11 ABI (True)");
  SystemDescription no_abi = s;
  no_abi.cxx11.reset();
  EXPECT_EQ(rejection_reason(v("torch210-cxx11-cu128-x86_64-linux"), no_abi),
            "Torch CXX11 ABI (True) does not match environment Torch CXX11 ABI (None)");
  EXPECT_EQ(rejection_reason(v("tvm-ffi01-cu128-x86_64-linux"), s),
            "tvm-ffi version (0.1) does not match environment tvm-ffi version (None)");
  SystemDescription tvm = s;
  tvm.tvm_ffi_version = MajorMinor{0, 1};
  EXPECT_EQ(rejection_reason(v("tvm-ffi01-cu128-x86_64-linux"), tvm), std::nullopt);
  EXPECT_EQ(rejection_reason(v("torch210-cxx11-cu128-x86_64-windows"), s),
            "OS (windows) does not match system OS (linux)");
  SystemDescription xpu = sys(Backend::xpu, MajorMinor{2025, 3});
  EXPECT_EQ(rejection_reason(v("torch210-cxx11-xpu20253-x86_64-linux"), xpu), std::nullopt);
  EXPECT_EQ(rejection_reason(v("torch210-cxx11-cu128-x86_64-linux"), xpu),
            "backend (cu128) does not match selected backend (xpu20253)");
  SystemDescription cann = sys(Backend::cann, MajorMinor{8, 0});
  EXPECT_EQ(rejection_reason(v("torch-npu"), cann), std::nullopt);
  EXPECT_EQ(rejection_reason(v("torch-cann"), cann),
            "backend (cann) does not match system backend (npu) and is not universal");
}

TEST(ResolveVariants, FreeThreadedRejectsArchVariants) {
  SystemDescription s = sys(Backend::cuda, MajorMinor{12, 8});
  s.free_threaded = true;
  Resolution r = resolve_variants(set_a, s);
  EXPECT_EQ(r.best, "torch-cuda");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], free_threaded_warning);
  EXPECT_EQ(r.trace.size(), set_a.size());
  EXPECT_EQ(r.trace[1], "torch210-cpu-aarch64-darwin: arch kernel not supported on free-threaded Python <3.15");
  EXPECT_EQ(r.trace.back(), "torch-cpu: backend (cpu) does not match system backend (cuda) and is not universal");
}

TEST(ResolveVariants, InvalidNamesAreSkippedAndDuplicatesCountOnce) {
  Resolution r = resolve_variants({"torch-cuda", "not-a-variant", "torch-cuda", "CARD.md"}, sys(Backend::cuda, MajorMinor{12, 8}));
  EXPECT_EQ(r.invalid_names, (Names{"not-a-variant", "CARD.md"}));
  EXPECT_EQ(r.trace, (Names{"torch-cuda compatible, preferred ✅"}));
}

TEST(RankKey, TiesBrokenByKindThenName) {
  // tvm-ffi01-cu130 and torch-cuda share the key (0,2,0,0,0): TVM-FFI first, deterministically.
  SystemDescription s = sys(Backend::cuda, MajorMinor{13, 0});
  s.tvm_ffi_version = MajorMinor{0, 1};
  Resolution r = resolve_variants({"torch-cuda", "tvm-ffi01-cu130-x86_64-linux"}, s);
  EXPECT_EQ(r.accepted, (Names{"tvm-ffi01-cu130-x86_64-linux", "torch-cuda"}));
  Resolution reversed = resolve_variants({"tvm-ffi01-cu130-x86_64-linux", "torch-cuda"}, s);
  EXPECT_EQ(reversed.accepted, r.accepted);
  // Rejected entries with equal keys sort by name.
  Resolution rejected = resolve_variants({"torch-xpu", "torch-rocm", "torch-metal"}, s);
  EXPECT_EQ(rejected.trace.front().substr(0, 11), "torch-metal");
}

TEST(ResolveVariants, HigherCompatibleCudaMinorWins) {
  Resolution r = resolve_variants(cuda_only, sys(Backend::cuda, MajorMinor{12, 9}));
  EXPECT_EQ(r.accepted, (Names{"torch210-cxx11-cu128-x86_64-linux", "torch210-cxx11-cu126-x86_64-linux"}));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::variant
