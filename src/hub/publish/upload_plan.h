// Planning an upload (docs/hub-api.md), as pure functions of what was found locally and what the
// Hub answered: the target repository and branch, whether to create the branch, which commit
// operations a branch plan becomes after pre-upload, the commit batches, whether a refused
// commit of the version branch is planned again, and the result. `upload` (uploader.cpp)
// performs the plans; operations.h plans the files of the version branch.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/model.h"
#include "hub/client/hub_client.h"
#include "hub/publish/local_files.h"
#include "hub/publish/operations.h"
#include "hub/publish/uploader.h"
#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/result.h"

namespace kb::hub::publish {

// Operations per commit; more are sent as several commits.
constexpr size_t kCommitBatchSize = 1000;
// Commits of the version branch refused because another upload moved the branch first (412)
// are planned again and retried this many times in all, after kRetryBaseMs, twice that, ... (at
// most kRetryCapMs) plus up to as much again at random, so that racing uploaders spread out.
constexpr int kMaxCommitAttempts = 12;
constexpr int kRetryBaseMs = 100;
constexpr int kRetryCapMs = 3000;

struct UploadTarget {
  std::string repo_id;
  std::string branch;
};

// Whether the target needs build.toml (no --repo-id or no --branch).
bool needs_build_config(const UploadOptions& options);

// The repository: --repo-id, else build.toml's `general.hub.repo-id`. The branch: --branch, else
// `general.hub.branch`, else `v<N>` of the variants' one version (v1 when none). `config` is
// build.toml as loaded (null when not needed); its error is the cause when the repo id is missing.
util::Result<UploadTarget> plan_target(const UploadOptions& options, const util::Result<config::BuildConfig>* config,
                                       const std::vector<metadata::Metadata>& variants);

// The names of the variants whose provenance says they were built from a dirty git tree.
std::vector<std::string> dirty_variants(const std::vector<metadata::VariantDir>& variants,
                                        const std::vector<metadata::Metadata>& metadata);
std::string dirty_warning(const std::vector<std::string>& dirty);

// What an upload commits, known before the Hub is contacted: the card on main (additions only:
// concurrent uploads write the same file, the last one stays) and the version branch's local side
// (its remote files, and whether this upload created it, come from the Hub).
struct UploadPlan {
  UploadTarget target;
  std::optional<BranchPlan> main_branch;
  VersionBranchInput version_branch;
};
UploadPlan plan_upload(const UploadTarget& target, const LocalFiles& files,
                       const std::vector<metadata::VariantDir>& variants);

// The commit a branch points at, from a listing of refs.
std::optional<std::string> branch_head(const client::RepoRefs& refs, const std::string& branch);

// What to do about the target branch, from the refs listed before: use it as it is, or create it
// (from main, whose head's files it then inherits). A pull request needs an existing branch.
struct BranchSetup {
  bool create = false;
  std::optional<std::string> main_head;  // with `create`: main's head, none when main is empty
};
util::Result<BranchSetup> plan_branch_setup(const client::RepoRefs& refs, const std::string& repo_id,
                                            const std::string& branch, bool create_pr);

// The answer to creating the branch: true when this upload created it, false when another upload
// did meanwhile (409: the branch is there, not this upload's), else the error.
util::Result<bool> branch_creation_outcome(const util::Status& created, const std::string& branch);

// The paths of the files (not directories) of a tree listing.
std::set<std::string> file_paths(const std::vector<client::TreeItem>& tree);

// Local content ids of a file to add: what pre-upload's `oid` is compared with.
struct LocalIds {
  std::string git_oid;
  std::string sha256;
  uint64_t size = 0;
  std::string sample;  // the first 512 bytes
};
LocalIds local_ids_of(const std::string& content);

// The pre-upload request of a branch plan's additions (`ids` in the same order).
std::vector<client::PreuploadFile> preupload_files(const BranchPlan& plan, const std::vector<LocalIds>& ids);

// The operations of one branch commit: the additions the Hub does not ignore and does not hold as
// they are (LFS ones also as objects to upload), then the deletions. Empty: nothing to commit.
struct CommitPlan {
  std::vector<client::CommitOperation> operations;
  std::vector<client::LfsObject> lfs_objects;
  bool empty() const { return operations.empty(); }
};
CommitPlan plan_commit(const BranchPlan& plan, const std::vector<LocalIds>& ids,
                       const std::vector<client::PreuploadAnswer>& answers);

// The commits `operations` operations are sent as: [begin, end) of the operations, the summary,
// and whether the commit opens the pull request (the first one, with --create-pr).
struct CommitBatch {
  size_t begin = 0;
  size_t end = 0;
  std::string message;
  bool open_pull_request = false;
};
std::vector<CommitBatch> plan_batches(size_t operations, bool create_pr, size_t batch_size = kCommitBatchSize);

// After attempt `attempt` (from 1) of the version branch's commit failed with `error`: when the
// branch moved (412) and attempts are left, the wait before planning again (exponential back-off
// plus `jitter(base)`, a value in [0, base]) and the progress line saying so; else none.
struct CommitRetry {
  int wait_ms = 0;
  std::string note;
};
std::optional<CommitRetry> plan_retry(const util::Error& error, int attempt, const std::string& branch,
                                      const std::function<int(int)>& jitter);

// The user-facing URL of a pull request and of a branch's tree; `base` from public_base.
std::string pull_request_url(const std::string& base, const client::RepoRef& repo, int number);
std::string tree_url(const std::string& base, const client::RepoRef& repo, const std::string& branch);

// The result of an upload: "no_changes" unless something was committed, then
// "pull_request_created" (--create-pr) or "uploaded" with the branch's URL.
UploadResult upload_result(const client::RepoRef& repo, const std::string& branch, bool committed, bool create_pr,
                           std::vector<PullRequest> pull_requests, const std::string& base);

}  // namespace kb::hub::publish
