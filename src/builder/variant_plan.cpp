// Planning one variant build (see variant_plan.h).
#include "builder/variant_plan.h"

#include "builder/project_checks.h"
#include "codegen/ops_py.h"

namespace kb::builder {

VariantPlan plan_variant(const BuildSettings& s, const PlannedVariant& v) {
  VariantPlan plan;
  const auto& config = *s.config;
  plan.python_name = config.general.python_name();
  plan.ops_id = codegen::make_ops_id(plan.python_name, std::string(config::to_string(v.backend)), s.unique_id);
  plan.work = work_dir(s, v.name);
  plan.log_path = plan.work / "build.log";
  plan.stamp_file = plan.work / "stamp";
  plan.target = output_dir(s) / v.name;
  plan.staging = output_dir(s) / (".staging-" + v.name);
  plan.package = s.project / extension_dir_name(config) / plan.python_name;
  plan.compile = v.flavour != Flavour::noarch;
  bool checks = !s.skip_checks;
  // The import check of a torch variant imports torch while the variant compiles (a TVM-FFI
  // variant's package does not import torch, so its check must not either).
  plan.early_import_check = checks && s.import_check && v.toolchain && v.flavour == Flavour::torch_arch;
  if (checks && s.import_check) {
    plan.import_check = v.toolchain ? ImportCheck::run : ImportCheck::no_interpreter;
    if (!v.toolchain) {
      plan.import_check_note = "skipping the import check of `" + v.name + "`: no interpreter for backend `" +
                               std::string(config::to_string(v.backend)) + "` is configured";
    }
  }
  plan.abi_check = checks && v.flavour != Flavour::noarch;
  return plan;
}

std::string variant_stamp_input(const BuildSettings& s, const PlannedVariant& v, const VariantPlan& plan,
                                const std::string& metadata_json, const std::string& input_fingerprint) {
  std::string input = "kb-variant-stamp 1\n" + v.name + "\n" + plan.ops_id + "\n" + metadata_json + "\n" +
                      input_fingerprint + "\n" + (s.skip_checks ? "skip" : "check") +
                      (s.import_check ? "import" : "noimport") + "\n";
  if (v.toolchain) input += v.toolchain->python.string() + "\n" + v.toolchain->torch_version + "\n";
  if (v.flavour == Flavour::tvm_ffi) input += "tvm-ffi " + v.toolchain->tvm_ffi_version.value_or("") + "\n";
  return input;
}

}  // namespace kb::builder
