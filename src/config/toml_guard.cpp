// The toml++ safety pre-scan (see toml_guard.h). A small lexer that only knows where strings and
// comments start and end; it stops at the first point where toml++ reports an error anyway
// (e.g. a newline inside a single-line string), since toml++ reads nothing past its first error.
#include "config/toml_guard.h"

#include <vector>

namespace kb::config::detail {

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<UnsafeCharacter> run() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {
        skip_comment();
      } else if (c == '"' || c == '\'') {
        bool multi_line = text_.substr(pos_, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
        std::optional<UnsafeCharacter> problem = multi_line ? multi_line_string(c) : single_line_string(c);
        if (problem || stopped_) return problem;
        value_context_ = false;
      } else if (is_non_ascii(c)) {
        return unsafe("non-ASCII character outside a string or comment");
      } else if (value_context_ && !is_structural(c)) {
        // A bare value (number, boolean, date): toml++ reads it up to a value terminator, and
        // quotes inside it do not start strings.
        if (auto problem = bare_value()) return problem;
        value_context_ = false;
      } else {
        structural(c);
        advance();
      }
    }
    return std::nullopt;
  }

 private:
  static bool is_non_ascii(char c) { return (static_cast<unsigned char>(c) & 0x80) != 0; }
  static bool is_structural(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == ',' || c == '=';
  }

  // Tracks whether the next token is a value (after `=`, inside arrays) or a key.
  void structural(char c) {
    switch (c) {
      case '=': value_context_ = true; break;
      case '[':
        if (value_context_) containers_.push_back('[');
        break;
      case '{':
        containers_.push_back('{');
        value_context_ = false;
        break;
      case ']':
      case '}':
        if (!containers_.empty()) containers_.pop_back();
        value_context_ = false;
        break;
      case ',': value_context_ = !containers_.empty() && containers_.back() == '['; break;
      case '\n':
        if (containers_.empty()) {
          value_context_ = false;
        } else if (containers_.back() == '[') {
          value_context_ = true;
        }
        break;
      default: break;
    }
  }

  std::optional<UnsafeCharacter> bare_value() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ']' || c == '}' || c == ',' || c == '#') break;
      if (is_non_ascii(c)) return unsafe("non-ASCII character outside a string or comment");
      advance();
    }
    return std::nullopt;
  }

  void advance() {
    char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;
    }
  }
  // The position of the character at pos_ (columns count code points, like toml++).
  UnsafeCharacter unsafe(std::string message) const { return UnsafeCharacter{line_, column_, std::move(message)}; }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') advance();
  }

  std::optional<UnsafeCharacter> single_line_string(char quote) {
    advance();  // opening quote
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        stopped_ = true;  // toml++ rejects the unterminated string here
        return std::nullopt;
      }
      if (c == quote) {
        advance();
        return std::nullopt;
      }
      if (c == '\\' && quote == '"') {
        advance();
        if (pos_ < text_.size() && is_non_ascii(text_[pos_])) return unsafe("invalid escape sequence in string");
        if (pos_ < text_.size() && text_[pos_] != '\n') advance();
        continue;
      }
      advance();
    }
    return std::nullopt;
  }

  std::optional<UnsafeCharacter> multi_line_string(char quote) {
    const std::string_view delimiter = quote == '"' ? "\"\"\"" : "'''";
    for (int i = 0; i < 3; ++i) advance();
    while (pos_ < text_.size()) {
      if (text_.substr(pos_, 3) == delimiter) {
        for (int i = 0; i < 3; ++i) advance();
        // Up to two more quotes belong to the content ("""a"""" ends with a quote).
        for (int i = 0; i < 2 && pos_ < text_.size() && text_[pos_] == quote; ++i) advance();
        return std::nullopt;
      }
      if (text_[pos_] == '\\' && quote == '"') {
        advance();
        if (pos_ >= text_.size()) return std::nullopt;
        char next = text_[pos_];
        if (is_non_ascii(next)) return unsafe("invalid escape sequence in string");
        if (next == ' ' || next == '\t' || next == '\r' || next == '\n') {
          // Line-ending backslash: whitespace and newlines are trimmed up to the next character.
          while (pos_ < text_.size() &&
                 (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n')) {
            advance();
          }
          if (pos_ < text_.size() && is_non_ascii(text_[pos_])) {
            return unsafe("non-ASCII character directly after a line-ending backslash");
          }
          continue;
        }
        advance();
        continue;
      }
      advance();
    }
    return std::nullopt;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool stopped_ = false;
  bool value_context_ = false;
  std::vector<char> containers_;  // '[' arrays and '{' inline tables currently open
};

}  // namespace

std::optional<UnsafeCharacter> find_unsafe_character(std::string_view text) { return Scanner(text).run(); }

}  // namespace kb::config::detail
