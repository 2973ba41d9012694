// Version parsing, normalisation, ordering and display (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/version.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

TEST(VersionParse, RoundTripsNormalisedStrings) {
  for (const char* text : {"2", "2.1", "2.10", "12.8", "0.1", "1.2.3", "12.9.1", "100.0.5"}) {
    auto version = Version::parse(text);
    ASSERT_TRUE(version.ok()) << text;
    EXPECT_EQ(version->to_string(), text);
    EXPECT_EQ(Version::parse(version->to_string())->to_string(), text);
  }
}

TEST(VersionParse, DropsTrailingZeros) {
  EXPECT_EQ(Version::parse("2.0")->to_string(), "2");
  EXPECT_EQ(Version::parse("12.8.0")->to_string(), "12.8");
  EXPECT_EQ(Version::parse("0")->to_string(), "");
  EXPECT_EQ(Version::parse(" 2.11 ")->to_string(), "2.11");
  EXPECT_EQ(*Version::parse("2.0"), *Version::parse("2"));
}

TEST(VersionParse, RejectsNonNumbers) {
  EXPECT_EQ(Version::parse("").error().message, "Empty version string");
  EXPECT_EQ(Version::parse("   ").error().message, "Empty version string");
  EXPECT_EQ(Version::parse("2.x").error().message, "Version must consist of numbers: 2.x");
  EXPECT_EQ(Version::parse("2.").error().message, "Version must consist of numbers: 2.");
  EXPECT_EQ(Version::parse("-1").error().message, "Version must consist of numbers: -1");
  EXPECT_EQ(Version::parse("1..2").error().message, "Version must consist of numbers: 1..2");
  EXPECT_FALSE(Version::parse("v2").ok());
}

TEST(VersionCompare, PrefixIsSmallerAndComponentsAreIntegers) {
  auto v = [](const char* s) { return Version::parse(s).value(); };
  EXPECT_LT(v("2"), v("2.1"));
  EXPECT_LT(v("2.1"), v("2.9"));
  EXPECT_LT(v("2.9"), v("2.10"));
  EXPECT_LT(v("12.6"), v("12.8"));
  EXPECT_EQ(v("2.0.0"), v("2"));
  EXPECT_GT(v("13"), v("12.9.1"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
