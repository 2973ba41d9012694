// `kernel-builder build` as a library call (docs/cli.md build, docs/building.md): reads the
// project, detects toolchains, plans the variants, builds them (`max_jobs` at a time), then
// copies the bundle extras. Progress goes to a BuildReporter; the result is a summary or an error.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builder/compile_times.h"
#include "builder/reporter.h"
#include "builder/toolchain.h"
#include "codegen/variant_project.h"
#include "config/model.h"
#include "util/result.h"

namespace kb::builder {

struct BuildOptions {
  std::filesystem::path kernel_dir = ".";
  std::vector<std::string> variants;  // --variant (empty: all)
  std::vector<std::string> pythons;   // --python
  std::optional<std::filesystem::path> toolchains_file;  // --toolchains, else KERNEL_BUILDER_TOOLCHAINS
  int max_jobs = 1;
  std::optional<int> cores;
  std::optional<double> memory_budget_gib;  // --memory-budget (default: the available memory)
  bool print_build_logs = false;
  std::optional<std::string> unique_id;
  bool no_cache = false;
  bool no_header_cache = false;  // --no-header-cache (torch_pch.h)
  bool no_symbol_isolation = false;  // --no-symbol-isolation (kernel units share one symbol space)
  // --split-compile auto|off|N: nvcc's parallel optimiser (docs/build-engine.md); auto by default.
  codegen::SplitCompile split_compile{true, 0};
  bool skip_checks = false;
  bool no_import_check = false;
  bool bundle = false;
  bool skip_missing = false;
  // Portable output (portable.h): --manylinux POLICY (default: the policy of the target torch's
  // own wheels); --no-portable links against the host's glibc as it is.
  std::optional<std::string> manylinux;
  bool no_portable = false;
  bool offline = false;  // --offline: no downloads of pinned header archives (header_deps.h)
  // --remote-cache URL (else KERNEL_BUILDER_REMOTE_CACHE): ccache's remote storage (remote_cache.h).
  std::optional<std::string> remote_cache;
  // The builder's own identity, recorded in provenance (from cli/app.h).
  std::string builder_version;
  std::string builder_commit;
  bool builder_dirty = false;
};

struct BuildSummary {
  std::vector<std::string> built;
  std::vector<std::string> up_to_date;
  // Variants this run did not produce although the kernel has them: bundle variants of the
  // reference matrix without a toolchain here, and, with --variant, the unselected ones.
  std::vector<std::string> not_built;
  // Per built variant, the sources its build compiled and their seconds, slowest first.
  std::map<std::string, std::vector<SourceTime>> compile_times;
};

// Interpreters from a toolchain registry file: {"format_version": 1, "toolchains": [{"python": P}, ...]}.
// Relative paths are resolved against the file's directory.
util::Result<std::vector<std::string>> read_toolchain_registry(const std::filesystem::path& file);

util::Result<BuildSummary> run_build(const BuildOptions& options, BuildReporter& reporter);

// What `build` with these toolchain options (`pythons`, `toolchains_file`; nothing else is read)
// could build here for `config`, each with the toolchain that builds it, described as
// "<python> (torch <version>[, nvcc <version>])". Interpreters that cannot be probed (no torch,
// not found) are skipped and reported in `problems`, one line each. Nothing is written to disk.
struct BuildableVariant {
  std::string name;
  std::string toolchain;
  config::Backend backend = config::Backend::cpu;
};
struct BuildableVariants {
  std::vector<BuildableVariant> variants;  // in build order
  std::vector<std::string> problems;
  const BuildableVariant* find(const std::string& name) const;
};
util::Result<BuildableVariants> buildable_variants(const config::BuildConfig& config, const BuildOptions& options);

// The configured toolchains (`pythons`, `toolchains_file`), probed without the probe cache;
// interpreters that cannot be used are skipped with a line in `problems`.
util::Result<std::vector<Toolchain>> detect_toolchains(const BuildOptions& options, std::vector<std::string>& problems);

}  // namespace kb::builder
