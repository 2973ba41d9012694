// The build plan of a release (`kernel-builder ci plan`): the variants of the release bundle
// grouped by the toolchain each needs, one group per CI job, with what that job installs (runner,
// torch from which index, nvcc) from the table src/ci/data/ci-toolchains.json. Pure apart from
// the optional toolchain marking, which the caller fills in (builder::buildable_variants).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/model.h"
#include "util/result.h"
#include "variant/matrix.h"
#include "variant/project_variants.h"

namespace kb::ci {

// How a job gets its toolchain (ci-toolchains.json applied to one group).
struct ToolchainInstall {
  std::vector<std::string> runs_on;     // runner labels: one hosted label, or self-hosted labels
  bool self_hosted = false;
  std::optional<std::string> container;  // Linux jobs: the image they run in
  std::optional<std::string> torch;      // pip requirement, e.g. "torch==2.14.*"; none for noarch
  std::optional<std::string> torch_index;  // --index-url for torch; none: the default index
  std::optional<std::string> nvcc;       // pip requirement of nvcc (CUDA groups)
};

struct PlanGroup {
  std::string id;      // "torch214-cu130-x86_64-linux", "noarch"
  std::string system;  // "x86_64-linux"
  config::Backend backend = config::Backend::cpu;
  std::optional<std::string> torch;    // "2.14"; none for the noarch group
  std::optional<std::string> toolkit;  // "13.0", "7.1", "2025.3.2"
  std::vector<std::string> variants;   // build order
  ToolchainInstall install;
  bool in_matrix = true;  // false: a toolchain's variant outside the reference matrix (--python)
  // Set when toolchains were probed: whether one here builds every variant of the group, and which.
  std::optional<bool> buildable_here;
  std::optional<std::string> toolchain_here;
};

struct ReleasePlan {
  std::string kernel;                   // general.name
  std::optional<std::string> repo_id;   // general.hub.repo-id
  std::string branch;                   // general.hub.branch, else v<version>
  int64_t version = 1;
  std::vector<std::string> systems;     // the systems planned, in matrix order
  std::vector<PlanGroup> groups;        // arch groups in build-set order, then the noarch group
  // Bundle variants of systems left out of the plan (`--system`), so a reader knows what is missing.
  std::vector<std::string> left_out;
};

struct PlanOptions {
  std::vector<std::string> systems;  // empty: every system of the bundle
  bool all_sets = false;             // also the matrix's non-bundle build sets
};

// The CI toolchain table (src/ci/data/ci-toolchains.json): what each job installs and runs on.
struct ToolchainTable {
  std::string python;
  std::string container;
  std::map<std::string, std::string> runners;                    // system -> hosted label
  std::map<std::string, std::vector<std::string>> self_hosted;   // backend -> labels
  std::map<std::string, std::string> torch_index;                // backend -> URL pattern
  std::map<std::string, std::string> nvcc;                       // CUDA major -> requirement pattern
};

// The toolchain table, parsed (a broken embedded table is a build bug, reported as an error).
util::Result<const ToolchainTable*> toolchain_table();

// Plans the release of `config`. Errors: a --system no build set of the project has (usage, with
// the systems that exist as hint), a project without any variant.
util::Result<ReleasePlan> plan_release(const variant::Matrix& matrix, const config::BuildConfig& config,
                                       const PlanOptions& options);

// Adds a group for a variant that a toolchain here builds but the plan lacks (a torch outside the
// reference matrix), as `build` would build it; nothing when the plan has it already.
util::Status add_toolchain_variant(ReleasePlan& plan, const std::string& variant_name, config::Backend backend);

// The plan document (format_version 1) that `ci plan` prints and `ci verify --plan` reads.
std::string render_plan_json(const ReleasePlan& plan);
util::Result<ReleasePlan> parse_plan_json(const std::string& text);

// Every variant of the plan, in group order.
std::vector<std::string> planned_variants(const ReleasePlan& plan);

}  // namespace kb::ci
