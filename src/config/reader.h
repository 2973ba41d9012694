// Reading build.toml: edition probing, strict edition-5 parsing, legacy v4/v3 upgrade, and
// located diagnostics (file:line:col, source line, caret, "did you mean").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "config/model.h"
#include "util/result.h"

namespace kb::config {

enum class Edition { v3, v4, v5 };

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  std::string message;
  std::vector<std::string> hints;
};

struct ParsedConfig {
  BuildConfig config;
  Edition edition = Edition::v5;
};

// Outcome of parsing one file: either a config or every diagnostic found.
struct ParseOutcome {
  std::optional<ParsedConfig> parsed;
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;
};

// Parses build.toml text. `file_name` is used in diagnostics only.
ParseOutcome parse_build_toml(std::string_view text, std::string_view file_name);

// Renders diagnostics like a compiler: "<file>:<line>:<col>: error: <message>", the source
// line, a caret, then "hint:" lines. `text` is the file content (for the source lines).
std::string render_diagnostics(const std::vector<Diagnostic>& diagnostics, std::string_view text,
                               std::string_view severity);

// For commands that need a configuration (build-toml.md §1.3): reads <kernel_dir>/build.toml,
// returns the edition-5 model. A v4 file prints the upgrade warning to stderr; a v3 file is an
// error with the `update-build` hint; parse errors come back as one Error whose message holds
// every rendered diagnostic.
util::Result<BuildConfig> load_build_config(const std::filesystem::path& kernel_dir);

}  // namespace kb::config
