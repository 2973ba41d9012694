// The upload flow: variants -> repo id/branch -> repo and branch creation -> per-branch
// operations -> pre-upload (skip unchanged) -> parallel LFS uploads -> batched commits. What is
// done is planned by the pure functions of upload_plan.h and operations.h; this file performs it.
#include "hub/publish/uploader.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "config/reader.h"
#include "hub/publish/local_files.h"
#include "hub/publish/operations.h"
#include "hub/publish/upload_plan.h"
#include "metadata/discovery.h"
#include "metadata/metadata.h"
#include "util/fs.h"
#include "util/strings.h"

namespace kb::hub::publish {

namespace fs = std::filesystem;
using client::CommitOperation;

namespace {

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

// Another Hub (kernel-hub, a private deployment) than huggingface.co: its own accounts decide, so
// the refusal says who is signed in and, when that user is outside the organization, how an
// administrator of that Hub adds them.
util::Error self_hosted_refusal(const client::RepoRef& repo, const client::WhoAmI& me, const std::string& endpoint,
                                const util::Error& refusal) {
  std::string owner = repo.id.substr(0, repo.id.find('/'));
  util::Error error = refusal.context("You do not have permission to publish the kernel `" + repo.id + "` on " + endpoint);
  error.kind = util::ErrorKind::permission;
  bool member = owner == me.name || std::find(me.orgs.begin(), me.orgs.end(), owner) != me.orgs.end();
  if (!member) {  // rather than the client's generic "use a token with write permission"
    error.hints.assign(1, "you are signed in as `" + me.name + "`, who is not a member of `" + owner +
                          "`; an administrator of that Hub adds you with `kernel-hub user add " + me.name + " --org " +
                          owner + " --root <HUB_DIR>` (it prints your new token)");
  }
  return error;
}

util::Result<UploadTarget> resolve_target(const UploadOptions& options,
                                          const std::vector<metadata::Metadata>& variants) {
  if (!needs_build_config(options)) return plan_target(options, nullptr, variants);
  auto config = config::load_build_config(options.kernel_dir);
  return plan_target(options, &config, variants);
}

// Creates the repository (exist-ok) unless the upload opens pull requests; the repo id the Hub
// answers with wins. A refusal (403) of a signed-in user is the publishing guidance.
util::Result<client::RepoRef> create_repository(client::HubClient& hub, client::RepoRef repo,
                                                const UploadOptions& options) {
  if (options.create_pr) return repo;
  auto created = hub.create_repo(repo, options.is_private);
  if (!created) {
    if (created.error().status == 403) {
      auto me = hub.whoami();
      if (!me) return created.error().context("Cannot create repository");
      if (hub.settings().endpoint == client::kDefaultEndpoint) {
        return util::Error(util::ErrorKind::permission, publishing_guidance(repo.id));
      }
      return self_hosted_refusal(repo, *me, hub.settings().endpoint, created.error());
    }
    return created.error().context("Cannot create repository");
  }
  repo.id = repo_id_from_url(*created, hub.settings().endpoint, repo.id);
  return repo;
}

// The target branch as the upload found it: whether this upload created it, and then the files it
// inherited from main (plan_version_branch's `fork_files`).
struct BranchState {
  bool created = false;
  std::optional<std::set<std::string>> fork_files;
};

util::Result<BranchState> prepare_branch(client::HubClient& hub, const client::RepoRef& repo, const std::string& branch,
                                         bool create_pr) {
  auto refs = hub.list_refs(repo, false);
  if (!refs) return std::move(refs).error().context("Cannot list the branches of `" + repo.id + "`");
  auto setup = plan_branch_setup(*refs, repo.id, branch, create_pr);
  if (!setup) return std::move(setup).error();
  BranchState state;
  if (!setup->create) return state;
  auto created = branch_creation_outcome(hub.create_branch(repo, branch), branch);
  if (!created) return std::move(created).error();
  if (!*created) return state;
  state.created = true;
  state.fork_files = std::set<std::string>();
  if (setup->main_head) {
    auto tree = hub.list_tree(repo, *setup->main_head, "", true);
    if (!tree) return std::move(tree).error().context("Cannot list the files of `" + repo.id + "`");
    state.fork_files = file_paths(*tree);
  }
  return state;
}

util::Result<LocalIds> local_ids(const fs::path& path) {
  auto content = util::read_file(path);
  if (!content) return std::move(content).error();
  return local_ids_of(*content);
}

// Performs commit plans on the repository's branches and keeps what the result reports.
class Publisher {
 public:
  Publisher(client::HubClient& hub, client::RepoRef repo, const UploadOptions& options, const UploadReporter& reporter)
      : hub_(hub), repo_(std::move(repo)), options_(options), reporter_(reporter) {}

  // Commits `plan` to `branch`, the first batch on top of `parent` when given (the Hub answers 412
  // when the branch has moved since), each further batch on top of the one before.
  util::Status commit(const std::string& branch, const BranchPlan& plan, std::optional<std::string> parent) {
    std::vector<LocalIds> ids;
    for (const auto& file : plan.additions) {
      auto local = local_ids(file.local_path);
      if (!local) return std::move(local).error();
      ids.push_back(std::move(*local));
    }
    // Pre-upload: upload mode per file, and skip files whose remote oid is unchanged.
    auto answers = hub_.preupload(repo_, branch, preupload_files(plan, ids), false);
    if (!answers) return std::move(answers).error().context("Cannot create commit on branch `" + branch + "`");
    CommitPlan commit = plan_commit(plan, ids, *answers);
    if (commit.empty()) return {};
    if (auto s = hub_.upload_lfs(repo_, branch, commit.lfs_objects, options_.parallelism); !s) {
      return s.error().context("Cannot create commit on branch `" + branch + "`");
    }
    auto pr_number = send_batches(branch, commit.operations, std::move(parent));
    if (!pr_number) return std::move(pr_number).error();
    committed_ = true;
    if (*pr_number) {
      pull_requests_.push_back({branch, pull_request_url(public_base(hub_.settings()), repo_, **pr_number)});
    }
    return {};
  }

