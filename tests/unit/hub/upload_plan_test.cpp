// Upload planning (upload_plan.h): target, branch set-up, commit operations, batches, retries,
// result; and the version branch's plan as an upload makes it (new branch, existing branch, after
// a 412).
#include "hub/publish/upload_plan.h"

#include <gtest/gtest.h>

namespace kb::hub::publish {
namespace {
namespace KB_UNITY_ID {

using client::CommitOperationKind;

metadata::Metadata variant_metadata(int64_t version, bool dirty = false) {
  metadata::Metadata meta;
  meta.version = version;
  if (dirty) meta.provenance = metadata::Provenance{std::nullopt, metadata::GitState{"abc", true}};
  return meta;
}

client::RepoRefs refs(std::vector<std::pair<std::string, std::string>> branches) {
  client::RepoRefs out;
  for (auto& [name, commit] : branches) out.branches.push_back({name, "refs/heads/" + name, commit});
  return out;
}

util::Error http_error(int status) {
  util::Error error(util::ErrorKind::network, "HTTP " + std::to_string(status));
  error.status = status;
  return error;
}

LocalFiles local_files() {
  LocalFiles files;
  files.card = LocalFile{"README.md", "/k/build/CARD.md"};
  files.benchmarks = {{"benchmarks/benchmark.py", "/k/benchmarks/benchmark.py"}};
  files.variant_files = {{"build/torch-cpu/__init__.py", "/k/build/torch-cpu/__init__.py"},
                         {"build/torch-cpu/metadata.json", "/k/build/torch-cpu/metadata.json"}};
  return files;
}

std::vector<metadata::VariantDir> variant_dirs() { return {{"torch-cpu", "/k/build/torch-cpu"}}; }

TEST(plan_target, OptionsWinAndNeedNoBuildConfig) {
  UploadOptions options;
  options.repo_id = "org/k";
  options.branch = "dev";
  EXPECT_FALSE(needs_build_config(options));
  auto target = plan_target(options, nullptr, {variant_metadata(1), variant_metadata(2)});
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->repo_id, "org/k");
  EXPECT_EQ(target->branch, "dev");
}

TEST(plan_target, BranchIsTheVersionOfTheVariants) {
  UploadOptions options;
  options.repo_id = "org/k";
  EXPECT_TRUE(needs_build_config(options));
  util::Result<config::BuildConfig> config = config::BuildConfig{};
  auto target = plan_target(options, &config, {variant_metadata(3), variant_metadata(3)});
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->branch, "v3");
  auto none = plan_target(options, &config, {});
  ASSERT_TRUE(none);
  EXPECT_EQ(none->branch, "v1");
}

TEST(plan_target, SeveralVersionsAreAnError) {
  UploadOptions options;
  options.repo_id = "org/k";
  util::Result<config::BuildConfig> config = util::Error(util::ErrorKind::config, "no build.toml");
  auto target = plan_target(options, &config, {variant_metadata(2), variant_metadata(1)});
  ASSERT_FALSE(target);
  EXPECT_EQ(target.error().message, "Found multiple versions in build variants: 1, 2");
}

TEST(plan_target, RepoIdAndBranchFromBuildToml) {
  config::BuildConfig loaded;
  loaded.general.hub = config::HubConfig{"org/from-toml", "release"};
  util::Result<config::BuildConfig> config = loaded;
  auto target = plan_target(UploadOptions{}, &config, {variant_metadata(1)});
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->repo_id, "org/from-toml");
  EXPECT_EQ(target->branch, "release");
}

TEST(plan_target, MissingRepoIdSaysWhy) {
  util::Result<config::BuildConfig> broken = util::Error(util::ErrorKind::config, "build.toml: bad");
  auto unparsed = plan_target(UploadOptions{}, &broken, {});
  ASSERT_FALSE(unparsed);
  EXPECT_EQ(unparsed.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(unparsed.error().message, "--repo-id is not provided and cannot parse build.toml.");
  EXPECT_EQ(unparsed.error().causes, (std::vector<std::string>{"build.toml: bad"}));
  util::Result<config::BuildConfig> without_hub = config::BuildConfig{};
  auto unset = plan_target(UploadOptions{}, &without_hub, {});
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error().message, "No `general.hub.repo-id` in build.toml. Use --repo-id to specify it.");
}

