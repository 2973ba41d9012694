// `kernel-builder list-variants [KERNEL_DIR] [--arch] [--json] [--mark] [--python P]...
// [--toolchains FILE]`: the variant names this project produces on the host system, in build-set
// order (docs/cli.md; docs/variants.md), and which of them the configured toolchains (as `build`
// would find them) can build here: marked on a terminal or with --mark, "buildable" in --json.
// Piped without --mark, the output is the bare names upstream prints.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "builder/builder.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"
#include "config/reader.h"
#include "util/exit_code.h"
#include "util/report.h"
#include "variant/project_variants.h"

namespace kb::cli {
namespace {
namespace KB_UNITY_ID {

struct Options {
  std::string dir = ".";
  bool arch = false;
  bool json = false;
  bool mark = false;
  std::vector<std::string> pythons;
  std::string toolchains;
};

// Only variants added from the toolchains lack a build set among the arch variants.
bool outside_matrix(const variant::ProjectVariant& v) { return v.name.is_arch() && !v.build_set; }

nlohmann::ordered_json to_json(const variant::ProjectVariant& v, const builder::BuildableVariants& buildable) {
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
    if (auto toolkit = v.build_set->toolkit_text()) out["toolkit"] = *toolkit;
    out["cpu"] = v.build_set->cpu;
    out["os"] = v.build_set->os;
  } else if (v.name.is_arch()) {
    // A toolchain's variant outside the reference matrix: everything comes from its name.
    if (v.name.framework_version) out["torch"] = v.name.framework_version->to_string();
    if (v.name.compute.version) out["toolkit"] = v.name.compute.version->to_string();
    out["cpu"] = v.name.cpu;
    out["os"] = v.name.os;
  }
  out["bundle"] = v.bundle;
  if (v.buildable_here) {
    out["buildable"] = *v.buildable_here;
    const auto* found = buildable.find(v.name_text);
    out["toolchain"] = found ? nlohmann::ordered_json(found->toolchain) : nlohmann::ordered_json(nullptr);
    out["in_matrix"] = !outside_matrix(v);
  }
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
  if (auto status = require_directory(options.dir); !status) return report_error(status.error());
  std::vector<std::string> warnings;
  auto variants = variants_for(options, warnings);
  if (!variants) return report_error(variants.error());
  for (const auto& warning : warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());

  const bool marks = !options.arch && !options.json && (options.mark || ::isatty(STDOUT_FILENO));
  builder::BuildableVariants buildable;
  if (!options.arch && (marks || options.json)) {
    auto config = config::load_build_config(options.dir);
    if (!config) return report_error(config.error());
    builder::BuildOptions build_options;
    build_options.pythons = options.pythons;
    if (!options.toolchains.empty()) build_options.toolchains_file = options.toolchains;
    auto detected = builder::buildable_variants(*config, build_options);
    if (!detected) return report_error(detected.error());
    buildable = std::move(*detected);
    for (const auto& problem : buildable.problems) std::fprintf(stderr, "warning: toolchain not usable: %s\n", problem.c_str());
    for (auto& v : *variants) v.buildable_here = buildable.find(v.name_text) != nullptr;
    // Variants a toolchain builds that the reference matrix does not list (another torch or
    // CUDA version): `build` builds them too, so they belong in the list.
    for (const auto& b : buildable.variants) {
      auto listed = std::find_if(variants->begin(), variants->end(),
                                 [&](const variant::ProjectVariant& v) { return v.name_text == b.name; });
      if (listed != variants->end()) continue;
      auto name = variant::VariantName::parse(b.name);
      if (!name) continue;
      variant::ProjectVariant extra;
      extra.name = *name;
      extra.name_text = b.name;
      extra.backend = b.backend;
      extra.buildable_here = true;
      variants->push_back(std::move(extra));
    }
  }

  if (options.json) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const auto& v : *variants) array.push_back(to_json(v, buildable));
    std::printf("%s\n", array.dump(2).c_str());
  } else if (marks) {
    size_t width = 0;
    for (const auto& v : *variants) width = std::max(width, v.name_text.size());
    size_t count = 0;
    for (const auto& v : *variants) {
      const auto* found = buildable.find(v.name_text);
      std::string mark = found ? "✓  " + found->toolchain : "-  no toolchain here";
      if (found) ++count;
      if (outside_matrix(v)) mark += "  [not in the reference matrix]";
      std::printf("%-*s  %s\n", static_cast<int>(width), v.name_text.c_str(), mark.c_str());
    }
    std::fprintf(stderr, "%zu of %zu variant(s) buildable here; add toolchains with --python or --toolchains.\n", count,
                 variants->size());
  } else {
    for (const auto& v : *variants) std::printf("%s\n", v.name_text.c_str());
  }
  return util::to_int(util::ExitCode::success);
}

Action setup(CLI::App& app) {
  auto options = std::make_shared<Options>();
  add_kernel_dir(app, options->dir);
  app.add_flag("--arch", options->arch, "Print the arch-form name of every build set (devshell/testshell keys)");
  app.add_flag("--json", options->json,
               "Print a JSON array of objects instead of names (with `buildable` and `toolchain` per variant)");
  app.add_flag("--mark", options->mark,
               "Mark the variants the configured toolchains can build here (default on a terminal)");
  app.add_option("--python", options->pythons, "Python interpreter with torch to consider as a toolchain (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--toolchains", options->toolchains, "Toolchain registry file (default: $KERNEL_BUILDER_TOOLCHAINS)");
  return [options] { return list_variants(*options); };
}

const RegisterCommand registration("kernel-builder",
                                   {"list-variants", "List the variants this kernel builds on this system", setup});

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::cli
