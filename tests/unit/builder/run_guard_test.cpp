// Tests of the build directory lock, stale staging cleanup, the moved-CMake-cache detection and
// the disk-space hint (docs/building.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include "builder/cmake_cache.h"
#include "builder/run_guard.h"
#include "util/fs.h"

using namespace kb::builder;
namespace fs = std::filesystem;

TEST(BuildLock, SecondHolderIsRefusedWithTheFirstPid) {
  kb::util::TempDir dir;
  auto first = BuildLock::acquire(dir.path() / "build");
  ASSERT_TRUE(first) << first.error().message;
  auto second = BuildLock::acquire(dir.path() / "build");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, "Another `kernel-builder build` is running in `" + dir.path().string() +
                                        "` (pid " + std::to_string(::getpid()) + ")");
  ASSERT_EQ(second.error().hints.size(), 1u);
}

TEST(BuildLock, ReleasedWhenDestroyed) {
  kb::util::TempDir dir;
  { auto first = BuildLock::acquire(dir.path() / "build"); ASSERT_TRUE(first); }
  EXPECT_TRUE(BuildLock::acquire(dir.path() / "build"));
}

TEST(remove_stale_staging, RemovesOnlyStagingAndAside) {
  kb::util::TempDir dir;
  for (const char* f : {".staging-v/metadata.json", ".old-v/x", "v/metadata.json", ".kb/lock"}) {
    ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / f, "x"));
  }
  remove_stale_staging(dir.path());
  EXPECT_FALSE(fs::exists(dir.path() / ".staging-v"));
  EXPECT_FALSE(fs::exists(dir.path() / ".old-v"));
  EXPECT_TRUE(fs::exists(dir.path() / "v/metadata.json"));
  EXPECT_TRUE(fs::exists(dir.path() / ".kb/lock"));
}

TEST(foreign_cmake_cache, NamesTheDirectoryACopiedCacheWasMadeIn) {
  kb::util::TempDir dir;
  fs::path here = dir.path() / "new" / "cmake-build";
  EXPECT_EQ(foreign_cmake_cache(here), std::nullopt);  // no cache yet
  ASSERT_TRUE(kb::util::write_file_atomic(here / "CMakeCache.txt", "X:STRING=1\nCMAKE_CACHEFILE_DIR:INTERNAL=" + here.string() + "\n"));
  EXPECT_EQ(foreign_cmake_cache(here), std::nullopt);
  fs::path old = dir.path() / "old" / "cmake-build";
  ASSERT_TRUE(kb::util::write_file_atomic(here / "CMakeCache.txt", "CMAKE_CACHEFILE_DIR:INTERNAL=" + old.string() + "\n"));
  EXPECT_EQ(foreign_cmake_cache(here), old);  // moved: the old directory is gone
  fs::create_directories(old);
  EXPECT_EQ(foreign_cmake_cache(here), old);  // copied: it still exists
}

TEST(low_disk_space_hint, OnlyBelowTheThreshold) {
  kb::util::TempDir dir;
  EXPECT_EQ(low_disk_space_hint(dir.path(), 0), std::nullopt);
  auto hint = low_disk_space_hint(dir.path(), ~0ull);
  ASSERT_TRUE(hint);
  EXPECT_EQ(hint->rfind("the disk holding `" + dir.path().string() + "` is (nearly) full: ", 0), 0u) << *hint;
}
