// Blob commits, snapshot links, receipts and corruption detection (blob_store.h, receipt.h).
#include <gtest/gtest.h>

#include <fstream>

#include "loader/blob_store.h"
#include "loader/receipt.h"
#include "loader/verification.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

void put(const RepoCache& cache, const std::string& commit, const std::string& path, const std::string& content) {
  auto etag = util::git_blob_sha1(content);
  auto incomplete = cache.repo_dir() / "blobs" / (etag + ".incomplete");
  fs::create_directories(incomplete.parent_path());
  ASSERT_TRUE(util::write_file_atomic(incomplete, content).ok());
  ASSERT_TRUE(commit_blob(cache, incomplete, etag).ok());
  ASSERT_TRUE(link_snapshot(cache, commit, path, etag).ok());
}

TEST(BlobStore, RejectsContentNotMatchingEtag) {
  util::TempDir tmp;
  RepoCache cache(tmp.path(), RepoType::kernel, "o/n");
  auto incomplete = cache.repo_dir() / "blobs" / "x.incomplete";
  fs::create_directories(incomplete.parent_path());
  ASSERT_TRUE(util::write_file_atomic(incomplete, "truncated").ok());
  auto status = commit_blob(cache, incomplete, util::git_blob_sha1("complete content"));
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(fs::exists(incomplete));
  EXPECT_FALSE(fs::exists(cache.blob_path(util::git_blob_sha1("complete content"))));
}

TEST(Receipt, ValidUntilAFileChanges) {
  util::TempDir tmp;
  RepoCache cache(tmp.path(), RepoType::kernel, "o/n");
  const std::string commit(40, 'f');
  put(cache, commit, "build/torch-cpu/__init__.py", "x = 1\n");
  put(cache, commit, "build/torch-cpu/sub/a.py", "y = 2\n");
  EXPECT_TRUE(fs::is_symlink(cache.snapshot_dir(commit) / "build/torch-cpu/__init__.py"));
  ASSERT_TRUE(write_receipt(cache, commit, "torch-cpu").ok());
  EXPECT_TRUE(receipt_valid(cache, commit, "torch-cpu"));
  // __pycache__ written by an import does not invalidate it.
  fs::create_directories(cache.snapshot_dir(commit) / "build/torch-cpu/__pycache__");
  { std::ofstream(cache.snapshot_dir(commit) / "build/torch-cpu/__pycache__/m.pyc") << "c"; }
  EXPECT_TRUE(receipt_valid(cache, commit, "torch-cpu"));
  EXPECT_TRUE(corrupted_blobs(cache, commit, "torch-cpu").empty());
  { std::ofstream(cache.blob_path(util::git_blob_sha1("y = 2\n"))) << "evil = 1\n"; }
  EXPECT_FALSE(receipt_valid(cache, commit, "torch-cpu"));
  EXPECT_EQ(corrupted_blobs(cache, commit, "torch-cpu"), std::vector<std::string>{"sub/a.py"});
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
