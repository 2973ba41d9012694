// huggingface_hub cache layout paths, refs and offline lookups (docs/hub-api.md).
#include "loader/cache_layout.h"

#include <gtest/gtest.h>

#include "util/fs.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

TEST(RepoCache, PathsFollowHuggingfaceHubLayout) {
  RepoCache cache("/c", RepoType::kernel, "org/name");
  EXPECT_EQ(cache.folder_name(), "kernels--org--name");
  EXPECT_EQ(cache.blob_path("abc"), fs::path("/c/kernels--org--name/blobs/abc"));
  EXPECT_EQ(cache.ref_path("refs/pr/3"), fs::path("/c/kernels--org--name/refs/refs/pr/3"));
  EXPECT_EQ(cache.lock_path("e"), fs::path("/c/.locks/kernels--org--name/e.lock"));
  EXPECT_EQ(RepoCache("/c", RepoType::model, "o/n").folder_name(), "models--o--n");
}

TEST(RepoCache, RefsSnapshotsAndVersions) {
  util::TempDir tmp;
  RepoCache cache(tmp.path(), RepoType::kernel, "org/name");
  const std::string commit(40, 'a');
  ASSERT_TRUE(cache.write_ref("v2", commit).ok());
  ASSERT_TRUE(cache.write_ref("v10", commit).ok());
  ASSERT_TRUE(cache.write_ref("main", commit).ok());
  EXPECT_EQ(util::read_file(cache.ref_path("v2")).value(), commit);  // no trailing newline
  EXPECT_FALSE(cache.find_snapshot("v2").has_value());               // no snapshot yet
  fs::create_directories(cache.snapshot_dir(commit));
  EXPECT_EQ(cache.find_snapshot("v2"), commit);
  EXPECT_EQ(cache.find_snapshot(commit), commit);
  auto versions = cache.cached_versions();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].first, 2);
  EXPECT_EQ(versions[1].first, 10);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
