// Per-user posts per hour (server/post_limits.h): a sliding window of one hour, per user.
#include "hub/server/post_limits.h"

#include <gtest/gtest.h>

namespace kb::hub::server {
namespace {
namespace KB_UNITY_ID {

using std::chrono::minutes;

TEST(HourlyLimit, AdmitsPerHourPostsPerUserInAnyHour) {
  HourlyLimit limit(3);
  auto start = HourlyLimit::Clock::time_point{} + std::chrono::hours(100);
  EXPECT_TRUE(limit.admit("mallory", start));
  EXPECT_TRUE(limit.admit("mallory", start + minutes(10)));
  EXPECT_TRUE(limit.admit("mallory", start + minutes(20)));
  EXPECT_FALSE(limit.admit("mallory", start + minutes(30)));  // the fourth within the hour
  EXPECT_TRUE(limit.admit("carol", start + minutes(30)));     // per user
  EXPECT_FALSE(limit.admit("mallory", start + minutes(59)));
  // An hour after the first post, one more is admitted; a refused post was not counted.
  EXPECT_TRUE(limit.admit("mallory", start + minutes(60)));
  EXPECT_FALSE(limit.admit("mallory", start + minutes(61)));
  EXPECT_TRUE(limit.admit("mallory", start + minutes(200)));
}

TEST(HourlyLimit, ZeroIsNoLimit) {
  HourlyLimit limit(0);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(limit.admit("alice"));
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::hub::server
