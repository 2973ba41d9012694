// Build orchestration (see builder.h): performs the run planned by run_plan.h.
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
#include "builder/run_plan.h"
#include "builder/toolchain.h"
#include "builder/unique_id.h"
#include "builder/user_cache.h"
#include "builder/variant_build.h"
#include "codegen/card/card_context.h"
#include "config/reader.h"
#include "config/source_files.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {


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

// Writes the filled CARD.md (docs/build-output.md; a card that cannot be filled is a note, not a
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

namespace {

// The remote compile cache of the run, when ccache is there to use it. Without the compiler
// cache, KERNEL_BUILDER_REMOTE_CACHE does not apply.
Result<std::optional<std::string>> remote_cache_of(const BuildOptions& options) {
  if (options.no_cache) return std::optional<std::string>();
  auto remote_cache = resolve_remote_cache(options.remote_cache);
  if (!remote_cache) return std::move(remote_cache).error();
  if (*remote_cache && !util::find_program("ccache")) {
    return Error(ErrorKind::config, "--remote-cache needs ccache (the compiler cache), which is not on PATH")
        .with_hint("install it (Debian/Ubuntu: apt-get install ccache; it has Redis and HTTP storage from 4.4)");
  }
  return remote_cache;
}

// The kernel directory as an absolute path without a trailing separator.
Result<fs::path> project_dir(const fs::path& kernel_dir) {
  std::error_code ec;
  if (!fs::is_directory(kernel_dir, ec)) {
    return Error(ErrorKind::usage, "`" + kernel_dir.string() + "` is not a directory");
  }
  fs::path project = fs::absolute(kernel_dir).lexically_normal();
  if (project.has_filename() == false) project = project.parent_path();
  return project;
}

HostFacts read_host_facts(const fs::path& project) {
  HostFacts host;
  host.hardware_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  host.available_memory_gib = available_memory_gib();
  host.nvcc_threads = nvcc_threads_from_env();
  host.git = read_git_info(project);
  return host;
}

// Builds the selected variants, `workers` at a time, into `summary`; stops taking new variants
// once interrupted. The errors of failed variants, in the order they failed.
std::vector<Error> build_variants(const RunPlan& run, BuildSummary& summary, BuildReporter& reporter) {
  const auto& selected = run.selection.selected;
  std::vector<Error> errors;
  std::mutex mutex;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < selected.size() && !InterruptWatch::interrupted(); i = next++) {
      auto result = build_variant(run.settings, selected[i]);
      std::lock_guard<std::mutex> lock(mutex);
      if (!result) {
        reporter.stage(selected[i].name, Stage::failed);
        errors.push_back(std::move(result).error());
      } else if (result->result == VariantResult::built) {
        summary.built.push_back(selected[i].name);
        if (!result->compile_times.empty()) summary.compile_times[selected[i].name] = std::move(result->compile_times);
      } else if (result->result == VariantResult::up_to_date) {
        summary.up_to_date.push_back(selected[i].name);
      }  // toolchain_refuted: run_build builds it again
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < run.workers; ++j) threads.emplace_back(worker);
  worker();
  for (auto& thread : threads) thread.join();
  return errors;
}

}  // namespace

Result<BuildSummary> run_build(const BuildOptions& options, BuildReporter& reporter) {
  KB_TRY(check_build_options(options));
  auto remote_cache = remote_cache_of(options);
  if (!remote_cache) return std::move(remote_cache).error();
  auto project = project_dir(options.kernel_dir);
  if (!project) return std::move(project).error();
  auto config = config::load_build_config(*project);
  if (!config) return std::move(config).error();
  KB_TRY(config::check_source_files(*project));  // before CMake, which would not name the file
  // One build per directory at a time; what an interrupted build left in staging goes first.
  auto directory_lock = BuildLock::acquire(*project / "build");
  if (!directory_lock) return std::move(directory_lock).error();
  InterruptWatch interrupt_watch;
  remove_stale_staging(*project / "build");

  // Toolchains: probe results cached in the user cache (a clean build skips `import torch` too);
  // without one, the build starts on a guess while the probe runs (toolchain.h).
  auto pythons = interpreters(options);
  if (!pythons) return std::move(pythons).error();
  auto probes = ToolchainProbes::start(*pythons, user_cache_dir() / "toolchains");
  if (!probes) return std::move(probes).error();
  HostFacts host = read_host_facts(*project);
  std::string unique_id = make_unique_id(options.unique_id, host.git);
  std::error_code ec;
  fs::create_directories(*project / "build", ec);

  // Plans and builds the variants of `toolchains`; the notes of the plan once.
  bool noted = false;
  bool checked = options.skip_checks;
  auto build_on = [&](const std::vector<Toolchain>& toolchains, ToolchainProbes* guessed) -> Result<BuildSummary> {
    auto plan = plan_build(*config, toolchains);
    if (!plan) return std::move(plan).error();
    if (plan->variants.empty()) return nothing_to_build(*config, toolchains, *plan);
    auto selection = select_variants(*plan, options);
    if (!selection) return std::move(selection).error();
    RunPlan run = plan_run(options, std::move(*selection), host, unique_id, *remote_cache);
    if (!noted) {
      for (const auto& note : plan->notes) reporter.note(note);
      for (const auto& note : selection->notes) reporter.note(note);
      for (const auto& note : run.notes) reporter.note(note);
      noted = true;
    }
    // Checks on the source, with the first interpreter (it has torch; the lint needs only `ast`).
    if (!checked) KB_TRY(check_project(*project, *config, toolchains.front().python));
    checked = true;
    run.settings.project = *project;
    run.settings.config = &*config;
    run.settings.reporter = &reporter;
    run.settings.toolchain_probes = guessed;
    BuildSummary summary;
    summary.not_built = run.selection.not_built;
    auto errors = build_variants(run, summary, reporter);
    if (InterruptWatch::interrupted()) return interrupted_error();
    if (!errors.empty()) return first_failure(std::move(errors));
    return summary;
  };
  auto built = build_on(probes->toolchains(), probes->guessing() ? &*probes : nullptr);
  if (probes->guessing() && !InterruptWatch::interrupted()) {
    // A wrong guess may have failed the build (another torch's headers): the probes decide.
    auto held = probes->settle();
    if (!held) return std::move(held).error();
    if (!*held) {
      reporter.note(probes->account() + "; building again with the probes' results");
      built = build_on(probes->probed(), nullptr);
    }
  }
  if (!built) return built;
  BuildSummary summary = std::move(*built);
  // Every build, of all variants or of some (`--variant`, one CI job of a release plan), writes the
  // card and benchmarks: whichever builds are uploaded carry the same shared files.
  KB_TRY(copy_bundle_extras(*config, *project, *project / "build", reporter));
  return summary;
}

}  // namespace kb::builder
