#include "util/fs.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(write_file_atomic, ReplacesContentAndLeavesNoTemporary) {
  TempDir dir;
  auto path = dir.path() / "sub" / "file.txt";
  ASSERT_TRUE(write_file_atomic(path, "one").ok());
  ASSERT_TRUE(write_file_atomic(path, "two").ok());
  EXPECT_EQ(*read_file(path), "two");
  EXPECT_EQ(list_files_recursive(dir.path()), (std::vector<std::string>{"sub/file.txt"}));
}

TEST(read_file, ReportsMissingFile) {
  auto r = read_file("/nonexistent/x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "Cannot open `/nonexistent/x` for reading");
}

TEST(list_files_recursive, ListsSymlinksUnderTheirOwnName) {
  TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir.path() / "blobs" / "abc", "x").ok());
  fs::create_directories(dir.path() / "variant");
  fs::create_symlink("../blobs/abc", dir.path() / "variant" / "_ops.py");
  EXPECT_EQ(list_files_recursive(dir.path() / "variant"), (std::vector<std::string>{"_ops.py"}));
}
