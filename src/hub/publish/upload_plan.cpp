// Upload planning (see upload_plan.h): pure, no Hub and no files.
#include "hub/publish/upload_plan.h"

#include <algorithm>

#include "hub/protocol/names.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::publish {

using client::CommitOperation;
using client::CommitOperationKind;

bool needs_build_config(const UploadOptions& options) { return !options.repo_id || !options.branch; }

util::Result<UploadTarget> plan_target(const UploadOptions& options, const util::Result<config::BuildConfig>* config,
                                       const std::vector<metadata::Metadata>& variants) {
  const config::BuildConfig* loaded = config && *config ? &**config : nullptr;
  const auto* hub = loaded && loaded->general.hub ? &*loaded->general.hub : nullptr;
  UploadTarget target;
  if (options.repo_id) {
    target.repo_id = *options.repo_id;
  } else if (!loaded) {
    return util::Error(util::ErrorKind::usage, "--repo-id is not provided and cannot parse build.toml.")
        .with_cause(config ? config->error().message : std::string());
  } else if (hub && hub->repo_id) {
    target.repo_id = *hub->repo_id;
  } else {
    return util::Error(util::ErrorKind::config, "No `general.hub.repo-id` in build.toml. Use --repo-id to specify it.");
  }
  if (options.branch) {
    target.branch = *options.branch;
  } else if (hub && hub->branch) {
    target.branch = *hub->branch;
  } else {
    std::set<int64_t> versions;
    for (const auto& meta : variants) versions.insert(meta.version);
    if (versions.size() > 1) {
      std::vector<std::string> names;
      for (auto v : versions) names.push_back(std::to_string(v));
      return util::Error(util::ErrorKind::config,
                         "Found multiple versions in build variants: " + util::join(names, ", "));
    }
    target.branch = protocol::version_branch(versions.empty() ? 1 : *versions.begin());
  }
  return target;
}

std::vector<std::string> dirty_variants(const std::vector<metadata::VariantDir>& variants,
                                        const std::vector<metadata::Metadata>& metadata) {
  std::vector<std::string> dirty;
  for (size_t i = 0; i < variants.size() && i < metadata.size(); ++i) {
    if (metadata[i].provenance && metadata[i].provenance->dirty()) dirty.push_back(variants[i].name);
  }
  return dirty;
}

std::string dirty_warning(const std::vector<std::string>& dirty) {
  return "uploading " + std::to_string(dirty.size()) +
         " build variant(s) built from a dirty git tree (uncommitted changes): " + util::join(dirty, ", ") +
         ". Their recorded git revision does not fully identify the sources they were built from, so the "
         "build may not be reproducible.";
}

UploadPlan plan_upload(const UploadTarget& target, const LocalFiles& files,
                       const std::vector<metadata::VariantDir>& variants) {
  UploadPlan plan;
  plan.target = target;
  if (files.card) {
    plan.main_branch = BranchPlan{};
    plan.main_branch->additions.push_back(*files.card);
  }
  plan.version_branch.benchmarks = files.benchmarks;
  for (const auto& variant : variants) plan.version_branch.uploaded_variants.push_back(variant.name);
  plan.version_branch.variant_files = files.variant_files;
  return plan;
}

std::optional<std::string> branch_head(const client::RepoRefs& refs, const std::string& branch) {
  for (const auto& ref : refs.branches) {
    if (ref.name == branch) return ref.commit;
  }
  return std::nullopt;
}

util::Result<BranchSetup> plan_branch_setup(const client::RepoRefs& refs, const std::string& repo_id,
                                            const std::string& branch, bool create_pr) {
  BranchSetup setup;
  if (branch_head(refs, branch)) return setup;
  if (create_pr) {
    return util::Error(util::ErrorKind::usage,
                       "Pull requests can only target an existing branch. Ask a maintainer of `" + repo_id +
                           "` to create the branch `" + branch + "` first.");
  }
  setup.create = true;
  setup.main_head = branch_head(refs, "main");
  return setup;
}

util::Result<bool> branch_creation_outcome(const util::Status& created, const std::string& branch) {
  if (created) return true;
  // 409: another upload created the branch meanwhile; it is there now, and not this upload's.
  if (created.error().status == 409) return false;
  return created.error().context("Cannot create branch `" + branch + "`");
}

std::set<std::string> file_paths(const std::vector<client::TreeItem>& tree) {
  std::set<std::string> paths;
  for (const auto& item : tree) {
    if (!item.is_directory) paths.insert(item.path);
  }
  return paths;
}

