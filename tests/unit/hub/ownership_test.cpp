// Objects scoped to repositories (storage/ownership.h through RepoStore), per-user usage
// (storage/usage.h), and the file/folder clash rule of commits.
#include <gtest/gtest.h>

#include "hub/storage/repo_store.h"
#include "hub/storage/usage.h"
#include "store_ops.h"
#include "util/fs.h"

namespace kb::hub::storage {
namespace {
namespace KB_UNITY_ID {

using testing::add;

std::string sha_of(RepoStore& store, const std::string& content) { return store.objects().put_bytes(content)->sha256; }

TEST(Ownership, CommitsAndUploadsMakeObjectsOwnedByTheirRepositoryOnly) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId a{"kernel", "acme", "a"}, b{"kernel", "acme", "b"};
  ASSERT_TRUE(store.create_repo(a, true).ok());
  ASSERT_TRUE(store.create_repo(b, false).ok());
  CommitRequest request;
  request.revision = "main";
  request.operations.push_back(add(store, "secret.txt", "secret"));
  ASSERT_TRUE(store.commit(a, request).ok());
  std::string secret = sha_of(store, "secret");
  EXPECT_TRUE(store.owns(a, secret));
  EXPECT_FALSE(store.owns(b, secret));
  ASSERT_EQ(store.owners(secret).size(), 1u);
  EXPECT_EQ(store.owners(secret)[0].full(), "acme/a");
  EXPECT_EQ(store.owners(secret)[0].type, "kernel");

  std::string uploaded = sha_of(store, "uploaded for b");
  ASSERT_TRUE(store.add_owned(b, {uploaded}).ok());
  EXPECT_TRUE(store.owns(b, uploaded));
  EXPECT_FALSE(store.owns(a, uploaded));

  // A new process (another RepoStore on the same root) sees the same sets.
  RepoStore reopened(dir.path());
  EXPECT_TRUE(reopened.owns(a, secret));
  EXPECT_TRUE(reopened.owns(b, uploaded));
  EXPECT_FALSE(reopened.owns(b, secret));
}

TEST(Ownership, RepositoriesFromBeforeOwnedSetsGetThemFromTheirCommits) {
  util::TempDir dir;
  RepoId a{"model", "acme", "old"};
  std::string sha;
  {
    RepoStore store(dir.path());
    ASSERT_TRUE(store.create_repo(a, false).ok());
    CommitRequest request;
    request.revision = "main";
    request.operations.push_back(add(store, "f.txt", "old content"));
    ASSERT_TRUE(store.commit(a, request).ok());
    sha = sha_of(store, "old content");
  }
  std::filesystem::remove(dir.path() / "repos" / "models" / "acme" / "old" / "owned");
  RepoStore store(dir.path());
  EXPECT_TRUE(store.owns(a, sha));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "repos" / "models" / "acme" / "old" / "owned"));
}

TEST(Ownership, ACommitCannotMakeAPathBothFileAndFolder) {
  util::TempDir dir;
  RepoStore store(dir.path());
  RepoId a{"kernel", "acme", "a"};
  ASSERT_TRUE(store.create_repo(a, false).ok());
  CommitRequest first;
  first.revision = "main";
  first.operations.push_back(add(store, "x/y", "1"));
  ASSERT_TRUE(store.commit(a, first).ok());

  CommitRequest file_over_folder;
  file_over_folder.revision = "main";
  file_over_folder.operations.push_back(add(store, "x", "2"));
  auto refused = store.commit(a, file_over_folder);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(testing::answer(refused.error()), testing::kInvalid);
  EXPECT_EQ(refused.error().message, "Path `x` is a folder (it holds `x/y`) and cannot be a file");

  CommitRequest folder_over_file;
  folder_over_file.revision = "main";
  folder_over_file.operations.push_back(add(store, "x/y/z", "3"));
  auto refused2 = store.commit(a, folder_over_file);
  ASSERT_FALSE(refused2.ok());
  EXPECT_EQ(refused2.error().message, "Path `x/y/z` needs a folder `x/y`, which is a file");

  // Deleting the file first makes room for the folder in the same commit.
  CommitRequest replace;
  replace.revision = "main";
  replace.operations.push_back(Operation{OperationKind::delete_file, "x/y", {}});
  replace.operations.push_back(add(store, "x/y/z", "3"));
  EXPECT_TRUE(store.commit(a, replace).ok());
}

TEST(Usage, DistinctObjectsAreChargedOnceAndQuotaCountsReservations) {
  util::TempDir dir;
  std::string one(64, '1'), two(64, '2');
  {
    UsageLedger usage(dir.path());
    EXPECT_EQ(usage.used("alice"), 0u);
    ASSERT_TRUE(usage.charge("alice", one, 100).ok());
    ASSERT_TRUE(usage.charge("alice", one, 100).ok());
    EXPECT_EQ(usage.used("alice"), 100u);
    EXPECT_TRUE(usage.has("alice", one));
    EXPECT_FALSE(usage.has("bob", one));
    EXPECT_TRUE(usage.reserve("alice", 50, 200));
    EXPECT_FALSE(usage.reserve("alice", 51, 200));
    EXPECT_TRUE(usage.reserve("bob", 200, 200));
    usage.release("alice", 50);
    EXPECT_TRUE(usage.reserve("alice", 100, 200));
    EXPECT_TRUE(usage.reserve("alice", uint64_t{1} << 62, 0));  // 0: no quota
    EXPECT_FALSE(usage.reserve("carol", uint64_t{1} << 62, 10));
  }
  UsageLedger reopened(dir.path());
  EXPECT_EQ(reopened.used("alice"), 100u);
  EXPECT_TRUE(reopened.has("alice", one));
  EXPECT_FALSE(reopened.has("alice", two));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::storage
