// RepoStore administration: tags, branch and repository deletion (ownership and the object
// store), settings, history pagination, discussions and pull-request records.
#include <algorithm>

#include <gtest/gtest.h>

#include "hub/storage/repo_store.h"
#include "hub/storage/usage.h"
#include "store_ops.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

using testing::add;

CommitRequest on(const std::string& revision, std::vector<Operation> ops, const std::string& message,
                 bool create_pr = false, const std::string& author = "alice") {
  CommitRequest request{revision, std::move(ops), message, {}, create_pr};
  request.author = author;
  return request;
}

TEST(RepoAdmin, TagsResolveAndAreListedDeletedAndRefusedTwice) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  std::string head = *store.resolve(repo, "main");
  ASSERT_TRUE(store.create_tag(repo, "v1.0", "main").ok());
  EXPECT_EQ(testing::answer(store.create_tag(repo, "v1.0", "main").error()), testing::kConflict);
  EXPECT_EQ(testing::answer(store.create_tag(repo, "x", "nope").error()), testing::kRevisionNotFound);
  EXPECT_EQ(*store.resolve(repo, "v1.0"), head);
  EXPECT_EQ(*store.resolve(repo, "refs/tags/v1.0"), head);
  EXPECT_EQ(store.refs(repo)->tags.at("v1.0"), head);
  // A tag does not move when its branch does, and is not a commit target.
  ASSERT_TRUE(store.commit(repo, on("main", {add(store, "a", "a")}, "a")).ok());
  EXPECT_EQ(*store.resolve(repo, "v1.0"), head);
  EXPECT_EQ(testing::answer(store.commit(repo, on("v1.0", {add(store, "b", "b")}, "b")).error()), testing::kRevisionNotFound);
  ASSERT_TRUE(store.delete_tag(repo, "v1.0").ok());
  EXPECT_EQ(testing::answer(store.resolve(repo, "v1.0").error()), testing::kRevisionNotFound);
  EXPECT_EQ(testing::answer(store.delete_tag(repo, "v1.0").error()), testing::kRevisionNotFound);
}

TEST(RepoAdmin, DeleteBranchKeepsMain) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  ASSERT_TRUE(store.create_branch(repo, "v1", "main").ok());
  ASSERT_TRUE(store.delete_branch(repo, "v1").ok());
  EXPECT_EQ(testing::answer(store.resolve(repo, "v1").error()), testing::kRevisionNotFound);
  EXPECT_EQ(testing::answer(store.delete_branch(repo, "v1").error()), testing::kRevisionNotFound);
  EXPECT_EQ(testing::answer(store.delete_branch(repo, "main").error()), testing::kForbidden);
  EXPECT_TRUE(store.resolve(repo, "main").ok());
}

TEST(RepoAdmin, DeleteRepoRemovesOnlyObjectsNoOtherRepositoryOwns) {
  util::TempDir dir;
  RepoStore store(dir.path());
  UsageLedger usage(dir.path());
  RepoId doomed{"model", "acme", "doomed"};
  RepoId other{"model", "acme", "other"};
  ASSERT_TRUE(store.create_repo(doomed, false).ok());
  ASSERT_TRUE(store.create_repo(other, false).ok());
  auto shared = add(store, "shared.bin", "shared bytes");
  auto only = add(store, "only.bin", "only in doomed");
  ASSERT_TRUE(store.commit(doomed, on("main", {shared, only}, "both")).ok());
  ASSERT_TRUE(store.commit(other, on("main", {shared}, "shared")).ok());
  ASSERT_TRUE(usage.charge("alice", shared.entry.sha256, shared.entry.size).ok());
  ASSERT_TRUE(usage.charge("alice", only.entry.sha256, only.entry.size).ok());
  auto removed = store.delete_repo(doomed);
  ASSERT_TRUE(removed.ok());
  // The object only it owned, and the ledger keys of its records (repo.json, two commits, refs).
  std::vector<std::string> expected{RepoStore::record_key("repos/models/acme/doomed/repo.json"),
                                    RepoStore::record_key("repos/models/acme/doomed/refs/heads/main"),
                                    only.entry.sha256};
  for (const auto& key : expected) EXPECT_EQ(std::count(removed->begin(), removed->end(), key), 1) << key;
  EXPECT_EQ(std::count(removed->begin(), removed->end(), shared.entry.sha256), 0);
  EXPECT_EQ(removed->size(), 5u);  // + the records of its two commits
  EXPECT_FALSE(store.objects().contains(only.entry.sha256));
  EXPECT_TRUE(store.objects().contains(shared.entry.sha256));
  EXPECT_EQ(testing::answer(store.repo_info(doomed).error()), testing::kRepoNotFound);
  EXPECT_EQ(testing::answer(store.delete_repo(doomed).error()), testing::kRepoNotFound);
  // The other repository still reads its file; the .gitattributes blob every repo shares stays.
  auto tree = store.load_commit(other, *store.resolve(other, "main"));
  for (const auto& [path, entry] : (*tree)->tree) EXPECT_TRUE(store.objects().contains(entry.sha256)) << path;
  ASSERT_TRUE(usage.discharge(only.entry.sha256).ok());
  EXPECT_EQ(usage.used("alice"), shared.entry.size);
  UsageLedger reread(dir.path());  // the discharge is on disk
  EXPECT_EQ(reread.used("alice"), shared.entry.size);
  EXPECT_FALSE(reread.has("alice", only.entry.sha256));
  // The name is free again.
  ASSERT_TRUE(store.create_repo(doomed, false).ok());
  EXPECT_FALSE(store.owns(doomed, only.entry.sha256));
}

