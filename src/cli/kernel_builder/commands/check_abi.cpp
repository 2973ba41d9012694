// `kernel-builder check-abi [KERNEL_DIR] [-m POLICY] [--macos V] [-p V] [--torch-stable-abi V]
// [--json]` (docs/abi-check.md): every `.so`/`.pyd` of every discovered variant is checked against the
// manylinux policy (ELF), the macOS minimum (Mach-O), Python's stable ABI and, when asked, Torch's
// stable ABI. All violations are printed; the command fails at the end if any file failed.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "abi/check.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "util/report.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
  abi::CheckOptions check;
  std::string torch_stable_abi;
  bool json = false;
};

std::string kind_name(abi::ViolationKind kind) {
  switch (kind) {
    case abi::ViolationKind::manylinux: return "manylinux";
    case abi::ViolationKind::library: return "library";
    case abi::ViolationKind::run_path: return "run-path";
    case abi::ViolationKind::macos_missing: return "macos-missing";
    case abi::ViolationKind::macos_newer: return "macos-newer";
    case abi::ViolationKind::python_newer: return "python-abi-newer";
    case abi::ViolationKind::python_not_abi3: return "python-not-abi3";
    case abi::ViolationKind::torch_unstable: return "torch-unstable";
  }
  return "unknown";
}

util::Status check_abi(Options& options) {
  auto found = discover_built_variants(options.dir);
  if (!found) return std::move(found).error();
  if (!options.torch_stable_abi.empty()) options.check.torch_stable_abi = options.torch_stable_abi;
  bool failed = false;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& variant : found->variants) {
    for (const auto& path : abi::native_files(variant.path)) {
      auto report = abi::check_file(path, options.check);
      if (!report) return std::move(report).error();
      std::fputs(abi::render_file_report(*report, options.check).c_str(), stderr);
      if (!report->ok()) failed = true;
      if (options.json) {
        nlohmann::ordered_json violations = nlohmann::ordered_json::array();
        for (const auto& v : report->violations) {
          nlohmann::ordered_json entry = {{"kind", kind_name(v.kind)}, {"symbol", v.symbol}, {"detail", v.detail}};
          if (!v.library.empty()) entry["library"] = v.library;
          violations.push_back(std::move(entry));
        }
        nlohmann::ordered_json file = {{"path", path.string()}, {"format", report->format_name},
                                       {"skipped", report->skipped}, {"violations", violations}};
        if (report->oldest_policy) {
          file["oldest_policy"] = report->oldest_policy->empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(*report->oldest_policy);
        }
        files.push_back(std::move(file));
      }
    }
  }
  if (options.json) {
    nlohmann::ordered_json out = {{"files", files}, {"ok", !failed}};
    std::printf("%s\n", out.dump(2).c_str());
  }
  if (failed) return util::Error(util::ErrorKind::config, "ABI compatibility issues found");
  return {};
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  add_kernel_dir(app, options->dir);
  app.add_option("-m,--manylinux", options->check.manylinux,
                 "manylinux policy (manylinux_2_17 ... manylinux_2_39, manylinux2014 ...) of the symbol versions, "
                 "libraries and run paths (ELF)")
      ->default_str("manylinux_2_28");
  app.add_option("--macos", options->check.macos, "Newest minimum macOS version allowed (Mach-O)")->default_str("15.0");
  app.add_option("-p,--python-abi", options->check.python_abi, "Python stable ABI version the files must keep to")
      ->default_str("3.9");
  app.add_option("--torch-stable-abi", options->torch_stable_abi,
                 "Also require only stable Torch symbols up to this torch version (stable-ABI variants)");
  app.add_flag("--json", options->json, "Also print {files: [{path, format, violations}], ok} on stdout");
  return [options] { return exit_status(check_abi(*options)); };
}

const RegisterCommand registration("kernel-builder",
                                   {"check-abi", "Check the built variants' native files for ABI compatibility", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
