#include "util/size_text.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(parse_size, ReadsSuffixesAsPowersOf1024) {
  EXPECT_EQ(parse_size("0").value(), 0u);
  EXPECT_EQ(parse_size("512").value(), 512u);
  EXPECT_EQ(parse_size("512B").value(), 512u);
  EXPECT_EQ(parse_size("1K").value(), 1024u);
  EXPECT_EQ(parse_size("64M").value(), uint64_t{64} << 20);
  EXPECT_EQ(parse_size("64m").value(), uint64_t{64} << 20);
  EXPECT_EQ(parse_size("10G").value(), uint64_t{10} << 30);
  EXPECT_EQ(parse_size("10GiB").value(), uint64_t{10} << 30);
  EXPECT_EQ(parse_size("10GB").value(), uint64_t{10} << 30);
  EXPECT_EQ(parse_size("100T").value(), uint64_t{100} << 40);
  EXPECT_EQ(parse_size("18446744073709551615").value(), UINT64_MAX);
  EXPECT_EQ(parse_size("16777215T").value(), uint64_t{16777215} << 40);
}

TEST(parse_size, RefusesWhatIsNotAByteCount) {
  for (const char* text : {"", "-1", "+1", "1.5G", " 1G", "1 G", "G", "1X", "1KB2", "1iB", "1Gi", "1e9",
                           "18446744073709551616", "16777216T", "1KiBB", "0x10"}) {
    auto result = parse_size(text);
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_EQ(result.error().kind, ErrorKind::usage) << text;
    EXPECT_NE(result.error().message.find(std::string("`") + text + "`"), std::string::npos) << text;
    EXPECT_FALSE(result.error().hints.empty()) << text;
  }
}

TEST(format_size, PicksTheLargestExactSuffix) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(1536 * 1024), "1536K");
  EXPECT_EQ(format_size(uint64_t{64} << 20), "64M");
  EXPECT_EQ(format_size(uint64_t{10} << 30), "10G");
  EXPECT_EQ(format_size(uint64_t{100} << 40), "100T");
  EXPECT_EQ(format_size(uint64_t{1} << 50), "1024T");
}

TEST(format_size, RoundTripsThroughParseSize) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1023}, uint64_t{1024}, uint64_t{3} << 20,
                         (uint64_t{5} << 40) + 1024, UINT64_MAX, uint64_t{1} << 63}) {
    EXPECT_EQ(parse_size(format_size(bytes)).value(), bytes) << bytes;
  }
}
