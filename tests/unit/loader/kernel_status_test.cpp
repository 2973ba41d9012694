// kernel-status.toml parsing and its exact error texts (docs/python-api.md install step 1).
#include "loader/kernel_status.h"

#include <gtest/gtest.h>

namespace kb::loader {
namespace {
namespace KB_UNITY_ID {

TEST(ParseKernelStatus, RedirectWithDefaultRevision) {
  auto r = parse_kernel_status("kind = \"redirect\"\ndestination = \"org/new\"\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->destination, "org/new");
  EXPECT_EQ(r->revision, "main");
  EXPECT_EQ(parse_kernel_status("kind = \"redirect\"\ndestination = \"o/n\"\nrevision = \"v2\"")->revision, "v2");
}

TEST(ParseKernelStatus, Errors) {
  EXPECT_EQ(parse_kernel_status("destination = \"o/n\"").error().message, "kernel-status.toml must contain a 'kind' field");
  EXPECT_EQ(parse_kernel_status("kind = \"\"").error().message, "kernel-status.toml must contain a 'kind' field");
  EXPECT_EQ(parse_kernel_status("kind = \"gone\"").error().message, "Unknown kernel status kind: 'gone'");
  EXPECT_EQ(parse_kernel_status("kind = \"redirect\"").error().message,
            "kernel-status.toml must contain a 'destination' field");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::loader
