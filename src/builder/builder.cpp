// Build orchestration (see builder.h).
#include "builder/builder.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "builder/jobs.h"
#include "builder/plan.h"
#include "builder/project_checks.h"
#include "builder/remote_cache.h"
#include "builder/run_guard.h"
#include "builder/toolchain.h"
#include "builder/unique_id.h"
#include "builder/user_cache.h"
#include "builder/variant_build.h"
#include "codegen/card/card_context.h"
#include "config/reader.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

namespace fs = std::filesystem;
using util::Error;
using util::ErrorKind;
using util::Result;

namespace {

Result<std::vector<std::string>> interpreters(const BuildOptions& options) {
  std::vector<std::string> out;
  std::optional<fs::path> registry = options.toolchains_file;
  if (!registry) {
    if (const char* env = std::getenv("KERNEL_BUILDER_TOOLCHAINS"); env && *env) registry = fs::path(env);
  }
  if (registry) {
    auto listed = read_toolchain_registry(*registry);
    if (!listed) return std::move(listed).error();
    out = *listed;
  }
  out.insert(out.end(), options.pythons.begin(), options.pythons.end());
  if (out.empty()) out.push_back("python3");
  return out;
}

// Probes every configured interpreter, through the probe cache in the user cache (toolchain.h).
// An interpreter that cannot be used is an error, or, with `problems`, a line there and skipped.
Result<std::vector<Toolchain>> probe_toolchains(const BuildOptions& options, std::vector<std::string>* problems) {
  auto pythons = interpreters(options);
  if (!pythons) return std::move(pythons).error();
  std::vector<Toolchain> toolchains;
  fs::path cache_dir = user_cache_dir() / "toolchains";
  for (const auto& python : *pythons) {
    auto toolchain = probe_toolchain(python, cache_dir);
    if (!toolchain) {
      if (!problems) return std::move(toolchain).error();
      problems->push_back(python + ": " + toolchain.error().message);
      continue;
    }
    toolchains.push_back(std::move(*toolchain));
  }
  return toolchains;
}

// Writes the filled CARD.md (build-output.md §2.4; a card that cannot be filled is a note, not a
// failed build) and copies benchmarks/benchmark*.py.
util::Status copy_bundle_extras(const config::BuildConfig& config, const fs::path& project, const fs::path& out_dir,
                                BuildReporter& reporter) {
  std::error_code ec;
  if (fs::is_regular_file(project / "CARD.md", ec)) {
    auto card = codegen::card::fill_card(config, project);
    if (card) {
      KB_TRY(util::write_file_atomic(out_dir / "CARD.md", *card));
    } else {
      reporter.note("CARD.md not written: " + card.error().message);
    }
  }
  fs::path benchmarks = project / "benchmarks";
  if (!fs::is_directory(benchmarks, ec)) return {};
  fs::path target = out_dir / "benchmarks";
  fs::remove_all(target, ec);
  for (const auto& entry : fs::directory_iterator(benchmarks, ec)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || !util::starts_with(name, "benchmark") || !util::ends_with(name, ".py")) continue;
    fs::create_directories(target, ec);
    fs::copy_file(entry.path(), target / name, fs::copy_options::overwrite_existing, ec);
    if (ec) return Error(ErrorKind::io, "Cannot copy `" + entry.path().string() + "`").with_cause(ec.message());
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> read_toolchain_registry(const fs::path& file) {
  auto text = util::read_file(file);
  if (!text) return std::move(text).error();
  auto root = nlohmann::json::parse(*text, nullptr, false);
  Error invalid(ErrorKind::config, "Invalid toolchain registry `" + file.string() + "`");
  if (root.is_discarded() || !root.is_object()) return std::move(invalid).with_cause("not a JSON object");
  if (root.value("format_version", 0) != 1) {
    return std::move(invalid).with_cause("unsupported `format_version` (expected 1)");
  }
  auto list = root.find("toolchains");
  if (list == root.end() || !list->is_array()) return std::move(invalid).with_cause("missing list `toolchains`");
  std::vector<std::string> out;
  for (const auto& entry : *list) {
    if (!entry.is_object() || !entry.contains("python") || !entry["python"].is_string()) {
      return std::move(invalid).with_cause("every toolchain needs a string `python`");
    }
    fs::path python = entry["python"].get<std::string>();
    if (python.is_relative() && python.has_parent_path()) python = file.parent_path() / python;
    out.push_back(python.string());
  }
  return out;
}

Result<BuildableVariants> buildable_variants(const config::BuildConfig& config, const BuildOptions& options) {
  BuildableVariants out;
  auto detected = probe_toolchains(options, &out.problems);
  if (!detected) return std::move(detected).error();
  const std::vector<Toolchain>& toolchains = *detected;
  if (toolchains.empty()) return out;
  auto plan = plan_build(config, toolchains);
  if (!plan) return std::move(plan).error();
  for (const auto& v : plan->variants) {
    BuildableVariant entry{v.name, "no compilation (noarch)", v.backend};
    if (v.flavour != Flavour::noarch && v.toolchain) {
      const Toolchain& t = *v.toolchain;
      entry.toolchain = t.python.string() + " (torch " + t.torch_version;
      if (v.backend == config::Backend::cuda && t.cuda) entry.toolchain += ", nvcc " + t.cuda->version.to_string();
      entry.toolchain += ")";
    }
    out.variants.push_back(std::move(entry));
  }
  return out;
}

Result<std::vector<Toolchain>> detect_toolchains(const BuildOptions& options, std::vector<std::string>& problems) {
  return probe_toolchains(options, &problems);
}

const BuildableVariant* BuildableVariants::find(const std::string& name) const {
  auto it = std::find_if(variants.begin(), variants.end(), [&](const BuildableVariant& v) { return v.name == name; });
  return it == variants.end() ? nullptr : &*it;
}

Result<BuildSummary> run_build(const BuildOptions& options, BuildReporter& reporter) {
  if (options.unique_id) KB_TRY(check_unique_id(*options.unique_id));
  if (options.no_cache && options.remote_cache) {
    return Error(ErrorKind::usage, "--remote-cache needs the compiler cache, which --no-cache turns off")
        .with_hint("drop one of them");
  }
  // Without the compiler cache, KERNEL_BUILDER_REMOTE_CACHE does not apply.
  auto remote_cache = options.no_cache ? util::Result<std::optional<std::string>>(std::optional<std::string>())
                                       : resolve_remote_cache(options.remote_cache);
  if (!remote_cache) return std::move(remote_cache).error();
  if (*remote_cache) {
    if (!util::find_program("ccache")) {
      return Error(ErrorKind::config, "--remote-cache needs ccache (the compiler cache), which is not on PATH")
          .with_hint("install it (Debian/Ubuntu: apt-get install ccache; it has Redis and HTTP storage from 4.4)");
    }
  }
  std::error_code ec;
  if (!fs::is_directory(options.kernel_dir, ec)) {
    return Error(ErrorKind::usage, "`" + options.kernel_dir.string() + "` is not a directory");
  }
  fs::path project = fs::absolute(options.kernel_dir).lexically_normal();
  if (project.has_filename() == false) project = project.parent_path();
  auto config = config::load_build_config(project);
  if (!config) return std::move(config).error();
  // One build per directory at a time; what an interrupted build left in staging goes first.
  auto directory_lock = BuildLock::acquire(project / "build");
  if (!directory_lock) return std::move(directory_lock).error();
  InterruptWatch interrupt_watch;
  remove_stale_staging(project / "build");

  // Toolchains (probe results cached in the user cache: a clean build skips `import torch` too).
  auto detected = probe_toolchains(options, nullptr);
  if (!detected) return std::move(detected).error();
  const std::vector<Toolchain>& toolchains = *detected;
  auto plan = plan_build(*config, toolchains);
  if (!plan) return std::move(plan).error();
  if (plan->variants.empty()) return nothing_to_build(*config, toolchains, *plan);
  for (const auto& note : plan->notes) reporter.note(note);

  std::vector<PlannedVariant> selected;
  if (options.variants.empty()) {
    selected = plan->variants;
    if (options.bundle && !plan->missing.empty() && !options.skip_missing) {
      const auto& m = plan->missing.front();
      return Error(ErrorKind::config, "missing toolchain for " + m.name + ": " + m.what)
          .with_hint("pass interpreters with `--python`/`--toolchains`, or `--skip-missing` to build a partial bundle");
    }
    if (!plan->missing.empty()) {
      std::vector<std::string> names;
      for (const auto& m : plan->missing) names.push_back(m.name);
      reporter.note("bundle variants not built for lack of a toolchain: " + util::join(names, ", "));
    }
  } else {
    for (const auto& wanted : options.variants) {
      auto it = std::find_if(plan->variants.begin(), plan->variants.end(),
                             [&](const PlannedVariant& v) { return v.name == wanted; });
      if (it != plan->variants.end()) {
        selected.push_back(*it);
        continue;
      }
      auto missing = std::find_if(plan->missing.begin(), plan->missing.end(),
                                  [&](const MissingVariant& m) { return m.name == wanted; });
      if (missing != plan->missing.end()) {
        return Error(ErrorKind::config, "missing toolchain for " + missing->name + ": " + missing->what);
      }
      std::vector<std::string> valid;
      for (const auto& v : plan->variants) valid.push_back(v.name);
      for (const auto& m : plan->missing) valid.push_back(m.name);
      std::sort(valid.begin(), valid.end());
      return Error(ErrorKind::usage, "Unknown variant `" + wanted + "`.\nValid variants are: " + util::join(valid, ", "));
    }
  }

  // Checks on the source, with the first interpreter (it has torch; the lint needs only `ast`).
  if (!options.skip_checks) KB_TRY(check_project(project, *config, toolchains.front().python));

  auto git = read_git_info(project);
  BuildSettings settings;
  settings.project = project;
  settings.config = &*config;
  settings.unique_id = make_unique_id(options.unique_id, git);
  metadata::BuilderProvenance builder{options.builder_version, std::nullopt};
  if (metadata::is_valid_oid(options.builder_commit)) builder.git = metadata::GitState{options.builder_commit, options.builder_dirty};
  settings.provenance.kernel_builder = builder;
  settings.provenance.kernel = kernel_git_state(git);
  int max_jobs = std::max(1, options.max_jobs);
  int available = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  settings.cores = options.cores ? std::max(1, *options.cores) : std::max(1, available / max_jobs);
  settings.concurrent_variants = std::max(1, std::min<int>(max_jobs, static_cast<int>(selected.size())));
  settings.memory_budget_gib = options.memory_budget_gib ? options.memory_budget_gib : available_memory_gib();
  settings.nvcc_threads = nvcc_threads_from_env();
  settings.strict_manylinux = options.bundle;
  settings.manylinux = options.manylinux;
  settings.portable = !options.no_portable;
  settings.use_compiler_cache = !options.no_cache;
  settings.remote_cache = *remote_cache;
  settings.header_cache = !options.no_header_cache;
  if (settings.remote_cache && settings.header_cache) {
    // GCC's precompiled headers are not byte-identical between two builds of them, and ccache
    // keys an object on the header it was compiled with: objects built with the header cache
    // would never be found by another machine.
    settings.header_cache = false;
    reporter.note("the torch header cache is off with --remote-cache: precompiled headers differ between machines, "
                  "so objects compiled with them could not be shared");
  }
  settings.symbol_isolation = !options.no_symbol_isolation;
  settings.offline = options.offline;
  settings.import_check = !options.no_import_check;
  settings.skip_checks = options.skip_checks;
  settings.stream_logs = options.print_build_logs;
  settings.reporter = &reporter;
  fs::create_directories(project / "build", ec);

  BuildSummary summary;
  for (const auto& m : plan->missing) summary.not_built.push_back(m.name);
  for (const auto& v : plan->variants) {
    bool chosen = std::any_of(selected.begin(), selected.end(), [&](const PlannedVariant& s) { return s.name == v.name; });
    if (!chosen) summary.not_built.push_back(v.name);
  }
  std::vector<Error> errors;
  std::mutex mutex;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < selected.size() && !InterruptWatch::interrupted(); i = next++) {
      auto result = build_variant(settings, selected[i]);
      std::lock_guard<std::mutex> lock(mutex);
      if (!result) {
        reporter.stage(selected[i].name, Stage::failed);
        errors.push_back(std::move(result).error());
      } else if (*result == VariantResult::built) {
        summary.built.push_back(selected[i].name);
      } else {
        summary.up_to_date.push_back(selected[i].name);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::min<int>(max_jobs, static_cast<int>(selected.size())); ++j) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  if (InterruptWatch::interrupted()) return interrupted_error();
  if (!errors.empty()) {
    Error first = errors.front();
    if (errors.size() > 1) first.hints.push_back(std::to_string(errors.size() - 1) + " more variant(s) failed as well");
    return first;
  }
  // A release build copies the card and benchmarks also when it builds some variants only (one CI
  // job of a release plan): every job's upload then carries the same shared files.
  if (options.variants.empty() || options.bundle) KB_TRY(copy_bundle_extras(*config, project, project / "build", reporter));
  return summary;
}

}  // namespace kb::builder
