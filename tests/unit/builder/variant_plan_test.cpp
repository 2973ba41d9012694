// Planning one variant build (variant_plan.h): ops id and paths, which steps run and what is
// skipped (compile, early/staged import check, ABI check), the stamp input.
#include "builder/variant_plan.h"

#include <gtest/gtest.h>

namespace kb::builder {
namespace {
namespace KB_UNITY_ID {

Toolchain toolchain() {
  Toolchain t;
  t.python = "/venv/bin/python";
  t.torch_version = "2.11.0+cpu";
  return t;
}

struct Fixture {
  config::BuildConfig config;
  Toolchain python = toolchain();
  BuildSettings settings;
  Fixture() {
    config.general.name = "my-kernel";
    settings.project = "/k";
    settings.config = &config;
    settings.unique_id = "abc1234";
  }
  PlannedVariant variant(Flavour flavour, bool with_toolchain, config::Backend backend = config::Backend::cpu) {
    return PlannedVariant{"torch211-cxx11-cpu-x86_64-linux", backend, flavour, with_toolchain ? &python : nullptr, {}};
  }
};

TEST(plan_variant, OpsIdAndPaths) {
  Fixture f;
  VariantPlan plan = plan_variant(f.settings, f.variant(Flavour::torch_arch, true));
  EXPECT_EQ(plan.python_name, "my_kernel");
  EXPECT_EQ(plan.ops_id, "_my_kernel_cpu_abc1234");
  EXPECT_EQ(plan.work, "/k/build/.kb/torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(plan.log_path, "/k/build/.kb/torch211-cxx11-cpu-x86_64-linux/build.log");
  EXPECT_EQ(plan.stamp_file, "/k/build/.kb/torch211-cxx11-cpu-x86_64-linux/stamp");
  EXPECT_EQ(plan.target, "/k/build/torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(plan.staging, "/k/build/.staging-torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(plan.package, "/k/torch-ext/my_kernel");
}

TEST(plan_variant, TorchArchVariantCompilesAndRunsEveryCheck) {
  Fixture f;
  VariantPlan plan = plan_variant(f.settings, f.variant(Flavour::torch_arch, true));
  EXPECT_TRUE(plan.compile);
  EXPECT_TRUE(plan.early_import_check);
  EXPECT_EQ(plan.import_check, ImportCheck::run);
  EXPECT_FALSE(plan.import_check_note);
  EXPECT_TRUE(plan.abi_check);
}

TEST(plan_variant, TvmFfiVariantDoesNotImportTorchWhileCompiling) {
  Fixture f;
  VariantPlan plan = plan_variant(f.settings, f.variant(Flavour::tvm_ffi, true));
  EXPECT_TRUE(plan.compile);
  EXPECT_FALSE(plan.early_import_check);
  EXPECT_EQ(plan.import_check, ImportCheck::run);
  EXPECT_TRUE(plan.abi_check);
}

TEST(plan_variant, NoarchVariantIsNotCompiledNorAbiChecked) {
  Fixture f;
  VariantPlan plan = plan_variant(f.settings, f.variant(Flavour::noarch, true));
  EXPECT_FALSE(plan.compile);
  EXPECT_FALSE(plan.early_import_check);
  EXPECT_EQ(plan.import_check, ImportCheck::run);
  EXPECT_FALSE(plan.abi_check);
}

TEST(plan_variant, NoarchVariantWithoutAnInterpreterSkipsTheImportCheckWithANote) {
  Fixture f;
  VariantPlan plan = plan_variant(f.settings, f.variant(Flavour::noarch, false, config::Backend::xpu));
  EXPECT_EQ(plan.import_check, ImportCheck::no_interpreter);
  EXPECT_EQ(plan.import_check_note,
            "skipping the import check of `torch211-cxx11-cpu-x86_64-linux`: no interpreter "
            "for backend `xpu` is configured");
  EXPECT_EQ(plan.ops_id, "_my_kernel_xpu_abc1234");
}

TEST(plan_variant, NoImportCheckAndSkipChecks) {
  Fixture f;
  f.settings.import_check = false;
  VariantPlan no_import = plan_variant(f.settings, f.variant(Flavour::torch_arch, true));
  EXPECT_FALSE(no_import.early_import_check);
  EXPECT_EQ(no_import.import_check, ImportCheck::off);
  EXPECT_TRUE(no_import.abi_check);
  EXPECT_FALSE(plan_variant(f.settings, f.variant(Flavour::noarch, false)).import_check_note);
  f.settings.import_check = true;
  f.settings.skip_checks = true;
  VariantPlan skipped = plan_variant(f.settings, f.variant(Flavour::torch_arch, true));
  EXPECT_FALSE(skipped.early_import_check);
  EXPECT_EQ(skipped.import_check, ImportCheck::off);
  EXPECT_FALSE(skipped.abi_check);
  EXPECT_TRUE(skipped.compile);
}

TEST(variant_stamp_input, CoversMetadataInputsChecksAndToolchain) {
  Fixture f;
  PlannedVariant v = f.variant(Flavour::torch_arch, true);
  VariantPlan plan = plan_variant(f.settings, v);
  EXPECT_EQ(variant_stamp_input(f.settings, v, plan, "{meta}", "fp"),
            "kb-variant-stamp 1\ntorch211-cxx11-cpu-x86_64-linux\n_my_kernel_cpu_abc1234\n{meta}\nfp\ncheckimport\n"
            "/venv/bin/python\n2.11.0+cpu\n");
  f.settings.skip_checks = true;
  f.settings.import_check = false;
  PlannedVariant noarch = f.variant(Flavour::noarch, false);
  EXPECT_EQ(variant_stamp_input(f.settings, noarch, plan_variant(f.settings, noarch), "{meta}", "fp"),
            "kb-variant-stamp 1\ntorch211-cxx11-cpu-x86_64-linux\n_my_kernel_cpu_abc1234\n{meta}\nfp\nskipnoimport\n");
  f.python.tvm_ffi_version = "0.1.2";
  PlannedVariant tvm = f.variant(Flavour::tvm_ffi, true);
  std::string input = variant_stamp_input(f.settings, tvm, plan_variant(f.settings, tvm), "{meta}", "fp");
  EXPECT_EQ(input.substr(input.size() - 14), "tvm-ffi 0.1.2\n");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::builder
