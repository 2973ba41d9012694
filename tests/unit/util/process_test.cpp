#include "util/process.h"

#include <gtest/gtest.h>

using namespace kb::util;

TEST(run_process, captures_output_and_exit_code) {
  ProcessOptions options;
  options.env["KB_TEST_VALUE"] = "42";
  auto r = run_process({"sh", "-c", "echo out$KB_TEST_VALUE; echo err >&2; exit 3"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->stdout_text, "out42\n");
  EXPECT_EQ(r->stderr_text, "err\n");
}

TEST(run_process, feeds_stdin) {
  ProcessOptions options;
  options.stdin_data = "abc";
  auto r = run_process({"cat"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "abc");
}

TEST(run_process, fails_for_unknown_program) {
  EXPECT_FALSE(run_process({"definitely-not-a-program-kb"}).ok());
}