LocalIds local_ids_of(const std::string& content) {
  LocalIds ids;
  ids.git_oid = util::git_blob_sha1(content);
  ids.sha256 = util::sha256_hex(content);
  ids.size = content.size();
  ids.sample = content.substr(0, 512);
  return ids;
}

std::vector<client::PreuploadFile> preupload_files(const BranchPlan& plan, const std::vector<LocalIds>& ids) {
  std::vector<client::PreuploadFile> files;
  for (size_t i = 0; i < plan.additions.size() && i < ids.size(); ++i) {
    files.push_back({plan.additions[i].path_in_repo, ids[i].size, ids[i].sample});
  }
  return files;
}

CommitPlan plan_commit(const BranchPlan& plan, const std::vector<LocalIds>& ids,
                       const std::vector<client::PreuploadAnswer>& answers) {
  CommitPlan commit;
  for (size_t i = 0; i < plan.additions.size() && i < ids.size(); ++i) {
    const client::PreuploadAnswer* answer = i < answers.size() ? &answers[i] : nullptr;
    bool lfs = answer && answer->lfs;
    if (answer && answer->should_ignore) continue;
    // Unchanged on the Hub: the remote oid is the local one.
    if (answer && answer->remote_oid && *answer->remote_oid == (lfs ? ids[i].sha256 : ids[i].git_oid)) continue;
    CommitOperation op;
    op.path_in_repo = plan.additions[i].path_in_repo;
    op.local_path = plan.additions[i].local_path;
    if (lfs) {
      op.kind = CommitOperationKind::add_lfs;
      op.sha256 = ids[i].sha256;
      op.size = ids[i].size;
      commit.lfs_objects.push_back({ids[i].sha256, ids[i].size, plan.additions[i].local_path});
    }
    commit.operations.push_back(std::move(op));
  }
  for (const auto& path : plan.deletions) {
    commit.operations.push_back({CommitOperationKind::delete_file, path, {}, {}, 0});
  }
  return commit;
}

std::vector<CommitBatch> plan_batches(size_t operations, bool create_pr, size_t batch_size) {
  std::vector<CommitBatch> batches;
  size_t count = (operations + batch_size - 1) / batch_size;
  for (size_t b = 0; b < count; ++b) {
    CommitBatch batch;
    batch.begin = b * batch_size;
    batch.end = std::min(operations, (b + 1) * batch_size);
    batch.message = count == 1 ? "Uploaded using `kernel-builder`."
                               : "Uploaded using `kernel-builder` (batch " + std::to_string(b + 1) + "/" +
                                     std::to_string(count) + ").";
    batch.open_pull_request = create_pr && b == 0;
    batches.push_back(std::move(batch));
  }
  return batches;
}

std::optional<CommitRetry> plan_retry(const util::Error& error, int attempt, const std::string& branch,
                                      const std::function<int(int)>& jitter) {
  if (error.status != 412 || attempt >= kMaxCommitAttempts) return std::nullopt;
  int base_ms = std::min(kRetryCapMs, kRetryBaseMs << (attempt - 1));
  CommitRetry retry;
  retry.wait_ms = base_ms + jitter(base_ms);
  retry.note = "Branch `" + branch + "` moved (another upload committed first); planning again in " +
               std::to_string(retry.wait_ms) + " ms (attempt " + std::to_string(attempt + 1) + " of " +
               std::to_string(kMaxCommitAttempts) + ")";
  return retry;
}

std::string pull_request_url(const std::string& base, const client::RepoRef& repo, int number) {
  return base + "/" + repo.web_prefix() + repo.id + "/discussions/" + std::to_string(number);
}

std::string tree_url(const std::string& base, const client::RepoRef& repo, const std::string& branch) {
  return base + "/" + repo.web_prefix() + repo.id + "/tree/" + branch;
}

UploadResult upload_result(const client::RepoRef& repo, const std::string& branch, bool committed, bool create_pr,
                           std::vector<PullRequest> pull_requests, const std::string& base) {
  UploadResult result{"no_changes", repo.id, branch, std::nullopt, std::move(pull_requests)};
  if (!committed) return result;
  if (create_pr) {
    result.status = "pull_request_created";
  } else {
    result.status = "uploaded";
    result.url = tree_url(base, repo, branch);
  }
  return result;
}

}  // namespace kb::hub::publish
