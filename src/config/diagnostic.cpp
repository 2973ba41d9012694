// Compiler-style rendering of build.toml diagnostics (see diagnostic.h).
#include "config/diagnostic.h"

#include <algorithm>

namespace kb::config {

namespace {

// Line `number` (1-based) of `text` without its line terminator; empty when out of range.
std::string_view source_line(std::string_view text, int number) {
  size_t start = 0;
  for (int current = 1; current < number; ++current) {
    size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) return {};
    start = newline + 1;
  }
  size_t end = text.find('\n', start);
  std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Byte offset of 1-based `column` in `line`, where columns count UTF-8 code points (as toml++
// does), so the caret lands under the right character of non-ASCII lines.
size_t byte_offset(std::string_view line, int column) {
  size_t offset = 0;
  for (int current = 1; current < column && offset < line.size(); ++current) {
    ++offset;
    while (offset < line.size() && (static_cast<unsigned char>(line[offset]) & 0xC0) == 0x80) ++offset;
  }
  return offset;
}

}  // namespace

std::string render_diagnostic(const Diagnostic& diagnostic, std::string_view text, std::string_view severity) {
  std::string out = diagnostic.file;
  if (diagnostic.line > 0) {
    out += ":" + std::to_string(diagnostic.line) + ":" + std::to_string(std::max(diagnostic.column, 1));
  }
  out += ": ";
  if (!severity.empty()) {
    out += severity;
    out += ": ";
  }
  out += diagnostic.message + "\n";
  if (diagnostic.line > 0) {
    std::string_view line = source_line(text, diagnostic.line);
    out += std::string(line) + "\n";
    size_t offset = byte_offset(line, std::max(diagnostic.column, 1));
    // Keep tabs so the caret lines up with the source line in any terminal.
    std::string marker;
    for (size_t i = 0; i < offset; ++i) {
      unsigned char c = static_cast<unsigned char>(line[i]);
      if ((c & 0xC0) == 0x80) continue;  // one column per code point
      marker += c == '\t' ? '\t' : ' ';
    }
    marker += '^';
    if (diagnostic.length > 1) marker += std::string(static_cast<size_t>(diagnostic.length - 1), '~');
    out += marker + "\n";
  }
  for (const auto& hint : diagnostic.hints) out += "hint: " + hint + "\n";
  return out;
}

std::string render_diagnostics(const std::vector<Diagnostic>& diagnostics, std::string_view text,
                               std::string_view severity) {
  std::string out;
  for (const auto& diagnostic : diagnostics) out += render_diagnostic(diagnostic, text, severity);
  return out;
}

}  // namespace kb::config
