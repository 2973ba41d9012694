// A variant's build log (<work>/build.log) and the build tools run into it: each command is
// appended (`$ argv`) with its output, streamed to the reporter with `-L`, and Ninja's
// `[done/total]` lines become compile progress. A failed step becomes an error naming the first
// compiler error lines and the log.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "builder/variant_build.h"
#include "util/process.h"
#include "util/result.h"

namespace kb::builder {

// Runs a build tool for `variant`, appending its output to `log_path`; `every_second`, if given,
// is called about once a second while it runs (from another thread).
util::Result<util::ProcessResult> run_logged(const BuildSettings& settings, const std::string& variant,
                                             const std::vector<std::string>& argv,
                                             const std::filesystem::path& log_path,
                                             const std::map<std::string, std::string>& env,
                                             const std::function<void()>& every_second = {});

// Appends `kernel-builder: <line>` to the log.
void append_log(const std::filesystem::path& log_path, const std::string& line);

// "Cannot build variant `<variant>`", caused by `what` and the log's first error lines.
util::Error build_failure(const std::string& variant, const std::string& what, const std::filesystem::path& log_path);

// The first compiler error lines of a build log (at most 8).
std::vector<std::string> first_error_lines(const std::string& log);

}  // namespace kb::builder
