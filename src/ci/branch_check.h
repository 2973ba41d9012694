// `kernel-builder ci verify`: whether a Hub branch holds every variant of a release plan, each
// with its metadata.json (the file `upload` writes last for a variant and the loader reads first).
#pragma once

#include <string>
#include <vector>

#include "ci/release_plan.h"
#include "hub/client/hub_client.h"
#include "util/result.h"

namespace kb::ci {

struct BranchReport {
  std::string repo_id;
  std::string branch;
  std::string commit;                // the branch head that was listed
  std::vector<std::string> present;  // planned variants on the branch, plan order
  std::vector<std::string> missing;  // planned variants not on the branch (or without metadata.json)
  std::vector<std::string> extra;    // variants on the branch the plan does not name (other systems, older builds)
  bool complete() const { return missing.empty(); }
};

// Lists `build/` of `branch` at its current head. A missing repository or branch is an error
// with a hint (nothing was uploaded yet); a missing variant is a report, not an error.
util::Result<BranchReport> check_branch(hub::client::HubClient& hub, const ReleasePlan& plan, const std::string& repo_id,
                                        const std::string& branch, const std::string& repo_type = "kernel");

// The report as text lines for stderr/stdout (one line per missing and extra variant).
std::string render_branch_report(const BranchReport& report);

}  // namespace kb::ci
