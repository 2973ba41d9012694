// Template file paths: `{name}` parts.
#include "codegen/templating/template_path.h"

#include <gtest/gtest.h>

namespace kb::codegen::templating {
namespace {
namespace KB_UNITY_ID {

TEST(render_path, SubstitutesKnownNames) {
  EXPECT_EQ(render_path("{n}_cuda/{n}.cu", {{"n", "my_kernel"}}), "my_kernel_cuda/my_kernel.cu");
  EXPECT_EQ(render_path("torch-ext/{n}/__init__.py", {{"n", "relu"}}), "torch-ext/relu/__init__.py");
}

TEST(render_path, KeepsUnknownNamesAndLoneBraces) {
  EXPECT_EQ(render_path("{other}/x", {{"n", "k"}}), "{other}/x");
  EXPECT_EQ(render_path("a{b/{n}", {{"n", "k"}}), "a{b/k");
  EXPECT_EQ(render_path("a{n", {{"n", "k"}}), "a{n");
  EXPECT_EQ(render_path("", {{"n", "k"}}), "");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::codegen::templating
