// RepoStore: creation, refs, commits (ids, deletions, stale parents, PRs), and that a crashed
// writer's leftovers (temp files, orphan commits) never change what refs point at.
#include "hub/storage/repo_store.h"

#include <gtest/gtest.h>

#include "store_ops.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

using testing::add;

TEST(RepoStore, CreateRepoMakesInitialCommitWithGitattributes) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  auto again = store.create_repo(repo, false);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(testing::answer(again.error()), testing::kConflict);
  auto head = store.resolve(repo, "main");
  ASSERT_TRUE(head.ok());
  auto commit = store.load_commit(repo, *head);
  ASSERT_TRUE(commit.ok());
  EXPECT_EQ((*commit)->tree.count(".gitattributes"), 1u);
  EXPECT_EQ(commit_id(serialize_commit(**commit)), *head);
}

TEST(RepoStore, CommitAtResolvesARevisionAndLoadsItsCommit) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  auto at = store.commit_at(repo, "main");
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->id, *store.resolve(repo, "main"));
  EXPECT_EQ(commit_id(serialize_commit(*at->commit)), at->id);
  auto missing = store.commit_at(repo, "no-such-branch");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, store.resolve(repo, "no-such-branch").error().message);
}

TEST(RepoStore, CommitAppliesOperationsAndChecksParent) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"model", "acme", "m"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  auto first = store.commit(repo, {"main", {add(store, "build/a/x.py", "x"), add(store, "build/a/y.py", "y")}, "one", {}, false});
  ASSERT_TRUE(first.ok());
  auto stale = store.commit(repo, {"main", {add(store, "z", "z")}, "two", std::string(40, '0'), false});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(testing::answer(stale.error()), testing::kStaleParent);
  auto missing = store.commit(repo, {"main", {Operation{OperationKind::delete_file, "nope", {}}}, "x", {}, false});
  EXPECT_EQ(testing::answer(missing.error()), testing::kEntryNotFound);
  auto folder = store.commit(repo, {"main", {Operation{OperationKind::delete_folder, "build/a/", {}}}, "rm", first->commit, false});
  ASSERT_TRUE(folder.ok());
  auto tree = store.load_commit(repo, folder->commit);
  EXPECT_EQ((*tree)->tree.size(), 1u);  // only .gitattributes is left
  EXPECT_EQ((*tree)->parent, first->commit);
}

TEST(RepoStore, CreatePrMakesNumberedRefsAndLeavesBranch) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  std::string main_head = *store.resolve(repo, "main");
  auto pr = store.commit(repo, {"main", {add(store, "a", "a")}, "pr", {}, true});
  ASSERT_TRUE(pr.ok());
  EXPECT_EQ(pr->pull_request, 1);
  EXPECT_EQ(*store.resolve(repo, "main"), main_head);
  EXPECT_EQ(*store.resolve(repo, "refs/pr/1"), pr->commit);
  auto more = store.commit(repo, {"refs/pr/1", {add(store, "b", "b")}, "more", {}, false});
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(*store.resolve(repo, "refs/pr/1"), more->commit);
  EXPECT_EQ(testing::answer(store.resolve(repo, "refs/pr/2").error()), testing::kRevisionNotFound);
}

TEST(RepoStore, LeftoversOfACrashedWriterDoNotChangeRefs) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId repo{"kernel", "acme", "relu"};
  ASSERT_TRUE(store.create_repo(repo, false).ok());
  std::string head = *store.resolve(repo, "main");
  // A crash after writing objects and a commit object but before the ref switch.
  Commit orphan;
  orphan.parent = head;
  orphan.message = "orphan";
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "repos/kernels/acme/relu/commits/deadbeef", serialize_commit(orphan)).ok());
  ASSERT_TRUE(util::write_file_atomic(dir.path() / "repos/kernels/acme/relu/refs.json.tmp123", "garbage").ok());
  RepoStore reopened(dir.path());
  EXPECT_EQ(*reopened.resolve(repo, "main"), head);
  EXPECT_TRUE(reopened.commit(repo, {"main", {add(reopened, "a", "a")}, "next", head, false}).ok());
}

TEST(RepoStore, RejectsInvalidNames) {
  EXPECT_FALSE(RepoStore::valid_name(".."));
  EXPECT_FALSE(RepoStore::valid_name("a/b"));
  EXPECT_FALSE(RepoStore::valid_name(""));
  EXPECT_TRUE(RepoStore::valid_name("relu-2.0_x"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
