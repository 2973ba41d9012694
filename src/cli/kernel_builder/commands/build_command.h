// Shared by `build` and `build-and-copy` (and usable by `build-and-upload`): the build flags of
// docs/cli.md and the progress reporters (a live status line per variant on a TTY, plain lines
// otherwise; their text is builder/build_progress.h's). Header-only because the command files are
// globbed one subcommand per .cpp.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "builder/build_progress.h"
#include "builder/build_report.h"
#include "builder/builder.h"
#include "builder/reproducible.h"
#include "cli/app.h"
#include "cli/command_registry.h"
#include "cli/kernel_builder/commands/kernel_dir.h"

namespace kb::cli {

// What a reporter knows of each variant, for the progress lines (builder/build_progress.h).
class ProgressBoard {
 public:
  using Clock = std::chrono::steady_clock;
  builder::VariantProgress& at(const std::string& variant) {
    auto it = index_.find(variant);
    if (it == index_.end()) {
      it = index_.emplace(variant, entries_.size()).first;
      entries_.push_back({variant, {}, Clock::now(), false});
    }
    return entries_[it->second].progress;
  }
  // Sets the stage; the clock of a variant stops when it is done, up to date or failed.
  void stage(const std::string& variant, builder::Stage stage) {
    auto& progress = at(variant);
    progress.stage = stage;
    if (stage != builder::Stage::compile && stage != builder::Stage::link) progress.longest.reset();
    update(variant);
    entries_[index_.at(variant)].stopped =
        stage == builder::Stage::done || stage == builder::Stage::up_to_date || stage == builder::Stage::failed;
  }
  // Refreshes the elapsed time of a variant whose clock runs.
  void update(const std::string& variant) {
    auto& entry = entries_[index_.at(variant)];
    if (!entry.stopped) entry.progress.elapsed = std::chrono::duration<double>(Clock::now() - entry.started).count();
  }
  std::string line(const std::string& variant) { return builder::render_progress(variant, at(variant)); }
  std::vector<std::string> lines() {
    std::vector<std::string> out;
    for (auto& entry : entries_) {
      update(entry.variant);
      out.push_back(builder::render_progress(entry.variant, entry.progress));
    }
    return out;
  }

 private:
  struct Entry {
    std::string variant;
    builder::VariantProgress progress;
    Clock::time_point started;
    bool stopped;
  };
  std::vector<Entry> entries_;
  std::map<std::string, size_t> index_;
};

// Plain lines on stderr (a log, or `-L`): one per stage change, with the variant's elapsed time,
// and one when a compile runs past 10 s, repeated every minute (no carriage returns).
class PlainBuildReporter : public builder::BuildReporter {
 public:
  void stage(const std::string& variant, builder::Stage stage) override {
    std::lock_guard<std::mutex> lock(mutex_);
    board_.stage(variant, stage);
    std::cerr << board_.line(variant) << "\n";
  }
  void progress(const std::string& variant, int done, int total) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& progress = board_.at(variant);
    progress.done = done;
    progress.total = total;
  }
  void running(const std::string& variant, const std::optional<builder::RunningSource>& longest) override {
    std::lock_guard<std::mutex> lock(mutex_);
    board_.at(variant).longest = longest;
    if (!longest) return;
    auto& named = named_[variant];
    std::optional<double> last = named.first == longest->source ? named.second : std::optional<double>();
    if (!builder::long_compile_line_due(*longest, last)) return;
    named = {longest->source, longest->seconds};
    board_.update(variant);
    std::cerr << board_.line(variant) << "\n";
  }
  void log(const std::string&, std::string_view chunk) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::cerr << chunk;
  }
  void note(const std::string& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::cerr << "note: " << message << "\n";
  }

 private:
  std::mutex mutex_;
  ProgressBoard board_;
  std::map<std::string, std::pair<std::string, std::optional<double>>> named_;  // last source named, at seconds
};

