// What one `build` run does once its variants are planned (plan.h), as pure functions of the
// options and what was found on the machine: the options that cannot go together, which variants
// are built (--variant, --bundle, --skip-missing) and which are not and why, the settings every
// variant build shares (compile jobs and cores, memory budget, caches, checks) with the notes they
// bring, and whether the bundle extras are copied. `run_build` (builder.cpp) performs it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/plan.h"
#include "builder/unique_id.h"
#include "builder/variant_build.h"
#include "util/result.h"

namespace kb::builder {

// Options that contradict each other or are malformed (--unique-id, --remote-cache with --no-cache).
util::Status check_build_options(const BuildOptions& options);

// The variants a run builds: all of the plan's (a --bundle build needs every bundle variant of
// the matrix, unless --skip-missing), or those named by --variant, in that order.
struct VariantSelection {
  std::vector<PlannedVariant> selected;
  // Variants this run does not produce: the plan's missing ones, then the unselected ones.
  std::vector<std::string> not_built;
  std::vector<std::string> notes;  // e.g. bundle variants without a toolchain here
};
util::Result<VariantSelection> select_variants(const BuildPlan& plan, const BuildOptions& options);

// Facts of the machine and the project a run's settings depend on (read by run_build).
struct HostFacts {
  int hardware_threads = 1;                    // std::thread::hardware_concurrency, at least 1
  std::optional<double> available_memory_gib;  // MemAvailable
  int nvcc_threads = 1;                        // NVCC_THREADS
  std::optional<GitInfo> git;                  // the project's git state
};

// A run: the selection, the number of variants built at once, the settings every variant build
// shares (all but `project`, `config` and `reporter`, which run_build sets), the notes they bring
// and whether the card and benchmarks are copied into build/ afterwards.
struct RunPlan {
  VariantSelection selection;
  int workers = 1;
  BuildSettings settings;
  std::vector<std::string> notes;
};
// `unique_id`: the run's id (make_unique_id, random outside git); `remote_cache`: the resolved URL.
RunPlan plan_run(const BuildOptions& options, VariantSelection selection, const HostFacts& host, std::string unique_id,
                 std::optional<std::string> remote_cache);

// The error of a run whose variants failed: the first one, with a hint counting the others.
util::Error first_failure(std::vector<util::Error> errors);

}  // namespace kb::builder
