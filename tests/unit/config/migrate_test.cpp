// update-build's pure migration (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/migrate.h"
#include "test_support.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

using namespace testing;

TEST(MigrateBuildToml, LeavesEdition5Alone) {
  auto result = migrate_build_toml(general_v5 + torch_section, "build.toml");
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->has_value());
}

TEST(MigrateBuildToml, UpgradesV4KeepingCommentsAndKernelOrder) {
  std::string v4 = "# my kernel\n[general]\nname = \"relu\"\nversion = 1\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n"
                   "\n[torch]\nsrc = []\nstable-abi = \"2.11.0\"\n"
                   "\n[kernel.z]  # last alphabetically\nbackend = \"cuda\"\ndepends = []\nsrc = []\n"
                   "\n[kernel.a]\nbackend = \"cuda\"\ndepends = []\nsrc = []\n";
  auto result = migrate_build_toml(v4, "build.toml");
  ASSERT_TRUE(result.ok());
  ASSERT_TRUE(result->has_value());
  EXPECT_EQ(**result,
            "# my kernel\n[general]\nname = \"relu\"\nversion = 1\nedition = 5\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n"
            "\n[torch]\nsrc = []\nstable-abi = \"2.11\"\n"
            "\n[kernel.z]  # last alphabetically\nbackend = \"cuda\"\ndepends = []\nsrc = []\n"
            "\n[kernel.a]\nbackend = \"cuda\"\ndepends = []\nsrc = []\n");
  ParseOutcome again = parse(**result);
  ASSERT_TRUE(again.parsed);
  EXPECT_EQ(again.parsed->edition, Edition::v5);
}

TEST(MigrateBuildToml, V3WithoutFrameworkBecomesEmptyTorchNoarch) {
  auto result = migrate_build_toml("[general]\nname = \"relu\"\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n", "b");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(**result,
            "[general]\nname = \"relu\"\nversion = 1\nedition = 5\nlicense = \"MIT\"\nbackends = [\"cuda\"]\n"
            "\n[torch-noarch]\n");
}

TEST(MigrateBuildToml, V3WithoutLicenseFailsWithTheUpstreamChain) {
  auto result = migrate_build_toml("[general]\nname = \"relu\"\nbackends = [\"cuda\"]\n", "b");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message, "Cannot update build configuration");
  EXPECT_EQ(result.error().causes,
            std::vector<std::string>{
                "Cannot migrate configuration: \"The `license` key is required in the `general` section\""});
}

TEST(MigrateBuildToml, InvalidFileFailsWithDiagnostics) {
  auto result = migrate_build_toml("[general]\nname = 1\n", "build.toml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message, "Cannot update build configuration");
  EXPECT_FALSE(result.error().causes.empty());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
