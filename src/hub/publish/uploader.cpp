// The upload flow: variants -> repo id/branch -> repo and branch creation -> per-branch
// operations -> pre-upload (skip unchanged) -> parallel LFS uploads -> batched commits.
#include "hub/publish/uploader.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/reader.h"
#include "hub/publish/local_files.h"
#include "hub/protocol/names.h"
#include "hub/publish/operations.h"
#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/strings.h"

namespace kb::hub::publish {

namespace fs = std::filesystem;
using client::CommitOperation;
using client::CommitOperationKind;

namespace {

constexpr size_t kBatchSize = 1000;
// Commits of the version branch refused because another upload moved the branch first (412)
// are planned again and retried this many times in all, after kRetryBaseMs, twice that, ... (at
// most kRetryCapMs) plus up to as much again at random, so that racing uploaders spread out.
constexpr int kMaxCommitAttempts = 12;
constexpr int kRetryBaseMs = 100;
constexpr int kRetryCapMs = 3000;

const char* kPublishingGuidance =
    "You do not have permission to publish the kernel `{repo}`.\n"
    "\n"
    "Publishing kernels to the Hugging Face Hub requires approval. To request access,\n"
    "open a discussion on the `kernels-community` organization:\n"
    "\n"
    "    https://huggingface.co/spaces/kernels-community/README/discussions/new\n"
    "\n"
    "In the discussion, please include:\n"
    "  - Confirmation that you already have a working, built kernel.\n"
    "  - The source URI / code for the kernel.\n"
    "  - The kernel's purpose and where it fits in the ecosystem (which models or\n"
    "    libraries benefit from it).\n"
    "  - Benchmark numbers, if available.\n"
    "\n"
    "Providing this information helps the team review your request and grant access.";

std::string publishing_guidance(const std::string& repo) {
  std::string text = kPublishingGuidance;
  text.replace(text.find("{repo}"), 6, repo);
  return text;
}

struct Target {
  std::string repo_id;
  std::string branch;
};

util::Result<Target> resolve_target(const UploadOptions& options, const std::vector<metadata::Metadata>& variants) {
  Target target;
  std::optional<config::BuildConfig> config;
  bool need_config = !options.repo_id || !options.branch;
  util::Error config_error;
  if (need_config) {
    auto loaded = config::load_build_config(options.kernel_dir);
    if (loaded) {
      config = std::move(*loaded);
    } else {
      config_error = loaded.error();
    }
  }
  if (options.repo_id) {
    target.repo_id = *options.repo_id;
  } else if (!config) {
    return util::Error(util::ErrorKind::usage, "--repo-id is not provided and cannot parse build.toml.")
        .with_cause(config_error.message);
  } else if (config->general.hub && config->general.hub->repo_id) {
    target.repo_id = *config->general.hub->repo_id;
  } else {
    return util::Error(util::ErrorKind::config, "No `general.hub.repo-id` in build.toml. Use --repo-id to specify it.");
  }
  if (options.branch) {
    target.branch = *options.branch;
  } else if (config && config->general.hub && config->general.hub->branch) {
    target.branch = *config->general.hub->branch;
  } else {
    std::set<int64_t> versions;
    for (const auto& meta : variants) versions.insert(meta.version);
    if (versions.size() > 1) {
      std::vector<std::string> names;
      for (auto v : versions) names.push_back(std::to_string(v));
      return util::Error(util::ErrorKind::config, "Found multiple versions in build variants: " + util::join(names, ", "));
    }
    target.branch = protocol::version_branch(versions.empty() ? 1 : *versions.begin());
  }
  return target;
}

// Local content ids: what preupload's `oid` is compared with.
struct LocalIds {
  std::string git_oid;
  std::string sha256;
  uint64_t size = 0;
  std::string sample;
};

util::Result<LocalIds> local_ids(const fs::path& path) {
  auto content = util::read_file(path);
  if (!content) return std::move(content).error();
  LocalIds ids;
  ids.git_oid = util::git_blob_sha1(*content);
  ids.sha256 = util::sha256_hex(*content);
  ids.size = content->size();
  ids.sample = content->substr(0, 512);
  return ids;
}

}  // namespace

std::string public_base(const client::HubSettings& settings) {
  return settings.endpoint_from_env ? settings.endpoint : "https://hf.co";
}

std::string repo_id_from_url(const std::string& url, const std::string& endpoint, const std::string& fallback) {
  std::string rest = url;
  if (rest.rfind(endpoint + "/", 0) == 0) {
    rest = rest.substr(endpoint.size() + 1);
  } else {
    return fallback;
  }
  if (rest.rfind("kernels/", 0) == 0) rest = rest.substr(8);
  auto parts = util::split(rest, '/');
  if (parts.size() == 2 && !parts[0].empty() && !parts[1].empty()) return rest;
  return fallback;
}

std::string render_upload_json(const UploadResult& result) {
  nlohmann::ordered_json prs = nlohmann::ordered_json::array();
  for (const auto& pr : result.pull_requests) prs.push_back({{"branch", pr.branch}, {"url", pr.url}});
  nlohmann::ordered_json doc;
  doc["status"] = result.status;
  doc["repo_id"] = result.repo_id;
  doc["branch"] = result.branch;
  doc["url"] = result.url ? nlohmann::ordered_json(*result.url) : nlohmann::ordered_json(nullptr);
  doc["pull_requests"] = prs;
  return doc.dump(2) + "\n";
}

util::Result<UploadResult> upload(client::HubClient& hub, const UploadOptions& options, const UploadReporter& reporter) {
  auto say = [&](const std::string& line) { if (reporter.info) reporter.info(line); };
  auto found = metadata::discover_variants(options.kernel_dir);
  if (!found) return std::move(found).error();
  const auto& variants = found->variants;
  say("Found " + std::to_string(variants.size()) + " build variant(s) in " + found->root.string());
  // Everything upload will send is gathered and checked here, before the Hub is contacted.
  auto sent = collect_local_files(options.kernel_dir, *found, reporter.warning);
  if (!sent) return std::move(sent).error();
  std::vector<std::string> dirty;
  for (size_t i = 0; i < variants.size(); ++i) {
    const auto& meta = sent->metadata[i];
    if (meta.provenance && meta.provenance->dirty()) dirty.push_back(variants[i].name);
  }
  if (!dirty.empty() && reporter.warning) {
    reporter.warning("uploading " + std::to_string(dirty.size()) +
                     " build variant(s) built from a dirty git tree (uncommitted changes): " + util::join(dirty, ", ") +
                     ". Their recorded git revision does not fully identify the sources they were built from, so the "
                     "build may not be reproducible.");
  }
  auto target = resolve_target(options, sent->metadata);
  if (!target) return std::move(target).error();
  client::RepoRef repo{options.repo_type, target->repo_id};

  if (!options.create_pr) {
    auto created = hub.create_repo(repo, options.is_private);
    if (!created) {
      if (created.error().status == 403) {
        if (!hub.whoami()) return created.error().context("Cannot create repository");
        return util::Error(util::ErrorKind::permission, publishing_guidance(repo.id));
      }
      return created.error().context("Cannot create repository");
    }
    repo.id = repo_id_from_url(*created, hub.settings().endpoint, repo.id);
  }

  auto refs = hub.list_refs(repo, false);
  if (!refs) return std::move(refs).error().context("Cannot list the branches of `" + repo.id + "`");
  auto head_of = [](const client::RepoRefs& listed, const std::string& name) -> std::optional<std::string> {
    for (const auto& ref : listed.branches) {
      if (ref.name == name) return ref.commit;
    }
    return std::nullopt;
  };
  bool branch_exists = head_of(*refs, target->branch).has_value();
  // Whether this upload created the branch, and the files the branch inherited from main then.
  bool created_branch = false;
  std::optional<std::set<std::string>> fork_files;
  if (!branch_exists) {
    if (options.create_pr) {
      return util::Error(util::ErrorKind::usage, "Pull requests can only target an existing branch. Ask a maintainer of `" +
                                                     repo.id + "` to create the branch `" + target->branch + "` first.");
    }
    std::optional<std::string> main_head = head_of(*refs, "main");
    if (auto s = hub.create_branch(repo, target->branch); s) {
      created_branch = true;
      std::set<std::string> inherited;
      if (main_head) {
        auto tree = hub.list_tree(repo, *main_head, "", true);
        if (!tree) return std::move(tree).error().context("Cannot list the files of `" + repo.id + "`");
        for (const auto& item : *tree) {
          if (!item.is_directory) inherited.insert(item.path);
        }
      }
      fork_files = std::move(inherited);
    } else if (s.error().status != 409) {
      // 409: another upload created the branch meanwhile; it is there now, and not this upload's.
      return s.error().context("Cannot create branch `" + target->branch + "`");
    }
  }
  say("Using branch `" + target->branch + "`" + (created_branch ? " (new)" : ""));

  UploadResult result{"no_changes", repo.id, target->branch, std::nullopt, {}};
  bool committed = false;
  // Commits `plan` to `branch`, the first batch on top of `parent` when given (the Hub answers 412
  // when the branch has moved since), each further batch on top of the one before.
  auto commit_plan = [&](const std::string& branch, const BranchPlan& plan,
                         std::optional<std::string> parent) -> util::Status {
    // Pre-upload: upload mode per file, and skip files whose remote oid is unchanged.
    std::vector<client::PreuploadFile> files;
    std::vector<LocalIds> ids;
    for (const auto& file : plan.additions) {
      auto local = local_ids(file.local_path);
      if (!local) return std::move(local).error();
      files.push_back({file.path_in_repo, local->size, local->sample});
      ids.push_back(std::move(*local));
    }
    auto answers = hub.preupload(repo, branch, files, false);
    if (!answers) return std::move(answers).error().context("Cannot create commit on branch `" + branch + "`");
    std::vector<CommitOperation> operations;
    std::vector<client::LfsObject> lfs_objects;
    for (size_t i = 0; i < plan.additions.size(); ++i) {
      const client::PreuploadAnswer* answer = i < answers->size() ? &(*answers)[i] : nullptr;
      bool lfs = answer && answer->lfs;
      if (answer && answer->should_ignore) continue;
      if (answer && answer->remote_oid && *answer->remote_oid == (lfs ? ids[i].sha256 : ids[i].git_oid)) continue;
      CommitOperation op;
      op.path_in_repo = plan.additions[i].path_in_repo;
      op.local_path = plan.additions[i].local_path;
      if (lfs) {
        op.kind = CommitOperationKind::add_lfs;
        op.sha256 = ids[i].sha256;
        op.size = ids[i].size;
        lfs_objects.push_back({ids[i].sha256, ids[i].size, plan.additions[i].local_path});
      }
      operations.push_back(std::move(op));
    }
    for (const auto& path : plan.deletions) {
      operations.push_back({CommitOperationKind::delete_file, path, {}, {}, 0});
    }
    if (operations.empty()) return {};
    if (auto s = hub.upload_lfs(repo, branch, lfs_objects, options.parallelism); !s) {
      return s.error().context("Cannot create commit on branch `" + branch + "`");
    }
    size_t batches = (operations.size() + kBatchSize - 1) / kBatchSize;
    std::string revision = branch;
    std::optional<int> pr_number;
    for (size_t b = 0; b < batches; ++b) {
      std::vector<CommitOperation> batch(operations.begin() + static_cast<long>(b * kBatchSize),
                                         operations.begin() + static_cast<long>(std::min(operations.size(), (b + 1) * kBatchSize)));
      std::string message = batches == 1 ? "Uploaded using `kernel-builder`."
                                         : "Uploaded using `kernel-builder` (batch " + std::to_string(b + 1) + "/" +
                                               std::to_string(batches) + ").";
      bool open_pr = options.create_pr && b == 0;
      auto response = hub.commit(repo, revision, batch, message, open_pr, parent);
      if (!response) return std::move(response).error().context("Cannot create commit on branch `" + branch + "`");
      if (parent) parent = response->commit;
      if (open_pr) {
        pr_number = response->pull_request_number;
        if (!pr_number) {
          auto all = hub.list_refs(repo, true);
          if (all) {
            for (const auto& pr : all->pull_requests) {
              if (pr.commit == response->commit) pr_number = std::stoi(pr.name);
            }
          }
        }
        if (!pr_number) return util::Error(util::ErrorKind::network, "Cannot determine the pull request number on branch `" + branch + "`");
        revision = "refs/pr/" + std::to_string(*pr_number);
      }
      if (reporter.progress) reporter.progress(branch, std::min(operations.size(), (b + 1) * kBatchSize), operations.size());
    }
    committed = true;
    if (pr_number) {
      result.pull_requests.push_back({branch, public_base(hub.settings()) + "/" + repo.web_prefix() + repo.id +
                                                  "/discussions/" + std::to_string(*pr_number)});
    }
    return {};
  };

  // main: the card (additions only: concurrent uploads write the same file, the last one stays).
  if (sent->card) {
    BranchPlan card_plan;
    card_plan.additions.push_back(*sent->card);
    KB_TRY(commit_plan("main", card_plan, std::nullopt));
  }

  // The version branch, planned against its head and committed on top of that head. Uploads of
  // other variants to the same branch at the same time make the Hub refuse a commit whose parent
  // is no longer the head (412): the plan is made again against the new head (it only ever
  // touches this upload's variants and the files the branch inherited) and retried, with
  // exponential back-off and jitter.
  VersionBranchInput input;
  input.new_branch = created_branch;
  input.fork_files = fork_files;
  input.benchmarks = sent->benchmarks;
  for (const auto& variant : variants) input.uploaded_variants.push_back(variant.name);
  input.variant_files = sent->variant_files;
  std::mt19937 jitter(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    std::optional<std::string> head;
    if (!options.create_pr) {
      auto now = hub.list_refs(repo, false);
      if (!now) return std::move(now).error().context("Cannot list the branches of `" + repo.id + "`");
      head = head_of(*now, target->branch);
    }
    input.remote_files.clear();
    if (auto tree = hub.list_tree(repo, head.value_or(target->branch), "", true)) {
      for (const auto& item : *tree) {
        if (!item.is_directory) input.remote_files.insert(item.path);
      }
    }
    BranchPlan version_plan = plan_version_branch(input);
    if (version_plan.empty()) break;
    auto status = commit_plan(target->branch, version_plan, head);
    if (status) break;
    if (status.error().status != 412 || attempt >= kMaxCommitAttempts) return std::move(status).error();
    int base_ms = std::min(kRetryCapMs, kRetryBaseMs << (attempt - 1));
    int wait_ms = base_ms + std::uniform_int_distribution<int>(0, base_ms)(jitter);
    say("Branch `" + target->branch + "` moved (another upload committed first); planning again in " +
        std::to_string(wait_ms) + " ms (attempt " + std::to_string(attempt + 1) + " of " +
        std::to_string(kMaxCommitAttempts) + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  }
  if (committed) {
    if (options.create_pr) {
      result.status = "pull_request_created";
    } else {
      result.status = "uploaded";
      result.url = public_base(hub.settings()) + "/" + repo.web_prefix() + repo.id + "/tree/" + target->branch;
    }
  }
  return result;
}

}  // namespace kb::hub::publish