TEST(RepoAdmin, ACommitNeverReferencesAnObjectItsLastOwnerTookAway) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId doomed{"model", "acme", "doomed"};
  RepoId other{"model", "acme", "other"};
  ASSERT_TRUE(store.create_repo(doomed, false).ok());
  ASSERT_TRUE(store.create_repo(other, false).ok());
  auto op = add(store, "x.bin", "x");
  ASSERT_TRUE(store.commit(doomed, on("main", {op}, "x")).ok());
  ASSERT_TRUE(store.delete_repo(doomed).ok());
  auto late = store.commit(other, on("main", {op}, "late"));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(testing::answer(late.error()), testing::kInvalid);
}

TEST(RepoAdmin, SettingsTogglePrivateAndGated) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  ASSERT_TRUE(store.update_settings(repo, true, std::string("auto")).ok());
  EXPECT_TRUE(store.repo_info(repo)->is_private);
  EXPECT_EQ(store.repo_info(repo)->gated, "auto");
  ASSERT_TRUE(store.update_settings(repo, std::nullopt, std::string("")).ok());
  EXPECT_TRUE(store.repo_info(repo)->is_private);
  EXPECT_EQ(store.repo_info(repo)->gated, "");
  EXPECT_EQ(testing::answer(store.update_settings(repo, std::nullopt, std::string("always")).error()), testing::kInvalid);
}

TEST(RepoAdmin, HistoryPagesNewestFirstWithAuthors) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store.commit(repo, on("main", {add(store, "f", std::to_string(i))}, "c" + std::to_string(i))).ok());
  }
  auto first = store.history(repo, "main", 0, 4);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->first.size(), 4u);
  EXPECT_TRUE(first->second);
  EXPECT_EQ(first->first[0].commit->message, "c4");
  EXPECT_EQ(first->first[0].commit->author, "alice");
  auto last = store.history(repo, "main", 4, 4);
  ASSERT_EQ(last->first.size(), 2u);
  EXPECT_FALSE(last->second);
  EXPECT_EQ(last->first[1].commit->message, "initial commit");
  EXPECT_EQ(last->first[1].commit->author, "");
}

TEST(RepoAdmin, PullRequestsAndDiscussionsShareNumbersAndRecordAuthors) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  auto pr = store.commit(repo, on("main", {add(store, "a", "a")}, "Add a\n\nbecause", true, "mallory"));
  ASSERT_TRUE(pr.ok());
  ASSERT_EQ(pr->pull_request, 1);
  auto record = store.discussion(repo, 1);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->author, "mallory");
  EXPECT_EQ(record->title, "Add a");
  EXPECT_EQ(record->description, "because");
  EXPECT_TRUE(record->pull_request);
  Discussion talk;
  talk.author = "bob";
  talk.title = "question";
  talk.status = "open";
  auto opened = store.open_discussion(repo, talk);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(opened->num, 2);
  EXPECT_EQ(store.refs(repo)->pull_requests.count(2), 0u);
  Discussion draft;
  draft.pull_request = true;
  draft.author = "bob";
  draft.title = "draft";
  draft.status = "draft";
  draft.base = "main";
  auto pr3 = store.open_discussion(repo, draft);
  ASSERT_TRUE(pr3.ok());
  EXPECT_EQ(pr3->num, 3);
  EXPECT_EQ(*store.resolve(repo, "refs/pr/3"), *store.resolve(repo, "main"));
  EXPECT_EQ(store.discussions(repo)->size(), 3u);
  EXPECT_EQ(testing::answer(store.discussion(repo, 9).error()), testing::kDiscussionNotFound);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
