// Build progress as text (docs/build-engine.md), kept apart from the build logic: the line a
// reporter shows for a variant — its current step, the time since the variant started, Ninja's
// `[done/total]` while it compiles and, when a compile has run past kLongCompileSeconds, the
// source that has been compiling longest — and when a reporter without a terminal (a log) prints
// such a line. The reporters themselves live in the CLI (build_command.h).
//
// The running compiles are read from the system (Linux: the processes whose working directory is
// the variant's CMake build directory, by the object their command line writes), once a second.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "builder/reporter.h"

namespace kb::builder {

// A compile that has run this long is named in the progress line.
inline constexpr double kLongCompileSeconds = 10.0;
// Without a terminal, a long compile is named again every this many seconds.
inline constexpr double kRepeatSeconds = 60.0;

struct VariantProgress {
  Stage stage = Stage::detect;
  double elapsed = 0;  // seconds since the variant started
  int done = 0;        // Ninja's [done/total] while compiling or linking (total 0: not known yet)
  int total = 0;
  std::optional<RunningSource> longest;  // the compile running longest, if one runs
};

// "0:07", "12:34", "1:02:03".
std::string format_elapsed(double seconds);

// "<variant>: compile [3/10] (0:42), slowest running: csrc/a.cu (37 s)" — the running source only
// past kLongCompileSeconds, `[done/total]` only while compiling or linking.
std::string render_progress(const std::string& variant, const VariantProgress& progress);

// Without a terminal: whether to print a line for the longest running compile `longest`, given
// the seconds it had when a line last named it (none: not named yet).
bool long_compile_line_due(const RunningSource& longest, std::optional<double> last_named_at);

// The object a compiler command line writes (the word after `-o`, in any argument: `sh -c` gets
// the whole command as one), if it is an object of a CMake target (`<target>.dir/...o`).
std::optional<std::string> compile_output(const std::vector<std::string>& argv);

struct RunningCompile {
  std::string output;  // as in the command, relative to the build directory
  double seconds = 0;  // since its first process started
};
// The compiles running in `build_dir` (Linux; elsewhere none), longest first.
std::vector<RunningCompile> running_compiles(const std::filesystem::path& build_dir);

}  // namespace kb::builder
