// join_inside / check_inside: every cache write lands inside the cache, lexically and after
// resolving the symlinks of existing parents (docs/hub-security.md, "The loader").
#include "loader/cache_path.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/fs.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

namespace fs = std::filesystem;

TEST(JoinInside, JoinsPlainRelativePaths) {
  util::TempDir tmp;
  auto joined = join_inside(tmp.path(), "snapshots/abc/build/torch-cpu/__init__.py");
  ASSERT_TRUE(joined.ok()) << joined.error().message;
  EXPECT_EQ(*joined, tmp.path() / "snapshots/abc/build/torch-cpu/__init__.py");
  // A root that does not exist yet is fine: nothing on the way can be a symlink.
  EXPECT_TRUE(join_inside(tmp.path() / "not-yet", "a/b").ok());
}

TEST(JoinInside, RefusesEscapingAndMalformedPaths) {
  util::TempDir tmp;
  for (const char* bad : {"", "/etc/passwd", "..", "../x", "a/../../x", "a/./b", "a//b", "a/", "./a",
                          "a\\..\\..\\x"}) {
    auto joined = join_inside(tmp.path(), bad);
    ASSERT_FALSE(joined.ok()) << bad;
    EXPECT_EQ(joined.error().kind, util::ErrorKind::invalid) << bad;
  }
  EXPECT_FALSE(join_inside(tmp.path(), std::string_view("a\0b", 3)).ok());
}

TEST(JoinInside, RefusesASymlinkedFolderLeadingOutside) {
  util::TempDir tmp;
  util::TempDir elsewhere;
  fs::create_directories(tmp.path() / "cache" / "snapshots");
  fs::create_symlink(elsewhere.path(), tmp.path() / "cache" / "snapshots" / "abc");
  auto joined = join_inside(tmp.path() / "cache", "snapshots/abc/pwned.py");
  ASSERT_FALSE(joined.ok());
  EXPECT_EQ(joined.error().kind, util::ErrorKind::invalid);
  EXPECT_NE(joined.error().message.find("pwned.py"), std::string::npos) << joined.error().message;
  // A symlinked folder that stays inside the cache is fine.
  fs::create_directories(tmp.path() / "cache" / "real");
  fs::create_symlink(tmp.path() / "cache" / "real", tmp.path() / "cache" / "alias");
  EXPECT_TRUE(join_inside(tmp.path() / "cache", "alias/file").ok());
}

TEST(JoinInside, RefusesAFinalSymlinkLeadingOutsideEvenWhenDangling) {
  util::TempDir tmp;
  fs::create_directories(tmp.path() / "cache" / "refs");
  fs::create_symlink(tmp.path() / "bashrc", tmp.path() / "cache" / "refs" / "main");  // dangling
  EXPECT_FALSE(join_inside(tmp.path() / "cache", "refs/main").ok());
  fs::create_symlink("../../bashrc", tmp.path() / "cache" / "refs" / "v1");  // relative, dangling
  EXPECT_FALSE(join_inside(tmp.path() / "cache", "refs/v1").ok());
  // A snapshot link into blobs/ is what the cache is made of.
  fs::create_directories(tmp.path() / "cache" / "blobs");
  std::ofstream(tmp.path() / "cache" / "blobs" / "abc") << "x";
  fs::create_symlink("../blobs/abc", tmp.path() / "cache" / "refs" / "v2");
  EXPECT_TRUE(join_inside(tmp.path() / "cache", "refs/v2").ok());
}

TEST(JoinInside, OntoABaseChecksAgainstTheCacheRoot) {
  util::TempDir tmp;
  const fs::path cache = tmp.path() / "cache";
  const fs::path snapshot = cache / "kernels--a--b" / "snapshots" / std::string(40, 'a');
  fs::create_directories(snapshot);
  fs::create_directories(cache / "kernels--a--b" / "blobs");
  std::ofstream(cache / "kernels--a--b" / "blobs" / "abc") << "x";
  // Replacing a snapshot link into the cache's blobs/: outside the snapshot, inside the cache.
  fs::create_symlink("../../blobs/abc", snapshot / "metadata.json");
  auto joined = join_inside(cache, snapshot, "metadata.json");
  ASSERT_TRUE(joined.ok()) << joined.error().message;
  EXPECT_EQ(*joined, snapshot / "metadata.json");
  EXPECT_FALSE(join_inside(cache, snapshot, "../../../../x").ok());
  EXPECT_FALSE(join_inside(cache, snapshot, "/x").ok());
  fs::create_symlink(tmp.path(), snapshot / "up");
  EXPECT_FALSE(join_inside(cache, snapshot, "up/pwned.py").ok());
}

TEST(CheckInside, IsLexicalFirst) {
  EXPECT_TRUE(check_inside("/c", "/c/a/b").ok());
  EXPECT_TRUE(check_inside("/c/", "/c/a").ok());
  EXPECT_FALSE(check_inside("/c", "/c").ok());
  EXPECT_FALSE(check_inside("/c", "/cd/a").ok());
  EXPECT_FALSE(check_inside("/c", "/c/a/../../etc/passwd").ok());
  EXPECT_FALSE(check_inside("/c", "/etc/passwd").ok());
  EXPECT_FALSE(check_inside("/c/kernels--a--b/refs", "/c/kernels--a--b/refs/../../../x").ok());
}

TEST(CheckInside, AcceptsARootReachedThroughASymlink) {
  // ~/.cache may itself be a symlink: the comparison is between resolved paths.
  util::TempDir tmp;
  fs::create_directories(tmp.path() / "real-cache");
  fs::create_symlink(tmp.path() / "real-cache", tmp.path() / "cache");
  EXPECT_TRUE(check_inside(tmp.path() / "cache", tmp.path() / "cache" / "blobs" / "x").ok());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