TEST(dirty_variants, NamesVariantsBuiltFromADirtyTree) {
  std::vector<metadata::VariantDir> dirs = {{"a", "/a"}, {"b", "/b"}, {"c", "/c"}};
  auto dirty = dirty_variants(dirs, {variant_metadata(1, true), variant_metadata(1), variant_metadata(1, true)});
  EXPECT_EQ(dirty, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(dirty_warning(dirty).rfind(
                "uploading 2 build variant(s) built from a dirty git tree (uncommitted changes): a, c.", 0),
            0u);
}

TEST(plan_upload, CardGoesToMainAndVariantFilesToTheVersionBranch) {
  UploadPlan plan = plan_upload({"org/k", "v1"}, local_files(), variant_dirs());
  ASSERT_TRUE(plan.main_branch);
  ASSERT_EQ(plan.main_branch->additions.size(), 1u);
  EXPECT_EQ(plan.main_branch->additions[0].path_in_repo, "README.md");
  EXPECT_TRUE(plan.main_branch->deletions.empty());
  EXPECT_EQ(plan.version_branch.uploaded_variants, (std::vector<std::string>{"torch-cpu"}));
  EXPECT_EQ(plan.version_branch.variant_files.size(), 2u);
  EXPECT_EQ(plan.version_branch.benchmarks.size(), 1u);
  EXPECT_FALSE(plan.version_branch.new_branch);

  LocalFiles no_card = local_files();
  no_card.card.reset();
  EXPECT_FALSE(plan_upload({"org/k", "v1"}, no_card, variant_dirs()).main_branch);
}

TEST(plan_branch_setup, ExistingBranchIsUsedAsItIs) {
  auto setup = plan_branch_setup(refs({{"main", "m1"}, {"v1", "b1"}}), "org/k", "v1", false);
  ASSERT_TRUE(setup);
  EXPECT_FALSE(setup->create);
  EXPECT_FALSE(setup->main_head);
  // Also for a pull request.
  auto pr = plan_branch_setup(refs({{"v1", "b1"}}), "org/k", "v1", true);
  ASSERT_TRUE(pr);
  EXPECT_FALSE(pr->create);
}

TEST(plan_branch_setup, MissingBranchIsCreatedFromMain) {
  auto setup = plan_branch_setup(refs({{"main", "m1"}, {"v2", "b2"}}), "org/k", "v1", false);
  ASSERT_TRUE(setup);
  EXPECT_TRUE(setup->create);
  EXPECT_EQ(setup->main_head, "m1");
  auto empty_repo = plan_branch_setup(refs({}), "org/k", "v1", false);
  ASSERT_TRUE(empty_repo);
  EXPECT_TRUE(empty_repo->create);
  EXPECT_FALSE(empty_repo->main_head);
}

TEST(plan_branch_setup, PullRequestNeedsAnExistingBranch) {
  auto setup = plan_branch_setup(refs({{"main", "m1"}}), "org/k", "v1", true);
  ASSERT_FALSE(setup);
  EXPECT_EQ(setup.error().kind, util::ErrorKind::usage);
  EXPECT_EQ(
      setup.error().message,
      "Pull requests can only target an existing branch. Ask a maintainer of `org/k` to create the branch `v1` first.");
}

TEST(branch_creation_outcome, CreatedTakenByAnotherUploadOrError) {
  auto created = branch_creation_outcome(util::Status{}, "v1");
  ASSERT_TRUE(created);
  EXPECT_TRUE(*created);
  auto conflict = branch_creation_outcome(util::Status(http_error(409)), "v1");
  ASSERT_TRUE(conflict);
  EXPECT_FALSE(*conflict);
  auto failed = branch_creation_outcome(util::Status(http_error(500)), "v1");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "Cannot create branch `v1`");
  EXPECT_EQ(failed.error().status, 500);
}

TEST(file_paths, FilesOnly) {
  std::vector<client::TreeItem> tree = {
      {true, "build", "", 0, {}}, {false, "build/a.py", "1", 1, {}}, {false, "README.md", "2", 1, {}}};
  EXPECT_EQ(file_paths(tree), (std::set<std::string>{"README.md", "build/a.py"}));
}

