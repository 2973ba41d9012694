// How long each source of a variant took to compile, from Ninja's own record (`.ninja_log` in the
// CMake build directory: start and end milliseconds per output, appended by every Ninja run). The
// builder reads the log before and after a variant's compile step: the entries that changed are
// this build's. Objects are named by their source in the project (docs/build-engine.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kb::builder {

struct NinjaLogEntry {
  std::int64_t start_ms = 0;
  std::int64_t end_ms = 0;
  std::string line;  // the whole record: a rebuilt output gets a new one
};

// The last record of each output in a `.ninja_log` text (pure; unknown lines are skipped).
std::map<std::string, NinjaLogEntry> parse_ninja_log(const std::string& text);

struct SourceTime {
  std::string source;  // project-relative, or the file name of a generated source
  double seconds = 0;
  double started = 0;  // seconds after the first compile of the same build started
  bool operator==(const SourceTime&) const = default;
};

// The objects compiled between two readings of the log, each named by its source (the longest of
// `sources`, project-relative, that the object's path ends with; else the object's file name
// without `.o`), slowest first (pure). Outputs that are not objects of a CMake target (links,
// kernel-unit steps) are left out.
std::vector<SourceTime> compile_times(const std::map<std::string, NinjaLogEntry>& before,
                                      const std::map<std::string, NinjaLogEntry>& after,
                                      const std::vector<std::string>& sources);

// The source an object of a CMake target is compiled from: the longest of `sources`
// (project-relative) that its path ends with, else its file name without `.o`.
std::string object_source(const std::string& object, const std::vector<std::string>& sources);

// The table build.log keeps: a header line, then `<seconds>  <source>` per source.
std::string render_compile_times_table(const std::vector<SourceTime>& times);

// When a build waited for its slowest source because it started late (it finished last, and it
// started at least 2 s and a tenth of its own time after the first compile), a hint: the next
// build of the directory starts it first (start_order.h), and a new build directory starts the
// sources of a target in the order of their `src` list, so list it first there. Empty otherwise.
std::string render_late_start_hint(const std::vector<SourceTime>& times);

// For stderr after a build: the `limit` slowest sources of a variant, one indented line each,
// under "<variant>: slowest sources". Empty when nothing was compiled.
std::string render_slowest_sources(const std::string& variant, const std::vector<SourceTime>& times, size_t limit = 5);

}  // namespace kb::builder
