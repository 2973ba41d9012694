// Name rules of the Hub (hub/protocol/names.h): the official client's repo ids, git's ref names,
// our file paths; each refusal is ErrorKind::invalid and names the rule.
#include "hub/protocol/names.h"

#include <gtest/gtest.h>

#include <vector>

namespace kb::hub::protocol {
namespace {
namespace KB_UNITY_ID {

std::string why(const util::Status& status) { return status ? "" : status.error().message; }

TEST(Names, RepoIdsFollowTheOfficialClient) {
  for (const char* ok : {"acme/relu", "a/b", "Org_1/x.y-z", "u/_private", "acme/relu-2.0_x"}) {
    EXPECT_TRUE(check_repo_id(ok)) << ok << ": " << why(check_repo_id(ok));
  }
  for (const char* bad : {"relu", "acme/", "/relu", "a/b/c", "acme/x.git", "acme/X.GIT", "acme/a--b", "acme/a..b",
                          "acme/.x", "acme/x-", "acme/-x", "acme/x.", "ac me/x", "acme/x\\y", "acme/é", ""}) {
    auto status = check_repo_id(bad);
    ASSERT_FALSE(status) << bad;
    EXPECT_EQ(status.error().kind, util::ErrorKind::invalid);
  }
  EXPECT_TRUE(check_repo_id("acme/" + std::string(96, 'a')));
  EXPECT_FALSE(check_repo_id("acme/" + std::string(97, 'a')));
  EXPECT_EQ(why(check_repo_id("acme/x.git")), "Invalid repository id `acme/x.git`: cannot end with \".git\"");
}

TEST(Names, RefNamesFollowGitCheckRefFormat) {
  for (const char* ok : {"main", "v1", "feature/x", "release-1.2", "a.b/c_d", "ünïcode"}) {
    EXPECT_TRUE(check_ref_name(ok)) << ok << ": " << why(check_ref_name(ok));
  }
  for (const std::string& bad : std::vector<std::string>{"", "HEAD", "@", "x.lock", "a/b.lock", "a//b", "/x", "x/", "a..b", ".x", "a/.b", "x.",
                          "-x", "refs/heads/x", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b", "a@{b",
                          std::string("a\0b", 3), "a\x7f", "a\tb"}) {
    EXPECT_FALSE(check_ref_name(bad)) << bad;
  }
  EXPECT_TRUE(check_ref_name(std::string(255, 'a')));
  EXPECT_FALSE(check_ref_name(std::string(256, 'a')));
  EXPECT_FALSE(check_ref_name("\xff\xfe"));  // not UTF-8
}

TEST(Names, Revisions) {
  for (const char* ok : {"main", "v1", "refs/heads/v1", "refs/pr/1", "refs/pr/42", "0123456789abcdef0123456789abcdef01234567"}) {
    EXPECT_TRUE(check_revision(ok)) << ok << ": " << why(check_revision(ok));
  }
  for (const char* bad : {"", "refs/pr/", "refs/pr/x", "refs/pr/01", "refs/pr/1/2", "../../x", "refs/heads/", "a//b",
                          "refs/tags/x/../y"}) {
    EXPECT_FALSE(check_revision(bad)) << bad;
  }
}

TEST(Names, RepoPaths) {
  for (const char* ok : {"a", "build/torch-cpu/__init__.py", "dir with space/f.txt", "ünï/código.py", "a.b", "...x",
                         ".gitattributes", "x/.gitignore", "a%20b"}) {
    EXPECT_TRUE(check_repo_path(ok)) << ok << ": " << why(check_repo_path(ok));
  }
  for (const std::string& bad : std::vector<std::string>{"", "/abs", "a/", "a//b", "./a", "a/./b", "a/..", "../x", "..\\x", "C:\\evil", ".git",
                          ".git/config", "x/.GIT/y", "%2e%2e/x", "a/%2E%2e", "a%2fb", "a%5Cb", std::string("a\0b", 3),
                          "a\nb", "a\x1b", "a\x7f", "\xc0\xaf", "\xed\xa0\x80"}) {
    auto status = check_repo_path(bad);
    ASSERT_FALSE(status) << bad;
    EXPECT_EQ(status.error().kind, util::ErrorKind::invalid);
  }
  EXPECT_TRUE(check_repo_path(std::string(255, 'a')));
  EXPECT_FALSE(check_repo_path(std::string(256, 'a')));
  std::string deep;
  while (deep.size() <= 4096) deep += "abcdefgh/";
  deep += "f";
  EXPECT_FALSE(check_repo_path(deep));
  EXPECT_EQ(why(check_repo_path("..\\x")), "Invalid file path `..\\x`: backslashes are not allowed");
  EXPECT_EQ(why(check_repo_path(std::string("a\nb"))), "Invalid file path `a?b`: control characters are not allowed");
  EXPECT_TRUE(check_repo_folder(""));
  EXPECT_FALSE(check_repo_folder("a/../b"));
}

TEST(Names, FileFolderClash) {
  EXPECT_TRUE(check_no_file_folder_clash({"a-b", "a/b", "a.c", "b"}));
  EXPECT_EQ(why(check_no_file_folder_clash({"a/b", "a-x", "a"})), "Path `a` is a file and also a folder of `a/b`");
  EXPECT_FALSE(check_no_file_folder_clash({"x/y/z", "x/y"}));
}

TEST(Names, VersionBranch) {
  EXPECT_EQ(version_branch(1), "v1");
  EXPECT_EQ(version_branch(12), "v12");
  EXPECT_EQ(parse_version_branch(version_branch(123456789)), 123456789);
  EXPECT_EQ(parse_version_branch("v012"), 12);
  EXPECT_FALSE(parse_version_branch("v").has_value());
  EXPECT_FALSE(parse_version_branch("v1.2").has_value());
  EXPECT_FALSE(parse_version_branch("v-1").has_value());
  EXPECT_FALSE(parse_version_branch("V1").has_value());
  EXPECT_FALSE(parse_version_branch("main").has_value());
  EXPECT_FALSE(parse_version_branch("v1234567890").has_value());  // past an int: not a version
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::protocol