  const client::RepoRef& repo() const { return repo_; }
  UploadResult result(const std::string& branch) {
    return upload_result(repo_, branch, committed_, options_.create_pr, pull_requests_, public_base(hub_.settings()));
  }

 private:
  // Sends the operations as the planned batches; the number of the pull request the first opened.
  util::Result<std::optional<int>> send_batches(const std::string& branch,
                                                const std::vector<CommitOperation>& operations,
                                                std::optional<std::string> parent) {
    std::string revision = branch;
    std::optional<int> pr_number;
    for (const auto& batch : plan_batches(operations.size(), options_.create_pr)) {
      std::vector<CommitOperation> sent(operations.begin() + static_cast<long>(batch.begin),
                                        operations.begin() + static_cast<long>(batch.end));
      auto response = hub_.commit(repo_, revision, sent, batch.message, batch.open_pull_request, parent);
      if (!response) return std::move(response).error().context("Cannot create commit on branch `" + branch + "`");
      if (parent) parent = response->commit;
      if (batch.open_pull_request) {
        pr_number = response->pull_request_number ? response->pull_request_number : find_pull_request(response->commit);
        if (!pr_number) {
          return util::Error(util::ErrorKind::network,
                             "Cannot determine the pull request number on branch `" + branch + "`");
        }
        revision = "refs/pr/" + std::to_string(*pr_number);
      }
      if (reporter_.progress) reporter_.progress(branch, batch.end, operations.size());
    }
    return pr_number;
  }

  // The pull request whose head is `commit`, for Hubs whose commit answer does not number it.
  std::optional<int> find_pull_request(const std::string& commit) {
    std::optional<int> number;
    if (auto all = hub_.list_refs(repo_, true)) {
      for (const auto& pr : all->pull_requests) {
        if (pr.commit == commit) number = std::stoi(pr.name);
      }
    }
    return number;
  }

  client::HubClient& hub_;
  client::RepoRef repo_;
  const UploadOptions& options_;
  const UploadReporter& reporter_;
  std::vector<PullRequest> pull_requests_;
  bool committed_ = false;
};

// The version branch, planned against its head and committed on top of that head. Uploads of
// other variants to the same branch at the same time make the Hub refuse a commit whose parent
// is no longer the head (412): the plan is made again against the new head (it only ever
// touches this upload's variants and the files the branch inherited) and retried, with
// exponential back-off and jitter (plan_retry).
util::Status commit_version_branch(client::HubClient& hub, Publisher& publisher, const std::string& branch,
                                   VersionBranchInput input, const UploadOptions& options,
                                   const std::function<void(const std::string&)>& say) {
  const client::RepoRef& repo = publisher.repo();
  std::mt19937 random(std::random_device{}());
  auto jitter = [&](int base_ms) { return std::uniform_int_distribution<int>(0, base_ms)(random); };
  for (int attempt = 1;; ++attempt) {
    std::optional<std::string> head;
    if (!options.create_pr) {
      auto now = hub.list_refs(repo, false);
      if (!now) return std::move(now).error().context("Cannot list the branches of `" + repo.id + "`");
      head = branch_head(*now, branch);
    }
    auto tree = hub.list_tree(repo, head.value_or(branch), "", true);
    input.remote_files = tree ? file_paths(*tree) : std::set<std::string>();
    BranchPlan plan = plan_version_branch(input);
    if (plan.empty()) return {};
    auto status = publisher.commit(branch, plan, head);
    if (status) return {};
    auto retry = plan_retry(status.error(), attempt, branch, jitter);
    if (!retry) return std::move(status).error();
    say(retry->note);
    std::this_thread::sleep_for(std::chrono::milliseconds(retry->wait_ms));
  }
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
  say("Found " + std::to_string(found->variants.size()) + " build variant(s) in " + found->root.string());
  // Everything upload will send is gathered and checked here, before the Hub is contacted.
  auto sent = collect_local_files(options.kernel_dir, *found, reporter.warning);
  if (!sent) return std::move(sent).error();
  auto dirty = dirty_variants(found->variants, sent->metadata);
  if (!dirty.empty() && reporter.warning) reporter.warning(dirty_warning(dirty));
  auto target = resolve_target(options, sent->metadata);
  if (!target) return std::move(target).error();
  UploadPlan plan = plan_upload(*target, *sent, found->variants);
  const std::string& branch = plan.target.branch;

  auto repo = create_repository(hub, client::RepoRef{options.repo_type, plan.target.repo_id}, options);
  if (!repo) return std::move(repo).error();
  auto state = prepare_branch(hub, *repo, branch, options.create_pr);
  if (!state) return std::move(state).error();
  say("Using branch `" + branch + "`" + (state->created ? " (new)" : ""));
  plan.version_branch.new_branch = state->created;
  plan.version_branch.fork_files = state->fork_files;

  Publisher publisher(hub, *repo, options, reporter);
  if (plan.main_branch) KB_TRY(publisher.commit("main", *plan.main_branch, std::nullopt));
  KB_TRY(commit_version_branch(hub, publisher, branch, std::move(plan.version_branch), options, say));
  return publisher.result(branch);
}

}  // namespace kb::hub::publish
