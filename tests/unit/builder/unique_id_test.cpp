// Tests of unique ids (docs/build-output.md) and git state detection.
#include <gtest/gtest.h>

#include "builder/unique_id.h"
#include "util/fs.h"
#include "util/process.h"

using namespace kb::builder;

TEST(base32_id, EncodesEightLittleEndianBytes) {
  EXPECT_EQ(base32_id(0x0123456789abcdefULL), "57g2xclhiurqc");
  EXPECT_EQ(base32_id(0), "aaaaaaaaaaaaa");
}

TEST(make_unique_id, PrefersRequestedThenTreeThenRandom) {
  GitInfo git{"c0ffee0000000000000000000000000000000000", "3f9a1c2d00000000000000000000000000000000", false};
  EXPECT_EQ(make_unique_id(std::string("mine"), git), "mine");
  EXPECT_EQ(make_unique_id(std::nullopt, git), "3f9a1c2");
  git.dirty = true;
  EXPECT_EQ(make_unique_id(std::nullopt, git), "3f9a1c2_dirty");
  auto random = make_unique_id(std::nullopt, std::nullopt);
  EXPECT_EQ(random.size(), 13u);
  EXPECT_NE(random, make_unique_id(std::nullopt, std::nullopt));
}

TEST(read_git_info, UsesTreeIdAndTrackedChangesOnly) {
  if (!kb::util::find_program("git")) GTEST_SKIP() << "git not installed";
  kb::util::TempDir dir;
  auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", dir.path().string(), "-c", "user.name=t", "-c", "user.email=t@t"});
    auto run = kb::util::run_process(args);
    ASSERT_TRUE(run && run->success()) << (run ? run->stderr_text : "");
  };
  EXPECT_FALSE(read_git_info(dir.path()));
  git({"init", "-q"});
  EXPECT_FALSE(read_git_info(dir.path()));  // no commit yet
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "a.txt", "a"));
  git({"add", "a.txt"});
  git({"commit", "-qm", "x"});
  auto info = read_git_info(dir.path());
  ASSERT_TRUE(info);
  EXPECT_EQ(info->commit.size(), 40u);
  EXPECT_NE(info->commit, info->tree);
  EXPECT_FALSE(info->dirty);
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "untracked.txt", "u"));
  EXPECT_FALSE(read_git_info(dir.path())->dirty);
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "a.txt", "changed"));
  EXPECT_TRUE(read_git_info(dir.path())->dirty);
  EXPECT_EQ(kernel_git_state(read_git_info(dir.path()))->commit, info->commit);
}

TEST(check_unique_id, AcceptsIdentifierCharactersOnly) {
  EXPECT_TRUE(check_unique_id("abc_DEF_123").ok());
  EXPECT_TRUE(check_unique_id("3f9a1c2_dirty").ok());
  for (const char* bad : {"", "gpu-relu", "a.b", "a b", "é"}) {
    auto status = check_unique_id(bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_EQ(status.error().kind, kb::util::ErrorKind::usage);
  }
  auto status = check_unique_id("gpu-relu");
  ASSERT_EQ(status.error().hints.size(), 1u);
  EXPECT_EQ(status.error().hints[0], "use e.g. `--unique-id gpu_relu`");
}
