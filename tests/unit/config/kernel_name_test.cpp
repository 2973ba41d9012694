// The kernel-name rule (docs/build-toml.md).
#include <gtest/gtest.h>

#include "config/kernel_name.h"

namespace kb::config {
namespace {
namespace KB_UNITY_ID {

TEST(IsValidKernelName, AcceptsSpecExamples) {
  for (const char* name : {"my-kernel", "relu2d", "flash-attention", "my--kernel", "ab", "a1"}) {
    EXPECT_TRUE(is_valid_kernel_name(name)) << name;
  }
}

TEST(IsValidKernelName, RejectsSpecCounterExamples) {
  for (const char* name : {"my_kernel", "MyKernel", "a", "-k", "k-", "1kernel", "", "rel u", "relu.x"}) {
    EXPECT_FALSE(is_valid_kernel_name(name)) << name;
  }
}

TEST(ValidateKernelName, GivesTheUpstreamMultiLineMessage) {
  auto status = validate_kernel_name("My_Kernel");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "Invalid kernel name `My_Kernel`. Name must:\n"
            "- Start with a lowercase letter (a-z)\n"
            "- Contain only lowercase letters, digits, and dashes\n"
            "- End with a lowercase letter or digit\n"
            "- Be at least 2 characters long\n"
            "Examples: `my-kernel`, `relu2d`, `flash-attention`");
  EXPECT_TRUE(validate_kernel_name("relu").ok());
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::config
