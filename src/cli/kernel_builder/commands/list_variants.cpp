// `kernel-builder list-variants [KERNEL_DIR] [--arch] [--json]`: the variant names this project
// produces on the host system, in build-set order (cli.md §1.2; variants.md §2-3).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command_registry.h"
#include "config/reader.h"
#include "util/exit_code.h"
#include "util/report.h"
#include "variant/project_variants.h"

namespace kb::cli {
namespace {

struct Options {
  std::string dir = ".";
  bool arch = false;
  bool json = false;
};

// Toolkit versions keep at least two components ("13.0", "2025.3.2"), as toolkits are named.
std::string toolkit_text(const config::Version& version) {
  std::string text = version.to_string();
  if (version.components().size() < 2) text = std::to_string(version.major()) + "." + std::to_string(version.minor());
  return text;
}

nlohmann::ordered_json to_json(const variant::ProjectVariant& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["name"] = v.name_text;
  out["backend"] = std::string(config::to_string(v.backend));
  out["kind"] = std::string(variant::to_string(v.name.kind));
  out["torch"] = nullptr;
  out["toolkit"] = nullptr;
  out["cpu"] = nullptr;
  out["os"] = nullptr;
  if (v.build_set) {
    out["torch"] = v.build_set->torch_major_minor().to_string();
    if (v.build_set->toolkit) out["toolkit"] = toolkit_text(*v.build_set->toolkit);
    out["cpu"] = v.build_set->cpu;
    out["os"] = v.build_set->os;
  }
  out["bundle"] = v.bundle;
  if (v.buildable_here) out["buildable"] = *v.buildable_here;
  return out;
}

util::Result<std::vector<variant::ProjectVariant>> variants_for(const Options& options, std::vector<std::string>& warnings) {
  auto config = config::load_build_config(options.dir);
  if (!config) return std::move(config).error();
  auto matrix = variant::reference_matrix();
  if (!matrix) return std::move(matrix).error();
  auto host = variant::this_host();
  if (!host) return std::move(host).error();
  if (options.arch) return variant::arch_form_variants(*matrix, *config, *host);
  auto variants = variant::project_variants(*matrix, *config, *host);
  if (!variants) return std::move(variants).error();
  warnings = variants->warnings;
  return variants->variants;
}

int list_variants(const Options& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(options.dir, ec)) {
    util::print_error(util::Error(util::ErrorKind::usage, "`" + options.dir + "` is not a directory"));
    return util::to_int(util::ExitCode::failure);
  }
  std::vector<std::string> warnings;
  auto variants = variants_for(options, warnings);
  if (!variants) return report_error(variants.error());
  for (const auto& warning : warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (options.json) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& v : *variants) array.push_back(to_json(v));
    std::printf("%s\n", array.dump(2).c_str());
  } else {
    for (const auto& v : *variants) std::printf("%s\n", v.name_text.c_str());
  }
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  app.add_option("KERNEL_DIR", options->dir, "Kernel directory (default: current directory)");
  app.add_flag("--arch", options->arch, "Print the arch-form name of every build set (devshell/testshell keys)");
  app.add_flag("--json", options->json, "Print a JSON array of objects instead of names");
  return [options] { return list_variants(*options); };
}

const RegisterCommand registration("kernel-builder",
                                   {"list-variants", "List the variants this kernel builds on this system", setup});

}  // namespace
}  // namespace kb::cli
