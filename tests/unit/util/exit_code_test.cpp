// The exit-status table (util/exit_code.h): which error kinds are usage errors, and the help text.
#include "util/exit_code.h"

#include <gtest/gtest.h>

namespace kb::util {
namespace {
namespace KB_UNITY_ID {

TEST(ExitCodeFor, UsageErrorsAreTwoEveryOtherKindIsOne) {
  EXPECT_EQ(exit_code_for(Error(ErrorKind::usage, "bad flag")), ExitCode::usage);
  for (auto kind : {ErrorKind::generic, ErrorKind::config, ErrorKind::io, ErrorKind::process, ErrorKind::network,
                    ErrorKind::not_found, ErrorKind::permission, ErrorKind::integrity, ErrorKind::invalid}) {
    EXPECT_EQ(exit_code_for(Error(kind, "x")), ExitCode::failure);
  }
  EXPECT_EQ(to_int(ExitCode::success), 0);
  EXPECT_EQ(to_int(ExitCode::failure), 1);
  EXPECT_EQ(to_int(ExitCode::usage), 2);
}

TEST(ExitStatusHelp, ListsEveryRowOfTheTable) {
  EXPECT_EQ(exit_status_help("a failed build"),
            "Exit status:\n"
            "  0  success\n"
            "  1  error (a failed build)\n"
            "  2  usage error (unknown command or option, bad option value, a path argument that is not a directory)");
}

}  // namespace KB_UNITY_ID
}  // namespace
}  // namespace kb::util
