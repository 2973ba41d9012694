// The conformance cases of docs/abi-check.md and its report format, on synthetic binaries.
#include "abi/check.h"

#include <gtest/gtest.h>

namespace kb::abi {
namespace {
namespace KB_UNITY_ID {

BinaryInfo elf(std::vector<ImportedSymbol> imports, std::string arch = "x86_64") {
  BinaryInfo info;
  info.format = Format::elf;
  info.format_name = "ELF";
  info.architecture = std::move(arch);
  info.imports = std::move(imports);
  return info;
}

std::vector<Violation> check(const BinaryInfo& binary, const CheckOptions& options = {}) {
  auto result = check_binary(binary, options);
  EXPECT_TRUE(result) << (result ? "" : result.error().message);
  return result ? *result : std::vector<Violation>{};
}

TEST(AbiVersions, NormaliseAndCompare) {
  EXPECT_EQ(normalise_version("7.0.0"), "7");
  EXPECT_EQ(normalise_version("15.0"), "15");
  EXPECT_EQ(normalise_version("3.9"), "3.9");
  EXPECT_EQ(normalise_version("1.2.0.8"), "1.2.0.8");
  EXPECT_EQ(normalise_version("TM_1"), "TM_1");
  EXPECT_EQ(compare_versions("3.12", "3.9"), 1);
  EXPECT_EQ(compare_versions("2.10", "2.11"), -1);
  EXPECT_EQ(compare_versions("26.0.0", "26"), 0);
}

TEST(AbiCheck, CleanElfWithOldGlibcAndAbi3Symbols) {
  EXPECT_TRUE(check(elf({{"memcpy", "GLIBC_2.14"}, {"PyLong_FromLong", std::nullopt}})).empty());
}

TEST(AbiCheck, GlibcNewerThanPolicy) {
  auto v = check(elf({{"fstat", "GLIBC_2.33", "libc.so.6"}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, ViolationKind::manylinux);
  EXPECT_EQ(v[0].symbol, "fstat");
  EXPECT_EQ(v[0].detail, "GLIBC_2.33");
  EXPECT_EQ(v[0].library, "libc.so.6");
  EXPECT_EQ(describe(v[0]), "fstat@GLIBC_2.33 (libc.so.6)");
}

TEST(AbiCheck, EveryPolicyAndAliasHasData) {
  // auditwheel's manylinux_2_5 ... manylinux_2_39, oldest first; the legacy aliases resolve.
  auto policies = manylinux_policies();
  ASSERT_GE(policies.size(), 14u);
  EXPECT_EQ(policies.front(), "manylinux_2_5");
  EXPECT_EQ(policies.back(), "manylinux_2_39");
  EXPECT_EQ(*canonical_policy("manylinux1"), "manylinux_2_5");
  EXPECT_EQ(*canonical_policy("manylinux2010"), "manylinux_2_12");
  EXPECT_EQ(*canonical_policy("manylinux2014"), "manylinux_2_17");
  EXPECT_EQ(*policy_glibc_ceiling("manylinux_2_28", "x86_64"), "2.28");
  EXPECT_EQ(*policy_glibc_ceiling("manylinux2014", "aarch64"), "2.18");  // 2.18: __cxa_thread_atexit_impl
  EXPECT_EQ(*policy_glibc_ceiling("manylinux_2_39", "aarch64"), "2.39");
  // pthread_create@GLIBC_2.34: outside 2_28 and 2_31, within 2_34 (aarch64 too).
  for (const std::string arch : {"x86_64", "aarch64"}) {
    auto needs_2_34 = elf({{"pthread_create", "GLIBC_2.34", "libc.so.6"}}, arch);
    CheckOptions p228, p231, p234;
    p228.manylinux = "manylinux_2_28";
    p231.manylinux = "manylinux_2_31";
    p234.manylinux = "manylinux_2_34";
    EXPECT_EQ(check(needs_2_34, p228).size(), 1u) << arch;
    EXPECT_EQ(check(needs_2_34, p231).size(), 1u) << arch;
    EXPECT_TRUE(check(needs_2_34, p234).empty()) << arch;
  }
  // GLIBCXX 3.4.30 (GCC 12) is within 2_35, not 2_34.
  auto glibcxx = elf({{"_ZSt21__glibcxx_assert_failPKciS0_S0_", "GLIBCXX_3.4.30", "libstdc++.so.6"}});
  CheckOptions p234, p235;
  p234.manylinux = "manylinux_2_34";
  p235.manylinux = "manylinux_2_35";
  EXPECT_EQ(check(glibcxx, p234).size(), 1u);
  EXPECT_TRUE(check(glibcxx, p235).empty());
}

TEST(AbiCheck, PolicyAllowsAVersion) {
  EXPECT_FALSE(*policy_allows("manylinux_2_28", "x86_64", "GLIBCXX_3.4.29"));
  EXPECT_TRUE(*policy_allows("manylinux_2_34", "x86_64", "GLIBCXX_3.4.29"));
  EXPECT_TRUE(*policy_allows("manylinux_2_28", "aarch64", "GLIBC_2.17"));
  EXPECT_FALSE(policy_allows("manylinux_9_9", "x86_64", "GLIBC_2.17"));
}

TEST(AbiCheck, DefaultPolicyFollowsTorchWheels) {
  EXPECT_EQ(default_policy_for_torch("2.11"), "manylinux_2_28");
  EXPECT_EQ(default_policy_for_torch("2.13"), "manylinux_2_28");
  EXPECT_EQ(default_policy_for_torch("2.14"), "manylinux_2_28");  // torch 2.14.0/2.15.0 on PyPI: manylinux_2_28
  EXPECT_EQ(default_policy_for_torch("2.15"), "manylinux_2_28");
  EXPECT_EQ(default_policy_for_torch("2.5"), "manylinux_2_17");
}

TEST(AbiCheck, LibrariesOutsideThePolicyAndTheFrameworkRuntime) {
  auto binary = elf({});
  binary.needed = {"libc.so.6", "libstdc++.so.6", "libtorch_cpu.so", "libc10_cuda.so", "libcudart.so.13",
                   "libamdhip64.so.7", "libpthread.so.0", "libfoo.so.1", "libssl.so.3"};
  auto v = check(binary);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, ViolationKind::library);
  EXPECT_EQ(v[0].symbol, "libfoo.so.1");
  EXPECT_EQ(v[1].symbol, "libssl.so.3");
  EXPECT_EQ(describe(v[0]),
            "libfoo.so.1: not on every manylinux system; link it statically or depend on the wheel that ships it");
  CheckOptions symbols_only;
  symbols_only.libraries = false;
  EXPECT_TRUE(check(binary, symbols_only).empty());
}

TEST(AbiCheck, RunPathsIntoTheBuildMachine) {
  auto binary = elf({});
  binary.rpath = {"/home/me/lib", "$ORIGIN/../lib"};
  binary.runpath = {"${ORIGIN}", "relative/dir"};
  auto v = check(binary);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, ViolationKind::run_path);
  EXPECT_EQ(describe(v[0]), "RPATH /home/me/lib: points into the build machine; use $ORIGIN-relative paths or none");
  EXPECT_EQ(describe(v[1]), "RUNPATH relative/dir: points into the build machine; use $ORIGIN-relative paths or none");
}

TEST(AbiCheck, GlibcxxNewerThanPolicy) {
  auto v = check(elf({{"_ZSt28__throw_bad_array_new_lengthv", "GLIBCXX_3.4.29"}, {"_ZdlPv", "GLIBCXX_3.4"}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].symbol, "_ZSt28__throw_bad_array_new_lengthv");
  EXPECT_EQ(v[0].detail, "GLIBCXX_3.4.29");
}

TEST(AbiCheck, NonNumericVersionsFollowTheTable) {
  // Ours (QUIRK): CXXABI_TM_1 is allowed, GLIBC_PRIVATE is a violation, nothing aborts.
  auto v = check(elf({{"__cxa_tm_cleanup", "CXXABI_TM_1"}, {"_dl_x", "GLIBC_PRIVATE"}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].symbol, "_dl_x");
  EXPECT_EQ(v[0].detail, "GLIBC_PRIVATE");
}

TEST(AbiCheck, VersionsWithoutUnderscoreAndUnknownDependenciesAreIgnored) {
  EXPECT_TRUE(check(elf({{"cudaMalloc", "libcudart.so.12"}, {"foo", "OPENSSL_3.0.0"}})).empty());
  EXPECT_TRUE(check(elf({{"deflate", "ZLIB_1.2.0"}, {"__atomic_load", "LIBATOMIC_1.0"}, {"x", "GCC_7.0.0"}})).empty());
}

TEST(AbiCheck, PythonAbiNewerThanRequested) {
  auto v = check(elf({{"PyType_FromMetaclass", std::nullopt}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, ViolationKind::python_newer);
  EXPECT_EQ(v[0].detail, "3.12");
  CheckOptions py312;
  py312.python_abi = "3.12";
  EXPECT_TRUE(check(elf({{"PyType_FromMetaclass", std::nullopt}}), py312).empty());
}

TEST(AbiCheck, NonAbi3PythonSymbols) {
  // abi_only entries (_Py_Dealloc, _PyObject_GC_New) are part of the table (docs/abi-check.md), so
  // they pass; §8's example lists _PyObject_GC_New as non-ABI3, which the table contradicts.
  auto v = check(elf({{"_PyObject_GetDictPtr", std::nullopt}, {"_Py_Dealloc", std::nullopt},
                      {"_PyObject_GC_New", std::nullopt}, {"PyFrame_GetCode", std::nullopt}}));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, ViolationKind::python_newer);  // in the table, from 3.10
  EXPECT_EQ(v[0].symbol, "PyFrame_GetCode");
  EXPECT_EQ(v[1].kind, ViolationKind::python_not_abi3);
  EXPECT_EQ(v[1].symbol, "_PyObject_GetDictPtr");
}

TEST(AbiCheck, MacosMinimumVersion) {
  BinaryInfo macho;
  macho.format = Format::macho64;
  macho.format_name = "Mach-O 64-bit";
  macho.macos_minos = "26.0.0";
  auto v = check(macho);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, ViolationKind::macos_newer);
  EXPECT_EQ(v[0].symbol, "26");
  CheckOptions metal;
  metal.macos = "26.0";
  EXPECT_TRUE(check(macho, metal).empty());
  macho.macos_minos.reset();
  ASSERT_EQ(check(macho).size(), 1u);
  EXPECT_EQ(check(macho)[0].kind, ViolationKind::macos_missing);
}

TEST(AbiCheck, TorchStableAbiShimVersions) {
  const CheckOptions v211{.torch_stable_abi = std::string("2.11")};
  const CheckOptions v210{.torch_stable_abi = std::string("2.10")};
  BinaryInfo binary = elf({{"torch_from_blob", std::nullopt}});
  EXPECT_TRUE(check(binary, v211).empty());
  auto v = check(binary, v210);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, ViolationKind::torch_unstable);
  EXPECT_EQ(v[0].symbol, "torch_from_blob");
  EXPECT_EQ(v[0].detail, "2.11");
  EXPECT_TRUE(check(binary).empty());  // without --torch-stable-abi nothing is checked

  // A shim added in torch 2.15 (a build against torch 2.15's headers can use it).
  BinaryInfo newer = elf({{"torch_dtype_from_pyobject", std::nullopt}});
  EXPECT_TRUE(check(newer, {.torch_stable_abi = std::string("2.15")}).empty());
  auto v214 = check(newer, {.torch_stable_abi = std::string("2.14")});
  ASSERT_EQ(v214.size(), 1u);
  EXPECT_EQ(v214[0].kind, ViolationKind::torch_unstable);
  EXPECT_EQ(v214[0].detail, "2.15");
}

TEST(AbiCheck, TorchStableAbiRejectsC10AndAtSymbols) {
  const CheckOptions v211{.torch_stable_abi = std::string("2.11")};
  auto v = check(elf({{"_ZN3c106detail14torchCheckFailEPKcS2_jRKSs", std::nullopt},
                      {"_ZN5torch6stable6detail3fooEv", std::nullopt},
                      {"_ZNK2at10TensorBase8data_ptrIfEEPT_v", std::nullopt},
                      {"not_a_cxx_name", std::nullopt}}),
                 v211);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].symbol, "c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&)");
  // Only the qualified function name (after the return type) starts with at:: (the SHOULD rule).
  EXPECT_EQ(v[1].symbol, "float* at::TensorBase::data_ptr<float>() const");
}

TEST(AbiCheck, UnknownPolicyAndArchitecture) {
  CheckOptions unknown;
  unknown.manylinux = "manylinux_9_99";
  auto result = check_binary(elf({}), unknown);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "Unknown manylinux version: manylinux_9_99");
  auto arch = check_binary(elf({}, "machine 243"), {});
  ASSERT_FALSE(arch);
  EXPECT_EQ(arch.error().message, "Unsupported architecture: machine 243");
}

TEST(AbiReport, RendersTheSpecFormat) {
  FileReport report;
  report.path = "build/v/_x.abi3.so";
  report.format_name = "ELF";
  report.violations = {{ViolationKind::manylinux, "fstat", "GLIBC_2.33", "libc.so.6"},
                       {ViolationKind::library, "libfoo.so.1", ""},
                       {ViolationKind::python_not_abi3, "_PyObject_GC_New", ""}};
  report.oldest_policy = "manylinux_2_34";
  EXPECT_EQ(render_file_report(report, {}),
            "🐍 Checking for compatibility with manylinux_2_28 and Python ABI version 3.9: build/v/_x.abi3.so\n"
            "\n⛔ Symbols incompatible with `manylinux_2_28` found:\n\nfstat@GLIBC_2.33 (libc.so.6)\n"
            "(the oldest policy this file meets: manylinux_2_34)\n"
            "\n⛔ Libraries that `manylinux_2_28` systems lack found:\n\n"
            "libfoo.so.1: not on every manylinux system; link it statically or depend on the wheel that ships it\n"
            "\n⛔ Non-ABI3 symbols found:\n\n_PyObject_GC_New\n");
  FileReport clean;
  clean.path = "m.so";
  clean.format_name = "Mach-O 64-bit";
  const CheckOptions torch{.torch_stable_abi = std::string("2.11")};
  EXPECT_EQ(render_file_report(clean, torch),
            "🐍 Checking for compatibility with macOS 15, and Python ABI version 3.9: m.so\n"
            "🔥 Checking for compatibility with Torch stable ABI version 2.11\n"
            "✅ No compatibility issues found\n");
  FileReport skipped;
  skipped.path = "x.pyd";
  skipped.format_name = "PE";
  skipped.skipped = true;
  EXPECT_EQ(render_file_report(skipped, {}), "⚠️  Skipping unsupported file format (PE): x.pyd\n");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::abi
