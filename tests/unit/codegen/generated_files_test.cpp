// Tests of the write step of code generation and of rendering the project templates.
#include "codegen/generated_files.h"

#include <gtest/gtest.h>

#include <chrono>

#include "util/fs.h"

using namespace kb::codegen;
namespace fs = std::filesystem;

TEST(write_generated_files, RefusesExistingFilesWithoutOverwrite) {
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "b.txt", "old"));
  GeneratedFiles files = {{"a.txt", "A"}, {"b.txt", "B"}, {"sub/c.txt", "C"}};
  auto status = write_generated_files(dir.path(), files, false, "--force");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "File(s) already exists in target directory: b.txt\nUse `--force` to overwrite.");
  EXPECT_FALSE(fs::exists(dir.path() / "a.txt"));
  ASSERT_TRUE(write_generated_files(dir.path(), files, true, "--force"));
  EXPECT_EQ(*kb::util::read_file(dir.path() / "b.txt"), "B");
  EXPECT_EQ(*kb::util::read_file(dir.path() / "sub/c.txt"), "C");
}

TEST(write_generated_files, NamesTheGivenOverwriteFlagAndCountsDanglingLinks) {
  kb::util::TempDir dir;
  fs::create_symlink(dir.path() / "nowhere", dir.path() / "link.txt");
  auto status = write_generated_files(dir.path(), {{"link.txt", "x"}, {"new.txt", "y"}}, false, "--overwrite");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "File(s) already exists in target directory: link.txt\nUse `--overwrite` to overwrite.");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir.path() / "new.txt")));
}

TEST(write_generated_files, LeavesUnchangedFilesAlone) {
  kb::util::TempDir dir;
  GeneratedFiles files = {{"same.txt", "same"}, {"changed.txt", "new"}};
  ASSERT_TRUE(write_generated_files(dir.path(), {{"same.txt", "same"}, {"changed.txt", "old"}}, false, "--force"));
  auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(dir.path() / "same.txt", old_time);
  fs::last_write_time(dir.path() / "changed.txt", old_time);
  ASSERT_TRUE(write_generated_files(dir.path(), files, true, "--force"));
  EXPECT_EQ(fs::last_write_time(dir.path() / "same.txt"), old_time);
  EXPECT_NE(fs::last_write_time(dir.path() / "changed.txt"), old_time);
  EXPECT_EQ(*kb::util::read_file(dir.path() / "changed.txt"), "new");
}

TEST(render_project_template, UndefinedNamesAndMissingTemplatesAreInternalErrors) {
  auto missing_name = render_project_template("ops_torch.py.in");
  ASSERT_FALSE(missing_name);
  EXPECT_EQ(missing_name.error().message,
            "internal error: cannot render the template `templates/project/ops_torch.py.in`");
  ASSERT_EQ(missing_name.error().causes.size(), 1u);
  EXPECT_EQ(missing_name.error().causes[0].rfind("templates/project/ops_torch.py.in:", 0), 0u)
      << missing_name.error().causes[0];
  EXPECT_NE(missing_name.error().causes[0].find("undefined variable `ops_id`"), std::string::npos);
  auto missing_file = render_project_template("no/such.in");
  ASSERT_FALSE(missing_file);
  EXPECT_EQ(missing_file.error().message, "internal error: no embedded template `templates/project/no/such.in`");
}
