// Checking a Hub branch against a release plan (see branch_check.h).
#include "ci/branch_check.h"

#include <algorithm>
#include <set>

#include "util/strings.h"

namespace kb::ci {

util::Result<BranchReport> check_branch(hub::client::HubClient& hub, const ReleasePlan& plan, const std::string& repo_id,
                                        const std::string& branch, const std::string& repo_type) {
  hub::client::RepoRef repo{repo_type, repo_id};
  auto head = hub.revision_info(repo, branch);
  if (!head) {
    auto error = std::move(head).error();
    if (error.kind == util::ErrorKind::not_found) {
      error.hints.push_back("Nothing was uploaded to `" + branch + "` of " + repo_id +
                            " yet: run the build jobs (each ends with `kernel-builder upload`) first.");
    }
    return error;
  }
  // Listed at the commit just resolved, so a concurrent upload cannot mix two states.
  KB_TRY_ASSIGN(auto items, hub.list_tree(repo, head->sha, "build", /*recursive=*/true));
  std::set<std::string> with_metadata;
  std::set<std::string> seen;
  for (const auto& item : items) {
    if (!item.path.starts_with("build/")) continue;
    std::string rest = item.path.substr(6);
    auto slash = rest.find('/');
    if (slash == std::string::npos) {
      if (item.is_directory) seen.insert(rest);
      continue;
    }
    seen.insert(rest.substr(0, slash));
    if (!item.is_directory && rest.substr(slash + 1) == "metadata.json") with_metadata.insert(rest.substr(0, slash));
  }
  BranchReport report;
  report.repo_id = repo_id;
  report.branch = branch;
  report.commit = head->sha;
  auto planned = planned_variants(plan);
  for (const auto& name : planned) (with_metadata.count(name) ? report.present : report.missing).push_back(name);
  for (const auto& name : seen) {
    if (std::find(planned.begin(), planned.end(), name) == planned.end()) report.extra.push_back(name);
  }
  return report;
}

std::string render_branch_report(const BranchReport& report) {
  std::string out;
  const size_t planned = report.present.size() + report.missing.size();
  out += report.repo_id + "@" + report.branch + " (" + report.commit.substr(0, 12) + "): " +
         std::to_string(report.present.size()) + " of " + std::to_string(planned) + " planned variant(s)\n";
  for (const auto& name : report.missing) out += "missing: " + name + "\n";
  for (const auto& name : report.extra) out += "not in the plan: " + name + "\n";
  return out;
}

}  // namespace kb::ci
