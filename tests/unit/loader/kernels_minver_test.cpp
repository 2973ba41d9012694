// release_version (PEP 440's release part) and check_kernels_minver (kernels_minver.h).
#include <gtest/gtest.h>

#include "loader/kernels_minver.h"

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

std::string release_of(const char* text) {
  auto version = release_version(text);
  return version ? version->to_string() : "-";
}

TEST(ReleaseVersion, StripsPreDevPostAndLocalParts) {
  EXPECT_EQ(release_of("0.18.2"), "0.18.2");
  EXPECT_EQ(release_of("0.18.0rc1"), "0.18");
  EXPECT_EQ(release_of("0.18.0.dev0"), "0.18");
  EXPECT_EQ(release_of("0.18.1.post2"), "0.18.1");
  EXPECT_EQ(release_of("0.18.1+cu130.local"), "0.18.1");
  EXPECT_EQ(release_of("v1.2a3.post4.dev5+g1234"), "1.2");
  EXPECT_EQ(release_of("1!2.0"), "2");
}

TEST(ReleaseVersion, UnparsableIsNone) {
  for (const char* text : {"", "unknown", "0.18.x", "g1234abc", "0.18.0-dirty-thing"}) {
    EXPECT_FALSE(release_version(text)) << text;
  }
}

metadata::Metadata requiring(std::optional<std::string> minver) {
  metadata::Metadata m;
  m.name = "demo";
  m.kernels_minver = std::move(minver);
  return m;
}

TEST(CheckKernelsMinver, OlderInstalledFails) {
  auto status = check_kernels_minver(requiring("0.18.2"), "torch-universal", "0.18.1");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, util::ErrorKind::generic);
  EXPECT_EQ(status.error().message,
            "Kernel 'demo' variant 'torch-universal' requires kernels>=0.18.2, but version 0.18.1 is installed. "
            "Upgrade with: pip install --upgrade kernels");
  // A pre-release of the required version is that version (release part only).
  EXPECT_TRUE(check_kernels_minver(requiring("0.18.2"), "v", "0.18.2.dev0"));
  EXPECT_FALSE(check_kernels_minver(requiring("0.18.2"), "v", "0.18.1.post3"));
}

TEST(CheckKernelsMinver, EqualNewerAbsentOrUnparsablePass) {
  EXPECT_TRUE(check_kernels_minver(requiring("0.18.2"), "v", "0.18.2"));
  EXPECT_TRUE(check_kernels_minver(requiring("0.18"), "v", "0.18.0"));  // trailing zeros
  EXPECT_TRUE(check_kernels_minver(requiring("0.18.2"), "v", "0.19.0"));
  EXPECT_TRUE(check_kernels_minver(requiring(std::nullopt), "v", "0.1.0"));
  EXPECT_TRUE(check_kernels_minver(requiring("0.18.2"), "v", "not-a-version"));
  EXPECT_TRUE(check_kernels_minver(requiring("0.18.2"), "v", ""));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
