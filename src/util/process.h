// Running child processes: argv (no shell), optional working directory and extra environment,
// captured or streamed output.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace kb::util {

struct ProcessOptions {
  std::filesystem::path cwd;                            // empty: inherit
  std::map<std::string, std::string> env;               // added to / overriding the environment
  std::vector<std::string> unset_env;                   // removed from the environment
  bool capture_stdout = true;
  bool capture_stderr = true;                           // false: inherit the parent's stderr
  bool merge_stderr = false;                            // stderr into the stdout capture
  std::optional<std::string> stdin_data;
  // A file descriptor the child gets as its stdin (e.g. the read end of a pipe the caller writes
  // later); ignored when stdin_data is set. The caller keeps and closes it. Default: /dev/null.
  int stdin_fd = -1;
  // Called with each chunk of captured output as it arrives (e.g. to stream logs).
  std::function<void(std::string_view)> on_output;
  // Asked about four times a second while the process runs: once it answers true, the process gets
  // SIGTERM (Ninja then stops its jobs) and is waited for as usual.
  std::function<bool()> stop;
};

struct ProcessResult {
  int exit_code = -1;        // -1 when killed by a signal
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;
  bool success() const { return exit_code == 0; }
};

// Runs argv[0] (looked up on PATH) and waits. Fails only if the process cannot be started.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// First executable named `name` on PATH, if any.
std::optional<std::filesystem::path> find_program(const std::string& name);

}  // namespace kb::util
