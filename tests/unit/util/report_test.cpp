// Error-chain rendering (util/report.h): the exact text of `error:`, `Caused by:` and `hint:` lines,
// with and without colour, and NO_COLOR turning colour off.
#include "util/report.h"

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

namespace kb::util {
namespace {
namespace KB_UNITY_ID {

Error chain() {
  return Error(ErrorKind::network, "Cannot upload variant `torch211-cxx11-cpu-x86_64-linux`")
      .with_cause("HTTP 403 from https://hub.example/api/repos/create")
      .with_cause("You don't have the rights to create a kernel under the namespace `acme`")
      .with_hint("check that the token has write access to `acme`")
      .with_hint("set HF_TOKEN, or run `hf auth login`");
}

TEST(RenderError, PlainChainOneLinePerElement) {
  EXPECT_EQ(render_error(chain()),
            "error: Cannot upload variant `torch211-cxx11-cpu-x86_64-linux`\n"
            "Caused by: HTTP 403 from https://hub.example/api/repos/create\n"
            "Caused by: You don't have the rights to create a kernel under the namespace `acme`\n"
            "hint: check that the token has write access to `acme`\n"
            "hint: set HF_TOKEN, or run `hf auth login`\n");
  EXPECT_EQ(render_error(Error("plain")), "error: plain\n");
}

TEST(RenderError, ColourPaintsOnlyTheLabels) {
  EXPECT_EQ(render_error(chain(), true),
            "\x1b[1;31merror\x1b[0m: Cannot upload variant `torch211-cxx11-cpu-x86_64-linux`\n"
            "\x1b[1mCaused by\x1b[0m: HTTP 403 from https://hub.example/api/repos/create\n"
            "\x1b[1mCaused by\x1b[0m: You don't have the rights to create a kernel under the namespace `acme`\n"
            "\x1b[1;36mhint\x1b[0m: check that the token has write access to `acme`\n"
            "\x1b[1;36mhint\x1b[0m: set HF_TOKEN, or run `hf auth login`\n");
}

TEST(ColourEnabled, NeverForNoColourOrAFile) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(colour_enabled(file));  // not a terminal
  std::fclose(file);
  const char* saved = std::getenv("NO_COLOR");
  std::string restore = saved ? saved : "";
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(colour_enabled(stderr));
  if (saved) {
    ::setenv("NO_COLOR", restore.c_str(), 1);
  } else {
    ::unsetenv("NO_COLOR");
  }
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::util