// One live line per variant, redrawn in place, and every second while the build runs (the elapsed
// times).
class TtyBuildReporter : public builder::BuildReporter {
 public:
  TtyBuildReporter() {
    ticker_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!stopped_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
        if (drawn_ > 0) redraw();
      }
    });
  }
  ~TtyBuildReporter() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    stopped_.notify_all();
    ticker_.join();
  }
  void stage(const std::string& variant, builder::Stage stage) override {
    std::lock_guard<std::mutex> lock(mutex_);
    board_.stage(variant, stage);
    redraw();
  }
  void progress(const std::string& variant, int done, int total) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& progress = board_.at(variant);
    progress.done = done;
    progress.total = total;
    redraw();
  }
  void running(const std::string& variant, const std::optional<builder::RunningSource>& longest) override {
    std::lock_guard<std::mutex> lock(mutex_);
    board_.at(variant).longest = longest;
  }
  void log(const std::string&, std::string_view chunk) override {
    std::lock_guard<std::mutex> lock(mutex_);
    clear();
    std::cerr << chunk;
    drawn_ = 0;
    redraw();
  }
  void note(const std::string& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    clear();
    std::cerr << "note: " << message << "\n";
    drawn_ = 0;
    redraw();
  }

 private:
  void clear() {
    for (size_t i = 0; i < drawn_; ++i) std::cerr << "\x1b[1A\r\x1b[K";
  }
  void redraw() {
    clear();
    auto lines = board_.lines();
    for (const auto& line : lines) std::cerr << "\r\x1b[K" << line << "\n";
    drawn_ = lines.size();
    std::cerr.flush();
  }
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::thread ticker_;
  ProgressBoard board_;
  size_t drawn_ = 0;
};

struct BuildCommandOptions {
  builder::BuildOptions build;
  std::string kernel_dir = ".";
  std::string toolchains;
  std::string unique_id;
  int cores = 0;
  double memory_budget_gib = 0;
  std::string split_compile = "auto";
  bool check_reproducible = false;  // build --check-reproducible (build/reproducible.h)
  bool json = false;                // build --json: the summary and every compile time on stdout
};

inline void add_build_flags(CLI::App& app, BuildCommandOptions& o, bool with_variant) {
  add_kernel_dir(app, o.kernel_dir);
  if (with_variant) app.add_option("--variant", o.build.variants, "Build only this variant (repeatable)")->allow_extra_args(false);
  app.add_option("--python", o.build.pythons, "Python interpreter with torch to build with (repeatable)")->allow_extra_args(false);
  app.add_option("--toolchains", o.toolchains, "Toolchain registry file (default: $KERNEL_BUILDER_TOOLCHAINS)");
  app.add_option("--max-jobs", o.build.max_jobs, "Number of variants built concurrently (default 1)");
  app.add_option("--cores", o.cores, "Parallel compile jobs inside one variant build");
  app.add_option("--memory-budget", o.memory_budget_gib,
                 "GiB that the compile jobs of all variants together may use; jobs are capped to fit "
                 "(default: the memory available when the build starts)")
      ->check(CLI::PositiveNumber);
  app.add_flag("-L,--print-build-logs", o.build.print_build_logs, "Stream compiler/CMake output to stderr");
  app.add_option("--unique-id", o.unique_id, "Unique id of this build (default: from git)");
  app.add_flag("--no-cache", o.build.no_cache, "Do not use ccache");
  app.add_option("--remote-cache", o.build.remote_cache,
                 "Share compiled objects through ccache's remote storage: redis://[[USER]:PASSWORD@]HOST[:PORT], "
                 "redis+unix:/PATH, http://HOST[:PORT]/PATH or file:/PATH (also KERNEL_BUILDER_REMOTE_CACHE)");
  app.add_flag("--no-header-cache", o.build.no_header_cache,
               "Do not use the shared torch header cache (precompiled torch headers in $XDG_CACHE_HOME/kernel-builder)");
  app.add_flag("--no-symbol-isolation", o.build.no_symbol_isolation,
               "Link all kernel units into one symbol space (by default each unit keeps its internal symbols)");
  app.add_option("--split-compile", o.split_compile,
                 "nvcc's parallel optimiser, several parts of a CUDA source at once: a heavy source may compile about "
                 "twice as fast. auto (default): 4 parts where nvcc's output stays reproducible (CUDA 13, "
                 "capabilities below 10.0); off; N: N parts on every CUDA source, also where nvcc's output then "
                 "varies from build to build")
      ->check(CLI::IsMember({"auto", "off"}) | CLI::Range(1, 64))
      ->option_text("auto|off|N");
  app.add_flag("--skip-checks", o.build.skip_checks, "Skip the layout, lint and import checks");
  app.add_flag("--no-import-check", o.build.no_import_check, "Skip the post-build import test");
  app.add_flag("--bundle", o.build.bundle, "Release build: every bundle variant of the reference matrix");
  app.add_flag("--skip-missing", o.build.skip_missing, "With --bundle: skip variants without a toolchain");
  app.add_option("--manylinux", o.build.manylinux,
                 "manylinux policy of Linux variants (default: the policy of the target torch's own wheels)");
  app.add_flag("--no-portable", o.build.no_portable,
               "Link against this machine's glibc as it is (modules may not load on older systems)");
  app.add_flag("--offline", o.build.offline,
               "Do not download pinned header archives (cutlass_*); also KERNEL_BUILDER_OFFLINE=1");
  if (with_variant) {
    app.add_flag("--check-reproducible", o.check_reproducible,
                 "Build twice in two temporary directories and compare the variants byte for byte");
  }
}

