// The exit statuses of every CLI of the project, in one table: commands return these values
// (`to_int`), an error's kind decides between failure and usage (`exit_code_for`), and the help
// text of each program prints the table (`exit_status_help`).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "util/result.h"

namespace kb::util {

enum class ExitCode : int {
  success = 0,
  failure = 1,  // the command ran and failed: any error, a failed check (ABI, layout, build.toml), a declined prompt
  usage = 2,    // the command line is wrong: unknown command or option, a bad value, a path that is not a directory
};

struct ExitCodeMeaning {
  ExitCode code;
  std::string_view meaning;
};

inline constexpr std::array<ExitCodeMeaning, 3> kExitCodes{{
    {ExitCode::success, "success"},
    {ExitCode::failure, "error"},
    {ExitCode::usage, "usage error (unknown command or option, bad option value, a path argument that is not a "
                      "directory)"},
}};

inline int to_int(ExitCode code) { return static_cast<int>(code); }

// ErrorKind::usage -> usage, every other kind -> failure.
ExitCode exit_code_for(const Error& error);

// "Exit status:" followed by one indented line per row of kExitCodes, for --help; the failure row
// reads "error (<failure_meaning>)", the failures of that program.
std::string exit_status_help(std::string_view failure_meaning);

}  // namespace kb::util
