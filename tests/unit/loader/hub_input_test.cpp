// The checks of what a Hub, a lockfile or the user hands the loader (loader/hub_input.h).
#include "loader/hub_input.h"

#include <gtest/gtest.h>

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

std::string full(const util::Error& error) {
  std::string text = error.message;
  for (const auto& cause : error.causes) text += "\n" + cause;
  return text;
}

TEST(CheckListedPath, AcceptsPathsBelowTheFolder) {
  EXPECT_TRUE(check_listed_path("acme/k", "build/torch-cpu", true, "build/torch-cpu/a/b.py").ok());
  EXPECT_TRUE(check_listed_path("acme/k", "build", false, "build/torch-cpu").ok());
  EXPECT_TRUE(check_listed_path("acme/k", "", true, "README.md").ok());
}

TEST(CheckListedPath, RefusesAndNamesRepoAndPath) {
  const char* folder = "build/torch-cpu";
  for (const std::string bad : {"/tmp/pwned.py", "build/torch-cpu/../../pwned.py", "build/torch-cpu/%2e%2e/x",
                                "build/torch-cpu/a\\b", "build/torch-cpu//x", "build/torch-cpu/.git/x",
                                "build/torch-cuda/x", "build/torch-cpux/x", "build/torch-cpu", "pwned.py"}) {
    auto status = check_listed_path("acme/k", folder, true, bad);
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_EQ(status.error().kind, util::ErrorKind::invalid);
    EXPECT_NE(full(status.error()).find("acme/k"), std::string::npos) << full(status.error());
    EXPECT_NE(full(status.error()).find(bad), std::string::npos) << full(status.error());
  }
  auto control = check_listed_path("acme/k", folder, true, "build/torch-cpu/a\nb");
  ASSERT_FALSE(control.ok());
  EXPECT_NE(full(control.error()).find("build/torch-cpu/a?b"), std::string::npos) << full(control.error());
  // Not recursive: exactly one component below the folder.
  EXPECT_FALSE(check_listed_path("acme/k", "build", false, "build/a/b").ok());
}

TEST(CheckObjectId, WantsLowercaseHexOfBlobLength) {
  EXPECT_TRUE(check_object_id("acme/k", "a", std::string(40, 'a')).ok());
  EXPECT_TRUE(check_object_id("acme/k", "a", std::string(64, '0')).ok());
  EXPECT_FALSE(check_object_id("acme/k", "a", "../../../pwned").ok());
  EXPECT_FALSE(check_object_id("acme/k", "a", std::string(40, 'A')).ok());
  EXPECT_FALSE(check_object_id("acme/k", "a", std::string(39, 'a')).ok());
}

TEST(CheckCommitId, WantsFortyHexDigits) {
  EXPECT_TRUE(check_commit_id("acme/k", "revision `main`", std::string(40, 'f')).ok());
  auto bad = check_commit_id("acme/k", "revision `main`", "../../../pwned");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("acme/k"), std::string::npos);
  EXPECT_NE(bad.error().message.find("../../../pwned"), std::string::npos);
}

TEST(CheckKernelRequest, ChecksRepoIdAndRevision) {
  EXPECT_TRUE(check_kernel_request("acme/k", "v1").ok());
  EXPECT_TRUE(check_kernel_request("acme/k", std::string(40, 'a')).ok());
  EXPECT_FALSE(check_kernel_request("acme/../k", "v1").ok());
  EXPECT_FALSE(check_kernel_request("/etc", "v1").ok());
  auto bad = check_kernel_request("acme/k", "../../x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, util::ErrorKind::invalid);
  EXPECT_NE(full(bad.error()).find("acme/k"), std::string::npos);
  EXPECT_NE(full(bad.error()).find("../../x"), std::string::npos);
}

TEST(CheckDigestPaths, RefusesEscapingPaths) {
  metadata::Digest digest;
  digest.files["ok/file.py"] = "x";
  EXPECT_TRUE(check_digest_paths("acme/k", "torch-cpu", digest).ok());
  digest.files["../../pwned.py"] = "x";
  auto bad = check_digest_paths("acme/k", "torch-cpu", digest);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(full(bad.error()).find("../../pwned.py"), std::string::npos);
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
