// The progress channel of a build (kept out of the build logic): the engine reports stages and
// compile counts per variant; the CLI implements a TTY status-line reporter and a plain one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kb::builder {

enum class Stage { detect, generate, configure, compile, link, stage, check, done, up_to_date, failed };

// A compile in progress: its source (project-relative, or a generated file's name) and how long it
// has been running.
struct RunningSource {
  std::string source;
  double seconds = 0;
};

std::string_view to_string(Stage stage);

class BuildReporter {
 public:
  virtual ~BuildReporter() = default;
  virtual void stage(const std::string& variant, Stage stage) = 0;
  // Compile progress inside a variant (`[done/total]` of the build tool).
  virtual void progress(const std::string& variant, int done, int total) = 0;
  // Raw compiler/CMake output; called only when logs are streamed (`-L`).
  virtual void log(const std::string& variant, std::string_view chunk) = 0;
  // Notes and warnings meant for the user (not errors).
  virtual void note(const std::string& message) = 0;
  // While a variant compiles, about once a second: the compile that has been running longest
  // (none between compiles).
  virtual void running(const std::string& variant, const std::optional<RunningSource>& longest) {
    (void)variant;
    (void)longest;
  }
};

// Discards everything (tests, library use).
class NullReporter : public BuildReporter {
 public:
  void stage(const std::string&, Stage) override {}
  void progress(const std::string&, int, int) override {}
  void log(const std::string&, std::string_view) override {}
  void note(const std::string&) override {}
};

}  // namespace kb::builder
