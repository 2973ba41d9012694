// Tests of the remote compile cache settings (remote_cache.h).
#include <gtest/gtest.h>

#include <cstdlib>

#include "builder/remote_cache.h"

using namespace kb::builder;

TEST(parse_stats_log, CountsHitsRemoteHitsAndMissesPerCompile) {
  const char* log =
      "# ../src/a.cpp\n"
      "direct_cache_hit\nlocal_storage_miss\nremote_storage_hit\nremote_storage_read_hit\n"
      "# ../src/b.cpp\n"
      "cache_miss\nlocal_storage_miss\nremote_storage_miss\nlocal_storage_write\n"
      "# ../src/c.cpp\n"
      "preprocessed_cache_hit\nlocal_storage_hit\n"
      "# conftest\n"
      "compiler_check_failed\n";
  CompileCacheStats stats = parse_stats_log(log);
  EXPECT_EQ(stats.compiles, 3);
  EXPECT_EQ(stats.hits, 2);
  EXPECT_EQ(stats.remote_hits, 1);
  EXPECT_EQ(describe(stats), "2 of 3 compiles from the compiler cache (1 from the remote cache)");
  EXPECT_EQ(parse_stats_log("").compiles, 0);
}

TEST(redact_storage_url, HidesCredentialsOnly) {
  EXPECT_EQ(redact_storage_url("redis://:pw@host:6379"), "redis://***@host:6379");
  EXPECT_EQ(redact_storage_url("redis://user:pw@host"), "redis://***@host");
  EXPECT_EQ(redact_storage_url("http://host/path@x"), "http://host/path@x");
  EXPECT_EQ(redact_storage_url("file:/srv/cache"), "file:/srv/cache");
}

TEST(resolve_remote_cache, OptionThenEnvironmentAndOnlyCcacheBackEnds) {
  ::unsetenv("KERNEL_BUILDER_REMOTE_CACHE");
  EXPECT_FALSE(resolve_remote_cache(std::nullopt).value());
  EXPECT_EQ(*resolve_remote_cache(std::string("redis://h:1")).value(), "redis://h:1");
  ::setenv("KERNEL_BUILDER_REMOTE_CACHE", "http://cache:8080/ccache", 1);
  EXPECT_EQ(*resolve_remote_cache(std::nullopt).value(), "http://cache:8080/ccache");
  EXPECT_EQ(*resolve_remote_cache(std::string("file:/srv/c")).value(), "file:/srv/c");
  ::unsetenv("KERNEL_BUILDER_REMOTE_CACHE");
  auto bad = resolve_remote_cache(std::string("https://u:pw@cache"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, kb::util::ErrorKind::usage);
  EXPECT_EQ(bad.error().message, "Unsupported remote compile cache `https://***@cache`");
  EXPECT_EQ(bad.error().hints.size(), 2u);
}
