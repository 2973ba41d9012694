// GitUrl parsing and normalisation (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/git_url.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

TEST(ParseGitUrl, AcceptsEverySupportedScheme) {
  for (const char* url : {"https://github.com/org/repo", "http://example.com/x.git", "git://host/repo",
                          "ssh://git@host/repo", "git+ssh://git@host:22/repo", "git+https://host/r",
                          "git+http://host/r"}) {
    auto parsed = parse_git_url(url);
    ASSERT_TRUE(parsed.ok()) << url;
    EXPECT_EQ(parsed->original, url);
    EXPECT_EQ(parsed->normalized, url);  // already normal: round trip
    EXPECT_EQ(parse_git_url(parsed->normalized)->normalized, parsed->normalized);
  }
}

TEST(ParseGitUrl, NormalisesScpLikeToSsh) {
  auto parsed = parse_git_url("git@github.com:org/repo.git");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->original, "git@github.com:org/repo.git");
  EXPECT_EQ(parsed->normalized, "ssh://git@github.com/org/repo.git");
  EXPECT_EQ(parse_git_url(parsed->normalized)->normalized, parsed->normalized);
}

TEST(ParseGitUrl, LowerCasesSchemeAndHostOnly) {
  EXPECT_EQ(parse_git_url("HTTPS://GitHub.com/Org/Repo")->normalized, "https://github.com/Org/Repo");
  EXPECT_EQ(parse_git_url("HTTPS://GitHub.com/Org/Repo")->original, "HTTPS://GitHub.com/Org/Repo");
}

TEST(ParseGitUrl, RejectsOtherSchemesWithTheListOfAcceptedOnes) {
  EXPECT_EQ(parse_git_url("ftp://example.com/x").error().message,
            "unsupported scheme `ftp` in git URL `ftp://example.com/x`, expected one of: https, http, git, ssh, "
            "git+ssh, git+https, git+http");
  EXPECT_EQ(parse_git_url("file:///srv/x").error().message.substr(0, 25), "unsupported scheme `file`");
}

TEST(ParseGitUrl, RejectsMalformedUrls) {
  for (const char* url : {"", "github.com/org/repo", "git@github.com:/abs/path", "https:///x", "https://",
                          "@host:path", "user@host:", "https://host:port/x", "https://host/a b"}) {
    auto parsed = parse_git_url(url);
    ASSERT_FALSE(parsed.ok()) << url;
    EXPECT_EQ(parsed.error().message, "invalid git URL `" + std::string(url) + "`") << url;
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
