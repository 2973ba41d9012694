// required_kernels_version: the features a kernel uses and build.toml's `kernels-minver`.
#include "config/kernels_minver.h"

#include <gtest/gtest.h>

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

std::string required(const BuildConfig& config, Backend backend) {
  auto version = required_kernels_version(config, backend);
  return version ? kernels_version_text(*version) : "-";
}

TEST(RequiredKernelsVersion, NothingWithoutFeatures) {
  BuildConfig config;
  EXPECT_EQ(required(config, Backend::cuda), "-");
}

TEST(RequiredKernelsVersion, KernelDependsNeedZeroSeventeen) {
  BuildConfig config;
  GeneralBackendConfig cuda;
  cuda.kernel_depends = {{"org/b", 1, std::nullopt}};
  config.general.cuda = cuda;
  EXPECT_EQ(required(config, Backend::cuda), "0.17.0");
  EXPECT_EQ(required(config, Backend::rocm), "-");  // that backend's variants have none
  config.general.kernel_depends = {{"org/a", 1, std::nullopt}};
  EXPECT_EQ(required(config, Backend::rocm), "0.17.0");
}

TEST(RequiredKernelsVersion, BuildTomlRaisesButNeverLowers) {
  BuildConfig config;
  config.general.kernel_depends = {{"org/a", 1, std::nullopt}};
  config.general.kernels_minver = Version({0, 18, 2});
  EXPECT_EQ(required(config, Backend::cpu), "0.18.2");
  config.general.kernels_minver = Version({0, 15});
  EXPECT_EQ(required(config, Backend::cpu), "0.17.0");
  config.general.kernel_depends.clear();
  EXPECT_EQ(required(config, Backend::cpu), "0.15.0");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
