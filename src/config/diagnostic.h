// Located build.toml diagnostics (file:line:col, message, hints) and their compiler-style
// rendering with the offending source line and a caret.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb::config {

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  int length = 1;  // characters to underline on `line` (the caret plus `~`s)
  std::string message;
  std::vector<std::string> hints;
};

// "<file>:<line>:<col>: <severity>: <message>", the source line, "^~~~", then "hint: ..." lines,
// for each diagnostic. `text` is the file content the positions refer to. An empty `severity`
// leaves out the "<severity>: " part (for diagnostics nested in an error chain).
std::string render_diagnostic(const Diagnostic& diagnostic, std::string_view text, std::string_view severity);
std::string render_diagnostics(const std::vector<Diagnostic>& diagnostics, std::string_view text,
                               std::string_view severity);

}  // namespace kb::config
