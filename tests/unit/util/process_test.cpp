#include "util/process.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <thread>

using namespace kb::util;

TEST(run_process, CapturesOutputAndExitCode) {
  ProcessOptions options;
  options.env["KB_TEST_VALUE"] = "42";
  auto r = run_process({"sh", "-c", "echo out$KB_TEST_VALUE; echo err >&2; exit 3"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->stdout_text, "out42\n");
  EXPECT_EQ(r->stderr_text, "err\n");
}

TEST(run_process, FeedsStdin) {
  ProcessOptions options;
  options.stdin_data = "abc";
  auto r = run_process({"cat"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "abc");
}

TEST(run_process, ReadsStdinFromADescriptorWrittenLater) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  std::optional<Result<ProcessResult>> result;
  std::thread child([&] {
    ProcessOptions options;
    options.stdin_fd = fds[0];
    result = run_process({"cat"}, options);
  });
  ASSERT_EQ(::write(fds[1], "late\n", 5), 5);
  ::close(fds[1]);  // end of file for the child
  child.join();
  ::close(fds[0]);
  ASSERT_TRUE(result && result->ok());
  EXPECT_EQ((*result)->stdout_text, "late\n");
}

TEST(run_process, FailsForUnknownProgram) {
  EXPECT_FALSE(run_process({"definitely-not-a-program-kb"}).ok());
}
