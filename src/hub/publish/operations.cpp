// Upload planning: additions and stale-file deletions on the version branch.
#include "hub/publish/operations.h"

#include <algorithm>

namespace kb::hub::publish {

bool is_benchmark_script(const std::string& file_name) {
  return file_name.rfind("benchmark", 0) == 0 && file_name.size() > 3 &&
         file_name.compare(file_name.size() - 3, 3, ".py") == 0 && file_name.find('/') == std::string::npos;
}

BranchPlan plan_version_branch(const VersionBranchInput& input) {
  BranchPlan plan;
  std::set<std::string> added;
  for (const auto& file : input.benchmarks) {
    plan.additions.push_back(file);
    added.insert(file.path_in_repo);
  }
  for (const auto& file : input.variant_files) {
    plan.additions.push_back(file);
    added.insert(file.path_in_repo);
  }
  for (const auto& remote : input.remote_files) {
    if (added.count(remote)) continue;
    bool inherited = input.new_branch && (!input.fork_files || input.fork_files->count(remote) > 0);
    bool stale = false;
    if (remote.rfind("benchmarks/", 0) == 0) {
      std::string name = remote.substr(std::string("benchmarks/").size());
      // New branches were forked from main: anything there is stale. Existing branches keep
      // files that `upload` did not put there itself.
      stale = inherited || is_benchmark_script(name);
    } else if (remote.rfind("build/", 0) == 0) {
      stale = inherited;
      for (const auto& variant : input.uploaded_variants) {
        if (remote.rfind("build/" + variant + "/", 0) == 0) stale = true;
      }
    }
    if (stale) plan.deletions.push_back(remote);
  }
  std::sort(plan.additions.begin(), plan.additions.end(),
            [](const LocalFile& a, const LocalFile& b) { return a.path_in_repo < b.path_in_repo; });
  std::sort(plan.deletions.begin(), plan.deletions.end());
  return plan;
}

}  // namespace kb::hub::publish