TEST(local_ids_of, GitOidSha256SizeAndSample) {
  LocalIds ids = local_ids_of(std::string(600, 'x'));
  EXPECT_EQ(ids.size, 600u);
  EXPECT_EQ(ids.sample.size(), 512u);
  EXPECT_EQ(local_ids_of("").git_oid, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");  // git's empty blob
  EXPECT_EQ(local_ids_of("").sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(plan_commit, SkipsUnchangedAndIgnoredFilesSendsLfsObjectsAndDeletesLast) {
  BranchPlan plan;
  plan.additions = {{"a.py", "/l/a.py"},       {"big.so", "/l/big.so"},         {"same.py", "/l/same.py"},
                    {"same.so", "/l/same.so"}, {"ignored.py", "/l/ignored.py"}, {"unanswered.py", "/l/u.py"}};
  plan.deletions = {"old.py"};
  std::vector<LocalIds> ids = {local_ids_of("a"),        local_ids_of("big"), local_ids_of("same"),
                               local_ids_of("same-lfs"), local_ids_of("i"),   local_ids_of("u")};
  std::vector<client::PreuploadAnswer> answers = {
      {"a.py", false, false, "stale-oid"},       {"big.so", true, false, std::nullopt},
      {"same.py", false, false, ids[2].git_oid}, {"same.so", true, false, ids[3].sha256},
      {"ignored.py", false, true, std::nullopt},
  };
  auto files = preupload_files(plan, ids);
  ASSERT_EQ(files.size(), 6u);
  EXPECT_EQ(files[1].path, "big.so");
  EXPECT_EQ(files[1].size, 3u);

  CommitPlan commit = plan_commit(plan, ids, answers);
  ASSERT_EQ(commit.operations.size(), 4u);
  EXPECT_EQ(commit.operations[0].path_in_repo, "a.py");
  EXPECT_EQ(commit.operations[0].kind, CommitOperationKind::add_regular);
  EXPECT_EQ(commit.operations[1].path_in_repo, "big.so");
  EXPECT_EQ(commit.operations[1].kind, CommitOperationKind::add_lfs);
  EXPECT_EQ(commit.operations[1].sha256, ids[1].sha256);
  EXPECT_EQ(commit.operations[2].path_in_repo, "unanswered.py");
  EXPECT_EQ(commit.operations[2].kind, CommitOperationKind::add_regular);
  EXPECT_EQ(commit.operations[3].path_in_repo, "old.py");
  EXPECT_EQ(commit.operations[3].kind, CommitOperationKind::delete_file);
  ASSERT_EQ(commit.lfs_objects.size(), 1u);
  EXPECT_EQ(commit.lfs_objects[0].local_path, "/l/big.so");
}

TEST(plan_commit, NothingNewIsAnEmptyCommit) {
  BranchPlan plan;
  plan.additions = {{"README.md", "/l/CARD.md"}};
  std::vector<LocalIds> ids = {local_ids_of("card")};
  EXPECT_TRUE(plan_commit(plan, ids, {{"README.md", false, false, ids[0].git_oid}}).empty());
}

TEST(plan_batches, OneCommitUpToTheBatchSize) {
  EXPECT_TRUE(plan_batches(0, false).empty());
  auto one = plan_batches(kCommitBatchSize, false);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].begin, 0u);
  EXPECT_EQ(one[0].end, kCommitBatchSize);
  EXPECT_EQ(one[0].message, "Uploaded using `kernel-builder`.");
  EXPECT_FALSE(one[0].open_pull_request);
}

TEST(plan_batches, SeveralCommitsNumberedAndOnlyTheFirstOpensThePullRequest) {
  auto batches = plan_batches(5, true, 2);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0].message, "Uploaded using `kernel-builder` (batch 1/3).");
  EXPECT_EQ(batches[2].message, "Uploaded using `kernel-builder` (batch 3/3).");
  EXPECT_EQ(batches[2].begin, 4u);
  EXPECT_EQ(batches[2].end, 5u);
  EXPECT_TRUE(batches[0].open_pull_request);
  EXPECT_FALSE(batches[1].open_pull_request);
}

TEST(plan_retry, AMovedBranchIsPlannedAgainWithBackOff) {
  auto no_jitter = [](int) { return 0; };
  auto first = plan_retry(http_error(412), 1, "v1", no_jitter);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->wait_ms, kRetryBaseMs);
  EXPECT_EQ(first->note,
            "Branch `v1` moved (another upload committed first); planning again in 100 ms (attempt 2 of 12)");
  EXPECT_EQ(plan_retry(http_error(412), 3, "v1", no_jitter)->wait_ms, 4 * kRetryBaseMs);
  // Capped, and the jitter (up to as much again) is added to the capped wait.
  EXPECT_EQ(plan_retry(http_error(412), 10, "v1", no_jitter)->wait_ms, kRetryCapMs);
  int asked = -1;
  auto full_jitter = [&](int base) {
    asked = base;
    return base;
  };
  EXPECT_EQ(plan_retry(http_error(412), 2, "v1", full_jitter)->wait_ms, 400);
  EXPECT_EQ(asked, 200);
}

