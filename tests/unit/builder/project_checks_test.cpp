// Tests of the layout check and the op-registration lint.
#include <gtest/gtest.h>

#include "builder/project_checks.h"
#include "config/reader.h"
#include "util/fs.h"
#include "util/process.h"

using namespace kb::builder;

namespace {
kb::config::BuildConfig config() {
  auto outcome = kb::config::parse_build_toml(R"([general]
name = "my-kernel"
version = 1
edition = 5
license = "MIT"
backends = ["cpu"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
)", "build.toml");
  return outcome.parsed->config;
}
}  // namespace

TEST(layout_violations, NeedsInitAndNoNestedPackage) {
  kb::util::TempDir dir;
  auto c = config();
  EXPECT_EQ(layout_violations(dir.path(), c),
            std::vector<std::string>{"Python module at torch-ext/my_kernel must contain __init__.py"});
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "torch-ext/my_kernel/__init__.py", ""));
  EXPECT_TRUE(layout_violations(dir.path(), c).empty());
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "torch-ext/my_kernel/my_kernel/__init__.py", ""));
  EXPECT_EQ(layout_violations(dir.path(), c),
            std::vector<std::string>{"Python module at torch-ext/my_kernel must not have my_kernel file or directory."});
}

TEST(op_registration_violations, FlagsUnprefixedRegistrations) {
  auto python = kb::util::find_program("python3");
  if (!python) GTEST_SKIP() << "python3 not installed";
  kb::util::TempDir dir;
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "torch-ext/k/__init__.py", R"(import torch
from ._ops import add_op_namespace_prefix

@torch.library.custom_op("k::bad", mutates_args=())
def bad(x): ...

@torch.library.custom_op(add_op_namespace_prefix("good"), mutates_args=())
def good(x): ...

@register_fake("k::fake")
async def afake(x): ...

@triton_op(ops.add_op_namespace_prefix("t"))
class Fine: ...

@custom_op
def no_call(x): ...
)"));
  ASSERT_TRUE(kb::util::write_file_atomic(dir.path() / "build/ignored.py", "@custom_op('x')\ndef f(): ...\n"));
  auto found = op_registration_violations(dir.path(), *python);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(*found, (std::vector<std::string>{"torch-ext/k/__init__.py:5 function bad",
                                               "torch-ext/k/__init__.py:11 async function afake"}));
}
