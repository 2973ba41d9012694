// Performing the compile plan of one arch variant (see compile_step.h).
#include "builder/compile_step.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <utility>

#include "abi/check.h"
#include "builder/build_log.h"
#include "builder/build_progress.h"
#include "builder/cmake_cache.h"
#include "builder/cmake_seed.h"
#include "builder/compile_plan.h"
#include "builder/header_deps.h"
#include "builder/jobs.h"
#include "builder/ops_id_use.h"
#include "builder/portable.h"
#include "builder/project_includes.h"
#include "builder/remote_cache.h"
#include "builder/reproducible.h"
#include "builder/start_order.h"
#include "builder/torch_pch.h"
#include "builder/user_cache.h"
#include "codegen/variant_project.h"
#include "util/fs.h"
#include "util/prelude.h"
#include "util/process.h"
#include "util/strings.h"

namespace kb::builder {

using config::Backend;

namespace {

std::optional<std::string> environment_variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

// What the plan needs from the disk, the environment and the network.
Result<CompileFacts> gather_compile_facts(const BuildSettings& s, const PlannedVariant& v, const fs::path& work) {
  const Toolchain& t = *v.toolchain;
  CompileFacts facts;
  HeaderFetchSettings fetch = header_fetch_settings(s.offline);
  fetch.note = [&](const std::string& line) {
    if (s.reporter) s.reporter->note(line);
  };
  auto header_deps =
      resolve_header_dependencies(*s.config, v.backend, dependency_environment(), default_dependency_cache(), &fetch);
  if (!header_deps) return std::move(header_deps).error();
  for (const auto& note : header_deps->notes) {
    if (s.reporter) s.reporter->note(v.name + ": " + note);
  }
  facts.header_dependency_dirs = header_deps->include_dirs;
  bool tvm_ffi = v.flavour == Flavour::tvm_ffi;
  auto [sources, dirs] = module_sources(s, v);
  if (s.header_cache && !v.stable_abi && !tvm_ffi) facts.torch_header_sources = torch_header_sources(s.project, sources, dirs);
  // One walk reads the project's files for both the ops id scan and the sources' weights.
  ProjectIncludeWalker walker(s.project, dirs);
  std::string macro = tvm_ffi ? "TVM_FFI_EXTENSION_NAME" : "TORCH_EXTENSION_NAME";
  bool unit_possible = !tvm_ffi && !v.stable_abi &&
                       (v.backend == Backend::cpu || v.backend == Backend::cuda || v.backend == Backend::metal);
  auto ops_id = plan_ops_id_use(scan_ops_id_sources(walker, sources, macro, !tvm_ffi), unit_possible);
  facts.ops_id_sources = std::move(ops_id.sources);
  facts.ops_id_unit = ops_id.unit;
  facts.project_code = project_code(walker, sources);
  if (s.portable && t.system == "Linux") {
    std::string policy = s.manylinux ? *s.manylinux : abi::default_policy_for_torch(t.torch_major_minor().to_string());
    auto portable = prepare_portable_link(work / "portable", policy, t.machine);
    if (!portable) return std::move(portable).error();
    facts.portable = std::move(*portable);
  }
  if (s.use_compiler_cache) facts.ccache = util::find_program("ccache");
  facts.source_date_epoch = source_date_epoch(s.project);
  facts.nvcc_threads_in_env = nvcc_threads_in_env();
  facts.nvcc_append_flags = environment_variable("NVCC_APPEND_FLAGS");
  return facts;
}

// Runs CMake's configure. An empty build directory of a CPU or CUDA variant starts from the
// compiler identification its toolchain had last time (cmake_seed.h): CMake then skips compiling
// and running its identification programs. A seeded configure that fails is run again unseeded.
util::Status configure_project(const BuildSettings& s, const PlannedVariant& v, const CompilePlan& plan,
                               const fs::path& log_path) {
  std::error_code ec;
  std::optional<std::string> identity;
  fs::path seeds = user_cache_dir() / "cmake-seeds";
  if (plan.seed_configure && !fs::exists(plan.cmake_dir / "CMakeCache.txt", ec)) {
    identity = cmake_seed_identity(plan.configure, plan.seed_languages, effective_environment(plan.configure_env),
                                   host_release());
    fs::remove_all(plan.cmake_dir, ec);  // what an interrupted configure left
  }
  fs::path seed = identity ? apply_cmake_seed(seeds, *identity, plan.cmake_dir) : fs::path();
  if (!seed.empty()) append_log(log_path, "compiler identification seeded from " + seed.string());
  auto run = run_logged(s, v.name, plan.configure, log_path, plan.configure_env);
  if (!run) return std::move(run).error();
  if (!run->success() && !seed.empty()) {
    append_log(log_path, "the configure with a seeded compiler identification failed; configuring again without it");
    forget_cmake_seed(seeds, *identity);
    fs::remove_all(plan.cmake_dir, ec);
    seed.clear();
    run = run_logged(s, v.name, plan.configure, log_path, plan.configure_env);
    if (!run) return std::move(run).error();
  }
  if (!run->success()) return build_failure(v.name, "CMake configuration failed", log_path);
  // The next clean build directory with this toolchain starts from this identification.
  if (identity && seed.empty()) (void)save_cmake_seed(seeds, *identity, plan.cmake_dir);
  return {};
}

// Configures when the build directory is new, was made elsewhere, or the configure command changed.
util::Status configure_if_needed(const BuildSettings& s, const PlannedVariant& v, const CompilePlan& plan,
                                 const fs::path& log_path) {
  if (auto old = foreign_cmake_cache(plan.cmake_dir)) {
    // The kernel directory was moved or copied: CMake refuses a cache made elsewhere.
    if (s.reporter) {
      s.reporter->note(v.name + ": the CMake cache was made in `" + old->string() +
                       "` (the kernel directory was moved or copied); resetting it");
    }
    std::error_code reset_error;
    fs::remove_all(plan.cmake_dir, reset_error);
  }
  auto previous = util::read_file(plan.configure_stamp);
  if (fs::exists(plan.cmake_dir / "CMakeCache.txt") && previous && *previous == plan.configure_key) return {};
  if (s.reporter) s.reporter->stage(v.name, Stage::configure);
  KB_TRY(configure_project(s, v, plan, log_path));
  return util::write_file_atomic(plan.configure_stamp, plan.configure_key);
}

// Reports the compile that has been running longest (build_progress.h), once a second while Ninja runs.
std::function<void()> running_reporter(const BuildSettings& s, const PlannedVariant& v, const CompilePlan& plan) {
  if (!s.reporter) return {};
  return [&s, &v, &plan] {
    auto running = running_compiles(plan.cmake_dir);
    std::optional<RunningSource> longest;
    if (!running.empty()) longest = RunningSource{object_source(running[0].output, plan.sources), running[0].seconds};
    s.reporter->running(v.name, longest);
  };
}

// The torch header cache: links its entry, or starts building a missing one in the background
// (torch_pch.h), while this build compiles without it. Adds ccache's sloppiness to `env` whenever a
// compile command carries the header's options (-fpch-preprocess): without it ccache would not
// cache those compiles, even while no entry is linked.
util::Status prepare_header_cache(const BuildSettings& s, const PlannedVariant& v, const CompilePlan& plan,
                                  std::map<std::string, std::string>& env, const fs::path& log_path,
                                  const std::function<bool()>& regenerate) {
  const Toolchain& t = *v.toolchain;
  std::optional<std::string> launcher;
  if (plan.ccache) launcher = plan.ccache->string();
  ProjectSpecifics specifics{plan.pch_header, s.project, codegen::kKernelModuleTarget, launcher};
  TorchInstall torch{t.torch_version, t.include_dirs.empty() ? fs::path() : fs::path(t.include_dirs[0])};
  // Whether this build recompiles one of the given objects anyway: Ninja's dry run names them, one
  // "[1/2] Building CXX object <object>" line each (the status before it is NINJA_STATUS's). A
  // pending re-run of CMake (a new ops id renames the module) goes first, as the build would run it:
  // a dry run stops after it without looking at the objects.
  auto out_of_date = [&plan, &regenerate](const std::vector<std::string>& objects) {
    if (!regenerate()) return true;  // the build reports it
    std::vector<std::string> argv = ninja_command(plan, 1, {"-n"});
    argv.insert(argv.end(), objects.begin(), objects.end());
    auto dry_run = util::run_process(argv);
    if (!dry_run || !dry_run->success()) return true;  // unknown: switch, as without the question
    for (const auto& line : util::split(dry_run->stdout_text, '\n')) {
      for (const auto& object : objects) {
        if (util::ends_with(line, " " + object)) return true;
      }
    }
    return false;
  };
  auto pch = prepare_torch_pch(plan.cmake_dir, specifics, torch, static_cast<size_t>(plan.jobs.jobs), out_of_date);
  if (!pch) return std::move(pch).error();
  if (pch->filling) {
    append_log(log_path, "torch header cache: no entry " + pch->key + " yet; compiling without it while it is "
                         "precompiled in the background (" + header_cache_dir().string() + ")");
    if (s.reporter) {
      s.reporter->note(v.name + ": precompiling the torch headers into the header cache in the background, for the "
                       "next builds (once per toolchain and flags); this one compiles without them");
    }
  }
  if (pch->note && s.reporter) s.reporter->note(v.name + ": " + *pch->note);
  if (pch->users > 0 && plan.ccache) env["CCACHE_SLOPPINESS"] = ccache_sloppiness(configured_ccache_sloppiness(*plan.ccache));
  return {};
}

std::map<std::string, NinjaLogEntry> read_ninja_log(const CompilePlan& plan) {
  auto text = util::read_file(plan.cmake_dir / ".ninja_log");
  return parse_ninja_log(text ? *text : std::string());
}

std::map<std::string, double> seconds_of(const std::map<std::string, NinjaLogEntry>& log) {
  std::map<std::string, double> seconds;
  for (const auto& [output, entry] : log) seconds[output] = static_cast<double>(entry.end_ms - entry.start_ms) / 1000.0;
  return seconds;
}

// The .ninja_log files of the other variants' build directories, newest first.
std::vector<fs::path> sibling_logs(const CompilePlan& plan) {
  fs::path variant_dir = plan.cmake_dir.parent_path();
  std::vector<std::pair<fs::file_time_type, fs::path>> logs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(variant_dir.parent_path(), ec)) {
    fs::path log = entry.path() / "cmake-build" / ".ninja_log";
    if (entry.path() == variant_dir || !fs::is_regular_file(log, ec)) continue;
    auto time = fs::last_write_time(log, ec);
    if (!ec) logs.emplace_back(time, log);
  }
  std::sort(logs.begin(), logs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<fs::path> out;
  for (auto& [time, log] : logs) out.push_back(std::move(log));
  return out;
}

// The compile times of the newest other variant's last build under build/.kb/ that compiled at
// least two of `objects` (they share the project's object paths: same target and source names),
// and its name; nullopt when there is none.
std::optional<std::pair<std::string, std::map<std::string, double>>> sibling_times(const std::vector<fs::path>& logs,
                                                                                    const std::set<std::string>& objects) {
  for (const auto& log : logs) {
    auto text = util::read_file(log);
    if (!text) continue;
    auto seconds = seconds_of(parse_ninja_log(*text));
    size_t shared = std::count_if(seconds.begin(), seconds.end(), [&](const auto& s) { return objects.count(s.first) > 0; });
    if (shared >= 2) return std::make_pair(log.parent_path().parent_path().filename().string(), std::move(seconds));
  }
  return std::nullopt;
}

// What decides the start order of a build: each object's expected cost, what it was learned
// from, and its unit in the log line.
struct StartCosts {
  std::map<std::string, double> cost;
  std::string from;
  const char* unit = " s";
};

// A first build's estimate: each object's source weighs the bytes of the project's own code it
// reads (CompileFacts::project_code, project_includes.h), and kTorchHeadersKiB more when that code
// includes torch's headers. The CUDA and library headers are left out: they cost each source that
// includes them alike, while a source far heavier than the rest nearly always is the one that
// instantiates the most of the project's templates. Torch's headers are different: a source that
// includes them takes 10-20 s whatever its own code (with the header cache cold, as in a first
// build), more than a light CUDA source, so a binding with little code of its own must not wait
// behind those. 8 KiB puts it between them in the heavy benchmark (2 cores: torch_binding.cpp,
// 0.4 KiB, 13-16.5 s; each light CUDA source, 4.3 KiB for two capabilities, 5.5-6.6 s; heavy_bwd.cu,
// 9.8 KiB, 36 s) and in examples/relu (its torch-including sources take 2-5 times as long as relu.cu).
constexpr double kTorchHeadersKiB = 8.0;

StartCosts estimated_costs(const CompilePlan& plan, const std::set<std::string>& objects) {
  char from[160];
  std::snprintf(from, sizeof from,
                "no earlier build; the sources that read the most project code (their own and their headers'; "
                "torch's headers count as %.0f KiB) first",
                kTorchHeadersKiB);
  StartCosts out{{}, from, " KiB"};
  for (const auto& object : objects) {
    auto found = plan.project_code.find(object_source(object, plan.sources));
    if (found == plan.project_code.end()) continue;
    out.cost[object] = static_cast<double>(found->second.bytes) / 1024.0 + (found->second.torch ? kTorchHeadersKiB : 0.0);
  }
  return out;
}

// Before Ninja runs: the objects that took longest in the last build of this directory start
// first (start_order.h; the link order stays); in a new build directory, those of the newest other
// variant's last build (a build of several variants: each after the first starts its long compiles
// first); with neither, the sources with the most project code (estimated_costs). CMake's pending
// re-run goes first, as the build would run it: it writes build.ninja anew. Nothing happens when
// build.ninja cannot be read or written; the build then starts its sources in their `src` order.
void start_longest_first(const CompilePlan& plan, const std::map<std::string, NinjaLogEntry>& last,
                         const fs::path& log_path, const std::function<bool()>& regenerate) {
  StartCosts costs{seconds_of(last), "the objects that took longest in the last build first"};
  fs::path manifest_path = plan.cmake_dir / "build.ninja";
  if (!regenerate()) return;  // the build reports it
  auto manifest = util::read_file(manifest_path);
  if (!manifest) return;
  if (costs.cost.size() < 2) {
    auto objects = object_outputs(*manifest);
    if (auto sibling = sibling_times(sibling_logs(plan), objects)) {
      costs = {std::move(sibling->second), "the objects that took longest in the last build of " + sibling->first + " first"};
    } else {
      costs = estimated_costs(plan, objects);
    }
  }
  auto order = longest_first(*manifest, costs.cost);
  if (!order || !util::write_file_atomic(manifest_path, order->manifest)) return;
  std::string first;
  for (size_t i = 0; i < order->first.size() && i < 3; ++i) {
    char text[32];
    std::snprintf(text, sizeof text, " (%.1f%s)", costs.cost[order->first[i]], costs.unit);
    first += (i ? ", " : "") + object_source(order->first[i], plan.sources) + text;
  }
  if (order->first.size() > 3) first += ", ...";
  append_log(log_path, "start order: " + costs.from + ": " + first);
}

// Configure, header cache, Ninja and ccache's statistics; the compile times of the sources that
// Ninja compiled into `times` (and the log).
util::Status run_compile(const BuildSettings& s, const PlannedVariant& v, const CompilePlan& plan, const fs::path& log_path,
                         const std::function<void()>& on_compile, std::vector<SourceTime>& times) {
  if (plan.jobs.note && s.reporter) s.reporter->note(v.name + ": " + *plan.jobs.note);
  KB_TRY(configure_if_needed(s, v, plan, log_path));
  bool compiling = false;
  auto start_compile = [&] {
    if (compiling) return;
    compiling = true;
    if (on_compile) on_compile();
    if (s.reporter) s.reporter->stage(v.name, Stage::compile);
  };
  std::error_code ignored;
  if (plan.remote_cache) fs::remove(plan.stats_log, ignored);
  std::map<std::string, std::string> env = plan.compile_env;
  auto ninja_log_before = read_ninja_log(plan);
  // CMake's pending re-run (`ninja build.ninja`), at most once: the header cache's question and the
  // start order both need build.ninja as the build will find it, and neither changes CMake's inputs.
  std::optional<bool> regenerated;
  auto regenerate = [&plan, &regenerated] {
    if (!regenerated) {
      auto run = util::run_process(ninja_command(plan, 1, {"build.ninja"}));
      regenerated = run && run->success();
    }
    return *regenerated;
  };
  if (plan.header_cache) KB_TRY(prepare_header_cache(s, v, plan, env, log_path, regenerate));
  start_longest_first(plan, ninja_log_before, log_path, regenerate);
  start_compile();
  auto run = run_logged(s, v.name, ninja_command(plan, plan.jobs.jobs), log_path, env, running_reporter(s, v, plan));
  if (!run) return std::move(run).error();
  if (!run->success()) return build_failure(v.name, "compilation failed", log_path);
  times = compile_times(ninja_log_before, read_ninja_log(plan), plan.sources);
  std::string table = render_compile_times_table(times) + render_late_start_hint(times);
  append_log(log_path, table.substr(0, table.size() - 1));
  if (plan.remote_cache && s.reporter) {
    auto log = util::read_file(plan.stats_log);
    s.reporter->note(v.name + ": " + describe(parse_stats_log(log ? *log : std::string())));
  }
  return {};
}

}  // namespace

Result<ArchOutput> compile_arch(const BuildSettings& s, const PlannedVariant& v, const std::string& ops_id,
                                const fs::path& work, const fs::path& log_path, std::string& stamp_input,
                                const std::function<bool(const std::string&)>& up_to_date,
                                const std::function<void()>& on_compile) {
  auto facts = gather_compile_facts(s, v, work);
  if (!facts) return std::move(facts).error();
  auto plan = plan_compile(s, v, ops_id, work, *facts);
  if (!plan) return std::move(plan).error();
  KB_TRY(codegen::write_generated_files(plan->generated, plan->files, /*overwrite=*/true, "--force"));
  stamp_input += plan->stamp_input;
  ArchOutput out{plan->archs, plan->library, false, {}};
  // Nothing changed since the last successful build of this variant: not even Ninja runs.
  if (up_to_date(stamp_input)) {
    out.up_to_date = true;
    return out;
  }
  KB_TRY(run_compile(s, v, *plan, log_path, on_compile, out.compile_times));
  if (!fs::exists(out.library)) return build_failure(v.name, "the module " + out.library.string() + " was not built", log_path);
  // Reproducible modules: the linker's build id also covers names removed after the link.
  if (auto derived = abi::derive_build_id(out.library); !derived) return std::move(derived).error();
  return out;
}

}  // namespace kb::builder
