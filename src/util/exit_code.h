// Documented exit statuses of every CLI of the project.
#pragma once

namespace kb::util {

enum class ExitCode : int {
  success = 0,
  failure = 1,  // any error, including check failures (ABI, layout, config)
  usage = 2,    // command-line usage error
};

inline int to_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace kb::util