// `build --check-reproducible`: one line per variant on stdout, `<variant>\tidentical\t<sha256 of
// metadata.json>` or `<variant>\tdiffers\t<first difference>`; an error when any differs.
inline int run_reproducibility_check(BuildCommandOptions& o, builder::BuildReporter& reporter) {
  auto report = builder::check_reproducible(o.build, reporter);
  if (!report) return report_error(report.error());
  for (const auto& v : report->variants) {
    std::cout << v.variant << "\t" << (v.difference ? "differs\t" + *v.difference : "identical\t" + v.digest) << "\n";
  }
  std::cout.flush();
  if (report->variants.empty()) return report_error(util::Error(util::ErrorKind::config, "No arch or noarch variant was built"));
  if (!report->ok()) {
    return report_error(util::Error(util::ErrorKind::config, "The builds are not reproducible")
                            .with_hint("both build trees are kept in " + report->kept.string()));
  }
  return 0;
}

inline int run_build_command(BuildCommandOptions& o, builder::BuildSummary* summary_out = nullptr) {
  o.build.kernel_dir = o.kernel_dir;
  if (!o.toolchains.empty()) o.build.toolchains_file = o.toolchains;
  if (!o.unique_id.empty()) o.build.unique_id = o.unique_id;
  if (o.cores > 0) o.build.cores = o.cores;
  if (o.split_compile != "auto") o.build.split_compile = {false, o.split_compile == "off" ? 0 : std::stoi(o.split_compile)};
  if (o.memory_budget_gib > 0) o.build.memory_budget_gib = o.memory_budget_gib;
  o.build.builder_version = builder_version();
  o.build.builder_commit = builder_commit();
  o.build.builder_dirty = builder_dirty();
  std::unique_ptr<builder::BuildReporter> reporter;
  if (::isatty(STDERR_FILENO) && !o.build.print_build_logs) {
    reporter = std::make_unique<TtyBuildReporter>();
  } else {
    reporter = std::make_unique<PlainBuildReporter>();
  }
  if (o.check_reproducible && o.build.split_compile.count > 0) {
    return report_error(util::Error(util::ErrorKind::usage, "--check-reproducible cannot be combined with --split-compile N")
                            .with_hint("nvcc's output varies from build to build with --split-compile N; check with "
                                       "--split-compile auto (the default: only where it stays reproducible) or off"));
  }
  if (o.check_reproducible) return run_reproducibility_check(o, *reporter);
  auto summary = builder::run_build(o.build, *reporter);
  reporter.reset();  // the live lines stop before the summary is printed
  if (!summary) return report_error(summary.error());
  std::cerr << "Built " << summary->built.size() << " variant(s), " << summary->up_to_date.size()
            << " up to date, in " << (std::filesystem::path(o.kernel_dir) / "build").string() << "\n";
  for (const auto& [variant, times] : summary->compile_times) {
    std::cerr << builder::render_slowest_sources(variant, times) << builder::render_late_start_hint(times);
  }
  if (o.json) std::cout << builder::render_summary_json(*summary) << std::flush;
  if (summary_out) *summary_out = *summary;
  return 0;
}

// The setup (Command::setup) of `build` (`with_variant`) and of its alias `build-and-copy`.
inline std::function<Action(CLI::App&)> build_command(bool with_variant) {
  return [with_variant](CLI::App& app) -> Action {
    auto options = std::make_shared<BuildCommandOptions>();
    add_build_flags(app, *options, with_variant);
    if (with_variant) {
      app.add_flag("--json", options->json,
                   "Print the variants built, up to date and not built, and each compiled source's seconds, as JSON on stdout");
    }
    return [options] { return run_build_command(*options); };
  };
}

}  // namespace kb::cli
