// Tests of package staging and the atomic directory swap.
#include <gtest/gtest.h>

#include "builder/staging.h"
#include "util/fs.h"

using namespace kb::builder;
namespace fs = std::filesystem;

TEST(copy_package_files, CopiesPythonStubsAndDataOnly) {
  kb::util::TempDir dir;
  auto pkg = dir.path() / "pkg";
  for (const char* f : {"__init__.py", "a.pyi", "conf.json", "notes.txt", "layers/__init__.py", "x.pyc",
                        "__pycache__/m.py"}) {
    ASSERT_TRUE(kb::util::write_file_atomic(pkg / f, "x"));
  }
  ASSERT_TRUE(copy_package_files(pkg, dir.path() / "arch", {"json"}, false));
  EXPECT_EQ(kb::util::list_files_recursive(dir.path() / "arch"),
            (std::vector<std::string>{"__init__.py", "a.pyi", "conf.json", "layers/__init__.py"}));
  ASSERT_TRUE(copy_package_files(pkg, dir.path() / "noarch", {}, true));
  EXPECT_EQ(kb::util::list_files_recursive(dir.path() / "noarch"),
            (std::vector<std::string>{"__init__.py", "a.pyi", "conf.json", "layers/__init__.py", "notes.txt"}));
}

TEST(replace_directory, SwapsWholeTree) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "v/old.txt", "old"));
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / ".staging-v/new.txt", "new"));
  ASSERT_TRUE(replace_directory(dir.path() / ".staging-v", dir.path() / "v"));
  EXPECT_EQ(kb::util::list_files_recursive(dir.path() / "v"), std::vector<std::string>{"new.txt"});
  EXPECT_FALSE(fs::exists(dir.path() / ".staging-v"));
  EXPECT_FALSE(fs::exists(dir.path() / ".old-v"));
}
