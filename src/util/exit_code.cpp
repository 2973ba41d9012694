// The exit-status table (see exit_code.h).
#include "util/exit_code.h"

namespace kb::util {

ExitCode exit_code_for(const Error& error) {
  return error.kind == ErrorKind::usage ? ExitCode::usage : ExitCode::failure;
}

std::string exit_status_help() {
  std::string out = "Exit status:";
  for (const auto& row : kExitCodes) {
    out += "\n  " + std::to_string(to_int(row.code)) + "  " + std::string(row.meaning);
  }
  return out;
}

}  // namespace kb::util
