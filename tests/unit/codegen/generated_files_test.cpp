// Tests of the write step of code generation and of template substitution.
#include <gtest/gtest.h>

#include "codegen/generated_files.h"
#include "util/fs.h"

using namespace kb::codegen;

TEST(write_generated_files, RefusesExistingFilesWithoutOverwrite) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "b.txt", "old"));
  GeneratedFiles files = {{"a.txt", "A"}, {"b.txt", "B"}, {"sub/c.txt", "C"}};
  auto status = write_generated_files(dir.path(), files, false);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "File(s) already exists in target directory: b.txt\nUse `--force` to overwrite.");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a.txt"));
  ASSERT_TRUE(write_generated_files(dir.path(), files, true));
  EXPECT_EQ(*kb::util::read_file(dir.path() / "b.txt"), "B");
  EXPECT_EQ(*kb::util::read_file(dir.path() / "sub/c.txt"), "C");
}

TEST(substitute, ReplacesKnownNamesOnly) {
  EXPECT_EQ(substitute("a @X@ b @Y@ user@host", {{"X", "1"}}), "a 1 b @Y@ user@host");
}
