// Golden text of the check-abi report (docs/abi-check.md) with every section it can print: manylinux
// symbols (with and without a policy that fits), libraries, run paths, macOS, Python ABI, Torch
// stable ABI, a clean file and a skipped one. KB_REFRESH_GOLDEN=1 rewrites the golden files
// (tests/unit/abi/refresh-golden).
#include <cstdlib>

#include <gtest/gtest.h>

#include "abi/check.h"
#include "util/fs.h"

namespace kb::abi {
namespace {
namespace KB_UNITY_ID {

const std::filesystem::path golden_dir = std::filesystem::path(KB_TEST_DATA_DIR) / "unit" / "abi" / "golden";

void expect_golden(const std::string& name, const std::string& actual) {
  auto path = golden_dir / name;
  if (const char* refresh = std::getenv("KB_REFRESH_GOLDEN"); refresh && refresh[0] == '1') {
    ASSERT_TRUE(util::write_file_atomic(path, actual));
    return;
  }
  auto expected = util::read_file(path);
  ASSERT_TRUE(expected) << "missing " << path << "; run tests/unit/abi/refresh-golden";
  EXPECT_EQ(actual, *expected) << "golden mismatch: " << name;
}

TEST(RenderFileReport, GoldenElfWithEverySection) {
  CheckOptions options;  // manylinux_2_28, Python 3.9
  options.torch_stable_abi = "2.10";
  FileReport fits_newer;
  fits_newer.path = "build/torch210-cxx11-cpu-x86_64-linux/_relu_cpu_abc.abi3.so";
  fits_newer.format_name = "ELF";
  fits_newer.violations = {
      {ViolationKind::manylinux, "__libc_single_threaded", "GLIBC_2.32", "libc.so.6"},
      {ViolationKind::manylinux, "pthread_create", "GLIBC_2.34", "libc.so.6"},
      {ViolationKind::library, "libfoo.so.1", ""},
      {ViolationKind::run_path, "/home/builder/lib", "RUNPATH"},
      {ViolationKind::python_newer, "PyType_GetModuleByDef", "3.13"},
      {ViolationKind::python_not_abi3, "_PyObject_GC_New", ""},
      {ViolationKind::torch_unstable, "aoti_torch_new_op", "2.11"},
      {ViolationKind::torch_unstable, "at::Tensor::add_(at::Tensor const&, c10::Scalar const&)", ""},
  };
  fits_newer.oldest_policy = "manylinux_2_34";
  FileReport fits_none;
  fits_none.path = "build/v/_private.so";
  fits_none.format_name = "ELF";
  fits_none.violations = {{ViolationKind::manylinux, "private_symbol", "GLIBC_PRIVATE", "libc.so.6"}};
  fits_none.oldest_policy = "";
  FileReport clean;
  clean.path = "build/v/_clean.abi3.so";
  clean.format_name = "ELF";
  expect_golden("report-elf.txt", render_file_report(fits_newer, options) + render_file_report(fits_none, options) +
                                      render_file_report(clean, options));
}

TEST(RenderFileReport, GoldenMachOAndSkipped) {
  FileReport too_new;
  too_new.path = "build/torch210-metal-aarch64-darwin/_relu_metal.abi3.so";
  too_new.format_name = "Mach-O 64-bit";
  too_new.violations = {{ViolationKind::macos_newer, "26", ""}};
  FileReport missing;
  missing.path = "build/torch210-metal-aarch64-darwin/_old.abi3.so";
  missing.format_name = "Mach-O 64-bit";
  missing.violations = {{ViolationKind::macos_missing, "", ""}};
  FileReport skipped;
  skipped.path = "build/torch210-cpu-x86_64-windows/_relu.pyd";
  skipped.format_name = "PE";
  skipped.skipped = true;
  CheckOptions options;
  options.macos = "15.0";
  expect_golden("report-macho.txt", render_file_report(too_new, options) + render_file_report(missing, options) +
                                        render_file_report(skipped, options));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::abi
