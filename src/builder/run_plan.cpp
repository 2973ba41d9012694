// Planning a build run (see run_plan.h): pure, nothing is read or written.
#include "builder/run_plan.h"

#include <algorithm>

#include "util/prelude.h"
#include "util/strings.h"

namespace kb::builder {


util::Status check_build_options(const BuildOptions& options) {
  if (options.unique_id) KB_TRY(check_unique_id(*options.unique_id));
  if (options.no_cache && options.remote_cache) {
    return Error(ErrorKind::usage, "--remote-cache needs the compiler cache, which --no-cache turns off")
        .with_hint("drop one of them");
  }
  return {};
}

namespace {

// The variant named `wanted`, or why it cannot be built: no toolchain here, or no such variant.
Result<PlannedVariant> find_variant(const BuildPlan& plan, const std::string& wanted) {
  auto it = std::find_if(plan.variants.begin(), plan.variants.end(),
                         [&](const PlannedVariant& v) { return v.name == wanted; });
  if (it != plan.variants.end()) return *it;
  auto missing =
      std::find_if(plan.missing.begin(), plan.missing.end(), [&](const MissingVariant& m) { return m.name == wanted; });
  if (missing != plan.missing.end()) {
    return Error(ErrorKind::config, "missing toolchain for " + missing->name + ": " + missing->what);
  }
  std::vector<std::string> valid;
  for (const auto& v : plan.variants) valid.push_back(v.name);
  for (const auto& m : plan.missing) valid.push_back(m.name);
  std::sort(valid.begin(), valid.end());
  return Error(ErrorKind::usage, "Unknown variant `" + wanted + "`.\nValid variants are: " + util::join(valid, ", "));
}

}  // namespace

Result<VariantSelection> select_variants(const BuildPlan& plan, const BuildOptions& options) {
  VariantSelection selection;
  if (options.variants.empty()) {
    selection.selected = plan.variants;
    if (options.bundle && !plan.missing.empty() && !options.skip_missing) {
      const auto& m = plan.missing.front();
      return Error(ErrorKind::config, "missing toolchain for " + m.name + ": " + m.what)
          .with_hint("pass interpreters with `--python`/`--toolchains`, or `--skip-missing` to build a partial bundle");
    }
    if (!plan.missing.empty()) {
      std::vector<std::string> names;
      for (const auto& m : plan.missing) names.push_back(m.name);
      selection.notes.push_back("bundle variants not built for lack of a toolchain: " + util::join(names, ", "));
    }
  } else {
    for (const auto& wanted : options.variants) {
      auto found = find_variant(plan, wanted);
      if (!found) return std::move(found).error();
      selection.selected.push_back(std::move(*found));
    }
  }
  for (const auto& m : plan.missing) selection.not_built.push_back(m.name);
  for (const auto& v : plan.variants) {
    bool chosen = std::any_of(selection.selected.begin(), selection.selected.end(),
                              [&](const PlannedVariant& s) { return s.name == v.name; });
    if (!chosen) selection.not_built.push_back(v.name);
  }
  return selection;
}

RunPlan plan_run(const BuildOptions& options, VariantSelection selection, const HostFacts& host, std::string unique_id,
                 std::optional<std::string> remote_cache) {
  RunPlan run;
  int max_jobs = std::max(1, options.max_jobs);
  int variants = static_cast<int>(selection.selected.size());
  run.workers = std::max(1, std::min(max_jobs, variants));
  BuildSettings& settings = run.settings;
  settings.unique_id = std::move(unique_id);
  metadata::BuilderProvenance builder{options.builder_version, std::nullopt};
  if (metadata::is_valid_oid(options.builder_commit))
    builder.git = metadata::GitState{options.builder_commit, options.builder_dirty};
  settings.provenance.kernel_builder = builder;
  settings.provenance.kernel = kernel_git_state(host.git);
  settings.cores =
      options.cores ? std::max(1, *options.cores) : std::max(1, std::max(1, host.hardware_threads) / max_jobs);
  settings.concurrent_variants = run.workers;
  settings.memory_budget_gib = options.memory_budget_gib ? options.memory_budget_gib : host.available_memory_gib;
  settings.nvcc_threads = host.nvcc_threads;
  settings.strict_manylinux = options.bundle;
  settings.manylinux = options.manylinux;
  settings.portable = !options.no_portable;
  settings.use_compiler_cache = !options.no_cache;
  settings.remote_cache = std::move(remote_cache);
  settings.header_cache = !options.no_header_cache;
  if (settings.remote_cache && settings.header_cache) {
    // GCC's precompiled headers are not byte-identical between two builds of them, and ccache
    // keys an object on the header it was compiled with: objects built with the header cache
    // would never be found by another machine.
    settings.header_cache = false;
    run.notes.push_back(
        "the torch header cache is off with --remote-cache: precompiled headers differ between machines, "
        "so objects compiled with them could not be shared");
  }
  settings.symbol_isolation = !options.no_symbol_isolation;
  settings.split_compile = options.split_compile;
  settings.offline = options.offline;
  settings.import_check = !options.no_import_check;
  settings.skip_checks = options.skip_checks;
  settings.stream_logs = options.print_build_logs;
  run.selection = std::move(selection);
  return run;
}

Error first_failure(std::vector<Error> errors) {
  Error first = std::move(errors.front());
  if (errors.size() > 1) first.hints.push_back(std::to_string(errors.size() - 1) + " more variant(s) failed as well");
  return first;
}

}  // namespace kb::builder
