// Xet access tokens and signed xorb ranges (server/xet_tokens.h).
#include <gtest/gtest.h>

#include "hub/server/xet_tokens.h"
#include "util/fs.h"
#include "util/hash.h"

namespace kb::hub::server {
namespace {
namespace KB_UNITY_ID {

XetGrant grant(int64_t expires) {
  return XetGrant{XetScope::write, storage::RepoId{"model", "alice", "demo"}, "alice", expires, false};
}

TEST(XetCredentials, IssueThenVerifyGivesBackTheGrant) {
  util::TempDir dir;
  auto credentials = XetCredentials::open(dir.path());
  ASSERT_TRUE(credentials.ok());
  std::string token = credentials->issue(grant(2000));
  auto back = credentials->verify(token, 1000);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->scope, XetScope::write);
  EXPECT_EQ(back->repo.full(), "alice/demo");
  EXPECT_EQ(back->repo.type, "model");
  EXPECT_EQ(back->user, "alice");
  EXPECT_EQ(back->expires, 2000);
  EXPECT_FALSE(back->pull_request);
  // The token names no organization: membership is checked on every request, never carried.
  EXPECT_EQ(token.find(util::to_hex(std::string("acme"))), std::string::npos);
  XetGrant for_pr = grant(2000);
  for_pr.pull_request = true;
  auto pr = credentials->verify(credentials->issue(for_pr), 1000);
  ASSERT_TRUE(pr.has_value());
  EXPECT_TRUE(pr->pull_request);
  EXPECT_EQ(pr->scope, XetScope::write);
}

TEST(XetCredentials, VerifyRefusesExpiredAlteredAndForeignTokens) {
  util::TempDir dir, other;
  auto credentials = XetCredentials::open(dir.path());
  auto foreign = XetCredentials::open(other.path());
  ASSERT_TRUE(credentials.ok() && foreign.ok());
  std::string token = credentials->issue(grant(2000));
  EXPECT_FALSE(credentials->verify(token, 2000).has_value());  // expired at its expiry time
  EXPECT_FALSE(foreign->verify(token, 1000).has_value());      // another Hub's secret
  for (size_t i = 5; i < token.size(); i += 7) {
    std::string altered = token;
    altered[i] = altered[i] == '0' ? '1' : '0';
    EXPECT_FALSE(credentials->verify(altered, 1000).has_value()) << i;
  }
  EXPECT_FALSE(credentials->verify("", 1000).has_value());
  EXPECT_FALSE(credentials->verify("xet2_.", 1000).has_value());
}

TEST(XetCredentials, TheSecretIsCreatedOnceAndKeptPrivate) {
  util::TempDir dir;
  auto first = XetCredentials::open(dir.path());
  auto second = XetCredentials::open(dir.path());
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(second->verify(first->issue(grant(2000)), 1000).has_value());
  auto permissions = std::filesystem::status(dir.path() / "xet" / "secret").permissions();
  EXPECT_EQ(permissions & (std::filesystem::perms::group_all | std::filesystem::perms::others_all),
            std::filesystem::perms::none);
}

TEST(XetCredentials, SignedRangesAdmitOnlyTheirRanges) {
  util::TempDir dir;
  auto credentials = XetCredentials::open(dir.path());
  ASSERT_TRUE(credentials.ok());
  XorbRangeGrant ranges{std::string(64, 'a'), {{0, 99}, {200, 299}}, 2000, storage::RepoId{"model", "alice", "demo"}, "bob"};
  std::string query = credentials->sign_range(ranges);
  EXPECT_EQ(query.rfind("range=0-99,200-299&expires=2000&repo=models/alice/demo&user=bob&sig=", 0), 0u) << query;
  std::string signature = query.substr(query.find("sig=") + 4);
  auto verify = [&](const std::string& xorb, const std::string& range, const std::string& expires, int64_t now,
                    const std::string& repo = "models/alice/demo", const std::string& user = "bob") {
    return credentials->verify_range(xorb, range, expires, repo, user, signature, now);
  };
  auto back = verify(ranges.xorb, "0-99,200-299", "2000", 1000);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->repo.full(), "alice/demo");
  EXPECT_EQ(back->repo.type, "model");
  EXPECT_EQ(back->user, "bob");
  EXPECT_TRUE(back->admits(0, 99));
  EXPECT_TRUE(back->admits(250, 260));
  EXPECT_FALSE(back->admits(90, 210));
  EXPECT_FALSE(back->admits(300, 300));
  EXPECT_FALSE(verify(ranges.xorb, "0-299", "2000", 1000).has_value());
  EXPECT_FALSE(verify(std::string(64, 'b'), "0-99,200-299", "2000", 1000).has_value());
  EXPECT_FALSE(verify(ranges.xorb, "0-99,200-299", "3000", 1000).has_value());
  EXPECT_FALSE(verify(ranges.xorb, "0-99,200-299", "2000", 2000).has_value());
  // Another repository or user: the URL is not theirs.
  EXPECT_FALSE(verify(ranges.xorb, "0-99,200-299", "2000", 1000, "models/alice/other").has_value());
  EXPECT_FALSE(verify(ranges.xorb, "0-99,200-299", "2000", 1000, "models/alice/demo", "mallory").has_value());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::server
