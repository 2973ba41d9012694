// The exit-status table (see exit_code.h).
#include "util/exit_code.h"

namespace kb::util {

ExitCode exit_code_for(const Error& error) {
  return error.kind == ErrorKind::usage ? ExitCode::usage : ExitCode::failure;
}

std::string exit_status_help(std::string_view failure_meaning) {
  std::string out = "Exit status:";
  for (const auto& row : kExitCodes) {
    out += "\n  " + std::to_string(to_int(row.code)) + "  " + std::string(row.meaning);
    if (row.code == ExitCode::failure && !failure_meaning.empty()) out += " (" + std::string(failure_meaning) + ")";
  }
  return out;
}

}  // namespace kb::util