TEST(plan_retry, OtherErrorsAndTheLastAttemptGiveUp) {
  auto no_jitter = [](int) { return 0; };
  EXPECT_FALSE(plan_retry(http_error(409), 1, "v1", no_jitter));
  EXPECT_FALSE(plan_retry(http_error(500), 1, "v1", no_jitter));
  EXPECT_TRUE(plan_retry(http_error(412), kMaxCommitAttempts - 1, "v1", no_jitter));
  EXPECT_FALSE(plan_retry(http_error(412), kMaxCommitAttempts, "v1", no_jitter));
}

TEST(upload_result, StatusAndUrl) {
  client::RepoRef kernel{"kernel", "org/k"};
  auto unchanged = upload_result(kernel, "v1", false, false, {}, "https://hf.co");
  EXPECT_EQ(unchanged.status, "no_changes");
  EXPECT_FALSE(unchanged.url);
  auto uploaded = upload_result(kernel, "v1", true, false, {}, "https://hf.co");
  EXPECT_EQ(uploaded.status, "uploaded");
  EXPECT_EQ(uploaded.url, "https://hf.co/kernels/org/k/tree/v1");
  client::RepoRef model{"model", "org/m"};
  std::vector<PullRequest> prs = {{"v1", pull_request_url("http://127.0.0.1:1", model, 3)}};
  auto pr = upload_result(model, "v1", true, true, prs, "http://127.0.0.1:1");
  EXPECT_EQ(pr.status, "pull_request_created");
  EXPECT_FALSE(pr.url);
  ASSERT_EQ(pr.pull_requests.size(), 1u);
  EXPECT_EQ(pr.pull_requests[0].url, "http://127.0.0.1:1/org/m/discussions/3");
}

// The version branch as `upload` plans it: the plan's input with what the Hub said.
BranchPlan version_plan(VersionBranchInput input, std::set<std::string> remote) {
  input.remote_files = std::move(remote);
  return plan_version_branch(input);
}

TEST(upload_version_branch, ExistingBranchKeepsOtherVariants) {
  UploadPlan plan = plan_upload({"org/k", "v1"}, local_files(), variant_dirs());
  auto branch = version_plan(plan.version_branch, {"build/torch-cpu/old.so", "build/torch-cuda/a.so", "README.md"});
  EXPECT_EQ(branch.deletions, (std::vector<std::string>{"build/torch-cpu/old.so"}));
  EXPECT_EQ(branch.additions.size(), 3u);
}

TEST(upload_version_branch, NewBranchDropsWhatItInheritedFromMain) {
  UploadPlan plan = plan_upload({"org/k", "v1"}, local_files(), variant_dirs());
  plan.version_branch.new_branch = true;
  plan.version_branch.fork_files = std::set<std::string>{"build/torch-cuda/a.so", "benchmarks/data.csv", "README.md"};
  auto branch = version_plan(plan.version_branch, {"build/torch-cuda/a.so", "benchmarks/data.csv", "README.md"});
  EXPECT_EQ(branch.deletions, (std::vector<std::string>{"benchmarks/data.csv", "build/torch-cuda/a.so"}));
}

TEST(upload_version_branch, AfterA412OnlyThisUploadsVariantsAndInheritedFilesGo) {
  // This upload created v1 from main (which had torch-cuda); its commit was refused (412) because
  // another upload committed torch-rocm meanwhile, and another torch-cpu file appeared. Planned
  // again against the new head, the other upload's variant stays.
  UploadPlan plan = plan_upload({"org/k", "v1"}, local_files(), variant_dirs());
  plan.version_branch.new_branch = true;
  plan.version_branch.fork_files = std::set<std::string>{"build/torch-cuda/a.so"};
  auto first = version_plan(plan.version_branch, {"build/torch-cuda/a.so"});
  EXPECT_EQ(first.deletions, (std::vector<std::string>{"build/torch-cuda/a.so"}));
  ASSERT_TRUE(plan_retry(http_error(412), 1, "v1", [](int) { return 0; }));
  auto again = version_plan(plan.version_branch, {"build/torch-cuda/a.so", "build/torch-rocm/b.so",
                                                  "build/torch-rocm/metadata.json", "build/torch-cpu/stale.so"});
  EXPECT_EQ(again.deletions, (std::vector<std::string>{"build/torch-cpu/stale.so", "build/torch-cuda/a.so"}));
}

TEST(upload_version_branch, BranchCreatedByAnotherUploadInheritsNothingOfThisOne) {
  // 409 on create: the branch is not this upload's, so nothing there counts as inherited.
  UploadPlan plan = plan_upload({"org/k", "v1"}, local_files(), variant_dirs());
  auto branch = version_plan(plan.version_branch, {"build/torch-rocm/b.so", "benchmarks/data.csv"});
  EXPECT_TRUE(branch.deletions.empty());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::publish
