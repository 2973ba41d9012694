// Tests of variant discovery (docs/cli.md).
#include <gtest/gtest.h>

#include "metadata/discovery.h"
#include "util/fs.h"

using namespace kb::metadata;
namespace fs = std::filesystem;

TEST(discover_variants, PrefersResultThenBuildThenDir) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "build" / "torch-cpu" / "metadata.json", "{}"));
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "build" / "a-variant" / "metadata.json", "{}"));
  fs::create_directories(dir.path() / "build" / "no-metadata");
  fs::create_directories(dir.path() / "result" / "empty");
  auto found = discover_variants(dir.path());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->root, dir.path() / "build");
  ASSERT_EQ(found->variants.size(), 2u);
  EXPECT_EQ(found->variants[0].name, "a-variant");
  EXPECT_EQ(found->variants[1].name, "torch-cpu");
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "result" / "v" / "metadata.json", "{}"));
  EXPECT_EQ(discover_variants(dir.path())->root, dir.path() / "result");
}

TEST(discover_variants, NoneIsAnError) {
  kb::util::TempDir dir;
  auto found = discover_variants(dir.path());
  ASSERT_FALSE(found);
  std::string d = dir.path().string();
  EXPECT_EQ(found.error().message,
            "No build variants found in `" + d + "/result`, `" + d + "/build`, or `" + d + "`");
}

TEST(discover_variants, SkipsTheBuildersDotDirectories) {
  // An interrupted build's `.staging-<v>` may hold a metadata.json; it is never a variant.
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "build" / ".staging-torch-cpu" / "metadata.json", "{}"));
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "build" / "torch-cpu" / "metadata.json", "{}"));
  auto found = discover_variants(dir.path());
  ASSERT_TRUE(found);
  ASSERT_EQ(found->variants.size(), 1u);
  EXPECT_EQ(found->variants[0].name, "torch-cpu");
}
