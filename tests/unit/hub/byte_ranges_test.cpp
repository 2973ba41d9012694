// plan_byte_ranges: which bytes of a file a Range request gets (docs/hub-security.md, "Ranges").
#include "hub/server/byte_ranges.h"

#include <gtest/gtest.h>

namespace kb::hub::server {
namespace {
namespace KB_UNITY_ID {

using Kind = RangePlan::Kind;

TEST(PlanByteRanges, NoRangeOrZeroByteFileIsTheWholeFile) {
  EXPECT_EQ(plan_byte_ranges({}, 100).kind, Kind::whole);
  // A zero-byte file ignores Range: never a 416, never a Content-Length beyond 0.
  EXPECT_EQ(plan_byte_ranges({{0, -1}}, 0).kind, Kind::whole);
  auto many = std::vector<RangeSpec>(200, RangeSpec{0, 268435455});
  EXPECT_EQ(plan_byte_ranges(many, 0).kind, Kind::whole);
}

TEST(PlanByteRanges, EndsAreClampedAnd416OnlyWhenEveryStartIsPastTheEnd) {
  auto plan = plan_byte_ranges({{0, 268435455}}, 500);
  ASSERT_EQ(plan.kind, Kind::partial);
  EXPECT_EQ(plan.spans, (std::vector<ByteSpan>{{0, 500}}));
  EXPECT_EQ(plan_byte_ranges({{499, 1000}}, 500).spans, (std::vector<ByteSpan>{{499, 1}}));
  EXPECT_EQ(plan_byte_ranges({{500, 1000}}, 500).kind, Kind::unsatisfiable);
  // One satisfiable spec is enough.
  EXPECT_EQ(plan_byte_ranges({{500, 600}, {10, 19}}, 500).spans, (std::vector<ByteSpan>{{10, 10}}));
}

TEST(PlanByteRanges, SuffixRanges) {
  EXPECT_EQ(plan_byte_ranges({{-1, 10}}, 100).spans, (std::vector<ByteSpan>{{90, 10}}));
  EXPECT_EQ(plan_byte_ranges({{-1, 1000}}, 100).spans, (std::vector<ByteSpan>{{0, 100}}));
  EXPECT_EQ(plan_byte_ranges({{-1, 0}}, 100).kind, Kind::unsatisfiable);
}

TEST(PlanByteRanges, OverlappingAndAdjacentRangesAreMerged) {
  std::vector<RangeSpec> overlapping(200, RangeSpec{0, 1048575});
  auto plan = plan_byte_ranges(overlapping, 1 << 20);
  ASSERT_EQ(plan.kind, Kind::partial);
  EXPECT_EQ(plan.spans, (std::vector<ByteSpan>{{0, 1 << 20}}));
  EXPECT_EQ(plan_byte_ranges({{20, 29}, {0, 9}, {10, 15}, {5, 12}}, 100).spans,
            (std::vector<ByteSpan>{{0, 16}, {20, 10}}));
}

TEST(PlanByteRanges, MoreThanTheMaximumAfterMergingIsTheWholeFile) {
  std::vector<RangeSpec> specs;
  for (int64_t i = 0; i < 9; ++i) specs.push_back({i * 10, i * 10 + 1});
  EXPECT_EQ(plan_byte_ranges(specs, 1000).kind, Kind::whole);
  specs.pop_back();
  EXPECT_EQ(plan_byte_ranges(specs, 1000).spans.size(), kMaxByteRanges);
}

TEST(PlanByteRanges, NeverMoreBytesThanTheFile) {
  std::vector<RangeSpec> specs;
  for (int64_t i = 0; i < 200; ++i) specs.push_back({i % 7, 999 - i % 5});
  auto plan = plan_byte_ranges(specs, 1000);
  uint64_t total = 0;
  for (const auto& span : plan.spans) total += span.length;
  EXPECT_LE(total, 1000u);
}

TEST(ParseRangeHeader, Forms) {
  EXPECT_EQ(parse_range_header("bytes=0-35"), (std::vector<RangeSpec>{{0, 35}}));
  EXPECT_EQ(parse_range_header("bytes=5-, -7"), (std::vector<RangeSpec>{{5, -1}, {-1, 7}}));
  EXPECT_TRUE(parse_range_header("bytes=9-3").empty());  // invalid: ignored
  EXPECT_TRUE(parse_range_header("items=0-3").empty());
  EXPECT_TRUE(parse_range_header("bytes=a-3").empty());
  EXPECT_TRUE(parse_range_header("bytes=0-1,").empty());
  std::string long_list = "bytes=0-1";
  for (int i = 0; i < 300; ++i) long_list += ",0-1";
  EXPECT_TRUE(parse_range_header(long_list).empty());  // over 256 specs: ignored whole
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::server
